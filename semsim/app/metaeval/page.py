"""``semsim meta-eval --html``: the correlations with people as one self-contained page.

A coefficient says how well a measure agrees with people; its scatter against their scores
says where it does not: a band of copies at 1.0, a measure that saturates, a few pairs far
off. So the page gives the table of correlations (the TSV rendering's cells, parsed back, so
the page cannot disagree with ``--format tsv``) and, per measure, each pair as a dot, its
score against the people's mean (:mod:`semsim.app.charts`; a dot's tooltip names its row).
"""

from __future__ import annotations

import csv
import io

from ..charts import esc, page, scatter, table
from . import MetaEvaluation


def render_metaeval(report: MetaEvaluation) -> str:
    """The page of a meta-evaluation (:class:`MetaEvaluation`)."""
    header, *rows = list(csv.reader(io.StringIO(report.render("tsv")), delimiter="\t"))
    shown = [c for c in header if c != "signature"]
    where = report.notes.get("table")
    about = (f"{esc(where)}: " if where else "") + (
        f"{len(report.judgments)} judgments ({esc(report.notes.get('kept', 'all outputs'))}) of "
        f"{report.sources} sources; intervals from {report.n_bootstrap} bootstrap resamples of the sources, "
        f"seed {report.seed}")
    body = [f'<p class="note">{about}.</p>', "<h2>Correlation with people</h2>",
            table(shown, [[esc(row[header.index(c)]) for c in shown] for row in rows], id="correlations"),
            "<h2>Each measure against people</h2>",
            '<p class="note">A dot per pair: the measure\'s score (across) against the people\'s mean '
            "(up); hover a dot for its row.</p>"]
    human = [j.human for j in report.judgments]
    tips = [f"row {j.row}{f' ({j.system})' if j.system else ''}: human {j.human:g}" for j in report.judgments]
    for r in report.results:
        body.append(f'<figure class="measure" data-measure="{esc(r.name)}"><figcaption><b>{esc(r.name)}</b> '
                    f"(Pearson {r.correlations['pearson'].value:.3f}, Spearman "
                    f"{r.correlations['spearman'].value:.3f})</figcaption>"
                    + scatter(r.scores, human, x_label=r.name, y_label="people", id=f"scatter-{r.name}",
                              tips=[f"{t}, {r.name} {s:.4f}" for t, s in zip(tips, r.scores)]) + "</figure>")
    body.append('<p class="sig">' + "<br>".join(f"{esc(r.name)}: {esc(r.signature)}" for r in report.results)
                + "</p>")
    return page("semsim: meta-evaluation against people", body)
