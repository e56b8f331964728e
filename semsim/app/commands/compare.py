"""``semsim compare``: the same source/correction pairs scored under several representations,
side by side, with the correlation between them (UCCA vs AMR, say).

Each representation contributes USim (same settings for all) and every metric a plugin
registers for it (``register_metrics``: Smatch for AMR). Pairs come pre-parsed (``--pairs
NAME SRC COR``, one option per representation, paired by position) or from text parsed by
each ``--parser`` (every sentence once, through the parse cache). The core names no
representation: columns are called after the graphs' schemes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ...kernel.errors import InputError, SemsimError
from ...kernel.graph import Graph
from ...kernel.limits import MAX_BOOTSTRAP
from ..cli import format_option, parsing_options, quiet_option, usim_options
from ..comparison import Signing, check_compared, comparison, pairs_from_texts
from ..parsing import ParseSettings
from ..report import Skipped, write
from .common import fail_if_unparsed, warn_if_untokenized
from .inputs import check_writable, fail_if_unread, open_output, pair_inputs, read_pairs, readable_pairs

if TYPE_CHECKING:
    from ..usim import USim


def _pairs_from_files(specs: tuple[tuple[str, str, str], ...], read_format: str | None,
                      quiet: bool) -> tuple[list[str], dict[str, list[tuple[Graph, Graph]]], list[Any],
                                            dict[str, list[str]]]:
    """Graph pairs per representation from files, and where each pair's correction is; a
    pair unreadable in one representation is left out of all (and reported), so that rows
    stay aligned."""
    read = {name: read_pairs(pair_inputs(src, cor), read_format, quiet) for name, src, cor in specs}
    counts = {name: len(p) for name, p in read.items()}
    if len(set(counts.values())) > 1:
        raise SemsimError("the representations give different numbers of pairs ("
                          + ", ".join(f"{n}: {c}" for n, c in counts.items()) + "); pairs are matched by position")
    first = next(iter(read.values()))
    keep = [i for i in range(len(first)) if all(p[i].error is None for p in read.values())]
    for p in read.values():
        readable_pairs(p)
    names = [first[i].name for i in keep]
    return (names, {n: [p[i].graphs for i in keep] for n, p in read.items()}, list(read.values()),
            {n: [p[i].correction for i in keep] for n, p in read.items()})


def _pairs_from_text(source: Path, hyp: Path, parser_specs: tuple[str, ...], parsing: ParseSettings, quiet: bool
                     ) -> tuple[list[str], dict[str, list[tuple[Graph, Graph]]], list[InputError],
                                dict[str, list[str]], dict[str, Signing]]:
    """Graph pairs per parser's representation from two line-parallel text files; pairs with
    an empty line are left out (nothing to parse), and so are, in every representation, the
    lines a parser could not parse (returned as errors, to report). Also what each
    representation's scores are signed with (its parser, model and tokenizer)."""
    from ..textfiles import read_parallel
    raw_src, raw_cor = read_parallel(source, [hyp])
    warn_if_untokenized({source: raw_src, **raw_cor}, parsing.tokenize, quiet)
    return pairs_from_texts(raw_src, raw_cor[hyp], parser_specs, parsing, source, hyp)


@click.command()
@click.option("--pairs", "pair_specs", type=(str, str, str), multiple=True, metavar="NAME SRC COR",
              help="A representation's graphs: a name for the columns, then sources and corrections "
                   "(files, directories or @lists, as for `semsim usim`). Repeat per representation.")
@click.option("--source", type=click.Path(dir_okay=False, path_type=Path), help="Or: source sentences, one a line.")
@click.option("--hyp", type=click.Path(dir_okay=False, path_type=Path), help="Corrections, line-parallel to --source.")
@click.option("--parser", "parser_specs", multiple=True, metavar="NAME[=MODEL]",
              help="With --source/--hyp: a parser (and its model) per representation. Repeatable.")
@usim_options
@click.option("--read-format", help="Reader to use for --pairs files; default: by suffix.")
@parsing_options(parser=False)
@format_option()
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write here instead of stdout.")
@click.option("--bootstrap", "n_bootstrap", type=click.IntRange(0, MAX_BOOTSTRAP), default=1000, show_default=True,
              help="Bootstrap resamples for each column's corpus confidence interval.")
@click.option("--seed", type=click.IntRange(0), default=12345, show_default=True)
@quiet_option
def compare(pair_specs: tuple[tuple[str, str, str], ...], source: Path | None, hyp: Path | None,
            parser_specs: tuple[str, ...], metric: USim, read_format: str | None, parsing: ParseSettings,
            fmt: str, output: str | None, n_bootstrap: int, seed: int, quiet: bool) -> None:
    """The same pairs under several representations, side by side, with their correlation.

    \b
    semsim compare --pairs ucca src/ cor/ --pairs amr src.amr cor.amr
    semsim compare --source src.txt --hyp cor.txt --parser tupa=MODEL --parser amrlib=DIR
    """
    check_writable(output, inputs=[*(p for _, a, b in pair_specs for p in (a, b)), source, hyp])
    read: list[Any] = []
    unparsed: list[InputError] = []
    if pair_specs and (source or hyp or parser_specs):
        raise SemsimError("give --pairs, or --source/--hyp with --parser, not both")
    if pair_specs and parsing.tokenize != "none":  # graphs are read, not parsed: there is no text to tokenize
        raise SemsimError("--tokenize applies to --source/--hyp text, not to --pairs graphs")
    if pair_specs:
        if len({n for n, _, _ in pair_specs}) != len(pair_specs):
            raise SemsimError("each --pairs needs its own name")
        names, by_rep, read, where = _pairs_from_files(pair_specs, read_format, quiet)
        signed_by: dict[str, Signing] = {}
    elif source and hyp and parser_specs:
        names, by_rep, unparsed, where, signed_by = _pairs_from_text(source, hyp, parser_specs, parsing, quiet)
    else:
        raise SemsimError("give --pairs NAME SRC COR (per representation), or --source, --hyp and --parser")
    result = comparison(names, by_rep, metric, where, signed_by, n_bootstrap=n_bootstrap, seed=seed)
    not_compared = Skipped("compared")
    for name, reason in result.not_compared.items():
        not_compared.add(reason, f"pair {name}")
    not_compared.show()
    check_compared(result)
    with open_output(output) as out:
        write(result.report(), fmt, out)
    for pairs in read:
        fail_if_unread(pairs)
    fail_if_unparsed(unparsed)
    not_compared.fail(lambda s: f"{len(s)} pair(s) not compared (see above)")
