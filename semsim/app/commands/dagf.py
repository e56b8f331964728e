"""``semsim dagf``: DAG F-score of two annotations of the same text."""

from __future__ import annotations

import click

from ..cli import output_options
from .common import score_pairs
from .inputs import pair_inputs


@click.command()
@click.argument("guessed")
@click.argument("reference")
@click.option("--labels", type=click.Choice(["labeled", "weak", "unlabeled"]), default="labeled",
              show_default=True)
@click.option("--count", type=click.Choice(["yields", "edges"]), default="yields", show_default=True,
              help="yields: as ucca.evaluation (distinct yields); edges: every edge, as §3's prose.")
@output_options
def dagf(guessed: str, reference: str, labels: str, count: str, fmt: str, output: str | None,
         read_format: str | None, n_bootstrap: int, seed: int, score_only: bool, quiet: bool) -> None:
    """DAG F-score of two annotations of the same text (precision on GUESSED).

    \b
    semsim dagf examples/fig1-source.annotator2.xml examples/fig1-source.xml
    semsim dagf annotator1/ annotator2/ --labels unlabeled --format tsv
    """
    from ..usim import dag_f
    score_pairs(pair_inputs(guessed, reference), lambda a, b: dag_f(a, b, labels=labels, count=count),
                fmt, output, read_format, quiet, n_bootstrap, seed, score_only, inputs=(guessed, reference))

