"""The malformed-input corpus (``tests/malformed/``, listed with its expected errors in
``cases.json``): every command that reads a file's format, run on it, exits 1 with one
line naming the file and line, no traceback, no partial output file, and still scores the
file's other graphs or lines."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import semsim.app.plugins as plugins
from semsim.app.cli import cli

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "malformed"
CASES = {k: v for k, v in json.loads((CORPUS / "cases.json").read_text(encoding="utf-8")).items()
         if not k.startswith("_")}
SOURCE = CORPUS / "text" / "source.txt.in"
TOY = ["--parser", "toy-parser", "--no-cache", "-q", "--bootstrap", "0"]


def commands(path: Path) -> list[list[str]]:
    """Every command that reads ``path``'s format, with ``{out}`` where it writes a file."""
    f = str(path)
    kind = path.parent.name
    if kind in ("mrp", "amr", "xml"):
        name = {"mrp": "mrp", "amr": "amr", "xml": "ucca"}[kind]
        pair = [] if kind == "xml" else ["--pair", "2"]  # the bad graph (PENMAN/MRP: after a good one)
        return [["usim", f, f, "--format", "jsonl", "-o", "{out}"], ["usim", "--variant", "legacy", f, f],
                ["dagf", f, f, "--format", "jsonl", "-o", "{out}"], ["distsim", f, f], ["explain", f, f, *pair],
                ["compare", "--pairs", name, f, f, "-q", "--bootstrap", "0", "-o", "{out}"]]
    if kind == "text":
        src = str(path.with_name(SOURCE.name) if "lines" in path.name else path)
        return [["conservatism", "--source", src, "--hyp", f, "--format", "jsonl", "-o", "{out}"],
                ["score", "--source", src, "--hyp", f, *TOY, "-o", "{out}"],
                ["compare", "--source", src, "--hyp", f, *TOY, "-o", "{out}"]]
    return [["sensitivity", f, *TOY, "-o", "{out}"]]


RUNS = [pytest.param(name, k, id=f"{name}-{command[0]}{'-legacy' if 'legacy' in command else ''}")
        for name in CASES for k, command in enumerate(commands(CORPUS / name))]


@pytest.fixture
def with_toy(monkeypatch):
    """The installed plugins and, inline, the toy plugin (its parser parses text quickly)."""
    monkeypatch.setenv("SEMSIM_PLUGINS", str(HERE / "toy_plugin.py"))
    plugins.reset_plugin_manager()
    yield
    plugins.reset_plugin_manager()


def test_corpus_is_listed():
    """Every file in the corpus has its expected error (and the corpus is as large as promised)."""
    files = {str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*") if p.is_file()}
    assert files - {"cases.json", "text/source.txt.in"} == set(CASES)
    assert len(CASES) >= 40


@pytest.mark.parametrize(("name", "k"), RUNS)
def test_malformed_input(with_toy, tmp_path, monkeypatch, name, k):
    case = CASES[name]
    monkeypatch.chdir(HERE.parent)  # paths in messages as a user in the repository root sees them
    path = (CORPUS / name).relative_to(HERE.parent)
    out = tmp_path / "out"
    command = commands(path)[k]
    r = CliRunner().invoke(cli, [a.replace("{out}", str(out)) for a in command])
    assert isinstance(r.exception, SystemExit) and r.exit_code == 1, (r.exception, r.output)
    assert "Traceback" not in r.output
    where = f"{path}:{case['line']}" if "line" in case else str(path)
    error = case["error"].replace("{source}", str(SOURCE.relative_to(HERE.parent)))
    first = r.stderr.splitlines()[0]
    prefix, _, rest = first.partition(": ")
    assert prefix == "Error" and rest.startswith(f"{where}: {error}"), first
    # after the error, at most which pair or line was left out: "(pair x.mrp#2 not scored)"
    left_out = re.fullmatch(r"( \((pair|line) [^()]*\))?", rest[len(f"{where}: {error}"):])
    assert left_out, first
    assert not any(p.name.endswith(".partial") for p in tmp_path.iterdir()), "partial output left behind"
    if not left_out[0]:  # nothing could be scored: nothing written
        assert not out.exists()
    elif "{out}" in " ".join(command):  # the rest was scored and written, completely
        assert out.exists()
        if command[0] in ("usim", "dagf"):
            assert len(out.read_text(encoding="utf-8").splitlines()) == case.get("scored", 0)

