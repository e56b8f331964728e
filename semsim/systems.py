"""Many systems on one test set: a table of corpus scores and the paired tests between them.

What a GEC (or MT, simplification) paper reports when it compares systems: per system the
mean sentence score with a bootstrap confidence interval and the micro score, and for every
two systems whether their difference is significant (:mod:`semsim.significance`). The
renderings are plain text, Markdown (for a paper's appendix or a README), TSV and JSON.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .significance import PairedTest, paired_tests
from .stats import Score, corpus_score

RENDERINGS = ("text", "markdown", "tsv", "json")


@dataclass(frozen=True)
class SystemsReport:
    """Corpus scores per system (in the order given) and the paired tests between them."""

    systems: list[dict[str, Any]]
    tests: list[PairedTest]
    alpha: float = 0.05
    signature: str = ""  # the scores', their aggregation's and the paired tests' settings
    changes: bool = False  # rows carry how much each system changed (``changed``, ``word_change``)

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
                "signature": self.signature}

    def render(self, fmt: str) -> str:
        if fmt == "json":
            return json.dumps(self.as_dict(), indent=2, ensure_ascii=False) + "\n"
        if fmt == "tsv":
            return self._tsv()
        if fmt in ("text", "markdown"):
            return self._table(markdown=fmt == "markdown")
        raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(RENDERINGS)}")

    # -- renderings ----------------------------------------------------------------------------
    def _tsv(self) -> str:
        """One row per system; the paired test against the best system in two columns (the
        full set of tests is in the JSON rendering)."""
        extra = ["changed", "word_change"] if self.changes else []
        cols = ["system", "n", "macro_f", "ci_low", "ci_high", "micro_f", *extra, "p_vs_best", "q_vs_best",
                "signature"]
        lines = ["\t".join(cols)]
        for r in self.systems:
            t = self.versus_best(r["system"])
            ci = r.get("macro_ci") or ["", ""]
            cells = [r["system"], r["n"], r["macro_f"], *ci, r["micro_f"], *(r[c] for c in extra),
                     *((t.p, t.q) if t else ("", "")), self.signature]
            lines.append("\t".join(f"{c:.6f}" if isinstance(c, float) else str(c) for c in cells))
        return "\n".join(lines) + "\n"

    def _table(self, markdown: bool) -> str:
        ranked = self.ranked
        conf = ranked[0].get("confidence", 0.95) if ranked else 0.95
        head = ["#", "system", "n", "mean F", f"{conf:.0%} CI", "micro F"]
        if self.changes:
            head += ["changed", "WordChange"]
        if self.tests:
            head.append(f"differs from #1 (q < {self.alpha:g})")
        rows = []
        for i, r in enumerate(ranked, 1):
            ci = r.get("macro_ci")
            row = [str(i), r["system"], str(r["n"]), f"{r['macro_f']:.4f}",
                   f"[{ci[0]:.4f}, {ci[1]:.4f}]" if ci else "", f"{r['micro_f']:.4f}"]
            if self.changes:
                row += [f"{r['changed']:.1%}", f"{r['word_change']:.2f}"]
            if self.tests:
                t = self.versus_best(r["system"])
                row.append("—" if t is None else f"{'yes' if t.q < self.alpha else 'no'} (p={_p(t.p)}, q={_p(t.q)})")
            rows.append(row)
        out = [_grid(head, rows, markdown)]
        if self.tests and len(ranked) > 1:
            names = [r["system"] for r in ranked]
            matrix = [[str(i), *("" if j <= i else self._cell(a, b) for j, b in enumerate(names, 1))]
                      for i, a in enumerate(names, 1)][:-1]
            method = {"ar": "Paired approximate randomization", "bs": "Paired bootstrap"}[self.tests[0].method]
            title = (f"{method} ({self.tests[0].trials} trials), p-values of the difference in mean F "
                     f"(row vs. column, by rank); * = significant after Benjamini–Hochberg at {self.alpha:g}")
            out += ["", f"**{title}**" if markdown else title, "",
                    _grid(["", *map(str, range(2, len(names) + 1))], [row[:1] + row[2:] for row in matrix], markdown)]
        if self.changes:
            out += ["", CHANGES_NOTE]
        sig = self.signature
        if sig:
            out += ["", f"signature: `{sig}`" if markdown else f"signature: {sig}"]
        return "\n".join(out) + "\n"

    def _cell(self, a: str, b: str) -> str:
        t = self.test(a, b)
        return "" if t is None else f"{_p(t.p)}{'*' if t.q < self.alpha else ''}"


#: what a table of USim with the change columns says and does not say
CHANGES_NOTE = ("USim is faithfulness to the source: an output that changes nothing scores 1. The order is by "
                "mean F, not by quality; read it beside `changed` (share of lines the system changed) and "
                "`WordChange` (mean words changed, `semsim conservatism`), and a grammaticality measure "
                "(docs/systems.md).")


def _p(p: float) -> str:
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}"


def _grid(head: list[str], rows: list[list[str]], markdown: bool) -> str:
    """A Markdown table, or the same columns aligned with spaces."""
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
        return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])
    widths = [max(len(c) for c in col) for col in zip(head, *rows)]
    left = [h == "system" for h in head]  # names read best left-aligned, numbers right-aligned
    return "\n".join("  ".join(c.ljust(w) if lft else c.rjust(w) for c, w, lft in zip(r, widths, left)).rstrip()
                     for r in [head, *rows])


def compare_systems(by_system: Mapping[str, Sequence[Score]], n_bootstrap: int = 1000, seed: int = 12345,
                    paired: str | None = "ar", trials: int = 10000, alpha: float = 0.05,
                    changes: Mapping[str, Mapping[str, float]] | None = None) -> SystemsReport:
    """Corpus scores of each system (bootstrap CI of the mean) and paired tests between all of
    them (``paired=None`` for none). Every system must be scored on the same sentences.
    ``changes`` adds, per system, how much it changed its sources (``changed``: share of
    lines; ``word_change``: mean WordChange), which a faithfulness score must be read beside."""
    systems = [{"system": name, **corpus_score(scores, n_bootstrap=n_bootstrap, seed=seed).as_dict(),
                **(changes[name] if changes else {})} for name, scores in by_system.items()]
    tests: list[PairedTest] = []
    if paired and len(by_system) > 1:
        tests = paired_tests({k: [s.f for s in v] for k, v in by_system.items()}, paired, trials, seed)
    sig = (systems[0]["signature"] if systems else "") + (f"|paired:{paired}|trials:{trials}" if tests else "")
    return SystemsReport(systems, tests, alpha, sig, changes is not None)


def how_much_changed(source: Sequence[str], systems: Mapping[str, Sequence[str]],
                     skip: Collection[int] = ()) -> dict[str, dict[str, float]]:
    """Per system, over the lines not in ``skip`` (1-based): the share of lines it changed
    (any token differs) and its mean WordChange (:mod:`semsim.gec.conservatism`, §2 of
    Choshen & Abend 2018: words altered, deleted or added, punctuation aside)."""
    from .gec.conservatism import conservatism
    keep = [i for i in range(len(source)) if i + 1 not in skip]
    out = {}
    for name, lines in systems.items():
        src, hyp = [source[i] for i in keep], [lines[i] for i in keep]
        changed = sum(a.split() != b.split() for a, b in zip(src, hyp))
        measured = conservatism(src, hyp, on_limit=lambda line, exc: None)  # too long to align: left out
        out[name] = {"changed": changed / len(keep) if keep else 0.0,
                     "word_change": sum(m.word_change for m in measured) / len(measured) if measured else 0.0}
    return out
