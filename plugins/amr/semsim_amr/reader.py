"""PENMAN files: blank-line separated AMRs with ``# ::key value`` metadata."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from semsim.kernel.errors import InputError
from semsim.kernel.files import read_text, shown
from semsim.kernel.limits import LimitError, check_depth, recursion_for_depth


def sniff_penman(path: Path, head: bytes) -> bool:
    text = head.decode("utf-8", "replace").lstrip()
    return text.startswith(("(", "#"))


def blocks(text: str) -> Iterator[tuple[int, str]]:
    """(first line number, text) of every blank-line separated block holding a graph (lines
    end at line feeds only, so that the numbers are an editor's)."""
    start, lines = None, []
    for n, line in enumerate(text.split("\n"), 1):
        if line.strip():
            if start is None:
                start = n
            lines.append(line.rstrip("\r"))
        elif lines and start is not None:  # (a line is kept only with its start)
            yield start, "\n".join(lines)
            start, lines = None, []
    if lines and start is not None:
        yield start, "\n".join(lines)


def read_penman_aligned(path: Path) -> Iterator[Any]:
    """Like :func:`read_penman`, with the AMRs anchored to the sentence's words through their
    surface alignments (``--read-format penman-aligned``)."""
    return read_penman(path, anchors="alignments")


def read_penman(path: Path, anchors: str = "concepts") -> Iterator[Any]:
    """Yield the AMRs of a PENMAN file as semsim graphs; a malformed one (:func:`check_block`,
    penman's decoder, :func:`check_triples`) is yielded as an error naming its id and line,
    in its place, and reading goes on."""
    from .adapter import amr_to_graph
    found = False
    for line, block in blocks(read_text(path, "PENMAN files")):
        if all(x.lstrip().startswith("#") for x in block.split("\n")):
            continue  # a comment-only block, e.g. a file header
        found = True
        ident = _block_id(block)
        try:
            amr = decode(block)
        except PenmanInputError as exc:  # this graph only: the reader goes on with the next
            yield InputError(f"graph {ident}: {exc.message}", shown(path), line + exc.offset)
            continue
        with recursion_for_depth():  # amr_to_graph re-encodes the graph, recursively
            graph = amr_to_graph(amr, anchors=anchors)
        yield graph
    if not found:
        raise InputError("no AMR graphs in file", shown(path))


class PenmanInputError(Exception):
    """What is wrong with one block, and on which of its lines (0-based ``offset``)."""

    def __init__(self, message: str, offset: int = 0):
        super().__init__(message)
        self.message, self.offset = message, offset


def _block_id(block: str) -> str:
    for x in block.split("\n"):
        if x.lstrip().startswith("#") and "::id" in x:
            ident = x.split("::id", 1)[1].split()
            return ident[0] if ident else "?"
    return "?"


#: PENMAN's tokens as far as nesting is concerned: strings (with escapes), comments, parentheses,
#: other text, and a quote that opens a string never closed.
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|#[^\n]*|[()]|[^\s()"#]+|"')


def check_block(block: str) -> None:
    """Refuse what penman's decoder lets through or cannot survive: a graph nested beyond
    :func:`semsim.kernel.limits.max_depth`, a ``)`` that closes nothing, and anything but comments
    after the graph's last ``)`` (an extra parenthesis, a second graph without a blank line),
    which penman silently drops."""
    depth = deepest = 0
    closed = False
    for m in _TOKENS.finditer(block):
        token = m.group()
        if token.startswith("#"):
            continue
        offset = block.count("\n", 0, m.start())
        if closed and token == ")":
            raise PenmanInputError("unbalanced ')': the graph was already closed", offset)
        if closed:
            raise PenmanInputError(f"text after the graph's closing parenthesis: {token[:20]!r} "
                                   "(one graph per block; separate graphs by a blank line)", offset)
        if token == "(":
            depth += 1
            if depth > deepest:
                deepest = depth
                try:
                    check_depth(depth, "PENMAN graph")
                except LimitError as exc:
                    raise PenmanInputError(str(exc), offset) from None
        elif token == ")":
            depth -= 1
            if depth < 0:
                raise PenmanInputError("unbalanced ')': it closes no '('", offset)
            closed = depth == 0


def check_triples(amr: Any) -> None:
    """Refuse triples that are not an AMR although penman decodes them (with at most a logged
    warning): a node without a variable or concept, a variable given two concepts, a relation
    without a target or without a role name."""
    concepts: dict[str, str] = {}
    for src, role, tgt in amr.triples:
        if role == ":instance":
            if src is None:
                raise PenmanInputError("a node without a variable")
            if tgt is None:
                raise PenmanInputError(f"variable {src} has no concept")
            if src in concepts:
                raise PenmanInputError(f"variable {src} is given two concepts, {concepts[src]} and {tgt}")
            concepts[src] = tgt
        elif tgt is None:
            raise PenmanInputError(f"relation {role} of {src} has no target")
        elif role == ":":
            raise PenmanInputError(f"a relation of {src} without a role name (':' alone)")


def decode(block: str) -> Any:
    """The ``penman.Graph`` of one block, checked (:func:`check_block`, :func:`check_triples`)."""
    import penman
    from penman.exceptions import PenmanError
    check_block(block)
    quiet = logging.getLogger("penman")
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # its warnings ("Missing concept") become our errors
    try:
        with recursion_for_depth():
            amr = penman.decode(block)
    except PenmanError as exc:
        lineno = getattr(exc, "lineno", None)
        offset = lineno - 1 if isinstance(lineno, int) and lineno else 0
        raise PenmanInputError(f"malformed PENMAN: {str(exc).splitlines()[-1]}", offset) from None
    finally:
        quiet.setLevel(level)
    check_triples(amr)
    return amr
