"""``semsim parse``: text to graphs in standard formats, through any parser and the parse cache."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ...kernel.errors import InputError, SemsimError
from ...kernel.graph import Graph, concat
from ..cli import parsing_options, quiet_option
from ..parsing import ParseSettings, graph_key

if TYPE_CHECKING:
    from ...kernel.records import Writer


@click.command()
@click.argument("inputs", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--format", "fmt", default="mrp", show_default=True,
              help="mrp (JSON Lines), or a plugin's writer (e.g. xml: UCCA XML files; see `semsim plugins`), "
                   "whose representation is parsed into unless --representation or --parser names one.")
@click.option("-o", "--output", default=None,
              help="mrp: a file (default stdout); other formats: a file for a writer of many graphs per "
                   "file, else a directory (created if missing).")
@click.option("--passage", is_flag=True,
              help="One graph per input file (its sentences joined as one passage), not one per line.")
@parsing_options
@quiet_option
def parse(inputs: tuple[Path, ...], fmt: str, output: str | None, passage: bool, parsing: ParseSettings,
          quiet: bool) -> None:
    """Parse INPUTS (tokenised text, one sentence per line) and write the graphs.

    Untokenized text (LLM outputs) needs --tokenize spacy. Graphs are named FILE.LINE (FILE
    with --passage), FILE being the input's name without its suffix; empty lines are skipped.
    Lines the parser fails on are reported at the end (exit status 1) after everything else
    was written.

    \b
    semsim parse essays.txt -o essays.mrp
    semsim parse --format xml --passage essay1.txt essay2.txt -o parsed/
    """
    from ...kernel.files import shown
    from ..parsing import parse_texts
    from ..plugins import writers
    from ..reading import write_jsonl
    from ..textfiles import read_lines, unparsed_lines
    from .common import fail_if_unparsed, warn_if_untokenized
    from .inputs import check_writable, open_output

    writer, one_file = None, True
    if fmt != "mrp":
        available = writers()
        if fmt not in available:
            raise SemsimError(f"no writer {fmt!r} (available: mrp, {', '.join(sorted(available)) or 'none'})")
        writer = available[fmt]
        if parsing.parser is None and parsing.representation is None:  # the writer says which graphs it writes
            parsing = replace(parsing, representation=writer.representation)
    parser = parsing.find()
    if writer is not None:
        if writer.representation != parser.representation:
            raise SemsimError(f"writer {fmt!r} writes {writer.representation} graphs; parser {parser.name!r} "
                              f"parses into {parser.representation}")
        one_file = _writes_one_file(writer, output)
    if one_file:  # mrp, or a writer of every graph into one file: found now, not after the parsing
        check_writable(output, inputs=inputs)
    files = {path: read_lines(path) for path in inputs}
    warn_if_untokenized(files, parsing.tokenize, quiet)
    for path, lines in files.items():  # checked before any parsing: nothing is lost
        if not any(line.strip() for line in lines):
            raise InputError("empty file" if not lines else "no sentences: every line is blank", shown(path))
    parses = parse_texts([line for lines in files.values() for line in lines if line.strip()], parsing)
    files = {path: parses.tokenized(lines) for path, lines in files.items()}
    graphs, failed = parses.graphs, parses.failed

    def named() -> list[tuple[str, Graph]]:
        out = []
        for path, lines in files.items():
            sentences = [(i, graphs[graph_key(line)]) for i, line in enumerate(lines, 1)
                         if line.strip() and graph_key(line) not in failed]
            if passage and sentences:
                out.append((path.stem, concat([g for _, g in sentences], path.stem)))
            elif not passage:
                out.extend((f"{path.stem}.{i}", g.with_(id=f"{path.stem}.{i}")) for i, g in sentences)
        return out

    if writer is None:
        from ...kernel.formats.mrp import graph_to_mrp
        with open_output(output) as out:
            for _, g in named():
                write_jsonl([graph_to_mrp(g, parser.representation, verbatim=True)], out)
                out.flush()
    elif one_file:
        _write_one_file(writer, [g for _, g in named()], Path(output))  # type: ignore[arg-type]
    else:
        directory = Path(output)  # type: ignore[arg-type]
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SemsimError(f"{directory}: cannot create the directory: {exc.strerror or exc}") from None
        for name, g in named():
            target = directory / f"{name}{writer.suffix}"
            tmp = target.with_name(f".{target.name}.partial")
            writer.write(g, tmp)  # type: ignore[misc]  # one_file is False: the writer has write
            tmp.replace(target)
    fail_if_unparsed(unparsed_lines(files, failed))


def _writes_one_file(writer: Writer, output: str | None) -> bool:
    """Whether ``-o`` takes every graph in one file (``write_all``) rather than one file per
    graph in a directory (``write``); a one-line error, before any parsing, where it can take
    neither. For a writer of both kinds, an existing directory or a path ending in ``/`` is a
    directory."""
    fmt = writer.name
    directory = output is not None and bool(output) and (output.endswith(("/", os.sep)) or Path(output).is_dir())
    if writer.write_all is None:
        if not output:
            raise SemsimError(f"--format {fmt} writes one file per graph: give a directory with -o")
        if Path(output).exists() and not Path(output).is_dir():
            raise SemsimError(f"{output}: not a directory (--format {fmt} writes one file per graph into -o DIR)")
        return False
    if writer.write is not None and directory:
        return False
    if not output or output == "-":
        either = " (or a directory, -o DIR/, for one file per graph)" if writer.write is not None else ""
        raise SemsimError(f"--format {fmt} writes every graph into one file: give it with -o FILE{either}")
    if directory:
        raise SemsimError(f"{output}: a directory (--format {fmt} writes every graph into one file: give -o FILE)")
    return True


def _write_one_file(writer: Writer, graphs: list[Graph], target: Path) -> None:
    """``writer.write_all`` into ``target`` through a hidden partial file, renamed into place
    once the writer returns, as each file of one graph is: nobody reads half a treebank."""
    tmp = target.with_name(f".{target.name}.partial")
    try:
        writer.write_all(graphs, tmp)  # type: ignore[misc]  # _writes_one_file: the writer has write_all
        tmp.replace(target)
    except OSError as exc:
        raise SemsimError(f"{target}: cannot write: {exc.strerror or exc}") from None
    finally:
        tmp.unlink(missing_ok=True)
