"""Meta-evaluation against people: how well a measure's sentence scores agree with human
judgments of meaning preservation.

A faithfulness measure is only as good as its agreement with people who judged whether an
output kept its source's meaning. This module reads such judgments (:func:`read_judgments`:
TMU-GFM's GEC ratings, ASSET's simplification ratings, or a plain TSV), keeps the outputs
that changed their source (:func:`changed`: an unchanged output is perfectly faithful to
any measure and would inflate every correlation), scores the pairs with any measures
(:class:`USimMeasure` for semsim with any USim settings; :data:`ANCHORS`, the measures a
reader knows: token Levenshtein, chrF, MiniLM cosine, BERTScore), and correlates each with
the people (:func:`correlate`: Pearson, Spearman, Kendall, each with a bootstrap interval
that resamples *sources*, since several outputs of one source are not independent).

By concern: the tables are read in :mod:`semsim.app.metaeval.tables`, the anchors are in
:mod:`semsim.app.metaeval.anchors`, the correlations and their bootstrap are the kernel's
(:mod:`semsim.kernel.stats`); this module holds USim as a measure, the study and its report, and
re-exports the others' public names, so ``semsim.app.metaeval`` offers all of them.

A measure is anything that maps ``(source, output)`` pairs, as the table gives them, to
one float each; a ``signature`` attribute, if it has one, names what computed the numbers.
Each measure tokenizes as it needs: USim through its ``tokenize`` setting, the Levenshtein
anchor likewise, while chrF (whitespace ignored) and the encoders (their own word pieces)
read the text as written.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from ...kernel.errors import InputError, ParseError, SemsimError, SettingsError
from ...kernel.signature import Signature
from ...kernel.stats import CORRELATIONS, Correlation, Difference, compare_correlations, correlate
from ..report import Col, Record, Report, Table, num, render
from .anchors import (
    ANCHOR_MODULES,
    ANCHORS,
    ENCODER,
    BERTScore,
    ChrF,
    Levenshtein,
    Measure,
    MiniLMCosine,
    anchor,
)
from .tables import TABLE_FORMATS, Judgment, Pair, changed, read_judgments

__all__ = ["ANCHORS", "ANCHOR_MODULES", "CORRELATIONS", "ENCODER", "RENDERINGS", "TABLE_FORMATS", "BERTScore",
           "ChrF", "Correlation", "Difference", "Judgment", "Levenshtein", "Measure", "MeasureResult", "MetaEvaluation",
           "MiniLMCosine", "Pair", "USimMeasure", "anchor", "changed", "correlate", "meta_evaluate",
           "read_judgments"]

#: The renderings of :meth:`MetaEvaluation.render`.
RENDERINGS = ("text", "markdown", "tsv", "json")


class USimMeasure:
    """USim with any settings, from text: :class:`semsim.app.metric.USimMetric` built from
    ``config`` (how to parse: ``parser``, ``model``, ``tokenize``, ``cache``...) and
    ``settings`` (USim's own, given as a mapping and passed on as they are, so a setting
    USim gains later works here unchanged; a setting may also override ``config``).
    Unknown or invalid settings are refused when the measure is made, before any parse."""

    def __init__(self, settings: Mapping[str, Any] | None = None, **config: Any) -> None:
        from ..metric import USimMetric
        self.settings = dict(settings or {})
        known = {f.name for f in fields(USimMetric.Config)}
        unknown = sorted(set(self.settings) - known)
        if unknown:
            raise SettingsError(f"unknown USim setting {', '.join(unknown)}: choose from {', '.join(sorted(known))}",
                                unknown)
        self.metric = USimMetric(USimMetric.Config(**{**config, **self.settings}))

    def __call__(self, pairs: Sequence[Pair]) -> list[float]:
        return self.metric.score_sentence([s for s, _ in pairs], [o for _, o in pairs])

    @property
    def signature(self) -> Signature:
        return self.metric.signature()


# -- the meta-evaluation --------------------------------------------------------------------------
@dataclass(frozen=True)
class MeasureResult:
    """One measure's sentence scores and their correlations with the people."""

    name: str
    scores: list[float]
    correlations: dict[str, Correlation]
    signature: str
    #: each coefficient minus the ``versus`` measure's, paired (:func:`compare_correlations`);
    #: empty for that measure itself and when none was named
    differences: dict[str, Difference] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"measure": self.name, "n": len(self.scores),
                **{k: c.as_dict() for k, c in self.correlations.items()}, "signature": self.signature,
                **({"minus_versus": {k: d.as_dict() for k, d in self.differences.items()}}
                   if self.differences else {})}


@dataclass(frozen=True)
class Level:
    """One further view of a meta-evaluation (:mod:`semsim.app.metaeval.levels`): its
    ``name`` (``system``, ``subset split``...), what it correlates (``about``), how many
    outputs and sources it rests on, and a :class:`MeasureResult` per measure (at the system
    level, ``scores`` are the systems' means and ``n`` the number of systems)."""

    name: str
    about: str
    outputs: int
    sources: int
    results: list[MeasureResult]

    def as_dict(self) -> dict[str, Any]:
        return {"level": self.name, "about": self.about, "outputs": self.outputs, "sources": self.sources,
                "measures": [r.as_dict() for r in self.results]}


@dataclass(frozen=True)
class MetaEvaluation:
    """Every measure's correlations on the same judgments, and the per-sentence view."""

    judgments: list[Judgment]
    results: list[MeasureResult]
    n_bootstrap: int
    confidence: float
    seed: int
    #: the measure every other one is compared with, pair by pair (None: none)
    versus: str | None = None
    #: where the judgments came from, for the reports: ``table``, ``read`` (judgments in it),
    #: ``kept`` (which outputs), as a command sets them
    notes: Mapping[str, Any] = field(default_factory=dict)
    #: further views (:mod:`semsim.app.metaeval.levels`): subsets, the system level
    levels: tuple[Level, ...] = ()

    @property
    def sources(self) -> int:
        """Distinct sources: the units the bootstrap resamples."""
        return len({j.source for j in self.judgments})

    def rows(self) -> list[dict[str, Any]]:
        """One record per judgment: the pair, the human score, each measure's score and its
        rank error, rank by the measure minus rank by people (average ranks, 1 = least
        faithful): a large positive error is a pair the measure finds far more faithful than
        people did, a large negative one the reverse; sort by it to read the worst first."""
        from scipy.stats import rankdata
        human = rankdata([j.human for j in self.judgments])
        ranks = {r.name: rankdata(r.scores) - human for r in self.results}
        return [{"row": j.row, "id": j.id, "system": j.system, "source": j.source, "output": j.output, "human": j.human,
                 "ratings": list(j.ratings), "scores": {r.name: r.scores[i] for r in self.results},
                 "rank_errors": {name: float(e[i]) for name, e in ranks.items()}}
                for i, j in enumerate(self.judgments)]

    def as_dict(self) -> dict[str, Any]:
        return {**self.notes, "n": len(self.judgments), "sources": self.sources, "bootstrap": self.n_bootstrap,
                "confidence": self.confidence, "seed": self.seed, "resampled": "sources",
                **({"versus": self.versus} if self.versus else {}),
                "measures": [r.as_dict() for r in self.results],
                **({"levels": [level.as_dict() for level in self.levels]} if self.levels else {})}

    def render(self, fmt: str) -> str:
        """The table of correlations as text, Markdown, TSV or JSON (:data:`RENDERINGS`); with
        further levels, a TSV row per measure per level, named in a first column ``level``."""
        rows = [{**({"level": level} if self.levels else {}), "measure": r.name, "n": len(r.scores),
                 **{f"{c}{s}": float(getattr(r.correlations[c], a)) for c in CORRELATIONS
                    for s, a in (("", "value"), ("_low", "low"), ("_high", "high"))},
                 **({f"{c}_minus_versus{s}": float(getattr(r.differences[c], a)) if r.differences else math.nan
                     for c in CORRELATIONS for s, a in (("", "value"), ("_low", "low"), ("_high", "high"),
                                                        ("_above", "above"))} if self.versus else {}),
                 "signature": r.signature}
                for level, results in (("sentence", self.results),
                                       *((lv.name, lv.results) for lv in self.levels)) for r in results]
        return render(Report(rows, document=lambda _: self.as_dict(), parts=self._parts, formats=RENDERINGS), fmt)

    def _parts(self, _rows: list[Record], markdown: bool) -> list[Table | str]:
        ci = f"{num(self.confidence, 0, percent=True)} CI" if self.n_bootstrap else "no CI"
        cols = [Col("measure", "<"), Col("n", md="---:"), *(Col(f"{c.capitalize()} [{ci}]", md=":---:")
                                                            for c in CORRELATIONS)]
        rows = [[r.name, str(len(r.scores)), *(_cell(r.correlations[c]) for c in CORRELATIONS)] for r in self.results]
        out: list[Table | str] = [Table(cols, rows)]
        table = self.notes.get("table")
        read = f"{table}: {len(self.judgments)} of {self.notes.get('read', '?')} judgments ({self.notes['kept']}), " \
            if table and "kept" in self.notes else f"{len(self.judgments)} judgments, "
        about = (f"{read}{self.sources} sources"
                 + (f"; {self.n_bootstrap} bootstrap resamples of the sources, seed {self.seed}"
                    if self.n_bootstrap else ""))
        if self.versus:
            out += ["", f"minus {self.versus}, pair by pair (the same resamples; in parentheses: the share of "
                        f"resamples on which the measure is the higher):", ""]
            out.append(Table([Col("measure", "<"), *(Col(c.capitalize(), md=":---:") for c in CORRELATIONS)],
                             [[r.name, *(_difference(r.differences[c]) for c in CORRELATIONS)]
                              for r in self.results if r.differences]))
        for level in self.levels:
            out += ["", _level_title(level, markdown), ""]
            if level.results:
                out += _level_tables(level.results, ci, self.versus)
        out += ["", about, "", "**signatures**" if markdown else "signatures:"]
        if markdown:
            out.append("")
        for r in self.results:
            out.append(f"- {r.name}: `{r.signature}`" if markdown else f"  {r.name}: {r.signature}")
        return out


def _level_title(level: Level, markdown: bool) -> str:
    what = (f"{len(level.results[0].scores)} systems" if level.name == "system" and level.results
            else f"{level.outputs} outputs")
    title = f"{level.name}: {what} of {level.sources} sources ({level.about})"
    return f"**{title}**" if markdown else title


def _level_tables(results: Sequence[MeasureResult], ci: str, versus: str | None) -> list[Table | str]:
    """A level's correlations, and its differences from ``versus``, as the main table's."""
    cols = [Col("measure", "<"), Col("n", md="---:"), *(Col(f"{c.capitalize()} [{ci}]", md=":---:")
                                                        for c in CORRELATIONS)]
    out: list[Table | str] = [Table(cols, [[r.name, str(len(r.scores)), *(_cell(r.correlations[c])
                                                                          for c in CORRELATIONS)] for r in results])]
    if versus and any(r.differences for r in results):
        out += ["", f"minus {versus}, on the same resamples:", ""]
        out.append(Table([Col("measure", "<"), *(Col(c.capitalize(), md=":---:") for c in CORRELATIONS)],
                         [[r.name, *(_difference(r.differences[c]) for c in CORRELATIONS)]
                          for r in results if r.differences]))
    return out


def _cell(c: Correlation) -> str:
    """A coefficient and its interval, three decimals; ``n/a`` where undefined."""
    def r(x: float) -> str:
        return num(x, 3, nonfinite="n/a")
    if not math.isfinite(c.low):
        return r(c.value)
    return f"{r(c.value)} [{r(c.low)}, {r(c.high)}]"


def _difference(d: Difference) -> str:
    """A paired difference, its interval and the share of resamples above, three decimals."""
    def r(x: float) -> str:
        return num(x, 3, nonfinite="n/a", signed=True)
    if not math.isfinite(d.low):
        return r(d.value)
    return f"{r(d.value)} [{r(d.low)}, {r(d.high)}] ({num(d.above, 2)})"


def _at_row(exc: ParseError, judgments: Sequence[Judgment], path: str | None) -> SemsimError:
    """``exc`` at the first row whose source or output is a sentence it names (``FILE:ROW:``,
    or ``row ROW:`` without the table's name): a parse refusal (a 1,201-token row) said
    nothing of where the row was."""
    named = {" ".join(t.split()) for t in exc.sentences}
    row = next((j.row for j in judgments if {" ".join(j.source.split()), " ".join(j.output.split())} & named), None)
    if row is None:
        return exc
    return InputError(str(exc), path, row) if path is not None else SemsimError(f"row {row}: {exc}")


def meta_evaluate(judgments: Sequence[Judgment], measures: Mapping[str, Measure], n_bootstrap: int = 1000,
                  confidence: float = 0.95, seed: int = 0,
                  on_measure: Callable[[str], None] | None = None, versus: str | None = None,
                  path: str | None = None) -> MetaEvaluation:
    """Score every judgment's pair with each measure and correlate the scores with the
    people's (:func:`correlate`, resampling sources, the same resamples for every measure).
    A measure is a callable on ``(source, output)`` pairs; its ``signature`` attribute, if
    any, is reported with it. ``on_measure(name)`` is called before each measure runs (a
    command's progress note). With ``versus``, the name of one of the measures, every other
    measure's coefficients are also given minus that one's, pair by pair on the same
    resamples (:func:`compare_correlations`): whether it agrees with people better than that
    measure, which two intervals side by side cannot say. A measure that returns the wrong
    number of scores, or one that is no finite number, is a :class:`SemsimError` naming it; a
    sentence a parse refuses is named by its row (``path``: the table's, for ``FILE:ROW:``)."""
    from ...kernel.stats import check_bootstrap
    check_bootstrap(n_bootstrap, confidence)  # the command line's bounds, before any measure runs
    if versus is not None and versus not in measures:
        raise SettingsError(f"versus {versus!r} is none of the measures: {', '.join(measures)}")
    judgments = list(judgments)
    if not judgments:
        raise SemsimError("no judgments to meta-evaluate")
    pairs = [(j.source, j.output) for j in judgments]
    human = [j.human for j in judgments]
    groups = [j.source for j in judgments]
    results = []
    for name, measure in measures.items():
        if on_measure:
            on_measure(name)
        try:
            scores = [float(s) for s in measure(pairs)]
        except ParseError as exc:  # a sentence no parse takes: said at the row that holds it
            raise _at_row(exc, judgments, path) from None
        if len(scores) != len(pairs):
            raise SemsimError(f"measure {name} gave {len(scores)} scores for {len(pairs)} pairs")
        bad = next((i for i, s in enumerate(scores) if not math.isfinite(s)), None)
        if bad is not None:
            raise SemsimError(f"measure {name} gave {scores[bad]} for row {judgments[bad].row}")
        results.append(MeasureResult(name, scores, correlate(scores, human, groups, n_bootstrap, confidence, seed),
                                     str(getattr(measure, "signature", ""))))
    if versus is not None:
        base = next(r for r in results if r.name == versus)
        results = [r if r is base else dataclasses.replace(
            r, differences=compare_correlations(r.scores, base.scores, human, groups, n_bootstrap, confidence, seed))
            for r in results]
    return MetaEvaluation(judgments, results, n_bootstrap, confidence, seed, versus)
