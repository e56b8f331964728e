"""Never lose a user's file (issue #32, data loss): an output that names an input, a model
written over training data, a model name that walks out of the models directory, and a
database that is not a parse cache are all refused before anything is written."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from support import run_cli as run

from semsim.app.cache import ParseCache
from semsim.kernel.errors import SemsimError

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.fixture
def graphs(tmp_path):
    for name in ("fig1-source.xml", "fig1-correction.xml"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    return tmp_path / "fig1-source.xml", tmp_path / "fig1-correction.xml"


def refused(result, path: Path, before: bytes) -> None:
    assert result.exit_code == 1, result.output
    assert "is an input of this run" in result.output and "Traceback" not in result.output
    assert path.read_bytes() == before
    assert not path.with_name(path.name + ".partial").exists()


@pytest.mark.parametrize("command", ["usim", "dagf", "explain-json", "explain-html"])
def test_an_output_naming_a_graph_input_is_refused(graphs, command):
    source, correction = graphs
    before = correction.read_bytes()
    args = {"usim": ["usim", source, correction, "-o", correction],
            "dagf": ["dagf", source, correction, "-o", correction],
            "explain-json": ["explain", source, correction, "--json", correction],
            "explain-html": ["explain", source, correction, "--html", f"{correction.parent}/./{correction.name}"]}
    refused(run(*args[command]), correction, before)


def test_an_at_list_file_is_an_input_too(graphs, tmp_path):
    source, correction = graphs
    l1, l2 = tmp_path / "l1", tmp_path / "l2"
    l1.write_text(f"{source}\n")
    l2.write_text(f"{correction}\n")
    before = l2.read_bytes()
    refused(run("usim", f"@{l1}", f"@{l2}", "-o", l2), l2, before)


def test_two_outputs_on_one_file_are_refused(graphs, tmp_path):
    r = run("explain", *graphs, "--json", tmp_path / "x", "--html", tmp_path / "x")
    assert r.exit_code == 1 and "named for two outputs" in r.output and not (tmp_path / "x").exists()


@pytest.mark.parametrize("command", ["score", "conservatism", "parse", "compare"])
def test_an_output_naming_a_text_input_is_refused(toy_env, command):
    src, hyp = toy_env / "src.txt", toy_env / "hyp.txt"
    src.write_text("a b .\nc d .\n")
    hyp.write_text("a b .\nc e .\n")
    before = hyp.read_bytes()
    args = {"score": ["score", "--source", src, "--hyp", hyp, "--parser", "toy-parser", "-o", hyp],
            "conservatism": ["conservatism", "--source", src, "--hyp", hyp, "-o", hyp],
            "parse": ["parse", hyp, "--parser", "toy-parser", "-o", hyp],
            "compare": ["compare", "--source", src, "--hyp", hyp, "--parser", "toy-parser", "-o", hyp]}
    refused(run(*args[command]), hyp, before)


def test_sensitivity_refuses_to_write_over_its_m2_file(toy_env):
    m2 = toy_env / "a.m2"
    m2.write_text("S a b c\nA 1 2|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n\n")
    before = m2.read_bytes()
    refused(run("sensitivity", m2, "--parser", "toy-parser", "-o", m2), m2, before)


@pytest.mark.slow
def test_a_model_is_never_written_over_training_data(tmp_path):
    train = tmp_path / "train"
    train.mkdir()
    shutil.copy(EXAMPLES / "fig1-source.xml", train / "train0.xml")
    before = (train / "train0.xml").read_bytes()
    for target in (train / "train0.xml", train / "." / "train0.xml"):
        r = run("ucca", "train", "--train", train, "--dev", train, "-m", target)
        assert r.exit_code == 1 and "is one of the training inputs (--train " in r.output, r.output
    assert (train / "train0.xml").read_bytes() == before


@pytest.mark.slow  # the training command's imports
@pytest.mark.parametrize("which", [0, 1])
def test_a_model_is_never_written_over_a_pairs_file(tmp_path, which):
    """#56: the -m guard left out --pairs, and the corrections file became the model."""
    train = tmp_path / "train"
    train.mkdir()
    shutil.copy(EXAMPLES / "fig1-source.xml", train / "train0.xml")
    pairs = [tmp_path / "p.src", tmp_path / "X.safetensors"]
    for p in pairs:
        p.write_text("a b c .\n")
    r = run("ucca", "train", "--train", train, "--dev", train, "--pairs", *pairs, "--set", "consistency=0.5",
            "-m", pairs[which])
    assert r.exit_code == 1 and f"is one of the training inputs (--pairs {pairs[which]})" in r.output, r.output
    assert all(p.read_text() == "a b c .\n" for p in pairs)


@pytest.mark.parametrize("name", ["../victim", "..", "a/b", "/tmp"])
def test_model_names_never_leave_the_models_directory(tmp_path, monkeypatch, name):
    monkeypatch.setenv("SEMSIM_MODELS_DIR", str(tmp_path / "models"))
    (tmp_path / "models").mkdir()
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / ".semsim-model.json").write_text("{}")
    r = run("models", "remove", name)
    assert r.exit_code == 1 and "is not a model name" in r.output and "Traceback" not in r.output
    assert (victim / ".semsim-model.json").exists()


def test_a_database_that_is_not_a_parse_cache_is_left_alone(tmp_path):
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE people (name TEXT)")
        db.execute("INSERT INTO people VALUES ('ann')")
    with pytest.raises(SemsimError, match="not a semsim parse cache"):
        ParseCache(other)
    for command in ("clear", "info"):
        r = run("cache", command, "--cache", other)
        assert r.exit_code == 1 and "not a semsim parse cache" in r.output
    with sqlite3.connect(other) as db:
        assert db.execute("SELECT name FROM sqlite_master").fetchall() == [("people",)]
        assert db.execute("SELECT * FROM people").fetchall() == [("ann",)]
    ParseCache(tmp_path / "new.sqlite").close()  # a new file, and a semsim cache, open as before
    ParseCache(tmp_path / "new.sqlite").close()


# -- the property: no command ever writes to a path it reads -------------------------------------------
def _spellings(path: Path) -> list[str]:
    """Ways to name one file: as given, through ``./`` and ``..``, and through a symbolic link."""
    link = path.with_name(f"link-to-{path.name}")
    if not link.exists():
        link.symlink_to(path.name)
    return [str(path), f"{path.parent}/./{path.name}", f"{path.parent}/../{path.parent.name}/{path.name}", str(link)]


def _runs(d: Path) -> list[tuple[list[str], list[Path], list[str]]]:
    """Every command with an output option: (its arguments without the output, the files it
    reads, its output options)."""
    src, hyp, m2, table = d / "src.txt", d / "hyp.txt", d / "a.m2", d / "t.tsv"
    xml1, xml2 = d / "fig1-source.xml", d / "fig1-correction.xml"
    toy = ["--parser", "toy-parser", "--no-cache", "-q"]
    return [(["usim", str(xml1), str(xml2)], [xml1, xml2], ["-o"]),
            (["dagf", str(xml1), str(xml2)], [xml1, xml2], ["-o"]),
            (["explain", str(xml1), str(xml2)], [xml1, xml2], ["--json", "--html"]),
            (["score", "--source", str(src), "--hyp", str(hyp), *toy, "--bootstrap", "0"], [src, hyp], ["-o"]),
            (["conservatism", "--source", str(src), "--hyp", str(hyp)], [src, hyp], ["-o", "--plot"]),
            (["parse", str(hyp), *toy], [hyp], ["-o"]),
            (["compare", "--source", str(src), "--hyp", str(hyp), *toy, "--bootstrap", "0"], [src, hyp], ["-o"]),
            (["sensitivity", str(m2), *toy, "--bootstrap", "0"], [m2], ["-o"]),
            (["meta-eval", str(table), "--measure", "paper", *toy, "--bootstrap", "0"], [table],
             ["-o", "--per-sentence"])]


@pytest.mark.slow
def test_no_command_ever_writes_to_a_path_it_reads(toy_env):
    """Hypothesis draws a command, one of its output options, one of its inputs and a spelling
    of that input's path: the run is refused and every input keeps its bytes."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    d = toy_env
    for name in ("fig1-source.xml", "fig1-correction.xml"):
        shutil.copy(EXAMPLES / name, d / name)
    (d / "src.txt").write_text("a b .\nc d .\n")
    (d / "hyp.txt").write_text("a b .\nc e .\n")
    (d / "a.m2").write_text("S a b c\nA 1 2|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n\n")
    (d / "t.tsv").write_text("source\toutput\tscore\na b .\ta c .\t2\nc d .\tc e .\t3\nd e .\td f .\t1\n")
    runs = _runs(d)
    before = {p: p.read_bytes() for _, inputs, _ in runs for p in inputs}

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(st.data())
    def check(data):
        args, inputs, options = data.draw(st.sampled_from(runs))
        target = data.draw(st.sampled_from(inputs))
        spelling = data.draw(st.sampled_from(_spellings(target)))
        option = data.draw(st.sampled_from(options))
        r = run(*args, option, spelling)
        assert r.exit_code != 0, (args, option, spelling, r.output)
        assert "Traceback" not in r.output
        assert all(p.read_bytes() == b for p, b in before.items()), (args, option, spelling)

    check()


# -- nor over the run's own state (#45) -------------------------------------------------------------
@pytest.mark.parametrize("target", ["given cache", "given cache -wal", "default cache", "models dir"])
@pytest.mark.parametrize("command", ["score", "parse", "compare", "sensitivity", "meta-eval"])
def test_no_command_writes_over_the_parse_cache_or_the_models_directory(toy_env, monkeypatch, command, target):
    """The parse cache (given with --cache, or the default one) and the models directory are
    the run's state, not outputs: ``-o`` naming one is refused at the start, the file untouched."""
    d = toy_env
    monkeypatch.setenv("SEMSIM_MODELS_DIR", str(d / "models"))
    (d / "models").mkdir()
    (d / "src.txt").write_text("a b .\nc d .\n")
    (d / "hyp.txt").write_text("a b .\nc e .\n")
    (d / "a.m2").write_text("S a b c\nA 1 2|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n\n")
    (d / "t.tsv").write_text("source\toutput\tscore\na b .\ta c .\t2\nc d .\tc e .\t3\nd e .\td f .\t1\n")
    given = d / "mine.sqlite3"
    ParseCache(given).close()
    ParseCache().close()  # the default one, in $SEMSIM_CACHE_DIR
    path = {"given cache": given, "given cache -wal": Path(f"{given}-wal"),
            "default cache": d / "cache" / "parses.sqlite3", "models dir": d / "models" / "out.tsv"}[target]
    before = path.read_bytes() if path.exists() else None
    toy = ["--parser", "toy-parser", "--cache", str(given), "-q"]
    args = {"score": ["score", "--source", d / "src.txt", "--hyp", d / "hyp.txt", *toy],
            "parse": ["parse", d / "hyp.txt", *toy],
            "compare": ["compare", "--source", d / "src.txt", "--hyp", d / "hyp.txt", *toy],
            "sensitivity": ["sensitivity", d / "a.m2", *toy, "--bootstrap", "0"],
            "meta-eval": ["meta-eval", d / "t.tsv", "--measure", "paper", *toy, "--bootstrap", "0"]}[command]
    r = run(*args, "-o", path)
    assert r.exit_code == 1, r.output
    assert ("parse cache" in r.output or "models directory" in r.output) and "Traceback" not in r.output, r.output
    assert (path.read_bytes() if path.exists() else None) == before
