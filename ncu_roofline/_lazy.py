"""Module attributes imported on first use (PEP 562), shared by the packages that defer them."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(
    namespace: dict[str, Any], homes: Mapping[str, str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """Return a module's ``__getattr__`` and ``__dir__`` for names living in other modules.

    ``namespace`` is the module's ``globals()``; ``homes`` maps each deferred
    public name to the module it is imported from.  A name is imported on its
    first read and kept in ``namespace``, so later reads cost nothing.
    """
    module_name = namespace["__name__"]

    def __getattr__(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *homes})

    return __getattr__, __dir__
