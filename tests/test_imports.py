"""Heavy libraries imported lean (``semsim.kernel.imports``): the same functions, less of the library,
and the rest still importable afterwards."""

from __future__ import annotations

import importlib.machinery
import subprocess
import sys

import numpy as np
import pytest

from semsim.kernel import imports

SOLVER = """
import sys
import numpy as np
from semsim.kernel.align.tokens import linear_sum_assignment
print(linear_sum_assignment(np.array([[1.0, 2.0], [2.0, 1.0]]))[1].tolist())
print("scipy.optimize" in sys.modules)
import scipy.optimize
print(scipy.optimize.linear_sum_assignment(np.array([[2.0, 1.0], [1.0, 2.0]]))[1].tolist())
"""


@pytest.mark.slow
def test_the_assignment_solver_is_scipys_without_importing_scipy_optimize():
    r = subprocess.run([sys.executable, "-c", SOLVER], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["[0, 1]", "False", "[1, 0]"]


def test_the_assignment_solver_answers_as_scipy_optimize_does():
    from scipy.optimize import linear_sum_assignment
    solve = imports.assignment_solver()
    rng = np.random.default_rng(0)
    for shape in [(1, 1), (3, 3), (4, 7), (7, 4), (12, 12)]:
        for cost in (rng.random(shape), rng.integers(0, 3, shape).astype(float)):  # the second has ties
            for maximize in (False, True):
                ours, theirs = solve(cost, maximize=maximize), linear_sum_assignment(cost, maximize=maximize)
                assert all(np.array_equal(a, b) for a, b in zip(ours, theirs))
    with pytest.raises(ValueError):  # scipy's own input checks stay
        solve(np.array([[np.nan]]))


def test_the_assignment_solver_falls_back_to_the_public_import(monkeypatch):
    """Where scipy lays its extension out otherwise, the public import serves."""
    from scipy.optimize import linear_sum_assignment
    monkeypatch.setattr(importlib.machinery, "EXTENSION_SUFFIXES", [".nowhere"])
    imports.assignment_solver.cache_clear()
    try:
        assert imports.assignment_solver() is linear_sum_assignment
    finally:
        imports.assignment_solver.cache_clear()


SPACY = """
import sys
from semsim.kernel.imports import import_spacy
spacy = import_spacy()
print(sorted(m for m in ("torch", "spacy.cli", "typer") if m in sys.modules))
print(import_spacy() is spacy, spacy.blank("en").tokenizer("don't")[1].text)
print(sorted(spacy.info(silent=True)))  # spaCy's CLI, imported now
import spacy.cli
print(spacy.cli.info is not spacy.info, "typer" in sys.modules)
"""


@pytest.mark.slow
def test_spacy_imports_without_torch_or_its_cli_and_its_cli_comes_later():
    """spaCy's import costs 2.5 s less; ``spacy.info`` and ``import spacy.cli`` still work
    after it (that ``import torch`` does too, and thinc's note that it saw none, are held by
    the UCCA plugin's test of a parse's imports). spaCy is installed by scripts/setup.sh, so its
    absence fails here."""
    r = subprocess.run([sys.executable, "-c", SPACY], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[:2] == ["[]", "True n't"]
    assert "spacy_version" in lines[2]
    assert lines[3] == "True True"


@pytest.mark.slow
def test_spacy_after_torch_keeps_torch():
    """Where torch is loaded already, nothing is hidden: thinc sees it (both are installed by
    scripts/setup.sh, so their absence fails here)."""
    code = ("import torch, semsim.kernel.imports, thinc.compat; semsim.kernel.imports.import_spacy(); "
            "print(thinc.compat.has_torch)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "True"
