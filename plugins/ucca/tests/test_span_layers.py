"""The span parser's two halves (issue #48): ``span/inference`` runs a parse and never imports
torch, transformers or ``span/training``; ``span/training`` builds on it, never the reverse."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SPAN = Path(__file__).resolve().parents[1] / "semsim_ucca" / "span"

#: every module of the inference side imported, then a sentence parsed with the shipped default
#: model through it; printed: the heavy or training modules loaded at each step
INFERENCE = """
import importlib, pkgutil, sys
import semsim_ucca.span as span
import semsim_ucca.span.inference as inference
def loaded():
    heavy = sorted({m.split(".")[0] for m in sys.modules} & {"torch", "transformers"})
    return heavy + sorted(m for m in sys.modules if m.startswith("semsim_ucca.span.training"))
for m in pkgutil.iter_modules(inference.__path__):
    importlib.import_module(f"semsim_ucca.span.inference.{m.name}")
print(len(list(pkgutil.iter_modules(inference.__path__))), loaded())
graphs = span.parse(["He gave John an apple ."], str(span.DEFAULT_MODEL))
print(len(graphs), loaded())
"""


@pytest.mark.slow
def test_the_inference_side_parses_with_the_default_model_without_torch():
    """Torch is installed here (the training tests need it), so only sys.modules can tell."""
    r = subprocess.run([sys.executable, "-c", INFERENCE], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    modules, parsed = r.stdout.splitlines()[-2:]
    assert modules == "10 []" and parsed == "1 []", r.stdout


def _imports(nodes: list[ast.stmt] | ast.Module) -> list[tuple[int, list[str]]]:
    """(line, the modules an import statement names) of every import under ``nodes``."""
    out = []
    for node in ast.walk(nodes) if isinstance(nodes, ast.Module) else nodes:
        if isinstance(node, ast.ImportFrom):
            out.append((node.lineno, ["." * node.level + (node.module or "")] + [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            out.append((node.lineno, [a.name for a in node.names]))
    return out


def test_the_inference_side_never_imports_the_training_side():
    """Read from the source: no import of training code anywhere in an inference module (a
    lazy one would only show on the path that runs it), and no torch or transformers at
    module level (the encoder loads them inside functions, for encoders other than a BERT)."""
    offenders = []
    for path in sorted((SPAN / "inference").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, names in _imports(tree):
            if any("training" in n.split(".") for n in names):
                offenders.append(f"{path.name}:{line}")
        for line, names in _imports(tree.body):
            if any(n.split(".")[0] in ("torch", "transformers") for n in names):
                offenders.append(f"{path.name}:{line}")
    assert (SPAN / "training" / "network.py").exists() and offenders == [], offenders
