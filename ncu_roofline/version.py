"""The package version: one place, importing nothing, read by the build too."""

__version__ = "0.1.0"
