"""Unix conventions of the command line: ``-`` for standard input, ``-o -``, scripting
output (``-b``), ``--version`` with the plugins and parsers, JSON from ``models list``,
progress in logs as plain lines."""

from __future__ import annotations

import json
from pathlib import Path

from support import MRP_SEEDS
from support import run_cli as run

from semsim.app.cli import cli

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_stdin_for_graphs_text_and_m2(toy_env, tmp_path):
    mrp = tmp_path / "x.mrp"
    mrp.write_bytes(MRP_SEEDS[0])
    from_file = run("usim", mrp, mrp, "-b")
    from_stdin = run("usim", "-", mrp, "-b", input=MRP_SEEDS[0])  # the reader is found by sniffing
    assert from_stdin.exit_code == 0, from_stdin.output
    assert from_stdin.stdout == from_file.stdout == "1.000000\n"
    src = tmp_path / "src.txt"
    src.write_text("He sleeps .\nShe reads a book .\n")
    r = run("conservatism", "--source", src, "--hyp", "-", "--format", "tsv", input="He sleep .\nShe reads books .\n")
    assert r.exit_code == 0 and r.stdout.splitlines()[1].startswith("-\t1\t")
    r = run("conservatism", "--source", src, "--hyp", "-", input="He sleeps .\n")
    assert r.exit_code == 1 and r.stderr.strip() == (
        f"Error: <stdin>:2: ends after line 1 but the source {src} has 2 lines; files must be line-parallel")
    r = run("sensitivity", "-", "--parser", "toy-parser", "--no-cache", "-q", "--bootstrap", "0",
            input=(EXAMPLES / "sensitivity.m2").read_text())
    assert r.exit_code == 0, r.output
    bad_m2 = "S a b\nA 5 9|||X|||y|||REQUIRED|||-NONE-|||0\n"
    r = run("sensitivity", "-", "--parser", "toy-parser", "--no-cache", input=bad_m2)
    assert r.exit_code == 1 and r.stderr.strip().startswith("Error: <stdin>:2: edit span 5 9 is outside")
    assert run("usim", "-", "-", input="x").stderr.strip() == "Error: only one input can be '-' (standard input)"


def test_output_dash_is_stdout_and_score_only(toy_env, tmp_path):
    mrp = tmp_path / "x.mrp"
    mrp.write_bytes(MRP_SEEDS[0])
    r = run("usim", mrp, mrp, "--format", "jsonl", "-o", "-")
    assert r.exit_code == 0 and [json.loads(x).get("name") for x in r.stdout.splitlines()] == ["a", "b", None]
    src, hyp = tmp_path / "src.txt", tmp_path / "hyp.txt"
    src.write_text("He sleeps .\nShe reads a book .\n")
    hyp.write_text("He sleeps .\nShe read a book .\n")
    one = run("score", "--source", src, "--hyp", hyp, "--parser", "toy-parser", "-b", "--bootstrap", "0", "-q")
    assert one.exit_code == 0 and 0 <= float(one.stdout) <= 1 and one.stdout.count("\n") == 1
    two = run("score", "--source", src, "--hyp", hyp, "--hyp", src, "--parser", "toy-parser", "-b", "--bootstrap", "0",
              "-q")
    assert [line.split("\t")[0] for line in two.stdout.splitlines()] == ["hyp.txt", "src.txt"]


def test_version_names_plugins_and_parsers(toy_env):
    r = run("--version")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert lines[0].startswith("semsim, version ") and "plugin mrp (built in)" in lines
    assert any(line.startswith("plugin ") and "toy_plugin.py" in line for line in lines)  # inline: path as name
    assert any(line.startswith("parser toy-parser [toy, default] from ") for line in lines)


def test_models_list_as_json(toy_env):
    r = run("models", "list", "--format", "json")
    doc = json.loads(r.stdout)
    assert {"directory", "models"} <= doc.keys()
    assert all({"name", "parser", "installed", "path", "url", "sha256"} <= m.keys() for m in doc["models"])
    assert any(m["parser"] == "toy-parser" for m in doc["models"])


def test_progress_in_a_log_is_plain_lines(toy_env, tmp_path):
    """stderr that is not a terminal gets whole status lines (no carriage returns)."""
    mrp = tmp_path / "x.mrp"
    mrp.write_bytes(MRP_SEEDS[0])
    r = run("usim", mrp, mrp, env={"SEMSIM_PROGRESS_INTERVAL": "0"})
    assert r.exit_code == 0 and "\r" not in r.stderr
    assert "scoring: 2/2 pair (100%)" in r.stderr
    assert run("usim", mrp, mrp, "-q").stderr == ""


def test_every_command_lives_in_its_own_module():
    """cli.py is the group and the shared options; each command is semsim.app.commands.NAME:NAME
    (``meta-eval``: ``metaeval:meta_eval``)."""
    import importlib

    import click

    import semsim.app.cli as module
    assert [n for n, v in vars(module).items() if isinstance(v, click.Command) and v is not cli] == []
    for name in module.COMMANDS:
        where, function = module.command_location(name)
        command = getattr(importlib.import_module(where), function)
        assert isinstance(command, click.Command) and cli.get_command(click.Context(cli), name) is command
    assert set(cli.list_commands(click.Context(cli))) >= set(module.COMMANDS)
