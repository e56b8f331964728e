"""Sensitivity of USim to error types: the MAEGE-style study of §4.4 of the USim paper.

Choshen & Abend (NAACL 2018, §4.4): "For each NUCLE sentence and set of edits [...], we
sample an order in which edits are applied. We select the source randomly to be one of the
resulting sentences. We then compare the difference in USim before and after applying each
edit, and average these differences by the applied edit type" (Δ_t; supplementary Table 2
lists Δ_t and the number of edits per type).

Our reading, step by step (``docs/sensitivity.md`` discusses it):

1. A *chain* is one sentence with one annotator's edits (annotators are never mixed).
   Its edits are put in a random order π, and applied one at a time: the chain's versions
   are x_0 (the learner sentence), x_1 = x_0 + e_π(1), x_2 = x_0 + e_π(1) + e_π(2), ...,
   x_n (the full gold correction).
2. The "source" that USim compares against is drawn uniformly from the resulting sentences
   x_0..x_n (``anchor="random"``, the paper's reading). ``anchor="original"`` fixes it to
   x_0, the learner sentence, for readers who want the usual USim(source, correction) use.
3. The edit e_π(k) scores Δ = USim(a, x_k) − USim(a, x_{k−1}), with a the chain's anchor:
   a difference of two USim scores against the same source, not USim between the two
   consecutive versions (that would be a similarity in [0, 1], while the paper's Table 2
   has negative averages).
4. Δ_t is the mean of Δ over all edits of type t, over all chains; we add its standard
   error and a percentile bootstrap interval over those edits.

Randomness comes from ``numpy.random.default_rng([seed, sentence index, annotator])``, one
generator per chain, so a chain's order and anchor depend neither on the hash seed nor on
which other sentences or annotators are in the run.
"""

from __future__ import annotations

import functools
import math
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ...kernel.graph import Graph
from ...kernel.stats import bootstrap, percentile_interval
from ..parsing import graph_key
from .m2 import Conflict, Edit, M2Sentence, apply_edits, resolve_overlaps

ANCHORS = ("random", "original")


@dataclass(frozen=True)
class Chain:
    """One sentence corrected by one annotator, edit by edit in the sampled order.

    ``edits`` are in application order; ``versions[k]`` is the text after the first ``k``
    of them (``versions[0]`` the source, ``versions[-1]`` the full correction); ``anchor``
    indexes the version USim compares every version against; ``skipped`` are the
    annotator's edits left out because they overlap an earlier edit.
    """

    sentence: M2Sentence
    annotator: int
    edits: tuple[Edit, ...]
    versions: tuple[str, ...]
    anchor: int
    skipped: tuple[Conflict, ...] = ()


@dataclass(frozen=True)
class EditDelta:
    """The effect of applying one edit: USim against the chain's anchor before and after."""

    sentence: int  # 1-based position of the sentence in the M2 file
    line: int  # line of the edit in the M2 file
    annotator: int
    step: int  # 1-based position of the edit in the sampled order
    n_edits: int
    type: str
    start: int
    end: int
    original: str  # the source tokens the edit replaces
    correction: str
    anchor: int  # which version is the "source": 0 = the learner sentence, n_edits = the full correction
    before: str
    after: str
    usim_before: float
    usim_after: float
    delta: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class TypeSummary:
    """Δ_t for one error type: mean, standard error and bootstrap CI over its edits."""

    type: str
    n: int
    mean: float
    se: float | None
    ci_low: float | None
    ci_high: float | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def chain_rng(seed: int, sentence_index: int, annotator: int) -> np.random.Generator:
    """The chain's own generator: numpy's SeedSequence of the three integers (no hashing of
    Python objects, so runs agree across processes and ``PYTHONHASHSEED`` values)."""
    return np.random.default_rng([seed, sentence_index, annotator])


def build_chains(sentences: Iterable[M2Sentence], annotator: int | None = None, seed: int = 0,
                 anchor: str = "random") -> list[Chain]:
    """The chains of §4.4: per sentence, each selected annotator's edits in a seeded random order.

    ``annotator=None`` takes every annotator of each sentence, each as its own chain. A
    sentence the annotator did not annotate gives no chain; one it annotated with a noop
    only gives a chain of no edits (counted, but contributing nothing to Δ_t).
    """
    if anchor not in ANCHORS:
        raise ValueError(f"unknown anchor {anchor!r}; choose from {', '.join(ANCHORS)}")
    if seed < 0:
        raise ValueError("seed must be non-negative")
    chains = []
    for s in sentences:
        for a in (s.annotators if annotator is None else [annotator] if annotator in s.annotators else []):
            edits, skipped = resolve_overlaps(s.edits_of(a))
            rng = chain_rng(seed, s.index, a)
            order = [edits[i] for i in rng.permutation(len(edits))]
            drawn = int(rng.integers(0, len(edits) + 1))  # drawn in both modes: same order either way
            versions = tuple(" ".join(apply_edits(s.tokens, order[:k])) for k in range(len(order) + 1))
            chains.append(Chain(s, a, tuple(order), versions, drawn if anchor == "random" else 0, tuple(skipped)))
    return chains


def chain_texts(chains: Iterable[Chain]) -> list[str]:
    """Every version of every chain, for parsing (``parse_texts`` parses each distinct one once)."""
    return [v for c in chains for v in c.versions]


def edit_deltas(chains: Iterable[Chain], graphs: dict[str, Graph],
                score: Callable[[Graph, Graph], Any]) -> list[EditDelta]:
    """ΔUSim of every edit of every chain (step 3 of the module docstring).

    ``graphs`` maps normalised texts to parses (as :attr:`semsim.app.parsing.Parses.graphs`
    does); ``score(source_graph, correction_graph)`` returns a number or a Score.
    An empty side is not parsed: as ``semsim score`` does, it scores 1 against another
    empty text and 0 otherwise. Each distinct (anchor, version) pair is scored once.
    """
    memo: dict[tuple[str, str], float] = {}

    def usim(a: str, b: str) -> float:
        key = (graph_key(a), graph_key(b))
        if key not in memo:
            if not key[0] or not key[1]:
                memo[key] = 1.0 if key[0] == key[1] else 0.0
            else:
                memo[key] = float(score(graphs[key[0]], graphs[key[1]]))
        return memo[key]

    out = []
    for c in chains:
        anchor = c.versions[c.anchor]
        for k, e in enumerate(c.edits, 1):
            before, after = usim(anchor, c.versions[k - 1]), usim(anchor, c.versions[k])
            out.append(EditDelta(c.sentence.index + 1, e.line, c.annotator, k, len(c.edits), e.type, e.start, e.end,
                                 " ".join(c.sentence.tokens[e.start:e.end]), e.correction, c.anchor,
                                 c.versions[k - 1], c.versions[k], before, after, after - before))
    return out


def _resampled_means(x: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The mean of each resample (a row of ``idx``) of ``x``."""
    return x[idx].mean(axis=1)


def by_type(deltas: Sequence[EditDelta], n_bootstrap: int = 1000, confidence: float = 0.95,
            seed: int = 0) -> list[TypeSummary]:
    """Δ_t per error type, sorted from the most rewarded to the most penalised (as Table 2).

    The standard error is the sample standard deviation over √n; the interval is a
    percentile bootstrap over the type's edits (each type resampled by its own generator,
    seeded by ``seed`` and the type's name, so a type's interval does not depend on which
    other types occur). Both are None for a type with a single edit. Edits of one sentence
    are treated as independent, as the paper's plain average does.
    """
    values: dict[str, list[float]] = {}
    for d in deltas:
        values.setdefault(d.type, []).append(d.delta)
    out = []
    for t, vs in values.items():
        x = np.array(vs)
        se = lo = hi = None
        if len(x) > 1:
            se = float(x.std(ddof=1) / math.sqrt(len(x)))
            if n_bootstrap > 0:
                means = bootstrap(functools.partial(_resampled_means, x), len(x), n_bootstrap,
                                  [seed, zlib.crc32(t.encode("utf-8"))])
                lo, hi = percentile_interval(means, confidence)
        out.append(TypeSummary(t, len(x), float(x.mean()), se, lo, hi))
    return sorted(out, key=lambda s: (-s.mean, s.type))
