"""Reading graphs through the registered readers, and writing result records.

``read(path)`` picks the reader by explicit format name, else by suffix, asking each
candidate's ``sniff`` when several share a suffix. The result writers (JSON Lines, TSV)
are :mod:`semsim.report`'s, importable from here too. (File primitives: :mod:`semsim.files`; graphs
as JSON: :mod:`semsim.graph_json`; the CLI's input pairs: :mod:`semsim.commands.inputs`.)
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from .errors import GraphError, InputError
from .files import input_bytes, is_stream, shown, text_head
from .graph import Graph
from .plugins import readers, to_graph
from .records import Reader
from .report import write_jsonl as write_jsonl  # the result writers, kept importable from here
from .report import write_tsv as write_tsv


def find_reader(path: Path, format: str | None = None) -> Reader:
    available = readers()
    if format is not None:
        if format not in available:
            raise InputError(f"no installed plugin reads format {format!r} "
                             f"(installed: {', '.join(sorted(available)) or 'none'})", path)
        return available[format]
    suffix = "".join(path.suffixes[-1:]).lower()
    candidates = [r for r in available.values() if suffix in r.suffixes or (is_stream(path) and r.sniff)]
    if not candidates:
        known = sorted({s for r in available.values() for s in r.suffixes})
        raise InputError(f"no installed plugin reads {suffix or 'suffix-less'} files "
                         f"(readable: {', '.join(known) or 'none; install a plugin such as semsim-ucca'})", path)
    if len(candidates) == 1:
        return candidates[0]
    if is_stream(path):
        head = input_bytes(path)[:4096]
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
    if is_stream(p):  # standard input, a pipe: readers read it through read_text or input_bytes
        if not input_bytes(p):
            raise InputError("empty file", shown(p))
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
