"""CoNLL-U, the subset this plugin needs: each word's ID, FORM, HEAD and DEPREL."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from semsim.kernel.errors import InputError
from semsim.kernel.files import read_text, shown


@dataclass(frozen=True)
class Sentence:
    """The native graph: words, each word's head (1-based; 0: the root) and relation."""

    id: str
    words: tuple[str, ...]
    heads: tuple[int, ...]
    relations: tuple[str, ...]


def sniff(path: Path, head: bytes) -> bool:
    """CoNLL-U's sign: its first word line has 10 tab-separated columns, the first a number."""
    for line in head.decode("utf-8", "replace").splitlines():
        if line.strip() and not line.startswith("#"):
            columns = line.split("\t")
            return len(columns) == 10 and columns[0].split("-")[0].isdigit()
    return False


def read(path: Path) -> Iterator[Sentence | InputError]:
    """Every sentence of a file, in order; a bad one yields an InputError in its place."""
    id, rows, found = "", [], False
    for n, line in enumerate([*read_text(path, "CoNLL-U files").split("\n"), ""], 1):
        if not line.strip():  # a blank line ends a sentence
            if rows:
                found = True
                yield sentence(id, rows, shown(path))
            id, rows = "", []
        elif line.startswith("# sent_id ="):
            id = line.split("=", 1)[1].strip()
        elif not line.startswith("#"):
            rows.append((n, line.split("\t")))
    if not found:
        raise InputError("no sentences in file", shown(path))


def sentence(id: str, rows: list[tuple[int, list[str]]], path: str) -> Sentence | InputError:
    """One sentence from its lines, checked: 10 columns, IDs 1, 2, ..., and heads that are IDs
    or 0 and lead to 0 (a tree). Multiword tokens (1-2) and empty nodes (1.1) are skipped."""
    words = [(n, c) for n, c in rows if len(c) != 10 or not ("-" in c[0] or "." in c[0])]
    for i, (n, c) in enumerate(words, 1):
        if len(c) != 10 or c[0] != str(i) or not c[6].isdigit() or int(c[6]) > len(words):
            return InputError(f"expected word {i}: 10 tab-separated columns, HEAD in 0..{len(words)}", path, n)
    heads = tuple(int(c[6]) for _, c in words)
    for i, (n, _) in enumerate(words, 1):
        seen, h = set(), i
        while h and h not in seen:  # up from word i, until the root (0) or a word seen before
            seen.add(h)
            h = heads[h - 1]
        if h:
            return InputError(f"word {i}'s heads form a cycle: not a tree", path, n)
    return Sentence(id, tuple(c[1] for _, c in words), heads, tuple(c[7] or "dep" for _, c in words))
