"""``semsim usim``: USim of corrections against their sources, from graphs."""

from __future__ import annotations

import click

from ..cli import output_options, usim_options
from ..usim import USim
from .common import score_pairs
from .inputs import pair_inputs


@click.command()
@click.argument("source")
@click.argument("correction")
@usim_options
@output_options
def usim(source: str, correction: str, metric: USim, fmt: str, output: str | None,
         read_format: str | None, n_bootstrap: int, seed: int, score_only: bool, quiet: bool) -> None:
    """USim of CORRECTION against SOURCE (files, directories matched by name, @lists, or -
    for standard input).

    \b
    semsim usim examples/fig1-source.xml examples/fig1-correction.xml
    semsim usim sources/ corrections/ --format jsonl -o usim.jsonl --bootstrap 1000
    semsim usim src.amr cor.amr --variant legacy -b
    """
    score_pairs(pair_inputs(source, correction), metric.sentence_score, fmt, output, read_format,
                quiet, n_bootstrap, seed, score_only, inputs=(source, correction))

