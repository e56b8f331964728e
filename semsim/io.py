"""Reading graphs through the registered readers, and writing results.

``read(path)`` picks the reader by explicit format name, else by suffix, asking each
candidate's ``sniff`` when several share a suffix. Writers produce JSON Lines and TSV;
every record carries the score's signature.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import json
import os
import re
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from .errors import GraphError, InputError, SemsimError
from .graph import Graph
from .plugins import Reader, readers, to_graph


@contextmanager
def atomic_write(path: str | os.PathLike[str], binary: bool = False, keep_partial: bool = False) -> Iterator[IO[Any]]:
    """Write ``path`` through ``path.partial``, renamed into place only when the block
    completes, so that a reader never sees half a file (a device or a pipe, such as
    ``/dev/null``, is written directly: renaming onto it would replace it). When the block fails, the partial
    file is deleted, or with ``keep_partial`` kept and named on stderr (a results file
    written record by record then keeps every complete record: no lost work; an empty one
    is deleted all the same)."""
    target = Path(path)
    if target.exists() and not target.is_file():  # /dev/null, a named pipe: write into it, never replace it
        try:
            with open(target, "wb") if binary else open(target, "w", encoding="utf-8", errors="backslashreplace",
                                                         newline="\n") as f:
                yield f
        except OSError as exc:
            raise SemsimError(f"{target}: cannot write: {exc.strerror or exc}") from None
        return
    partial = target.with_name(target.name + ".partial")
    try:  # text: a lone surrogate (a file name that is not UTF-8) is written as its \\udcXX escape
        f = open(partial, "wb") if binary else open(  # noqa: SIM115
            partial, "w", encoding="utf-8", errors="backslashreplace", newline="\n")
    except OSError as exc:
        raise SemsimError(f"{target}: cannot write: {exc.strerror or exc}") from None
    try:
        with f:
            yield f
        os.replace(partial, target)
    except BaseException as exc:
        if keep_partial and partial.exists() and partial.stat().st_size:
            print(f"semsim: results so far kept in {partial}", file=sys.stderr)
        else:
            partial.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise SemsimError(f"{target}: cannot write: {exc.strerror or exc}") from None
        raise


#: An input given as ``-`` is standard input, named so in messages.
STDIN, STDIN_NAME = "-", "<stdin>"


def is_stdin(path: str | os.PathLike[str]) -> bool:
    return os.fspath(path) == STDIN


def shown(path: str | os.PathLike[str]) -> str:
    """How messages name an input: its path, or ``<stdin>``."""
    return STDIN_NAME if is_stdin(path) else os.fspath(path)


def stdin_bytes() -> bytes:
    """Standard input, read once per stream (a command may read ``-`` more than once: to
    find its reader, then to read it)."""
    stream = sys.stdin.buffer
    data = getattr(stream, "_semsim_data", None)
    if data is None:
        data = stream.read()
        with contextlib.suppress(AttributeError):  # a stream without a __dict__: read once is all it can be
            stream._semsim_data = data  # type: ignore[attr-defined]
    return data


def read_text(path: str | os.PathLike[str], kind: str = "") -> str:
    r"""A text file's contents (``-``: standard input), as the readers of every text format
    take it: decoded (:func:`decode_text`), its line ends made ``\n`` (CRLF and the old
    Mac's lone CR alike; the other Unicode line separators, such as U+2028, stay what they
    are inside a line: characters), and free of control characters (:data:`_CONTROL`).
    Anything else is an :class:`InputError` naming the file and the line of the problem;
    ``kind`` (e.g. ``"M2 files"``) names what must be UTF-8 in that message."""
    p = Path(shown(path))
    try:
        data = stdin_bytes() if is_stdin(path) else p.read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", p) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", p) from None
    text = decode_text(data, p, kind).replace("\r\n", "\n").replace("\r", "\n")
    bad = _CONTROL.search(text)
    if bad:
        line = text.count("\n", 0, bad.start()) + 1
        column = bad.start() - (text.rfind("\n", 0, bad.start()) + 1) + 1
        raise InputError(f"control character U+{ord(bad.group()):04X} at column {column}: not a text file, "
                         "or a corrupt one", p, line)
    return text


#: C0 control characters other than tab and line feed (carriage returns are line ends by
#: then): a NUL byte or an escape in a text file means binary data or corruption, and
#: vertical tab, form feed and the separators \x1c-\x1e would end lines for
#: ``str.splitlines`` but not for line numbers.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")

#: byte-order marks and the encodings they announce; any other file must be UTF-8
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def _declared(data: bytes) -> str | None:
    """The encoding ``data``'s byte-order mark declares, if it starts with one."""
    return next((enc for bom, enc in _BOMS if data.startswith(bom)), None)


def decode_text(data: bytes, path: str | os.PathLike[str], kind: str = "") -> str:
    """``data`` as text: UTF-8, or the UTF-8, UTF-16 or UTF-32 its byte-order mark declares
    (an editor's "Unicode" is UTF-16 with a mark). Anything else is one :class:`InputError`
    naming the line of the first bad byte, or saying that the bytes look like UTF-16
    without a mark (NUL in every other byte)."""
    encoding = _declared(data) or "utf-8"
    must = f"; {kind} must be UTF-8" if kind else ""
    if encoding == "utf-8" and _looks_utf16(data):
        raise InputError("not UTF-8: UTF-16 without a byte-order mark; convert it, e.g. with "
                         "iconv -f UTF-16LE -t UTF-8", path, 1)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        if encoding.startswith("utf-8"):
            raise InputError(f"not UTF-8 ({exc.reason} at byte {exc.start}){must}; convert it, e.g. with iconv",
                             path, data.count(b"\n", 0, exc.start) + 1) from None
        raise InputError(f"not {encoding.upper()}, as its byte-order mark says ({exc.reason} at byte {exc.start}); "
                         "convert it to UTF-8, e.g. with iconv", path) from None


def _looks_utf16(data: bytes) -> bool:
    """ASCII text in UTF-16 without a byte-order mark: NUL in most odd or most even bytes."""
    head = data[:256]
    return len(head) >= 8 and max(head[0::2].count(0), head[1::2].count(0)) > len(head) // 3


def text_head(data: bytes) -> bytes:
    """The start of a file as UTF-8 without a byte-order mark, for readers' ``sniff``: a file
    in UTF-16 or with a mark is recognised as its UTF-8 twin would be."""
    encoding = _declared(data)
    if encoding is None:
        return data
    return data.decode(encoding, errors="ignore").encode("utf-8")


_SURROGATE = re.compile("[\ud800-\udfff]")


def printable(text: str) -> str:
    """``text`` with any lone surrogate as its ``\\udXXX`` escape, safe in a message."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def lone_surrogate(obj: Any) -> str | None:
    """What is wrong if a decoded JSON value holds a lone surrogate (a ``"\\ud800"`` escape
    without its pair): not a character, so no UTF-8 file or terminal can take it. None if
    every string (keys included) is valid Unicode."""
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            bad = _SURROGATE.search(x)
            if bad:
                return (f"lone surrogate U+{ord(bad.group()):04X} in the string '{printable(x[:40])}': a \\u escape "
                        "without its pair is not a character")
        elif isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return None


def find_reader(path: Path, format: str | None = None) -> Reader:
    available = readers()
    if format is not None:
        if format not in available:
            raise InputError(f"no installed plugin reads format {format!r} "
                             f"(installed: {', '.join(sorted(available)) or 'none'})", path)
        return available[format]
    suffix = "".join(path.suffixes[-1:]).lower()
    candidates = [r for r in available.values() if suffix in r.suffixes or (is_stdin(path) and r.sniff)]
    if not candidates:
        known = sorted({s for r in available.values() for s in r.suffixes})
        raise InputError(f"no installed plugin reads {suffix or 'suffix-less'} files "
                         f"(readable: {', '.join(known) or 'none; install a plugin such as semsim-ucca'})", path)
    if len(candidates) == 1:
        return candidates[0]
    if is_stdin(path):
        head = stdin_bytes()[:4096]
    else:
        with open(path, "rb") as f:
            head = f.read(4096)
    head = text_head(head)
    for r in candidates:
        if r.sniff is None or r.sniff(path, head):
            return r
    raise InputError(f"none of the readers for {suffix} files ({', '.join(r.name for r in candidates)}) "
                     "recognises this file", path)


def iter_graphs(path: str | os.PathLike[str], format: str | None = None,
                errors: str = "raise") -> Iterator[Graph | InputError]:
    """Every graph in a file, in file order.

    A reader yields an :class:`InputError` in place of a graph it cannot read (one bad AMR
    in a PENMAN file, one bad line of MRP) and goes on. ``errors="raise"`` raises the first
    such error; ``errors="yield"`` yields it in that graph's place, so a caller can keep the
    others and still report the bad one with its file and line. Errors about the file as a
    whole (missing, unreadable, no reader, no graph at all) are always raised.
    """
    if errors not in ("raise", "yield"):
        raise ValueError(f"errors must be 'raise' or 'yield', not {errors!r}")
    p = Path(path)
    if is_stdin(p):  # a stream: readers that read through read_text (MRP, PENMAN) take it
        if not stdin_bytes():
            raise InputError("empty file", STDIN_NAME)
    elif not p.exists():
        raise InputError("no such file", p)
    elif p.is_dir():
        raise InputError("is a directory (give a file, or use the CLI's batch mode)", p)
    elif p.stat().st_size == 0:
        raise InputError("empty file", p)
    empty = True
    for obj in find_reader(p, format).read(p):
        empty = False
        if not isinstance(obj, InputError):
            try:
                obj = to_graph(obj)
            except (InputError, GraphError) as exc:  # a graph that converts badly costs only itself
                obj = exc if isinstance(exc, InputError) else InputError(str(exc), p, getattr(obj, "line", None))
        if isinstance(obj, InputError) and errors == "raise":
            raise obj
        yield obj
    if empty:
        raise InputError("no graphs in file", p)


def read_all(path: str | os.PathLike[str], format: str | None = None) -> list[Graph]:
    """Every graph in a file; the first graph that cannot be read is an error."""
    return list(iter_graphs(path, format))  # type: ignore[arg-type]  # errors="raise": graphs only


def read(path: str | os.PathLike[str], format: str | None = None) -> Graph:
    """The single graph in a file (an error if the file holds none or several)."""
    graphs = read_all(path, format)
    if len(graphs) != 1:
        raise InputError(f"expected one graph, found {len(graphs)} (use read_all)", path)
    return graphs[0]


# -- writers -------------------------------------------------------------------------------------
def write_jsonl(records: Iterable[dict[str, Any]], out: IO[str]) -> int:
    n = 0
    for r in records:
        out.write(json.dumps(r, ensure_ascii=False, sort_keys=False) + "\n")
        out.flush()
        n += 1
    return n


def write_tsv(records: Iterable[dict[str, Any]], out: IO[str], exclude: Iterable[str] = ()) -> int:
    """One row per record; the header is the first record's keys (less ``exclude``)."""
    w = csv.writer(out, delimiter="\t", lineterminator="\n")
    columns: list[str] | None = None
    n = 0
    for r in records:
        if columns is None:
            columns = [c for c in r if c not in exclude]
            w.writerow(columns)
        w.writerow([_cell(r.get(c)) for c in columns])
        out.flush()
        n += 1
    return n


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.6f}"
    return str(v)


# -- graphs as JSON (the parse cache stores them; plugins may too) ----------------------------------
GRAPH_FORMAT = 2  # 2: the scheme's label weights


def graph_to_dict(g: Graph) -> dict[str, Any]:
    """A self-contained JSON-able form of a graph, scheme included."""
    s = g.scheme
    return {
        "format": GRAPH_FORMAT, "id": g.id, "root": g.root, "sentence_ends": list(g.sentence_ends),
        "tokens": [[t.text, t.punct, t.paragraph, t.para_pos] for t in g.tokens],
        "units": [[u.id, u.kind, list(u.anchors), u.implicit, u.label] for u in g.units],
        "edges": [[e.parent, e.child, list(e.labels), e.remote] for e in g.edges],
        "scheme": {"name": s.name, "equivalences": [sorted(x) for x in s.equivalences],
                   "ignored_labels": sorted(s.ignored_labels), "ignored_kinds": sorted(s.ignored_kinds),
                   "label_groups": {k: list(v) for k, v in s.label_groups.items()},
                   "label_weights": dict(s.label_weights)},
        "meta": {k: v for k, v in g.meta.items() if isinstance(v, (str, int, float, bool))},
    }


def graph_from_dict(d: dict[str, Any]) -> Graph:
    from .graph import Edge, Token, Unit
    from .scheme import Scheme
    if d.get("format") != GRAPH_FORMAT:
        raise ValueError(f"unsupported graph format {d.get('format')!r}")
    s = d["scheme"]
    return Graph(
        tokens=tuple(Token(t, bool(p), int(par), int(pp)) for t, p, par, pp in d["tokens"]),
        units=tuple(Unit(i, k, tuple(a), bool(imp), lab) for i, k, a, imp, lab in d["units"]),
        edges=tuple(Edge(p, c, tuple(ls), bool(r)) for p, c, ls, r in d["edges"]),
        scheme=Scheme(s["name"], tuple(frozenset(x) for x in s["equivalences"]), frozenset(s["ignored_labels"]),
                      frozenset(s["ignored_kinds"]), s["label_groups"], s["label_weights"]),
        id=d["id"], root=d["root"], sentence_ends=tuple(d["sentence_ends"]), meta=d.get("meta", {}))

# -- pairs of inputs (the CLI's SOURCE CORRECTION arguments) ---------------------------------------
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
    from .progress import bar
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
            bad = next((g for g in (g1, g2) if isinstance(g, InputError)), None) or _mixed(g1, g2, a, b)
            if bad is not None and len(pairs) == 1:
                raise bad
            name = pair_name(a.name, b.name)
            out.append(GraphPair(name, str(a), str(b), None, None, str(bad)) if bad is not None
                       else GraphPair(name, str(a), str(b), g1, g2))  # type: ignore[arg-type]
            continue
        for i, (g1, g2) in enumerate(zip(ga, gb), 1):
            bad = next((g for g in (g1, g2) if isinstance(g, InputError)), None) or _mixed(g1, g2, a, b)
            name = pair_name(getattr(g1, "id", "") or f"{a.name}#{i}", getattr(g2, "id", "") or f"{b.name}#{i}")
            if bad is not None:
                out.append(GraphPair(name, f"{a}#{i}", f"{b}#{i}", None, None, str(bad)))
            else:
                out.append(GraphPair(name, f"{a}#{i}", f"{b}#{i}", g1, g2))  # type: ignore[arg-type]
    return out


def _mixed(g1: Graph, g2: Graph, a: Path, b: Path) -> InputError | None:
    """The error for two graphs of two representations (a UCCA passage and an AMR, a PSD
    graph in a file of DM graphs), naming both files: no label of one can match the other."""
    if g1.scheme.name == g2.scheme.name:
        return None
    return InputError(f"graph {g2.id or b.name} is {g2.scheme.name!r} but its pair, graph {g1.id or a.name} of "
                      f"{shown(a)}, is {g1.scheme.name!r}: two representations cannot be compared", shown(b),
                      g2.meta.get("line"))


def readable_pairs(pairs: list[GraphPair]) -> list[GraphPair]:
    """The pairs that could be read; each one that could not is reported on stderr, one line."""
    for p in pairs:
        if p.error is not None:
            print(f"semsim: {p.error} (pair {p.name} not scored)", file=sys.stderr)
    return [p for p in pairs if p.error is None]


def fail_if_unread(pairs: list[GraphPair]) -> None:
    """Exit status 1 after the readable pairs were scored and written, if any pair was not."""
    bad = [p for p in pairs if p.error is not None]
    if bad:
        raise SemsimError(f"{len(bad)} of {len(pairs)} pairs not scored: {bad[0].error}"
                          + (" (and more, see above)" if len(bad) > 1 else ""))



@contextmanager
def open_output(path: str | None) -> Iterator[IO[str]]:
    """stdout, or ``path`` written via ``path.partial`` and renamed when complete; on failure
    the partial file keeps every complete record written so far."""
    if path is None or path == "-":
        yield sys.stdout
        return
    with atomic_write(path, keep_partial=True) as f:
        yield f


def check_writable(*paths: str | None) -> None:
    """Fail at the start, not after hours of parsing, when an output cannot be written."""
    for path in paths:
        if path and path != "-":
            parent = Path(path).absolute().parent
            if not parent.is_dir():
                raise SemsimError(f"{path}: cannot write: no directory {parent}")
            if not os.access(parent, os.W_OK):
                raise SemsimError(f"{path}: cannot write: permission denied")



def pair_name(a: str, b: str) -> str:
    """A pair's name: the shared name of its two sides, or both joined by ``~``."""
    return a if a == b else f"{a}~{b}"

