from __future__ import annotations

import pytest
from figure1 import correction, source

import semsim
from semsim import Scheme, SemsimError, Unit, build_graph
from semsim.kernel.metrics.dagf import dag_f
from semsim.kernel.metrics.distsim import distsim
from semsim.kernel.scheme import scheme_digest

WEAK = Scheme("t", equivalences=(frozenset("PS"),), ignored_labels=frozenset({"U"}),
              label_groups={"A+D": ("A", "D")})


def graph(labels, extra=()):
    units = [Unit("r"), Unit("s"), Unit("a", anchors=(0,)), Unit("b", anchors=(1,)), Unit("c", anchors=(2,))]
    edges = [(0, 1, "H"), (1, 2, labels[0]), (1, 3, labels[1]), (1, 4, labels[2]), *extra]
    return build_graph(["x", "y", "."], units, edges, scheme=WEAK)


def test_identical_is_one_and_labels_matter():
    g = graph("APU")
    assert dag_f(g, g).f == 1.0
    h = graph("ASU")
    assert dag_f(g, h).parts["primary"] == semsim.Counts(2, 3, 2, 3)  # U edge ignored
    assert dag_f(g, h, labels="weak").f == 1.0
    assert dag_f(g, graph("DDU"), labels="unlabeled").f == 1.0


def test_yields_mode_counts_distinct_yields_edges_mode_counts_edges():
    # a unary chain: two edges into units with the same yield
    g = build_graph(["x"], [Unit("r"), Unit("u"), Unit("v", anchors=(0,))], [(0, 1, "A"), (1, 2, "C")])
    h = build_graph(["x"], [Unit("r"), Unit("v", anchors=(0,))], [(0, 1, "A")])
    assert dag_f(g, h).parts["primary"] == semsim.Counts(1, 1, 1, 1)
    assert dag_f(g, h, count="edges").parts["primary"] == semsim.Counts(1, 2, 1, 1)


def test_remote_and_implicit_are_separate_parts():
    g = build_graph(["x", "y"], [Unit("r"), Unit("a", anchors=(0,)), Unit("b", anchors=(1,)), Unit("i", implicit=True)],
                    [(0, 1, "A"), (0, 2, "P"), (2, 1, "A", True), (0, 3, "A")])
    s = dag_f(g, g)
    assert [s.parts[k].total1 for k in ("primary", "remote", "implicit")] == [2, 1, 1]


def test_needs_same_tokens():
    with pytest.raises(SemsimError, match="same tokens"):
        dag_f(source(), correction())


def test_distsim_counts_labels_and_groups():
    g1 = graph("AAU")
    g2 = graph("ADU")
    d = distsim([(g1, g2), (g1, g1)])
    assert d["A"] == pytest.approx(0.5)     # |2-1| on one pair of two
    assert d["D"] == pytest.approx(0.5)
    assert d["A+D"] == 0.0                  # the group counts both
    assert "U" not in d                     # ignored by the scheme
    assert distsim([(g1, g2)], labels=["A"]) == {"A": 1.0}


def test_distsim_by_sentence():
    units = [Unit("r"), Unit("a", anchors=(0,)), Unit("b", anchors=(1,))]
    g1 = build_graph(["x", "y"], units, [(0, 1, "A"), (0, 2, "A")], sentence_ends=(1, 2), scheme=WEAK)
    g2 = build_graph(["x", "y"], units, [(0, 1, "A"), (0, 2, "D")], sentence_ends=(1, 2), scheme=WEAK)
    assert distsim([(g1, g2)], by_sentence=True)["A"] == 0.5  # two sentence pairs
    assert distsim([(g1, g2)])["A"] == 1.0


def test_distsim_is_signed_and_still_a_dict():
    """The library signs DistSim as the command prints it; the result stays the dict it was."""
    g1, g2 = graph("AAU"), graph("ADU")
    d = semsim.distsim([(g1, g2)], labels=["A", "D"], by_sentence=True)
    assert d == {"A": 1.0, "D": 1.0} and isinstance(d, dict)
    t = f"scheme:t@{scheme_digest(g1.scheme)}"  # no plugin registered the scheme: none is named
    assert d.signature.format() == f"distsim|by_sentence:yes|labels:A,D|{t}|version:{semsim.__version__}"
    assert semsim.distsim([(g1, g2)]).signature.format().startswith(f"distsim|by_sentence:no|labels:all|{t}|")
