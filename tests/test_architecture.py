"""The two layers of docs/architecture.md, held by a test: what may import what.

Every import statement counts, wherever it stands (module level, inside a function, under
``TYPE_CHECKING``): a deferred import hides a dependency from a reader, not from this test.
"""

from __future__ import annotations

import ast
import functools
import graphlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The layers are folders: a module is placed by where it stands, so a new module in
#: ``semsim/kernel/`` or ``semsim/app/`` is classified without a list to keep in step.
#: The kernel is what a plugin may stand on: the graph model, schemes, statistics, the
#: measures, the records and hooks a plugin registers with, file primitives and graphs as JSON,
#: model files, the MRP format, threads and progress. It imports nothing above it.
KERNEL_PACKAGE = "semsim.kernel"
#: The application: the plugin manager and reader dispatch, parsing (parsing, executors,
#: cache, downloads), the command line, the GEC studies, explanations, integrations.
APPLICATION_PACKAGE = "semsim.app"
#: All the top level holds, each application code: the public API's re-exports
#: (``semsim/__init__``), ``python -m semsim`` and the documented module ``semsim.api``.
TOP_LEVEL = {"semsim", "semsim.__main__", "semsim.api"}
#: A plugin's command-line commands (its ``register_commands``) are application code of the
#: plugin: besides the kernel they may use semsim's public API, as any program using semsim does,
#: and the command line's shared options (``semsim.app.cli.parsing_options``), so they parse as every command does.
PLUGIN_COMMANDS = {"semsim_ucca.commands": {"semsim.api", "semsim.app.cli"}}


def _modules() -> dict[str, Path]:
    out = {}
    # the tutorial's plugin (examples/plugin-tutorial) is held to what it teaches
    bases = [ROOT / "semsim", *sorted((ROOT / "plugins").glob("*/semsim_*")),
             *sorted((ROOT / "examples").glob("*/semsim_*"))]
    for base in bases:
        for path in base.rglob("*.py"):
            parts = list(path.relative_to(base.parent).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


MODULES = _modules()
ROOTS = {name.split(".")[0] for name in MODULES}


def _imports(name: str, path: Path) -> list[tuple[str, str, int]]:
    """(module imported, name imported from it or "", line) of every import in a module."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(a.name, "", node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:  # "from semsim.app import reading as io" imports the module semsim.app.reading
                full = f"{target}.{alias.name}"
                out.append((full, "", node.lineno) if full in MODULES else (target, alias.name, node.lineno))
    return [(m, n, line) for m, n, line in out if m.split(".")[0] in ROOTS]


def _owner(module: str) -> str:
    """The module an import resolves to (``semsim.kernel.graph.Graph`` names ``semsim.kernel.graph``)."""
    while module not in MODULES and "." in module:
        module = module.rpartition(".")[0]
    return module


@functools.cache
def all_imports() -> dict[str, list[tuple[str, str, int]]]:
    """Every module's imports, resolved to modules (read once, by the tests that need them, not
    at collection: every test process collects this file)."""
    return {name: [(_owner(m), n, line) for m, n, line in _imports(name, path)] for name, path in MODULES.items()}


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _layer(module: str) -> str | None:
    if _within(module, KERNEL_PACKAGE):
        return "kernel"
    if _within(module, APPLICATION_PACKAGE) or module in TOP_LEVEL:
        return "application"
    if not module.startswith("semsim."):
        return "plugin"
    return None


def _core() -> list[str]:
    return [m for m in MODULES if m == "semsim" or m.startswith("semsim.")]


def test_every_module_of_the_core_has_a_layer():
    """A new module is placed on purpose: in ``semsim/kernel/`` or ``semsim/app/`` (and in the
    map of docs/architecture.md); the top level holds only what TOP_LEVEL names."""
    assert [m for m in _core() if _layer(m) is None] == []
    assert {m for m in _core() if m.count(".") == 1} - {KERNEL_PACKAGE, APPLICATION_PACKAGE} == TOP_LEVEL - {"semsim"}


def test_the_layers_hold_what_docs_architecture_md_says():
    """Spot checks that the folders were not emptied into one another: what plugins stand on is
    kernel, what runs commands and parsers is application."""
    kernel = ["semsim.kernel.graph", "semsim.kernel.records", "semsim.kernel.hookspecs", "semsim.kernel.metrics.usim",
              "semsim.kernel.align.tokens", "semsim.kernel.formats.mrp", "semsim.kernel.stats"]
    application = ["semsim.app.cli", "semsim.app.parsing", "semsim.app.cache", "semsim.app.testing",
                   "semsim.app.commands.score", "semsim.app.metric", "semsim.app.hf", "semsim.api",
                   "semsim.app.usim"]
    assert [_layer(m) for m in kernel] == ["kernel"] * len(kernel)
    assert [_layer(m) for m in application] == ["application"] * len(application)
    assert set(MODULES) >= set(kernel) | set(application)


def test_no_module_is_named_like_a_standard_library_module():
    """``python semsim/app/cli.py`` puts the module's folder first on ``sys.path``: a
    ``tokenize.py`` there once replaced the standard library's, and linecache crashed."""
    assert _shadowing(_core()) == []


def _shadowing(modules: list[str]) -> list[str]:
    return [m for m in modules if m.rpartition(".")[2] in sys.stdlib_module_names]


def test_the_standard_library_check_can_fail():
    assert _shadowing(["semsim.tokenize", "semsim.app.io", "semsim.app.reading"]) == [
        "semsim.tokenize", "semsim.app.io"]


def test_every_import_names_a_module_that_exists():
    """(A module moved without its relative imports fixed fails only when that code runs.)"""
    missing = [f"{m}:{line} imports {target}" for m, path in MODULES.items() for target, _, line in _imports(m, path)
               if target not in MODULES and target.split(".")[0] in {"semsim", m.split(".")[0]}]
    assert missing == []


def test_the_kernel_imports_nothing_above_it():
    wrong = [f"{m}:{line} imports {target}" for m in MODULES if _layer(m) == "kernel"
             for target, _, line in all_imports()[m] if _layer(target) != "kernel"]
    assert wrong == []


def test_nothing_below_imports_the_top_level():
    """The public face (``semsim``, ``semsim.api``) stands on top of the house: it imports the
    application, which never imports it back (USim lived in ``api.py``, and ten application
    modules imported it from there). A plugin's commands may, as any program using semsim."""
    wrong = [f"{m}:{line} imports {target}" for m in MODULES if _layer(m) in ("kernel", "application")
             and m not in TOP_LEVEL for target, _, line in all_imports()[m] if _owner(target) in TOP_LEVEL]
    assert wrong == []


def test_plugins_stand_on_the_kernel_only():
    wrong = []
    for m in MODULES:
        if _layer(m) != "plugin":
            continue
        own = m.split(".")[0]
        for target, _, line in all_imports()[m]:
            if target.split(".")[0] == own:
                continue
            if _layer(target) == "plugin":
                wrong.append(f"{m}:{line} imports another plugin, {target}")
            elif _layer(target) != "kernel" and target not in PLUGIN_COMMANDS.get(m, ()):
                wrong.append(f"{m}:{line} imports {target} ({_layer(target)})")
    assert wrong == []


def _private(module: str, imports: list[tuple[str, str, int]]) -> list[str]:
    return [f"{module}:{line} imports {target}.{name}" for target, name, line in imports
            if name.startswith("_") and not name.startswith("__") and target != module]


def test_no_module_imports_another_modules_private_names():
    assert [w for m in MODULES for w in _private(m, all_imports()[m])] == []


def _cycle(imports: dict[str, list[tuple[str, str, int]]]) -> list[str]:
    """One import cycle among the modules, or []."""
    graph = {m: {t for t, _, _ in targets if t != m} for m, targets in imports.items()}
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as exc:
        return exc.args[1]
    return []


def test_imports_form_no_cycle():
    """One direction within each layer too: a cycle hidden behind a deferred import is still a cycle."""
    assert _cycle(all_imports()) == []


def test_the_cycle_and_private_name_checks_can_fail():
    assert _cycle({"a": [("b", "", 1)], "b": [("c", "", 3)], "c": [("a", "x", 2)]})
    assert _cycle({"a": [("b", "", 1)], "b": []}) == []

def test_the_private_name_check_can_fail(tmp_path):
    path = tmp_path / "fake.py"
    path.write_text("def f():\n    from semsim.app.parsing import _guarded, find_parser\n", encoding="utf-8")
    imports = [(_owner(m), n, line) for m, n, line in _imports("semsim.app.commands.fake", path)]
    assert _private("semsim.app.commands.fake", imports) == [
        "semsim.app.commands.fake:2 imports semsim.app.parsing._guarded"]


@pytest.mark.parametrize("bad", ["from semsim.app.parsing import parse_sentences", "import semsim.app.cli",
                                 "from ...app.plugins import parsers", "from ...app import reading",
                                 "from ... import api"])
def test_the_check_sees_a_wrong_import(bad, tmp_path):
    """The check itself can fail: a kernel module (here semsim.kernel.metrics.fake) importing the
    application in a function is caught."""
    path = tmp_path / "fake.py"
    path.write_text(f"def f():\n    {bad}\n", encoding="utf-8")
    assert [_layer(_owner(m)) for m, _, _ in _imports("semsim.kernel.metrics.fake", path)] == ["application"]
