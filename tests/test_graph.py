from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from figure1 import source
from hypothesis import given, settings
from hypothesis import strategies as st

from semsim import Edge, Graph, GraphError, Token, Unit, build_graph


def test_yields_follow_primary_edges_only():
    g = build_graph(["a", "b", "c"], [Unit("r"), Unit("x", anchors=(0, 1)), Unit("y", anchors=(2,))],
                    [(0, 1, "A"), (0, 2, "B"), (2, 1, "R", True)])
    assert g.yields == (frozenset({0, 1, 2}), frozenset({0, 1}), frozenset({2}))


def test_content_yields_drop_punctuation():
    g = build_graph([Token("a"), Token(".", punct=True)], [Unit("r", anchors=(0, 1))], [])
    assert g.content_yields[0] == {0}
    assert np.array_equal(g.content_yield_matrix, [[1.0, 0.0]])


def test_equal_whatever_the_edge_order():
    units = [Unit("r"), Unit("x", anchors=(0,)), Unit("y", anchors=(1,))]
    a = build_graph(["a", "b"], units, [(0, 1, "A"), (0, 2, "B")])
    b = build_graph(["a", "b"], units, [(0, 2, "B"), (0, 1, "A")])
    assert a == b and hash(a) == hash(b)


def test_immutable():
    g = source()
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.id = "x"


@pytest.mark.parametrize("edges, message", [
    ([(0, 5, "A")], "points outside"),
    ([(0, 1, "A"), (1, 2, "B"), (2, 1, "C")], "cycle"),
    ([Edge(0, 1, ())], "no label"),
])
def test_invalid_graphs(edges, message):
    with pytest.raises(GraphError, match=message):
        build_graph(["a"], [Unit("r"), Unit("x", anchors=(0,)), Unit("y")], edges)


def test_remote_cycles_are_allowed():
    g = build_graph(["a"], [Unit("r"), Unit("x", anchors=(0,))], [(0, 1, "A"), (1, 0, "R", True)])
    assert g.yields[0] == {0}


def test_bad_anchor_and_sentence_end():
    with pytest.raises(GraphError, match="anchored outside"):
        Graph((Token("a"),), (Unit("r", anchors=(3,)),), ())
    with pytest.raises(GraphError, match="sentence end"):
        Graph((Token("a"),), (Unit("r"),), (), sentence_ends=(2,))


def test_with_returns_a_modified_copy():
    g = source()
    h = g.with_(id="other")
    assert h.id == "other" and g.id == "fig1-source" and h.edges == g.edges


@pytest.mark.parametrize("changes", [
    {"id": "x"}, {"meta": {"a": 1}}, {"sentence_ends": (3, 1, 3)},
    {"tokens": [Token(t.text.upper(), punct=t.punct) for t in source().tokens]},
    {"units": source().units[::-1]},  # not a light change: checked from scratch
])
def test_a_copy_that_keeps_the_structure_equals_a_checked_copy(changes):
    """``with_`` skips the structure's check when units and edges stay; the copy is the same."""
    g = source()
    fast = g.with_(**changes)
    slow = dataclasses.replace(g, **changes)
    assert fast == slow and fast.meta == slow.meta and fast.sentence_ends == slow.sentence_ends
    assert fast.yields == slow.yields and type(fast.tokens) is tuple
    with pytest.raises(GraphError, match="sentence end"):
        g.with_(sentence_ends=(len(g.tokens) + 1,))
    with pytest.raises(GraphError, match="anchored outside"):
        g.with_(tokens=g.tokens[:1])  # fewer tokens than anchors: the full check


def test_graph_json_keeps_label_names_and_reads_entries_cached_without_them():
    """The parse cache's form carries the scheme's label names; an entry cached before schemes
    named their labels (no ``label_names`` key, the same GRAPH_FORMAT) still loads, naming none."""
    from semsim.kernel.graph_json import graph_from_dict, graph_to_dict
    from semsim.kernel.scheme import Scheme
    g = source().with_(scheme=Scheme("t", label_weights={"A": 3}, label_names={"A": "Participant"}))
    d = graph_to_dict(g)
    assert graph_from_dict(d) == g and graph_from_dict(d).scheme.label_names == {"A": "Participant"}
    del d["scheme"]["label_names"]
    old = graph_from_dict(d)
    assert old.scheme.label_names == {} and old.scheme.label_weights == {"A": 3.0} and old.edges == g.edges


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 12).flatmap(lambda n: st.lists(st.lists(st.integers(0, n - 1), max_size=4),
                                                     min_size=n, max_size=n)))
def test_topological_order_is_graphlibs(children):
    """The postorder is graphlib's ``static_order``, node for node (the UCCA plugin numbers
    the nodes it writes in it), and None where graphlib finds a cycle."""
    import graphlib

    from semsim.kernel.graph import topological_order
    sorter = graphlib.TopologicalSorter({u: kids for u, kids in enumerate(children)})
    try:
        expected = tuple(sorter.static_order())
    except graphlib.CycleError:
        expected = None
    assert topological_order(children) == expected


@pytest.mark.parametrize("tokens,edges,message", [
    (["a", "b"], [(0, 1, None)], r"^build_graph: edges\[0\] has the label None: a string or a sequence of strings"),
    (["a", "b"], [(0, 1, "A"), (0, 1, 5)], r"^build_graph: edges\[1\] has the label 5: a string"),
    (["a", "b"], [(0, 1, ["A", 5])], r"^build_graph: edges\[0\] has the label \['A', 5\]"),
    (["a", "b"], [(0, 1)], r"^build_graph: edges\[0\] is \(0, 1\), not \(parent, child, label\[, remote\]\)"),
    (["a", None], [], r"^build_graph: tokens\[1\] is None, not a string or a Token"),
])
def test_build_graph_names_the_argument_and_position_of_a_bad_value(tokens, edges, message):
    """#56: a label of None or 5 gave "TypeError: 'NoneType' object is not iterable"."""
    from semsim import InputError
    with pytest.raises(InputError, match=message):
        build_graph(tokens, [Unit("0", "root"), Unit("1", "x", anchors=(0,))], edges)
