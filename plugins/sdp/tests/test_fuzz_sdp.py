"""Fuzzing DM, PSD and EDS from MRP: a mutated file is read or refused graph by graph with a
one-line error, never a traceback, and every graph it yields scores exactly 1 against
itself under USim and its framework's metric (see ``semsim.app.testing``)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from sdp_data import DM_GOLD, DM_SYS, EDS_GOLD, EDS_SYS, edge, mrp, node

import semsim
from semsim.app.plugins import metrics
from semsim.app.testing import check_command, check_reader, fuzz_settings, json_mutated, mutated
from semsim.kernel.graph import Graph

pytestmark = pytest.mark.slow

_CYCLIC = mrp("psd", [node(0, "the", 0, 3), node(1, "cat", 4, 7), node(2, "sit", 8, 11)],
              [edge(2, 1, "ACT-arg"), edge(1, 2, "RSTR"), edge(1, 0, "RSTR")], [2, 0])
SEEDS = [(json.dumps(d) + "\n").encode("utf-8") for d in (DM_GOLD, DM_SYS, _CYCLIC, EDS_GOLD, EDS_SYS)]
OWN = {"dm": "sdp-dm", "psd": "sdp-psd", "eds": "edm"}


def test_seeds_are_valid(tmp_path):
    for k, seed in enumerate(SEEDS):
        assert all(isinstance(g, Graph) for g in check_reader(tmp_path / f"{k}.mrp", seed))


@fuzz_settings()
@given(data=mutated(SEEDS) | json_mutated(SEEDS))
def test_sdp_frameworks_from_mrp(tmp_path_factory, data):
    for g in check_reader(tmp_path_factory.mktemp("mrp") / "x.mrp", data):
        if isinstance(g, Graph) and g.scheme.name in OWN:
            assert semsim.usim(g, g).f == 1.0
            assert metrics()[OWN[g.scheme.name]].score(g, g).f == 1.0


@fuzz_settings(examples=40)
@given(data=json_mutated(SEEDS))
def test_commands_on_mutated_mrp(tmp_path_factory, data):
    d = tmp_path_factory.mktemp("cli")
    (d / "x.mrp").write_bytes(data)
    for command in (["usim"], ["dagf"], ["compare", "--pairs", "x"]):
        check_command([*command, str(d / "x.mrp"), str(d / "x.mrp"),
                       *(["--bootstrap", "0"] if command[0] == "compare" else [])])
