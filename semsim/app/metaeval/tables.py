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
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...kernel.errors import InputError, SettingsError
from ...kernel.files import read_text, shown

#: The table formats :func:`read_judgments` reads; ``auto`` tells them apart by header and suffix.
TABLE_FORMATS = ("auto", "tmu-gfm", "asset", "tsv", "sulem2018", "columns")
#: The roles a ``columns`` table names (:func:`parse_columns`): the first three are required.
COLUMN_ROLES = ("source", "output", "score", "system", "id")
#: Sulem et al. 2018's table (as Alva-Manchego et al. 2021 released it), as named columns.
SULEM2018 = {"source": "orig_sent", "output": "simp_sent", "score": "meaning", "system": "sys_name",
             "id": "sent_id"}

Pair = tuple[str, str]


# -- judgments ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Judgment:
    """People's judgment of how well ``output`` keeps the meaning of ``source``.

    ``human`` is the number correlated with (the raters' mean), ``ratings`` the raters'
    own numbers; ``row`` is the 1-based line of the file where the judgment starts (its
    first row, for tables with a row per rating; a header is line 1, so the first judgment
    under one is row 2), the line an error would name and ``sed -n ROWp`` prints, so that
    a number can be traced back.
    """

    source: str
    output: str
    human: float
    ratings: tuple[float, ...]
    row: int
    system: str = ""
    #: the source's id in the table (``sent_id``), where the table gives one
    id: str = ""


def read_judgments(path: str | os.PathLike[str], format: str = "auto",
                   columns: Mapping[str, str] | None = None) -> list[Judgment]:
    """The judgments of a table (``-``: standard input), in the table's order.

    Formats (:data:`TABLE_FORMATS`): ``tmu-gfm`` (CSV with ``source``, ``output``,
    ``meaning``: the raters' scores joined by commas, ``ave_m``: their mean, the human
    score; ``system`` if present), ``asset`` (CSV with a row per rating: ``original``,
    ``simplification``, ``aspect``, ``rating``; the ``meaning`` ratings of each pair
    averaged, the pairs in the order first seen), ``tsv`` (``source<TAB>output<TAB>score``
    with any further scores in more columns, averaged; a first line whose third field is
    no number is a header), ``sulem2018`` (Sulem et al. 2018's CSV: :data:`SULEM2018`'s
    columns) and ``columns`` (any CSV whose columns ``columns`` names by role,
    :data:`COLUMN_ROLES`: one judgment a row, its score one number). A missing column, a
    row with too few or too many fields, a score that is no finite number, or no judgment
    at all is an :class:`InputError` naming the file and line. A ``tsv`` header may name an ``id`` and a
    ``system`` column anywhere: those are then read as such, and the other columns are the
    source, the output and the scores, in order.
    """
    if format not in TABLE_FORMATS:
        raise SettingsError(f"unknown table format {format!r}: choose one of {', '.join(TABLE_FORMATS)}")
    text = read_text(path)
    where = shown(path)
    if columns is not None and format not in ("auto", "columns"):
        raise SettingsError(f"named columns are read as table format columns, not {format}")
    if format == "auto":
        format = "columns" if columns is not None else _detect(where, text)
    if format == "columns" and columns is None:
        raise SettingsError("table format columns needs the columns named: source=...,output=...,score=...")
    named = dict(SULEM2018 if format == "sulem2018" else columns or {})
    readers: dict[str, Callable[[str, str], list[Judgment]]] = {
        "tmu-gfm": _read_tmu_gfm, "asset": _read_asset, "tsv": _read_tsv,
        "sulem2018": lambda p, t: _read_columns(p, t, named, "sulem2018"),
        "columns": lambda p, t: _read_columns(p, t, named, "columns")}
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
    if set(SULEM2018.values()) <= header:
        return "sulem2018"
    if {"source", "output"} <= header:
        return "tmu-gfm"
    if {"original", "simplification"} <= header:
        return "asset"
    raise InputError("cannot tell the table's format: neither a TMU-GFM header (source,output,...,meaning,...,"
                     "ave_m), an ASSET one (original,simplification,...,aspect,...,rating), Sulem et al. 2018's "
                     "(sent_id,sys_name,...,orig_sent,simp_sent,...,meaning,...) nor tab-separated fields; "
                     "name it with --table-format, or its columns with --columns", path, 1)


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


def parse_columns(spec: str) -> dict[str, str]:
    """``source=orig_sent,output=simp_sent,score=meaning[,system=sys_name][,id=sent_id]``: the
    column of each role (:data:`COLUMN_ROLES`); an unknown or repeated role, or a missing
    required one, is a :class:`SettingsError` naming the item."""
    out: dict[str, str] = {}
    for n, item in enumerate(spec.split(","), 1):
        role, eq, column = (part.strip() for part in item.partition("="))
        if not eq or not role or not column:
            raise SettingsError(f"--columns {spec!r}, item {n}: {item.strip()!r} is not ROLE=COLUMN")
        if role not in COLUMN_ROLES:
            raise SettingsError(f"--columns {spec!r}, item {n}: unknown role {role!r}: choose from "
                                f"{', '.join(COLUMN_ROLES)}")
        if role in out:
            raise SettingsError(f"--columns {spec!r}, item {n}: {role} given twice")
        out[role] = column
    missing = [r for r in COLUMN_ROLES[:3] if r not in out]
    if missing:
        raise SettingsError(f"--columns {spec!r}: no {', '.join(missing)} column named (source, output and "
                            "score are needed)")
    return out


def _read_columns(path: str, text: str, named: Mapping[str, str], fmt: str) -> list[Judgment]:
    """A CSV with one judgment a row, its columns named by role: the score is one number (a
    mean over raters already, as Sulem et al.'s ``meaning`` is), the id and system text."""
    columns = {role: column.strip().lower() for role, column in named.items()}
    records, header, col = _csv_table(path, text, tuple(columns.values()), fmt)
    out = []
    for line, record in records:
        _fields(path, line, record, header)
        score = _number(path, line, named["score"], record[col[columns["score"]]])
        cell = {role: record[col[c]] for role, c in columns.items()}
        out.append(Judgment(cell["source"], cell["output"], score, (score,), line, cell.get("system", ""),
                            cell.get("id", "")))
    return out


def _read_tsv(path: str, text: str) -> list[Judgment]:
    lines = text.split("\n")
    while lines and not lines[-1].strip():  # the end of the last line, or blank lines after it
        lines.pop()
    header: list[str] = []
    named: dict[str, int] = {}  # the header's id and system columns
    out = []
    for n, line in enumerate(lines, 1):
        cells = line.split("\t")
        if n == 1 and len(cells) >= 3 and not _is_number(cells[2]):  # a header
            header, names = cells, [c.strip().lower() for c in cells]
            twice = next((c for c in ("id", "system") if names.count(c) > 1), None)
            if twice is not None:
                raise InputError(f"column {twice!r} appears {names.count(twice)} times in the header: keep one",
                                 path, n)
            named = {c: names.index(c) for c in ("id", "system") if c in names}
            continue
        if named:
            _fields(path, n, cells, header)
        text_of = {c: cells[i] for c, i in named.items()}
        cells = [c for i, c in enumerate(cells) if i not in named.values()]
        if len(cells) < 3:
            raise InputError(f"too few fields: {len(cells)}; expected source<TAB>output<TAB>score[<TAB>score...]"
                             + (f" besides {' and '.join(named)}" if named else ""), path, n)
        ratings = tuple(_number(path, n, "score", c) for c in cells[2:])
        out.append(Judgment(cells[0], cells[1], float(np.mean(ratings)), ratings, n, text_of.get("system", ""),
                            text_of.get("id", "")))
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


def changed(judgments: Sequence[Judgment]) -> list[Judgment]:
    """The judgments whose output changed its source beyond tokenization
    (:func:`semsim.app.tokenization.changed`, the definition ``score`` uses too): an output
    that copies its source keeps its meaning for every measure and every rater alike, so
    keeping such pairs measures how well a measure spots copies (the data's READMEs say so)."""
    from ..tokenization import changed as differs
    return [j for j in judgments if differs(j.source, j.output)]



def read_published(path: str | os.PathLike[str], column: str,
                   test_set: str | None = None) -> dict[tuple[str, str], tuple[float, int]]:
    """The scores a table's releasers published, by ``(sent_id, sys_name)``: each output's
    ``column`` (matched without regard to case) and the line it was read on. The file is a CSV
    with ``sent_id``, ``sys_name``, optionally ``test_set``, and ``column``.

    Sulem et al.'s file has a row per reference set (``test_set``); a reference-less score
    (SAMSA) is the same on each, a reference-based one (BLEU, BERTScore) differs, and then
    ``test_set`` must say which: rows of one output that disagree are an :class:`InputError`
    naming the line, rather than averaged in silence."""
    text = read_text(path)
    where = shown(path)
    records, header, col = _csv_table(where, text, ("sent_id", "sys_name", column.lower()), "published scores")
    if test_set is not None and "test_set" not in col:
        raise InputError(f"no column test_set, but {column}@{test_set} names one", where, 1)
    rows = list(records)
    sets = sorted({record[col["test_set"]].strip() for _, record in rows if len(record) == len(header)}
                  if "test_set" in col else ())
    values: dict[tuple[str, str], tuple[float, int]] = {}
    for line, record in rows:
        _fields(where, line, record, header)
        if test_set is not None and record[col["test_set"]].strip() != test_set:
            continue
        key = (record[col["sent_id"]].strip(), record[col["sys_name"]].strip())
        value = _number(where, line, column, record[col[column.lower()]])
        if key in values and values[key][0] != value:
            first, at = values[key]
            raise InputError(f"{column} of sent_id {key[0]}, {key[1]} is {value} here but {first} on line {at}: "
                             f"name a test set (published:{column}@SET; sets: {', '.join(sets)})",
                             where, line)
        values.setdefault(key, (value, line))
    if test_set is not None and not values:
        raise InputError(f"no row of test set {test_set!r} (sets: {', '.join(sets)})", where)
    return values
