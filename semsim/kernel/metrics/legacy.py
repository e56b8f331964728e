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
from ..errors import SettingsError
from ..graph import Graph
from ..limits import check_cells
from ..signature import signature
from ..stats import Counts, Score
from .settings import Settings


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


def _units_data(g: Graph, min_tokens: int) -> tuple[list[int], list[list[int]], np.ndarray, np.ndarray]:
    """Per graph, once: N(P); T(u), the sorted paragraph positions of each unit's tokens
    (punctuation included); the expanded label mask of each unit's incoming edges (remote
    ones too); and ``member[p, u] = 1`` iff position value p is in T(u)."""
    def build() -> tuple[list[int], list[list[int]], np.ndarray, np.ndarray]:
        units = compared_units(g, min_tokens)
        pos = [t.para_pos or i + 1 for i, t in enumerate(g.tokens)]  # unknown para_pos: the position
        ts = [sorted(pos[t] for t in g.yields[u]) for u in units]
        labels = [g.scheme.mask((lab for i in g.incoming[u] for lab in g.edges[i].labels), weak=True)
                  for u in units]
        member = np.zeros((max(pos, default=0) + 1, len(units)))
        for y, t in enumerate(ts):
            member[t, y] = 1.0
        return units, ts, np.array(labels, dtype=object), member
    return g.memo(("legacy-units", min_tokens), build)


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


def _walk_counts(t_from: list[list[int]], mentioned: dict[int, int], member_to: np.ndarray) -> np.ndarray:
    """``c[x, y]``: consumed pairs of unit x whose partner position is in T(y)."""
    size = member_to.shape[0]
    partners = np.zeros((len(t_from), size))
    for x, ts in enumerate(t_from):
        for b in _consumed(ts, mentioned):
            if 0 <= b < size:  # a partner beyond every T(y) of the other side matches nothing
                partners[x, b] += 1
    return partners @ member_to


def legacy_similarity(g1: Graph, g2: Graph, pairs: set[tuple[int, int]], min_tokens: int = 0
                      ) -> tuple[list[int], list[int], np.ndarray, np.ndarray]:
    """N(P) of each graph, the F-similarity ``sim[x, y]`` of their units (x in N1, y in N2)
    and whether the labels of the edges into x and y are ``compatible``."""
    n1, t1, lab1, member1 = _units_data(g1, min_tokens)
    n2, t2, lab2, member2 = _units_data(g2, min_tokens)
    by1 = {a: b for a, b in pairs if a >= 0}
    by2 = {b: a for a, b in pairs if b >= 0}
    c1 = _walk_counts(t1, by1, member2)        # (|N1|, |N2|)
    c2 = _walk_counts(t2, by2, member1).T      # (|N1|, |N2|)
    len1 = np.array([len(t) for t in t1], dtype=float)[:, None]
    len2 = np.array([len(t) for t in t2], dtype=float)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        recall = np.where(len1 > 0, c1 / len1, 0.0)
        precision = np.where(len2 > 0, c2 / len2, 0.0)
        sim = np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0.0)
    compatible = (lab1[:, None] & lab2[None, :]) != 0 if sim.size else np.zeros(sim.shape, dtype=bool)
    return n1, n2, sim, compatible


def legacy_parts(g1: Graph, g2: Graph, pairs: set[tuple[int, int]], min_tokens: int = 0) -> Counts:
    n1, n2, sim, compatible = legacy_similarity(g1, g2, pairs, min_tokens)
    count1 = int(matched_units(sim, compatible).sum())
    count2 = int(matched_units(sim.T, compatible.T).sum())
    # Side 1 is the source: the original calls count1/|N1| recall; semsim's convention calls
    # the first graph's side precision. F is the same either way.
    return Counts(count1, len(n1), count2, len(n2))


def matched_units(sim: np.ndarray, compatible: np.ndarray) -> np.ndarray:
    """Per row unit, whether its best-similarity partners (similarity > 0) include a label-compatible one."""
    if sim.size == 0:
        return np.zeros(sim.shape[0], dtype=bool)
    best = sim.max(axis=1, keepdims=True)
    return ((sim == best) & (best > 0) & compatible).any(axis=1)


def legacy_settings(settings: Settings) -> dict[str, object]:
    """The settings that name a legacy-variant score in its signature."""
    return {"variant": "legacy", "single_token_units": settings.single_token_units}


def usim_legacy(g1: Graph, g2: Graph, settings: Settings) -> Score:
    """USim as computed by the authors' released code, under ``settings`` of the legacy
    variant: ``single_token_units=False`` is the 2018 revision that drops units of at most
    one token (the variant's only setting; :class:`Settings` refuses the paper's)."""
    if settings.variant != "legacy":
        raise SettingsError(f"variant={settings.variant!r}: usim_legacy computes the legacy variant "
                            "(the paper's is semsim.kernel.metrics.usim.usim)")
    check_cells(len(g1.units), len(g2.units), "node alignment")
    pairs = legacy_token_pairs(g1, g2)
    counts = legacy_parts(g1, g2, pairs, 0 if settings.single_token_units else 1)
    sig = signature("usim", legacy_settings(settings), g1.scheme)
    if not counts.total1 or not counts.total2:  # the original: 0 if either side has no units
        return Score.fixed(0.0, ["legacy"], sig)
    return Score({"legacy": counts}, sig)
