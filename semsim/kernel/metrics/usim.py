"""USim as the paper defines it (Choshen & Abend, NAACL 2018, §3).

Read top to bottom, this module is §3:

1. Align the leaves: A_l by weighted bipartite matching on edit distance
   (:func:`semsim.kernel.align.tokens.paper_token_pairs`).
2. Extend A_l to a node alignment A: each node v is aligned to the node(s) u of the other
   graph maximising w(v, u) = |A_l ∩ (yield(u) × yield(v))| / |yield(u)|, zero-weighted
   pairs excluded (:mod:`semsim.kernel.align.units`, which documents the tie-break).
3. An edge (v1, v2) of one graph matches an edge (u1, u2) of the other if they share a
   label and (v2, u2) ∈ A. Precision and recall are the fractions of each graph's edges
   that have a match; F is their harmonic mean.
4. A differs when nodes of the correction are aligned onto the source instead, so USim is
   reported in both directions (``s->r``: source nodes aligned onto the correction, and
   ``r->s``) and their F values are averaged, as in Table 1.

Reading decisions the paper leaves open are listed in ``docs/reading-decisions.md``; the
defaults: labelled matching with exact labels, primary and remote edges counted,
punctuation and linkage excluded (as the UCCA scheme declares), implicit units excluded,
tokens aligned sentence by sentence when the adapter knows sentence ends.

Two named options take up the remedies §4.4 proposes for what USim misses, and stay off by
default (the paper's measure is unchanged): ``tokens`` (:data:`~semsim.kernel.align.tokens.TOKEN_ALIGNMENTS`) aligns
only lexically related tokens, so that an unrelated replacement leaves its units unaligned
(``paraphrase`` also aligns the words a correction put in place of the source's where a
plugin's paraphrase judge says they say the same: :mod:`semsim.kernel.align.paraphrase`), and
``edge_weights`` (:data:`~semsim.kernel.metrics.settings.EDGE_WEIGHTS`) counts an edge by its place in the graph rather
than as one, so that losing a participant costs more than losing a function word:

``uniform`` (default)
    Every edge counts 1, as in §3.
``height``
    An edge weighs 1 + the height of its child (:attr:`Graph.heights`): an edge into a
    unit over a whole scene outweighs one into a single word. Any representation.
``scheme``
    An edge weighs what the representation's scheme declares for its label
    (:attr:`Scheme.label_weights`, data of the plugin); refused for a scheme without weights.
``capped``
    The scheme's weight capped at 1, what a leaf into the child weighs (:func:`leaf_shares`);
    a scheme without weights counts every edge 1.
``none``
    No unit edge counts: with ``leaves``, the leaves alone. Not a measure of its own but the
    ablation that says what the units add (docs/validity.md compares a setting with it).

A third option, ``leaves`` (:data:`~semsim.kernel.metrics.settings.LEAF_WEIGHTS`), counts what §3 leaves out of the edge
sets: the graph's leaves are its tokens, and each token's edge from its unit is an edge of
the DAG too. With ``leaves=k`` every (non-punctuation) token adds an edge of weight ``k`` to
its side, matched when the leaf alignment A_l aligns the token, so that a deleted, inserted
or replaced word costs the score something even where the parser gives both sentences the
same units (:func:`leaf_counts`). ``0`` (default) is the paper's reading: units only.

A fourth, ``order`` (:data:`~semsim.kernel.metrics.settings.ORDERS`), says where aligned words
may stand: ``kept`` (default) as the token alignment says; ``scenes`` adds the scenes that moved
(:mod:`semsim.kernel.align.moves`), wherever they stand; ``splits`` also counts the units that
only restate aligned words, as a split-off sentence names its participant again, on neither side
(:func:`excused_tokens`).

Every setting is a field of one :class:`~semsim.kernel.metrics.settings.Settings`, which
:func:`usim`, :func:`usim_parts` and :func:`paper_settings` take whole; the functions below
them take the one or two settings they use.
"""

from __future__ import annotations

import numpy as np

from ..align.contextual import Encoder, contextual_pairs, credits
from ..align.moves import moved_scenes, restated
from ..align.paraphrase import Judge
from ..align.tokens import paper_token_pairs, related_matrix, same_words
from ..align.units import align_units, dice_alignment, overlap_matrix
from ..errors import SettingsError
from ..graph import Graph
from ..signature import signature
from ..stats import Counts, Score
from .settings import EDGE_WEIGHTS, Settings


def yield_sizes(g1: Graph, g2: Graph, token_pairs: list[tuple[int, int]],
                denominator: str = "yield") -> tuple[np.ndarray, np.ndarray]:
    """|yield(v)| per node of each graph: the denominators of w (and of the coverage tie-break)."""
    y1, y2 = g1.content_yield_matrix, g2.content_yield_matrix
    if denominator == "aligned":  # tokens nothing aligns to cannot tell candidates apart
        t1, t2 = (sorted({p[k] for p in token_pairs}) for k in (0, 1))
        y1, y2 = y1[:, t1], y2[:, t2]
    elif denominator != "yield":
        raise ValueError(f"unknown denominator {denominator!r}; choose 'yield' or 'aligned'")
    return y1.sum(axis=1), y2.sum(axis=1)


def unit_alignments(g1: Graph, g2: Graph, token_pairs: list[tuple[int, int]],
                    settings: Settings, credit: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """The node alignment A per ``settings.direction``, always as ``A[v, u]`` (v in ``g1``, u
    in ``g2``): ``s->r`` aligns each node of ``g1`` onto ``g2``, ``r->s`` each node of ``g2``
    onto ``g1`` (ties resolved by ``settings.tie_break``, w's denominator ``settings.denominator``,
    nodes weighed by ``settings.units``: §3's w or the yields' Dice coefficient)."""
    # --units dice weighs the pairs by their credit (--tokens contextual); §3's w counts them
    weights = ([float(credit[x, y]) for x, y in token_pairs] if credit is not None and settings.units == "dice"
               else None)
    overlap = overlap_matrix(g1, g2, token_pairs, weights)
    size1, size2 = yield_sizes(g1, g2, token_pairs, settings.denominator)
    alignments = {}
    if settings.units == "dice":  # one symmetric relation, the same in both directions
        (items1, in1), (items2, in2) = (g.label_masks(settings.labels, settings.remote) for g in (g1, g2))
        a = dice_alignment(overlap, size1, size2, (items1, items2), (in1, in2))
        return dict.fromkeys(("s->r", "r->s") if settings.direction == "both" else (settings.direction,), a)
    if settings.direction in ("both", "s->r"):
        alignments["s->r"] = align_units(overlap, size1, size2, settings.tie_break)
    if settings.direction in ("both", "r->s"):
        alignments["r->s"] = align_units(overlap.T, size2, size1, settings.tie_break).T
    return alignments


def edge_matches(g1: Graph, g2: Graph, alignment: np.ndarray, labels: str = "labeled",
                 remote: bool = True) -> tuple[list[bool], list[bool]]:
    """Whether each compared edge of each graph (in :meth:`Graph.label_masks` order) has a
    match under the node alignment ``alignment[v, u]`` (v in ``g1``, u in ``g2``): an edge
    of the other graph with a shared label into a node aligned with its child."""
    items1, incoming1 = g1.label_masks(labels, remote)
    items2, incoming2 = g2.label_masks(labels, remote)
    seen1 = [0] * len(g1.units)  # labels entering the nodes each g1 node is aligned with
    seen2 = [0] * len(g2.units)
    for v, u in zip(*np.nonzero(alignment)):
        seen1[v] |= incoming2[u]
        seen2[u] |= incoming1[v]
    return [bool(seen1[child] & mask) for child, mask in items1], [bool(seen2[child] & mask) for child, mask in items2]


def weigh_edges(g: Graph, edge_weights: str = "uniform", remote: bool = True) -> list[float]:
    """What each compared edge of ``g`` (in :meth:`Graph.label_masks` order) weighs under
    ``edge_weights``, one of :data:`EDGE_WEIGHTS`."""
    if edge_weights not in EDGE_WEIGHTS:
        raise ValueError(f"unknown edge weights {edge_weights!r}; choose from {', '.join(EDGE_WEIGHTS)}")
    if edge_weights == "scheme" and not g.scheme.label_weights:
        raise SettingsError(f"edge_weights='scheme': the {g.scheme.name!r} scheme declares no label weights "
                            f"(use 'height', which needs none)", ["edge_weights"])

    def build() -> list[float]:
        edges = [g.edges[i] for i in g.compared_edges_of(remote)]
        if edge_weights == "height":
            return [1.0 + g.heights[e.child] for e in edges]
        if edge_weights == "scheme":
            return [g.scheme.weight(e.labels) for e in edges]
        if edge_weights == "capped":  # what a leaf into the child would weigh (leaf_shares)
            return [min(1.0, g.scheme.weight(e.labels)) for e in edges]
        if edge_weights == "none":  # the leaves alone: what the unit edges add is the difference
            return [0.0] * len(edges)
        return [1.0] * len(edges)
    return g.memo(("edge_weights", edge_weights, remote), build)


def match_edges(g1: Graph, g2: Graph, alignment: np.ndarray, labels: str = "labeled",
                remote: bool = True, edge_weights: str = "uniform") -> Counts:
    """Count the edges of each graph that have a match (:func:`edge_matches`); with
    ``edge_weights`` other than ``uniform``, sum their :func:`weigh_edges` instead."""
    matched1, matched2 = edge_matches(g1, g2, alignment, labels, remote)
    if edge_weights == "uniform":  # integer counts, exactly as the paper's
        return Counts(sum(matched1), len(matched1), sum(matched2), len(matched2))
    w1, w2 = weigh_edges(g1, edge_weights, remote), weigh_edges(g2, edge_weights, remote)
    return Counts(sum(w for w, m in zip(w1, matched1) if m), sum(w1),
                  sum(w for w, m in zip(w2, matched2) if m), sum(w2))


def leaf_counts(g1: Graph, g2: Graph, token_pairs: list[tuple[int, int]], weight: int,
                credit: np.ndarray | None = None,
                excused: tuple[frozenset[int], frozenset[int]] = (frozenset(), frozenset())) -> Counts:
    """The leaf edges of both graphs, each of ``weight``: one per token the leaf alignment
    considers (punctuation is never aligned, so it is left out here too), matched when the
    token is aligned. The same in both directions: A_l is shared by them.

    With ``credit`` (``--tokens contextual``), a leaf weighs ``weight`` times its
    :func:`leaf_shares` and an aligned one counts its pair's credit of that. The ``excused``
    tokens of each side (never aligned) are left out."""
    if credit is None:
        n1, n2 = (sum(not t.punct and i not in x for i, t in enumerate(g.tokens)) for g, x in zip((g1, g2), excused))
        matched = weight * len(token_pairs)
        return Counts(matched, weight * n1, matched, weight * n2)
    q1, q2 = leaf_shares(g1), leaf_shares(g2)
    if any(excused):
        q1, q2 = q1.copy(), q2.copy()
        q1[sorted(excused[0])] = 0.0
        q2[sorted(excused[1])] = 0.0
    c = [float(credit[x, y]) for x, y in token_pairs]
    return Counts(weight * sum(k * float(q1[x]) for k, (x, _) in zip(c, token_pairs)), weight * float(q1.sum()),
                  weight * sum(k * float(q2[y]) for k, (_, y) in zip(c, token_pairs)), weight * float(q2.sum()))


def leaf_shares(g: Graph) -> np.ndarray:
    """What each token's leaf edge weighs, as a share of a full one: the scheme's weight of
    the label of the edge into its unit, capped at 1 (so UCCA's function words and relators,
    F and R at 0.5, count half, and every content word alike), 0 for punctuation."""
    def build() -> np.ndarray:
        into = {e.child: e.labels for e in g.edges if not e.remote}
        share = np.ones(len(g.tokens))
        for k, unit in enumerate(g.units):
            for t in unit.anchors:
                share[t] = min(1.0, g.scheme.weight(into.get(k, ())))
        share[[t.punct for t in g.tokens]] = 0.0
        return share
    return g.memo("leaf_shares", build)


def edge_credits(g1: Graph, g2: Graph, alignment: np.ndarray, graded: np.ndarray, sizes: tuple[np.ndarray, np.ndarray],
                 labels: str = "labeled", remote: bool = True, units: str = "yield") -> tuple[list[float], list[float]]:
    """``--tokens contextual``: what each compared edge earns. A match as
    :func:`edge_matches` defines it earns the graded overlap of its child v with the
    counterpart u, ``graded[v, u]`` (the credits of the aligned pairs under both) over the
    child's own yield size (``units="dice"``: over the mean of both yields' sizes, the
    Dice coefficient, so that a counterpart larger than v earns less too), the best such
    among its matches; an unmatched edge earns 0."""
    items1, incoming1 = g1.label_masks(labels, remote)
    items2, incoming2 = g2.label_masks(labels, remote)
    best1: dict[int, list[tuple[int, float]]] = {}  # child -> (labels entering its counterpart, credit)
    best2: dict[int, list[tuple[int, float]]] = {}
    if units == "dice":
        share1 = share2 = 2 * graded / np.maximum(sizes[0][:, None] + sizes[1][None, :], 1)
    else:
        share1 = graded / np.maximum(sizes[0], 1)[:, None]
        share2 = graded / np.maximum(sizes[1], 1)[None, :]
    for v, u in zip(*np.nonzero(alignment)):
        best1.setdefault(v, []).append((incoming2[u], float(share1[v, u])))
        best2.setdefault(u, []).append((incoming1[v], float(share2[v, u])))

    def earned(items: tuple[tuple[int, int], ...], best: dict[int, list[tuple[int, float]]]) -> list[float]:
        return [max((c for bits, c in best.get(child, ()) if bits & mask), default=0.0) for child, mask in items]
    return earned(items1, best1), earned(items2, best2)


def usim_parts(g1: Graph, g2: Graph, token_pairs: list[tuple[int, int]], settings: Settings,
               credit: np.ndarray | None = None) -> dict[str, Counts]:
    """Counts per direction for a given leaf alignment (0-based token index pairs), the
    leaf edges (:func:`leaf_counts`) added when ``settings.leaves`` gives them a weight. With
    ``credit`` (``--tokens contextual``), matched edges and aligned leaves count their credit
    (:func:`edge_credits`, :func:`leaf_counts`) instead of 1. With ``order="splits"``, the
    units that only restate aligned words (:func:`semsim.kernel.align.moves.restated`) count
    on neither side."""
    labels, remote, edge_weights = settings.labels, settings.remote, settings.edge_weights
    alignments = unit_alignments(g1, g2, token_pairs, settings, credit)
    excused = excused_tokens(g1, g2, token_pairs, settings, credit)
    if credit is None and not any(excused):
        parts = {d: match_edges(g1, g2, a, labels, remote, edge_weights) for d, a in alignments.items()}
    else:
        w1, w2 = counted_weights(g1, g2, settings, excused)
        parts = {}
        if credit is None:
            for d, a in alignments.items():
                m1, m2 = edge_matches(g1, g2, a, labels, remote)
                parts[d] = Counts(sum(w for w, m in zip(w1, m1) if m), sum(w1),
                                  sum(w for w, m in zip(w2, m2) if m), sum(w2))
        else:
            graded = overlap_matrix(g1, g2, token_pairs, [float(credit[x, y]) for x, y in token_pairs])
            sizes = yield_sizes(g1, g2, token_pairs, settings.denominator)
            for d, a in alignments.items():
                c1, c2 = edge_credits(g1, g2, a, graded, sizes, labels, remote, settings.units)
                parts[d] = Counts(sum(w * c for w, c in zip(w1, c1)), sum(w1),
                                  sum(w * c for w, c in zip(w2, c2)), sum(w2))
    if settings.leaves:
        extra = leaf_counts(g1, g2, token_pairs, settings.leaves, credit, excused)
        parts = {d: c + extra for d, c in parts.items()}
    return parts


def excused_tokens(g1: Graph, g2: Graph, token_pairs: list[tuple[int, int]], settings: Settings,
                   credit: np.ndarray | None = None) -> tuple[frozenset[int], frozenset[int]]:
    """The tokens of each graph that count on neither side: with ``order="splits"``, those of the
    units that only restate aligned words (:func:`semsim.kernel.align.moves.restated`; a repeated
    word is the same word, case aside, or one the word encoder finds alike); none otherwise."""
    if settings.order != "splits":
        return frozenset(), frozenset()
    same = same_words(g1, g2)
    return restated(g1, g2, token_pairs, same if credit is None else np.maximum(same, credit))


def counted_weights(g1: Graph, g2: Graph, settings: Settings,
                    excused: tuple[frozenset[int], frozenset[int]]) -> tuple[list[float], list[float]]:
    """What each compared edge of each graph weighs (:func:`weigh_edges`), the edges into units
    whose every word is excused (:func:`excused_tokens`) weighing 0."""
    def side(g: Graph, tokens: frozenset[int]) -> list[float]:
        weights = weigh_edges(g, settings.edge_weights, settings.remote)
        if not tokens:
            return weights
        yields = g.content_yields
        return [0.0 if yields[g.edges[i].child] <= tokens else w
                for i, w in zip(g.compared_edges_of(settings.remote), weights)]
    return side(g1, excused[0]), side(g2, excused[1])


def with_moves(g1: Graph, g2: Graph, pairs: list[tuple[int, int]], settings: Settings,
               credit: np.ndarray | None = None) -> list[tuple[int, int]]:
    """The leaf alignment ``pairs`` with the moved scenes added where ``settings.order`` asks
    (:func:`semsim.kernel.align.moves.moved_scenes`; without ``credit``, a lexically related
    pair is worth 1)."""
    if settings.order == "kept":
        return pairs
    return moved_scenes(g1, g2, pairs, related_matrix(g1, g2) if credit is None else credit)


def paper_settings(settings: Settings, judge_name: str = "", encoder_name: str = "") -> dict[str, object]:
    """The settings that name a paper-variant score in its signature, under the short keys
    signatures have always had (the remedies and the preset only when used, so that the
    paper's own signatures stay as they were; ``judge_name``: the paraphrase judge's identity,
    with ``tokens="paraphrase"``; ``encoder_name``: the word encoder's, with ``contextual``)."""
    s = settings
    return {"variant": "paper", **({"preset": s.preset} if s.preset != "none" else {}), "dir": s.direction,
            "tie": s.tie_break, "labels": s.labels, "remote": s.remote,
            "denom": s.denominator, "align": "sentence" if s.by_sentence else "passage",
            **({"tokens": s.tokens} if s.tokens != "edit" else {}),
            **({"para": judge_name} if s.tokens == "paraphrase" else {}),
            **({"ctx": encoder_name} if s.tokens == "contextual" else {}),
            **({"weights": s.edge_weights} if s.edge_weights != "uniform" else {}),
            **({"units": s.units} if s.units != "yield" else {}),
            **({"order": s.order} if s.order != "kept" else {}),
            **({"leaves": s.leaves} if s.leaves else {})}


def leaf_alignment(g1: Graph, g2: Graph, settings: Settings, judge: Judge | None = None,
                   encoder: Encoder | None = None) -> tuple[list[tuple[int, int]], np.ndarray | None]:
    """A_l as ``settings.tokens`` and ``settings.by_sentence`` say, and for
    ``tokens="contextual"`` the credit matrix its pairs are counted by
    (:mod:`semsim.kernel.align.contextual`); ``None`` for the all-or-nothing alignments."""
    if settings.tokens != "contextual":
        pairs = paper_token_pairs(g1, g2, by_sentence=settings.by_sentence, how=settings.tokens, judge=judge)
        return with_moves(g1, g2, pairs, settings), None
    if encoder is None:
        raise ValueError("tokens='contextual' needs a word encoder")
    credit = credits(g1, g2, encoder)
    return with_moves(g1, g2, contextual_pairs(g1, g2, credit, settings.by_sentence), settings, credit), credit


def usim(g1: Graph, g2: Graph, settings: Settings, *, judge: Judge | None = None, judge_name: str = "",
         encoder: Encoder | None = None, encoder_name: str = "") -> Score:
    """USim (paper definition) of ``g1`` (the source) and ``g2`` (its correction) under
    ``settings`` (checked when it was made, so not again here). The models some settings ask
    for are no settings but the caller's: ``tokens="paraphrase"`` needs a paraphrase ``judge``
    and its identity ``judge_name`` (:class:`semsim.kernel.records.ParaphraseJudge`),
    ``tokens="contextual"`` a word ``encoder`` and its ``encoder_name``; the signature names
    them."""
    if settings.variant != "paper":
        raise SettingsError(f"variant={settings.variant!r}: semsim.kernel.metrics.usim computes the paper variant "
                            "(the legacy one is semsim.kernel.metrics.legacy.usim_legacy)")
    if settings.tokens == "paraphrase" and (judge is None or not judge_name):
        raise SettingsError("tokens='paraphrase' needs a paraphrase judge and its name", ["tokens"])
    if settings.tokens == "contextual" and (encoder is None or not encoder_name):
        raise SettingsError("tokens='contextual' needs a word encoder and its name", ["tokens"])
    pairs, credit = leaf_alignment(g1, g2, settings, judge, encoder)
    parts = usim_parts(g1, g2, pairs, settings, credit)
    sig = signature("usim", paper_settings(settings, judge_name, encoder_name), g1.scheme)
    return Score(parts, sig)
