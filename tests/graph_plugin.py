"""A plugin whose parser returns semsim graphs (issue #48), and one that returns MRP, as
parsers did before: for the tests of what a parse keeps (tests/test_parsed_graphs.py).

Its adapter puts in each graph what no conversion from MRP could guess: tokens marked as
punctuation by its own rule (a word starting with ``~``), paragraphs and positions in them,
unit ids and kinds of its own, node labels, and metadata (a list among them, which stays in
the process that built the graph: graph JSON keeps strings, numbers and booleans).
"""

from __future__ import annotations

import json

from semsim.kernel.formats.mrp import MrpGraph, graph_to_mrp
from semsim.kernel.graph import Edge, Graph, Token, Unit
from semsim.kernel.hookspecs import hookimpl
from semsim.kernel.records import Parser
from semsim.kernel.scheme import Scheme

DIRECT = Scheme("direct", ignored_kinds=frozenset({"box"}), label_names={"W": "word"})


def direct_graph(text: str) -> Graph:
    """The graph of one line: a box over its words, every third word starting a paragraph."""
    words = text.split()
    tokens = tuple(Token(w, punct=w.startswith("~"), paragraph=1 + i // 3, para_pos=1 + i % 3)
                   for i, w in enumerate(words))
    units = (Unit("box-0", "box"), *(Unit(f"w{7 * i}", "odd" if i % 2 else "even", (i,), label=f"L{len(w)}")
                                     for i, w in enumerate(words)))
    edges = tuple(Edge(0, i + 1, ("W",)) for i in range(len(words)))
    return Graph(tokens, units, edges, scheme=DIRECT, id=f"d{len(words)}", sentence_ends=(len(words),),
                 meta={"origin": "direct", "words": len(words), "exact": True, "list": [1, 2]})


def parse_graphs(texts, model=None):
    return [direct_graph(t) for t in texts]


def parse_mrp(texts, model=None):
    """The same graphs as MRP (framework ``direct``), as a parser returned them before graphs."""
    return [MrpGraph("direct", f"m{k}", graph_to_mrp(direct_graph(t), "direct")) for k, t in enumerate(texts)]


def parse_numpy(texts, model=None):
    """The same graphs with numpy's integers as anchors: fine for a comparison, not for graph
    JSON, so refused as the cache or a worker would refuse them, in every process."""
    import dataclasses

    import numpy as np
    out = []
    for t in texts:
        g = direct_graph(t)
        units = tuple(dataclasses.replace(u, anchors=tuple(np.int64(a) for a in u.anchors)) for u in g.units)
        out.append(dataclasses.replace(g, units=units))
    return out


@hookimpl
def register_parsers(register):
    register(Parser("direct-graphs", "direct", parse_graphs, "graphs built by the adapter",
                    model_identity=lambda model: "rules-1",
                    serialize=lambda g: json.dumps([t.text for t in g.tokens]), default=True))
    register(Parser("direct-mrp", "direct", parse_mrp, "the same graphs as MRP",
                    model_identity=lambda model: "rules-1"))
    register(Parser("numpy-graphs", "direct", parse_numpy, "the same graphs, numpy's integers as anchors",
                    model_identity=lambda model: "rules-1"))


@hookimpl
def register_schemes(register):
    register(DIRECT)
