"""The judgments a meta-evaluation reads: people's ratings of how well an output kept its
source's meaning, from TMU-GFM's GEC ratings, ASSET's simplification ratings or a plain TSV
(:func:`read_judgments`), and the outputs worth correlating (:func:`changed`).

Part of :mod:`semsim.app.metaeval` (which re-exports these names): the tables' formats and
their errors, each naming the file and line, kept apart from the measures and the study.
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...kernel.errors import InputError, SettingsError
from ...kernel.files import read_text, shown

#: The table formats :func:`read_judgments` reads; ``auto`` tells them apart by header and suffix.
TABLE_FORMATS = ("auto", "tmu-gfm", "asset", "tsv")

Pair = tuple[str, str]


# -- judgments ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Judgment:
    """People's judgment of how well ``output`` keeps the meaning of ``source``.

    ``human`` is the number correlated with (the raters' mean), ``ratings`` the raters'
    own numbers; ``row`` is the 1-based line of the table where the judgment starts (its
    first row, for tables with a row per rating), so that a number can be traced back.
    """

    source: str
    output: str
    human: float
    ratings: tuple[float, ...]
    row: int
    system: str = ""


def read_judgments(path: str | os.PathLike[str], format: str = "auto") -> list[Judgment]:
    """The judgments of a table (``-``: standard input), in the table's order.

    Formats (:data:`TABLE_FORMATS`): ``tmu-gfm`` (CSV with ``source``, ``output``,
    ``meaning``: the raters' scores joined by commas, ``ave_m``: their mean, the human
    score; ``system`` if present), ``asset`` (CSV with a row per rating: ``original``,
    ``simplification``, ``aspect``, ``rating``; the ``meaning`` ratings of each pair
    averaged, the pairs in the order first seen), ``tsv`` (``source<TAB>output<TAB>score``
    with any further scores in more columns, averaged; a first line whose third field is
    no number is a header). A missing column, a row with too few or too many fields, a
    score that is no finite number, or no judgment at all is an :class:`InputError`
    naming the file and line.
    """
    if format not in TABLE_FORMATS:
        raise SettingsError(f"unknown table format {format!r}: choose one of {', '.join(TABLE_FORMATS)}")
    text = read_text(path)
    where = shown(path)
    if format == "auto":
        format = _detect(where, text)
    readers: dict[str, Callable[[str, str], list[Judgment]]] = {"tmu-gfm": _read_tmu_gfm, "asset": _read_asset,
                                                                 "tsv": _read_tsv}
    judgments = readers[format](where, text)
    if not judgments:
        raise InputError(f"no judgments in this {format} table", where)
    return judgments


def _header_cells(text: str) -> list[str]:
    first = text.split("\n", 1)[0]
    try:
        return [c.strip().lower() for c in next(csv.reader([first]), [])]
    except csv.Error:
        return []


def _detect(path: str, text: str) -> str:
    """The format of a table from its first line (and, for a headerless TSV, its suffix)."""
    first = text.split("\n", 1)[0]
    if not text.strip():
        raise InputError("empty table", path, 1)
    if "\t" in first or Path(path).suffix.lower() in (".tsv", ".tab"):
        return "tsv"
    header = set(_header_cells(text))
    if {"source", "output"} <= header:
        return "tmu-gfm"
    if {"original", "simplification"} <= header:
        return "asset"
    raise InputError("cannot tell the table's format: neither a TMU-GFM header (source,output,...,meaning,...,"
                     "ave_m), an ASSET one (original,simplification,...,aspect,...,rating) nor tab-separated "
                     "fields; name it with --table-format", path, 1)


def _csv_records(path: str, text: str) -> Iterator[tuple[int, list[str]]]:
    """(first line, fields) of each non-blank CSV record (a quoted field may span lines)."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    start = 1
    try:
        for record in reader:
            if record:
                yield start, record
            start = reader.line_num + 1
    except csv.Error as exc:
        raise InputError(f"not CSV: {exc}", path, reader.line_num) from None


def _columns(path: str, header: list[str], line: int, required: Sequence[str], fmt: str) -> dict[str, int]:
    """Where each column is; a missing required column names the header's line, and so does
    one of the columns read (``required``, ``system``) given twice: which would be meant?"""
    names = [c.strip().lower() for c in header]
    missing = [c for c in required if c not in names]
    if missing:
        raise InputError(f"no column {', '.join(missing)} in the header of this {fmt} table "
                         f"(expected {','.join(required)})", path, line)
    twice = next((c for c in (*required, "system") if names.count(c) > 1), None)
    if twice is not None:
        raise InputError(f"column {twice!r} appears {names.count(twice)} times in the header: keep one", path, line)
    return {name: names.index(name) for name in dict.fromkeys(names)}


def _fields(path: str, line: int, record: list[str], header: list[str]) -> None:
    if len(record) != len(header):
        few = "too few" if len(record) < len(header) else "too many"
        raise InputError(f"{few} fields: {len(record)}, but the header has {len(header)}", path, line)


def _number(path: str, line: int, what: str, text: str) -> float:
    """A score of a table, refused unless it is a finite number."""
    if not _NUMBER.fullmatch(text.strip()):  # float() takes 1_0 and other scripts' digits: a table does not
        raise InputError(f"{what} {text.strip()!r} is not a number (plain digits, a point, an exponent)", path, line)
    value = float(text.strip())
    if not math.isfinite(value):
        raise InputError(f"{what} {text.strip()!r} is not a finite number", path, line)
    return value


def _csv_table(path: str, text: str, required: tuple[str, ...], fmt: str
               ) -> tuple[Iterator[tuple[int, list[str]]], list[str], dict[str, int]]:
    """A CSV table's remaining records, its header and the columns it must have (by name)."""
    records = _csv_records(path, text)
    first = next(records, None)
    if first is None:
        raise InputError("empty table", path, 1)
    line, header = first
    return records, header, _columns(path, header, line, required, fmt)


def _read_tmu_gfm(path: str, text: str) -> list[Judgment]:
    records, header, col = _csv_table(path, text, ("source", "output", "meaning", "ave_m"), "tmu-gfm")
    out = []
    for line, record in records:
        _fields(path, line, record, header)
        ratings = tuple(_number(path, line, "meaning rating", r) for r in record[col["meaning"]].split(","))
        out.append(Judgment(record[col["source"]], record[col["output"]],
                            _number(path, line, "ave_m", record[col["ave_m"]]), ratings, line,
                            record[col["system"]] if "system" in col else ""))
    return out


def _read_asset(path: str, text: str) -> list[Judgment]:
    records, header, col = _csv_table(path, text, ("original", "simplification", "aspect", "rating"), "asset")
    ratings: dict[Pair, list[float]] = {}
    rows: dict[Pair, int] = {}
    for line, record in records:
        _fields(path, line, record, header)
        if record[col["aspect"]].strip().lower() != "meaning":  # fluency and simplicity say nothing of meaning
            continue
        pair = (record[col["original"]], record[col["simplification"]])
        rows.setdefault(pair, line)
        ratings.setdefault(pair, []).append(_number(path, line, "rating", record[col["rating"]]))
    return [Judgment(src, out, float(np.mean(r)), tuple(r), rows[src, out]) for (src, out), r in ratings.items()]


def _read_tsv(path: str, text: str) -> list[Judgment]:
    lines = text.split("\n")
    while lines and not lines[-1].strip():  # the end of the last line, or blank lines after it
        lines.pop()
    out = []
    for n, line in enumerate(lines, 1):
        cells = line.split("\t")
        if len(cells) < 3:
            raise InputError(f"too few fields: {len(cells)}; expected source<TAB>output<TAB>score[<TAB>score...]",
                             path, n)
        if n == 1 and not _is_number(cells[2]):  # a header
            continue
        ratings = tuple(_number(path, n, "score", c) for c in cells[2:])
        out.append(Judgment(cells[0], cells[1], float(np.mean(ratings)), ratings, n))
    return out


#: A score as a table writes it: ASCII digits, a point, an exponent (``inf`` and ``nan`` too,
#: which :func:`_number` then refuses as not finite); no ``1_0``, no digits of other scripts.
_NUMBER = re.compile(r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)", re.IGNORECASE)


def _is_number(text: str) -> bool:
    """Whether a first row's third field is a score (else the row is a header): as float()
    reads it, so that ``1_0`` is a score :func:`_number` refuses, not a header dropped."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def _normalised(text: str) -> str:
    return " ".join(text.split())


def changed(judgments: Sequence[Judgment]) -> list[Judgment]:
    """The judgments whose output differs from its source, whitespace aside: an output that
    copies its source keeps its meaning for every measure and every rater alike, so keeping
    such pairs measures how well a measure spots copies (the data's READMEs say so)."""
    return [j for j in judgments if _normalised(j.source) != _normalised(j.output)]
