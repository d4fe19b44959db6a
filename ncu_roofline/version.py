"""The program's name and version: one place, importing nothing, read by the build too."""

#: The program's name: the command, the distribution and the generator of its documents.
NAME = "ncu-roofline"

__version__ = "0.1.0"
