"""``semsim sensitivity``: mean ΔUSim per error type from an M2 file (§4.4 of the USim paper).

Every sentence's gold edits are applied one at a time in a seeded random order; each edit
scores the change in USim against a "source" drawn from the resulting sentences, and the
changes are averaged per error type (:mod:`semsim.app.gec.sensitivity` gives the reading).
All the intermediate sentences are parsed once each, through the parse cache.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from ...kernel.errors import InputError, ParseError, SemsimError
from ...kernel.limits import MAX_BOOTSTRAP
from ..cli import format_option, parsing_options, quiet_option, usim_options
from ..gec.m2 import read_m2
from ..gec.sensitivity import ANCHORS, TypeSummary, build_chains, by_type, chain_texts, edit_deltas
from ..parsing import ParseSettings, graph_key
from ..report import Col, Record, Report, Skipped, Table, num, write, write_jsonl
from ..usim import USim
from .inputs import check_writable, open_output


def _annotator(value: str, path: Path, known: set[int]) -> int | None:
    if value == "all":
        return None
    try:
        n = int(value)
    except ValueError:
        raise SemsimError(f"--annotator must be 'all' or an annotator id, not {value!r}") from None
    if n not in known:
        raise InputError(f"annotator {n} annotates no sentence (annotators: {', '.join(map(str, sorted(known)))})",
                         path)
    return n


@click.command()
@click.argument("m2_file", metavar="FILE.m2", type=click.Path(dir_okay=False, path_type=Path))
@usim_options
@click.option("--annotator", default="all", show_default=True,
              help="Whose edits: an annotator id, or 'all' (each annotator's edits form their own chain).")
@click.option("--anchor", type=click.Choice(ANCHORS), default="random", show_default=True,
              help="The sentence USim compares against: random = drawn from the chain's sentences (§4.4); "
                   "original = the learner sentence.")
@click.option("--seed", type=click.IntRange(0), default=12345, show_default=True,
              help="Seed of the edit orders, anchors and bootstrap.")
@click.option("--bootstrap", "n_bootstrap", type=click.IntRange(0, MAX_BOOTSTRAP), default=1000, show_default=True,
              help="Bootstrap resamples for each type's confidence interval (0: none).")
@parsing_options
@format_option(help="Format of the per-type table on stdout.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Per-edit records (JSON Lines) here.")
@quiet_option
def sensitivity(m2_file: Path, metric: USim, annotator: str, anchor: str, seed: int, n_bootstrap: int,
                parsing: ParseSettings, fmt: str, output: str | None, quiet: bool) -> None:
    """Mean change in USim per error type when FILE.m2's gold edits are applied one by one.

    As §4.4 of the USim paper: per sentence (and annotator), the edits are applied in a
    seeded random order; each edit scores USim(anchor, after) - USim(anchor, before), the
    anchor being one of the chain's sentences drawn at random; the table averages these by
    error type, from the most rewarded to the most penalised.

    \b
    semsim sensitivity dev.m2 --parser tupa --model MODEL -o edits.jsonl
    """
    from ..scoring import Files, parse_pairs
    from .common import warn_if_untokenized
    check_writable(output, inputs=[m2_file])
    sentences = read_m2(m2_file)
    who = _annotator(annotator, m2_file, {a for s in sentences for a in s.annotators})
    chains = build_chains(sentences, who, seed, anchor)
    n_edits = sum(len(c.edits) for c in chains)
    if not n_edits:
        raise InputError("no edits to apply" + (f" by annotator {who}" if who is not None else "")
                         + " (only noop or no annotations)", m2_file)
    warn_if_untokenized({m2_file: [c.versions[-1] for c in chains]}, parsing.tokenize, quiet)
    skipped = [(c.annotator, k) for c in chains for k in c.skipped]
    if skipped and not quiet:
        a, conflict = skipped[0]
        click.echo(f"semsim: {len(skipped)} overlapping edit(s) skipped, e.g. {m2_file}:{conflict.skipped.line} "
                   f"overlaps {m2_file}:{conflict.kept.line} (annotator {a}); the earlier edit is kept", err=True)
    # every chain's (anchor, version) pairs, one a line, through the one route from text: it
    # leaves out a line whose version the parser failed on or that is too large to align with
    # its anchor, and such a line spoils its chain (its edits' deltas need it), and only that chain
    at = [k for k, c in enumerate(chains) for _ in c.versions]  # each line's chain
    try:
        parsed = parse_pairs([c.versions[c.anchor] for c in chains for _ in c.versions], chain_texts(chains),
                             parsing, Files("anchor", {"version": "version"}))
    except ParseError as exc:  # every sentence failed (say, each over the length bound): name the first's line
        named = {graph_key(t) for t in exc.sentences}
        first = next((c for c in chains if any(graph_key(v) in named for v in c.versions)), None)
        if first is None:
            raise
        raise InputError(str(exc), m2_file, first.sentence.line) from None
    parses = parsed.parses
    # every version (the learner sentence, each partial correction) as tokenized for parsing
    chains = [replace(c, versions=tuple(parses.tokenized(c.versions))) for c in chains]
    why: dict[int, InputError] = {}  # a chain -> its first version left out (an anchor is a version too)
    for e in parsed.skipped:
        if e.path == "version" and e.line is not None:
            why.setdefault(at[e.line - 1], e)
    failed = {k for k, e in why.items() if graph_key(parsed.output[(e.line or 1) - 1]) in parses.failed}
    # the chains a version of which could not be parsed, then those beyond a bound
    too_large = [(c, why[k].message) for k, c in enumerate(chains) if k in why and k not in failed]
    unparsed = [(c, why[k].message) for k, c in enumerate(chains) if k in failed] + too_large
    chains = [c for k, c in enumerate(chains) if k not in why]
    if not chains:
        raise SemsimError(f"no sentence could be scored: {m2_file}:{unparsed[0][0].sentence.line}: {unparsed[0][1]}")
    deltas = edit_deltas(chains, parses.graphs, parses.signed(metric.sentence_score))
    types = by_type(deltas, n_bootstrap=n_bootstrap, seed=seed)
    signature = parses.sign(metric.signature(parses.representation)).format()
    if output:
        with open_output(output) as out:
            write_jsonl(({**d.as_dict(), "signature": signature} for d in deltas), out)
    summary = {"file": str(m2_file), "sentences": len(sentences), "chains": len(chains), "edits": len(deltas),
               "not_scored": [{"line": c.sentence.line, "annotator": c.annotator, "reason": r} for c, r in unparsed],
               "mean_delta": sum(d.delta for d in deltas) / len(deltas),
               "skipped_overlapping": [{"line": k.skipped.line, "overlaps_line": k.kept.line, "annotator": a}
                                       for a, k in skipped],
               "annotator": annotator, "anchor": anchor, "seed": seed, "n_bootstrap": n_bootstrap,
               "confidence": 0.95, "parser": parses.parser, "model": parsing.model, "signature": signature}
    write(_report(types, summary), fmt)
    not_counted = Skipped("counted")
    for c, reason in unparsed:
        not_counted.add(f"{m2_file}:{c.sentence.line}: {reason}",
                        f"annotator {c.annotator}'s {len(c.edits)} edit(s) of this sentence")
    how = "parsed or aligned" if too_large else "parsed"
    not_counted.fail(lambda s: f"{len(s)} sentence(s) not scored: a version could not be {how} (see above)")


def _report(types: list[TypeSummary], summary: dict[str, Any]) -> Report:
    """The per-type table (from the most rewarded type down), then the whole run's summary."""
    def tsv(t: Record) -> dict[str, Any]:
        return {"type": t["type"], "n": t["n"], "mean_delta": float(t["mean"]),
                **{k: None if t[k] is None else float(t[k]) for k in ("se", "ci_low", "ci_high")}}

    def parts(_items: list[Record], _markdown: bool) -> list[Table | str]:
        rows = [[t.type, str(t.n), num(t.mean, signed=True), num(t.se, none=""),
                 "" if t.ci_low is None else f"[{num(t.ci_low, signed=True)}, {num(t.ci_high, signed=True)}]"]
                for t in types]
        s = summary
        return [Table([Col("type", "<"), Col("n", ">", 5), Col("mean ΔUSim", ">", 10), Col("SE", ">", 7),
                       Col("95% CI", ">", 19)], rows, rstrip=True),
                f"all edits: n={s['edits']}, mean ΔUSim {num(s['mean_delta'], signed=True)}; {s['chains']} chains "
                f"from {s['sentences']} sentences (annotator {s['annotator']}); "
                f"{len(s['skipped_overlapping'])} overlapping edits skipped",
                f"anchor: {s['anchor']}, seed {s['seed']}, parser {s['parser']}",
                f"signature: {s['signature']}"]

    return Report([t.as_dict() for t in types], trailer=lambda: [{"summary": True, **summary}],
                  document=lambda rows: {"types": rows, "summary": summary}, row=tsv, parts=parts)
