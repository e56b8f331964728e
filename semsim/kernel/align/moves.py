"""Moved scenes for ``--order scenes``: meaning kept wherever a clause now stands.

The order-keeping leaf alignments (``ordered``, ``paraphrase``, ``contextual``) align no two
pairs that cross, so that ``John saw Mary`` → ``Mary saw John`` costs what it changed. The
price is paid by every text that *moves* a clause: a simplification that fronts a relative
clause, or splits it off as a sentence of its own ("X, attributed to Y, attests Z." → "X attests
Z. X is attributed to Y."), leaves the moved clause unaligned on both sides, and USim reads a
kept meaning as lost.

The graph says which moves keep the meaning: a **scene** (a unit with a process or a state, a
clause) is a unit of meaning that can stand anywhere in a passage, while the participants of
one scene are told apart only by where they stand. So after the order-keeping alignment,
:func:`moved_scenes` matches the scenes of the two graphs that share no aligned word, wherever
they are (across sentence boundaries), by what they say:

* a candidate pair is a scene v of the first graph and a scene u of the second with no aligned
  pair between their yields: a scene already matched in place keeps its word order, so swapped
  participants inside it are still unaligned and still cost what they change;
* its words are the two scenes' content tokens the alignment left out, aligned as the base
  alignment is (the heaviest pairs of positive credit that do not cross, *inside* the pair of
  scenes); the pair is kept when that covers at least :data:`MIN_DICE` of both sides' words
  (twice the matched credit over the two counts) and at least :data:`MIN_WORDS` words;
* the heaviest candidate is taken first (ties: the earlier scenes), its pairs join the
  alignment, and the search repeats until no pair is left, so a clause split into two
  sentences finds its source scene, and each scene is matched at most once.

The rest of USim is unchanged: the added pairs count as the base pairs do (their credit), so a
moved scene's leaves and the edges into its units (its process, its participants) match as if
it had stayed. Whether a scene hangs from the root as a sentence of its own or from a
participant as an elaborator, the edge into it is matched by its child, as §3 matches every
edge, and by its label (``--labels unlabeled``, the ``meaning`` preset's, ignores the label).

A scheme says which labels make their parent a scene by declaring a label group named
``Scene`` (:attr:`semsim.kernel.scheme.Scheme.label_groups`: UCCA's P and S); in a scheme that
declares none, no unit is a scene and ``--order scenes`` is ``--order kept``.
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph
from .tokens import Pair, heaviest_monotone

#: The label group whose labels make the unit above them a scene (:attr:`Scheme.label_groups`).
SCENE_GROUP = "Scene"
#: The share of both scenes' left-out words a match must cover (Dice over the matched credit).
MIN_DICE = 0.5
#: The fewest words a moved scene's match aligns: one shared word says nothing about a clause.
MIN_WORDS = 2
#: Decimals of credit the matching compares, as :mod:`semsim.kernel.align.contextual` keeps them.
DECIMALS = 6


def scenes(g: Graph) -> list[int]:
    """The units of ``g`` that are scenes: the parent of a compared edge labelled with one of the
    scheme's ``Scene`` labels, in unit order."""
    labels = frozenset(g.scheme.label_groups.get(SCENE_GROUP, ()))
    if not labels:
        return []
    return g.memo(("scenes", labels), lambda: sorted({
        g.edges[i].parent for i in g.compared_edges if labels & set(g.edges[i].labels)}))


def moved_scenes(g1: Graph, g2: Graph, pairs: list[Pair], credit: np.ndarray) -> list[Pair]:
    """``pairs`` (the order-keeping leaf alignment) with the pairs of every moved scene added
    (see the module's docstring); ``credit[i, j]`` is what pair (i, j) is worth, 0 for a pair
    that may not be aligned. The result is sorted; the same input gives the same pairs."""
    s1, s2 = scenes(g1), scenes(g2)
    if not s1 or not s2:
        return sorted(pairs)
    y1, y2 = g1.content_yields, g2.content_yields
    out = set(pairs)
    left1 = set(range(len(g1.tokens))) - {x for x, _ in out}
    left2 = set(range(len(g2.tokens))) - {y for _, y in out}
    matched1: set[int] = set()
    matched2: set[int] = set()
    while True:
        best: tuple[int, int, int, list[Pair]] | None = None  # (-weight, v, u, pairs)
        for v in s1:
            r1 = sorted(y1[v] & left1)
            if v in matched1 or len(r1) < MIN_WORDS:
                continue
            for u in s2:
                r2 = sorted(y2[u] & left2)
                if u in matched2 or len(r2) < MIN_WORDS or any(x in y1[v] and y in y2[u] for x, y in out):
                    continue
                sub = credit[np.ix_(r1, r2)]
                if not (sub > 0).any():
                    continue
                weight = np.rint(sub * 10**DECIMALS).astype(np.int64)
                found = heaviest_monotone(weight, weight > 0)
                total = int(sum(weight[a, b] for a, b in found))
                if len(found) < MIN_WORDS or 2 * total < MIN_DICE * 10**DECIMALS * (len(r1) + len(r2)):
                    continue
                key = (-total, v, u, [(r1[a], r2[b]) for a, b in found])
                if best is None or key[:3] < best[:3]:
                    best = key
        if best is None:
            return sorted(out)
        _, v, u, found_pairs = best
        out.update(found_pairs)
        left1 -= {x for x, _ in found_pairs}
        left2 -= {y for _, y in found_pairs}
        matched1.add(v)
        matched2.add(u)


#: How nearly a restated unit's words must repeat words the alignment already took (mean credit).
MIN_RESTATED = 0.8


def restated(g1: Graph, g2: Graph, pairs: list[Pair], credit: np.ndarray) -> tuple[frozenset[int], frozenset[int]]:
    """The tokens of each graph that only restate what the alignment already found: those of a
    unit that is no scene but hangs from one, all of whose words the alignment left out, and each
    of whose words repeats a word aligned elsewhere (on average at least :data:`MIN_RESTATED` of
    credit with its best such word). A sentence split off names its participant again
    ("Gomaespuma was a radio show hosted by X." → "Gomaespuma was a radio show. Gomaespuma was
    hosted by X."): where the source said it once, through a remote edge, the output says it twice,
    and the second mention is neither new content nor lost content."""
    a1, a2 = sorted({x for x, _ in pairs}), sorted({y for _, y in pairs})
    return _restated(g1, set(a1), credit[:, a2]), _restated(g2, set(a2), credit[a1, :].T)


def _restated(g: Graph, aligned: set[int], taken: np.ndarray) -> frozenset[int]:
    """:func:`restated` for one side: ``taken`` is the credit of each token of ``g`` (rows)
    with each aligned token of the other graph (columns); ``aligned``: ``g``'s aligned tokens."""
    scene_set = set(scenes(g))
    if not scene_set or not aligned:
        return frozenset()
    out: set[int] = set()
    yields = g.content_yields
    for e in g.edges:
        if e.remote or e.parent not in scene_set or e.child in scene_set:
            continue
        words = sorted(yields[e.child])
        if not words or aligned & set(words) or not taken.size:
            continue
        if float(np.mean(taken[words].max(axis=1))) >= MIN_RESTATED:
            out.update(words)
    return frozenset(out)
