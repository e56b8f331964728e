"""The CLI over the toy plugin: formats, batches, errors, atomic output."""

from __future__ import annotations

import functools
import json

import pytest
from support import run_cli

from semsim import __version__


def toy(path, words, labels):
    path.write_text(json.dumps({"words": words, "labels": labels}) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def pair(toy_plugin, tmp_path):
    a = toy(tmp_path / "a.toy", ["He", "gva", "an", "apple"], ["Big", "Small", "Small", "Small"])
    b = toy(tmp_path / "b.toy", ["He", "gave", "an", "apple"], ["Big", "Small", "Small", "Big"])
    return a, b


run = functools.partial(run_cli, catch_exceptions=False)


def test_version():
    r = run("--version")
    assert r.exit_code == 0 and __version__ in r.output


def test_text_and_jsonl(pair):
    r = run("usim", *pair)
    assert r.exit_code == 0 and "signature: usim|variant:paper" in r.output
    r = run("usim", *pair, "--format", "jsonl")
    rec = json.loads(r.output.splitlines()[0])
    assert rec["f"] == pytest.approx(0.75) and rec["signature"].startswith("usim|variant:paper")
    assert set(rec["detail"]) == {"s->r", "r->s"}


def test_directory_batch_with_corpus_summary_and_tsv(toy_plugin, tmp_path):
    for side in ("src", "cor"):
        (tmp_path / side).mkdir()
        for i in range(3):
            toy(tmp_path / side / f"{i}.toy", ["a", "b", "c"][: i + 1], ["Small", "Big", "Small"][: i + 1])
    r = run("usim", tmp_path / "src", tmp_path / "cor", "--format", "jsonl", "--bootstrap", "50")
    lines = [json.loads(x) for x in r.output.splitlines()]
    assert len(lines) == 4 and lines[-1]["corpus"] and lines[-1]["macro_f"] == 1.0
    assert "macro_ci" in lines[-1]
    r = run("usim", tmp_path / "src", tmp_path / "cor", "--format", "tsv")
    rows = r.output.splitlines()
    assert rows[0].split("\t")[:3] == ["source", "correction", "f"] and len(rows) == 4


def test_list_files_and_mismatched_counts(pair, tmp_path):
    (tmp_path / "l1").write_text(f"{pair[0]}\n{pair[0]}\n")
    (tmp_path / "l2").write_text(f"{pair[1]}\n")
    r = run_cli("usim", f"@{tmp_path / 'l1'}", f"@{tmp_path / 'l2'}")
    assert r.exit_code == 1 and "lists 2 files but" in r.output and "Traceback" not in r.output
    (tmp_path / "l2").write_text(f"{pair[1]}\n{pair[1]}\n")
    assert run("usim", f"@{tmp_path / 'l1'}", f"@{tmp_path / 'l2'}").exit_code == 0


def test_unmatched_directories(toy_plugin, tmp_path):
    for side, names in (("s", ["x", "y"]), ("c", ["x"])):
        (tmp_path / side).mkdir()
        for n in names:
            toy(tmp_path / side / f"{n}.toy", ["a"], ["Big"])
    r = run_cli("usim", tmp_path / "s", tmp_path / "c")
    assert r.exit_code == 1 and "y.toy: no file of that name" in r.output


def test_bad_input_is_one_line_and_nothing_is_written(pair, tmp_path):
    bad = tmp_path / "bad.toy"
    bad.write_text("{not json\n")
    out = tmp_path / "out.jsonl"
    r = run_cli("usim", pair[0], bad, "-o", out)
    assert r.exit_code == 1
    assert r.output.strip().splitlines() == [f"Error: {bad}:1: bad toy graph: Expecting property name "
                                             "enclosed in double quotes: line 1 column 2 (char 1)"]
    assert not out.exists() and not (tmp_path / "out.jsonl.partial").exists()


def test_output_file_is_complete(pair, tmp_path):
    out = tmp_path / "out.json"
    assert run("usim", *pair, "--format", "json", "-o", out).exit_code == 0
    assert json.loads(out.read_text())["pairs"][0]["f"] == pytest.approx(0.75)


def test_output_into_a_pipe_or_device_writes_into_it(pair, tmp_path):
    """`-o /dev/null` (or a named pipe) must not be replaced by a regular file."""
    import os
    import stat
    import threading
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    r = run("usim", *pair, "--format", "jsonl", "-o", fifo)
    reader.join(timeout=30)
    assert r.exit_code == 0 and stat.S_ISFIFO(fifo.stat().st_mode)
    assert json.loads(got[0].decode().splitlines()[0])["f"] == pytest.approx(0.75)
    assert not (tmp_path / "pipe.partial").exists()


def test_dagf_and_distsim_and_plugins(pair):
    r = run("dagf", pair[0], pair[0], "--format", "jsonl")
    assert json.loads(r.output)["f"] == 1.0
    r = run_cli("dagf", pair[0], pair[1])
    assert r.exit_code == 1 and "same tokens" in r.output
    r = run("distsim", *pair, "--format", "json")
    assert json.loads(r.output)["distsim"]["Big"] == 1.0
    r = run("plugins")
    assert "reader toy (.toy) from toy" in r.output and "parser toy-parser [toy, default]" in r.output
    assert "paraphrase judge toy-synonyms [toy] from toy: Big = Large" in r.output


def test_plugins_lists_writers_where_parse_help_sends_the_reader(monkeypatch):
    """`semsim parse --help` says to see `semsim plugins` for --format: it lists the writers (#33.7)."""
    pytest.importorskip("semsim_ucca")
    from semsim.app import plugins
    monkeypatch.delenv("SEMSIM_LOAD_PLUGINS", raising=False)
    plugins.reset_plugin_manager()
    try:
        r = run_cli("plugins")
    finally:
        plugins.reset_plugin_manager()
    assert "writer xml [ucca] (.xml) from ucca" in r.output and "(semsim parse --format xml)" in r.output
    assert "see `semsim plugins`" in run_cli("parse", "--help").output


def test_missing_file(toy_plugin, tmp_path):
    r = run_cli("usim", tmp_path / "nope.toy", tmp_path / "nope2.toy")
    assert r.exit_code == 1 and "nope.toy: no such file or directory" in r.output


@pytest.mark.slow
def test_the_command_skips_the_teardown_but_not_its_output_code_or_exit_handlers(tmp_path):
    """``semsim`` ends with ``os._exit`` (semsim.app.cli.run): what a normal exit would give is
    still given — every line on stdout, the exit code, the exit handlers' work — and a pipe
    closed early is no traceback."""
    import subprocess
    import sys
    from pathlib import Path

    from support import run_semsim
    examples = Path(__file__).resolve().parents[1] / "examples"
    src, cor = examples / "fig1-source.xml", examples / "fig1-correction.xml"
    marker = tmp_path / "atexit.txt"
    plugin = tmp_path / "exits.py"
    plugin.write_text(f"import atexit\natexit.register(lambda: open({str(marker)!r}, 'w').write('ran'))\n")
    r = run_semsim("usim", src, cor, "--format", "tsv", env={"SEMSIM_PLUGINS": str(plugin)})
    assert r.returncode == 0 and r.stdout == run_cli("usim", src, cor, "--format", "tsv").output
    assert marker.read_text() == "ran"
    r = run_semsim("usim", src, tmp_path / "missing.xml")
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1
    assert run_semsim("usim", "--no-such-option").returncode == 2  # click's usage error
    for side, original in (("a", src), ("b", cor)):  # 400 pairs: more output than a pipe holds
        (tmp_path / side).mkdir()
        for k in range(400):
            (tmp_path / side / f"p{k:03d}.xml").symlink_to(original)
    with subprocess.Popen([sys.executable, "-m", "semsim.app.cli", "usim", tmp_path / "a", tmp_path / "b",
                           "--format", "jsonl"], stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout.readline()
        proc.stdout.close()
        assert "Traceback" not in proc.stderr.read().decode() and proc.wait() in (0, 1)


def test_help_lists_every_command_without_importing_what_they_run():
    """``semsim --help`` reads each command's summary, so it imports each command's module:
    one that imported gec-metrics at the top (which imports spaCy and torch) made the help
    take 9 s and 500 MB. Each command imports what it runs when it runs."""
    import subprocess
    import sys
    heavy = ("gec_metrics", "torch", "spacy", "transformers", "scipy.optimize", "scipy.stats")
    code = ("import sys\nfrom click.testing import CliRunner\nfrom semsim.app.cli import cli\n"
            "r = CliRunner().invoke(cli, ['--help'])\nassert r.exit_code == 0 and 'meta-eval' in r.output, r.output\n"
            f"print(','.join(m for m in {heavy!r} if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "", (r.stdout, r.stderr)


def test_flags_reach_what_reads_them_without_the_environment(monkeypatch):
    """``--allow-pickle`` and ``-v`` are handed to the code that asks (the readers, the progress
    bars, local workers as they start), not written into ``os.environ`` for the rest of the
    process (and every later command in it) to find."""
    import os

    from semsim.kernel import files, progress
    monkeypatch.delenv("SEMSIM_ALLOW_PICKLE", raising=False)
    monkeypatch.delenv("SEMSIM_VERBOSE", raising=False)
    monkeypatch.setattr(files, "_pickle", [])
    monkeypatch.setattr(progress, "_verbose", [])
    r = run_cli("--allow-pickle", "-v", "plugins")
    assert r.exit_code == 0, r.output
    assert "SEMSIM_ALLOW_PICKLE" not in os.environ and "SEMSIM_VERBOSE" not in os.environ
    assert files.pickle_allowed() and progress.verbose()
