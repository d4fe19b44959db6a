"""Allow ``python -m ncu_roofline``."""

from ncu_roofline.cli import main

if __name__ == "__main__":
    main()
