"""Phrase-level token alignment: the "better lexical semantic abstraction" of the paper's §4.4.

``--tokens ordered`` aligns a word only with the same word up to a misspelling, so a
rephrasing (``know how to`` → ``be able to``, ``the`` → ``a``) leaves its units unaligned
exactly as an unrelated replacement (``idea`` → ``iron``) does, and the paper's §4.5
reference, which rephrases, scores below the corrector that loses the sentence's object.
Telling the two apart takes knowledge of a language, which the core does not have; so
``--tokens paraphrase`` asks a *paraphrase judge* that a plugin registers
(:class:`semsim.kernel.records.ParaphraseJudge`), and keeps the procedure here:

1. Align by ``ordered`` (:func:`semsim.kernel.align.tokens.align_tokens`): the anchors.
2. Between two consecutive anchors (or an anchor and a sentence end), the content tokens
   each side has left unaligned form a *substitution gap* (:func:`substitution_gaps`):
   what the correction wrote in place of what the source wrote. Only gaps with 1 to
   :data:`MAX_GAP` content tokens on both sides are offered: an insertion or a deletion
   has nothing to compare, and a longer rewrite is no word-for-word substitution.
3. A gap in which a word of at least :data:`MIN_MOVED` letters appears outside the gap in
   the other sentence is never offered: that word moved (``John saw Mary`` → ``Mary saw
   John``), which ``ordered`` exists to catch.
4. The judge sees the source sentence, the range the gap covers in it and the correction's
   words for it (:class:`Query`) and returns a :class:`Verdict`; a gap judged a paraphrase
   aligns its tokens in order, pairwise from the left (``know``/``be``, ``how``/``able``).

The judge's name, which names its model by content hash and its settings, enters the score's
signature (``para:NAME``). Every gap and verdict is what ``semsim explain`` shows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from ..errors import RecordFault, SemsimError
from ..graph import Graph

Pair = tuple[int, int]
#: the most content tokens a side of a substitution gap may have
MAX_GAP = 3
#: a word this long found outside its gap in the other sentence marks the gap as a move
MIN_MOVED = 4


@dataclass(frozen=True)
class Gap:
    """A substitution gap: content tokens of each graph (0-based indices into its tokens)
    that lie between the same two anchors, and the raw token ranges ``[start, stop)``
    between those anchors (punctuation included), which a judge's query quotes."""

    source: tuple[int, ...]
    correction: tuple[int, ...]
    source_range: tuple[int, int]
    correction_range: tuple[int, int]

    def pairs(self) -> list[Pair]:
        """The token pairs a paraphrase aligns: in order, pairwise from the left."""
        return list(zip(self.source, self.correction))


@dataclass(frozen=True)
class Query:
    """What a judge is asked: is ``sentence[start:stop]`` (the source sentence's tokens)
    said again by ``replacement`` (the correction's tokens between the same anchors)?"""

    sentence: tuple[str, ...]
    start: int
    stop: int
    replacement: tuple[str, ...]


@dataclass(frozen=True)
class Verdict:
    """A judge's answer: whether the gap is a paraphrase, the figure it decided on (None
    when a rule decided, e.g. a number changed), and why, in one line for explanations."""

    paraphrase: bool
    similarity: float | None
    reason: str


Judge = Callable[[Sequence[Query]], list[Verdict]]


def substitution_gaps(g1: Graph, g2: Graph, r1: range, r2: range, pairs: Sequence[Pair]) -> list[Gap]:
    """The gaps between consecutive pairs of an order-keeping alignment ``pairs`` of the
    sentences ``r1`` (in ``g1``) and ``r2`` (in ``g2``) that may be offered to a judge
    (steps 2 and 3 of the module docstring)."""
    t1, t2 = g1.tokens, g2.tokens
    anchors = [(r1.start - 1, r2.start - 1), *sorted(pairs), (r1.stop, r2.stop)]
    words1 = {i: t1[i].text.lower() for i in r1}
    words2 = {j: t2[j].text.lower() for j in r2}

    def moved(here: tuple[int, ...], words: dict[int, str], there: tuple[int, ...], other: dict[int, str]) -> bool:
        """Whether a long word of the gap's side ``here`` is in the other sentence outside ``there``."""
        outside = {w for k, w in other.items() if k not in there}
        return any(len(words[i]) >= MIN_MOVED and words[i] in outside for i in here)

    gaps = []
    for (a1, b1), (a2, b2) in pairwise(anchors):
        s = tuple(i for i in range(a1 + 1, a2) if not t1[i].punct)
        c = tuple(j for j in range(b1 + 1, b2) if not t2[j].punct)
        if not s or not c or len(s) > MAX_GAP or len(c) > MAX_GAP:
            continue
        if moved(c, words2, s, words1) or moved(s, words1, c, words2):
            continue
        gaps.append(Gap(s, c, (a1 + 1, a2), (b1 + 1, b2)))
    return gaps


def query(g1: Graph, g2: Graph, r1: range, gap: Gap) -> Query:
    """The judge's question about ``gap`` of the sentence ``r1`` of ``g1``."""
    (s1, e1), (s2, e2) = gap.source_range, gap.correction_range
    return Query(tuple(t.text for t in g1.tokens[r1.start:r1.stop]), s1 - r1.start, e1 - r1.start,
                 tuple(t.text for t in g2.tokens[s2:e2]))


def judge_gaps(g1: Graph, g2: Graph, r1: range, r2: range, pairs: Sequence[Pair],
               judge: Judge) -> list[tuple[Gap, Verdict]]:
    """Every gap of one sentence pair (:func:`substitution_gaps`) with the judge's verdict,
    the judge asked once for all of them."""
    gaps = substitution_gaps(g1, g2, r1, r2, pairs)
    if not gaps:
        return []
    try:
        verdicts = list(judge([query(g1, g2, r1, gap) for gap in gaps]))
    except SemsimError:
        raise
    except Exception as exc:  # the plugin's code
        raise RecordFault("paraphrase judge", f"raised {type(exc).__name__}: {str(exc)[:200]}") from exc
    if len(verdicts) != len(gaps):
        raise RecordFault("paraphrase judge", f"answered {len(verdicts)} of {len(gaps)} queries")
    # by position: an answer of None is a bad answer too, not "no bad answer found"
    bad = next((k for k, v in enumerate(verdicts) if not isinstance(v, Verdict)
                or not (isinstance(v.paraphrase, bool) or type(v.paraphrase).__name__ == "bool_")), None)
    if bad is not None:
        raise RecordFault("paraphrase judge", f"answered {verdicts[bad]!r:.80}, not a Verdict")
    return list(zip(gaps, verdicts))
