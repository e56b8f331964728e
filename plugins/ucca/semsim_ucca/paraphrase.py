"""An English paraphrase judge for ``--tokens paraphrase`` (:mod:`semsim.kernel.align.paraphrase`).

The question, for each substitution gap: does the correction's ``be able`` say what the
source's ``know how`` said there? The judge puts the correction's words in place of the
source's inside a window of :data:`WINDOW` tokens each side and compares the two windows
with the sentence encoder all-MiniLM-L6-v2 (mean-pooled, unit-length vectors, as
sentence-transformers uses it: it was trained to put paraphrases close). The gap is a
paraphrase when the cosine reaches :data:`THRESHOLD`. A window rather than the whole
sentence, since in a long sentence any one word changes the sentence's vector little.

Sentence encoders are known to be blind to what changes the truth of a sentence without
changing its topic: a negation, a number, who is meant. So before the encoder is asked,
a gap is refused by rule where either side holds a negation word, a number (digits or a
number word) or a name (a capitalised word not opening the sentence): a word the other
sentence repeats is aligned already, so one left in a gap was changed. A gap is refused
too where the two sides' personal pronouns differ in person or number. ``they`` → ``you``,
``five`` → ``eight``, ``is`` → ``not`` stay unaligned whatever the encoder says.

The window, the threshold and the rules were chosen on JFLEG dev lines 101-300 of the
faithfulness benchmark (``docs/faithfulness.md``), and checked on lines 301-754. This module
is in the UCCA plugin because the plugin already pins MiniLM (:mod:`.span.inference.encoder`); the
judge knows nothing of UCCA and serves any representation whose tokens are English words.

Every text is encoded alone, on one thread, so that a verdict near the threshold cannot
depend on what else was in the batch or on how many threads torch had.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from semsim.kernel.align.paraphrase import Query, Verdict
from semsim.kernel.records import ParaphraseJudge

ENCODER = "all-MiniLM-L6-v2"
#: tokens of context each side of the gap
WINDOW = 3
#: the least cosine of the two windows for a paraphrase
THRESHOLD = 0.90
#: encoded windows kept per process
CACHE_SIZE = 100_000

NEGATIONS = frozenset(("not", "n't", "no", "never", "nothing", "nobody", "none", "neither", "nor", "without",
                       "cannot", "nowhere"))
NUMBER_WORDS = frozenset((
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty", "forty",
    "fifty", "sixty", "seventy", "eighty", "ninety", "hundred", "thousand", "million", "billion", "half", "once",
    "twice", "dozen", "first", "second", "third", "fourth", "fifth"))
PRONOUNS = {w: person for person, words in {
    "1s": "i me my mine myself", "2": "you your yours yourself yourselves", "3m": "he him his himself",
    "3f": "she her hers herself", "3n": "it its itself", "1p": "we us our ours ourselves",
    "3p": "they them their theirs themselves"}.items() for w in words.split()}
_DIGIT = re.compile(r"\d")


def _refused(query: Query) -> str:
    """Why the rules refuse the gap before the encoder is asked; empty if they do not."""
    old = [(w, query.start + k == 0) for k, w in enumerate(query.sentence[query.start:query.stop])]
    new = [(w, query.start == 0 and k == 0) for k, w in enumerate(query.replacement)]
    for (what, test) in (("a negation", lambda w, first: w.lower() in NEGATIONS),
                         ("a number", lambda w, first: bool(_DIGIT.search(w)) or w.lower() in NUMBER_WORDS),
                         ("a name", lambda w, first: not first and w[:1].isupper() and w != "I")):
        if any(test(w, first) for w, first in old + new):
            return f"not compared: {what} in the gap"
    persons = [sorted(PRONOUNS[w.lower()] for w, _ in side if w.lower() in PRONOUNS) for side in (old, new)]
    if persons[0] != persons[1]:
        return "not compared: the gap's pronouns differ in person or number"
    return ""


def windows(query: Query, width: int = WINDOW) -> tuple[str, str]:
    """The source's window around the gap, and the same window with the correction's words."""
    lo, hi = max(0, query.start - width), min(len(query.sentence), query.stop + width)
    before, after = query.sentence[lo:query.start], query.sentence[query.stop:hi]
    return " ".join(query.sentence[lo:hi]), " ".join((*before, *query.replacement, *after))


class MiniLMJudge:
    """The judge: rules first, then the encoder's cosine of the two windows."""

    def __init__(self) -> None:
        from .span.inference.encoder import resolve
        self.spec = resolve(ENCODER)
        self._cache: dict[str, np.ndarray] = {}

    def encode(self, text: str) -> np.ndarray:
        """The unit-length mean-pooled vector of ``text``, encoded alone on one thread."""
        found = self._cache.get(text)
        if found is not None:
            return found
        from .vectors import minilm, one_thread
        _, tokenizer, model = minilm()
        with one_thread():
            batch = tokenizer([text], return_tensors="pt", truncation=True, max_length=256)
            states = model(**batch).last_hidden_state[0].double()
        vector = states.mean(dim=0).numpy()
        vector /= np.linalg.norm(vector) or 1.0
        if len(self._cache) >= CACHE_SIZE:
            self._cache.clear()
        self._cache[text] = vector
        return vector

    def clear(self) -> None:
        """Forget the encoded windows (a benchmark times a cold judge so)."""
        self._cache.clear()

    def similarity(self, query: Query) -> float:
        """Cosine of the source's window and the window with the correction's words."""
        before, after = windows(query)
        return round(float(self.encode(before) @ self.encode(after)), 6)

    def __call__(self, queries: Sequence[Query]) -> list[Verdict]:
        out = []
        for q in queries:
            refused = _refused(q)
            if refused:
                out.append(Verdict(False, None, refused))
                continue
            sim = self.similarity(q)
            ok = sim >= THRESHOLD
            out.append(Verdict(ok, sim, f"window similarity {sim:.3f} {'≥' if ok else '<'} {THRESHOLD:.2f}"))
        return out


_judge: MiniLMJudge | None = None


def load() -> MiniLMJudge:
    """The process's judge (its model loads on the first query)."""
    global _judge
    if _judge is None:
        _judge = MiniLMJudge()
    return _judge


def identity() -> str:
    """``minilm-l6@HASH12,w3,t0.90``: the encoder by content, the window and the threshold."""
    return f"minilm-l6@{load().spec.sha256[:12]},w{WINDOW},t{THRESHOLD:.2f}"


JUDGE = ParaphraseJudge(
    "minilm", load, identity, "en",
    f"English: a gap's words against the source's in a window of {WINDOW} tokens, all-MiniLM-L6-v2 cosine >= "
    f"{THRESHOLD:.2f}; never a gap holding a negation, a number or a name, or whose pronouns differ")
