"""``semsim distsim``: the paper's per-label edge-count distance of corrections from sources."""

from __future__ import annotations

import json

import click

from .. import __version__
from ..cli import quiet_option
from ..io import fail_if_unread, pair_inputs, read_pairs, readable_pairs
from ..stats import signature


@click.command()
@click.argument("source")
@click.argument("correction")
@click.option("--by-sentence", is_flag=True, help="Count per synchronised sentence (N = sentence pairs).")
@click.option("--label", "labels", multiple=True, help="Labels or groups to report (default: all).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--read-format", help="Reader to use; default: by suffix.")
@quiet_option
def distsim(source: str, correction: str, by_sentence: bool, labels: tuple[str, ...], fmt: str,
            read_format: str | None, quiet: bool) -> None:
    """DistSim per label: mean |count in source - count in correction| (lower = more similar).

    \b
    semsim distsim examples/fig1-source.xml examples/fig1-correction.xml
    semsim distsim sources/ corrections/ --by-sentence --label A --label P --format json
    """
    from ..api import distsim as _distsim
    read = read_pairs(pair_inputs(source, correction), read_format, quiet)
    graphs = readable_pairs(read)
    if not graphs:
        fail_if_unread(read)
    result = _distsim([(p.g1, p.g2) for p in graphs], labels or None, by_sentence)
    sig = signature("distsim", {"by_sentence": by_sentence, "labels": ",".join(labels) or "all",
                                "scheme": graphs[0].g1.scheme.name}, __version__)
    if fmt == "json":
        click.echo(json.dumps({"distsim": result, "by_sentence": by_sentence, "n_pairs": len(graphs),
                               "version": __version__, "signature": sig}, indent=2))
    else:
        for k, v in result.items():
            click.echo(f"{k}\t{v:.4f}")
        click.echo(f"signature: {sig}")
    fail_if_unread(read)

