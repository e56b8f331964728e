"""The import paths semsim's modules had before they moved into ``semsim.kernel`` and
``semsim.app`` (issue #48), kept working for a deprecation period.

Plugins and programs import ``semsim.graph``, ``semsim.cli``, ``semsim.testing`` and the like;
they now live at ``semsim.kernel.graph``, ``semsim.app.cli``, ``semsim.app.testing``. One
finder on ``sys.meta_path`` (installed by ``semsim/__init__``) answers an old dotted name,
or any name below it (``semsim.align.tokens``), with the module at its new name: the SAME
module object, so its classes, registries and module state are shared, never copied, and a
``DeprecationWarning`` names the new path. No file stands at an old path: git sees each move
as a rename, and a reader finds each module in one place. The table is the deprecation
table of docs/architecture.md.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from collections.abc import Sequence
from types import CodeType, FrameType, ModuleType

#: When the old paths go: the release that drops this module.
REMOVED_IN = "semsim 0.3"

_KERNEL = ("version", "errors", "limits", "graph", "scheme", "adapt", "stats", "significance", "files", "graph_json",
           "records", "hookspecs", "models", "progress", "threads", "imports", "formats", "align", "metrics")
_APP = ("plugins", "parsing", "textfiles", "executors", "cache", "downloads", "systems", "testing", "report", "cli",
        "commands", "gec", "explain", "hf")

#: Old dotted name -> new dotted name, for each moved module or package (a package's
#: submodules follow it: ``semsim.align.tokens`` -> ``semsim.kernel.align.tokens``). The two
#: renamed ones no longer shadow the standard library's ``io`` and ``tokenize``.
MOVED: dict[str, str] = {
    **{f"semsim.{name}": f"semsim.kernel.{name}" for name in _KERNEL},
    **{f"semsim.{name}": f"semsim.app.{name}" for name in _APP},
    "semsim.io": "semsim.app.reading",
    "semsim.tokenize": "semsim.app.tokenization",
}


#: Old dotted name -> why it is gone: modules that left the package in the move (so no new
#: path serves them); importing one is a one-line ImportError saying where it went.
REMOVED: dict[str, str] = {
    "semsim.gec.faithfulness": "the faithfulness benchmark's generator left the package for "
                               "benchmarks/faithfulness_data.py (a script of the repository, not installed)",
}


def new_name(old: str) -> str | None:
    """Where the module once imported as ``old`` lives now, or None if it did not move."""
    head, _, rest = old.partition(".")
    if head != "semsim" or not rest:
        return None
    top = f"semsim.{rest.partition('.')[0]}"
    if top not in MOVED:
        return None
    return MOVED[top] + old[len(top):]


class _Alias(importlib.abc.Loader):
    """Loads an old name as the module already at its new name (imported first if need be)."""

    def __init__(self, new: str) -> None:
        self.new = new

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(self.new)
        # the import system sets __spec__ on what this returns; keep the module's own
        self.spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        module.__spec__ = self.spec  # already executed under its new name: nothing to run

    def get_code(self, fullname: str) -> CodeType:
        """What ``python -m OLD_NAME`` runs (runpy asks the loader for code): the module at its
        new name as ``__main__``, so that its relative imports resolve from where it stands."""
        # warned again from here: run as __main__, where Python shows a DeprecationWarning by default
        message = f"{fullname} moved to {self.new}; the old path goes in {REMOVED_IN}"
        return compile(f"import runpy, warnings\nwarnings.warn({message!r}, DeprecationWarning)\n"
                       f"runpy.run_module({self.new!r}, run_name='__main__', alter_sys=True)\n",
                       f"<{fullname}, moved to {self.new}>", "exec")


def _importer_level() -> int:
    """The ``stacklevel`` that points a warning raised in :meth:`MovedFinder.find_spec` at the
    code that imported the old name: so the warning shows there (Python shows a
    DeprecationWarning by default only where ``__main__`` triggers it) and says which line to
    change. ``warnings`` itself skips the import system's bootstrap frames (a file name with
    both ``importlib`` and ``_bootstrap`` in it, as its ``_is_internal_frame`` has it); this
    counts past what it does not skip: ``importlib.import_module``, ``importlib.util``
    (``find_spec``), ``zipimport`` and this module."""
    frame: FrameType | None = sys._getframe(2)  # level 1 is find_spec, which called warnings.warn
    level = 2
    while frame is not None:
        name = frame.f_code.co_filename
        skipped_by_warnings = "importlib" in name and "_bootstrap" in name
        if name in (__file__, importlib.__file__) or (name.startswith("<frozen ") and not skipped_by_warnings):
            level += 1
        elif not skipped_by_warnings:
            return level
        frame = frame.f_back
    return level


class MovedFinder(importlib.abc.MetaPathFinder):
    """Finds the old names of moved modules (see :data:`MOVED`), and says which are gone
    (:data:`REMOVED`)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname in REMOVED:
            raise ImportError(f"{fullname} is gone: {REMOVED[fullname]}", name=fullname)
        new = new_name(fullname)
        if new is None:
            return None
        warnings.warn(f"{fullname} moved to {new}; the old path goes in {REMOVED_IN}", DeprecationWarning,
                      stacklevel=_importer_level())
        return importlib.machinery.ModuleSpec(fullname, _Alias(new))


def attribute(name: str) -> ModuleType:
    """``semsim.NAME`` for a moved module's old name, read as an attribute of the package
    (``import semsim; semsim.plugins.to_graph(...)``) rather than imported: the package's
    ``__getattr__``. Python sets such attributes only as a side effect of importing the
    submodule, which code leaned on; the same module and warning as an import."""
    new = new_name(f"semsim.{name}")
    if new is None:
        raise AttributeError(f"module 'semsim' has no attribute {name!r}")
    warnings.warn(f"semsim.{name} moved to {new}; the old path goes in {REMOVED_IN}", DeprecationWarning,
                  stacklevel=3)
    return importlib.import_module(new)


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once): before the path finder, which would
    otherwise load ``semsim.align.tokens`` a second time from the moved package's folder."""
    if not any(isinstance(finder, MovedFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, MovedFinder())
