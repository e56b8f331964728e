"""``semsim explain``: one pair's USim, shown unit by unit and edge by edge.

Writes an interactive HTML page (``--html``), the explanation as JSON (``--json``), or
both from one computation; with neither, prints a short summary. Files are written
through a temporary file in the same directory and renamed, so a reader never sees half
a page, and an existing file is only replaced by a complete one.
"""

from __future__ import annotations

import json

import click

from ..cli import usim_metric as _metric
from ..cli import usim_options as _usim_options
from ..errors import SemsimError
from ..io import GraphPair as _Pair
from ..io import atomic_write, pair_inputs
from ..io import read_pairs as _read_pairs


def write_atomic(path: str, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all."""
    with atomic_write(path) as f:
        f.write(text)


@click.command()
@click.argument("source")
@click.argument("correction")
@_usim_options
@click.option("--html", "html_path", type=click.Path(dir_okay=False), help="Write the interactive page here.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Write the explanation as JSON here.")
@click.option("--pair", "pair", default=None,
              help="Which pair to explain when the inputs hold several: its 1-based position or its name.")
@click.option("--read-format", help="Reader to use (see `semsim plugins`); default: by suffix.")
def explain(source: str, correction: str, variant: str, direction: str, tie_break: str, labels: str,
            remote: bool, align: str, denominator: str, single_token_units: bool, html_path: str | None,
            json_path: str | None, pair: str | None, read_format: str | None) -> None:
    """Why CORRECTION got its USim against SOURCE: alignments, matched and unmatched edges.

    \b
    semsim explain examples/fig1-source.xml examples/fig1-correction.xml --html fig1.html
    semsim explain src.amr cor.amr --pair 3 --json pair3.json --direction 'r->s'
    """
    from ..explain import explain as build
    from ..explain import render_html, summary
    metric = _metric(variant, direction, tie_break, labels, remote, align, denominator, single_token_units)
    pairs = _read_pairs(pair_inputs(source, correction), read_format, True)
    chosen = _choose(pairs, pair)
    if chosen.error is not None:
        raise SemsimError(f"{chosen.error} (pair {chosen.name})")
    doc = build(chosen.g1, chosen.g2, metric)
    outputs = []  # everything is rendered before anything is written
    if json_path:
        outputs.append((json_path, json.dumps(doc, indent=2, ensure_ascii=False) + "\n"))
    if html_path:
        outputs.append((html_path, render_html(doc)))
    for path, text in outputs:
        write_atomic(path, text)
    if not outputs:
        click.echo(summary(doc))


def _choose(pairs: list[_Pair], pair: str | None) -> _Pair:
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
    if not named:
        sample = ", ".join(p.name for p in pairs[:5])
        raise SemsimError(f"--pair {pair!r}: no pair of that name (names: {sample}{', ...' if len(pairs) > 5 else ''})")
    if len(named) > 1:
        where = ", ".join(str(pairs.index(p) + 1) for p in named)
        raise SemsimError(f"--pair {pair!r}: {len(named)} pairs have that name (at {where}); choose one by number")
    return named[0]
