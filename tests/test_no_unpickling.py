"""No file semsim reads is unpickled unless the user opted in: loading a pickle runs code from
it (issue #32). semsim's own files (models, parse caches, training checkpoints, prepared
training data) are safetensors, JSON and ``torch.load(weights_only=True)`` checkpoints.

Every call that can run code from bytes is found with ``ast`` in every module of semsim and
its plugins, wherever it stands, through import aliases (``import pickle as pk``, ``from
torch import load``): ``pickle.load``/``loads``/``Unpickler``, ``dill``, ``cloudpickle``,
``joblib.load``, ``pandas.read_pickle``, ``shelve.open``, ``torch.load`` without a literal
``weights_only=True`` and ``numpy.load`` with ``allow_pickle`` not a literal ``False``. Each
one must be on :data:`ALLOWED`, with why; an entry that no longer matches a call fails too.

The TUPA and amrlib adapters (``semsim_ucca/tupa.py``, ``semsim_amr/amrlib_parser.py``) call
none of these: the libraries they hand a model directory to unpickle it themselves (TUPA's
``model_util.load_dict``, amrlib's ``torch.load``), models the user installs with ``semsim
models download``, not files of a semsim format, and out of this test's reach.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: (file, function) -> why it may unpickle: nothing on this list reads a file of semsim's own.
ALLOWED = {
    ("plugins/ucca/semsim_ucca/reader.py", "read_pickle"):
        "the third-party ucca-pickle format, refused unless the user passes --allow-pickle (SEMSIM_ALLOW_PICKLE)",
    ("semsim/app/testing.py", "bounded"):
        "a fuzz check's outcome, pickled down a pipe by the child this process asked for: IPC, never a file",
    ("semsim/app/_forkserver.py", "fork_and_call"):
        "the fuzz check to run, pickled by the test process that asked for it: IPC, never a file",
    ("plugins/ucca/semsim_ucca/span/training/evaluation.py", "evaluate"):
        "a deep copy of a gold passage frozen() pickled in memory by this process (8x faster than re-reading XML)",
}

#: Calls that run code from the bytes they read, whatever their arguments.
ALWAYS = {f"{module}.{name}" for module in ("pickle", "_pickle", "dill", "cloudpickle")
          for name in ("load", "loads", "Unpickler")} | {"joblib.load", "pandas.read_pickle", "shelve.open"}
#: Calls that do only with some arguments (see :func:`_unsafe`).
TORCH_LOAD = {"torch.load", "torch.serialization.load"}
NUMPY_LOAD = {"numpy.load"}


def _modules() -> list[Path]:
    bases = [ROOT / "semsim", *sorted((ROOT / "plugins").glob("*/semsim_*"))]
    return sorted(p for base in bases for p in base.rglob("*.py"))


def _aliases(tree: ast.AST) -> dict[str, str]:
    """What each imported name stands for, from every import in the module wherever it is."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                out[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                out[a.asname or a.name] = f"{node.module}.{a.name}"
    return out


def _dotted(func: ast.expr, aliases: dict[str, str]) -> str | None:
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return None
    return ".".join([aliases.get(func.id, func.id), *reversed(parts)])


def _literal(call: ast.Call, keyword: str, position: int | None = None) -> object:
    """The argument's literal value; ``...`` when it is given but not a literal, None when absent."""
    for k in call.keywords:
        if k.arg == keyword:
            return k.value.value if isinstance(k.value, ast.Constant) else ...
    if position is not None and len(call.args) > position:
        arg = call.args[position]
        return arg.value if isinstance(arg, ast.Constant) else ...
    return ... if any(k.arg is None for k in call.keywords) else None  # **kwargs may carry it


def _unsafe(name: str, call: ast.Call) -> bool:
    if name in ALWAYS:
        return True
    if name in TORCH_LOAD:
        return _literal(call, "weights_only") is not True
    if name in NUMPY_LOAD:
        return _literal(call, "allow_pickle", 2) not in (None, False)
    return False


def unpickling_calls(source: str) -> list[tuple[str, int, str]]:
    """(function's qualified name or "<module>", line, call) of each unpickling call."""
    tree = ast.parse(source)
    aliases = _aliases(tree)
    found: list[tuple[str, int, str]] = []

    def visit(node: ast.AST, scope: list[str]) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            scope = [*scope, node.name]
        if isinstance(node, ast.Call):
            name = _dotted(node.func, aliases)
            if name and _unsafe(name, node):
                found.append((".".join(scope) or "<module>", node.lineno, name))
        for child in ast.iter_child_nodes(node):
            visit(child, scope)

    visit(tree, [])
    return found


def test_the_detector_finds_every_route_and_spares_the_safe_ones():
    unsafe = """
import pickle as pk, numpy as np, torch, joblib
from dill import loads
from torch import load as tload
def f(b, kw):
    pk.loads(b); pk.Unpickler(b).load(); loads(b); joblib.load(b)
    torch.load(b); torch.load(b, weights_only=False); tload(b, map_location="cpu"); torch.load(b, **kw)
    np.load(b, allow_pickle=True); np.load(b, None, True)
"""
    safe = """
import pickle, numpy as np, torch
def g(b):
    pickle.dumps(b); torch.load(b, weights_only=True); np.load(b); np.load(b, allow_pickle=False); b.load()
"""
    assert [line for _, line, _ in unpickling_calls(unsafe)] == [6] * 4 + [7] * 4 + [8] * 2
    assert unpickling_calls(safe) == []


def test_nothing_semsim_reads_is_unpickled_outside_the_allow_list():
    found = {}
    for path in _modules():
        rel = path.relative_to(ROOT).as_posix()
        for function, line, call in unpickling_calls(path.read_text(encoding="utf-8")):
            found.setdefault((rel, function), []).append(f"{rel}:{line}: {call} in {function}")
    unexplained = [where for key, places in found.items() if key not in ALLOWED for where in places]
    assert not unexplained, ("unpickling outside the allow-list (semsim's own files must be safetensors, JSON or "
                             "torch.load(weights_only=True)):\n" + "\n".join(unexplained))
    stale = [f"{f}:{fn}" for f, fn in ALLOWED if (f, fn) not in found]
    assert not stale, f"allow-list entries that match no call any more (remove them): {stale}"
