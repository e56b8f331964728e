"""Unit (node) alignment by yield overlap: the paper's w(v, u).

§3: each node v of one graph is aligned to the node u of the other that maximises

    w(v, u) = |A_l ∩ (yield(u) × yield(v))| / |yield(u)|

and zero-weighted pairs are excluded. w(v, u) is 1 for *every* u whose tokens all align
inside v, so almost every v has several maximisers and the tie-break decides the score.
``TIE_BREAKS`` names the choices semsim offers:

``coverage`` (default)
    Among the maximisers of w, keep those that also cover most of v, i.e. maximise the
    reverse weight |A_l ∩ ...| / |yield(v)|; keep every node still tied. The only nodes
    still tied then have identical overlaps (in practice identical yields: unary chains),
    which no yield-based criterion can tell apart. This makes A contain all same-yield
    pairs for identical token sets, so USim collapses to DAG F-score as §3 says it should.
``all``
    Keep every maximiser of w (A as a relation, no tie-break at all): the most lenient.
``first``
    The first maximiser in node order: what a naive ``argmax`` does. Shown only to
    measure how much the choice matters; it fails the paper's Figure 1 and does not even
    give identical graphs 1.0 (a root and its only child share a yield).

``UNIT_WEIGHTS`` names what a node is aligned by: ``yield`` is §3's w above; ``dice``
(:func:`dice_alignment`) the Dice coefficient of the two yields, which charges a counterpart
for what it has beyond v as w charges it for what it lacks.

Yields here are content yields (no punctuation tokens). Nodes with an empty yield
(implicit units) get no alignment: w is undefined for them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..graph import Graph
from ..limits import check_cells

TIE_BREAKS = ("coverage", "all", "first")
UNIT_WEIGHTS = ("yield", "dice")


def overlap_matrix(g1: Graph, g2: Graph, token_pairs: list[tuple[int, int]],
                   weights: np.ndarray | Sequence[float] | None = None) -> np.ndarray:
    """``O[v, u] = |A_l ∩ (yield(v) × yield(u))|`` for units v of ``g1`` and u of ``g2``;
    with ``weights`` (one per token pair), the sum of the pairs' weights instead of their count."""
    for rows, cols in ((len(g1.units), len(g2.units)), (len(g1.tokens), len(g2.units)),
                       (len(g1.units), len(g1.tokens)), (len(g2.units), len(g2.tokens))):
        check_cells(rows, cols, "node alignment")
    y1, y2 = g1.content_yield_matrix, g2.content_yield_matrix
    gathered = np.zeros((len(g1.tokens), len(g2.units)))
    if token_pairs:
        t1, t2 = np.array(token_pairs, dtype=np.intp).T
        gathered[t1] = y2[:, t2].T if weights is None else y2[:, t2].T * np.asarray(weights)[:, None]
    return y1 @ gathered  # exact: small integers in float64


def align_units(overlap: np.ndarray, size_from: np.ndarray, size_to: np.ndarray,
                tie_break: str = "coverage") -> np.ndarray:
    """Boolean alignment matrix ``A[v, u]`` from every row node v to its chosen column nodes u.

    Args:
        overlap: ``O[v, u]``, aligned token pairs between the yields.
        size_from: |yield(v)| per row node.
        size_to: |yield(u)| per column node (the denominator of w).
        tie_break: one of :data:`TIE_BREAKS`.
    """
    if tie_break not in TIE_BREAKS:
        raise ValueError(f"unknown tie-break {tie_break!r}; choose from {', '.join(TIE_BREAKS)}")
    if overlap.size == 0:
        return np.zeros(overlap.shape, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(overlap > 0, overlap / size_to[None, :], 0.0)
    best = w.max(axis=1, keepdims=True)
    chosen = (w == best) & (best > 0)
    if tie_break == "coverage":
        with np.errstate(divide="ignore", invalid="ignore"):
            rev = np.where(chosen, overlap / size_from[:, None], -1.0)
        chosen &= rev == rev.max(axis=1, keepdims=True)
    elif tie_break == "first":
        first = chosen.argmax(axis=1)
        rows = chosen.any(axis=1)
        chosen = np.zeros_like(chosen)
        chosen[np.nonzero(rows)[0], first[rows]] = True
    return chosen


def dice_alignment(overlap: np.ndarray, size1: np.ndarray, size2: np.ndarray,
                   children: tuple[Sequence[tuple[int, int]], Sequence[tuple[int, int]]],
                   incoming: tuple[Sequence[int], Sequence[int]]) -> np.ndarray:
    """``A[v, u]`` under ``--units dice``: the child of every compared edge of either graph
    aligned with the node(s) of the other graph of highest Dice coefficient
    ``2 O[v, u] / (|yield(v)| + |yield(u)|)`` among those an edge of a shared label enters.

    Dice is symmetric, so A is too: one relation, the same in both directions. A node is
    matched with its best counterpart that can match its edge, never with one no edge of
    its label enters (the root): an edge's verdict is that of its best possible match.

    Args:
        overlap: ``O[v, u]`` (counted, or graded by the token pairs' credits).
        size1, size2: |yield| per node of each graph.
        children: per graph, its compared edges as (child, label mask).
        incoming: per graph, the mask of each node's compared incoming labels.
    """
    a = np.zeros(overlap.shape, dtype=bool)
    if overlap.size == 0:
        return a
    total = size1[:, None] + size2[None, :]
    dice = np.divide(2 * overlap, total, out=np.zeros_like(overlap, dtype=float), where=total > 0)
    for k, (items, other) in enumerate(zip(children, (incoming[1], incoming[0]))):
        d = dice if k == 0 else dice.T
        into = np.asarray(other, dtype=np.int64)
        for child, mask in dict.fromkeys(items):
            row = np.where(into & mask, d[child], 0.0)
            best = row.max()
            if best > 0:
                hits = np.nonzero(row == best)[0]
                if k == 0:
                    a[child, hits] = True
                else:
                    a[hits, child] = True
    return a
