"""Two heavy libraries, imported without the parts semsim never runs.

A user's first result waits on imports (docs/parser.md, "the start"): ``import spacy`` costs
1.2 s on the reference machine, and the parts of it semsim does not use (torch, which spaCy's
thinc imports when it is installed, and spaCy's own command line) cost 2 s and 0.45 s of it;
``import scipy.optimize`` costs 0.5 s, for the one function the token alignment needs. Both
are loaded here as the libraries themselves would load them, minus those parts. Whoever
imports the rest later in the same process gets it as usual.
"""

from __future__ import annotations

import functools
import importlib.machinery
import importlib.util
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any


def import_spacy() -> types.ModuleType:
    """spaCy, imported without torch and without its command line, where neither is loaded yet.

    thinc imports torch only to offer torch-backed layers, which none of the pipelines semsim
    loads has; torch is hidden from that one import, so thinc notes in this process that it
    has no torch, and a pipeline with torch layers (``spacy-transformers``) loaded later in the
    same process would be refused by thinc. Where torch or thinc is loaded already, nothing is
    hidden. spaCy's ``__init__`` imports its command line (``typer``, every subcommand) for
    ``spacy.info`` alone; a stand-in serves that import, ``spacy.info`` imports the real one
    when called, and ``import spacy.cli`` works afterwards as ever."""
    if "spacy" in sys.modules:
        return sys.modules["spacy"]
    standins: dict[str, Any] = {}
    if "torch" not in sys.modules and "thinc" not in sys.modules:
        standins["torch"] = None  # `import torch` now raises ImportError
    if "spacy.cli" not in sys.modules:
        cli = types.ModuleType("spacy.cli")
        cli.__path__ = []
        info = types.ModuleType("spacy.cli.info")
        info.info = _spacy_info  # type: ignore[attr-defined]
        standins |= {"spacy.cli": cli, "spacy.cli.info": info}
    sys.modules.update(standins)
    try:
        import spacy
    finally:
        for name, module in standins.items():
            if name in sys.modules and sys.modules[name] is module:
                del sys.modules[name]
    return spacy


def _spacy_info(*args: Any, **kwargs: Any) -> Any:
    """``spacy.info``, its command line imported when it is called."""
    from spacy.cli.info import info
    return info(*args, **kwargs)


@functools.cache
def assignment_solver() -> Callable[..., tuple[Any, Any]]:
    """scipy's assignment solver (``scipy.optimize.linear_sum_assignment``), loaded from its
    own extension module without running ``scipy/optimize/__init__.py``, which imports every
    optimiser, ``scipy.special`` and ``scipy.linalg``. It is the very function
    ``scipy.optimize`` exports (tested); where scipy lays its files out otherwise, the public
    import is used."""
    try:
        import scipy
        folder = Path(scipy.__file__).parent / "optimize"
        path = next(folder / f"_lsap{suffix}" for suffix in importlib.machinery.EXTENSION_SUFFIXES
                    if (folder / f"_lsap{suffix}").is_file())
        loader = importlib.machinery.ExtensionFileLoader("scipy.optimize._lsap", str(path))
        spec = importlib.util.spec_from_file_location("scipy.optimize._lsap", path, loader=loader)
        if spec is None:
            raise ImportError(path)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        return module.linear_sum_assignment
    except (ImportError, StopIteration, AttributeError, TypeError, OSError):
        from scipy.optimize import linear_sum_assignment as solve
        return solve
