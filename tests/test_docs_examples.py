"""The docs cannot drift from the tool (as datasette tests its docs): every ``semsim`` command
line in the README, docs/ and every command's ``--help`` is checked against the real CLI,
and those that run on the shipped examples are run.

* An example (no ``[...]`` alternatives) must parse: its subcommands exist, its options
  exist and take the values given (click's own parser, without running the command).
* A synopsis (``semsim usim SOURCE CORRECTION [--variant paper|legacy] ...``) must name only
  options the command has.
* An example whose every path argument exists in the repository (``examples/...``), or
  that reads nothing (``semsim plugins``), is run in a scratch directory: exit status 0.

What an example prints, where the docs show it (a transcript), and the tables the docs quote
from commands, are compared with today's output by ``tests/test_docs_outputs.py``.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import semsim.app.plugins as plugins
from semsim.app.cli import cli

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted(ROOT.glob("plugins/*/README.md"))]
#: Commands that change nothing outside a scratch directory and read no network or model.
READ_ONLY = {("plugins",), ("cache", "info"), ("models", "list"), ("--version",)}


def _lines_in(text: str) -> list[str]:
    """``semsim ...`` command lines of code blocks (fenced or indented), continuations joined,
    comments and pipes cut off."""
    out, block, fenced = [], [], False
    for raw in text.splitlines():
        if raw.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not (fenced or raw.startswith("    ") or raw.lstrip().startswith("$ semsim ")):
            continue
        line = raw.strip().removeprefix("$ ")
        if block:
            block.append(line)
        elif line.startswith("semsim "):
            block = [line]
        if block and not line.endswith("\\"):
            joined = " ".join(x.removesuffix("\\").strip() for x in block)
            out.append(re.split(r"\s#\s|\s\|\s(?![^\[]*\])", joined)[0].strip())
            block = []
    return out


def _help_examples() -> list[tuple[str, str]]:
    """(command, example line) from every command's --help."""
    out = []

    def walk(cmd: click.Command, path: list[str]) -> None:
        for line in _lines_in(f"```\n{cmd.help or ''}\n```"):
            out.append((" ".join(path) or "semsim", line))
        if isinstance(cmd, click.Group):
            ctx = click.Context(cmd)
            for name in cmd.list_commands(ctx):
                walk(cmd.get_command(ctx, name), [*path, name])
    walk(cli, [])
    return out


def _param(line: str, id: str):
    """A line that parses the shipped text (``examples/*.txt``) runs the UCCA parser: seconds, marked slow."""
    return pytest.param(line, id=id, marks=[pytest.mark.slow] if re.search(r"\bexamples/\S+\.txt\b", line) else [])


DOC_LINES = [_param(line, f"{doc.relative_to(ROOT)}:{line[:60]}")
             for doc in DOCS for line in _lines_in(doc.read_text(encoding="utf-8"))]
HELP_LINES = [_param(line, f"--help of {cmd}: {line[:50]}") for cmd, line in _help_examples()]


def _resolve(args: list[str]) -> tuple[click.Command, list[str], list[str]]:
    """The command an argument list runs, the subcommand path, and the arguments left for it."""
    cmd: click.Command = cli
    path: list[str] = []
    rest = list(args)
    while isinstance(cmd, click.Group) and rest and not rest[0].startswith("-"):
        sub = cmd.get_command(click.Context(cmd), rest[0])
        assert sub is not None, f"no command {' '.join([*path, rest[0]])!r}"
        cmd, path, rest = sub, [*path, rest[0]], rest[1:]
    return cmd, path, rest


def _options(cmd: click.Command) -> set[str]:
    names = {o for p in cmd.params for o in [*p.opts, *p.secondary_opts]}
    return names | {"--help", "-h"}


def _check(line: str, tmp_path: Path) -> None:
    args = shlex.split(line)[1:]
    while args and args[0] in ("-v", "--verbose", "--allow-pickle"):
        args = args[1:]
    if args == ["--version"] or args[:1] == ["--version"]:
        assert CliRunner().invoke(cli, ["--version"]).exit_code == 0
        return
    cmd, path, rest = _resolve(args)
    if any(t.startswith("[") or "..." in t or t == "|" for t in rest) or re.search(r"\w\|\w", line):
        # a synopsis: every option it names must exist
        named = {m.split("=")[0] for m in re.findall(r"(?<![\w-])--?[A-Za-z][\w-]*(?:=\S+)?", " ".join(rest))}
        unknown = named - _options(cmd)
        assert not unknown, f"{line!r}: {' '.join(path)} has no option {sorted(unknown)}"
        return
    try:
        cmd.make_context(" ".join(["semsim", *path]), list(rest))
    except click.exceptions.Exit:
        pass
    except click.UsageError as exc:
        if "does not exist" in exc.format_message():  # a placeholder path: the syntax is what is checked
            return
        raise AssertionError(f"{line!r} does not parse: {exc.format_message()}") from None
    paths = [a for a in rest if "/" in a and not a.startswith("-")]
    placeholders = [a for a in rest if re.fullmatch(r"[A-Z][A-Z0-9_]*", a)]  # MODEL, PREFIX, DIR...
    runnable = not placeholders and (tuple(path) in READ_ONLY or (paths and all((ROOT / p).exists() for p in paths)))
    if runnable and not any(p.startswith("../") for p in paths):
        os.symlink(ROOT / "examples", tmp_path / "examples")
        old = Path.cwd()
        os.chdir(tmp_path)
        try:
            r = CliRunner().invoke(cli, [*path, *rest])
        finally:
            os.chdir(old)
        assert r.exit_code == 0, f"{line!r} failed: {r.output}"


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    monkeypatch.setenv("SEMSIM_CACHE_DIR", str(tmp_path / "cache"))
    plugins.reset_plugin_manager()
    yield tmp_path
    plugins.reset_plugin_manager()


def test_the_docs_have_examples():
    assert len(DOC_LINES) > 40 and len(HELP_LINES) >= 12


@pytest.mark.parametrize("line", DOC_LINES)
def test_doc_command_lines(scratch, line):
    _check(line, scratch)


@pytest.mark.parametrize("line", HELP_LINES)
def test_help_examples(scratch, line):
    _check(line, scratch)


def test_every_command_has_help_examples_and_quiet():
    """Every command answers --help, takes -q, and the main ones show examples."""
    def walk(cmd: click.Command, path: list[str]) -> None:
        r = CliRunner().invoke(cli, [*path, "--help"])
        assert r.exit_code == 0, (path, r.output)
        if isinstance(cmd, click.Group):
            ctx = click.Context(cmd)
            for name in cmd.list_commands(ctx):
                walk(cmd.get_command(ctx, name), [*path, name])
        else:
            assert "-q, --quiet" in r.output, f"semsim {' '.join(path)} takes no -q"
            if path[0] in ("usim", "dagf", "distsim", "score", "compare", "explain", "conservatism", "sensitivity"):
                assert f"semsim {' '.join(path)} " in r.output, f"semsim {' '.join(path)} --help shows no example"
    walk(cli, [])
