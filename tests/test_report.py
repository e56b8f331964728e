"""The one renderer every command writes through (semsim/app/report.py): numbers, tables,
formats, and the collector of what could not be done."""

from __future__ import annotations

import io
import json

import pytest

from semsim.app.gec.conservatism import get_signature
from semsim.app.report import Col, Report, Skipped, Table, num, render, text, write
from semsim.kernel.errors import SemsimError


def test_num_says_how_missing_and_non_finite_numbers_read():
    assert num(0.123456) == "0.1235" and num(0.5, 6) == "0.500000"
    assert num(None) == "n/a" and num(None, none="") == ""
    assert num(float("nan")) == "nan" and num(float("nan"), 3, nonfinite="n/a") == "n/a"
    assert num(0.05, signed=True) == "+0.0500" and num(-0.05, signed=True) == "-0.0500"
    assert num(0.2, 1, percent=True) == "20.0%"
    assert num(3e-6, tiny=1e-4) == "3.0e-06" and num(0.25, tiny=1e-4) == "0.2500"  # p-values


def test_table_widths_alignment_and_markdown():
    table = Table([Col("name", "<"), Col("f", ">", 6), Col("note", md="---:")], [["ab", "0.5000", ""]], rstrip=True)
    assert table.lines() == ["name       f  note", "ab    0.5000"]
    assert table.lines(markdown=True) == ["| name | f | note |", "|---|---|---:|", "| ab | 0.5000 |  |"]
    wide = Table([Col("x", "<", 2), Col("y", ">", 3, before=" ")], [["long", "1"]])  # a set width overflows
    assert wide.lines() == ["x    y", "long   1"]
    assert text([table, "", "signature: s"]) == "name       f  note\nab    0.5000\n\nsignature: s\n"


def test_one_report_in_every_format():
    def items():
        yield {"name": "a", "f": 0.5, "detail": {}}
        yield {"name": "b\tc", "f": 1.0, "detail": {}}

    def report(rows):
        return Report(rows, trailer=lambda: [{"corpus": True}], document=lambda xs: {"pairs": xs},
                      row=lambda r: {k: v for k, v in r.items() if k != "detail"},
                      parts=lambda xs, _: [Table([Col("pair", "<"), Col("f")], [[x["name"], num(x["f"])] for x in xs])])

    out = io.StringIO()
    write(report(items()), "jsonl", out)  # a generator: written as made, then the trailer
    assert [json.loads(line) for line in out.getvalue().splitlines()][-1] == {"corpus": True}
    assert render(report(items()), "tsv") == 'name\tf\na\t0.500000\nb\\tc\t1.000000\n'  # escaped: keeps its columns
    assert json.loads(render(report(items()), "json"))["pairs"][1]["name"] == "b\tc"
    assert render(report(items()), "text").splitlines()[1] == "a     0.5000"
    with pytest.raises(ValueError, match="unknown format 'xml'"):
        render(report(items()), "xml")


def test_skipped_items_are_said_once_then_fail(capsys):
    skipped = Skipped("measured")
    skipped.fail(lambda s: "never")  # nothing skipped: no error
    skipped.add("a.txt:3: too long", "line 3")
    skipped.show()
    with pytest.raises(SemsimError, match=r"^1 line\(s\) not measured$"):
        skipped.fail(lambda s: f"{len(s)} line(s) not measured")
    assert capsys.readouterr().err == "Error: a.txt:3: too long (line 3 not measured)\n"  # once, not twice


def test_conservatism_offers_its_signature():
    assert get_signature().format().startswith("conservatism|case:mixed|version:")
    assert get_signature(ignore_case=True, tokenize="spacy").info["case"] == "ignored"
    assert "|tok:spacy" in get_signature(tokenize="spacy").format()
