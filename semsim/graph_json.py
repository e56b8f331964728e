"""Graphs as JSON: a self-contained form of a :class:`~semsim.graph.Graph`, scheme included,
which the parse cache stores and worker processes send back. ``GRAPH_FORMAT`` is in every
cache key: a change of form (or of what a scheme carries) never serves stale entries.
"""

from __future__ import annotations

from typing import Any

from .graph import Edge, Graph, Token, Unit
from .scheme import Scheme

GRAPH_FORMAT = 2  # 2: the scheme's label weights
# The scheme's label names came later, without a new format: no score reads them, so an entry
# cached without them stays valid (its scheme names no labels; the explanation page finds the
# names through the plugins' registered schemes).


def graph_to_dict(g: Graph) -> dict[str, Any]:
    """A self-contained JSON-able form of a graph, scheme included."""
    s = g.scheme
    return {
        "format": GRAPH_FORMAT, "id": g.id, "root": g.root, "sentence_ends": list(g.sentence_ends),
        "tokens": [[t.text, t.punct, t.paragraph, t.para_pos] for t in g.tokens],
        "units": [[u.id, u.kind, list(u.anchors), u.implicit, u.label] for u in g.units],
        "edges": [[e.parent, e.child, list(e.labels), e.remote] for e in g.edges],
        "scheme": {"name": s.name, "equivalences": [sorted(x) for x in s.equivalences],
                   "ignored_labels": sorted(s.ignored_labels), "ignored_kinds": sorted(s.ignored_kinds),
                   "label_groups": {k: list(v) for k, v in s.label_groups.items()},
                   "label_weights": dict(s.label_weights), "label_names": dict(s.label_names)},
        "meta": {k: v for k, v in g.meta.items() if isinstance(v, (str, int, float, bool))},
    }


def graph_from_dict(d: dict[str, Any]) -> Graph:
    if d.get("format") != GRAPH_FORMAT:
        raise ValueError(f"unsupported graph format {d.get('format')!r}")
    s = d["scheme"]
    return Graph(
        tokens=tuple(Token(t, bool(p), int(par), int(pp)) for t, p, par, pp in d["tokens"]),
        units=tuple(Unit(i, k, tuple(a), bool(imp), lab) for i, k, a, imp, lab in d["units"]),
        edges=tuple(Edge(p, c, tuple(ls), bool(r)) for p, c, ls, r in d["edges"]),
        scheme=Scheme(s["name"], tuple(frozenset(x) for x in s["equivalences"]), frozenset(s["ignored_labels"]),
                      frozenset(s["ignored_kinds"]), s["label_groups"], s["label_weights"],
                      s.get("label_names", {})),  # not in entries cached before schemes named their labels
        id=d["id"], root=d["root"], sentence_ends=tuple(d["sentence_ends"]), meta=d.get("meta", {}))
