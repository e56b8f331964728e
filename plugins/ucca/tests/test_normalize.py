"""ucca 1.0.50's evaluation normalisation: reproduces that evaluator's counts and the paper's 0.845.

``data/ucca1050_iaa_counts.tsv`` is what ``ucca`` 1.0.50 (PyPI, installed --no-deps in a
separate environment, its own ``file2passage``) returned from ``evaluate(guessed, ref)`` with
its default ``normalize=True``, weak-labelled, primary edges, on the paper's IAA passages.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

import semsim
from semsim import Unit, build_graph
from semsim.kernel.stats import Counts
from semsim_ucca.normalize import evaluation_normalize
from semsim_ucca.scheme import UCCA

with open(Path(__file__).parent / "data" / "ucca1050_iaa_counts.tsv", encoding="utf-8") as _f:
    ROWS = list(csv.DictReader(_f, delimiter="\t"))


@pytest.mark.slow
@pytest.mark.needs_shared
def test_reproduces_ucca_1050_counts_and_the_papers_iaa(annotations):
    total = Counts(0, 0, 0, 0)
    for row in ROWS:
        g1, g2 = (semsim.read(annotations / f"{row[k]}.xml") for k in ("guessed", "reference"))
        c = semsim.dag_f(*evaluation_normalize(g1, g2), labels="weak").parts["primary"]
        assert (c.matched1, c.total1, c.total2) == tuple(int(row[k]) for k in
                                                         ("matches", "guessed_yields", "reference_yields"))
        total = total + c
    assert round(total.f, 3) == 0.845  # the paper: F 0.845 (P 0.834, R 0.857)
    assert (round(total.precision, 3), round(total.recall, 3)) == (0.833, 0.858)


def test_centre_chains_collapse_to_the_innermost():
    # root -H-> s -C-> u -C-> v(word); s and u have one C each: both C edges above v dissolve
    g = build_graph(["w"], [Unit("r", "FN"), Unit("s", "FN"), Unit("u", "FN"), Unit("v", "FN", anchors=(0,))],
                    [(0, 1, "H"), (1, 2, "C"), (2, 3, "C")], scheme=UCCA)
    n, _ = evaluation_normalize(g, g)
    assert sorted((n.units[e.parent].id, n.units[e.child].id, e.labels) for e in n.edges) == [
        ("r", "s", ("H",)), ("s", "v", ("C",))]


def test_common_functions_move_to_the_root():
    units = [Unit("r", "FN"), Unit("s", "FN"), Unit("f", "FN", anchors=(0,)), Unit("p", "FN", anchors=(1,))]
    g1 = build_graph(["the", "go"], units, [(0, 1, "H"), (1, 2, "F"), (1, 3, "P")], scheme=UCCA)
    g2 = build_graph(["the", "go"], units, [(0, 1, "H"), (1, 2, "F"), (1, 3, "S")], scheme=UCCA)
    n1, n2 = evaluation_normalize(g1, g2)
    for n in (n1, n2):
        assert ("r", "f") in {(n.units[e.parent].id, n.units[e.child].id) for e in n.edges}
        assert n.content_yields[1] == {1}  # the scene lost "the"
