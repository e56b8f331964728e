"""The import paths of semsim's modules before they moved into ``semsim.kernel`` and
``semsim.app`` (issue #48): each still imports, for a deprecation period, as the SAME module
object as its new path, with a DeprecationWarning naming the new path (semsim/_moved.py)."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import semsim
from semsim import _moved

ROOT = Path(__file__).resolve().parents[1]


def _old_names() -> list[str]:
    """Every module that moved, by its old name: the table's entries and every module inside
    a moved package (``semsim.align.tokens``), read from the files."""
    out = set(_moved.MOVED)
    for old, new in _moved.MOVED.items():
        folder = ROOT / Path(*new.split("."))
        if folder.is_dir():
            for path in folder.rglob("*.py"):
                parts = path.relative_to(folder).with_suffix("").parts
                parts = parts[:-1] if parts[-1] == "__init__" else parts
                out.add(".".join((old, *parts)))
    return sorted(out)


OLD = _old_names()
#: Modules whose first import takes seconds (gec-metrics, datasets, hypothesis): slow.
HEAVY = ("semsim.gec", "semsim.hf", "semsim.testing")


@pytest.fixture
def forget_old_names():
    """Import each old name afresh (it warns once, on the import that creates it), and leave
    sys.modules as it was."""
    saved = {name: sys.modules.pop(name) for name in OLD if name in sys.modules}
    yield
    for name in OLD:
        sys.modules.pop(name, None)
    sys.modules.update(saved)


def test_the_table_names_every_module_of_the_moved_packages():
    assert {"semsim.graph", "semsim.cli", "semsim.testing", "semsim.io", "semsim.tokenize", "semsim.formats.mrp",
            "semsim.align.tokens", "semsim.metrics.usim", "semsim.gec.metric", "semsim.hf"} <= set(OLD)
    assert _moved.new_name("semsim.io") == "semsim.app.reading"
    assert _moved.new_name("semsim.align.tokens") == "semsim.kernel.align.tokens"
    assert _moved.new_name("semsim.api") is None and _moved.new_name("semsim") is None
    assert _moved.new_name("semsim.kernel.graph") is None and _moved.new_name("semsim_ucca.graph") is None


@pytest.mark.usefixtures("forget_old_names")
@pytest.mark.parametrize("old", [pytest.param(o, marks=pytest.mark.slow) if o.startswith(HEAVY) else o
                                 for o in OLD])
def test_an_old_path_warns_and_gives_the_same_module(old):
    new = _moved.new_name(old)
    assert new is not None
    parent = old.rpartition(".")[0]
    if parent in OLD:  # its own warning is its own test's
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            importlib.import_module(parent)
    message = rf"^{re.escape(old)} moved to {re.escape(new)}; the old path goes in semsim 0\.\d+$"
    with pytest.warns(DeprecationWarning, match=message) as caught:
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    assert module.__name__ == new and module.__spec__.name == new  # the module keeps its own identity
    assert {Path(w.filename).name for w in caught} == {"test_moved.py"}  # the line to change, not importlib's


@pytest.mark.usefixtures("forget_old_names")
def test_old_attribute_and_from_imports_share_state():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import semsim.graph as old_graph
        from semsim import io as old_io
        from semsim.align import tokens as old_tokens
        from semsim.testing import conformance_tests
    from semsim.app import reading
    from semsim.app.testing import conformance_tests as new_conformance_tests
    from semsim.kernel import graph
    from semsim.kernel.align import tokens
    assert old_graph.Graph is graph.Graph is semsim.Graph
    assert old_io is reading and old_tokens is tokens and conformance_tests is new_conformance_tests


def test_an_old_name_read_as_an_attribute_of_the_package_warns_and_gives_the_module(monkeypatch):
    """``import semsim as api; api.plugins.to_graph(...)``: Python set the attribute as a side
    effect of importing the submodule, and code leaned on it."""
    monkeypatch.delattr(semsim, "report", raising=False)  # as if no old-path import had set it
    with pytest.warns(DeprecationWarning, match=r"^semsim\.report moved to semsim\.app\.report;") as caught:
        module = semsim.report
    from semsim.app import report
    assert module is report and {Path(w.filename).name for w in caught} == {"test_moved.py"}
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        semsim.nothing  # noqa: B018


@pytest.mark.slow  # an interpreter, semsim's heavy modules and a plugin
def test_importing_semsim_by_its_new_paths_warns_nothing():
    """semsim's own code imports no old path (a warning turned error here would fail it)."""
    code = ("import warnings; warnings.filterwarnings('error', message=r'semsim\\.\\S+ moved to'); "
            "import semsim, semsim.app.cli, semsim.app.testing, semsim.app.gec.metric, semsim.app.hf, "
            "semsim.app.commands.score, semsim_ucca; from semsim.app.plugins import readers; readers()")
    result = subprocess.run([sys.executable, "-c", code],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr


@pytest.mark.slow  # an interpreter
def test_python_dash_m_runs_an_old_path():
    """``python -m semsim.cli`` (and ``semsim.gec.cli``, which gec-metrics users were told to run)
    runs the moved module as __main__, saying where it went."""
    result = subprocess.run([sys.executable, "-m", "semsim.cli", "--version"], capture_output=True, text=True,
                            cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"semsim, version {semsim.__version__}")
    assert "DeprecationWarning: semsim.cli moved to semsim.app.cli; the old path goes in semsim 0." in result.stderr


def test_no_file_stands_at_an_old_path():
    """The moves are renames: nothing left behind at ``semsim/graph.py`` to drift from the real one.
    (A checkout from before the move keeps its old folders' ``__pycache__``, which git does not
    track; the finder comes first on ``sys.meta_path``, so they shadow nothing.)"""
    def stands(old: str) -> bool:
        path = ROOT / Path(*old.split("."))
        return path.with_suffix(".py").exists() or (path.is_dir() and any(
            p.suffix == ".py" for p in path.rglob("*") if "__pycache__" not in p.parts))
    assert [old for old in _moved.MOVED if stands(old)] == []


def test_a_module_that_left_the_package_says_where_it_went():
    """semsim.gec.faithfulness became a benchmark script, not a module: its old name is a
    one-line ImportError naming the script, not a warning pointing at a module that is not there."""
    with warnings.catch_warnings(), pytest.raises(ImportError, match=r"benchmarks/faithfulness_data\.py"):
        warnings.simplefilter("ignore", DeprecationWarning)  # semsim.gec's own, once a process
        importlib.import_module("semsim.gec.faithfulness")


def test_the_warning_points_at_the_caller_through_importlib_util_find_spec():
    """importlib.util's frame is none warnings skips: the warning still names this file."""
    import importlib.util
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        importlib.util.find_spec("semsim.cli")
    assert [w.filename for w in caught if issubclass(w.category, DeprecationWarning)] == [__file__]
