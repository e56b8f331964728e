"""Many systems on one test set: a table of corpus scores and the paired tests between them.

What a GEC (or MT, simplification) paper reports when it compares systems: per system the
mean sentence score with a bootstrap confidence interval and the micro score, and for every
two systems whether their difference is significant (:mod:`semsim.kernel.significance`). The
renderings are plain text, Markdown (for a paper's appendix or a README), TSV and JSON.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..kernel.limits import LimitError
from ..kernel.signature import Signature
from ..kernel.significance import PairedTest, paired_tests
from ..kernel.stats import Score, corpus_score
from .report import Col, Record, Report, Table, num, render

RENDERINGS = ("text", "markdown", "tsv", "json")


@dataclass(frozen=True)
class SystemsReport:
    """Corpus scores per system (in the order given) and the paired tests between them."""

    systems: list[dict[str, Any]]
    tests: list[PairedTest]
    alpha: float = 0.05
    signature: Signature = field(default_factory=Signature)  # the scores', their aggregation's, the tests' settings
    changes: bool = False  # rows carry how much each system changed (``changed``, ``word_change``)
    #: the least faithful lines (records with ``system``, ``line``, ``f``, ``source``, ``output``, and
    #: ``explain``, the command that shows why), lowest first
    worst: list[dict[str, Any]] = field(default_factory=list)
    #: a line for people under the ranked table (text and Markdown only): :data:`PRESET_NOTE`
    #: where the scores are not the preset's
    note: str = ""

    @property
    def ranked(self) -> list[dict[str, Any]]:
        """Systems from the highest mean score down (ties keep the given order)."""
        return sorted(self.systems, key=lambda r: -r["macro_f"])

    def test(self, a: str, b: str) -> PairedTest | None:
        return next((t for t in self.tests if {t.a, t.b} == {a, b}), None)

    def versus_best(self, system: str) -> PairedTest | None:
        best = self.ranked[0]["system"]
        return None if system == best else self.test(best, system)

    def as_dict(self) -> dict[str, Any]:
        return {"systems": self.systems, "paired_tests": [t.as_dict() for t in self.tests], "alpha": self.alpha,
                **({"worst": [{k: r[k] for k in WORST_FIELDS if k in r} for r in self.worst]} if self.worst else {}),
                "signature": self.signature.format()}

    def render(self, fmt: str) -> str:
        """The report as text, Markdown, TSV or JSON (:data:`RENDERINGS`)."""
        return render(Report(self._rows(), document=lambda _: self.as_dict(), parts=self._parts,
                             formats=RENDERINGS), fmt)

    # -- renderings ----------------------------------------------------------------------------
    def _rows(self) -> list[Record]:
        """One row per system, as TSV has them: the paired test against the best system in two
        columns (the full set of tests is in the JSON rendering)."""
        out: list[Record] = []
        for r in self.systems:
            t = self.versus_best(r["system"])
            ci = r.get("macro_ci") or [None, None]
            out.append({"system": r["system"], "n": r["n"], "macro_f": r["macro_f"], "ci_low": ci[0], "ci_high": ci[1],
                        "micro_f": r["micro_f"],
                        **({c: r[c] for c in ("changed", "word_change")} if self.changes else {}),
                        "p_vs_best": t.p if t else None, "q_vs_best": t.q if t else None,
                        "signature": self.signature.format()})
        return out

    def _parts(self, _rows: list[Record], markdown: bool) -> list[Table | str]:
        ranked = self.ranked
        conf = ranked[0].get("confidence", 0.95) if ranked else 0.95
        head = ["#", "system", "n", "mean F", f"{num(conf, 0, percent=True)} CI", "micro F"]
        if self.changes:
            head += ["changed", "WordChange"]
        if self.tests:
            head.append(f"differs from #1 (q < {self.alpha:g})")
        rows = []
        for i, r in enumerate(ranked, 1):
            ci = r.get("macro_ci")
            row = [str(i), r["system"], str(r["n"]), num(r["macro_f"]),
                   f"[{num(ci[0])}, {num(ci[1])}]" if ci else "", num(r["micro_f"])]
            if self.changes:
                row += [num(r["changed"], 1, percent=True), num(r["word_change"], 2)]
            if self.tests:
                t = self.versus_best(r["system"])
                row.append("—" if t is None else f"{'yes' if t.q < self.alpha else 'no'} (p={_p(t.p)}, q={_p(t.q)})")
            rows.append(row)
        out: list[Table | str] = [_grid(head, rows)]
        if self.note:  # under the table; in Markdown after a blank line, or it would be a row of it
            out += ["", self.note] if markdown else [self.note]
        if self.tests and len(ranked) > 1:
            names = [r["system"] for r in ranked]
            matrix = [[str(i), *("" if j <= i else self._cell(a, b) for j, b in enumerate(names, 1))]
                      for i, a in enumerate(names, 1)][:-1]
            method = {"ar": "Paired approximate randomization", "bs": "Paired bootstrap"}[self.tests[0].method]
            title = (f"{method} ({self.tests[0].trials} trials), p-values of the difference in mean F "
                     f"(row vs. column, by rank); * = significant after Benjamini–Hochberg at {self.alpha:g}")
            out += ["", f"**{title}**" if markdown else title, "",
                    _grid(["", *map(str, range(2, len(names) + 1))], [row[:1] + row[2:] for row in matrix])]
        if self.changes:
            out += ["", CHANGES_NOTE]
        if self.worst:
            why = [r["explain"] for r in self.worst if r.get("explain")]
            out += ["", f"The {len(self.worst)} least faithful lines (lowest F first; "
                        + ("the commands below show why, with this run's settings):" if why else
                           "`semsim explain --source ... --hyp ... --line N` shows why):"), "",
                    Table([Col("F"), Col("system", "<"), Col("line"), Col("source → output", "<")],
                          [[num(r["f"]), r["system"], str(r["line"]), f"{r['source']} → {r['output']}"]
                           for r in self.worst], rstrip=True)]
            if why:
                out += ["", *(f"    {c}" if markdown else c for c in why)]
        sig = self.signature.format()
        if sig:
            out += ["", f"signature: `{sig}`" if markdown else f"signature: {sig}"]
        return out

    def _cell(self, a: str, b: str) -> str:
        t = self.test(a, b)
        return "" if t is None else f"{_p(t.p)}{'*' if t.q < self.alpha else ''}"


#: what each of the least faithful lines tells in the JSON rendering (``explain``: the command
#: that shows why, with every option of the run that changed the number)
WORST_FIELDS = ("system", "line", "f", "source", "output", "explain")

#: Spearman's rho with people's meaning judgments on TMU-GFM dev (docs/validity.md, its table;
#: a test holds these to it): the paper's USim and the ``meaning`` preset
SPEARMAN_TMU_GFM = {"paper": 0.195, "meaning": 0.458}
#: the line under a ranked table of USim scores that are not the preset's: the default is the
#: paper's definition, the setting that agrees least with people, and a newcomer reports it
PRESET_NOTE = (f"Closest to people's meaning judgments: --preset meaning (Spearman {SPEARMAN_TMU_GFM['meaning']:.3f}; "
               f"the paper setting {SPEARMAN_TMU_GFM['paper']:.3f}; TMU-GFM dev, docs/validity.md)")

#: what a table of USim with the change columns says and does not say
CHANGES_NOTE = ("USim is faithfulness to the source: an output that changes nothing scores 1. The order is by "
                "mean F, not by quality; read it beside `changed` (share of lines the system changed) and "
                "`WordChange` (mean words changed, `semsim conservatism`), and a grammaticality measure "
                "(docs/systems.md).")


def _p(p: float) -> str:
    return num(p, tiny=1e-4)


def _grid(head: list[str], rows: list[list[str]]) -> Table:
    """Columns as wide as their widest cell; names read best left-aligned, numbers right-aligned."""
    return Table([Col(h, "<" if h == "system" else ">") for h in head], rows, rstrip=True)


def compare_systems(by_system: Mapping[str, Sequence[Score]], n_bootstrap: int = 1000, seed: int = 12345,
                    paired: str | None = "ar", trials: int = 10000, alpha: float = 0.05,
                    changes: Mapping[str, Mapping[str, float]] | None = None,
                    worst: Sequence[dict[str, Any]] = (), note: str = "") -> SystemsReport:
    """Corpus scores of each system (bootstrap CI of the mean) and paired tests between all of
    them (``paired=None`` for none). Every system must be scored on the same sentences.
    ``changes`` adds, per system, how much it changed its sources (``changed``: share of
    lines; ``word_change``: mean WordChange), which a faithfulness score must be read beside;
    ``worst``, the least faithful lines to list; ``note``, a line under the ranked table."""
    corpus = {name: corpus_score(scores, n_bootstrap=n_bootstrap, seed=seed) for name, scores in by_system.items()}
    systems: list[dict[str, Any]] = [{"system": name, **c.as_dict(), **(changes[name] if changes else {})}
                                     for name, c in corpus.items()]
    tests: list[PairedTest] = []
    if paired and len(by_system) > 1:
        tests = paired_tests({k: [s.f for s in v] for k, v in by_system.items()}, paired, trials, seed)
    sig = next(iter(corpus.values())).signature if corpus else Signature()
    if tests:  # the paired tests' settings after the scores' and their aggregation's
        sig += Signature.of(None, {"paired": paired, "trials": trials})
    return SystemsReport(systems, tests, alpha, sig, changes is not None, list(worst), note)


def how_much_changed(source: Sequence[str], systems: Mapping[str, Sequence[str]],
                     skip: Collection[int] = ()) -> dict[str, dict[str, float]]:
    """Per system, over the lines not in ``skip`` (1-based): the share of lines it changed
    (beyond tokenization: :func:`semsim.app.tokenization.changed`) and its mean WordChange
    (:mod:`semsim.app.gec.conservatism`, §2 of Choshen & Abend 2018: words altered, deleted
    or added, punctuation aside)."""
    from .gec.conservatism import word_change
    from .tokenization import changed as differs
    keep = [i for i in range(len(source)) if i + 1 not in skip]
    out = {}
    known: dict[tuple[str, str], int | None] = {}  # each distinct pair once: systems agree on most lines
    for name, lines in systems.items():
        src, hyp = [source[i] for i in keep], [lines[i] for i in keep]
        changed = sum(map(differs, src, hyp))
        for pair in zip(src, hyp):
            if pair not in known:
                known[pair] = None  # too long to align: left out
                with contextlib.suppress(LimitError):
                    known[pair] = word_change(*pair)
        measured = [c for c in map(known.get, zip(src, hyp)) if c is not None]
        out[name] = {"changed": changed / len(keep) if keep else 0.0,
                     "word_change": sum(measured) / len(measured) if measured else 0.0}
    return out
