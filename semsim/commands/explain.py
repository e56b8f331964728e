"""``semsim explain``: one pair's USim, shown unit by unit and edge by edge.

Writes an interactive HTML page (``--html``), the explanation as JSON (``--json``), or
both from one computation; with neither, prints a short summary (wrapped to the
terminal). Files are written through a temporary file in the same directory and renamed,
so a reader never sees half a page, and an existing file is only replaced by a complete
one. Notes (which pair, what was written) go to stderr unless ``-q``.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..api import USim
from ..cli import quiet_option, usim_options
from ..errors import GraphError, SemsimError
from ..files import atomic_write
from ..limits import LimitError
from .inputs import GraphPair, check_writable, pair_inputs, read_pairs


def write_atomic(path: str, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all."""
    with atomic_write(path) as f:
        f.write(text)


@click.command()
@click.argument("source")
@click.argument("correction")
@usim_options
@click.option("--html", "html_path", type=click.Path(dir_okay=False), help="Write the interactive page here.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Write the explanation as JSON here.")
@click.option("--pair", "pair", default=None,
              help="Which pair to explain when the inputs hold several: its 1-based position, or its name "
                   "as `semsim usim` prints it, with or without file suffixes (fig1-source~fig1-correction).")
@click.option("--read-format", help="Reader to use (see `semsim plugins`); default: by suffix.")
@quiet_option
def explain(source: str, correction: str, metric: USim, html_path: str | None,
            json_path: str | None, pair: str | None, read_format: str | None, quiet: bool) -> None:
    """Why CORRECTION got its USim against SOURCE: alignments, matched and unmatched edges.

    \b
    semsim explain examples/fig1-source.xml examples/fig1-correction.xml --html fig1.html
    semsim explain src.amr cor.amr --pair 3 --json pair3.json --direction 'r->s'
    """
    from ..explain import explain as build
    from ..explain import render_html, summary
    named = pair_inputs(source, correction)
    check_writable(json_path, html_path, inputs=[source, correction, *(p for pair in named for p in pair)])
    pairs = read_pairs(named, read_format, quiet)
    chosen = _choose(pairs, pair)
    if chosen.error is not None:
        raise SemsimError(f"{chosen.error} (pair {chosen.name})")
    if len(pairs) > 1:
        _note(f"explaining pair {pairs.index(chosen) + 1} of {len(pairs)}: {chosen.name}", quiet)
    try:
        doc = build(chosen.g1, chosen.g2, metric)
    except (LimitError, GraphError) as exc:  # too large to align, or two texts' graphs: name the pair's file
        raise SemsimError(f"{chosen.source}: {exc} (pair {chosen.name})") from None
    outputs = []  # everything is rendered before anything is written
    if json_path:
        outputs.append((json_path, json.dumps(doc, indent=2, ensure_ascii=False) + "\n"))
    if html_path:
        outputs.append((html_path, render_html(doc)))
    for path, text in outputs:
        write_atomic(path, text)
        _note(f"wrote {path}", quiet)
    if not outputs:
        click.echo(summary(doc))


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
