"""``semsim compare``: the same source/correction pairs scored under several representations,
side by side, with the correlation between them (UCCA vs AMR, say).

Each representation contributes USim (same settings for all) and every metric a plugin
registers for it (``register_metrics``: Smatch for AMR). Pairs come pre-parsed (``--pairs
NAME SRC COR``, one option per representation, paired by position) or from text parsed by
each ``--parser`` (every sentence once, through the parse cache). The core names no
representation: columns are called after the graphs' schemes.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ...kernel.errors import InputError, SemsimError
from ...kernel.graph import Graph
from ...kernel.limits import MAX_BOOTSTRAP
from ...kernel.signature import Signature
from ...kernel.stats import Score, corpus_score, correlation
from ..cli import format_option, parsing_options, quiet_option, usim_options
from ..parsing import ParseSettings
from ..report import Col, Record, Report, Skipped, Table, num, write
from ..usim import USim
from .common import fail_if_unparsed, warn_if_untokenized
from .inputs import check_writable, fail_if_unread, open_output, pair_inputs, read_pairs, readable_pairs

if TYPE_CHECKING:
    from ..scoring import ParsedPairs

#: what a column's scores of parsed text are signed with (:meth:`semsim.app.parsing.Parses.sign`)
Signing = Callable[[Signature], Signature]


@dataclass(frozen=True)
class Column:
    """One number per pair: a metric under one representation."""

    name: str  # "amr:smatch"
    scores: list[Score]


def columns_for(rep: str, pairs: list[tuple[Graph, Graph]], usim: USim,
                failed: dict[int, str] | None = None, where: Sequence[str] | None = None) -> list[Column]:
    """USim and the plugin metrics of ``rep``'s scheme over the pairs.

    A pair a metric cannot score (too large: :class:`~semsim.kernel.limits.LimitError`; or a graph
    the metric's own parser rejects) raises, or with ``failed`` is recorded there (pair
    index → reason, led by the pair's file and line from ``where``) and scored by no later
    metric; its place in the columns holds a placeholder to drop (:func:`drop_failed`)."""
    from ..plugins import metrics
    schemes = {g.scheme.name for pair in pairs for g in pair}
    fns: list[tuple[str, Callable[[Graph, Graph], Score]]] = [("usim", usim.sentence_score)]
    fns += [(m.name, m.score) for m in sorted(metrics().values(), key=lambda m: m.name) if m.representation in schemes]
    columns = []
    for name, fn in fns:
        scores = []
        for i, (a, b) in enumerate(pairs):
            try:
                scores.append(_NOT_SCORED if failed and i in failed else fn(a, b))
            except SemsimError as exc:  # too large (LimitError), or a metric cannot read the pair
                if failed is None:
                    raise
                failed[i] = f"{where[i] if where else rep}: {exc}"
                scores.append(_NOT_SCORED)
        columns.append(Column(f"{rep}:{name}", scores))
    return columns


_NOT_SCORED = Score.fixed(0.0, ["-"], Signature())


def drop_failed(columns: list[Column], failed: Collection[int]) -> list[Column]:
    """The columns without the pairs at ``failed`` positions."""
    return [Column(c.name, [s for i, s in enumerate(c.scores) if i not in failed]) for c in columns]


def correlations(columns: list[Column]) -> list[dict[str, Any]]:
    """Pearson r and Spearman ρ (with p-values) between every two columns; None where a
    column is constant (the coefficient is undefined)."""
    out = []
    for i, a in enumerate(columns):
        for b in columns[i + 1:]:
            x, y = [s.f for s in a.scores], [s.f for s in b.scores]
            row: dict[str, Any] = {"a": a.name, "b": b.name, "n": len(x)}
            defined = len(x) >= 3 and len(set(x)) > 1 and len(set(y)) > 1
            for key in ("pearson", "spearman"):
                r, p = correlation(key, x, y) if defined else (math.nan, math.nan)
                row[key] = None if math.isnan(r) else float(r)
                row[f"{key}_p"] = None if math.isnan(p) else float(p)
            out.append(row)
    return out


def _parse_spec(spec: str) -> tuple[str, str | None]:
    name, _, model = spec.partition("=")
    return name, model or None


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
    from ..scoring import Files, parse_pairs
    from ..textfiles import read_parallel
    raw_src, raw_cor = read_parallel(source, [hyp])
    warn_if_untokenized({source: raw_src, **raw_cor}, parsing.tokenize, quiet)
    parsed: dict[str, ParsedPairs] = {}
    signed_by: dict[str, Signing] = {}
    unparsed: list[InputError] = []
    for spec in parser_specs:
        name, model = _parse_spec(spec)
        pairs = parse_pairs(raw_src, raw_cor[hyp], replace(parsing, parser=name, model=model), Files(source, {"": hyp}),
                            {e.line for e in unparsed if e.line is not None})
        rep = pairs.parses.representation if pairs.parses.representation not in parsed else name
        parsed[rep], signed_by[rep] = pairs, pairs.parses.sign
        unparsed += pairs.skipped
    skip = {e.line for e in unparsed if e.line is not None}
    lines = [i - 1 for i in pairs.lines if i not in skip]  # 0-based: the lines every parser could give
    if not lines:
        raise SemsimError(f"{source}: no pair of non-empty lines to compare"
                          + (f" ({len(skip)} could not be parsed or aligned: {unparsed[0]})" if unparsed else ""))
    out = {rep: [p.graphs(i + 1) for i in lines] for rep, p in parsed.items()}
    return ([f"line {i + 1}" for i in lines], out, unparsed, {rep: [f"{hyp}:{i + 1}" for i in lines] for rep in out},
            signed_by)


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
    if not names:
        raise SemsimError("no pair could be read in every representation")
    failed: dict[int, str] = {}  # pairs too large to score in some representation: left out of all
    columns = []
    for rep, pairs in by_rep.items():
        by = signed_by.get(rep)  # scores of parsed text name the parser, model and tokenizer, as `score`'s do
        columns += [c if by is None else Column(c.name, [replace(s, signature=by(s.signature)) for s in c.scores])
                    for c in columns_for(rep, pairs, metric, failed, where[rep])]
    columns = drop_failed(columns, failed)
    not_compared = Skipped("compared")
    for i in sorted(failed):
        not_compared.add(failed[i], f"pair {names[i]}")
    not_compared.show()
    names = [n for i, n in enumerate(names) if i not in failed]
    if not names:
        raise SemsimError(f"no pair could be compared: {failed[min(failed)]}")
    corpus = {c.name: corpus_score(c.scores, n_bootstrap=n_bootstrap, seed=seed) for c in columns}
    corr = correlations(columns)
    rows = [{"name": n, **{c.name: c.scores[i].f for c in columns}} for i, n in enumerate(names)]
    signatures = {c.name: c.scores[0].signature.format() for c in columns}
    with open_output(output) as out:
        write(_report(rows, corpus, corr, signatures), fmt, out)
    for pairs in read:
        fail_if_unread(pairs)
    fail_if_unparsed(unparsed)
    not_compared.fail(lambda s: f"{len(s)} pair(s) not compared (see above)")


def _report(rows: list[dict[str, Any]], corpus: dict[str, Any], corr: list[dict[str, Any]],
            signatures: dict[str, str]) -> Report:
    """A record per pair, its number under each column, then the columns' corpus scores,
    correlations and signatures (the last JSON Lines record; below the text table)."""
    cols = list(signatures)
    summary = {"corpus": {k: v.as_dict() for k, v in corpus.items()}, "correlations": corr,
               "signatures": signatures}

    def parts(_rows: list[Record], _markdown: bool) -> list[Table | str]:
        width = max(len("pair"), *(len(r["name"]) for r in rows))
        cw = max(10, *(len(c) for c in cols))
        cells = [[r["name"], *(num(r[c]) for c in cols)] for r in rows]
        cells.append(["mean", *(num(corpus[c].macro) for c in cols)])
        if any(corpus[c].ci for c in cols):
            cells.append(["95% CI", *(_ci(corpus[c].ci) for c in cols)])
        p = functools.partial(num, tiny=1e-4)  # correlations and their p-values
        return [Table([Col("pair", "<", width), *(Col(c, ">", cw) for c in cols)], cells),
                *(f"{c['a']} ~ {c['b']}: Pearson r {p(c['pearson'])} (p {p(c['pearson_p'])}), "
                  f"Spearman rho {p(c['spearman'])} (p {p(c['spearman_p'])}), n={c['n']}" for c in corr),
                *(f"signature {c}: {s}" for c, s in signatures.items())]

    return Report(rows, trailer=lambda: [summary], document=lambda items: {"pairs": items, **summary},
                  row=lambda r: {"pair": r["name"], **{c: float(r[c]) for c in cols}}, parts=parts)


def _ci(ci: tuple[float, float] | None) -> str:
    return f"{num(ci[0], 3)}-{num(ci[1], 3)}" if ci else ""
