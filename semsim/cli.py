"""The command line: a thin layer over :mod:`semsim.api`.

Every error a user can cause (missing file, malformed input, mismatched batches) ends as
one line on stderr and exit status 1; inputs are all read before anything is written,
and ``-o FILE`` is written through ``FILE.partial``, renamed only when complete.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import click

from . import __version__
from .api import USim
from .errors import InputError, SemsimError
from .graph import Graph
from .io import atomic_write, iter_graphs, write_jsonl, write_tsv
from .limits import LimitError
from .stats import Score, corpus_score

FORMATS = ("text", "json", "jsonl", "tsv")


#: Commands that live in their own modules, imported only when run (or listed by --help),
#: so that plotting, HTML or parser code costs nothing to the other commands.
LAZY_COMMANDS = {
    "compare": "semsim.commands.compare:compare",
    "conservatism": "semsim.commands.conservatism:conservatism",
    "explain": "semsim.commands.explain:explain",
    "parse": "semsim.commands.parse:parse",
    "sensitivity": "semsim.commands.sensitivity:sensitivity",
}


class _Group(click.Group):
    """Turns semsim's own errors, raised anywhere below a command, into click's one-line
    ``Error: ...`` and exit status 1 (no traceback), and loads :data:`LAZY_COMMANDS` on use
    (click's documented lazy-group pattern)."""

    _plugin_commands_added = False

    def _add_plugin_commands(self) -> None:
        if not self._plugin_commands_added:
            self._plugin_commands_added = True
            from .plugins import add_plugin_commands
            add_plugin_commands(self)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._add_plugin_commands()
        return sorted([*super().list_commands(ctx), *LAZY_COMMANDS])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in LAZY_COMMANDS:
            import importlib
            module, _, attr = LAZY_COMMANDS[cmd_name].partition(":")
            return getattr(importlib.import_module(module), attr)
        if cmd_name not in self.commands:
            self._add_plugin_commands()
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except SemsimError as exc:
            raise click.ClickException(str(exc)) from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="semsim")
@click.option("--allow-pickle", is_flag=True,
              help="Let readers unpickle files (unpickling runs code: trusted files only).")
def cli(allow_pickle: bool) -> None:
    """Semantic faithfulness of a text to another by comparing meaning-representation graphs."""
    if allow_pickle:
        os.environ["SEMSIM_ALLOW_PICKLE"] = "1"


# -- batches ------------------------------------------------------------------------------------
def _list_file(spec: str) -> list[Path]:
    path = Path(spec[1:])
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise SemsimError(f"{path}: cannot read list: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise SemsimError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            raise SemsimError(f"{path}:{n}: empty line in file list")
        p = Path(line.strip())
        out.append(p if p.is_absolute() else path.parent / p)
    return out


def _files_in(directory: Path) -> dict[str, Path]:
    return {str(p.relative_to(directory)): p for p in sorted(directory.rglob("*"))
            if p.is_file() and not p.name.startswith(".")}


def pair_inputs(first: str, second: str) -> list[tuple[Path, Path]]:
    """Pairs of files from two files, two directories (matched by relative name) or two
    ``@list`` files (matched by line)."""
    if first.startswith("@") or second.startswith("@"):
        if not (first.startswith("@") and second.startswith("@")):
            raise SemsimError("give two @list files, or neither")
        a, b = _list_file(first), _list_file(second)
        if len(a) != len(b):
            raise SemsimError(f"{first[1:]} lists {len(a)} files but {second[1:]} lists {len(b)}")
        return list(zip(a, b))
    p1, p2 = Path(first), Path(second)
    for p in (p1, p2):
        if not p.exists():
            raise SemsimError(f"{p}: no such file or directory")
    if p1.is_dir() != p2.is_dir():
        raise SemsimError(f"{p1} and {p2}: give two files or two directories")
    if not p1.is_dir():
        return [(p1, p2)]
    f1, f2 = _files_in(p1), _files_in(p2)
    only1, only2 = sorted(f1.keys() - f2.keys()), sorted(f2.keys() - f1.keys())
    if only1 or only2:
        side, name, other = (p1, only1[0], p2) if only1 else (p2, only2[0], p1)
        more = len(only1) + len(only2) - 1
        raise SemsimError(f"{side / name}: no file of that name in {other}"
                          + (f" (and {more} more unmatched)" if more else ""))
    if not f1:
        raise SemsimError(f"{p1}: no files")
    return [(f1[k], f2[k]) for k in sorted(f1)]


@dataclass(frozen=True)
class _Pair:
    """Two graphs to compare, or why they could not be read (``error``, naming file and line)."""

    name: str
    source: str
    correction: str
    g1: Graph | None
    g2: Graph | None
    error: str | None = None


def _graphs_of(path: Path, read_format: str | None) -> list[Graph | InputError] | InputError:
    """A file's graphs, each a graph or the error that stands in its place; or the error that
    makes the whole file unreadable."""
    try:
        return list(iter_graphs(path, read_format, errors="yield"))
    except InputError as exc:
        return exc


def _read_pairs(pairs: list[tuple[Path, Path]], read_format: str | None, quiet: bool) -> list[_Pair]:
    """Graph pairs from file pairs. Files holding several graphs (e.g. PENMAN) are paired
    graph by graph, by position; their graph counts must agree. A graph (or file) that cannot
    be read spoils only its own pairs, which carry the error; a single pair that cannot be
    read is an error at once."""
    from tqdm import tqdm
    cache: dict[Path, list[Graph | InputError] | InputError] = {}
    out = []
    for a, b in tqdm(pairs, desc="reading", unit="pair", disable=quiet or len(pairs) < 2 or None,
                     file=sys.stderr, leave=False):
        for p in (a, b):
            if p not in cache:
                cache[p] = _graphs_of(p, read_format)
        ga, gb = cache[a], cache[b]
        if isinstance(ga, InputError) or isinstance(gb, InputError):
            if len(pairs) == 1:
                raise ga if isinstance(ga, InputError) else gb  # type: ignore[misc]
            err = ga if isinstance(ga, InputError) else gb
            out.append(_Pair(_pair_name(a.name, b.name), str(a), str(b), None, None, str(err)))
            continue
        if len(ga) != len(gb):
            raise SemsimError(f"{a} holds {len(ga)} graphs but {b} holds {len(gb)}; graphs are paired by position")
        if len(ga) == 1:
            g1, g2 = ga[0], gb[0]
            if isinstance(g1, InputError) or isinstance(g2, InputError):
                raise g1 if isinstance(g1, InputError) else g2  # type: ignore[misc]
            out.append(_Pair(_pair_name(a.name, b.name), str(a), str(b), g1, g2))
            continue
        for i, (g1, g2) in enumerate(zip(ga, gb), 1):
            bad = next((g for g in (g1, g2) if isinstance(g, InputError)), None)
            name = _pair_name(getattr(g1, "id", "") or f"{a.name}#{i}", getattr(g2, "id", "") or f"{b.name}#{i}")
            if bad is not None:
                out.append(_Pair(name, f"{a}#{i}", f"{b}#{i}", None, None, str(bad)))
            else:
                out.append(_Pair(name, f"{a}#{i}", f"{b}#{i}", g1, g2))  # type: ignore[arg-type]
    return out


def _good_pairs(pairs: list[_Pair]) -> list[_Pair]:
    """The pairs that could be read; each one that could not is reported on stderr, one line."""
    for p in pairs:
        if p.error is not None:
            click.echo(f"semsim: {p.error} (pair {p.name} not scored)", err=True)
    return [p for p in pairs if p.error is None]


def _fail_if_unread(pairs: list[_Pair]) -> None:
    """Exit status 1 after the readable pairs were scored and written, if any pair was not."""
    bad = [p for p in pairs if p.error is not None]
    if bad:
        raise SemsimError(f"{len(bad)} of {len(pairs)} pairs not scored: {bad[0].error}"
                          + (" (and more, see above)" if len(bad) > 1 else ""))


# -- output -------------------------------------------------------------------------------------
@contextmanager
def _output(path: str | None) -> Iterator[IO[str]]:
    """stdout, or ``path`` written via ``path.partial`` and renamed when complete; on failure
    the partial file keeps every complete record written so far."""
    if path is None or path == "-":
        yield sys.stdout
        return
    with atomic_write(path, keep_partial=True) as f:
        yield f


def _check_writable(*paths: str | None) -> None:
    """Fail at the start, not after hours of parsing, when an output cannot be written."""
    for path in paths:
        if path and path != "-":
            parent = Path(path).absolute().parent
            if not parent.is_dir():
                raise SemsimError(f"{path}: cannot write: no directory {parent}")
            if not os.access(parent, os.W_OK):
                raise SemsimError(f"{path}: cannot write: permission denied")


_NOT_IN_TABLES = ("name", "source", "correction", "detail", "signature")


def _emit(records: Callable[[], Iterator[dict[str, Any]]], fmt: str, out: IO[str],
          summary: Callable[[], dict[str, Any] | None]) -> None:
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
            out.write(f"signature: {rows[0]['signature']}\n")


def _pair_name(a: str, b: str) -> str:
    return a if a == b else f"{a}~{b}"


def _score_command(pairs: list[tuple[Path, Path]], score: Callable[[Any, Any], Score], fmt: str,
                   output: str | None, read_format: str | None, quiet: bool, n_bootstrap: int, seed: int) -> None:
    from tqdm import tqdm
    read = _read_pairs(pairs, read_format, quiet)
    graphs = _good_pairs(read)
    scores: list[Score] = []
    too_large: list[str] = []  # pairs beyond a resource bound: reported, the others scored

    def records() -> Iterator[dict[str, Any]]:
        for pair in tqdm(graphs, desc="scoring", unit="pair", file=sys.stderr,
                         disable=quiet or len(graphs) < 2 or None, leave=False):
            try:
                s = score(pair.g1, pair.g2)
            except LimitError as exc:
                too_large.append(f"{pair.source}: {exc} (pair {pair.name} not scored)")
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

    with _output(output) as out:
        _emit(records, fmt, out, summary)
    for message in too_large:
        click.echo(f"semsim: {message}", err=True)
    _fail_if_unread(read)
    if too_large:
        raise SemsimError(f"{len(too_large)} of {len(read)} pairs not scored: {too_large[0]}")


def _common(f: Callable[..., Any]) -> Callable[..., Any]:
    for opt in reversed([
        click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
                     help="Output format (json/jsonl/tsv carry the signature on every record)."),
        click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write here instead of stdout."),
        click.option("--read-format", help="Reader to use (see `semsim plugins`); default: by suffix."),
        click.option("--bootstrap", "n_bootstrap", type=click.IntRange(0), default=0, show_default=True,
                     help="Bootstrap resamples for the corpus confidence interval."),
        click.option("--seed", type=click.IntRange(0), default=12345, show_default=True, help="Bootstrap seed."),
        click.option("-q", "--quiet", is_flag=True, help="No progress bars."),
    ]):
        f = opt(f)
    return f


def _usim_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """The USim settings, shared by ``usim`` (graphs in) and ``score`` (text in)."""
    for opt in reversed([
        click.option("--variant", type=click.Choice(["paper", "legacy"]), default="paper", show_default=True,
                     help="paper: §3 of the paper; legacy: what the authors' released code computes."),
        click.option("--direction", type=click.Choice(["both", "s->r", "r->s"]), default="both", show_default=True),
        click.option("--tie-break", type=click.Choice(["coverage", "all", "first"]), default="coverage",
                     show_default=True, help="How ties of the node weight w(v,u) are resolved (paper variant)."),
        click.option("--labels", type=click.Choice(["labeled", "weak", "unlabeled"]), default="labeled",
                     show_default=True, help="Edge label matching (weak: the scheme's equivalences)."),
        click.option("--remote/--no-remote", default=True, show_default=True, help="Count remote edges."),
        click.option("--align", "align", type=click.Choice(["sentence", "passage"]), default="sentence",
                     show_default=True, help="Align tokens sentence by sentence or over the whole text."),
        click.option("--denominator", type=click.Choice(["yield", "aligned"]), default="yield", show_default=True,
                     help="|yield(u)| in w(v,u): all tokens, or only aligned ones."),
        click.option("--single-token-units/--no-single-token-units", default=True, show_default=True,
                     help="Legacy variant: keep units of one token (the 2018 revision drops them)."),
    ]):
        f = opt(f)
    return f


def _metric(variant: str, direction: str, tie_break: str, labels: str, remote: bool, align: str,
            denominator: str, single_token_units: bool) -> USim:
    return USim(variant=variant, direction=direction, tie_break=tie_break, labels=labels, remote=remote,
                by_sentence=align == "sentence", denominator=denominator, single_token_units=single_token_units)


@cli.command()
@click.argument("source")
@click.argument("correction")
@_usim_options
@_common
def usim(source: str, correction: str, variant: str, direction: str, tie_break: str, labels: str,
         remote: bool, align: str, denominator: str, single_token_units: bool, fmt: str, output: str | None,
         read_format: str | None, n_bootstrap: int, seed: int, quiet: bool) -> None:
    """USim of CORRECTION against SOURCE (files, directories matched by name, or @lists)."""
    metric = _metric(variant, direction, tie_break, labels, remote, align, denominator, single_token_units)
    _score_command(pair_inputs(source, correction), metric.sentence_score, fmt, output, read_format,
                   quiet, n_bootstrap, seed)


@cli.command()
@click.argument("guessed")
@click.argument("reference")
@click.option("--labels", type=click.Choice(["labeled", "weak", "unlabeled"]), default="labeled",
              show_default=True)
@click.option("--count", type=click.Choice(["yields", "edges"]), default="yields", show_default=True,
              help="yields: as ucca.evaluation (distinct yields); edges: every edge, as §3's prose.")
@_common
def dagf(guessed: str, reference: str, labels: str, count: str, fmt: str, output: str | None,
         read_format: str | None, n_bootstrap: int, seed: int, quiet: bool) -> None:
    """DAG F-score of two annotations of the same text (precision on GUESSED)."""
    from .api import dag_f
    _score_command(pair_inputs(guessed, reference), lambda a, b: dag_f(a, b, labels=labels, count=count),
                   fmt, output, read_format, quiet, n_bootstrap, seed)


@cli.command()
@click.argument("source")
@click.argument("correction")
@click.option("--by-sentence", is_flag=True, help="Count per synchronised sentence (N = sentence pairs).")
@click.option("--label", "labels", multiple=True, help="Labels or groups to report (default: all).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--read-format", help="Reader to use; default: by suffix.")
def distsim(source: str, correction: str, by_sentence: bool, labels: tuple[str, ...], fmt: str,
            read_format: str | None) -> None:
    """DistSim per label: mean |count in source - count in correction| (lower = more similar)."""
    from .api import distsim as _distsim
    read = _read_pairs(pair_inputs(source, correction), read_format, True)
    graphs = _good_pairs(read)
    if not graphs:
        _fail_if_unread(read)
    result = _distsim([(p.g1, p.g2) for p in graphs], labels or None, by_sentence)
    if fmt == "json":
        click.echo(json.dumps({"distsim": result, "by_sentence": by_sentence, "n_pairs": len(graphs),
                               "version": __version__}, indent=2))
    else:
        for k, v in result.items():
            click.echo(f"{k}\t{v:.4f}")
    _fail_if_unread(read)


def _systems_inputs(verb: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--source`` and the line-parallel ``--hyp`` / ``--ref`` files of commands that
    treat references as systems (``verb``: how a reference is treated, e.g. "scored")."""
    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        for opt in reversed([
            click.option("--source", "source_path", required=True, type=click.Path(dir_okay=False, path_type=Path),
                         help="Source sentences, tokenized, one per line (UTF-8)."),
            click.option("--hyp", "hyps", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
                         help="A system's output, line-parallel to the source (repeatable)."),
            click.option("--ref", "refs", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
                         help=f"A reference correction, {verb} like a system (repeatable)."),
        ]):
            f = opt(f)
        return f
    return decorate


@cli.command()
@_systems_inputs("scored")
@click.option("--representation", default=None, help="Representation to parse into (e.g. ucca).")
@click.option("--parser", "parser_name", default=None, help="Parser to use (see `semsim plugins`).")
@click.option("--model", default=None, help="Parser model (path or name; default: the parser's own setting).")
@_usim_options
@click.option("--jobs", type=click.IntRange(1), default=1, show_default=True, help="Parsing processes.")
@click.option("--batch-size", type=click.IntRange(1), default=32, show_default=True)
@click.option("--cache", "cache_path", type=click.Path(dir_okay=False), default=None,
              help="Parse cache file (default: $SEMSIM_CACHE_DIR/parses.sqlite3).")
@click.option("--no-cache", is_flag=True, help="Parse everything, store nothing.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Per-sentence JSON Lines here.")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json", "tsv"]), default="text",
              show_default=True, help="Format of the per-system table on stdout.")
@click.option("--bootstrap", "n_bootstrap", type=click.IntRange(0), default=1000, show_default=True,
              help="Bootstrap resamples for each system's confidence interval.")
@click.option("--paired", type=click.Choice(["ar", "bs", "none"]), default="ar", show_default=True,
              help="Paired test between every two systems: approximate randomization, paired bootstrap, none.")
@click.option("--paired-trials", type=click.IntRange(1), default=10000, show_default=True,
              help="Random trials (resamples) per paired test.")
@click.option("--seed", type=click.IntRange(0), default=12345, show_default=True)
@click.option("-q", "--quiet", is_flag=True, help="No progress bars.")
def score(source_path: Path, hyps: tuple[Path, ...], refs: tuple[Path, ...], representation: str | None,
          parser_name: str | None, model: str | None, variant: str, direction: str, tie_break: str, labels: str,
          remote: bool, align: str, denominator: str, single_token_units: bool, jobs: int, batch_size: int,
          cache_path: str | None, no_cache: bool, output: str | None, fmt: str, n_bootstrap: int, paired: str,
          paired_trials: int, seed: int, quiet: bool) -> None:
    """USim of systems' outputs (and references) against their sources, from plain text.

    Every unique sentence is parsed once (and cached across runs); an empty source line
    scores 1 against an empty output line and 0 otherwise, as in the original tool. The
    table ranks the systems and tests every two of them for a significant difference.
    """
    from .cache import ParseCache
    from .pipeline import (
        find_parser,
        parse_sentences,
        parser_signature,
        read_parallel,
        score_systems,
        signed,
        too_large_lines,
        unparsed_lines,
    )
    metric = _metric(variant, direction, tie_break, labels, remote, align, denominator, single_token_units)
    if not hyps and not refs:
        raise SemsimError("give at least one --hyp (or --ref) file")
    _check_writable(output)
    source, files = read_parallel(source_path, [*hyps, *refs])
    names = _system_names([*hyps], [*refs])
    systems = {names[p]: files[p] for p in [*hyps, *refs]}
    parser = find_parser(parser_name, representation)
    cache = None if no_cache else ParseCache(cache_path)
    texts = [*source, *(line for lines in systems.values() for line in lines)]
    failed: dict[str, str] = {}
    graphs = parse_sentences(texts, parser, model, cache, batch_size, jobs, progress=not quiet, failed=failed)
    unparsed = unparsed_lines({source_path: source, **files}, failed)
    unparsed += too_large_lines(source, files, graphs, {e.line for e in unparsed})
    skip = {e.line for e in unparsed}
    pairs = {i for i, s in enumerate(source, 1) if s.strip() and any(f[i - 1].strip() for f in files.values())}
    if unparsed and pairs <= skip:  # what is left would be empty-line conventions only
        raise SemsimError(f"no line could be scored: {unparsed[0]}")
    by_system: dict[str, list[Score]] = {n: [] for n in systems}
    with _output(output) as out:
        parsed_by = parser_signature(parser, model)
        fallback = Score.fixed(0.0, metric.part_names(), f"{metric.get_signature()}|{parsed_by}")
        for r in score_systems(source, systems, graphs, signed(metric.sentence_score, parsed_by), fallback, skip):
            by_system[r.system].append(r.score)
            if output:
                write_jsonl([{"system": r.system, "line": r.line, "f": r.score.f,
                              "precision": r.score.precision, "recall": r.score.recall, "empty": r.empty,
                              "detail": {k: c.as_dict() for k, c in r.score.parts.items()},
                              "signature": r.score.signature}], out)
    from .systems import compare_systems
    if paired == "bs" and len(systems) > 1 and len(source) - len(skip) < 30:
        click.echo("semsim: the paired bootstrap understates p-values on few sentences; "
                   "--paired ar (the default) is exact in the limit", err=True)
    report = compare_systems(by_system, n_bootstrap, seed, None if paired == "none" else paired, paired_trials)
    click.echo(report.render(fmt), nl=False)
    _fail_if_unparsed(unparsed)


def _fail_if_unparsed(unparsed: list[InputError]) -> None:
    """After everything else was scored and written: one stderr line per sentence the parser
    could not parse, and exit status 1."""
    if not unparsed:
        return
    for err in unparsed:
        click.echo(f"semsim: {err} (line {err.line} not scored)", err=True)
    lines = len({e.line for e in unparsed})
    raise SemsimError(f"{lines} line(s) not scored (see above)")


def _system_names(hyps: list[Path], refs: list[Path]) -> dict[Path, str]:
    """Short unique names: file names, or paths where file names clash."""
    paths = [*hyps, *refs]
    short = [p.name for p in paths]
    use = short if len(set(short)) == len(short) else [str(p) for p in paths]
    return {p: ("ref:" if p in refs and p not in hyps else "") + n for p, n in zip(paths, use)}


@cli.group()
def cache() -> None:
    """Inspect or clear the parse cache."""


@cache.command("info")
@click.option("--cache", "cache_path", type=click.Path(dir_okay=False), default=None)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def cache_info(cache_path: str | None, fmt: str) -> None:
    """Where the cache is, its size, and entries and hits per parser and model."""
    from .cache import ParseCache
    with ParseCache(cache_path) as c:
        st = c.stats()
    if fmt == "json":
        click.echo(json.dumps(st, indent=2))
        return
    click.echo(f"{st['path']}: {st['entries']} parses, {st['hits']} hits, {st['bytes'] / 1e6:.1f} MB")
    for g in st["groups"]:
        click.echo(f"  {g['representation']}/{g['parser']} model {g['model'][:12]}: "
                   f"{g['entries']} parses, {g['hits']} hits")


@cache.command("clear")
@click.option("--cache", "cache_path", type=click.Path(dir_okay=False), default=None)
@click.option("--parser", default=None, help="Only this parser's entries.")
def cache_clear(cache_path: str | None, parser: str | None) -> None:
    """Delete cached parses."""
    from .cache import ParseCache
    with ParseCache(cache_path) as c:
        n = c.clear(parser)
    click.echo(f"removed {n} parses")


@cli.group()
def models() -> None:
    """List, download and remove parser models (kept in a per-user directory)."""


@models.command("list")
def models_list() -> None:
    """Known models and whether each is installed."""
    from .models import installed, known_models, models_dir
    known = known_models()
    click.echo(f"models directory: {models_dir()}")
    for name, spec in sorted(known.items()):
        mark = "installed" if installed(name) else "not installed"
        click.echo(f"  {name} [{spec.parser}] {mark}: {spec.description}")
    if not known:
        click.echo("  no plugin declares downloadable models")


@models.command("download")
@click.argument("name")
@click.option("--url", default=None, help="Download from here instead (e.g. a mirror or a file:// URL).")
@click.option("--sha256", default=None, help="Expected SHA-256 of the archive (overrides the known one).")
@click.option("-q", "--quiet", is_flag=True)
def models_download(name: str, url: str | None, sha256: str | None, quiet: bool) -> None:
    """Download, verify and unpack model NAME."""
    from .models import download, known_models, model_path
    known = known_models()
    if name not in known:
        raise SemsimError(f"unknown model {name!r} (known: {', '.join(sorted(known)) or 'none'})")
    download(known[name], url=url, sha256=sha256, progress=not quiet)
    click.echo(model_path(name))


@models.command("path")
@click.argument("name")
def models_path(name: str) -> None:
    """Print what to pass as --model for an installed model."""
    from .models import model_path
    click.echo(model_path(name))


@models.command("remove")
@click.argument("name")
def models_remove(name: str) -> None:
    """Delete an installed model."""
    from .models import remove
    click.echo(f"removed {name}" if remove(name) else f"{name} is not installed")


@cli.command()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def plugins(fmt: str) -> None:
    """List loaded plugins, their hooks, readers and parsers."""
    from .plugins import metrics, parsers, plugin_info, readers
    info = plugin_info()
    rs, ps, ms = readers(), parsers(), metrics()
    if fmt == "json":
        click.echo(json.dumps({"plugins": info,
                               "readers": {n: {"plugin": r.plugin, "suffixes": list(r.suffixes),
                                               "description": r.description} for n, r in rs.items()},
                               "parsers": {n: {"plugin": p.plugin, "representation": p.representation,
                                               "default": p.default, "description": p.description}
                                           for n, p in ps.items()},
                               "metrics": {n: {"plugin": m.plugin, "scheme": m.scheme,
                                               "description": m.description} for n, m in ms.items()}},
                              indent=2))
        return
    if not info:
        click.echo("no plugins loaded (install one, e.g. `pip install -e plugins/ucca`)")
    for p in info:
        click.echo(f"{p['name']} {p['version'] or ''}: hooks {', '.join(p['hooks'])}")
    for n, r in sorted(rs.items()):
        click.echo(f"  reader {n} ({', '.join(r.suffixes)}) from {r.plugin}: {r.description}")
    for n, p in sorted(ps.items()):
        default = ", default" if p.default else ""
        click.echo(f"  parser {n} [{p.representation}{default}] from {p.plugin}: {p.description}")
    for n, m in sorted(ms.items()):
        click.echo(f"  metric {n} [{m.scheme}] from {m.plugin}: {m.description}")


def main() -> None:
    cli(prog_name="semsim")


if __name__ == "__main__":
    main()
