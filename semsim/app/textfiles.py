"""Text files as the commands read them: sentences one per line, files line-parallel to a
source, and where the sentences that could not be parsed or aligned stand (file and line)."""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from ..kernel.errors import InputError
from ..kernel.files import is_stdin, read_text, shown
from ..kernel.graph import Graph
from ..kernel.limits import LimitError, check_pair
from .parsing import graph_key

#: a file's name, as the caller has it (a path, or a name for text given in Python)
_P = TypeVar("_P", bound="str | os.PathLike[str]")


def read_lines(path: str | os.PathLike[str]) -> list[str]:
    """Sentences of a text file, one per line (empty lines kept, they are scored specially;
    encodings and line ends as :func:`~semsim.kernel.files.read_text` accepts them, which leaves only LF)."""
    lines = read_text(path).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def read_parallel(source: Path, others: Sequence[Path],
                  tokenize: str = "none") -> tuple[list[str], dict[Path, list[str]]]:
    """The source's lines and every other file's (line-parallel to it), each line tokenized
    as ``tokenize`` says (:func:`semsim.app.tokenization.tokenize`; ``none``: as read). An empty
    source, or a file with more or fewer lines than the source, is an error naming the first
    line that has no counterpart."""
    from .tokenization import tokenize as tokenized
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


def unparsed_lines(files: Mapping[_P, Sequence[str]], failed: dict[str, str]) -> list[InputError]:
    """Where the sentences that could not be parsed stand: one error per file and line."""
    return [InputError(failed[graph_key(text)], path, i)
            for path, lines in files.items() for i, text in enumerate(lines, 1)
            if text.strip() and graph_key(text) in failed]


def too_large_lines(source: Sequence[str], files: Mapping[_P, Sequence[str]],
                    graphs: dict[str, Graph],
                    skip: Collection[int] = ()) -> list[InputError]:
    """Where a line and its source are too large to align (:func:`semsim.kernel.limits.check_pair`):
    one error per file and line, so that the line is left out for every system alike."""
    out = []
    for path, lines in files.items():
        for i, (src, hyp) in enumerate(zip(source, lines), 1):
            if i in skip or not src.strip() or not hyp.strip():
                continue
            try:
                check_pair(graphs[graph_key(src)], graphs[graph_key(hyp)])
            except LimitError as exc:
                out.append(InputError(str(exc), path, i))
    return out
