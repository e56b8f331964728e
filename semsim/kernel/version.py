"""semsim's version, in a module of its own: what signatures and reports carry, importable
by every layer (and by plugins) without importing the public API in ``semsim/__init__``."""

__version__ = "0.1.0"
