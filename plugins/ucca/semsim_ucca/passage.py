"""Conversion of ``ucca.core.Passage`` objects (from ucca's readers, pickles or TUPA)."""

from __future__ import annotations

from typing import Any

from semsim.graph import Edge, Graph, Token, Unit

from .reader import _id_key
from .scheme import finish


def passage_to_graph(passage: Any) -> Graph:
    """The semsim graph of a ucca Passage: the same graph the direct XML reader yields."""
    terminals = sorted(passage.layer("0").all, key=lambda t: t.position)
    tokens = tuple(Token(t.text, punct=t.punct, paragraph=t.paragraph, para_pos=t.para_pos) for t in terminals)
    nodes = sorted(passage.layer("1").all, key=lambda n: _id_key(n.ID))
    index = {n.ID: i for i, n in enumerate(nodes)}
    units, edges = [], []
    for node in nodes:
        anchors = []
        for edge in node:
            child = edge.child
            if child.layer.ID == "0":
                anchors.append(child.position - 1)
            else:
                edges.append(Edge(index[node.ID], index[child.ID], tuple(edge.tags),
                                  bool(edge.attrib.get("remote", False))))
        units.append(Unit(node.ID, node.tag, tuple(sorted(anchors)), bool(node.attrib.get("implicit", False))))
    root = index[passage.layer("1").heads[0].ID]
    return finish(Graph(tokens, tuple(units), tuple(edges), id=str(passage.ID), root=root,
                        meta={"source": "ucca.core.Passage"}))
