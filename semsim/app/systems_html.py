"""``semsim score --html``: the systems compared, as one self-contained page (:mod:`.charts`).

A researcher comparing systems reads a picture faster than a table: the ranked systems with
their intervals drawn, every two systems' paired test as a heat map (which differences are
significant, at a glance), each system's distribution of sentence scores (a mean hides
whether a system fails often or a little everywhere), and the least faithful lines, each
linked to its explanation page. The page's tables are the TSV rendering's cells, parsed back,
so the page cannot disagree with ``--format tsv``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import Any

from .charts import esc, heatmap, histograms, intervals, page, table
from .report import num
from .systems import SystemsReport


def tsv_cells(report: SystemsReport) -> tuple[list[str], list[list[str]]]:
    """The TSV rendering's header and rows, as ``--format tsv`` writes them."""
    header, *rows = list(csv.reader(io.StringIO(report.render("tsv")), delimiter="\t"))
    return header, rows


def render_systems(report: SystemsReport, scores: Mapping[str, Sequence[float]],
                   worst: Sequence[tuple[dict[str, Any], str | None]] = ()) -> str:
    """The page: ``scores`` each system's sentence scores (F), ``worst`` the least faithful
    lines' records (``system``, ``line``, ``f``, ``source``, ``output``), each with the
    address of its explanation page (None: no page)."""
    ranked = report.ranked
    names = [r["system"] for r in ranked]
    conf = ranked[0].get("confidence", 0.95) if ranked else 0.95
    body = [f'<p class="note">{len(names)} systems, ranked by mean F (USim: how faithfully each output keeps its '
            "source's meaning; faithfulness, not quality). "
            + (esc(report.note) if report.note else "") + "</p>",
            f"<h2>Mean F with its {num(conf, 0, percent=True)} bootstrap interval</h2>",
            intervals([(r["system"], r["macro_f"], *(r.get("macro_ci") or (None, None))) for r in ranked],
                      id="intervals")]
    header, rows = tsv_cells(report)
    shown = [c for c in header if c != "signature"]
    by_name = {row[0]: row for row in rows}
    body.append(table(["#", *shown], [[str(k), *(esc(by_name[n][header.index(c)]) for c in shown)]
                                      for k, n in enumerate(names, 1)], id="systems"))
    if report.tests:
        body += [f"<h2>Paired tests ({esc(report.tests[0].method)}, {report.tests[0].trials} trials)</h2>",
                 '<p class="note">Each cell: the row\'s mean F minus the column\'s (blue: the row is higher, red: '
                 f"lower), and the test's q (p adjusted for the {len(report.tests)} tests); bold: q &lt; "
                 f"{report.alpha:g}.</p>", _tests_map(report, names),
                 "<details><summary>every test: delta = mean F of b minus a's</summary>"
                 + table(["a", "b", "delta", "p", "q"], [[esc(t.a), esc(t.b), num(t.delta, 6), num(t.p, 6),
                                                          num(t.q, 6)] for t in report.tests], id="tests")
                 + "</details>"]
    body += ["<h2>Sentence scores, per system</h2>",
             '<p class="note">The share of each system\'s lines in each twentieth of F.</p>',
             histograms([(n, scores[n]) for n in names], id="distributions")]
    if worst:
        body += [f"<h2>The {len(worst)} least faithful lines</h2>", table(
            ["system", "line", "f", "source", "output", "why"],
            [[esc(r["system"]), str(r["line"]), num(r["f"], 6), esc(r["source"]), esc(r["output"]),
              f'<a href="{esc(href)}">explanation</a>' if href else ""] for r, href in worst],
            id="worst", text_columns=(3, 4))]
    body.append(f'<p class="sig">{esc(report.signature)}</p>')
    return page("semsim: systems compared", body)


def _tests_map(report: SystemsReport, names: list[str]) -> str:
    mean = {r["system"]: r["macro_f"] for r in report.systems}
    cells = {}
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            t = report.test(a, b) if i != j else None
            if t is None:
                continue
            delta = mean[a] - mean[b]
            tip = (f"{a} minus {b}: {num(delta, 4, signed=True)}, p = {num(t.p, 4, tiny=1e-4)}, "
                   f"q = {num(t.q, 4, tiny=1e-4)}")
            cells[i, j] = (delta, "<.001" if t.q < 0.001 else f"{t.q:.3f}", tip, t.q < report.alpha)
    return heatmap(names, cells, id="paired")
