"""``semsim distsim``: the paper's per-label edge-count distance of corrections from sources."""

from __future__ import annotations

import click

from ...kernel.errors import GraphError
from ...kernel.limits import LimitError
from ...kernel.version import __version__
from ..cli import format_option, quiet_option
from ..report import Part, Report, Skipped, num, write
from .common import report_unscored, skip_pair
from .inputs import pair_inputs, read_pairs, readable_pairs


@click.command()
@click.argument("source")
@click.argument("correction")
@click.option("--by-sentence", is_flag=True, help="Count per synchronised sentence (N = sentence pairs).")
@click.option("--label", "labels", multiple=True, help="Labels or groups to report (default: all).")
@format_option(["text", "json"])
@click.option("--read-format", help="Reader to use; default: by suffix.")
@quiet_option
def distsim(source: str, correction: str, by_sentence: bool, labels: tuple[str, ...], fmt: str,
            read_format: str | None, quiet: bool) -> None:
    """DistSim per label: mean |count in source - count in correction| (lower = more similar).

    \b
    semsim distsim examples/fig1-source.xml examples/fig1-correction.xml
    semsim distsim sources/ corrections/ --by-sentence --label A --label P --format json
    """
    from ..usim import distsim as _distsim
    read = read_pairs(pair_inputs(source, correction), read_format, quiet)
    graphs, unscored = [], Skipped()
    for p in readable_pairs(read):  # a pair too large (or deep) to count costs only itself
        try:
            _distsim([(p.g1, p.g2)], labels or None, by_sentence)
            graphs.append(p)
        except (LimitError, GraphError) as exc:
            skip_pair(unscored, p, exc)
    if not graphs:
        report_unscored(unscored, read)
    result = _distsim([(p.g1, p.g2) for p in graphs], labels or None, by_sentence)
    document = {"distsim": dict(result), "by_sentence": by_sentence, "n_pairs": len(graphs), "version": __version__,
                "signature": result.signature.format()}
    lines: list[Part] = [*((k, num(v)) for k, v in result.items()), f"signature: {result.signature}"]
    write(Report(document=lambda _: document, parts=lambda _, __: lines, formats=("text", "json")), fmt)
    report_unscored(unscored, read)

