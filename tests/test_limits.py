"""Resource bounds (semsim.kernel.limits): input beyond them is one clear error naming the bound
and how to raise it, the other pairs or lines are still scored, and the bounds move with
the environment."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from support import MRP_SEEDS

import semsim
from semsim.app.cli import cli
from semsim.kernel.errors import SemsimError
from semsim.kernel.limits import LimitError, check_cells, check_depth, sentence_too_long


def test_bounds_and_their_environment(monkeypatch):
    check_cells(4000, 4000, "token alignment")  # the default: 16,000,000 cells
    with pytest.raises(LimitError, match=r"token alignment: 4,001 × 4,000 = 16,004,000 cells, over the limit "
                                         r"of 16,000,000 \(raise it with SEMSIM_MAX_ALIGN_CELLS=N"):
        check_cells(4001, 4000, "token alignment")
    monkeypatch.setenv("SEMSIM_MAX_ALIGN_CELLS", "17_000_000")
    check_cells(4001, 4000, "token alignment")
    monkeypatch.setenv("SEMSIM_MAX_DEPTH", "5")
    with pytest.raises(LimitError, match=r"nested 6 levels deep, over the limit of 5 \(raise it with SEMSIM_MAX_DEPTH"):
        check_depth(6, "PENMAN graph")
    monkeypatch.setenv("SEMSIM_MAX_SENTENCE_TOKENS", "3")
    assert sentence_too_long(3, "x") is None and "4 tokens, over the limit of 3" in sentence_too_long(4, "x")
    monkeypatch.setenv("SEMSIM_MAX_DEPTH", "lots")
    with pytest.raises(SemsimError, match="SEMSIM_MAX_DEPTH='lots': expected a positive whole number"):
        check_depth(1, "x")


def test_alignments_refuse_what_is_too_large(isolated_plugins, monkeypatch):
    a = semsim.build_graph(["a"] * 5, [semsim.Unit("r", anchors=tuple(range(5)))], [])
    monkeypatch.setenv("SEMSIM_MAX_ALIGN_CELLS", "20")
    for variant in ("paper", "legacy"):
        with pytest.raises(LimitError, match=r"too large for the (token|node) alignment: 5 × 5 = 25 cells"):
            semsim.USim(variant=variant).sentence_score(a, a)


def test_usim_scores_the_pairs_within_bounds(isolated_plugins, tmp_path, monkeypatch):
    """A pair over the bound is reported (file, pair, bound); the others are scored; exit 1."""
    f = tmp_path / "x.mrp"
    f.write_bytes(MRP_SEEDS[0])  # graph a: 4 units; graph b: 2 units
    monkeypatch.setenv("SEMSIM_MAX_ALIGN_CELLS", "8")
    r = CliRunner().invoke(cli, ["usim", str(f), str(f), "--format", "jsonl", "-o", str(tmp_path / "o.jsonl")])
    assert r.exit_code == 1
    assert r.stderr.splitlines()[0] == (
        f"Error: {f}#1: too large for the node alignment: 4 × 4 = 16 cells, over the limit of 8 (raise it with "
        "SEMSIM_MAX_ALIGN_CELLS=N if the memory is there, ~40 bytes a cell) (pair a not scored)")
    assert r.stderr.splitlines()[-1] == "Error: 1 of 2 pairs not scored (see above)"
    assert r.stderr.count("too large for the node alignment") == 1  # said once, not again in the count
    (record,) = [json.loads(x) for x in (tmp_path / "o.jsonl").read_text().splitlines()]
    assert record["name"] == "b" and record["f"] == 1.0


def test_a_ucca_token_longer_than_any_word_is_refused_naming_its_line(tmp_path, monkeypatch):
    """A terminal whose text is megabytes long: one line naming the file, the line and the bound,
    read in one pass (expat 2.5 rescanned such a token once per 64 KB chunk: minutes at 50 MB)."""
    from pathlib import Path
    examples = Path(__file__).resolve().parent.parent / "examples"
    xml = (examples / "fig1-correction.xml").read_text(encoding="utf-8")
    big = tmp_path / "big.xml"
    big.write_text(xml.replace('text="He"', 'text="' + "a" * 2_000_000 + '"', 1), encoding="utf-8")
    r = CliRunner().invoke(cli, ["usim", str(big), str(big)])
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert f"{big}:6: terminal '0.1': a token of 2,000,000 characters, over the limit of 10,000" in r.output
    monkeypatch.setenv("SEMSIM_MAX_TOKEN_CHARS", "3000000")
    r = CliRunner().invoke(cli, ["usim", str(examples / "fig1-source.xml"), str(big), "-b"])
    assert r.exit_code == 0 and 0 < float(r.output) < 1, r.output
