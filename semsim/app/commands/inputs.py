"""The CLI's inputs and outputs: SOURCE CORRECTION arguments paired into graph pairs (files,
directories, ``@list`` files), read with per-pair errors kept, and result files written
atomically (what a command computed before a failure is kept)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

from ...kernel.errors import InputError, SemsimError
from ...kernel.files import atomic_write, is_stdin, one_line, same_file, shown
from ...kernel.graph import Graph
from ...kernel.scheme import other_scheme
from ..reading import iter_graphs
from ..report import Skipped


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
    """Pairs of files from two files (one of them may be ``-``, standard input), two
    directories (matched by relative name) or two ``@list`` files (matched by line)."""
    if first.startswith("@") or second.startswith("@"):
        if not (first.startswith("@") and second.startswith("@")):
            raise SemsimError("give two @list files, or neither")
        a, b = _list_file(first), _list_file(second)
        if len(a) != len(b):
            raise SemsimError(f"{first[1:]} lists {len(a)} files but {second[1:]} lists {len(b)}")
        return list(zip(a, b))
    p1, p2 = Path(first), Path(second)
    if is_stdin(p1) and is_stdin(p2):
        raise SemsimError("only one input can be '-' (standard input)")
    if is_stdin(p1) or is_stdin(p2):
        return [(p1, p2)]
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
class GraphPair:
    """Two graphs to compare, or why they could not be read (``error``, naming file and line)."""

    name: str
    source: str
    correction: str
    g1: Graph | None
    g2: Graph | None
    error: str | None = None

    @property
    def graphs(self) -> tuple[Graph, Graph]:
        """The two graphs of a pair that could be read (no ``error``)."""
        if self.g1 is None or self.g2 is None:
            raise SemsimError(f"internal error: pair {self.name} was not read ({self.error})")
        return self.g1, self.g2


def _graphs_of(path: Path, read_format: str | None) -> list[Graph | InputError] | InputError:
    """A file's graphs, each a graph or the error that stands in its place; or the error that
    makes the whole file unreadable."""
    try:
        return list(iter_graphs(path, read_format, errors="yield"))
    except InputError as exc:
        return exc


def read_pairs(pairs: list[tuple[Path, Path]], read_format: str | None, quiet: bool) -> list[GraphPair]:
    """Graph pairs from file pairs. Files holding several graphs (e.g. PENMAN) are paired
    graph by graph, by position; their graph counts must agree. A graph (or file) that cannot
    be read spoils only its own pairs, which carry the error; a single pair that cannot be
    read is an error at once."""
    from ...kernel.progress import bar
    cache: dict[Path, list[Graph | InputError] | InputError] = {}
    out = []
    for a, b in bar(pairs, desc="reading", unit="pair", quiet=quiet or len(pairs) < 2):
        for p in (a, b):
            if p not in cache:
                cache[p] = _graphs_of(p, read_format)
        ga, gb = cache[a], cache[b]
        if isinstance(ga, InputError) or isinstance(gb, InputError):
            if len(pairs) == 1:
                raise ga if isinstance(ga, InputError) else gb  # type: ignore[misc]
            err = ga if isinstance(ga, InputError) else gb
            out.append(GraphPair(pair_name(a.name, b.name), str(a), str(b), None, None, str(err)))
            continue
        if len(ga) != len(gb):
            raise SemsimError(f"{a} holds {len(ga)} graphs but {b} holds {len(gb)}; graphs are paired by position")
        if len(ga) == 1:
            g1, g2 = ga[0], gb[0]
            bad = g1 if isinstance(g1, InputError) else g2 if isinstance(g2, InputError) else _mixed(g1, g2, a, b)
            if bad is not None and len(pairs) == 1:
                raise bad
            name = pair_name(a.name, b.name)
            out.append(GraphPair(name, str(a), str(b), None, None, str(bad)) if bad is not None
                       else GraphPair(name, str(a), str(b), g1, g2))  # type: ignore[arg-type]
            continue
        for i, (g1, g2) in enumerate(zip(ga, gb), 1):
            bad = g1 if isinstance(g1, InputError) else g2 if isinstance(g2, InputError) else _mixed(g1, g2, a, b)
            name = pair_name(getattr(g1, "id", "") or f"{a.name}#{i}", getattr(g2, "id", "") or f"{b.name}#{i}")
            if bad is not None:
                out.append(GraphPair(name, f"{a}#{i}", f"{b}#{i}", None, None, str(bad)))
            else:
                out.append(GraphPair(name, f"{a}#{i}", f"{b}#{i}", g1, g2))  # type: ignore[arg-type]
    # a file name with a newline or a tab must not split the records that carry it
    return [replace(p, name=one_line(p.name), source=one_line(p.source), correction=one_line(p.correction))
            for p in out]


def _mixed(g1: Graph, g2: Graph, a: Path, b: Path) -> InputError | None:
    """The error for two graphs of two representations (a UCCA passage and an AMR, a PSD
    graph in a file of DM graphs), naming both files: no label of one can match the other; or
    of two schemes of one name (:func:`~semsim.kernel.scheme.other_scheme`), which the score's
    signature could not tell apart."""
    if g1.scheme.name == g2.scheme.name:
        if (why := other_scheme(g1.scheme, g2.scheme)) is None:
            return None
        return InputError(f"graph {g2.id or b.name} and its pair, graph {g1.id or a.name} of {shown(a)}, have {why}: "
                          "no signature could name the scheme of their score", shown(b), g2.meta.get("line"))
    return InputError(f"graph {g2.id or b.name} is {g2.scheme.name!r} but its pair, graph {g1.id or a.name} of "
                      f"{shown(a)}, is {g1.scheme.name!r}: two representations cannot be compared", shown(b),
                      g2.meta.get("line"))


def readable_pairs(pairs: list[GraphPair]) -> list[GraphPair]:
    """The pairs that could be read; each one that could not is reported on stderr, one line."""
    unread = Skipped()
    for p in pairs:
        if p.error is not None:
            unread.add(p.error, f"pair {p.name}")
    unread.show()
    return [p for p in pairs if p.error is None]


def fail_if_unread(pairs: list[GraphPair]) -> None:
    """Exit status 1 after the readable pairs were scored and written, if any pair was not
    (:func:`readable_pairs` said why, one line each: the count does not say it again)."""
    bad = [p for p in pairs if p.error is not None]
    if bad:
        raise SemsimError(f"{len(bad)} of {len(pairs)} pairs not scored (see above)")



@contextmanager
def open_output(path: str | None) -> Iterator[IO[str]]:
    """stdout, or ``path`` written via ``path.partial`` and renamed when complete; on failure
    the partial file keeps every complete record written so far."""
    if path is None or path == "-":
        yield sys.stdout
        return
    with atomic_write(path, keep_partial=True) as f:
        yield f


#: What a run keeps besides its inputs, which its outputs may not name either: the parse
#: cache a command was given (:func:`run_state`, from its ``--cache``), a training work directory.
_STATE: ContextVar[tuple[tuple[Path, str], ...]] = ContextVar("semsim_run_state", default=())
_SQLITE_FILES = ("", "-wal", "-shm", "-journal")  # a database and the files SQLite keeps beside it


@contextmanager
def run_state(path: str | os.PathLike[str], what: str) -> Iterator[None]:
    """Within the block, :func:`check_writable` refuses ``path`` (a file, or a directory and
    everything in it) as an output: it is ``what`` (e.g. "the parse cache") of this run."""
    token = _STATE.set((*_STATE.get(), (Path(path), what)))
    try:
        yield
    finally:
        _STATE.reset(token)


def _state_of_the_run() -> list[tuple[Path, str, bool]]:
    """(path, what it is, whether it is a directory whose files count too): the default parse
    cache and the models directory always, and what :func:`run_state` added."""
    from ...kernel.files import cache_dir
    from ...kernel.models import models_dir
    caches = [(cache_dir() / "parses.sqlite3", "the default parse cache")]
    caches += [(p, what) for p, what in _STATE.get() if what.endswith("cache")]
    out = [(Path(f"{p}{suffix}"), what, False) for p, what in caches for suffix in _SQLITE_FILES]
    out.append((models_dir(), "the models directory", True))
    out += [(p, what, True) for p, what in _STATE.get() if not what.endswith("cache")]
    return out


def _inside(path: str | os.PathLike[str], directory: Path) -> bool:
    resolved, root = Path(path).resolve(), directory.resolve()
    return resolved == root or root in resolved.parents


def check_writable(*paths: str | None, inputs: Iterable[str | os.PathLike[str] | None] = ()) -> None:
    """Fail at the start, not after hours of parsing, when an output cannot be written, when
    it is one of the run's ``inputs`` (writing it would destroy what the run read: ``semsim
    usim s.xml c.xml -o c.xml``) or its state (the parse cache, given or default, the models
    directory, a training work directory: :func:`run_state`), or when two outputs are one file."""
    # an @list's own file is an input too, beside the files it names
    read = [os.fspath(i).removeprefix("@") for i in inputs if i is not None and not is_stdin(i)]
    given = [p for p in paths if p and p != "-"]
    state = _state_of_the_run() if given else []
    for k, path in enumerate(given):
        parent = Path(path).absolute().parent
        if not parent.is_dir():
            raise SemsimError(f"{path}: cannot write: no directory {parent}")
        if not os.access(parent, os.W_OK):
            raise SemsimError(f"{path}: cannot write: permission denied")
        for where, what, tree in state:
            if _inside(path, where) if tree else same_file(path, where):
                raise SemsimError(f"{path}: is {what} ({where}){' or in it' if tree else ''}; writing it would "
                                  "destroy what this run keeps: choose another output file")
        for other in read:
            if same_file(path, other):
                raise SemsimError(f"{path}: is an input of this run ({shown(other)}); writing it would destroy "
                                  "the input: choose another output file")
        for other in given[:k]:
            if same_file(path, other):
                raise SemsimError(f"{path}: named for two outputs; give each its own file")


def pair_name(a: str, b: str) -> str:
    """A pair's name: the shared name of its two sides, or both joined by ``~``."""
    return a if a == b else f"{a}~{b}"
