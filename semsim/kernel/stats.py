"""Sufficient statistics, scores and their signatures.

Every metric in semsim reduces a comparison to integer counts (matched and total items
on each side), as sacrebleu does for BLEU. Sentence scores, micro-averaged corpus scores
and bootstrap confidence intervals are all computed from these counts, and every score
carries the :class:`~semsim.kernel.signature.Signature` of the settings that produced it
(:func:`semsim.kernel.signature.signature`).

The statistics every study of scores shares live here too, written once: the bootstrap's
draws (:func:`resample`, :func:`bootstrap`, :func:`percentile_interval`; the paired tests of
:mod:`semsim.kernel.significance`, the sensitivity and meta-evaluation intervals draw theirs from
them) and correlations with people or between measures (:func:`correlation`, scipy's, and
:func:`correlate`, with intervals that resample groups).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import InputError, SemsimError
from .limits import MAX_BOOTSTRAP
from .signature import Signature


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
    signature: Signature
    headline: tuple[str, ...] = ()
    extra: Mapping[str, object] = field(default_factory=dict, compare=False)
    #: A score fixed by convention rather than computed (e.g. an empty sentence): F,
    #: precision and recall are this value, and the parts hold zero counts, so the
    #: sentence counts in macro averages but adds nothing to micro sums.
    convention: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.signature, Signature):  # a plugin's measure signs with signature.signature
            raise TypeError(f"a Score's signature is a semsim.kernel.signature.Signature (semsim.kernel.signature."
                            f"signature(name, settings, scheme) makes one), not {type(self.signature).__name__}")

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
    def fixed(cls, value: float, parts: Sequence[str], signature: Signature, headline: tuple[str, ...] = ()) -> Score:
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
                **dict(self.extra), "signature": self.signature.format()}

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
    signature: Signature
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
        d["signature"] = self.signature.format()
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


#: What seeds a bootstrap's generator: an integer, or integers (``numpy.random.default_rng``
#: mixes them), e.g. ``[seed, kind]`` so that one kind's interval does not depend on the others.
Seed = int | Sequence[int]


def resample(rng: np.random.Generator, resamples: int, n: int) -> np.ndarray:
    """``resamples`` bootstrap resamples of ``n`` items, drawn with replacement: a
    ``(resamples, n)`` array of item indices, ``rng.integers(0, n, (resamples, n))``.

    The one place semsim draws a bootstrap resample, so that every interval and test takes
    the same draws from the same generator in the same order: a generator's draws split over
    several calls are the numbers of one call, so drawing in blocks changes nothing."""
    return rng.integers(0, n, size=(resamples, n))


def resample_counts(indices: np.ndarray, n: int) -> np.ndarray:
    """How many times each of ``n`` items is in each resample of ``indices`` (a :func:`resample`):
    a ``(resamples, n)`` float array, for statistics computed as weighted ones."""
    counts = np.zeros((len(indices), n))
    np.add.at(counts, (np.arange(len(indices))[:, None], indices), 1.0)
    return counts


def bootstrap(statistic: Callable[[np.ndarray], np.ndarray], n: int, n_bootstrap: int, seed: Seed,
              block: int | None = None) -> np.ndarray:
    """``statistic`` on ``n_bootstrap`` resamples of ``n`` items drawn from
    ``numpy.random.default_rng(seed)`` (:func:`resample`), in order.

    ``statistic`` takes a block of resamples, a ``(rows, n)`` index array, and gives one
    value (or one row of values) per resample; the blocks' results are stacked. ``block``
    bounds the rows drawn at once (memory), with the same numbers as one draw of them all.
    """
    rng = np.random.default_rng(seed)
    rows = n_bootstrap if block is None else max(1, block)
    out = [statistic(resample(rng, min(rows, n_bootstrap - start), n)) for start in range(0, n_bootstrap, rows)]
    return np.concatenate(out) if out else np.empty(0)


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


def _summed(rows: Sequence[Sequence[Sequence[float]]], n_parts: int) -> list[list[float]]:
    """Each part's four counts summed over the sentences: exactly (``math.fsum``, correctly
    rounded whatever the order), and as an ``int`` where every count summed is whole, so that
    integer counts print as they always have."""
    out = []
    for k in range(n_parts):
        cells = [[row[k][j] for row in rows] for j in range(4)]
        out.append([int(sum(c)) if all(isinstance(x, (int, np.integer)) for x in c) else math.fsum(c)
                    for c in cells])
    return out


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
    rows = [[[c.matched1, c.total1, c.matched2, c.total2] for c in (s.parts[k] for k in names)] for s in scores]
    # graded settings (capped edge weights, leaves, the meaning preset) give fractional counts:
    # they are summed as floats (an integer dtype truncated them), and whole counts stay ints
    counts = np.array(rows, dtype=np.float64)  # (n, parts, 4)
    fs = np.array([s.f for s in scores])
    total = _summed(rows, len(names))
    parts = {k: Counts(*total[i]) for i, k in enumerate(names)}
    ci = ci_micro = None
    check_bootstrap(n_bootstrap, confidence)
    if n_bootstrap > 0:
        def macro_micro(idx: np.ndarray) -> np.ndarray:
            summed = counts[idx].sum(axis=1)  # (resamples, parts, 4)
            return np.column_stack([fs[idx].mean(axis=1), [_micro(s, heads) for s in summed]])

        # resamples drawn in blocks of rows, so that memory stays ~BOOTSTRAP_BLOCK index cells
        # whatever the corpus and the resample count
        samples = bootstrap(macro_micro, len(scores), n_bootstrap, seed, block=BOOTSTRAP_BLOCK // len(scores))
        ci = percentile_interval(samples[:, 0], confidence)
        ci_micro = percentile_interval(samples[:, 1], confidence)
    # the sentence scores' signature, and how they were aggregated when that changes a number
    sig = scores[0].signature
    if n_bootstrap:
        aggregated = Signature.of(None, {"bootstrap": n_bootstrap, "conf": f"{confidence:g}", "seed": seed})
        sig += aggregated
    return CorpusScore(micro=_micro(np.array(total, dtype=np.float64), heads), macro=float(fs.mean()), n=len(scores),
                       signature=sig, parts=parts, ci=ci, ci_micro=ci_micro,
                       confidence=confidence, n_bootstrap=n_bootstrap)


# -- correlations ---------------------------------------------------------------------------------
#: The correlation coefficients reported, in order (Kendall's is tau-b: ties are common).
CORRELATIONS = ("pearson", "spearman", "kendall")


@dataclass(frozen=True)
class Correlation:
    """A correlation coefficient and its bootstrap interval (``nan`` where undefined: a
    constant column, fewer than two pairs, or no bootstrap asked for)."""

    value: float
    low: float
    high: float

    def as_dict(self) -> dict[str, float | None]:
        """JSON has no NaN: an undefined number is ``null``."""
        return {"value": _finite(self.value), "low": _finite(self.low), "high": _finite(self.high)}


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def correlation(name: str, x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """scipy's coefficient ``name`` (:data:`CORRELATIONS`; Kendall's is tau-b) of ``x`` and
    ``y`` and its two-sided p-value, as scipy gives them (nan for a constant side, with
    scipy's warning): the one place semsim names the functions behind the three words."""
    from scipy import stats
    function = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}[name]
    result = function(x, y)
    return float(result.statistic), float(result.pvalue)


def _coefficient(name: str, x: np.ndarray, y: np.ndarray) -> float:
    """scipy's coefficient (:func:`correlation`), nan where it is undefined, quietly."""
    if len(x) < 2:
        return math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns of a constant input, and returns nan: that is the answer
        return correlation(name, x, y)[0]


def correlate(scores: Sequence[float], human: Sequence[float], groups: Sequence[Any] | None = None,
              n_bootstrap: int = 1000, confidence: float = 0.95, seed: int = 0) -> dict[str, Correlation]:
    """Pearson, Spearman and Kendall (tau-b) correlations of ``scores`` with ``human``
    (scipy's), each with a percentile bootstrap interval.

    The bootstrap resamples ``groups`` (equal values form one group, numbered in order of
    first appearance; None: every pair its own), taking all the pairs of each group drawn:
    several outputs of one source share its difficulty, so resampling pairs would pretend
    they are independent and make the interval too narrow. Resample ``b`` draws the groups
    ``numpy.random.default_rng(seed).integers(0, G, (n_bootstrap, G))[b]``, so the same
    inputs give the same interval; resamples on which a coefficient is undefined (every
    score equal) are left out of its interval.
    """
    x, y = np.asarray(scores, dtype=float), np.asarray(human, dtype=float)
    if x.ndim != 1 or x.shape != y.shape:
        raise SemsimError(f"{len(x)} scores but {len(y)} human scores")
    if groups is not None and len(groups) != len(x):
        raise SemsimError(f"{len(groups)} groups for {len(x)} scores")
    values = {name: _coefficient(name, x, y) for name in CORRELATIONS}
    if n_bootstrap <= 0 or len(x) < 2:
        return {name: Correlation(v, math.nan, math.nan) for name, v in values.items()}
    samples = _resampled(x, y, _group_resamples(len(x), groups, n_bootstrap, seed))
    out = {}
    for name, v in values.items():
        finite = samples[name][np.isfinite(samples[name])]
        low, high = percentile_interval(finite, confidence) if finite.size else (math.nan, math.nan)
        out[name] = Correlation(v, low, high)
    return out


def _group_resamples(n: int, groups: Sequence[Any] | None, n_bootstrap: int, seed: int) -> np.ndarray:
    """How many times each of ``n`` pairs is in each resample of their groups (equal values one
    group, numbered in order of first appearance; None: every pair its own): :func:`correlate`'s
    draws, so that :func:`compare_correlations` resamples exactly as it does."""
    numbers: dict[Any, int] = {}
    group = np.array([numbers.setdefault(g, len(numbers)) for g in (range(n) if groups is None else groups)])
    counts = bootstrap(lambda idx: resample_counts(idx, len(numbers)), len(numbers), n_bootstrap, seed)
    return counts[:, group]


@dataclass(frozen=True)
class Difference:
    """One measure's correlation minus another's on the same pairs, its bootstrap interval,
    and ``above``: the share of resamples on which the first is the higher (``nan`` where
    undefined)."""

    value: float
    low: float
    high: float
    above: float

    def as_dict(self) -> dict[str, float | None]:
        return {"value": _finite(self.value), "low": _finite(self.low), "high": _finite(self.high),
                "above": _finite(self.above)}


def compare_correlations(a: Sequence[float], b: Sequence[float], human: Sequence[float],
                         groups: Sequence[Any] | None = None, n_bootstrap: int = 1000, confidence: float = 0.95,
                         seed: int = 0) -> dict[str, Difference]:
    """Is measure ``a`` closer to the people than measure ``b``? Each coefficient of
    :data:`CORRELATIONS`, ``a``'s minus ``b``'s, with a percentile interval from the same
    resamples of ``groups`` for both (:func:`correlate`'s, for the same seed).

    Two measures scored on the same pairs err together: their intervals side by side overlap
    even where one is the higher on nearly every resample. The paired difference is the
    question a claim "A agrees with people better than B" asks; ``above`` says on what share
    of the resamples it holds. Resamples on which either coefficient is undefined are left out."""
    xa, xb, y = (np.asarray(v, dtype=float) for v in (a, b, human))
    if xa.ndim != 1 or not xa.shape == xb.shape == y.shape:
        raise SemsimError(f"{len(xa)} and {len(xb)} scores for {len(y)} human scores")
    if groups is not None and len(groups) != len(xa):
        raise SemsimError(f"{len(groups)} groups for {len(xa)} scores")
    values = {name: _coefficient(name, xa, y) - _coefficient(name, xb, y) for name in CORRELATIONS}
    if n_bootstrap <= 0 or len(y) < 2:
        return {name: Difference(v, math.nan, math.nan, math.nan) for name, v in values.items()}
    w = _group_resamples(len(y), groups, n_bootstrap, seed)
    sa, sb = _resampled(xa, y, w), _resampled(xb, y, w)
    return _differences(values, sa, sb, confidence)


def _differences(values: Mapping[str, float], sa: Mapping[str, np.ndarray], sb: Mapping[str, np.ndarray],
                 confidence: float) -> dict[str, Difference]:
    """Each coefficient's difference ``values`` with its percentile interval and share above 0,
    from its resamples' values ``sa`` minus ``sb`` (left out where either is undefined)."""
    out = {}
    for name, v in values.items():
        d = sa[name] - sb[name]
        d = d[np.isfinite(d)]
        low, high = percentile_interval(d, confidence) if d.size else (math.nan, math.nan)
        out[name] = Difference(v, low, high, float((d > 0).mean()) if d.size else math.nan)
    return out


#: Above this many pairs, Kendall's resamples are computed one by one (scipy, n log n each)
#: instead of as one product with the n x n sign matrix.
_KENDALL_MATRIX_MAX = 4000


def _resampled(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> dict[str, np.ndarray]:
    """Each coefficient on each resample, a resample given as how many times it holds each
    pair (a row of ``w``): the coefficients of the multiset, computed as weighted ones
    (equal to scipy's on the expanded resample; a test holds them so), since calling scipy
    on every resample costs seconds of overhead per measure."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ux, x_at = np.unique(x, return_inverse=True)
        uy, y_at = np.unique(y, return_inverse=True)
        wx, wy = _by_value(w, x_at, len(ux)), _by_value(w, y_at, len(uy))
        out = {"pearson": _weighted_pearson(np.broadcast_to(x, w.shape), np.broadcast_to(y, w.shape), w),
               "spearman": _weighted_pearson(_weighted_ranks(wx)[:, x_at], _weighted_ranks(wy)[:, y_at], w)}
        n = w.sum(axis=1)
        pairs = n * (n - 1) / 2
        tied_x, tied_y = (wx * (wx - 1) / 2).sum(axis=1), (wy * (wy - 1) / 2).sum(axis=1)
        if len(x) <= _KENDALL_MATRIX_MAX:
            signs = np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])
            net = ((w @ signs) * w).sum(axis=1) / 2  # concordant minus discordant pairs; a pair's copies tie
        else:
            net = np.array([_kendall_net(x, y, row) for row in w])
        out["kendall"] = net / np.sqrt((pairs - tied_x) * (pairs - tied_y))
    return {k: np.where(np.isfinite(v), np.clip(v, -1.0, 1.0), np.nan) for k, v in out.items()}


def _by_value(w: np.ndarray, at: np.ndarray, size: int) -> np.ndarray:
    """The weight of each distinct value (in sorted order) in each resample."""
    out = np.zeros((w.shape[0], size))
    np.add.at(out.T, at, w.T)
    return out


def _weighted_ranks(weights: np.ndarray) -> np.ndarray:
    """The average rank of each distinct value in each resample (scipy's ``rankdata``)."""
    return np.cumsum(weights, axis=1) - weights + (weights + 1) / 2


def _weighted_pearson(a: np.ndarray, b: np.ndarray, w: np.ndarray) -> np.ndarray:
    n = w.sum(axis=1, keepdims=True)
    da = a - (w * a).sum(axis=1, keepdims=True) / n
    db = b - (w * b).sum(axis=1, keepdims=True) / n
    return (w * da * db).sum(axis=1) / np.sqrt((w * da * da).sum(axis=1) * (w * db * db).sum(axis=1))


def _kendall_net(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """Concordant minus discordant pairs of one large resample, from scipy's tau-b."""
    idx = np.repeat(np.arange(len(x)), w.astype(int))
    tau = _coefficient("kendall", x[idx], y[idx])
    n = len(idx)
    _, cx = np.unique(x[idx], return_counts=True)
    _, cy = np.unique(y[idx], return_counts=True)
    pairs = n * (n - 1) / 2
    return float(tau * np.sqrt((pairs - (cx * (cx - 1) / 2).sum()) * (pairs - (cy * (cy - 1) / 2).sum())))


# -- system level ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class SystemCorrelation:
    """A system-level meta-evaluation of one measure: ``systems`` in order of first
    appearance, each one's mean score (``scores``) and people's mean (``human``) over all its
    outputs, and the correlations of the two columns (:data:`CORRELATIONS`), with intervals."""

    systems: list[str]
    scores: list[float]
    human: list[float]
    correlations: dict[str, Correlation]


def _system_means(x: np.ndarray, system: np.ndarray, k: int, w: np.ndarray) -> np.ndarray:
    """Each of ``k`` systems' weighted mean of ``x`` in each resample (a row of ``w``: how
    many times it holds each output); ``nan`` for a system none of whose outputs was drawn."""
    onehot = np.zeros((len(x), k))
    onehot[np.arange(len(x)), system] = 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        return (w @ (onehot * x[:, None])) / (w @ onehot)


def _system_coefficients(mx: np.ndarray, my: np.ndarray) -> dict[str, np.ndarray]:
    """Each coefficient of each row's systems: computed for all rows at once where every
    system has a mean (scipy's ranks; Kendall's tau-b from the pairs' signs, as scipy counts
    them), and by scipy (:func:`_coefficient`) on the systems present in a row that lacks some."""
    from scipy.stats import rankdata
    full = np.isfinite(mx).all(axis=1) & np.isfinite(my).all(axis=1)
    out = {name: np.full(len(mx), math.nan) for name in CORRELATIONS}
    a, h = mx[full], my[full]
    if len(a):
        with np.errstate(divide="ignore", invalid="ignore"):
            ones = np.ones_like(a)
            out["pearson"][full] = _weighted_pearson(a, h, ones)
            out["spearman"][full] = _weighted_pearson(rankdata(a, axis=1), rankdata(h, axis=1), ones)
            sa, sh = np.sign(a[:, :, None] - a[:, None, :]), np.sign(h[:, :, None] - h[:, None, :])
            k = a.shape[1]
            pairs = k * (k - 1)  # ordered pairs: every count below is doubled alike
            untied_a, untied_h = pairs - ((sa == 0).sum(axis=(1, 2)) - k), pairs - ((sh == 0).sum(axis=(1, 2)) - k)
            out["kendall"][full] = (sa * sh).sum(axis=(1, 2)) / np.sqrt(untied_a * untied_h)
        for name in CORRELATIONS:
            out[name] = np.where(np.isfinite(out[name]), np.clip(out[name], -1.0, 1.0), np.nan)
    for b in np.flatnonzero(~full):
        present = np.isfinite(mx[b]) & np.isfinite(my[b])
        for name in CORRELATIONS:
            out[name][b] = _coefficient(name, mx[b][present], my[b][present])
    return out


def _system_setup(scores: Sequence[float], human: Sequence[float], systems: Sequence[Any],
                  groups: Sequence[Any] | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[Any]]:
    x, y = np.asarray(scores, dtype=float), np.asarray(human, dtype=float)
    if x.ndim != 1 or x.shape != y.shape or len(systems) != len(x):
        raise SemsimError(f"{len(x)} scores, {len(y)} human scores and {len(systems)} systems")
    if groups is not None and len(groups) != len(x):
        raise SemsimError(f"{len(groups)} groups for {len(x)} scores")
    names: dict[Any, int] = {}
    system = np.array([names.setdefault(s, len(names)) for s in systems], dtype=int)
    return x, y, system, list(names)


def system_correlate(scores: Sequence[float], human: Sequence[float], systems: Sequence[Any],
                     groups: Sequence[Any] | None = None, n_bootstrap: int = 1000, confidence: float = 0.95,
                     seed: int = 0) -> SystemCorrelation:
    """How well a measure ranks systems as people do: each system's mean score over all its
    outputs against people's mean over the same outputs, correlated across systems.

    The interval resamples ``groups`` (sources) as :func:`correlate` does, with the same
    draws for the same seed, and recomputes every system's two means on each resample: a
    system's rank depends on which sources it was judged on, and that is the uncertainty a
    handful of sources leaves. Resampling systems instead would ask another question (other
    systems), which a fixed set of compared systems does not need."""
    x, y, system, names = _system_setup(scores, human, systems, groups)
    k = len(names)
    ones = np.ones((1, len(x)))
    mx, my = _system_means(x, system, k, ones)[0], _system_means(y, system, k, ones)[0]
    values = {name: _coefficient(name, mx, my) for name in CORRELATIONS}
    if n_bootstrap <= 0 or k < 2:
        correlations = {name: Correlation(v, math.nan, math.nan) for name, v in values.items()}
    else:
        w = _group_resamples(len(x), groups, n_bootstrap, seed)
        samples = _system_coefficients(_system_means(x, system, k, w), _system_means(y, system, k, w))
        correlations = {}
        for name, v in values.items():
            finite = samples[name][np.isfinite(samples[name])]
            low, high = percentile_interval(finite, confidence) if finite.size else (math.nan, math.nan)
            correlations[name] = Correlation(v, low, high)
    return SystemCorrelation([str(s) for s in names], mx.tolist(), my.tolist(), correlations)


def compare_system_correlations(a: Sequence[float], b: Sequence[float], human: Sequence[float],
                                systems: Sequence[Any], groups: Sequence[Any] | None = None,
                                n_bootstrap: int = 1000, confidence: float = 0.95,
                                seed: int = 0) -> dict[str, Difference]:
    """:func:`compare_correlations` at the system level: measure ``a``'s system-level
    coefficients (:func:`system_correlate`) minus ``b``'s, both on the same resamples of the
    sources, with the share of resamples on which ``a`` is the higher."""
    xa, y, system, names = _system_setup(a, human, systems, groups)
    xb = np.asarray(b, dtype=float)
    if xb.shape != xa.shape:
        raise SemsimError(f"{len(xa)} and {len(xb)} scores for {len(y)} human scores")
    k = len(names)
    ones = np.ones((1, len(y)))
    ma, mb, my = (_system_means(v, system, k, ones)[0] for v in (xa, xb, y))
    values = {name: _coefficient(name, ma, my) - _coefficient(name, mb, my) for name in CORRELATIONS}
    if n_bootstrap <= 0 or k < 2:
        return {name: Difference(v, math.nan, math.nan, math.nan) for name, v in values.items()}
    w = _group_resamples(len(y), groups, n_bootstrap, seed)
    my_w = _system_means(y, system, k, w)
    sa = _system_coefficients(_system_means(xa, system, k, w), my_w)
    sb = _system_coefficients(_system_means(xb, system, k, w), my_w)
    return _differences(values, sa, sb, confidence)
