"""USim as the authors' released code computes it (the ``legacy`` variant).

Not the paper's edge-based measure but a unit-level F-score; see ``docs/legacy.md`` for
the step-by-step description this module implements, including the original's quirks
(paragraph-relative positions compared with passage positions, the pointer walk that
stalls on an unmentioned position, sentence synchronisation details). Reproduce them;
do not fix them here: this variant exists so that numbers computed with the original
tool can be reproduced.
"""

from __future__ import annotations

import numpy as np

from ..align.tokens import legacy_token_pairs
from ..graph import Graph
from ..stats import Counts, Score, signature


def compared_units(g: Graph, min_tokens: int = 0) -> list[int]:
    """N(P): units with a primary parent, of a kind the scheme compares (implicit units
    included), optionally only those with more than ``min_tokens`` tokens."""
    kinds = g.scheme.ignored_kinds
    has_parent = [False] * len(g.units)
    for e in g.edges:
        if not e.remote and g.units[e.parent].kind not in kinds:
            has_parent[e.child] = True
    return [u for u, unit in enumerate(g.units)
            if has_parent[u] and unit.kind not in kinds and (not min_tokens or len(g.yields[u]) > min_tokens)]


def _terminal_positions(g: Graph, units: list[int]) -> list[list[int]]:
    """T(u): sorted paragraph positions of each unit's tokens (punctuation included)."""
    pos = [t.para_pos or i + 1 for i, t in enumerate(g.tokens)]  # unknown para_pos: the position
    return [sorted(pos[t] for t in g.yields[u]) for u in units]


def _consumed(positions: list[int], mentioned: dict[int, int]) -> list[int]:
    """The original's pointer walk: the longest prefix of ``positions`` whose values each
    occur (once) among the alignment pairs; returns the partner of each consumed position."""
    out, last = [], None
    for p in positions:
        if p == last or p not in mentioned:
            break
        out.append(mentioned[p])
        last = p
    return out


def _walk_counts(t_from: list[list[int]], t_to: list[list[int]], mentioned: dict[int, int],
                 size: int) -> np.ndarray:
    """``c[x, y]``: consumed pairs of unit x whose partner position is in T(y)."""
    partners = np.zeros((len(t_from), size))
    for x, ts in enumerate(t_from):
        for b in _consumed(ts, mentioned):
            if b >= 0:
                partners[x, b] += 1
    member = np.zeros((size, len(t_to)))
    for y, ts in enumerate(t_to):
        member[ts, y] = 1.0
    return partners @ member


def legacy_parts(g1: Graph, g2: Graph, pairs: set[tuple[int, int]], min_tokens: int = 0) -> Counts:
    n1, n2 = compared_units(g1, min_tokens), compared_units(g2, min_tokens)
    t1, t2 = _terminal_positions(g1, n1), _terminal_positions(g2, n2)
    by1 = {a: b for a, b in pairs if a >= 0}
    by2 = {b: a for a, b in pairs if b >= 0}
    size = 2 + max([len(g1.tokens), len(g2.tokens)] + [p for ts in t1 + t2 for p in ts])
    c1 = _walk_counts(t1, t2, by1, size)        # (|N1|, |N2|)
    c2 = _walk_counts(t2, t1, by2, size).T      # (|N1|, |N2|)
    len1 = np.array([len(t) for t in t1], dtype=float)[:, None]
    len2 = np.array([len(t) for t in t2], dtype=float)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        recall = np.where(len1 > 0, c1 / len1, 0.0)
        precision = np.where(len2 > 0, c2 / len2, 0.0)
        sim = np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0.0)
    scheme = g1.scheme
    lab1 = [scheme.mask((lab for i in g1.incoming[u] for lab in g1.edges[i].labels), weak=True) for u in n1]
    lab2 = [scheme.mask((lab for i in g2.incoming[u] for lab in g2.edges[i].labels), weak=True) for u in n2]
    count1 = _count_matched(sim, lab1, lab2)
    count2 = _count_matched(sim.T, lab2, lab1)
    # Side 1 is the source: the original calls count1/|N1| recall; semsim's convention calls
    # the first graph's side precision. F is the same either way.
    return Counts(count1, len(n1), count2, len(n2))


def _count_matched(sim: np.ndarray, labels_from: list[int], labels_to: list[int]) -> int:
    """Units whose best-similarity partners include a label-compatible one."""
    matched = 0
    if sim.size == 0:
        return 0
    best = sim.max(axis=1)
    for x in np.nonzero(best > 0)[0]:
        if any(labels_from[x] & labels_to[y] for y in np.nonzero(sim[x] == best[x])[0]):
            matched += 1
    return matched


def usim_legacy(g1: Graph, g2: Graph, *, single_token_units: bool = True, version: str = "") -> Score:
    """USim as computed by the authors' released code.

    ``single_token_units=False`` is the 2018 revision that drops units of at most one token.
    """
    pairs = legacy_token_pairs(g1, g2)
    counts = legacy_parts(g1, g2, pairs, 0 if single_token_units else 1)
    sig = signature("usim", {"variant": "legacy", "single_token_units": single_token_units,
                             "scheme": g1.scheme.name}, version)
    return Score({"legacy": counts}, sig)
