"""One way for every command to write what it computed, and to say what it could not.

A command describes its result once, as a :class:`Report`: its items (the records of JSON
Lines and the rows of TSV, written as they are made, so that ``-o FILE.partial`` keeps every
complete one), the records that follow them (a corpus record, summaries), its JSON document,
and its text as :class:`Table` s and lines, whose layout is data (:class:`Col`: heading,
alignment, width). :func:`write` is the one place that chooses by format, so that JSON is
written alike (indented, UTF-8) and TSV alike (quoted where a cell needs it) by every
command; :func:`num` is the one number formatter, told per use how a missing or non-finite
number reads, so that each table reads as it always has. :class:`Skipped` collects what
could not be read, parsed or scored: one stderr line each, and exit status 1 once
everything else was written.

Much of what a command writes was said by others: a plugin's descriptions and model names, a
file's lines and names. :func:`write` is also the one place that escapes it, for every format,
so that no such text can add a line, a column or a terminal's control sequence
(:func:`~semsim.kernel.files.one_line`): text and Markdown lines, table cells and TSV cells
show ``\\x1b``, ``\\n``, ``\\t``; JSON keeps the text and escapes the characters as JSON does
(``\\u001b``, ``\\u009b``).
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

import click

from ..kernel.errors import SemsimError
from ..kernel.files import one_line

#: The formats of record-writing commands (``usim``, ``compare``...); tables add ``markdown``.
FORMATS = ("text", "json", "jsonl", "tsv")

Record = Mapping[str, Any]


def num(x: float | None, digits: int = 4, *, none: str = "n/a", nonfinite: str | None = None, signed: bool = False,
        percent: bool = False, tiny: float = 0.0) -> str:
    """``x`` with ``digits`` decimals: ``none`` for a missing number, ``nonfinite`` for nan and
    ±inf (None: as Python writes them, ``nan``), a sign even when positive with ``signed``,
    as a percentage with ``percent``, and, below ``tiny`` in magnitude (p-values), in
    scientific notation with one decimal, so that a small p-value does not read as 0."""
    if x is None:
        return none
    if nonfinite is not None and not math.isfinite(x):
        return nonfinite
    if abs(x) < tiny:
        return f"{x:.1e}"
    return f"{x:{'+' if signed else ''}.{digits}{'%' if percent else 'f'}}"


# -- tables ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Col:
    """A column of a :class:`Table`: its heading; its alignment (``<`` left, for names, ``>``
    right, for numbers); its width (None: the widest cell or heading; a number: that width,
    which a longer cell overflows, as Python's format does); the separator before it (None:
    the table's); and its cell of a Markdown table's alignment row."""

    head: str
    align: str = ">"
    width: int | None = None
    before: str | None = None
    md: str = "---"


@dataclass(frozen=True)
class Table:
    """Rows of cells (strings, numbers already formatted by :func:`num`) under their columns;
    ``rstrip`` cuts the spaces that empty cells leave at the end of a line."""

    cols: Sequence[Col]
    rows: Sequence[Sequence[str]]
    sep: str = "  "
    rstrip: bool = False

    def lines(self, markdown: bool = False) -> list[str]:
        """The table as aligned text, or as a Markdown table; each cell escaped first
        (:func:`~semsim.kernel.files.one_line`, and ``|`` in Markdown), so that a cell holding
        a tab or a newline keeps its row and columns, and the widths count what is shown."""
        escape = _md_cell if markdown else one_line
        head = [escape(c.head) for c in self.cols]
        rows = [[escape(x) for x in r] for r in self.rows]
        if markdown:
            return ["| " + " | ".join(head) + " |", "|" + "|".join(c.md for c in self.cols) + "|",
                    *("| " + " | ".join(r) + " |" for r in rows)]
        widths = [c.width if c.width is not None else max(len(cell) for cell in column)
                  for c, column in zip(self.cols, zip(head, *rows))]
        out = []
        for cells in [head, *rows]:
            line = ""
            for k, (c, cell, w) in enumerate(zip(self.cols, cells, widths)):
                line += ("" if k == 0 else self.sep if c.before is None else c.before)
                line += cell.ljust(w) if c.align == "<" else cell.rjust(w)
            out.append(line.rstrip() if self.rstrip else line)
        return out


def _md_cell(cell: str) -> str:
    return one_line(cell).replace("|", "\\|")


#: What a command's text is made of: tables, lines, and rows of tab-separated cells.
Part = Table | str | tuple[str, ...]


def text(parts: Iterable[Part], markdown: bool = False) -> str:
    """Tables, lines and rows of cells (tuples: ``name<TAB>value``), one after another, each
    line ended by a newline. Each line and cell is escaped
    (:func:`~semsim.kernel.files.one_line`): a newline in it cannot make a second line, nor a
    tab a second cell."""
    lines: list[str] = []
    for part in parts:
        lines += (part.lines(markdown) if isinstance(part, Table) else
                  ["\t".join(map(one_line, part))] if isinstance(part, tuple) else [one_line(part)])
    return "".join(line + "\n" for line in lines)


#: What JSON leaves as it is (json escapes only U+0000-U+001F) that :func:`one_line` escapes:
#: DEL and C1 (a CSI, U+009B), the line separators and bidirectional overrides, lone surrogates.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def json_text(obj: Any, indent: int | None = None) -> str:
    """``obj`` as JSON, UTF-8 characters as they are but every character a terminal would
    act on as a ``\\uXXXX`` escape: outside strings JSON is ASCII, so each is inside one, and
    the escape reads back as the same string."""
    s = json.dumps(obj, ensure_ascii=False, indent=indent)
    return s if _JSON_UNSAFE.search(s) is None else _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", s)


# -- records --------------------------------------------------------------------------------------
def write_jsonl(records: Iterable[Record], out: IO[str]) -> int:
    """One JSON object a line, each flushed as written (a partial file keeps complete lines)."""
    n = 0
    for r in records:
        out.write(json_text(r) + "\n")
        out.flush()
        n += 1
    return n


def write_tsv(records: Iterable[Record], out: IO[str], exclude: Iterable[str] = ()) -> int:
    """One row per record; the header is the first record's keys (less ``exclude``). A
    missing value is an empty cell, a float has six decimals, a tab, newline or other control
    character in a cell is escaped (``\\t``: :func:`~semsim.kernel.files.one_line`), so that
    every row is one line of as many tab-separated cells as the header, to ``cut`` and ``awk``
    too, and a cell holding a quote is quoted (csv's rules)."""
    w = csv.writer(out, delimiter="\t", lineterminator="\n")
    columns: list[str] | None = None
    n = 0
    for r in records:
        if columns is None:
            columns = [c for c in r if c not in exclude]
            w.writerow([one_line(c) for c in columns])
        w.writerow([_cell(r.get(c)) for c in columns])
        out.flush()
        n += 1
    return n


def _cell(v: Any) -> str:
    return num(v, 6, none="") if v is None or isinstance(v, float) else one_line(str(v))


def _nothing() -> list[Record]:
    return []


@dataclass(frozen=True)
class Report:
    """A command's result, described once, that :func:`write` writes in any of ``formats``.

    ``items``: one record per thing reported (pair, sentence, system), the JSON Lines
    records and TSV rows, possibly a generator that computes them as they are written;
    ``trailer``: the JSON Lines records after them (a corpus record, summaries), asked for
    once the items are out; ``document``: the JSON document, given the items; ``row``: an
    item's TSV row (None: the item); ``parts``: the text, given the items and whether
    Markdown is wanted, as tables, lines and rows of cells."""

    items: Iterable[Record] = ()
    trailer: Callable[[], Iterable[Record]] = _nothing
    document: Callable[[list[Record]], Any] | None = None
    row: Callable[[Record], Record] | None = None
    parts: Callable[[list[Record], bool], Iterable[Part]] | None = None
    formats: Sequence[str] = field(default=FORMATS)


def write(report: Report, fmt: str, out: IO[str] | None = None) -> None:
    """Write ``report`` in format ``fmt`` (one of its ``formats``) to ``out`` (stdout)."""
    if fmt not in report.formats:
        raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(report.formats)}")
    out = sys.stdout if out is None else out
    if fmt == "jsonl":
        write_jsonl(report.items, out)
        write_jsonl(report.trailer(), out)
    elif fmt == "tsv":
        write_tsv(report.items if report.row is None else map(report.row, report.items), out)
    elif fmt == "json" and report.document is not None:
        out.write(json_text(report.document(list(report.items)), indent=2) + "\n")
    elif fmt in ("text", "markdown") and report.parts is not None:
        out.write(text(report.parts(list(report.items), fmt == "markdown"), fmt == "markdown"))
    else:
        raise ValueError(f"this report has no {fmt} rendering")


def render(report: Report, fmt: str) -> str:
    """:func:`write`'s output as a string."""
    buffer = io.StringIO()
    write(report, fmt, buffer)
    return buffer.getvalue()


# -- what could not be done -----------------------------------------------------------------------
class Skipped:
    """The items a command could not read, parse or score, while it went on with the others.

    Each is said on stderr in one line, ``Error: REASON (ITEM not VERB)`` (:meth:`show`,
    as soon as the command wants it said, or at the end), and once everything else was
    written :meth:`fail` ends the command with exit status 1 if there was any. Every error
    semsim prints starts ``Error:``, as click prints the errors that end a command (one
    prefix to grep for); notes and warnings start ``semsim:``."""

    def __init__(self, verb: str = "scored") -> None:
        self.verb = verb
        self.reasons: list[str] = []
        self.lines: list[str] = []
        self._shown = 0

    def add(self, reason: object, item: str) -> None:
        """``reason``: why, led by the file (and line) it concerns; ``item``: what was left out."""
        self.reasons.append(str(reason))
        self.lines.append(f"{reason} ({item} not {self.verb})")

    def __len__(self) -> int:
        return len(self.lines)

    def show(self) -> None:
        """Say, one stderr line each, the items not said yet."""
        for line in self.lines[self._shown:]:
            click.echo(f"Error: {one_line(line)}", err=True)
        self._shown = len(self.lines)

    def fail(self, summary: Callable[[Skipped], str]) -> None:
        """Say what is left to say, and if anything was skipped exit with status 1 and the
        error ``summary(self)`` (how many, and of what)."""
        self.show()
        if self.lines:
            raise SemsimError(summary(self))
