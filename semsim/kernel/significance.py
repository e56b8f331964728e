"""Is system B's mean score really different from system A's? Paired tests over sentences.

Two systems scored on the same sentences give paired per-sentence scores; the question is
whether the difference of their means could come from which sentences happened to be in
the test set. Two standard answers, both as sacrebleu offers them for BLEU:

``ar`` — paired approximate randomization (Riezler & Maxwell 2005; Noreen 1989): under
    the null hypothesis the two outputs of a sentence are exchangeable, so each trial
    swaps them at random (flips the sign of the sentence's difference) and counts how often
    the shuffled mean difference is at least as extreme as the observed one.
``bs`` — paired bootstrap resampling (Koehn 2004), in the form that is a real test
    (Efron & Tibshirani 1993, §16.4): resample sentences with replacement, centre the
    resampled mean differences on the observed one, count how often they are as extreme.

The bootstrap is the less exact of the two on few sentences (its resamples hold fewer
distinct values than the data, so it understates p-values: with one sentence every resample
equals the observed difference); approximate randomization is the default.

Both are two-sided, with the add-one estimate ``(count + 1) / (trials + 1)`` so that a
p-value is never 0. The random draws come from one seeded generator and are shared by all
pairs of systems, so the whole table is reproducible and its tests are coherent. With many
systems, many pairs are tested at once: Benjamini–Hochberg q-values
(``scipy.stats.false_discovery_control``) are reported beside the raw p-values.

The tested statistic is the mean of sentence scores (the paper's figure, "macro" F).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from itertools import combinations

import numpy as np

from .stats import resample, resample_counts

METHODS = ("ar", "bs")


@dataclass(frozen=True)
class PairedTest:
    """The test of system ``b`` against system ``a`` (``delta`` = mean(b) - mean(a))."""

    a: str
    b: str
    n: int
    delta: float
    p: float
    q: float
    method: str
    trials: int

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


#: Floats of random draws held at once (80 MB): memory does not grow with ``trials`` or sentences.
CHUNK_FLOATS = 10_000_000


def _draws(rng: np.random.Generator, method: str, trials: int, n: int) -> np.ndarray:
    """A (trials, n) matrix turning per-sentence differences into resampled mean differences:
    random signs (``ar``) or bootstrap resample counts (``bs``), divided by n."""
    if method == "ar":
        return rng.choice(np.array([-1.0, 1.0]), size=(trials, n)) / n
    return resample_counts(resample(rng, trials, n), n) / n


def p_values(diffs: np.ndarray, method: str = "ar", trials: int = 10000, seed: int = 12345) -> np.ndarray:
    """Two-sided p-values of the mean of each column of ``diffs`` (sentences x comparisons),
    every comparison under the same random draws."""
    if method not in METHODS:
        raise ValueError(f"unknown test {method!r}; choose from {', '.join(METHODS)}")
    observed = diffs.mean(axis=0)
    rng = np.random.default_rng(seed)
    hits = np.zeros(diffs.shape[1], dtype=np.int64)
    chunk = max(1, CHUNK_FLOATS // len(diffs))
    for start in range(0, trials, chunk):
        resampled = _draws(rng, method, min(chunk, trials - start), len(diffs)) @ diffs
        if method == "bs":  # centred: the bootstrap distribution of the statistic under the null
            resampled -= observed
        # a tolerance so that float noise in equal sums does not decide ties
        hits += np.count_nonzero(np.abs(resampled) >= np.abs(observed) - 1e-12, axis=0)
    return (hits + 1) / (trials + 1)


def paired_tests(systems: Mapping[str, Sequence[float]], method: str = "ar", trials: int = 10000,
                 seed: int = 12345) -> list[PairedTest]:
    """Every pair of systems (in the mapping's order), tested on their per-sentence scores.

    Args:
        systems: per system, its sentence scores, all over the same sentences in the same order.
        method: ``ar`` (approximate randomization) or ``bs`` (paired bootstrap).
        trials: random trials (or bootstrap resamples) per test.
        seed: seed of the one generator whose draws all pairs share.
    """
    from .stats import check_bootstrap
    check_bootstrap(trials, name="trials")
    if trials < 1:
        raise ValueError("paired tests need at least one trial")
    names = list(systems)
    scores = {k: np.asarray(v, dtype=np.float64) for k, v in systems.items()}
    lengths = {len(v) for v in scores.values()}
    if len(lengths) > 1:
        raise ValueError("paired tests need every system scored on the same sentences "
                         f"(got {', '.join(f'{k}: {len(v)}' for k, v in scores.items())})")
    if len(names) < 2:
        return []
    n = lengths.pop()
    if n == 0:
        raise ValueError("paired tests need at least one sentence")
    pairs = list(combinations(names, 2))
    diffs = np.column_stack([scores[b] - scores[a] for a, b in pairs])
    ps = p_values(diffs, method, trials, seed)
    from scipy.stats import false_discovery_control
    qs = false_discovery_control(ps, method="bh")
    return [PairedTest(a, b, n, float(diffs[:, k].mean()), float(ps[k]), float(qs[k]), method, trials)
            for k, (a, b) in enumerate(pairs)]
