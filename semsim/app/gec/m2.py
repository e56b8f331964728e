"""Reading M2 files (the CoNLL-2013/2014 gold-edit format) and applying their edits.

An M2 file holds blocks separated by blank lines: one ``S`` line with the tokenized source
sentence, then one ``A`` line per edit (Ng et al. 2014, §2)::

    S The cat sit on mat .
    A 2 3|||SVA|||sits|||REQUIRED|||-NONE-|||0
    A 4 4|||ArtOrDet|||the|||REQUIRED|||-NONE-|||0
    A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1

Offsets are token offsets into the *source* sentence, end exclusive; ``start == end`` is an
insertion and an empty correction a deletion. Decisions (see ``docs/sensitivity.md``):

* Annotators are kept apart: an edit belongs to the annotator named in its last field, and
  each annotator's edits are a separate correction of the sentence (they are never mixed).
* ``noop`` edits (``-1 -1``, or type ``noop``) are not edits: they only record that the
  annotator saw the sentence and changed nothing.
* Alternative corrections of one edit (``on||at`` in the correction field) are all kept;
  the first one is the one applied. ``-NONE-`` as a correction means "delete".
* Overlapping edits of one annotator cannot all be applied to the source offsets; the
  earlier one in the file is kept, and each later one that overlaps a kept edit is skipped
  and reported (:func:`resolve_overlaps`).
* Malformed lines raise :class:`~semsim.kernel.errors.InputError` naming the file and line; a
  file that is not UTF-8 names the line of the first bad byte.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ...kernel.errors import InputError
from ...kernel.files import read_text, shown

#: The correction field's marker for "no correction text" (also used by noop edits).
NONE = "-NONE-"


@dataclass(frozen=True)
class Edit:
    """One gold edit: replace source tokens ``[start, end)`` by ``correction``.

    ``corrections`` holds every alternative the annotator gave (each a space-separated token
    string, ``""`` for a deletion); ``line`` is the edit's line in the M2 file (0 if unknown).
    """

    start: int
    end: int
    type: str
    corrections: tuple[str, ...]
    annotator: int = 0
    required: str = "REQUIRED"
    comment: str = NONE
    line: int = 0

    @property
    def correction(self) -> str:
        """The correction applied: the first alternative."""
        return self.corrections[0]

    @property
    def tokens(self) -> list[str]:
        return self.correction.split()

    @property
    def kind(self) -> str:
        """``insertion``, ``deletion`` or ``replacement``."""
        if self.start == self.end:
            return "insertion"
        return "deletion" if not self.tokens else "replacement"


@dataclass(frozen=True)
class Conflict:
    """An edit left out because its span overlaps an edit of the same annotator kept before it."""

    skipped: Edit
    kept: Edit


@dataclass(frozen=True)
class M2Sentence:
    """A source sentence with all its edits, every annotator's, in file order.

    ``annotators`` lists every annotator that annotated the sentence, including those whose
    only line is a noop (they corrected nothing); ``index`` is the sentence's 0-based position
    in the file and ``line`` the line of its ``S`` line.
    """

    tokens: tuple[str, ...]
    edits: tuple[Edit, ...]
    annotators: tuple[int, ...]
    index: int = 0
    line: int = 0

    @property
    def text(self) -> str:
        return " ".join(self.tokens)

    def edits_of(self, annotator: int) -> tuple[Edit, ...]:
        """One annotator's edits, in file order."""
        return tuple(e for e in self.edits if e.annotator == annotator)


# -- reading ---------------------------------------------------------------------------------------------
def read_m2(path: str | os.PathLike[str]) -> list[M2Sentence]:
    """The sentences of an M2 file (UTF-8; a byte-order mark and CRLF line ends are accepted)."""
    text = read_text(path, "M2 files")  # "-": standard input
    sentences = parse_m2(text, shown(path))
    if not sentences:
        raise InputError("no sentences (no 'S' line)", shown(path))
    return sentences


def parse_m2(text: str, path: str | os.PathLike[str] | None = None) -> list[M2Sentence]:
    """Sentences from M2 text; ``path`` only names the source in errors.

    An ``S`` line that follows an edit without a blank line in between still starts a new
    sentence: the format's blank line is a separator, and nothing else can be meant.
    """
    sentences: list[M2Sentence] = []
    tokens: tuple[str, ...] | None = None
    s_line = 0
    edits: list[Edit] = []
    annotators: set[int] = set()

    def close() -> None:
        nonlocal tokens
        if tokens is not None:
            sentences.append(M2Sentence(tokens, tuple(edits), tuple(sorted(annotators)), len(sentences), s_line))
        tokens = None
        edits.clear()
        annotators.clear()

    for n, raw in enumerate(text.split("\n"), 1):
        line = raw.rstrip("\r")
        if not line.strip():
            close()
        elif line == "S" or line.startswith("S "):
            close()
            tokens, s_line = tuple(line[2:].split()), n
        elif line.startswith("A "):
            if tokens is None:
                raise InputError("edit ('A' line) outside a sentence: it must follow an 'S' line", path, n)
            edit = _parse_edit(line[2:], len(tokens), path, n)
            annotators.add(edit.annotator)
            if edit.type.lower() != "noop":
                edits.append(edit)
        else:
            shown = line if len(line) <= 40 else line[:37] + "..."
            raise InputError(f"expected an 'S' line, an 'A' line or a blank line, got {shown!r}", path, n)
    close()
    return sentences


def _parse_edit(body: str, n_tokens: int, path: str | os.PathLike[str] | None, n: int) -> Edit:
    """One ``A`` line after its ``A ``. The correction field may itself hold ``||`` between
    alternatives, so the fixed fields are split off from both ends and the rest is the correction."""
    head = body.split("|||", 2)
    tail = head[2].rsplit("|||", 3) if len(head) == 3 else []
    if len(tail) != 4:
        raise InputError("malformed edit: expected 'A start end|||type|||correction|||required|||comment|||"
                         f"annotator' (6 fields separated by '|||'), got {body.count('|||') + 1} field(s)", path, n)
    span, etype, (correction, required, comment, annotator_field) = head[0], head[1].strip(), tail
    offsets = span.split()
    try:
        if len(offsets) != 2:
            raise ValueError
        start, end = int(offsets[0]), int(offsets[1])
    except ValueError:
        raise InputError(f"malformed edit span {span!r}: expected two token offsets 'start end'", path, n) from None
    try:
        annotator = int(annotator_field.strip())
        if annotator < 0:
            raise ValueError
    except ValueError:
        raise InputError(f"malformed annotator id {annotator_field!r}: expected a non-negative integer",
                         path, n) from None
    if not etype:
        raise InputError("edit without an error type", path, n)
    noop = (start, end) == (-1, -1) or etype.lower() == "noop"
    if noop:
        return Edit(-1, -1, "noop", ("",), annotator, required, comment, n)
    if start < 0 or end < start or end > n_tokens:
        raise InputError(f"edit span {start} {end} is outside the sentence's {n_tokens} tokens "
                         "(need 0 <= start <= end <= number of tokens)", path, n)
    alternatives = tuple("" if a.strip() == NONE else " ".join(a.split()) for a in correction.split("||"))
    return Edit(start, end, etype, alternatives, annotator, required, comment, n)


# -- overlaps and application ------------------------------------------------------------------------------
def overlap(a: Edit, b: Edit) -> bool:
    """Whether two edits cannot both be applied to the source offsets unambiguously.

    True if their spans share a source token (an insertion strictly inside the other's span
    counts). An insertion at offset p sits between tokens p-1 and p, so it is well defined
    next to an edit that starts or ends at p (it goes before or after it), and next to another
    insertion at p: they go in file order, as ERRANT writes them (``A 9 9|||M:DET|||his`` then
    ``A 9 9|||M:CONJ|||or`` for "his or her").
    """
    return a.start < b.end and b.start < a.end


def resolve_overlaps(edits: Iterable[Edit]) -> tuple[list[Edit], list[Conflict]]:
    """Keep edits in the given (file) order, skipping each one that overlaps an edit already kept.

    Meant for one annotator's edits: different annotators' edits are alternatives and are
    never applied together. Keeping the earlier edit makes the outcome depend only on the
    file, not on the sampled application order.
    """
    kept: list[Edit] = []
    skipped: list[Conflict] = []
    for e in edits:
        clash = next((k for k in kept if overlap(k, e)), None)
        if clash is None:
            kept.append(e)
        else:
            skipped.append(Conflict(e, clash))
    return kept, skipped


def apply_edits(tokens: Sequence[str], edits: Iterable[Edit]) -> list[str]:
    """The tokens after applying ``edits`` (any subset, in any order) to the source ``tokens``.

    Every edit's offsets refer to the source, so the result does not depend on the order
    the edits are given in: they are spliced from the rightmost leftwards, which leaves
    the offsets of the edits still to apply unchanged. Overlapping edits raise ValueError
    (resolve them first with :func:`resolve_overlaps`).
    """
    # by start, insertions before the edit starting at the same offset (they precede it), and
    # insertions at one offset in file order
    ordered = sorted(edits, key=lambda e: (e.start, e.end, e.line))
    for i, a in enumerate(ordered):
        for b in ordered[i + 1:]:
            if overlap(a, b):
                raise ValueError(f"overlapping edits {a.start}-{a.end} and {b.start}-{b.end}")
    out = list(tokens)
    for e in reversed(ordered):
        if e.end > len(tokens) or e.start < 0:
            raise ValueError(f"edit {e.start}-{e.end} is outside a sentence of {len(tokens)} tokens")
        out[e.start:e.end] = e.tokens
    return out
