"""``semsim conservatism``: how much systems (and references) change their sources.

The three measures of Choshen & Abend (2018, §2), per system: WordChange, word-order
Spearman ρ, and sentence splits/concatenations (:mod:`semsim.app.gec.conservatism`), as a
table, per-sentence records, and optionally a plot like the paper's Figure 1. References
(``--ref``) are measured exactly like systems: §2's point is that references change far
more than correctors do.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from ...kernel.errors import InputError, SemsimError
from ...kernel.limits import LimitError
from ..cli import format_option, quiet_option, systems_inputs, tokenize_option
from ..gec import conservatism as measures
from ..gec.conservatism import SentenceConservatism, SystemSummary
from ..report import Col, Report, Skipped, Table, num, write
from .common import system_names, warn_if_untokenized
from .inputs import check_writable, open_output

#: Columns of the text table's WordChange distribution: 0 .. TEXT_BINS-1, then ">=TEXT_BINS".
TEXT_BINS = 10


@click.command()
@systems_inputs("measured")
@tokenize_option
@click.option("--ignore-case", is_flag=True,
              help="A change of case only (i -> I) is not a word change (§2 counts changes 'in any way').")
@format_option(help="text: tables per system; json: summaries and sentences; "
                    "jsonl: a record per sentence pair, then per system; tsv: per sentence pair.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write here instead of stdout.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False),
              help="Also draw Figure 1 of the paper here (.png, .svg or .pdf; needs matplotlib).")
@quiet_option
def conservatism(source_path: Path, hyps: tuple[tuple[str | None, Path], ...],
                 refs: tuple[tuple[str | None, Path], ...], tokenize: str,
                 ignore_case: bool, fmt: str, output: str | None, plot_path: str | None, quiet: bool) -> None:
    """Conservatism of corrections (Choshen & Abend 2018, §2): WordChange, word-order
    Spearman rho, sentence splits and concatenations, per system and reference.

    Non-alphanumeric characters are ignored; an empty line's words count as deleted or
    added, and it is neither split nor concatenated (see docs/conservatism.md).

    \b
    semsim conservatism --source dev.src --ref dev.ref0 --hyp system.out --plot fig1.png
    """
    if not hyps and not refs:
        raise SemsimError("give at least one --hyp (or --ref) file")
    if plot_path:
        measures.plot_format(plot_path)
        measures.require_matplotlib()
    from ..textfiles import read_parallel
    names = system_names(hyps, refs)
    hyp_paths, ref_paths = [p for _, p in hyps], [p for _, p in refs]
    check_writable(output, plot_path, inputs=[source_path, *names])
    source, files = read_parallel(source_path, list(names), tokenize)
    warn_if_untokenized({source_path: source, **files}, tokenize, quiet)
    too_long = Skipped("measured")  # pairs too long to align: reported, the others measured

    def skip(path: Path) -> Callable[[int, LimitError], None]:
        return lambda line, exc: too_long.add(InputError(str(exc), path, line), f"line {line}")
    results = {names[p]: measures.conservatism(source, files[p], ignore_case, skip(p)) for p in names}
    summaries = [measures.summarise(rs, name) for name, rs in results.items()]
    with open_output(output) as out:
        write(_report(results, summaries, measures.get_signature(ignore_case, tokenize).format()), fmt, out)
    if plot_path:
        measures.plot(results, plot_path, references={names[p] for p in ref_paths if p not in hyp_paths})
    too_long.fail(lambda s: f"{len(s)} line(s) not measured (see above)")


def _report(results: dict[str, list[SentenceConservatism]], summaries: list[SystemSummary], sig: str) -> Report:
    """Every machine-readable record carries the signature; the text tables end with it."""
    rows = [{"system": name, **r.as_dict(), "signature": sig} for name, rs in results.items() for r in rs]
    return Report(rows, trailer=lambda: [{"summary": True, **s.as_dict(), "signature": sig} for s in summaries],
                  document=lambda items: {"systems": [s.as_dict() for s in summaries], "sentences": items,
                                          "signature": sig},
                  parts=lambda _rows, _markdown: [*_tables(summaries), "", f"signature: {sig}"])


def _pct(x: float) -> str:
    return num(x, 1, percent=True)


def _tables(summaries: list[SystemSummary]) -> list[Table | str]:
    """The §2 measures per system: means, then the distributions of Figure 1."""
    w = max(len("system"), *(len(s.system) for s in summaries))
    header = ["n", "mean WC", "unchanged", "mean rho", "median", "reordered", "no rho", "splits", "concats"]
    means = [[s.system, str(s.n), num(s.word_change_mean, 3), _pct(s.unchanged_share), num(s.rho_mean),
              num(s.rho_median), _pct(s.reordered / s.rho_n) if s.rho_n else "n/a", str(s.rho_undefined),
              str(s.splits), str(s.concatenations)] for s in summaries]
    bins = [*map(str, range(TEXT_BINS)), f">={TEXT_BINS}"]
    counts = [[s.system, *map(str, list(s.word_change_counts[:TEXT_BINS])
                              + [0] * max(0, TEXT_BINS - len(s.word_change_counts))
                              + [sum(s.word_change_counts[TEXT_BINS:])])] for s in summaries]
    ts = list(summaries[0].rho_cdf)
    cdf = [[s.system, *(_pct(s.rho_cdf[t]) for t in ts)] for s in summaries]
    system = Col("system", "<", w)
    return [Table([system, *(Col(h, ">", 9) for h in header)], means), "",
            "WordChange distribution (sentence pairs with k changed, deleted or added words):",
            Table([system, *(Col(b, ">", 5, before=" " if k else None) for k, b in enumerate(bins))], counts), "",
            "Word order: share of pairs with rho <= threshold (of pairs with >= 2 aligned words):",
            Table([system, *(Col("<=" + t, ">", 7, before=" " if k else None) for k, t in enumerate(ts))], cdf), "",
            "Sentences: source/output totals; a split (concatenation) is a pair whose output has more "
            "(fewer) sentences:",
            *(f"{s.system:<{w}}  {s.source_sentences} -> {s.output_sentences} sentences; "
              f"{s.splits} pairs split ({_pct(s.split_share)}), "
              f"{s.concatenations} concatenated ({_pct(s.concatenation_share)})" for s in summaries)]
