"""``semsim score``: USim of systems' outputs (and references) against their sources, from text."""

from __future__ import annotations

import dataclasses
import heapq
import shlex
from pathlib import Path
from typing import Any

import click

from ...kernel.errors import SemsimError
from ...kernel.limits import MAX_BOOTSTRAP
from ...kernel.stats import Score
from ..cli import format_option, parsing_options, quiet_option, systems_inputs, usim_options
from ..parsing import ParseSettings
from ..report import text, write_jsonl
from ..tokenization import changed
from ..usim import USim
from .common import fail_if_unparsed, is_preset, rerun_options, system_names, warn_if_untokenized
from .inputs import check_writable, open_output


@click.command()
@systems_inputs("scored")
@usim_options
@parsing_options
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Per-sentence JSON Lines here.")
@format_option(["text", "markdown", "json", "tsv"], help="Format of the per-system table on stdout.")
@click.option("--bootstrap", "n_bootstrap", type=click.IntRange(0, MAX_BOOTSTRAP), default=1000, show_default=True,
              help="Bootstrap resamples for each system's confidence interval.")
@click.option("--paired", type=click.Choice(["ar", "bs", "none"]), default="ar", show_default=True,
              help="Paired test between every two systems: approximate randomization, paired bootstrap, none.")
@click.option("--paired-trials", type=click.IntRange(1, MAX_BOOTSTRAP), default=10000, show_default=True,
              help="Random trials (resamples) per paired test.")
@click.option("--seed", type=click.IntRange(0), default=12345, show_default=True)
@click.option("-b", "--score-only", is_flag=True,
              help="Print only each system's mean F (one number; with several systems, NAME<TAB>F lines).")
@click.option("--worst", type=click.IntRange(1), default=None, metavar="N",
              help="Also list the N least faithful lines (lowest F over all systems, with their texts): the "
                   "corrections to read first.")
@click.option("--changed-only", is_flag=True,
              help="Score each system on the lines it changed only, beyond tokenization (an unchanged line is "
                   "trivially faithful); "
                   "systems then differ in their lines, so no paired tests are run.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False),
              help="Also write the comparison as one self-contained page: the ranked systems with their intervals, "
                   "the paired tests as a heat map, each system's score distribution, and the least faithful lines "
                   "(--worst N, 10 by default) each with its explanation page beside it (FILE.worstK.html).")
@quiet_option
def score(source_path: Path, hyps: tuple[tuple[str | None, Path], ...], refs: tuple[tuple[str | None, Path], ...],
          metric: USim, parsing: ParseSettings, output: str | None, fmt: str, n_bootstrap: int, paired: str,
          paired_trials: int, seed: int, score_only: bool, worst: int | None, changed_only: bool, html_path: str | None,
          quiet: bool) -> None:
    """USim of systems' outputs (and references) against their sources, from plain text.

    Every unique sentence is parsed once (and cached across runs); an empty source line
    scores 1 against an empty output line and 0 otherwise, as in the original tool. The
    table ranks the systems and tests every two of them for a significant difference.

    \b
    semsim score --source examples/source.txt --hyp examples/system.txt
    semsim score --source dev.src --hyp a.out --hyp b.out --ref dev.ref0 -o sentences.jsonl
    semsim score --source dev.src --hyp a.out -b --bootstrap 0
    semsim score --source dev.src --hyp llm.out --tokenize spacy
    semsim score --source dev.src --hyp BART=out/bart.txt --hyp T5=out/t5.txt --worst 10
    """
    from ..scoring import Files, score_texts
    from ..textfiles import read_parallel
    if not hyps and not refs:
        raise SemsimError("give at least one --hyp (or --ref) file")
    if worst and score_only:
        raise SemsimError("--worst lists lines beside the table, -b prints only each system's number: use one")
    if worst and fmt == "tsv":
        raise SemsimError("--worst lists lines beside the table: use --format text, markdown or json (or -o for "
                          "every line's record)")
    names = system_names(hyps, refs)
    listed = worst or (10 if html_path else 0)  # the page lists the worst lines even without --worst
    # the report's explanation pages are outputs too: none may be an input or the report itself
    check_writable(output, html_path, *(_page_names(html_path, listed) if html_path else []),
                   inputs=[source_path, *names])
    source, files = read_parallel(source_path, list(names))
    texts: dict[str | None, list[str]] = {None: source, **{names[p]: files[p] for p in names}}  # as read
    warn_if_untokenized({source_path: source, **files}, parsing.tokenize, quiet)
    paths = {name: p for p, name in names.items()}
    scored = score_texts(metric, source, {names[p]: files[p] for p in names}, parsing, keep_going=True,
                         files=Files(source_path, paths))
    source, systems, unparsed, skip = scored.source, scored.systems, scored.skipped, scored.skip
    by_system: dict[str, list[Score]] = {n: [] for n in systems}
    lowest: list[dict[str, Any]] = []
    with open_output(output) as out:
        for r in scored.lines:
            src, hyp = source[r.line - 1], systems[r.system][r.line - 1]
            if changed_only and not changed(src, hyp):
                continue
            by_system[r.system].append(r.score)
            # the texts as parsed, so that the records read without joining files
            record: dict[str, Any] = {"system": r.system, "line": r.line, "source": src, "output": hyp, "f": r.score.f,
                      "precision": r.score.precision, "recall": r.score.recall, "empty": r.empty,
                      "detail": {k: c.as_dict() for k, c in r.score.parts.items()},
                      "signature": r.score.signature.format()}
            if output:
                write_jsonl([record], out)
            if listed:
                lowest = heapq.nsmallest(listed, [*lowest, record], key=lambda x: (x["f"], x["system"], x["line"]))
    for record in lowest:  # the command that shows why, under every option that changed the number
        record["explain"] = " ".join(["semsim explain --source", shlex.quote(str(source_path)), "--hyp",
                                      shlex.quote(str(paths[record["system"]])), "--line", str(record["line"]),
                                      *rerun_options(metric, parsing)])
    if changed_only and not all(by_system.values()):
        unchanged = next(n for n, scores in by_system.items() if not scores)
        raise SemsimError(f"--changed-only: {unchanged} changed no line that could be scored")
    if changed_only and paired != "none" and len(systems) > 1 and not quiet:
        click.echo("semsim: --changed-only scores each system on its own lines: no paired tests", err=True)
    from ..systems import PRESET_NOTE, compare_systems, how_much_changed
    if paired == "bs" and len(systems) > 1 and len(source) - len(skip) < 30:
        click.echo("semsim: the paired bootstrap understates p-values on few sentences; "
                   "--paired ar (the default) is exact in the limit", err=True)
    tested = None if paired == "none" or changed_only else paired
    report = compare_systems(by_system, n_bootstrap, seed, tested, paired_trials,
                             changes=how_much_changed(source, systems, skip), worst=lowest if worst else [],
                             note="" if quiet or is_preset(metric, "meaning") else PRESET_NOTE)
    if score_only:
        for row in report.systems:
            f = f"{row['macro_f']:.6f}"
            click.echo(text([(f,) if len(report.systems) == 1 else (row["system"], f)]), nl=False)
    else:
        click.echo(report.render(fmt), nl=False)
    if html_path:
        from ..systems_html import render_systems
        from .explain import write_atomic
        pages = _explanation_pages(html_path, lowest, texts, metric, parsing)
        write_atomic(html_path, render_systems(report, {n: [s.f for s in v] for n, v in by_system.items()},
                                               list(zip(lowest, [Path(p).name if p else None for p in pages]))))
        if not quiet:
            click.echo(f"semsim: wrote {html_path} (and {sum(map(bool, pages))} explanation pages beside it)", err=True)
    fail_if_unparsed(unparsed)


def _page_names(html_path: str, n: int) -> list[str]:
    """The explanation pages of the report's ``n`` worst lines: ``REPORT.worstK.html`` beside it."""
    stem = str(Path(html_path).with_suffix(""))
    return [f"{stem}.worst{k}.html" for k in range(1, n + 1)]


def _explanation_pages(html_path: str, lowest: list[dict[str, Any]], texts: dict[str | None, list[str]],
                       metric: USim, parsing: ParseSettings) -> list[str | None]:
    """Each worst line's explanation page, ``REPORT.worstK.html`` beside the report (None where
    the pair cannot be explained: too large to align). The lines are parsed again as read
    (from the parse cache, as scoring parsed them)."""
    from ...kernel.errors import GraphError
    from ...kernel.limits import LimitError
    from ..explain import explain, render_html
    from ..parsing import parse_texts
    from .explain import write_atomic
    pairs = [(texts[None][r["line"] - 1], texts[r["system"]][r["line"] - 1]) for r in lowest]
    parses = parse_texts([t for pair in pairs for t in pair], dataclasses.replace(parsing, progress=False))
    out: list[str | None] = []
    for name, (src, hyp) in zip(_page_names(html_path, len(pairs)), pairs):
        g1, g2 = parses.get(src), parses.get(hyp)
        try:
            doc = explain(g1, g2, metric) if g1 is not None and g2 is not None else None
        except (LimitError, GraphError):
            doc = None
        if doc is None:
            out.append(None)
            continue
        doc["signature"] = parses.sign(metric.signature(parses.representation)).format()
        write_atomic(name, render_html(doc))
        out.append(name)
    return out

