"""Reading graphs through the registered readers, and writing result records.

``read(path)`` picks the reader by explicit format name, else by suffix, asking each
candidate's ``sniff`` when several share a suffix. The result writers (JSON Lines, TSV)
are :mod:`semsim.app.report`'s, importable from here too. (File primitives: :mod:`semsim.kernel.files`; graphs
as JSON: :mod:`semsim.kernel.graph_json`; the CLI's input pairs: :mod:`semsim.app.commands.inputs`.)
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from ..kernel.errors import GraphError, InputError, SemsimError
from ..kernel.files import input_bytes, is_stream, shown, text_head
from ..kernel.graph import Graph
from ..kernel.records import Reader
from .plugins import readers, to_graph
from .report import write_jsonl as write_jsonl  # the result writers, kept importable from here
from .report import write_tsv as write_tsv

#: the plugins in semsim's repository that read a suffix, for the lean install's error
#: (``pip install -e plugins/amr``): a user who has an .amr file needs to be told which to install
SHIPPED_READERS = {".amr": "plugins/amr", ".penman": "plugins/amr", ".xml": "plugins/ucca", ".pickle": "plugins/ucca",
                   ".pkl": "plugins/ucca"}


def find_reader(path: Path, format: str | None = None) -> Reader:
    """The reader of ``path``: ``format`` if given; else by suffix, a reader's ``sniff``
    deciding between readers of one suffix (the first that recognises the file's head). A
    stream without a suffix (standard input, a pipe) has none to go by: exactly one sniffing
    reader must recognise it, else the error names them and ``--read-format``."""
    available = readers()
    if format is not None:
        if format not in available:
            raise InputError(f"no installed plugin reads format {format!r} "
                             f"(installed: {', '.join(sorted(available)) or 'none'})", shown(path))
        return available[format]
    suffix = "".join(path.suffixes[-1:]).lower()
    candidates = [r for r in available.values() if suffix in r.suffixes]
    if not candidates and is_stream(path):
        return _sniffed(path, [r for r in available.values() if r.sniff])
    if not candidates:
        known = sorted({s for r in available.values() for s in r.suffixes})
        plugin = SHIPPED_READERS.get(suffix)
        install = f"; install the plugin that reads them: pip install -e {plugin}" if plugin else ""
        raise InputError(f"no installed plugin reads {suffix or 'suffix-less'} files "
                         f"(readable: {', '.join(known) or 'none'}{install})", path)
    if len(candidates) == 1:
        return candidates[0]
    head = _head(path)
    for r in candidates:
        if r.sniff is None or _sniffs(r, path, head):
            return r
    raise InputError(f"none of the readers for {suffix} files ({', '.join(r.name for r in candidates)}) "
                     "recognises this file", path)


def _sniffs(reader: Reader, path: Path, head: bytes) -> bool:
    """Whether ``reader`` recognises the file; its ``sniff`` failing is its plugin's fault, named."""
    sniff = reader.sniff
    try:
        return sniff is not None and bool(sniff(path, head))  # (callers ask only readers that sniff)
    except (Exception, SystemExit) as exc:
        from .plugins import plugin_fault
        raise plugin_fault(reader.plugin, f"reader {reader.name!r}'s sniff (reading {shown(path)})", exc) from exc


def _head(path: Path) -> bytes:
    """The first 4 KB of a file or stream, as the readers' ``sniff`` sees it (decoded to UTF-8)."""
    if is_stream(path):
        return text_head(input_bytes(path)[:4096])
    with open(path, "rb") as f:
        return text_head(f.read(4096))


def _sniffed(path: Path, sniffing: list[Reader]) -> Reader:
    """The one reader that recognises a stream; several or none is an error naming them."""
    head = _head(path)
    recognising = [r for r in sniffing if r.sniff is not None and _sniffs(r, path, head)]
    if len(recognising) == 1:
        return recognising[0]
    names = ", ".join(sorted(r.name for r in recognising or sniffing)) or "none installed"
    what = "several readers recognise it" if recognising else "no reader recognises it"
    raise InputError(f"{what} ({names}): name one with --read-format", shown(path))


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
    if is_stream(p):  # standard input, a pipe: readers read it through read_text or read_bytes
        if not input_bytes(p):
            raise InputError("empty file", shown(p))
    elif not p.exists():
        raise InputError("no such file", p)
    elif p.is_dir():
        raise InputError("is a directory (give a file, or use the CLI's batch mode)", p)
    elif p.stat().st_size == 0:
        raise InputError("empty file", p)
    empty = True
    reader = find_reader(p, format)
    sniffed = is_stream(p) and format is None and not p.suffix  # which reader read it is a guess: say so
    try:
        for k, obj in enumerate(reader.read(p), 1):
            empty = False
            if not isinstance(obj, InputError):
                line = getattr(obj, "line", None)
                line = line if isinstance(line, int) and not isinstance(line, bool) else None
                try:
                    obj = to_graph(obj)
                except (InputError, GraphError) as exc:  # a graph that converts badly costs only itself
                    obj = _located(exc, p, line, k)
            if isinstance(obj, InputError) and sniffed:
                obj = _as_read_by(obj, reader, p)
            if isinstance(obj, InputError) and errors == "raise":
                raise obj
            yield obj
    except InputError as exc:
        raise _as_read_by(exc, reader, p) if sniffed else exc from None
    except SemsimError:
        raise
    except (Exception, SystemExit) as exc:  # the reader's own code failed: name it, and the file
        from .plugins import plugin_fault
        raise plugin_fault(reader.plugin, f"reader {reader.name!r} (reading {shown(p)})", exc) from exc
    if empty:
        raise InputError("no graphs in file", shown(p))


def _located(exc: InputError | GraphError, path: Path, line: int | None, k: int) -> InputError:
    """An error of ``to_graph`` about the ``k``-th graph of ``path`` as an error naming the file
    and the line: its own, else the native graph's ``line`` (an attribute a reader may set),
    else which graph it was."""
    if isinstance(exc, InputError) and exc.path is not None:
        return exc
    message, line = (exc.message, exc.line if exc.line is not None else line) if isinstance(exc, InputError) \
        else (str(exc), line)
    return InputError(message if line is not None else f"graph {k}: {message}", path, line)


def _as_read_by(error: InputError, reader: Reader, path: Path) -> InputError:
    """An error about a stream, naming it as messages name standard input and saying which reader
    its content was taken for (the reader's sniff chose it)."""
    if "(read as " in error.message:
        return error
    return InputError(f"{error.message} (read as {reader.name}: another with --read-format)", shown(path), error.line)


def read_all(path: str | os.PathLike[str], format: str | None = None) -> list[Graph]:
    """Every graph in a file; the first graph that cannot be read is an error."""
    return list(iter_graphs(path, format))  # type: ignore[arg-type]  # errors="raise": graphs only


def read(path: str | os.PathLike[str], format: str | None = None) -> Graph:
    """The single graph in a file (an error if the file holds none or several)."""
    graphs = read_all(path, format)
    if len(graphs) != 1:
        raise InputError(f"expected one graph, found {len(graphs)} (use read_all)", path)
    return graphs[0]
