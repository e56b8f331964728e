"""Graphs as JSON: a self-contained form of a :class:`~semsim.kernel.graph.Graph`, scheme included,
which the parse cache stores and worker processes send back. ``GRAPH_FORMAT`` is in every
cache key: a change of form (or of what a scheme carries) never serves stale entries.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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


_BAD_ANCHORS_OR_LABELS = "graph JSON: an anchor that is not a token index, or an edge label that is not a string"
_BAD_ENDS = "graph JSON: 'sentence_ends' must be token positions"


def _anchors_and_labels_ok(anchors: Iterable[Sequence[Any]], labels: Iterable[Sequence[Any]]) -> bool:
    return all(type(a) is int for row in anchors for a in row) \
        and all(row and all(type(x) is str for x in row) for row in labels)


def check_graph(g: Graph) -> None:
    """Refuse a graph whose graph JSON would be refused (:func:`graph_from_dict`'s checks):
    a parser's own graph object is used in its process as it is, so this is what keeps a
    score from depending on whether the graph came from the parser, the cache or a worker
    (an anchor of numpy's int64 passes a comparison but not JSON). A ``ValueError``."""
    if not _anchors_and_labels_ok((u.anchors for u in g.units), (e.labels for e in g.edges)):
        raise ValueError(_BAD_ANCHORS_OR_LABELS)
    if not all(type(x) is int for x in g.sentence_ends):
        raise ValueError(_BAD_ENDS)


def graph_from_dict(d: dict[str, Any]) -> Graph:
    """The graph :func:`graph_to_dict` wrote, field for field. A form that is not one (a
    damaged cache row, an edited MRP file's ``semsim`` member) is a ``ValueError`` saying
    which field is wrong, before any of it becomes a graph: what is built here is scored
    without further checks (a unit kind that is a list would fail only when compared)."""
    if not isinstance(d, dict) or d.get("format") != GRAPH_FORMAT:
        raise ValueError(f"unsupported graph format {d.get('format') if isinstance(d, dict) else d!r}")
    s = _field(d, "scheme", dict)
    tokens, units, edges = (_rows(d, key, shapes) for key, shapes in _SHAPES.items())
    if not _anchors_and_labels_ok((u[2] for u in units), (e[2] for e in edges)):
        raise ValueError(_BAD_ANCHORS_OR_LABELS)
    meta = _field(d, "meta", dict, {})
    if not all(isinstance(v, str | int | float | bool) for v in meta.values()):
        raise ValueError("graph JSON: 'meta' holds a value that is not a string, number or boolean")
    ends = _field(d, "sentence_ends", list)
    if not all(type(x) is int for x in ends):
        raise ValueError(_BAD_ENDS)
    return Graph(
        tokens=tuple(Token(t, p, par, pp) for t, p, par, pp in tokens),
        units=tuple(Unit(i, k, tuple(a), imp, lab) for i, k, a, imp, lab in units),
        edges=tuple(Edge(p, c, tuple(ls), r) for p, c, ls, r in edges),
        scheme=scheme_from_dict(s), id=_field(d, "id", str), root=_field(d, "root", int),
        sentence_ends=tuple(ends), meta=meta)


def scheme_from_dict(s: dict[str, Any]) -> Scheme:
    """The scheme of a graph's JSON form (:func:`graph_to_dict`)."""
    groups, weights = _field(s, "label_groups", dict), _field(s, "label_weights", dict)
    names = _field(s, "label_names", dict, {})  # not in entries cached before schemes named their labels
    sets = [_field(s, "equivalences", list), *(_field(s, k, list) for k in ("ignored_labels", "ignored_kinds"))]
    if not all(isinstance(x, list) for x in sets[0]) or not all(
            isinstance(label, str) for labels in [*sets[0], *sets[1:], *groups.values()] for label in labels) \
            or not all(isinstance(w, int | float) and not isinstance(w, bool) for w in weights.values()) \
            or not all(isinstance(n, str) for n in names.values()):
        raise ValueError("graph JSON: a scheme's labels must be strings and its weights numbers")
    return Scheme(_field(s, "name", str), tuple(frozenset(x) for x in sets[0]), frozenset(sets[1]),
                  frozenset(sets[2]), {k: tuple(v) for k, v in groups.items()}, weights, names)


def _field(d: dict[str, Any], key: str, kind: type, default: Any = None) -> Any:
    """``d[key]``, which must be of ``kind`` (``default`` where it may be missing)."""
    value = d.get(key, default)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ValueError(f"graph JSON: {key!r} must be {'an' if kind is int else 'a'} {kind.__name__}")
    return value


#: The types of a token's, a unit's and an edge's values (a unit's label may be null).
_SHAPES: dict[str, frozenset[tuple[type, ...]]] = {
    "tokens": frozenset({(str, bool, int, int)}),
    "units": frozenset({(str, str, list, bool, str), (str, str, list, bool, type(None))}),
    "edges": frozenset({(int, int, list, bool)}),
}


def _rows(d: dict[str, Any], key: str, shapes: frozenset[tuple[type, ...]]) -> list[Any]:
    """``d[key]``: a list of tokens, units or edges, each a list of values whose types are one
    of ``shapes`` (exact types, as JSON decodes them: ``true`` is no number here). Checked by
    type signature, which keeps reading a cached parse about as fast as it was unchecked."""
    rows = _field(d, key, list)
    if not all(type(row) is list and tuple(map(type, row)) in shapes for row in rows):
        raise ValueError(f"graph JSON: an item of {key!r} is not {len(next(iter(shapes)))} values of the expected "
                         "types")
    return rows
