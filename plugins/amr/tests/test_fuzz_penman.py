"""Fuzzing the PENMAN reader, AMR from MRP, and the commands over them: a mutated file is
read or refused graph by graph with a one-line error, never a traceback (see
``semsim.app.testing``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from semsim.app.testing import any_bytes, check_command, check_reader, fuzz_settings, json_mutated, mutated
from semsim.kernel.graph import Graph

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
SEEDS = [p.read_bytes() for p in sorted(EXAMPLES.glob("*.amr"))]
#: An AMR in MRP (hand-made): a name with constants, a reentrancy, an inverse role.
MRP_SEEDS = [(json.dumps({
    "id": "m1", "framework": "amr", "input": "Kim wants to sleep", "tops": [0],
    "nodes": [{"id": 0, "label": "want-01"}, {"id": 1, "label": "person"},
              {"id": 2, "label": "name", "properties": ["op1"], "values": ["Kim"]}, {"id": 3, "label": "sleep-01"}],
    "edges": [{"source": 0, "target": 1, "label": "ARG0"}, {"source": 1, "target": 2, "label": "name"},
              {"source": 0, "target": 3, "label": "ARG1"}, {"source": 1, "target": 3, "label": "ARG0-of"}]})
    + "\n").encode("utf-8")]


def test_seeds_are_valid(tmp_path):
    for k, seed in enumerate(SEEDS):
        assert all(isinstance(g, Graph) for g in check_reader(tmp_path / f"{k}.amr", seed))
    assert all(isinstance(g, Graph) for g in check_reader(tmp_path / "m.mrp", MRP_SEEDS[0]))


@pytest.mark.slow
@fuzz_settings()
@given(data=any_bytes() | mutated(SEEDS))
def test_penman_reader(tmp_path_factory, data):
    check_reader(tmp_path_factory.mktemp("amr") / "x.amr", data, "penman")


@pytest.mark.slow
@fuzz_settings()
@given(data=mutated(SEEDS))
def test_penman_aligned_reader(tmp_path_factory, data):
    check_reader(tmp_path_factory.mktemp("amr") / "x.amr", data, "penman-aligned")


@pytest.mark.slow
@fuzz_settings()
@given(data=mutated(MRP_SEEDS) | json_mutated(MRP_SEEDS))
def test_amr_mrp(tmp_path_factory, data):
    check_reader(tmp_path_factory.mktemp("mrp") / "x.mrp", data)


@pytest.mark.slow
@fuzz_settings(examples=60)
@given(data=mutated(SEEDS), command=st.sampled_from([["usim"], ["dagf"], ["distsim"], ["explain"]]))
def test_commands_on_penman(tmp_path_factory, data, command):
    d = tmp_path_factory.mktemp("cli")
    (d / "x.amr").write_bytes(data)
    check_command([*command, str(d / "x.amr"), str(d / "x.amr")])


@pytest.mark.slow
@fuzz_settings(examples=40)
@given(data=mutated(SEEDS))
def test_compare_on_penman(tmp_path_factory, data):
    """compare adds Smatch, which re-reads each graph's PENMAN."""
    d = tmp_path_factory.mktemp("cmp")
    (d / "x.amr").write_bytes(data)
    check_command(["compare", "--pairs", "amr", str(d / "x.amr"), str(d / "x.amr"), "-q", "--bootstrap", "0"])
