"""Fuzzing the UCCA XML reader and the commands over it: a mutated passage is read or
refused with a one-line error, never a traceback (see ``semsim.app.testing``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from semsim.app.testing import any_bytes, check_command, check_reader, fuzz_settings, mutated
from semsim.kernel.graph import Graph

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
SEEDS = [p.read_bytes() for p in sorted(EXAMPLES.glob("*.xml"))]


def test_seeds_are_valid(tmp_path):
    for k, seed in enumerate(SEEDS):
        assert all(isinstance(g, Graph) for g in check_reader(tmp_path / f"{k}.xml", seed))


@pytest.mark.slow
@fuzz_settings()
@given(data=any_bytes() | mutated(SEEDS, max_edits=2))
def test_xml_reader(tmp_path_factory, data):
    check_reader(tmp_path_factory.mktemp("xml") / "x.xml", data)


@pytest.mark.slow
@fuzz_settings(examples=60)
@given(data=mutated(SEEDS, max_edits=2),
       command=st.sampled_from([["usim"], ["usim", "--variant", "legacy"], ["dagf"], ["distsim"], ["explain"]]))
def test_commands_on_xml(tmp_path_factory, data, command):
    d = tmp_path_factory.mktemp("cli")
    (d / "x.xml").write_bytes(data)
    check_command([*command, str(d / "x.xml"), str(EXAMPLES / "fig1-source.xml")])
