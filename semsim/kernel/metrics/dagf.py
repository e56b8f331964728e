"""DAG F-score: two graphs over the same tokens (e.g. inter-annotator agreement).

§3 of the paper: edges (v1, u1) of G1 and (v2, u2) of G2 match if yield(u1) = yield(u2)
and they share a label; precision and recall divide the matching edges by |E1| and |E2|.

``count="yields"`` (the default) counts as UCCA's own evaluator
(``ucca.evaluation.evaluate``) does, so that numbers agree with it: each edge type
(primary, remote, implicit) is a set of distinct child yields, each with the union of the
labels of the edges into it; a yield matches when the other graph has it with a shared
label. ``count="edges"`` counts every edge as the paper's prose says. Yields exclude
punctuation; an implicit unit takes its parent's yield. Edges the scheme ignores
(punctuation, linkage) are not counted.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import GraphError
from ..graph import Graph
from ..signature import signature
from ..stats import Counts, Score

EDGE_TYPES = ("primary", "remote", "implicit")


def _edge_type(g: Graph, child: int, remote: bool) -> str | None:
    implicit = g.units[child].implicit
    if implicit:
        return None if remote else "implicit"
    return "remote" if remote else "primary"


def _items(g: Graph, labels: str) -> dict[str, list[tuple[frozenset[int], int]]]:
    """Per edge type, ``(child yield, label mask)`` for every compared edge."""
    out: dict[str, list[tuple[frozenset[int], int]]] = {t: [] for t in EDGE_TYPES}
    scheme = g.scheme
    for e in g.edges:
        if scheme.is_ignored_edge(e.labels, g.units[e.child].kind):
            continue
        kind = _edge_type(g, e.child, e.remote)
        if kind is None:
            continue
        y = g.content_yields[e.parent if kind == "implicit" else e.child]
        mask = 1 if labels == "unlabeled" else scheme.mask(e.labels, weak=labels == "weak")
        out[kind].append((y, mask))
    return out


def _by_yield(items: Iterable[tuple[frozenset[int], int]]) -> dict[frozenset[int], int]:
    d: dict[frozenset[int], int] = {}
    for y, m in items:
        d[y] = d.get(y, 0) | m
    return d


def _count(items1: list[tuple[frozenset[int], int]], items2: list[tuple[frozenset[int], int]],
           count: str) -> Counts:
    y1, y2 = _by_yield(items1), _by_yield(items2)
    if count == "yields":
        mutual = sum(1 for y, m in y1.items() if y in y2 and y2[y] & m)
        return Counts(mutual, len(y1), mutual, len(y2))
    m1 = sum(1 for y, m in items1 if y2.get(y, 0) & m)
    m2 = sum(1 for y, m in items2 if y1.get(y, 0) & m)
    return Counts(m1, len(items1), m2, len(items2))


def dag_f(g1: Graph, g2: Graph, *, labels: str = "labeled", count: str = "yields") -> Score:
    """DAG F-score of ``g1`` (guessed) against ``g2`` (reference); headline: primary edges."""
    if [t.text for t in g1.tokens] != [t.text for t in g2.tokens]:
        raise GraphError(f"DAG F-score needs the same tokens in both graphs ({g1.id!r}: {len(g1.tokens)} "
                          f"tokens, {g2.id!r}: {len(g2.tokens)}); use USim for different texts")
    if count not in ("yields", "edges"):
        raise ValueError("count must be 'yields' or 'edges'")
    i1, i2 = _items(g1, labels), _items(g2, labels)
    parts = {t: _count(i1[t], i2[t], count) for t in EDGE_TYPES}
    sig = signature("dagf", {"labels": labels, "count": count}, g1.scheme)
    return Score(parts, sig, headline=("primary",))
