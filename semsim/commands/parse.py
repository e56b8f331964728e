"""``semsim parse``: text to graphs in standard formats, through any parser and the parse cache."""

from __future__ import annotations

from pathlib import Path

import click

from ..cli import parsing_options, quiet_option, tokenize_option
from ..errors import InputError, SemsimError
from ..graph import Graph, concat


@click.command()
@click.argument("inputs", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--representation", default=None, help="Representation to parse into (e.g. ucca).")
@click.option("--parser", "parser_name", default=None, help="Parser to use (default: the representation's default).")
@click.option("--model", default=None, help="Parser model (path or name; default: the parser's own).")
@click.option("--format", "fmt", default="mrp", show_default=True,
              help="mrp (JSON Lines), or a plugin's writer (e.g. xml: UCCA XML files; see `semsim plugins`).")
@click.option("-o", "--output", default=None,
              help="mrp: a file (default stdout); other formats: a directory (created if missing).")
@click.option("--passage", is_flag=True,
              help="One graph per input file (its sentences joined as one passage), not one per line.")
@tokenize_option
@parsing_options
@quiet_option
def parse(inputs: tuple[Path, ...], representation: str | None, parser_name: str | None, model: str | None,
          fmt: str, output: str | None, passage: bool, tokenize: str, jobs: int, executor: str,
          batch_timeout: float | None, batch_size: int, cache_path: str | None,
          no_cache: bool, quiet: bool) -> None:
    """Parse INPUTS (tokenised text, one sentence per line) and write the graphs.

    Untokenized text (LLM outputs) needs --tokenize spacy. Graphs are named FILE.LINE (FILE
    with --passage), FILE being the input's name without its suffix; empty lines are skipped.
    Lines the parser fails on are reported at the end (exit status 1) after everything else
    was written.

    \b
    semsim parse essays.txt -o essays.mrp
    semsim parse --format xml --passage essay1.txt essay2.txt -o parsed/
    """
    from ..cache import ParseCache, normalise
    from ..files import shown
    from ..io import write_jsonl
    from ..pipeline import find_parser, parse_sentences, read_lines, unparsed_lines
    from ..plugins import writers
    from ..tokenize import tokenize as tokenized
    from .common import fail_if_unparsed, warn_if_untokenized
    from .inputs import check_writable, open_output

    parser = find_parser(parser_name, representation)
    writer = None
    if fmt != "mrp":
        available = writers()
        if fmt not in available:
            raise SemsimError(f"no writer {fmt!r} (available: mrp, {', '.join(sorted(available)) or 'none'})")
        writer = available[fmt]
        if writer.representation != parser.representation:
            raise SemsimError(f"writer {fmt!r} writes {writer.representation} graphs; parser {parser.name!r} "
                              f"parses into {parser.representation}")
        if not output:
            raise SemsimError(f"--format {fmt} writes one file per graph: give a directory with -o")
        if Path(output).exists() and not Path(output).is_dir():  # found now, not after the parsing
            raise SemsimError(f"{output}: not a directory (--format {fmt} writes one file per graph into -o DIR)")
    else:
        check_writable(output, inputs=inputs)
    files = {path: tokenized(read_lines(path), tokenize) for path in inputs}
    warn_if_untokenized(files, tokenize, quiet)
    for path, lines in files.items():  # checked before any parsing: nothing is lost
        if not any(line.strip() for line in lines):
            raise InputError("empty file" if not lines else "no sentences: every line is blank", shown(path))
    texts = [line for lines in files.values() for line in lines if line.strip()]
    cache = None if no_cache else ParseCache(cache_path)
    failed: dict[str, str] = {}
    graphs = parse_sentences(texts, parser, model, cache, batch_size, jobs, progress=not quiet, failed=failed,
                             executor=executor, batch_timeout=batch_timeout)

    def named() -> list[tuple[str, Graph]]:
        out = []
        for path, lines in files.items():
            sentences = [(i, graphs[normalise(line)]) for i, line in enumerate(lines, 1)
                         if line.strip() and normalise(line) not in failed]
            if passage and sentences:
                out.append((path.stem, concat([g for _, g in sentences], path.stem)))
            elif not passage:
                out.extend((f"{path.stem}.{i}", g.with_(id=f"{path.stem}.{i}")) for i, g in sentences)
        return out

    if writer is None:
        from ..formats.mrp import graph_to_mrp
        with open_output(output) as out:
            for _, g in named():
                write_jsonl([graph_to_mrp(g, parser.representation)], out)
                out.flush()
    else:
        directory = Path(output)  # type: ignore[arg-type]
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SemsimError(f"{directory}: cannot create the directory: {exc.strerror or exc}") from None
        for name, g in named():
            target = directory / f"{name}{writer.suffix}"
            tmp = target.with_name(f".{target.name}.partial")
            writer.write(g, tmp)
            tmp.replace(target)
    fail_if_unparsed(unparsed_lines(files, failed))
