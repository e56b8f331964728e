"""Helpers shared by several commands: scoring graph pairs and writing their records
(``usim``, ``dagf``), and naming and reporting the lines of text files (``score``,
``conservatism``, ``compare``, ``parse``)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import click

from ..errors import GraphError, InputError, SemsimError
from ..io import write_jsonl, write_tsv
from ..limits import LimitError
from ..stats import Score, corpus_score
from .inputs import GraphPair, check_writable, fail_if_unread, open_output, read_pairs, readable_pairs

_NOT_IN_TABLES = ("name", "source", "correction", "detail", "signature")


def emit(records: Callable[[], Iterator[dict[str, Any]]], fmt: str, out: IO[str],
         summary: Callable[[], dict[str, Any] | None]) -> None:
    """Pair records (and the corpus record) in one of the output formats; the text table ends
    with the signature, the corpus one (which names the bootstrap) when there is one."""
    if fmt == "jsonl":
        write_jsonl(records(), out)
        s = summary()
        if s:
            write_jsonl([s], out)
    elif fmt == "tsv":
        write_tsv(records(), out, exclude=("name", "detail"))
    elif fmt == "json":
        rows = list(records())
        doc: dict[str, Any] = {"pairs": rows}
        s = summary()
        if s:
            doc["corpus"] = s
        out.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    else:
        rows = list(records())
        columns = [c for c in rows[0] if c not in _NOT_IN_TABLES] if rows else []
        width = max(len(str(r.get("name", ""))) for r in rows) if rows else 4
        out.write("  ".join([f"{'pair':<{width}}"] + [f"{c:>8}" for c in columns]) + "\n")
        for r in rows:
            cells = [f"{r.get(c, ''):>8.4f}" if isinstance(r.get(c), float) else f"{r.get(c, '')!s:>8}"
                     for c in columns]
            out.write("  ".join([f"{r.get('name', ''):<{width}}", *cells]) + "\n")
        s = summary()
        if s:
            ci = ""
            if "macro_ci" in s:
                ci = f"  {s['confidence']:.0%} CI [{s['macro_ci'][0]:.4f}, {s['macro_ci'][1]:.4f}]"
            out.write(f"corpus: macro F {s['macro_f']:.4f}{ci}  micro F {s['micro_f']:.4f}  n={s['n']}\n")
        if rows:
            out.write(f"signature: {(s or rows[0])['signature']}\n")


def score_pairs(pairs: list[tuple[Path, Path]], score: Callable[[Any, Any], Score], fmt: str,
                output: str | None, read_format: str | None, quiet: bool, n_bootstrap: int, seed: int,
                score_only: bool = False, inputs: Sequence[str] = ()) -> None:
    """Score every readable pair and write a record per pair (and a corpus record), or with
    ``score_only`` just the number; then report what could not be read or scored (exit 1).
    ``inputs``: the command's arguments, refused as the output as every file of ``pairs`` is."""
    from ..progress import bar
    check_writable(output, inputs=[*inputs, *(p for pair in pairs for p in pair)])
    read = read_pairs(pairs, read_format, quiet)
    graphs = readable_pairs(read)
    scores: list[Score] = []
    unscored: list[str] = []  # pairs beyond a resource bound, or not comparable: reported, the others scored

    def records() -> Iterator[dict[str, Any]]:
        for pair in bar(graphs, desc="scoring", unit="pair", quiet=quiet or len(graphs) < 2):
            try:
                s = score(pair.g1, pair.g2)
            except (LimitError, GraphError) as exc:  # e.g. dagf of two texts: this pair only
                unscored.append(unscored_pair(pair, exc))
                continue
            scores.append(s)
            parts = {f"{k}_f": c.f for k, c in s.parts.items()} if len(s.parts) > 1 else {}
            yield {"name": pair.name, "source": pair.source, "correction": pair.correction, "f": s.f,
                   "precision": s.precision, "recall": s.recall, **parts,
                   "detail": {k: c.as_dict() for k, c in s.parts.items()}, "signature": s.signature}

    def summary() -> dict[str, Any] | None:
        if len(scores) < 2:
            return None
        return {"corpus": True, **corpus_score(scores, n_bootstrap=n_bootstrap, seed=seed).as_dict()}

    pending = records()
    first = next(pending, None)  # the output is opened once there is something to write
    if first is not None:
        def rows() -> Iterator[dict[str, Any]]:
            return itertools.chain([first], pending)

        with open_output(output) as out:
            if score_only:
                done = list(rows())
                out.write(f"{done[0]['f'] if len(done) == 1 else summary()['macro_f']:.6f}\n")  # type: ignore[index]
            else:
                emit(rows, fmt, out, summary)
    report_unscored(unscored, read)


def unscored_pair(pair: GraphPair, exc: Exception) -> str:
    """How a pair that a metric could not score is reported: its file first."""
    return f"{pair.source}: {exc} (pair {pair.name} not scored)"


def report_unscored(unscored: list[str], read: list[GraphPair]) -> None:
    """After the scored pairs were written: the pairs that could not be read or scored, one
    stderr line each (a single pair: the error alone), and exit status 1."""
    if len(read) == 1 and unscored:
        raise SemsimError(unscored[0].removesuffix(f" (pair {read[0].name} not scored)"))
    for message in unscored:
        click.echo(f"semsim: {message}", err=True)
    fail_if_unread(read)
    if unscored:
        raise SemsimError(f"{len(unscored)} of {len(read)} pairs not scored: {unscored[0]}")


def fail_if_unparsed(unparsed: list[InputError]) -> None:
    """After everything else was scored and written: one stderr line per sentence the parser
    could not parse, and exit status 1."""
    if not unparsed:
        return
    for err in unparsed:
        click.echo(f"semsim: {err} (line {err.line} not scored)", err=True)
    lines = len({e.line for e in unparsed})
    raise SemsimError(f"{lines} line(s) not scored (see above)")


def warn_if_untokenized(files: Mapping[str | Path, Sequence[str]], how: str, quiet: bool) -> None:
    """One stderr line if a file read as given (``--tokenize none``) looks untokenized, naming
    it and ``--tokenize spacy`` (:func:`semsim.tokenize.warn_untokenized`); none with ``-q``."""
    from ..files import shown
    from ..tokenize import warn_untokenized
    if not quiet:
        warn_untokenized([(shown(p), lines) for p, lines in files.items()], how)


def system_names(hyps: list[Path], refs: list[Path]) -> dict[Path, str]:
    """Short unique names: file names, or paths where file names clash."""
    paths = [*hyps, *refs]
    short = [p.name for p in paths]
    use = short if len(set(short)) == len(short) else [str(p) for p in paths]
    return {p: ("ref:" if p in refs and p not in hyps else "") + n for p, n in zip(paths, use)}

