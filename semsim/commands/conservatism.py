"""``semsim conservatism``: how much systems (and references) change their sources.

The three measures of Choshen & Abend (2018, §2), per system: WordChange, word-order
Spearman ρ, and sentence splits/concatenations (:mod:`semsim.gec.conservatism`), as a
table, per-sentence records, and optionally a plot like the paper's Figure 1. References
(``--ref``) are measured exactly like systems: §2's point is that references change far
more than correctors do.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any

import click

from ..cli import quiet_option, systems_inputs, tokenize_option
from ..errors import InputError, SemsimError
from ..gec import conservatism as measures
from ..gec.conservatism import SentenceConservatism, SystemSummary
from ..io import write_jsonl, write_tsv
from ..stats import signature
from ..version import __version__
from .common import system_names, warn_if_untokenized
from .inputs import check_writable, open_output

#: Columns of the text table's WordChange distribution: 0 .. TEXT_BINS-1, then ">=TEXT_BINS".
TEXT_BINS = 10


@click.command()
@systems_inputs("measured")
@tokenize_option
@click.option("--ignore-case", is_flag=True,
              help="A change of case only (i -> I) is not a word change (§2 counts changes 'in any way').")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "jsonl", "tsv"]), default="text",
              show_default=True, help="text: tables per system; json: summaries and sentences; "
                                      "jsonl: a record per sentence pair, then per system; tsv: per sentence pair.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write here instead of stdout.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False),
              help="Also draw Figure 1 of the paper here (.png, .svg or .pdf; needs matplotlib).")
@quiet_option
def conservatism(source_path: Path, hyps: tuple[Path, ...], refs: tuple[Path, ...], tokenize: str,
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
    from ..pipeline import read_parallel
    from ..tokenize import with_tokenizer
    check_writable(output, plot_path, inputs=[source_path, *hyps, *refs])
    source, files = read_parallel(source_path, [*hyps, *refs], tokenize)
    warn_if_untokenized({source_path: source, **files}, tokenize, quiet)
    names = system_names([*hyps], [*refs])
    too_long: list[InputError] = []  # pairs too long to align: reported, the others measured
    results = {names[p]: measures.conservatism(source, files[p], ignore_case,
                                               lambda line, exc, p=p: too_long.append(InputError(str(exc), p, line)))
               for p in dict.fromkeys([*hyps, *refs])}
    summaries = [measures.summarise(rs, name) for name, rs in results.items()]
    sig = with_tokenizer(signature("conservatism", {"case": "ignored" if ignore_case else "mixed"}, __version__),
                         tokenize)
    with open_output(output) as out:
        _write(out, fmt, results, summaries, sig)
    if plot_path:
        measures.plot(results, plot_path, references={names[p] for p in refs if p not in hyps})
    for err in too_long:
        click.echo(f"semsim: {err} (line {err.line} not measured)", err=True)
    if too_long:
        raise SemsimError(f"{len(too_long)} line(s) not measured (see above)")


def _rows(results: dict[str, list[SentenceConservatism]], sig: str) -> list[dict[str, Any]]:
    return [{"system": name, **r.as_dict(), "signature": sig} for name, rs in results.items() for r in rs]


def _write(out: IO[str], fmt: str, results: dict[str, list[SentenceConservatism]],
           summaries: list[SystemSummary], sig: str) -> None:
    """Every machine-readable record carries the signature; the text tables end with it."""
    if fmt == "jsonl":
        write_jsonl(_rows(results, sig), out)
        write_jsonl([{"summary": True, **s.as_dict(), "signature": sig} for s in summaries], out)
    elif fmt == "json":
        doc = {"systems": [s.as_dict() for s in summaries], "sentences": _rows(results, sig), "signature": sig}
        out.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    elif fmt == "tsv":
        write_tsv(_rows(results, sig), out)
    else:
        _write_text(out, summaries)
        out.write(f"\nsignature: {sig}\n")


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _num(x: float | None, digits: int = 4) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"


def _write_text(out: IO[str], summaries: list[SystemSummary]) -> None:
    w = max(len("system"), *(len(s.system) for s in summaries))
    header = ["n", "mean WC", "unchanged", "mean rho", "median", "reordered", "no rho", "splits", "concats"]
    out.write(f"{'system':<{w}}  " + "  ".join(f"{h:>9}" for h in header) + "\n")
    for s in summaries:
        cells = [str(s.n), f"{s.word_change_mean:.3f}", _pct(s.unchanged_share), _num(s.rho_mean),
                 _num(s.rho_median), _pct(s.reordered / s.rho_n) if s.rho_n else "n/a", str(s.rho_undefined),
                 str(s.splits), str(s.concatenations)]
        out.write(f"{s.system:<{w}}  " + "  ".join(f"{c:>9}" for c in cells) + "\n")
    out.write("\nWordChange distribution (sentence pairs with k changed, deleted or added words):\n")
    bins = [*map(str, range(TEXT_BINS)), f">={TEXT_BINS}"]
    out.write(f"{'system':<{w}}  " + " ".join(f"{b:>5}" for b in bins) + "\n")
    for s in summaries:
        counts = list(s.word_change_counts[:TEXT_BINS]) + [0] * max(0, TEXT_BINS - len(s.word_change_counts))
        counts.append(sum(s.word_change_counts[TEXT_BINS:]))
        out.write(f"{s.system:<{w}}  " + " ".join(f"{c:>5}" for c in counts) + "\n")
    out.write("\nWord order: share of pairs with rho <= threshold (of pairs with >= 2 aligned words):\n")
    ts = list(summaries[0].rho_cdf)
    out.write(f"{'system':<{w}}  " + " ".join(f"{'<=' + t:>7}" for t in ts) + "\n")
    for s in summaries:
        out.write(f"{s.system:<{w}}  " + " ".join(f"{_pct(s.rho_cdf[t]):>7}" for t in ts) + "\n")
    out.write("\nSentences: source/output totals; a split (concatenation) is a pair whose output has more "
              "(fewer) sentences:\n")
    for s in summaries:
        out.write(f"{s.system:<{w}}  {s.source_sentences} -> {s.output_sentences} sentences; "
                  f"{s.splits} pairs split ({_pct(s.split_share)}), "
                  f"{s.concatenations} concatenated ({_pct(s.concatenation_share)})\n")
