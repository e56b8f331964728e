"""``semsim explain``: one pair's USim, shown unit by unit and edge by edge.

Writes an interactive HTML page (``--html``), the explanation as JSON (``--json``), or
both from one computation; with neither, prints a short summary (wrapped to the
terminal). Files are written through a temporary file in the same directory and renamed,
so a reader never sees half a page, and an existing file is only replaced by a complete
one. Notes (which pair, what was written) go to stderr unless ``-q``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import click

from ...kernel.errors import GraphError, InputError, SemsimError
from ...kernel.files import atomic_write
from ...kernel.graph import Graph
from ...kernel.limits import LimitError
from ...kernel.signature import Signature
from .. import report
from ..cli import parsing_options, quiet_option, usim_options
from ..parsing import ParseSettings
from ..usim import USim
from .inputs import GraphPair, check_writable, pair_inputs, read_pairs


def write_atomic(path: str, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all."""
    with atomic_write(path) as f:
        f.write(text)


@click.command()
@click.argument("source", required=False)
@click.argument("correction", required=False)
@click.option("--source", "text_source", type=click.Path(dir_okay=False, path_type=Path),
              help="Or, from text: source sentences, one a line (with --hyp and --line), parsed as `semsim score` "
                   "parses them.")
@click.option("--hyp", "text_hyp", type=click.Path(dir_okay=False, path_type=Path),
              help="A system's output, line-parallel to --source.")
@click.option("--line", type=click.IntRange(1), help="The line of --source and --hyp to explain (1-based).")
@usim_options
@click.option("--html", "html_path", type=click.Path(dir_okay=False), help="Write the interactive page here.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Write the explanation as JSON here.")
@click.option("--pair", "pair", default=None,
              help="Which pair to explain when the inputs hold several: its 1-based position, or its name "
                   "as `semsim usim` prints it, with or without file suffixes (fig1-source~fig1-correction).")
@click.option("--read-format", help="Reader to use (see `semsim plugins`); default: by suffix.")
@parsing_options
@quiet_option
def explain(source: str | None, correction: str | None, text_source: Path | None, text_hyp: Path | None,
            line: int | None, metric: USim, html_path: str | None, json_path: str | None, pair: str | None,
            read_format: str | None, parsing: ParseSettings, quiet: bool) -> None:
    """Why CORRECTION got its USim against SOURCE: alignments, matched and unmatched edges.

    SOURCE and CORRECTION are graph files; or give text with --source, --hyp and --line, and
    that line is parsed (through the parse cache) and explained, its signature naming the
    parser and model as `semsim score`'s does.

    \b
    semsim explain examples/fig1-source.xml examples/fig1-correction.xml --html fig1.html
    semsim explain src.amr cor.amr --pair 3 --json pair3.json --direction 'r->s'
    semsim explain --source examples/source.txt --hyp examples/system.txt --line 2 --html line2.html
    """
    from ..explain import explain as build
    from ..explain import render_html, summary
    text = text_source is not None or text_hyp is not None or line is not None
    if text and (source or correction):
        raise SemsimError("give graph files (SOURCE CORRECTION) or text (--source, --hyp, --line), not both")
    if text:
        if text_source is None or text_hyp is None or line is None:
            raise SemsimError("explaining text needs --source, --hyp and --line")
        check_writable(json_path, html_path, inputs=[text_source, text_hyp])
        chosen = _from_text(text_source, text_hyp, line, parsing, quiet)
    else:
        if source is None or correction is None:
            raise SemsimError("give SOURCE and CORRECTION graph files, or --source, --hyp and --line for text")
        if parsing.tokenize != "none" or parsing.parser or parsing.model:
            raise SemsimError("--tokenize, --parser and --model apply to --source/--hyp text, not to graph files")
        chosen = _from_graphs(source, correction, json_path, html_path, pair, read_format, quiet)
    try:
        doc = build(chosen.g1, chosen.g2, metric, sign=chosen.sign)
    except (LimitError, GraphError) as exc:  # too large to align, or two texts' graphs: name the pair's file
        raise SemsimError(f"{chosen.where}: {exc}{chosen.suffix}") from None
    outputs = []  # everything is rendered before anything is written
    if json_path:
        outputs.append((json_path, report.json_text(doc, indent=2) + "\n"))
    if html_path:
        outputs.append((html_path, render_html(doc)))
    for path, rendered in outputs:
        write_atomic(path, rendered)
        _note(f"wrote {path}", quiet)
    if not outputs:
        click.echo(report.text(summary(doc).split("\n")), nl=False)  # escaped, as every command's text


@dataclass(frozen=True)
class _Pair:
    """The two graphs to explain, where an error about them is (file or file:line, and what
    follows the message), and the parser and model that made them (text only)."""

    g1: Graph
    g2: Graph
    where: str
    suffix: str = ""
    #: a pair parsed from text: its score's signature names the parser, model and tokenizer
    #: (:meth:`semsim.app.parsing.Parses.sign`), as `semsim score`'s does
    sign: Callable[[Signature], Signature] | None = None


def _from_graphs(source: str, correction: str, json_path: str | None, html_path: str | None, pair: str | None,
                 read_format: str | None, quiet: bool) -> _Pair:
    """The pair of graphs to explain from graph files (``--pair`` chooses among several), and
    how an error about it is located."""
    if all(Path(p).suffix.lower() == ".txt" for p in (source, correction)):  # what a newcomer tries first
        raise SemsimError(f"{source}: plain text, not graphs: explain one of its lines with --source {source} "
                          f"--hyp {correction} --line N")
    named = pair_inputs(source, correction)
    check_writable(json_path, html_path, inputs=[source, correction, *(p for pair in named for p in pair)])
    pairs = read_pairs(named, read_format, quiet)
    chosen = _choose(pairs, pair)
    if chosen.error is not None:
        raise SemsimError(f"{chosen.error} (pair {chosen.name})")
    if len(pairs) > 1:
        _note(f"explaining pair {pairs.index(chosen) + 1} of {len(pairs)}: {chosen.name}", quiet)
    assert chosen.g1 is not None and chosen.g2 is not None  # read: no error
    return _Pair(chosen.g1, chosen.g2, chosen.source, f" (pair {chosen.name})")


def _from_text(source: Path, hyp: Path, line: int, parsing: ParseSettings, quiet: bool) -> _Pair:
    """Line ``line`` of two line-parallel text files, parsed through the one route from text
    (:func:`semsim.app.scoring.parse_pairs`), and what signs its explanation. A line that
    route would leave out (a side the parser failed on, a pair too large to align) is the
    error here, named by file and line: there is nothing else to explain."""
    from ..scoring import Files, parse_pairs
    from ..textfiles import read_parallel
    from .common import warn_if_untokenized
    src, others = read_parallel(source, [hyp])
    if line > len(src):
        raise InputError(f"--line {line}: the files have {len(src)} lines", source)
    pair = (src[line - 1], others[hyp][line - 1])
    for path, text in zip((source, hyp), pair):
        if not text.strip():
            raise InputError("an empty line: nothing to explain (it scores by convention: 1 against another empty "
                             "line, else 0)", path, line)
    warn_if_untokenized({source: src, hyp: others[hyp]}, parsing.tokenize, quiet)
    # the pair's alignment bounds are not asked here (left_out): explaining it checks them, and
    # names the bound it meets first
    parsed = parse_pairs([pair[0]], [pair[1]], parsing, Files(source, {"hyp": hyp}), left_out=[1])
    for e in parsed.skipped:  # parsed as line 1 of one-line texts: named by the line asked for
        raise InputError(e.message, e.path, line)
    g1, g2 = parsed.graphs(1)
    return _Pair(g1, g2, f"{hyp}:{line}", sign=parsed.parses.sign)


def _note(message: str, quiet: bool) -> None:
    """A note for the person at the terminal, on stderr so that stdout stays the summary."""
    if not quiet:
        click.echo(f"semsim: {message}", err=True)


def _choose(pairs: list[GraphPair], pair: str | None) -> GraphPair:
    """The one pair to explain: the only one, or the one ``--pair`` names."""
    if pair is None:
        if len(pairs) != 1:
            raise SemsimError(f"the inputs hold {len(pairs)} pairs; choose one with --pair N (1-{len(pairs)}) "
                              "or --pair NAME")
        return pairs[0]
    if pair.isascii() and pair.isdigit():
        n = int(pair)
        if not 1 <= n <= len(pairs):
            raise SemsimError(f"--pair {n}: the inputs hold {len(pairs)} pairs")
        return pairs[n - 1]
    named = [p for p in pairs if p.name == pair]
    if not named:  # the name without file suffixes, or the graph ids (docs/explain.md)
        named = [p for p in pairs if pair in pair_aliases(p)]
    if not named:
        sample = ", ".join(p.name for p in pairs[:5])
        raise SemsimError(f"--pair {pair!r}: no pair of that name (names: {sample}{', ...' if len(pairs) > 5 else ''})")
    if len(named) > 1:
        where = ", ".join(str(pairs.index(p) + 1) for p in named)
        raise SemsimError(f"--pair {pair!r}: {len(named)} pairs have that name (at {where}); choose one by number")
    return named[0]


def _joined(a: str, b: str) -> str:
    """Two sides' names as a pair's name: ``a`` if they agree, else ``a~b`` (as `semsim usim`)."""
    return a if a == b else f"{a}~{b}"


def _stem(side: str) -> str:
    """A pair side's file name without its suffix: ``dir/fig1-source.xml`` -> ``fig1-source``,
    ``graphs.amr#2`` (the second graph of a file) -> ``graphs#2``."""
    path, sep, n = side.rpartition("#")
    if not (sep and n.isascii() and n.isdigit()):
        path, n = side, ""
    return Path(path).stem + (f"#{n}" if n else "")


def pair_aliases(p: GraphPair) -> list[str]:
    """The other names ``--pair`` accepts for ``p``, besides the one `semsim usim` prints
    (``fig1-source.xml~fig1-correction.xml``): the same without file suffixes
    (``fig1-source~fig1-correction``) and the two graphs' ids joined alike."""
    names = [_joined(_stem(p.source), _stem(p.correction))]
    if p.g1 is not None and p.g2 is not None and p.g1.id and p.g2.id:
        names.append(_joined(p.g1.id, p.g2.id))
    return names
