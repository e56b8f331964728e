"""Sufficient statistics, scores and their signatures.

Every metric in semsim reduces a comparison to integer counts (matched and total items
on each side), as sacrebleu does for BLEU. Sentence scores, micro-averaged corpus scores
and bootstrap confidence intervals are all computed from these counts, and every score
carries a signature string of the settings that produced it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .errors import InputError
from .limits import MAX_BOOTSTRAP


def f_score(precision: float, recall: float) -> float:
    return 0.0 if precision == 0 or recall == 0 else 2 * precision * recall / (precision + recall)


@dataclass(frozen=True)
class Counts:
    """Matched and total items on each side of a comparison.

    Side 1 is the first argument (the source, or the "guessed" graph), side 2 the second
    (the correction, or the reference): precision = matched1/total1 and recall =
    matched2/total2, as in ``ucca.evaluation`` and the paper's Figure 1. An empty side
    has precision (recall) 1, so two empty graphs score 1. Items may weigh more than one
    (USim's weighted edges): the counts are then sums of weights.
    """

    matched1: float
    total1: float
    matched2: float
    total2: float

    @property
    def precision(self) -> float:
        return self.matched1 / self.total1 if self.total1 else 1.0

    @property
    def recall(self) -> float:
        return self.matched2 / self.total2 if self.total2 else 1.0

    @property
    def f(self) -> float:
        return f_score(self.precision, self.recall)

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.matched1 + other.matched1, self.total1 + other.total1,
                      self.matched2 + other.matched2, self.total2 + other.total2)

    def as_dict(self) -> dict[str, float | int]:
        return {"precision": self.precision, "recall": self.recall, "f": self.f,
                "matched1": self.matched1, "total1": self.total1,
                "matched2": self.matched2, "total2": self.total2}


@dataclass(frozen=True)
class Score:
    """A sentence (or passage) score: counts per part plus the headline parts.

    For USim the parts are the directions (``s->r``, ``r->s``) and the headline F is their
    average, as in the paper's Table 1; for DAG F-score they are edge types (``primary``,
    ``remote``...). ``float(score)`` is the headline F.
    """

    parts: Mapping[str, Counts]
    signature: str
    headline: tuple[str, ...] = ()
    extra: Mapping[str, object] = field(default_factory=dict, compare=False)
    #: A score fixed by convention rather than computed (e.g. an empty sentence): F,
    #: precision and recall are this value, and the parts hold zero counts, so the
    #: sentence counts in macro averages but adds nothing to micro sums.
    convention: float | None = None

    def _mean(self, attr: str) -> float:
        if self.convention is not None:
            return self.convention
        heads = [self.parts[k] for k in (self.headline or tuple(self.parts))]
        return sum(getattr(c, attr) for c in heads) / len(heads)

    @property
    def f(self) -> float:
        return self._mean("f")

    @property
    def precision(self) -> float:
        return self._mean("precision")

    @property
    def recall(self) -> float:
        return self._mean("recall")

    @classmethod
    def fixed(cls, value: float, parts: Sequence[str], signature: str, headline: tuple[str, ...] = ()) -> Score:
        """A conventional score with zero counts in every part."""
        zero = Counts(0, 0, 0, 0)
        return cls({p: zero for p in parts}, signature, headline, convention=value)

    def __float__(self) -> float:
        return self.f

    def __getitem__(self, part: str) -> Counts:
        return self.parts[part]

    def as_dict(self) -> dict[str, object]:
        return {"f": self.f, "precision": self.precision, "recall": self.recall,
                **{k: c.as_dict() for k, c in self.parts.items()},
                **({"convention": True} if self.convention is not None else {}),
                **dict(self.extra), "signature": self.signature}

    def __str__(self) -> str:
        return f"F={self.f:.4f} P={self.precision:.4f} R={self.recall:.4f} [{self.signature}]"


@dataclass(frozen=True)
class CorpusScore:
    """Corpus-level aggregate of sentence scores.

    ``micro`` sums the counts over sentences before computing F (per part, then the
    headline average; sentences scored by convention add no counts); ``macro`` is the mean
    of the sentence F values (what the paper's tables report). ``ci`` is the bootstrap confidence interval of ``macro``.
    """

    micro: float
    macro: float
    n: int
    signature: str
    parts: Mapping[str, Counts]
    ci: tuple[float, float] | None = None
    ci_micro: tuple[float, float] | None = None
    confidence: float = 0.95
    n_bootstrap: int = 0

    def as_dict(self) -> dict[str, object]:
        d: dict[str, object] = {"micro_f": self.micro, "macro_f": self.macro, "n": self.n,
                                **{k: c.as_dict() for k, c in self.parts.items()}}
        if self.ci is not None:
            d.update(macro_ci=list(self.ci), micro_ci=list(self.ci_micro or ()),
                     confidence=self.confidence, n_bootstrap=self.n_bootstrap)
        d["signature"] = self.signature
        return d

    def __str__(self) -> str:
        ci = f" CI{self.confidence:.0%}=[{self.ci[0]:.4f}, {self.ci[1]:.4f}]" if self.ci else ""
        return f"macro F={self.macro:.4f}{ci} micro F={self.micro:.4f} n={self.n} [{self.signature}]"


def _micro(arr: np.ndarray, heads: Sequence[int]) -> float:
    """Micro F from a (parts, 4) array of summed counts, averaged over the headline parts."""
    fs = []
    for k in heads:
        m1, t1, m2, t2 = arr[k]
        fs.append(f_score(m1 / t1 if t1 else 1.0, m2 / t2 if t2 else 1.0))
    return float(sum(fs) / len(fs))


def percentile_interval(samples: np.ndarray, confidence: float) -> tuple[float, float]:
    """The central ``confidence`` interval of bootstrap samples (the percentile method)."""
    alpha = (1 - confidence) / 2
    lo, hi = np.quantile(samples, [alpha, 1 - alpha])
    return float(lo), float(hi)


#: index cells per block of bootstrap resamples (:func:`corpus_score`): the block's counts take 32 MB
BOOTSTRAP_BLOCK = 1 << 19


def check_bootstrap(n_bootstrap: object, confidence: object = 0.95, name: str = "n_bootstrap") -> None:
    """Refuse a resample count that is not a whole number in 0..:data:`MAX_BOOTSTRAP`, and a
    confidence that is not a number strictly between 0 and 1 (one line: a :class:`SettingsError`)."""
    from .errors import SettingsError
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, (int, np.integer)) \
            or not 0 <= n_bootstrap <= MAX_BOOTSTRAP:
        raise SettingsError(f"{name}={n_bootstrap!r}: expected a whole number from 0 to {MAX_BOOTSTRAP:,}", [name])
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float, np.floating)) \
            or not 0 < confidence < 1:  # nan fails both comparisons
        raise SettingsError(f"confidence={confidence!r}: expected a number between 0 and 1 (e.g. 0.95)",
                            ["confidence"])


def corpus_score(scores: Iterable[Score], n_bootstrap: int = 0, confidence: float = 0.95,
                 seed: int = 12345) -> CorpusScore:
    """Aggregate sentence scores; optional percentile bootstrap over sentences (seeded,
    so the interval is reproducible).

    This aggregates :class:`Score` objects, whatever metric made them. To score graphs,
    call a metric's own ``corpus_score`` (``semsim.USim().corpus_score(sources,
    corrections)``); given anything but scores, this says so instead of failing inside numpy.
    """
    scores = list(scores)
    if not scores:
        raise ValueError("corpus_score needs at least one sentence score")
    bad = next((s for s in scores if not isinstance(s, Score)), None)
    if bad is not None or isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, (int, np.integer)):
        got = f"a {type(bad).__name__} among the scores" if bad is not None else f"n_bootstrap={n_bootstrap!r}"
        raise InputError(f"semsim.kernel.stats.corpus_score(scores, n_bootstrap=...) aggregates sentence Scores, "
                         f"got {got}; "
                         "to score graphs use semsim.USim().corpus_score(sources, corrections)")
    names = list(scores[0].parts)
    headline = scores[0].headline or tuple(names)
    heads = [names.index(h) for h in headline]
    counts = np.array([[[c.matched1, c.total1, c.matched2, c.total2] for c in (s.parts[k] for k in names)]
                       for s in scores], dtype=np.int64)  # (n, parts, 4)
    fs = np.array([s.f for s in scores])
    total = counts.sum(axis=0)
    parts = {k: Counts(*map(int, total[i])) for i, k in enumerate(names)}
    ci = ci_micro = None
    check_bootstrap(n_bootstrap, confidence)
    if n_bootstrap > 0:
        rng = np.random.default_rng(seed)
        # resamples drawn in blocks of rows (the same numbers as one draw of them all), so that
        # memory stays ~BOOTSTRAP_BLOCK index cells whatever the corpus and the resample count
        rows = max(1, BOOTSTRAP_BLOCK // len(scores))
        macro_samples, micro_samples = np.empty(n_bootstrap), np.empty(n_bootstrap)
        for start in range(0, n_bootstrap, rows):
            idx = rng.integers(0, len(scores), size=(min(rows, n_bootstrap - start), len(scores)))
            macro_samples[start:start + len(idx)] = fs[idx].mean(axis=1)
            summed = counts[idx].sum(axis=1)  # (resamples, parts, 4)
            micro_samples[start:start + len(idx)] = [_micro(s, heads) for s in summed]
        ci = percentile_interval(macro_samples, confidence)
        ci_micro = percentile_interval(micro_samples, confidence)
    # the sentence scores' signature, and how they were aggregated when that changes a number
    sig = scores[0].signature + (f"|bootstrap:{n_bootstrap}|conf:{confidence:g}|seed:{seed}" if n_bootstrap else "")
    return CorpusScore(micro=_micro(total, heads), macro=float(fs.mean()), n=len(scores),
                       signature=sig, parts=parts, ci=ci, ci_micro=ci_micro,
                       confidence=confidence, n_bootstrap=n_bootstrap)


def signature(metric: str, settings: Mapping[str, object], version: str) -> str:
    """``usim|variant:paper|...|version:0.1.0``: every setting that can change a number."""
    fields = [metric] + [f"{k}:{_fmt(v)}" for k, v in settings.items()] + [f"version:{version}"]
    return "|".join(fields)


def _fmt(v: object) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)
