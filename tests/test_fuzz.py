"""Fuzzing the core's readers and the commands that read them: for arbitrary bytes and for
mutations of valid files, the outcome is a result or a one-line error, never a traceback.

CI runs a fixed, derandomised budget (``SEMSIM_FUZZ_EXAMPLES``, 50 a test by default);
``python benchmarks/fuzz.py`` runs long random campaigns. The plugins fuzz their own
readers the same way (``plugins/*/tests/test_fuzz_*.py``).
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import MRP_SEEDS

from semsim.app.gec.m2 import read_m2
from semsim.app.testing import any_bytes, check_command, check_reader, fuzz_settings, json_mutated, mutated
from semsim.app.textfiles import read_parallel
from semsim.kernel.errors import SemsimError
from semsim.kernel.graph import Graph

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

TEXT_SEEDS = [(EXAMPLES / "source.txt").read_bytes(), (EXAMPLES / "system.txt").read_bytes()]
M2_SEEDS = [(EXAMPLES / "sensitivity.m2").read_bytes()]

# graph commands and the extra arguments each needs; a file is paired with itself
GRAPH_COMMANDS = [["usim"], ["usim", "--variant", "legacy"], ["dagf"], ["distsim"], ["explain", "--pair", "1"]]


def test_valid_seeds_are_valid(isolated_plugins, tmp_path):
    """The property tests start from files that read cleanly."""
    for k, seed in enumerate(MRP_SEEDS):
        assert all(isinstance(g, Graph) for g in check_reader(tmp_path / f"{k}.mrp", seed))


@pytest.mark.slow
@fuzz_settings()
@given(data=any_bytes() | mutated(MRP_SEEDS) | json_mutated(MRP_SEEDS))
def test_mrp_reader(isolated_plugins, tmp_path_factory, data):
    check_reader(tmp_path_factory.mktemp("mrp") / "x.mrp", data)


@pytest.mark.slow
@fuzz_settings()
@given(data=mutated(MRP_SEEDS) | json_mutated(MRP_SEEDS), command=st.sampled_from(GRAPH_COMMANDS))
def test_graph_commands_on_mrp(isolated_plugins, tmp_path_factory, data, command):
    f = tmp_path_factory.mktemp("cli") / "x.mrp"
    f.write_bytes(data)
    out = f.with_name("out.jsonl")
    extra = ["-o", str(out)] if command[0] in ("usim", "dagf") else []
    r = check_command([*command, str(f), str(f), *extra])
    assert not out.with_name("out.jsonl.partial").exists()
    if r.exit_code == 0 and command[0] in ("usim", "dagf"):
        assert out.read_text(encoding="utf-8")  # a success writes its results


@pytest.mark.slow
@fuzz_settings()
@given(data=any_bytes() | mutated(TEXT_SEEDS))
def test_text_reader(tmp_path_factory, data):
    d = tmp_path_factory.mktemp("text")
    (d / "src.txt").write_bytes(TEXT_SEEDS[0])
    (d / "hyp.txt").write_bytes(data)
    with contextlib.suppress(SemsimError):
        read_parallel(d / "src.txt", [d / "hyp.txt"])


@pytest.mark.slow
@fuzz_settings()
@given(data=mutated(TEXT_SEEDS))
def test_conservatism_command(tmp_path_factory, data):
    d = tmp_path_factory.mktemp("cons")
    (d / "src.txt").write_bytes(TEXT_SEEDS[0])
    (d / "hyp.txt").write_bytes(data)
    check_command(["conservatism", "--source", str(d / "src.txt"), "--hyp", str(d / "hyp.txt"), "--format", "jsonl"])


@fuzz_settings()
@given(data=any_bytes() | mutated(M2_SEEDS))
def test_m2_reader(tmp_path_factory, data):
    f = tmp_path_factory.mktemp("m2") / "x.m2"
    f.write_bytes(data)
    with contextlib.suppress(SemsimError):
        read_m2(f)


@pytest.mark.slow
@fuzz_settings(examples=50)
@given(data=mutated(M2_SEEDS))
def test_sensitivity_command(toy_env, tmp_path_factory, data):
    f = tmp_path_factory.mktemp("sens") / "x.m2"
    f.write_bytes(data)
    check_command(["sensitivity", str(f), "--parser", "toy-parser", "--no-cache", "-q", "--bootstrap", "0"])
