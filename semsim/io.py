"""Reading graphs through the registered readers, and writing results.

``read(path)`` picks the reader by explicit format name, else by suffix, asking each
candidate's ``sniff`` when several share a suffix. Writers produce JSON Lines and TSV;
every record carries the score's signature.
"""

from __future__ import annotations

import csv
import json
import os
import re
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
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
    written record by record then keeps every complete record: no lost work)."""
    target = Path(path)
    if target.exists() and not target.is_file():  # /dev/null, a named pipe: write into it, never replace it
        try:
            with open(target, "wb") if binary else open(target, "w", encoding="utf-8", newline="\n") as f:
                yield f
        except OSError as exc:
            raise SemsimError(f"{target}: cannot write: {exc.strerror or exc}") from None
        return
    partial = target.with_name(target.name + ".partial")
    try:
        f = open(partial, "wb") if binary else open(partial, "w", encoding="utf-8", newline="\n")  # noqa: SIM115
    except OSError as exc:
        raise SemsimError(f"{target}: cannot write: {exc.strerror or exc}") from None
    try:
        with f:
            yield f
        os.replace(partial, target)
    except BaseException as exc:
        if keep_partial and partial.exists():
            print(f"semsim: results so far kept in {partial}", file=sys.stderr)
        else:
            partial.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise SemsimError(f"{target}: cannot write: {exc.strerror or exc}") from None
        raise


def read_text(path: str | os.PathLike[str], kind: str = "") -> str:
    r"""A UTF-8 text file's contents (a byte-order mark accepted). Unreadable files, bytes
    that are not UTF-8 and control characters (:data:`_CONTROL`) are :class:`InputError`\ s
    naming the file and the line of the first bad byte; ``kind`` (e.g. ``"M2 files"``) names
    what must be UTF-8 in that message."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", p) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", p) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        must = f"; {kind} must be UTF-8" if kind else ""
        raise InputError(f"not UTF-8 ({exc.reason} at byte {exc.start}){must}; convert it, e.g. with iconv", p,
                         line) from None
    bad = _CONTROL.search(text)
    if bad:
        line = text.count("\n", 0, bad.start()) + 1
        column = bad.start() - (text.rfind("\n", 0, bad.start()) + 1) + 1
        raise InputError(f"control character U+{ord(bad.group()):04X} at column {column}: not a text file, "
                         "or a corrupt one", p, line)
    return text


#: C0 control characters other than tab, line feed and carriage return: a NUL byte or an
#: escape in a text file means binary data or corruption, and vertical tab, form feed and
#: the separators \x1c-\x1e would end lines for ``str.splitlines`` but not for line numbers.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")


def find_reader(path: Path, format: str | None = None) -> Reader:
    available = readers()
    if format is not None:
        if format not in available:
            raise InputError(f"no installed plugin reads format {format!r} "
                             f"(installed: {', '.join(sorted(available)) or 'none'})", path)
        return available[format]
    suffix = "".join(path.suffixes[-1:]).lower()
    candidates = [r for r in available.values() if suffix in r.suffixes]
    if not candidates:
        known = sorted({s for r in available.values() for s in r.suffixes})
        raise InputError(f"no installed plugin reads {suffix or 'suffix-less'} files "
                         f"(readable: {', '.join(known) or 'none; install a plugin such as semsim-ucca'})", path)
    if len(candidates) == 1:
        return candidates[0]
    with open(path, "rb") as f:
        head = f.read(4096)
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
    if not p.exists():
        raise InputError("no such file", p)
    if p.is_dir():
        raise InputError("is a directory (give a file, or use the CLI's batch mode)", p)
    if p.stat().st_size == 0:
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
GRAPH_FORMAT = 1


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
                   "label_groups": {k: list(v) for k, v in s.label_groups.items()}},
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
                      frozenset(s["ignored_kinds"]), s["label_groups"]),
        id=d["id"], root=d["root"], sentence_ends=tuple(d["sentence_ends"]), meta=d.get("meta", {}))
