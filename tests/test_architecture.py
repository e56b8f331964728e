"""The two layers of docs/architecture.md, held by a test: what may import what.

Every import statement counts, wherever it stands (module level, inside a function, under
``TYPE_CHECKING``): a deferred import hides a dependency from a reader, not from this test.
"""

from __future__ import annotations

import ast
import functools
import graphlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: What a plugin may stand on: the graph model, schemes, statistics, the measures, the
#: records and hooks a plugin registers with, file primitives and graphs as JSON, model
#: files, the MRP format, threads and progress. It imports nothing above it.
KERNEL = {
    "semsim.version", "semsim.errors", "semsim.limits", "semsim.graph", "semsim.scheme", "semsim.adapt",
    "semsim.stats", "semsim.signature", "semsim.significance", "semsim.files", "semsim.graph_json", "semsim.records",
    "semsim.hookspecs", "semsim.models", "semsim.progress", "semsim.threads", "semsim.imports", "semsim.formats",
    "semsim.formats.mrp", "semsim.align", "semsim.align.tokens", "semsim.align.units",
    "semsim.align.paraphrase", "semsim.align.contextual", "semsim.metrics",
    "semsim.metrics.usim", "semsim.metrics.legacy", "semsim.metrics.dagf", "semsim.metrics.distsim",
    "semsim.metrics.settings",
}
#: The application: the public API, the plugin manager and reader dispatch, parsing (parsing,
#: executors, cache, downloads), the command line, the GEC studies, explanations, integrations.
APPLICATION_PACKAGES = ("semsim.commands", "semsim.gec", "semsim.explain", "semsim.hf")
APPLICATION = {
    "semsim", "semsim.__main__", "semsim.api", "semsim.cli", "semsim.plugins", "semsim.io", "semsim.parsing",
    "semsim.scoring", "semsim.textfiles",
    "semsim.executors", "semsim.cache", "semsim.downloads", "semsim.systems", "semsim.testing", "semsim.tokenize",
    "semsim.report",
}
#: A plugin's command-line commands (its ``register_commands``) are application code of the
#: plugin: besides the kernel they may use semsim's public API, as any program using semsim does,
#: and the command line's shared options (``semsim.cli.parsing_options``), so they parse as every command does.
PLUGIN_COMMANDS = {"semsim_ucca.commands": {"semsim.api", "semsim.cli"}}


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
            for alias in node.names:  # "from semsim import io" imports the module semsim.io
                full = f"{target}.{alias.name}"
                out.append((full, "", node.lineno) if full in MODULES else (target, alias.name, node.lineno))
    return [(m, n, line) for m, n, line in out if m.split(".")[0] in ROOTS]


def _owner(module: str) -> str:
    """The module an import resolves to (``semsim.graph.Graph`` names ``semsim.graph``)."""
    while module not in MODULES and "." in module:
        module = module.rpartition(".")[0]
    return module


@functools.cache
def all_imports() -> dict[str, list[tuple[str, str, int]]]:
    """Every module's imports, resolved to modules (read once, by the tests that need them, not
    at collection: every test process collects this file)."""
    return {name: [(_owner(m), n, line) for m, n, line in _imports(name, path)] for name, path in MODULES.items()}


def _layer(module: str) -> str | None:
    if module in KERNEL:
        return "kernel"
    if module in APPLICATION or module.startswith(tuple(p + "." for p in APPLICATION_PACKAGES)) \
            or module in APPLICATION_PACKAGES:
        return "application"
    if not module.startswith("semsim."):
        return "plugin"
    return None


def test_every_module_of_the_core_has_a_layer():
    """A new module is placed on purpose: add it to KERNEL or APPLICATION (and to the map in
    docs/architecture.md)."""
    assert [m for m in MODULES if m.startswith("semsim") and not m.startswith("semsim_") and _layer(m) is None] == []
    assert set(MODULES) >= KERNEL and set(MODULES) >= APPLICATION


def test_every_import_names_a_module_that_exists():
    """(A module moved without its relative imports fixed fails only when that code runs.)"""
    missing = [f"{m}:{line} imports {target}" for m, path in MODULES.items() for target, _, line in _imports(m, path)
               if target not in MODULES and target.split(".")[0] in {"semsim", m.split(".")[0]}]
    assert missing == []


def test_the_kernel_imports_nothing_above_it():
    wrong = [f"{m}:{line} imports {target}" for m in MODULES if _layer(m) == "kernel"
             for target, _, line in all_imports()[m] if _layer(target) != "kernel"]
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
    path.write_text("def f():\n    from semsim.parsing import _guarded, find_parser\n", encoding="utf-8")
    imports = [(_owner(m), n, line) for m, n, line in _imports("semsim.commands.fake", path)]
    assert _private("semsim.commands.fake", imports) == ["semsim.commands.fake:2 imports semsim.parsing._guarded"]


@pytest.mark.parametrize("bad", ["from semsim.parsing import parse_sentences", "import semsim.cli",
                                 "from ..plugins import parsers", "from .. import io"])
def test_the_check_sees_a_wrong_import(bad, tmp_path):
    """The check itself can fail: a kernel module (here semsim.metrics.fake) importing the
    application in a function is caught."""
    path = tmp_path / "fake.py"
    path.write_text(f"def f():\n    {bad}\n", encoding="utf-8")
    assert [_layer(_owner(m)) for m, _, _ in _imports("semsim.metrics.fake", path)] == ["application"]
