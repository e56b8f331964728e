"""Options and inputs that would exhaust memory or never finish are refused before any work (issue #32)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from semsim.cli import MAX_JOBS, cli


@pytest.mark.parametrize("args,message", [
    (["--jobs", str(MAX_JOBS + 1)], "--jobs"),
    (["--jobs", "100000", "--executor", "dask"], "--jobs"),
    (["--executor", "dask", "--batch-timeout", "nan"], "nan is not a number of seconds"),
    (["--executor", "dask", "--batch-timeout", "1e-9"], "--batch-timeout"),
    (["--executor", "dask", "--batch-timeout", "inf"], "--batch-timeout"),
])
def test_nonsense_parsing_options_are_refused_at_once(toy_env, args, message):
    src = toy_env / "src.txt"
    src.write_text("a b .\n")
    r = CliRunner().invoke(cli, ["score", "--source", str(src), "--hyp", str(src), "--parser", "toy-parser", *args])
    assert r.exit_code == 2 and message in r.output and "Traceback" not in r.output
    assert len([line for line in r.output.splitlines() if line.startswith("Error")]) == 1


@pytest.mark.parametrize("source", ["/dev/zero", "-"])
def test_an_endless_or_huge_input_is_refused_at_the_bound(toy_env, monkeypatch, source):
    monkeypatch.setenv("SEMSIM_MAX_INPUT_BYTES", "4096")
    hyp = toy_env / "hyp.txt"
    hyp.write_text("a b .\n")
    r = CliRunner().invoke(cli, ["score", "--source", source, "--hyp", str(hyp), "--parser", "toy-parser"],
                           input="word " * 2000)
    assert r.exit_code == 1 and "larger than 4,096 bytes (raise SEMSIM_MAX_INPUT_BYTES" in r.output
    assert "Traceback" not in r.output
