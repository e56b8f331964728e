"""Text in, scores out: read sentence files, parse each unique sentence once, score.

Parsing goes through a registered :class:`~semsim.records.Parser` and the parse cache;
each batch is stored as soon as it is parsed, so an interrupted run loses at most the
batch in flight. ``jobs > 1`` parses batches in worker processes, ``executor="dask"`` (or a
scheduler's address) on a Dask cluster (:mod:`semsim.executors`); results are keyed by text,
so the output does not depend on the number of processes or their timing.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Collection, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import threads
from .cache import ParseCache, model_key, normalise
from .errors import InputError, ParseError, PluginError, SemsimError, SettingsError
from .executors import Parsed, executor_spec, open_executor
from .files import is_stdin, read_text, shown
from .graph import Graph
from .graph_json import graph_from_dict
from .limits import LimitError, check_pair
from .plugins import parsers
from .records import Parser
from .stats import Score


def read_lines(path: str | os.PathLike[str]) -> list[str]:
    """Sentences of a text file, one per line (empty lines kept, they are scored specially;
    encodings and line ends as :func:`~semsim.files.read_text` accepts them, which leaves only LF)."""
    lines = read_text(path).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def find_parser(name: str | None, representation: str | None) -> Parser:
    """The parser named, else the only one for the representation, else the one of them
    registered as the default."""
    available = parsers()
    if name is not None:
        if name not in available:
            raise PluginError(f"no parser named {name!r} (installed: {', '.join(sorted(available)) or 'none'})")
        return available[name]
    matching = [p for p in available.values() if representation in (None, p.representation)]
    defaults = [p for p in matching if p.default]
    if len(matching) > 1 and len(defaults) == 1:
        return defaults[0]
    if len(matching) != 1:
        what = f" for representation {representation!r}" if representation else ""
        names = ", ".join(sorted(p.name for p in matching)) or "none installed"
        raise PluginError(f"choose a parser{what} with --parser ({names})")
    return matching[0]


def parser_signature(parser: Parser, model: str | None, tokenize: str = "none") -> str:
    """``parser:NAME|model:MODEL@HASH``: what a score computed from text depends on beyond the
    metric's settings (the hash is the model's content, shortened to 12 hex digits), and
    ``|tok:...`` when a tokenizer split the text first (:func:`semsim.tokenize.with_tokenizer`)."""
    from .tokenize import with_tokenizer
    identity = parser.model_identity(model) if parser.model_identity else ""
    name = parser.model_name(model) if parser.model_name else (Path(model).name if model else "default")
    name, bar, extra = name.partition("|")  # fields the model depends on beyond its own file
    signed_by = f"parser:{parser.name}|model:{name}" + (f"@{identity[:12]}" if identity else "") + bar + extra
    return with_tokenizer(signed_by, tokenize)


def signed(score: Callable[[Graph, Graph], Score], parsed_by: str) -> Callable[[Graph, Graph], Score]:
    """``score`` whose scores' signatures also name the parser and model (:func:`parser_signature`)."""
    from dataclasses import replace

    def scored(a: Graph, b: Graph) -> Score:
        s = score(a, b)
        return replace(s, signature=f"{s.signature}|{parsed_by}")
    return scored


# -- parsing ----------------------------------------------------------------------------------------
def parse_sentences(texts: Sequence[str], parser: Parser, model: str | None = None,
                    cache: ParseCache | None = None, batch_size: int = 32, jobs: int = 1,
                    progress: bool = True, failed: dict[str, str] | None = None, *,
                    executor: str | None = None, batch_timeout: float | None = None) -> dict[str, Graph]:
    """Graphs for every distinct (normalised) non-empty text, parsing only cache misses.

    ``executor`` (:func:`semsim.executors.executor_spec`) says where batches are parsed:
    ``local`` (the default) here, or in ``jobs`` worker processes; ``dask`` on a Dask cluster
    started on this machine with ``jobs`` workers; ``dask://HOST:PORT`` on a running one. On
    Dask, a batch whose worker dies, or which runs past ``batch_timeout`` seconds, is tried
    again on another worker as often as the scheduler allows, then sentence by sentence.
    Wherever it is parsed, this process stores every batch, so the result is the same.

    A batch the parser fails on is parsed again sentence by sentence, so that a failure is
    pinned to its sentence and costs no other. With ``failed`` given, each sentence that
    cannot be parsed is recorded there (normalised text → one-line reason) and the run goes
    on; without it, the first one raises :class:`~semsim.errors.ParseError` once the rest
    of its batch is stored (in one process, before the next batch is parsed; with workers,
    once every batch has come back, failed batches retried in batch order, longest
    sentences first). Errors about the run itself (a missing model) always raise.
    """
    spec = executor_spec(executor)
    threads.check(jobs if not spec.distributed or spec.address is None else 1)
    if batch_timeout is not None and not spec.distributed:  # rather than a timeout that never fires
        raise SettingsError("--batch-timeout needs --executor dask or dask://HOST:PORT (docs/scale.md)")
    # the cache key names the model's content and the code that turned its output into graphs
    model_id = model_key(parser, model)
    unique = list(dict.fromkeys(normalise(t) for t in texts if t.strip()))
    graphs: dict[str, Graph] = {}
    if cache is not None:
        graphs.update({t: e.graph for t, e in cache.get_many(parser.representation, parser.name, model_id,
                                                            unique).items()})
    # longest first: a batch holds sentences of about one length, so a parser pads little,
    # and with several workers the short batches fill the gaps at the end
    todo = sorted((t for t in unique if t not in graphs), key=lambda t: -len(t.split()))
    batches = [todo[i:i + batch_size] for i in range(0, len(todo), batch_size)]
    from .progress import bar as progress_bar
    bar = progress_bar(total=len(todo), desc=f"parsing with {parser.name}", unit="sent", quiet=not progress or not todo)

    stored = 0  # sentences parsed in this run: none, and a whole batch failing is the parser's fault

    def store(batch: list[str], results: Parsed) -> None:
        nonlocal stored
        parsed = [(text, native, graph_from_dict(g)) for text, (native, g) in zip(batch, results)]
        if cache is not None:
            cache.put_many(parser.representation, parser.name, model_id, parsed)
        graphs.update({text: g for text, _, g in parsed})
        stored += len(batch)
        bar.update(len(batch))

    def one_by_one(batch: list[str], error: ParseError, parse: Callable[[list[str]], Parsed]) -> None:
        """A failed batch again, in this process (or, on Dask, on the cluster: a sentence can
        kill its worker): the sentences the parser named alone (the others as one batch), or,
        if it named none, every sentence alone; keep what parses."""
        named = set(error.sentences) & set(batch)
        if named and len(named) < len(batch):
            others = [t for t in batch if t not in named]
            with contextlib.suppress(ParseError):
                store(others, parse(others))
                batch = [t for t in batch if t in named]
        errors = {}
        for text in batch:
            try:
                store([text], parse([text]))
            except ParseError as exc:
                bar.update(1)
                errors[text] = exc
        # nothing parsed in this run and several sentences failed: the parser, not the sentences
        if errors and (failed is None or (len(errors) > 1 and not stored)):
            raise next(iter(errors.values()))
        if failed is not None:
            failed.update({t: str(e) for t, e in errors.items()})

    with open_executor(spec, jobs, batch_timeout, parser.name, model, model_id, len(batches)) as pool:
        retry: dict[int, ParseError] = {}
        failure: SemsimError | None = None
        try:
            for k, outcome in pool.imap(batches):
                try:  # keep every batch that finishes, hand out no more after an error about the run
                    store(batches[k], _guarded(parser.name, batches[k], outcome))
                except ParseError as exc:
                    if pool.in_order:  # nothing else is running: retry now, before the next batch
                        one_by_one(batches[k], exc, lambda b: _guarded(parser.name, b, pool.run, b))
                    else:
                        retry[k] = exc
                except SemsimError as exc:
                    failure = failure or exc
                    pool.cancel()
            if failure is not None:
                raise failure
            for k in sorted(retry):  # in batch order, whatever the workers' timing
                one_by_one(batches[k], retry[k], lambda b: _guarded(parser.name, b, pool.run, b))
        finally:
            bar.close()
    return graphs


def _guarded(parser_name: str, batch: list[str], fn: Callable[..., Any], *args: Any) -> Any:
    """Run a parse; an exception from the parser becomes one clear error: a
    :class:`ParseError` (about these sentences) unless it is already a semsim error, or a
    worker process died (which re-parsing in this process could repeat)."""
    try:
        return fn(*args)
    except SemsimError:
        raise
    except BrokenProcessPool as exc:
        raise PluginError(f"a worker process of parser {parser_name!r} died on the batch starting "
                          f"{batch[0]!r}: {exc}") from None
    except Exception as exc:
        what = f"the batch starting {batch[0]!r}" if len(batch) > 1 else repr(batch[0])
        raise ParseError(f"parser {parser_name!r} failed on {what}: {type(exc).__name__}: {exc}", batch) from None


# -- scoring ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SentenceResult:
    system: str
    line: int
    score: Score
    empty: bool


def score_systems(source: Sequence[str], systems: dict[str, Sequence[str]], graphs: dict[str, Graph],
                  score: Callable[[Graph, Graph], Score], fallback: Score,
                  skip: Collection[int] = ()) -> Iterator[SentenceResult]:
    """Score each system's lines against the source lines, in file order, but for the
    1-based lines in ``skip`` (e.g. a sentence that could not be parsed), for every system
    alike, so that systems stay comparable sentence by sentence.

    A pair with an empty side is not parsed; as in the authors' tool it scores 1 if both
    sides are empty and 0 otherwise, by convention (no counts). Such scores copy the parts
    and signature of a real score of the run (``fallback`` when every pair is empty).
    """
    template: Score | None = None
    for name, lines in systems.items():
        for i, (src, hyp) in enumerate(zip(source, lines)):
            if i + 1 in skip:
                continue
            if src.strip() and hyp.strip():
                yield SentenceResult(name, i + 1, score(graphs[normalise(src)], graphs[normalise(hyp)]), False)
                continue
            if template is None:
                template = next((score(graphs[normalise(a)], graphs[normalise(b)])
                                 for lines_ in systems.values() for k, (a, b) in enumerate(zip(source, lines_))
                                 if a.strip() and b.strip() and k + 1 not in skip), fallback)
            value = 1.0 if not src.strip() and not hyp.strip() else 0.0
            yield SentenceResult(name, i + 1, Score.fixed(value, list(template.parts), template.signature,
                                                          template.headline), True)


def read_parallel(source: Path, others: Sequence[Path],
                  tokenize: str = "none") -> tuple[list[str], dict[Path, list[str]]]:
    """The source's lines and every other file's (line-parallel to it), each line tokenized
    as ``tokenize`` says (:func:`semsim.tokenize.tokenize`; ``none``: as read). An empty
    source, or a file with more or fewer lines than the source, is an error naming the first
    line that has no counterpart."""
    from .tokenize import tokenize as tokenized
    if sum(is_stdin(p) for p in [source, *others]) > 1:
        raise InputError("only one input can be '-' (standard input)")
    src = tokenized(read_lines(source), tokenize)
    if not src:
        raise InputError("no sentences", shown(source))
    files = {}
    for p in others:
        lines = tokenized(read_lines(p), tokenize)
        if len(lines) < len(src):
            raise InputError(f"ends after line {len(lines)} but the source {shown(source)} has {len(src)} lines; "
                             "files must be line-parallel", shown(p), len(lines) + 1)
        if len(lines) > len(src):
            raise InputError(f"no source line for this line (the source {shown(source)} has {len(src)}); "
                             "files must be line-parallel", shown(p), len(src) + 1)
        files[p] = lines
    return src, files


def unparsed_lines(files: dict[Path, Sequence[str]], failed: dict[str, str]) -> list[InputError]:
    """Where the sentences that could not be parsed stand: one error per file and line."""
    return [InputError(failed[normalise(text)], path, i)
            for path, lines in files.items() for i, text in enumerate(lines, 1)
            if text.strip() and normalise(text) in failed]


def too_large_lines(source: Sequence[str], files: dict[Path, Sequence[str]], graphs: dict[str, Graph],
                    skip: Collection[int] = ()) -> list[InputError]:
    """Where a line and its source are too large to align (:func:`semsim.limits.check_pair`):
    one error per file and line, so that the line is left out for every system alike."""
    out = []
    for path, lines in files.items():
        for i, (src, hyp) in enumerate(zip(source, lines), 1):
            if i in skip or not src.strip() or not hyp.strip():
                continue
            try:
                check_pair(graphs[normalise(src)], graphs[normalise(hyp)])
            except LimitError as exc:
                out.append(InputError(str(exc), path, i))
    return out
