"""Graded token alignment for ``--tokens contextual``: how alike two words are in their sentences.

The paper's leaf alignment is all or nothing: a pair is aligned, or not, by spelling. Human
judges of meaning (``docs/validity.md``) mark down what spelling cannot see: a content word
replaced by an unrelated one of a similar form (``striving`` → ``struggling``,
``humanism`` → ``intelligence``) and a word whose sense shifted with its context. So, as
S2match grades Smatch's concept matches by embedding similarity, ``contextual`` grades every
leaf pair:

* each token gets a contextual vector from a plugin's word encoder
  (:class:`semsim.kernel.records.WordEncoder`), each sentence encoded alone;
* a pair's **credit** is its cosine rescaled so that :data:`FLOOR` and below give 0 and an
  identical vector 1: ``max(0, (cos - FLOOR) / (1 - FLOOR))``, rounded to 6 decimals;
* a **misspelling the correction fixed** earns full credit: a lexically related pair
  (:func:`semsim.kernel.align.tokens.related`: ``iede``/``idea``) whose source word the encoder
  splits into more word pieces than the correction's (an encoder's vocabulary is made of
  real words, so the side split further is the misspelled one), where the encoder says how
  it splits words (``pieces``); the vectors of a misspelling are far from its word's, and a
  spelling fix keeps the meaning. The reverse, a correction that misspells a word
  (``Tracking`` → ``Accking``), keeps its low credit;
* the leaf alignment is the heaviest one of positive credit whose pairs do not cross
  (:func:`semsim.kernel.align.tokens.heaviest_monotone`, as ``ordered`` is: a moved argument stays
  unaligned), sentence by sentence as the paper's.

:mod:`semsim.kernel.metrics.usim` then counts an aligned pair by its credit, and an edge by the
credit of the pairs under it. The core knows no language: the vectors are the plugin's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..errors import RecordFault, SemsimError
from ..graph import Graph
from ..limits import check_cells
from .tokens import Pair, heaviest_monotone, related, synchronised_spans

#: what a word encoder is: a sentence's words to one vector per word
Encoder = Callable[[Sequence[str]], np.ndarray]
#: the cosine below which a pair earns nothing (chosen on the dev data: docs/validity.md)
FLOOR = 0.5
#: decimals a credit keeps, so that the alignment and scores do not hang on float noise
DECIMALS = 6


def _sentences(g: Graph) -> list[range]:
    """The token ranges of the graph's sentences (the whole graph where ends are unknown)."""
    ends = [e for e in g.sentence_ends if 0 < e <= len(g.tokens)]
    if not ends or ends[-1] != len(g.tokens):
        ends.append(len(g.tokens))
    starts = [0, *ends[:-1]]
    return [range(a, b) for a, b in zip(starts, ends) if b > a]


def vectors(g: Graph, encode: Encoder) -> np.ndarray:
    """Unit-length contextual vectors of every token of ``g``, each sentence encoded alone."""
    parts: list[np.ndarray] = []
    for r in _sentences(g):
        words = [g.tokens[i].text for i in r]
        try:
            v = np.asarray(encode(words), dtype=np.float64)
        except SemsimError:
            raise
        except Exception as exc:  # the plugin's code, or vectors that are no numbers
            raise RecordFault("word encoder", f"raised {type(exc).__name__} on {' '.join(words)[:60]!r}: "
                              f"{str(exc)[:200]}") from exc
        if v.ndim != 2 or v.shape[0] != len(r) or v.shape[1] < 1:
            raise RecordFault("word encoder", f"gave vectors of shape {v.shape} for {len(r)} words (one vector "
                              "per word expected)")
        if not np.isfinite(v).all():  # NaN would compare as no pair at all, silently
            raise RecordFault("word encoder", f"gave a vector that is not finite (NaN or inf) on "
                              f"{' '.join(words)[:60]!r}")
        if parts and v.shape[1] != parts[0].shape[1]:
            raise RecordFault("word encoder", f"gave vectors of {v.shape[1]} and {parts[0].shape[1]} dimensions")
        parts.append(v)
    if not parts:
        return np.zeros((0, 1))
    out = np.concatenate(parts)
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)


def credits(g1: Graph, g2: Graph, encode: Encoder) -> np.ndarray:
    """``C[i, j]``: the credit of token i of ``g1`` with token j of ``g2`` (0 for punctuation)."""
    check_cells(len(g1.tokens), len(g2.tokens), "contextual token alignment")
    if not g1.tokens or not g2.tokens:
        return np.zeros((len(g1.tokens), len(g2.tokens)))
    cos = vectors(g1, encode) @ vectors(g2, encode).T
    c = np.round(np.clip((cos - FLOOR) / (1.0 - FLOOR), 0.0, 1.0), DECIMALS)
    pieces = getattr(encode, "pieces", None)
    if pieces is not None:
        for i, j in spelling_fixes(g1, g2, pieces):
            c[i, j] = 1.0
    c[[t.punct for t in g1.tokens], :] = 0.0
    c[:, [t.punct for t in g2.tokens]] = 0.0
    return c


def spelling_fixes(g1: Graph, g2: Graph, pieces: Callable[[Sequence[str]], Sequence[int]]) -> list[Pair]:
    """The pairs (i, j) where token j of ``g2`` fixes the misspelled token i of ``g1``: the two
    lexically related but not equal, and i split into more word pieces than j."""
    w1, w2 = ([t.text.lower() for t in g.tokens] for g in (g1, g2))
    n1, n2 = pieces(w1), pieces(w2)
    return [(i, j) for i, a in enumerate(w1) if not g1.tokens[i].punct
            for j, b in enumerate(w2) if not g2.tokens[j].punct and a != b and n1[i] > n2[j] and related(a, b)]


def contextual_pairs(g1: Graph, g2: Graph, credit: np.ndarray, by_sentence: bool = True) -> list[Pair]:
    """The leaf alignment: within each synchronised span, the pairs of positive credit of
    greatest total credit that do not cross."""
    pairs: list[Pair] = []
    for r1, r2 in synchronised_spans(g1, g2, by_sentence):
        i1, i2 = list(r1), list(r2)
        if not i1 or not i2:
            continue
        weight = np.rint(credit[np.ix_(i1, i2)] * 10**DECIMALS).astype(np.int64)
        pairs += [(i1[a], i2[b]) for a, b in heaviest_monotone(weight, weight > 0)]
    return sorted(pairs)
