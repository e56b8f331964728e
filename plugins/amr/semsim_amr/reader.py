"""PENMAN files: blank-line separated AMRs with ``# ::key value`` metadata."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from semsim.errors import InputError


def sniff_penman(path: Path, head: bytes) -> bool:
    text = head.decode("utf-8", "replace").lstrip()
    return text.startswith(("(", "#"))


def blocks(text: str) -> Iterator[tuple[int, str]]:
    """(first line number, text) of every blank-line separated block holding a graph."""
    start, lines = None, []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            if start is None:
                start = n
            lines.append(line)
        elif lines:
            yield start, "\n".join(lines)
            start, lines = None, []
    if lines:
        yield start, "\n".join(lines)


def read_penman_aligned(path: Path):
    """Like :func:`read_penman`, with the AMRs anchored to the sentence's words through their
    surface alignments (``--read-format penman-aligned``)."""
    return read_penman(path, anchors="alignments")


def read_penman(path: Path, anchors: str = "concepts"):
    """Yield the AMRs of a PENMAN file as semsim graphs; a malformed one is yielded as an
    error naming its id and line, in its place, and reading goes on."""
    import penman
    from penman.exceptions import PenmanError

    from .adapter import amr_to_graph
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 ({exc.reason} at byte {exc.start})", path) from None
    found = False
    for line, block in blocks(text):
        if all(x.lstrip().startswith("#") for x in block.splitlines()):
            continue  # a comment-only block, e.g. a file header
        found = True
        try:
            amr = penman.decode(block)
        except PenmanError as exc:  # this graph only: the reader goes on with the next
            ident = next((x.split("::id", 1)[1].split()[0] for x in block.splitlines() if "::id" in x), "?")
            lineno = getattr(exc, "lineno", None)
            at = line + (lineno - 1 if isinstance(lineno, int) and lineno else 0)
            yield InputError(f"graph {ident}: malformed PENMAN: {str(exc).splitlines()[-1]}", path, at)
            continue
        yield amr_to_graph(amr, anchors=anchors)
    if not found:
        raise InputError("no AMR graphs in file", path)
