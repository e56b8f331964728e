"""Token alignment.

The paper (§3) casts token alignment as weighted bipartite matching with edit distances
as weights. :func:`align_tokens` does exactly that with scipy's assignment solver and
rapidfuzz's Levenshtein distance; the reading decisions the paper leaves open are:

* comparison is case-insensitive (``john`` ~ ``John`` in Figure 1);
* among alignments of equal total edit distance, the one whose pairs sit at the most
  similar relative positions wins (a penalty too small to outweigh one edit); only exact
  mirror-image ties (the same distances and the same position offsets, e.g. one ``a``
  against ``a x a``) are left to the solver, which resolves them the same way every run;
* a pair whose tokens share nothing (edit distance equal to the longer length, e.g.
  ``the``/``a``) is not an alignment: the paper's alignment is "possibly partial".

Long texts are aligned sentence by sentence over synchronised sentence ends
(:func:`synchronised_spans`, the procedure of the authors' code, see
``docs/legacy.md``); otherwise a deleted "the" may pair with an inserted "the"
sentences away. :func:`legacy_token_pairs` is the original code's variant.

The paper's §4.4 traces some of USim's blindness to the alignment: any two tokens sharing a
letter may align, so a content word replaced by an unrelated one (``idea`` → ``iron``) keeps
its units aligned and its edges matched. ``TOKEN_ALIGNMENTS`` names the choices:

``edit`` (default)
    The paper's: minimum total edit distance over every pair that shares anything.
``lexical``
    The same matching over lexically related pairs only (:func:`related`: the same word up
    to an edit distance of at most half the longer one's length, which keeps misspellings
    and inflections, ``iede``/``idea``, ``gva``/``gave``, ``child``/``children``): an
    unrelated replacement leaves its units unaligned.
``ordered``
    Lexically related pairs that also keep their order (no two pairs cross): the heaviest
    such alignment, a weighted longest common subsequence (:func:`_ordered`). UCCA labels
    an agent and a patient alike (both ``A``), so only word order tells ``John saw Mary``
    from ``Mary saw John``; the price is that a moved word is unaligned.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cdist

from ..graph import Graph
from ..imports import assignment_solver
from ..limits import check_cells, check_chars
from .paraphrase import Gap, Judge, Verdict, judge_gaps


def linear_sum_assignment(cost: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """scipy's assignment solver, loaded on the first alignment and without the rest of
    ``scipy.optimize`` (:mod:`semsim.kernel.imports`): that import took half a second of a first result."""
    return assignment_solver()(cost)


Pair = tuple[int, int]
TOKEN_ALIGNMENTS = ("edit", "lexical", "ordered", "paraphrase", "contextual")
#: the largest edit distance, as a share of the longer token's length, of a lexically related pair
MAX_RELATIVE_DISTANCE = 0.5


def related(a: str, b: str, distance: int | None = None) -> bool:
    """Whether two (lower-cased) tokens are the same word up to a misspelling or an
    inflection: an edit distance of at most :data:`MAX_RELATIVE_DISTANCE` of the longer one."""
    d = Levenshtein.distance(a, b) if distance is None else distance
    return d <= MAX_RELATIVE_DISTANCE * max(len(a), len(b))


def token_ids(*texts: Sequence[str]) -> list[list[int]]:
    """Tokens as small integers, one per distinct token across ``texts``, so that a distance
    over token lists compares tokens exactly, with no dependence on Python's string hash."""
    ids: dict[str, int] = {}
    return [[ids.setdefault(t, len(ids)) for t in toks] for toks in texts]


def levenshtein_similarity(a: Sequence[str], b: Sequence[str]) -> float:
    """1 − (token-level Levenshtein distance) / (the longer side's length in tokens); two
    empty sides are identical (1.0).

    The lexical baseline every faithfulness measure has to beat (the meta-evaluation's
    ``levenshtein`` anchor, the faithfulness benchmark's baseline): it sees only which words
    changed, so it scores every edit by its size alone."""
    x, y = token_ids(a, b)
    longest = max(len(x), len(y))
    return 1.0 if longest == 0 else 1.0 - Levenshtein.distance(x, y) / longest


def edit_distances(a: Sequence[str], b: Sequence[str]) -> np.ndarray:
    """Levenshtein distance between every token of ``a`` and every token of ``b``."""
    return cdist(a, b, scorer=Levenshtein.distance, dtype=np.int32, workers=1)


def _related_pairs(a: Sequence[str], b: Sequence[str], dist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`related` for every pair at once, given their edit distances: the boolean
    matrix, and the longer token's length per pair (the denominator of the relation)."""
    longer = np.maximum.outer([len(t) for t in a], [len(t) for t in b])
    return dist <= MAX_RELATIVE_DISTANCE * longer, longer


def related_matrix(g1: Graph, g2: Graph) -> np.ndarray:
    """1.0 where token i of ``g1`` and token j of ``g2`` are lexically related (:func:`related`,
    case aside), else 0; punctuation is related to nothing. What an all-or-nothing alignment's
    pair is worth where a caller weighs pairs (``--order scenes``)."""
    check_cells(len(g1.tokens), len(g2.tokens), "token alignment")
    if not g1.tokens or not g2.tokens:
        return np.zeros((len(g1.tokens), len(g2.tokens)))
    la, lb = ([t.text.lower() for t in g.tokens] for g in (g1, g2))
    ok, _ = _related_pairs(la, lb, edit_distances(la, lb))
    ok[[t.punct for t in g1.tokens], :] = False
    ok[:, [t.punct for t in g2.tokens]] = False
    return ok.astype(np.float64)


def same_words(g1: Graph, g2: Graph) -> np.ndarray:
    """1.0 where token i of ``g1`` and token j of ``g2`` are the same word, case aside; punctuation
    is the same as nothing."""
    check_cells(len(g1.tokens), len(g2.tokens), "token alignment")
    w1, w2 = (np.array([t.text.lower() if not t.punct else None for t in g.tokens], dtype=object) for g in (g1, g2))
    return ((w1[:, None] == w2[None, :]) & (w1[:, None] != None)).astype(np.float64)  # noqa: E711


def align_tokens(a: Sequence[str], b: Sequence[str], how: str = "edit") -> list[Pair]:
    """One-to-one alignment of two token lists (0-based pairs), by minimum total edit
    distance (``how``: one of :data:`TOKEN_ALIGNMENTS`; ``paraphrase`` aligns tokens as
    ``ordered`` does, its gaps being judged by :func:`paper_token_pairs`)."""
    if how not in TOKEN_ALIGNMENTS:
        raise ValueError(f"unknown token alignment {how!r}; choose from {', '.join(TOKEN_ALIGNMENTS)}")
    if how == "contextual":
        raise ValueError("tokens='contextual' aligns by word vectors: semsim.kernel.metrics.usim.leaf_alignment")
    n, m = len(a), len(b)
    if not n or not m:
        return []
    check_cells(n, m, "token alignment")
    check_chars(sum(map(len, a)), sum(map(len, b)))
    la, lb = [t.lower() for t in a], [t.lower() for t in b]
    dist = edit_distances(la, lb)
    if how in ("ordered", "paraphrase"):
        return _ordered(dist, *_related_pairs(la, lb, dist))
    dist = dist.astype(np.float64)
    # Tie-break toward similar relative positions; the sum of all penalties stays < 1,
    # so it can only choose among alignments of equal (integer) edit distance.
    ra = (np.arange(n) + 0.5) / n
    rb = (np.arange(m) + 0.5) / m
    cost = dist + np.abs(ra[:, None] - rb[None, :]) / (2 * (min(n, m) + 1))
    if how == "edit":  # the paper's: a pair sharing nothing is dropped after the matching
        rows, cols = linear_sum_assignment(cost)
        return [(int(i), int(j)) for i, j in zip(rows, cols) if dist[i, j] < max(len(la[i]), len(lb[j]))]
    related_pairs, _ = _related_pairs(la, lb, dist)
    # every unrelated pair costs the same, more than any matching of related ones: the most
    # related pairs are aligned, at the least total distance, whatever the unrelated ones' distances
    rows, cols = linear_sum_assignment(np.where(related_pairs, cost, dist.sum() + 2.0))
    return [(int(i), int(j)) for i, j in zip(rows, cols) if related_pairs[i, j]]


def _ordered(dist: np.ndarray, ok: np.ndarray, longer: np.ndarray) -> list[Pair]:
    """The heaviest alignment of related pairs in which no two pairs cross: a weighted
    longest common subsequence in which a pair weighs a base less its relative edit distance
    (0 to 250 for related pairs), the base exceeding the largest sum of those, so that the
    most pairs win, then the closest. (A token-level diff is not enough: its edit script may
    substitute ``gva`` by an inserted ``John`` and insert ``gave``, an equally short script
    that pairs the wrong words.) ``dist``, ``ok`` and ``longer``: the edit distances, the
    related pairs and the longer lengths (:func:`_related_pairs`)."""
    n, m = dist.shape
    base = 251 * (min(n, m) + 1)
    return heaviest_monotone(np.where(ok, base - (500 * dist.astype(np.int64)) // np.maximum(longer, 1), 0), ok)


def heaviest_monotone(weight: np.ndarray, ok: np.ndarray) -> list[Pair]:
    """The allowed pairs (``ok``) of greatest total integer ``weight`` in which no two pairs
    cross: a weighted longest common subsequence. Integer weights, so that the same input
    gives the same pairs on every machine (no float ties)."""
    n, m = weight.shape
    weight = weight.astype(np.int64)
    best = np.zeros((n + 1, m + 1), dtype=np.int64)  # best[i, j]: over a[:i] and b[:j]
    for i in range(1, n + 1):
        matched = np.where(ok[i - 1], best[i - 1, :-1] + weight[i - 1], 0)
        best[i, 1:] = np.maximum.accumulate(np.maximum(best[i - 1, 1:], matched))
    pairs: list[Pair] = []
    i, j = n, m
    while i and j:
        if ok[i - 1, j - 1] and best[i, j] == best[i - 1, j - 1] + weight[i - 1, j - 1]:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif best[i, j] == best[i - 1, j]:
            i -= 1
        else:
            j -= 1
    return pairs[::-1]


def moved_pairs(pairs: Sequence[Pair]) -> list[Pair]:
    """The pairs of an alignment that mark moved content: those outside a largest subset in
    which no two pairs cross (:func:`heaviest_monotone`, every pair weighing 1). An alignment
    that may cross (``edit``) pairs a clause moved to the front with its source words; the
    largest order-keeping subset is the text that stayed in place, the rest moved. Where
    several largest subsets tie, :func:`heaviest_monotone`'s deterministic choice decides."""
    pairs = sorted(set(pairs))
    if len(pairs) < 2:
        return []
    rows = sorted({a for a, _ in pairs})
    cols = sorted({b for _, b in pairs})
    at_row, at_col = {a: n for n, a in enumerate(rows)}, {b: n for n, b in enumerate(cols)}
    ok = np.zeros((len(rows), len(cols)), dtype=bool)
    for a, b in pairs:
        ok[at_row[a], at_col[b]] = True
    kept = {(rows[i], cols[j]) for i, j in heaviest_monotone(ok.astype(np.int64), ok)}
    return [p for p in pairs if p not in kept]


def crossing(pairs: Sequence[Pair], pair: Pair) -> list[Pair]:
    """The pairs of an alignment that ``pair`` would cross, were it added."""
    i, j = pair
    return [(a, b) for a, b in pairs if (a < i and b > j) or (a > i and b < j)]


# -- sentence synchronisation (shared by both variants) ---------------------------------------
_NON_WORD = re.compile(r"[\W_]+")


def _regularised(text: str) -> str:
    return _NON_WORD.sub("", text)


def _boundary(graph: Graph, p: int) -> tuple[int, str]:
    """The position actually used for boundary ``p`` (1-based) and its regularised text:
    a boundary on a token with no word characters steps back one token, once."""
    r = _regularised(graph.tokens[p - 1].text)
    if not r and p > 1:
        p -= 1
        r = _regularised(graph.tokens[p - 1].text)
    return p, r


def _ends(graph: Graph) -> tuple[int, ...]:
    return graph.sentence_ends or ((len(graph.tokens),) if graph.tokens else ())


def synchronised_ends(g1: Graph, g2: Graph) -> list[Pair]:
    """Pairs of 1-based sentence-end positions that close the same sentence in both texts.

    Walks both end lists, pairing ends whose regularised tokens agree and skipping one
    end on either side when that re-synchronises them (the authors' procedure,
    ``docs/legacy.md`` step 2, including its treatment of the final sentence).
    """
    e1, e2 = _ends(g1), _ends(g2)
    if not e1 or not e2:
        return []
    b1 = [_boundary(g1, p) for p in e1]
    b2 = [_boundary(g2, p) for p in e2]
    out: list[list[int]] = []
    i = j = 0
    while i < len(b1) and j < len(b2):
        (p1, r1), (p2, r2) = b1[i], b2[j]
        a1, s1 = b1[i + 1] if i + 1 < len(b1) else b1[i]
        a2, s2 = b2[j + 1] if j + 1 < len(b2) else b2[j]
        if r1 == r2:
            out.append([p1, p2])
        elif s1 == r2:
            i += 1
            out.append([a1, p2])
        elif r1 == s2:
            j += 1
            out.append([p1, a2])
        i += 1
        j += 1
    last1, last2 = b1[-1][0], b2[-1][0]
    if not out or (out[-1][0] != last1 and out[-1][1] != last2):
        out.append([e1[-1], e2[-1]])
    elif out[-1][0] != last1:
        out[-1][0] = last1
    elif out[-1][1] != last2:
        out[-1][1] = e2[-1]
    return [(a, b) for a, b in out]


def synchronised_spans(g1: Graph, g2: Graph, by_sentence: bool = True) -> list[tuple[range, range]]:
    """0-based token ranges of corresponding sentences: one span for the whole texts if
    ``by_sentence`` is false or a graph declares no sentence ends. Tokens after the last
    synchronised end (e.g. a final full stop the synchronisation stepped back from) belong
    to the last sentence; the legacy variant does not use these spans."""
    whole = [(range(len(g1.tokens)), range(len(g2.tokens)))]
    if not by_sentence or not g1.sentence_ends or not g2.sentence_ends:
        return whole
    spans, s1, s2 = [], 0, 0
    for end1, end2 in synchronised_ends(g1, g2):
        spans.append((range(s1, end1), range(s2, end2)))
        s1, s2 = end1, end2
    if not spans:
        return whole
    spans[-1] = (range(spans[-1][0].start, max(len(g1.tokens), spans[-1][0].stop)),
                 range(spans[-1][1].start, max(len(g2.tokens), spans[-1][1].stop)))
    return spans


def paper_token_pairs(g1: Graph, g2: Graph, by_sentence: bool = True, punct: bool = False,
                      how: str = "edit", judge: Judge | None = None) -> list[Pair]:
    """The paper's leaf alignment A_l between two graphs (0-based token indices); ``how``
    is one of :data:`TOKEN_ALIGNMENTS` (``paraphrase`` needs the ``judge``)."""
    return judged_token_pairs(g1, g2, by_sentence, punct, how, judge)[0]


def judged_token_pairs(g1: Graph, g2: Graph, by_sentence: bool = True, punct: bool = False, how: str = "edit",
                       judge: Judge | None = None) -> tuple[list[Pair], list[tuple[Gap, Verdict]]]:
    """:func:`paper_token_pairs`, and with ``how="paraphrase"`` every gap the judge was asked
    about with its verdict (what ``semsim explain`` shows)."""
    if how == "paraphrase" and judge is None:
        raise ValueError("tokens='paraphrase' needs a paraphrase judge")
    pairs: list[Pair] = []
    judged: list[tuple[Gap, Verdict]] = []
    for r1, r2 in synchronised_spans(g1, g2, by_sentence):
        i1 = [i for i in r1 if punct or not g1.tokens[i].punct]
        i2 = [i for i in r2 if punct or not g2.tokens[i].punct]
        found = [(i1[a], i2[b]) for a, b in
                 align_tokens([g1.tokens[i].text for i in i1], [g2.tokens[i].text for i in i2], how)]
        pairs += found
        if how == "paraphrase" and judge is not None:
            verdicts = judge_gaps(g1, g2, r1, r2, found, judge)
            judged += verdicts
            pairs += [p for gap, v in verdicts if v.paraphrase for p in gap.pairs()]
    return (sorted(pairs) if how == "paraphrase" else pairs), judged


def legacy_token_pairs(g1: Graph, g2: Graph) -> set[Pair]:
    """The authors' code's alignment: 1-based positions, ``-1`` for an unaligned token.

    Per synchronised sentence: lower-cased stripped tokens, the longer side as rows
    (``g2`` on equal length), columns padded with zero-cost placeholders, cost =
    Levenshtein + |i-j|/n. See ``docs/legacy.md`` step 3.
    """
    pairs: set[Pair] = set()
    start1 = start2 = 0
    for end1, end2 in synchronised_ends(g1, g2):
        s1 = [t.text.lower().strip() for t in g1.tokens[start1:end1]]
        s2 = [t.text.lower().strip() for t in g2.tokens[start2:end2]]
        swap = len(s1) > len(s2)  # rows are g1's tokens
        rows, cols = (s1, s2) if swap else (s2, s1)
        row0, col0 = (start1, start2) if swap else (start2, start1)
        n, m = len(rows), len(cols)
        start1, start2 = end1, end2
        if not n:
            continue
        check_cells(n, n, "token alignment")
        check_chars(sum(map(len, rows)), sum(map(len, cols)))
        cost = np.zeros((n, n))
        if m:
            idx = np.arange(n)
            cost[:, :m] = edit_distances(rows, cols) + np.abs(idx[:, None] - idx[None, :m]) / n
        for i, j in zip(*linear_sum_assignment(cost)):
            pr = row0 + int(i) + 1
            pc = col0 + int(j) + 1 if j < m else -1
            pairs.add((pr, pc) if swap else (pc, pr))
    return pairs
