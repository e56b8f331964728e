"""End to end through the installed entry point: CLI on the shipped UCCA examples."""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import run_semsim

pytestmark = pytest.mark.slow  # each test starts semsim processes

SEMSIM = [sys.executable, "-m", "semsim.app.cli"]


run = functools.partial(run_semsim, check=True)


def test_figure1_jsonl(examples):
    out = run("usim", examples / "fig1-source.xml", examples / "fig1-correction.xml", "--format", "jsonl").stdout
    rec = json.loads(out)
    d = rec["detail"]["s->r"]
    assert (d["matched1"], d["total1"], d["matched2"], d["total2"]) == (7, 9, 7, 7)
    assert rec["signature"].endswith("scheme:ucca@32e175b60e13|plugin:semsim-ucca-0.2.0|version:0.1.0")


def test_plugins_lists_ucca():
    out = run("plugins").stdout
    assert "reader ucca-xml (.xml) from ucca" in out
    assert "parser ucca-span [ucca, default] from ucca" in out and "parser tupa [ucca] from ucca" in out


def test_directory_batch_and_mismatch(examples, tmp_path):
    for side, name in (("s", "fig1-source.xml"), ("c", "fig1-correction.xml")):
        (tmp_path / side).mkdir()
        shutil.copy(examples / name, tmp_path / side / "a.xml")
        shutil.copy(examples / name, tmp_path / side / "b.xml")
    out = run("usim", tmp_path / "s", tmp_path / "c", "--format", "jsonl", "--variant", "legacy").stdout
    lines = [json.loads(x) for x in out.splitlines()]
    assert [x.get("name") for x in lines[:2]] == ["a.xml", "b.xml"] and lines[2]["corpus"]
    (tmp_path / "c" / "b.xml").unlink()
    r = run("usim", tmp_path / "s", tmp_path / "c", check=False)
    assert r.returncode == 1 and r.stderr.strip() == f"Error: {tmp_path / 's' / 'b.xml'}: no file of that name in " \
                                                     f"{tmp_path / 'c'}"


@pytest.mark.parametrize("content, expected", [
    ("<root passageID='x'><attributes/>", "malformed XML: no element found"),
    ("<html/>", "not a UCCA XML passage: top element is <html>"),
])
def test_bad_file_one_line_no_traceback_nothing_written(examples, tmp_path, content, expected):
    bad = tmp_path / "bad.xml"
    bad.write_text(content)
    out = tmp_path / "out.jsonl"
    r = run("usim", examples / "fig1-source.xml", bad, "-o", out, check=False)
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and expected in r.stderr and str(bad) in r.stderr
    assert "Traceback" not in r.stderr
    assert not out.exists() and not Path(str(out) + ".partial").exists()


def test_same_numbers_whatever_the_hash_seed(examples):
    outs = set()
    for seed in ("0", "7", "random"):
        env = {"PYTHONHASHSEED": seed, "PATH": ""}
        r = subprocess.run([*SEMSIM, "usim", str(examples / "fig1-source.xml"), str(examples / "fig1-correction.xml"),
                            "--format", "jsonl"], capture_output=True, text=True, check=True, env=env)
        outs.add(r.stdout)
    assert len(outs) == 1
