"""Meta-evaluation as simplification studies read it: beside the sentence-level correlation,
the **system level** (rank the systems by their mean score over all their outputs, unchanged
ones included, against people's mean; :func:`semsim.kernel.stats.system_correlate`), **subsets**
of the outputs (:data:`SUBSETS`: those that split their source into more sentences, those that
changed it), and the scores a table's releasers published as **anchors**
(:func:`published_measure`: SAMSA, their BERTScore...), each with paired intervals.

Part of :mod:`semsim.app.metaeval`: the study's further views, each a :class:`Level` of
:class:`~semsim.app.metaeval.MeasureResult` rows that the report renders after the
sentence-level table.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...kernel.errors import InputError, SemsimError, SettingsError
from ...kernel.files import shown
from . import Level, MeasureResult, meta_evaluate
from .tables import Judgment, Pair, changed, read_published

if TYPE_CHECKING:
    from .anchors import Measure

#: A sentence end on raw text: ``.``, ``!`` or ``?`` followed by whitespace or the end of the
#: line (the issue's definition, so that counts agree with the published split subsets).
SENTENCE_END = re.compile(r"[.!?](?=\s|$)")


def sentence_ends(text: str) -> int:
    """How many sentence ends a raw text has (:data:`SENTENCE_END`)."""
    return len(SENTENCE_END.findall(text.strip()))


def is_split(j: Judgment) -> bool:
    """Whether the output has more sentence ends than its source: a sentence split."""
    return sentence_ends(j.output) > sentence_ends(j.source)


#: The subsets ``--subset`` names: what each keeps of the judgments, and how a report says it.
SUBSETS: dict[str, tuple[Callable[[Sequence[Judgment]], list[Judgment]], str]] = {
    "changed": (changed, "outputs that differ from their source"),
    "split": (lambda js: [j for j in js if is_split(j)],
              "outputs with more sentence ends (. ! ? before a space or the end) than their source"),
}


class Scored:
    """A measure scored once on every pair a study needs, then read back for any part of them:
    the sentence level, a subset and the system level all see the same numbers, and a slow
    measure (a parser) runs once. Scores are kept by pair, as a measure sees only the pair."""

    def __init__(self, name: str, measure: Measure, pairs: Sequence[Pair],
                 on_first: Callable[[str], None] | None = None) -> None:
        self.name, self.measure, self.on_first = name, measure, on_first
        self.pairs = list(dict.fromkeys(pairs))
        self.scores: dict[Pair, float] | None = None

    def __call__(self, pairs: Sequence[Pair]) -> list[float]:
        if self.scores is None:
            if self.on_first:
                self.on_first(self.name)
            got = [float(s) for s in self.measure(self.pairs)]
            if len(got) != len(self.pairs):
                raise SemsimError(f"measure {self.name} gave {len(got)} scores for {len(self.pairs)} pairs")
            self.scores = dict(zip(self.pairs, got))
        missing = next((p for p in pairs if p not in self.scores), None)
        if missing is not None:  # a caller's bug: the study names every pair it will ask for
            raise SemsimError(f"measure {self.name} was not scored on {missing!r}")
        return [self.scores[p] for p in pairs]

    @property
    def signature(self) -> str:
        return str(getattr(self.measure, "signature", ""))


def subset_levels(kept: Sequence[Judgment], measures: Mapping[str, Measure], subsets: Sequence[str],
                  n_bootstrap: int, confidence: float, seed: int, versus: str | None) -> list[Level]:
    """The sentence-level study on each subset of the kept judgments (:data:`SUBSETS`), its
    bootstrap resampling the subset's sources and its differences paired as the main one's."""
    levels = []
    for name in subsets:
        if name not in SUBSETS:
            raise SettingsError(f"unknown subset {name!r}: choose from {', '.join(SUBSETS)}")
        keep, about = SUBSETS[name]
        chosen = keep(kept)
        if not chosen:
            levels.append(Level(f"subset {name}", about, 0, 0, []))
            continue
        study = meta_evaluate(chosen, measures, n_bootstrap, confidence, seed, versus=versus)
        levels.append(Level(f"subset {name}", about, len(chosen), study.sources, study.results))
    return levels


def system_level(judgments: Sequence[Judgment], measures: Mapping[str, Measure], n_bootstrap: int,
                 confidence: float, seed: int, versus: str | None) -> Level:
    """Each measure's system-level correlation with people (each system's mean over *all* its
    outputs, unchanged ones included, as a study ranks systems), the bootstrap resampling
    source ids (their text where the table has none), with differences from ``versus``
    on the same resamples (:func:`semsim.kernel.stats.compare_system_correlations`)."""
    from ...kernel.stats import compare_system_correlations, system_correlate
    nameless = next((j for j in judgments if not j.system), None)
    if nameless is not None:
        raise SemsimError(f"line {nameless.row}: no system named: the system level needs every output's system")
    pairs = [(j.source, j.output) for j in judgments]
    human = [j.human for j in judgments]
    systems = [j.system for j in judgments]
    groups = [j.id or j.source for j in judgments]
    scored = {}
    for name, measure in measures.items():
        scores = [float(s) for s in measure(pairs)]
        bad = next((i for i, s in enumerate(scores) if not math.isfinite(s)), None)
        if bad is not None:
            raise SemsimError(f"measure {name} gave {scores[bad]} for row {judgments[bad].row}")
        scored[name] = scores
    results = []
    for name, scores in scored.items():
        system = system_correlate(scores, human, systems, groups, n_bootstrap, confidence, seed)
        differences = {} if versus is None or name == versus else compare_system_correlations(
            scores, scored[versus], human, systems, groups, n_bootstrap, confidence, seed)
        results.append(MeasureResult(name, system.scores, system.correlations,
                                     str(getattr(measures[name], "signature", "")), differences))
    about = "each system's mean over all its outputs (unchanged ones included) against people's mean"
    return Level("system", about, len(judgments), len(set(groups)), results)


# -- published scores -----------------------------------------------------------------------------
_PUBLISHED = re.compile(r"published:(?P<column>[^@\s=,]+)(?:@(?P<set>[^\s=,]+))?")


def published_spec(spec: str) -> tuple[str, str | None] | None:
    """``published:COLUMN`` or ``published:COLUMN@TEST_SET`` as ``(column, test set)``; None
    for any other ``--measure`` (``published:leaves=2`` is USim settings, named ``published``)."""
    m = _PUBLISHED.fullmatch(spec)
    return (m["column"], m["set"]) if m else None


def published_measure(path: str, column: str, test_set: str | None, judgments: Sequence[Judgment]) -> Measure:
    """The scores a table's releasers published for each output (:func:`read_published`: rows of
    one output that disagree are refused unless ``test_set`` picks one), as a measure, joined to
    the judgments on their id and system; an output the file lacks is refused, naming its line."""
    values = read_published(path, column, test_set)
    where = shown(path)
    by_pair: dict[Pair, tuple[float, int]] = {}
    for j in judgments:
        key = (j.id.strip(), j.system.strip())
        if key not in values:
            raise InputError(f"no {column} for sent_id {key[0] or '?'}, sys_name {key[1] or '?'} "
                             f"(the table's line {j.row})", where)
        value = values[key][0]
        pair = (j.source, j.output)
        if pair in by_pair and by_pair[pair][0] != value:
            raise InputError(f"{column} scores the same pair {by_pair[pair][0]} (table line {by_pair[pair][1]}) and "
                             f"{value} (table line {j.row})", where)
        by_pair.setdefault(pair, (value, j.row))
    return Published(column if test_set is None else f"{column}@{test_set}", where,
                     {pair: v for pair, (v, _) in by_pair.items()})


@dataclass(frozen=True)
class Published:
    """A column of published scores, looked up by pair (:func:`published_measure`)."""

    column: str
    file: str
    scores: Mapping[Pair, float]

    def __call__(self, pairs: Sequence[Pair]) -> list[float]:
        missing = next((p for p in pairs if p not in self.scores), None)
        if missing is not None:
            raise SemsimError(f"{self.file}: no {self.column} for the pair {missing[0][:40]!r} -> {missing[1][:40]!r}")
        return [self.scores[p] for p in pairs]

    @property
    def signature(self) -> str:
        return f"published|column:{self.column}|file:{self.file.rsplit('/', 1)[-1]}"
