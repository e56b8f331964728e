"""What a plugin or a file says cannot forge semsim's output (#56): a newline cannot add a line,
a tab cannot add a TSV column, and an escape, a NUL or a C1 control (U+009B, a terminal's CSI)
never reaches stdout raw, in any format. One step escapes it, where commands write
(semsim/app/report.py); JSON keeps the text, escaped as JSON escapes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support import run_cli

import semsim.app.plugins as plugins
from semsim.app.report import FORMATS, Col, Report, Table, render

TOY = str(Path(__file__).with_name("toy_plugin.py"))

#: what must never reach the output raw (a tab and a newline are checked by the layout)
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202e]")
HOSTILE = "a\x1b[2J\x00b\tc\nd\x9be\u202ef"

FORGER = '''
import toy_plugin as toy
from semsim.kernel.errors import SemsimError
from semsim.kernel.hookspecs import hookimpl
from semsim.kernel.records import Parser


def fail(texts, model=None):
    raise SemsimError("cannot parse\\nError: forged line \\x1b[2J")


@hookimpl
def register_parsers(register):
    register(Parser("forger", "toy", lambda texts, model=None: [toy.tree_to_graph(t) for t in toy.toy_parse(texts)],
                    "rules\\n  parser forged [toy] from nobody: \\x1b[31mred\\x00",
                    model_identity=lambda model: "rules-v1\\x1b[2J\\x9b\\nforged: 1 parses, 0 hits",
                    model_name=lambda model: "forger\\x1b[2J\\x00\\tx"))
    register(Parser("failer", "toy", fail, "fails, saying two lines"))
'''


def test_every_format_escapes_what_a_report_holds():
    rows = [{"name": HOSTILE, "f": 0.5}]
    report = Report(rows, document=lambda xs: {"rows": xs},
                    parts=lambda xs, _: [Table([Col("name", "<"), Col("f")], [[x["name"], "0.5000"] for x in xs]),
                                         f"signature: {HOSTILE}", ("name", HOSTILE)],
                    formats=(*FORMATS, "markdown"))
    shown = render(report, "text")
    assert not RAW.search(shown) and shown.splitlines() == [
        "name                                  f", "a\\x1b[2J\\x00b\\tc\\nd\\x9be\\u202ef  0.5000",
        "signature: a\\x1b[2J\\x00b\\tc\\nd\\x9be\\u202ef",
        "name\ta\\x1b[2J\\x00b\\tc\\nd\\x9be\\u202ef"]  # a row of cells: tab-separated, each escaped
    markdown = render(report, "markdown")
    assert not RAW.search(markdown) and markdown.splitlines()[2] == "| a\\x1b[2J\\x00b\\tc\\nd\\x9be\\u202ef | 0.5000 |"
    assert render(Report([{"a": "x|y"}], parts=lambda xs, _: [Table([Col("a")], [["x|y"]])], formats=("markdown",)),
                  "markdown").splitlines()[2] == "| x\\|y |"  # a | in a cell adds no Markdown column
    tsv = render(report, "tsv")
    assert not RAW.search(tsv) and [line.count("\t") for line in tsv.splitlines()] == [1, 1]
    for fmt in ("jsonl", "json"):
        out = render(report, fmt)
        assert not RAW.search(out) and "\\u009b" in out  # valid JSON, the text kept
        records = [json.loads(line) for line in out.splitlines()] if fmt == "jsonl" else json.loads(out)["rows"]
        assert records[0]["name"] == HOSTILE


@pytest.fixture
def forger(tmp_path, monkeypatch):
    """The toy plugin and a third-party parser whose description, model name and model identity
    hold newlines, tabs, escapes, NUL and a CSI; a cache in ``tmp_path``."""
    plugin = tmp_path / "forger.py"
    plugin.write_text(FORGER, encoding="utf-8")
    monkeypatch.syspath_prepend(str(Path(TOY).parent))
    monkeypatch.setenv("SEMSIM_LOAD_PLUGINS", "")
    monkeypatch.setenv("SEMSIM_PLUGINS", f"{TOY},{plugin}")
    monkeypatch.setenv("SEMSIM_CACHE_DIR", str(tmp_path / "cache"))
    plugins.reset_plugin_manager()
    yield tmp_path
    plugins.reset_plugin_manager()


def test_a_plugin_s_description_forges_no_line_of_semsim_plugins(forger):
    r = run_cli("plugins", catch_exceptions=False)
    assert r.exit_code == 0 and not RAW.search(r.stdout), r.output
    assert [line for line in r.stdout.splitlines() if "parser" in line and "[toy" in line and "forged" in line] == [
        f"  parser forger [toy] from {forger / 'forger.py'}: rules\\n  parser forged [toy] from nobody: "
        "\\x1b[31mred\\x00"]
    assert "forged" not in run_cli("--version", catch_exceptions=False).stdout.replace("forger", "")


def test_what_a_parser_and_a_hypothesis_say_is_escaped_in_every_format(forger):
    (forger / "src.txt").write_text("The Big dog\nA cat sat\n", encoding="utf-8")
    (forger / "hyp.txt").write_text("The Large dog\nA \x9bcat\tsits\n", encoding="utf-8")  # a CSI, a tab
    base = ["score", "--source", forger / "src.txt", "--hyp", forger / "hyp.txt", "--parser", "forger"]
    text = run_cli(*base, "--worst", "2", catch_exceptions=False)
    assert text.exit_code == 0 and not RAW.search(text.stdout), text.output
    assert "A \\x9bcat\\tsits" in text.stdout  # the --worst line, shown escaped
    (signature,) = [line for line in text.stdout.splitlines() if line.startswith("signature:")]
    assert "\\x1b[2J\\x00" in signature
    tsv = run_cli(*base, "--format", "tsv", catch_exceptions=False).stdout
    assert not RAW.search(tsv) and [line.count("\t") for line in tsv.splitlines()] == [10, 10]  # no column added
    doc = run_cli(*base, "--worst", "2", "--format", "json", catch_exceptions=False).stdout
    assert not RAW.search(doc) and json.loads(doc)["worst"][0]["output"] == "A \x9bcat\tsits"
    records = forger / "lines.jsonl"
    assert run_cli(*base, "-o", records, catch_exceptions=False).exit_code == 0
    written = records.read_text(encoding="utf-8")
    assert not RAW.search(written) and "A \x9bcat\tsits" in [json.loads(x).get("output") for x in written.splitlines()]
    info = run_cli("cache", "info", catch_exceptions=False).stdout
    assert not RAW.search(info) and len(info.splitlines()) == 2, info  # the path, one line for the one model


def test_what_a_plugin_says_in_an_error_stays_on_its_line(forger):
    (forger / "src.txt").write_text("The Big dog\n", encoding="utf-8")
    r = run_cli("score", "--source", forger / "src.txt", "--hyp", forger / "src.txt", "--parser", "failer",
                catch_exceptions=False)
    assert r.exit_code == 1 and not RAW.search(r.stderr), r.stderr
    assert all(line.startswith(("Error: ", "semsim: ")) for line in r.stderr.splitlines()), r.stderr
    assert "cannot parse\\nError: forged line \\x1b[2J" in r.stderr
