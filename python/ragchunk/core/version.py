"""The package's version (the compiled core must be built from the same release)."""

__version__ = "0.1.0"
