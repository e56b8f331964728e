"""Options and inputs that would exhaust memory or never finish are refused before any work (issue #32)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from semsim.app.cli import MAX_JOBS, cli


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


def test_the_python_api_holds_the_jobs_bound_of_the_command_line(toy_env):
    """#56: ``semsim.api.parse(jobs=9)`` on 2 cores was accepted, where ``--jobs 9`` is refused."""
    import semsim.api
    from semsim.kernel.errors import SettingsError
    with pytest.raises(SettingsError, match=rf"^jobs={MAX_JOBS + 1}: at most {MAX_JOBS} \(4 per core"):
        semsim.api.parse(["a b ."], parser="toy-parser", jobs=MAX_JOBS + 1)
    assert len(semsim.api.parse(["a b ."], parser="toy-parser", jobs=2, cache=False).graphs) == 1


@pytest.mark.parametrize("source", ["/dev/zero", "-"])
def test_an_endless_or_huge_input_is_refused_at_the_bound(toy_env, monkeypatch, source):
    monkeypatch.setenv("SEMSIM_MAX_INPUT_BYTES", "4096")
    hyp = toy_env / "hyp.txt"
    hyp.write_text("a b .\n")
    r = CliRunner().invoke(cli, ["score", "--source", source, "--hyp", str(hyp), "--parser", "toy-parser"],
                           input="word " * 2000)
    assert r.exit_code == 1 and "larger than 4,096 bytes (raise SEMSIM_MAX_INPUT_BYTES" in r.output
    assert "Traceback" not in r.output


@pytest.mark.parametrize("env,value,message", [
    ("SEMSIM_PROGRESS_INTERVAL", "abc", "SEMSIM_PROGRESS_INTERVAL='abc': expected a number of seconds, 0 or more"),
    ("SEMSIM_PROGRESS_INTERVAL", "-1", "expected a number of seconds"),
    ("SEMSIM_THREADS", "9" * 30, "is more than this machine's"),
    ("SEMSIM_MAX_SENTENCE_TOKENS", "abc", "SEMSIM_MAX_SENTENCE_TOKENS='abc': expected a positive whole number"),
])
def test_environment_settings_out_of_range_are_one_line_errors(toy_env, monkeypatch, env, value, message):
    monkeypatch.setenv(env, value)
    src = toy_env / "src.txt"
    src.write_text("a b .\nc d .\n")
    r = CliRunner().invoke(cli, ["score", "--source", str(src), "--hyp", str(src), "--parser", "toy-parser",
                                 "--no-cache"])
    assert r.exit_code == 1 and message in r.output and "Traceback" not in r.output, r.output


def test_a_depth_bound_python_cannot_recurse_to_is_refused(monkeypatch):
    monkeypatch.setenv("SEMSIM_MAX_DEPTH", "999999999999")
    amr = Path(__file__).resolve().parents[1] / "examples" / "fig1-source.amr"
    r = CliRunner().invoke(cli, ["usim", str(amr), str(amr)])
    assert r.exit_code == 1 and "SEMSIM_MAX_DEPTH='999999999999': at most 5,000" in r.output
    assert "Traceback" not in r.output


def test_a_cache_directory_that_is_a_file_and_an_output_directory_that_is_a_file(toy_env, monkeypatch):
    blocker = toy_env / "afile"
    blocker.write_text("")
    src = toy_env / "src.txt"
    src.write_text("a b .\n")
    monkeypatch.setenv("SEMSIM_CACHE_DIR", str(blocker))
    r = CliRunner().invoke(cli, ["score", "--source", str(src), "--hyp", str(src), "--parser", "toy-parser"])
    assert r.exit_code == 1 and "cannot create the cache directory" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(cli, ["parse", str(src), "--parser", "toy-parser", "--no-cache", "--format", "toy",
                                 "-o", str(blocker)])
    assert r.exit_code == 1 and "not a directory" in r.output and blocker.read_text() == ""


def test_a_plugin_module_with_a_syntax_error_is_one_line_naming_its_line(toy_env, monkeypatch, tmp_path):
    bad = tmp_path / "bad_plugin.py"
    bad.write_text("import semsim\n\ndef register_readers(register:\n    pass\n", encoding="utf-8")
    monkeypatch.setenv("SEMSIM_PLUGINS", str(bad))
    from semsim.app import plugins
    plugins.reset_plugin_manager()
    try:
        r = CliRunner().invoke(cli, ["plugins"])
    finally:
        monkeypatch.delenv("SEMSIM_PLUGINS")
        plugins.reset_plugin_manager()
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert f"{bad}:3: SEMSIM_PLUGINS" in r.output and "not valid Python" in r.output


def test_naming_an_installed_plugin_in_semsim_plugins_registers_it_once(monkeypatch):
    """A plugin author who also lists their installed plugin in SEMSIM_PLUGINS gets it once,
    not pluggy's traceback on every command (issue #33.5)."""
    from semsim.app import plugins
    monkeypatch.setenv("SEMSIM_PLUGINS", "semsim_ucca")
    plugins.reset_plugin_manager()
    try:
        r = CliRunner().invoke(cli, ["plugins"])
        assert r.exit_code == 0 and "Traceback" not in r.output, r.output
        assert [p["name"] for p in plugins.plugin_info()].count("ucca") == 1
    finally:
        monkeypatch.delenv("SEMSIM_PLUGINS")
        plugins.reset_plugin_manager()


# -- round five (#45): resample counts, system names, options that cannot go together --------------
@pytest.mark.parametrize("command", ["score", "compare", "sensitivity", "meta-eval", "usim"])
def test_a_huge_bootstrap_is_one_line_not_a_memory_error(toy_env, command):
    d = toy_env
    (d / "src.txt").write_text("a b .\nc d .\n")
    (d / "a.m2").write_text("S a b c\nA 1 2|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n\n")
    (d / "t.tsv").write_text("source\toutput\tscore\na b .\ta c .\t2\nc d .\tc e .\t3\n")
    xml = Path(__file__).resolve().parents[1] / "examples" / "fig1-source.xml"
    args = {"score": ["score", "--source", d / "src.txt", "--hyp", d / "src.txt", "--parser", "toy-parser"],
            "compare": ["compare", "--source", d / "src.txt", "--hyp", d / "src.txt", "--parser", "toy-parser"],
            "sensitivity": ["sensitivity", d / "a.m2", "--parser", "toy-parser"],
            "meta-eval": ["meta-eval", d / "t.tsv", "--measure", "paper", "--parser", "toy-parser"],
            "usim": ["usim", xml, xml]}[command]
    r = CliRunner().invoke(cli, [*map(str, args), "--bootstrap", str(10**9)])
    assert r.exit_code == 2 and "--bootstrap" in r.output and "1000000" in r.output, r.output
    assert "Traceback" not in r.output


@pytest.mark.parametrize("name", ["a\tb", "a\nb", "a|b", "a\x00b", "a\u2028b"])
def test_a_system_name_no_output_can_carry_is_refused(toy_env, name):
    src = toy_env / "src.txt"
    src.write_text("a b .\n")
    r = CliRunner().invoke(cli, ["score", "--source", str(src), "--hyp", f"{name}={src}", "--parser", "toy-parser",
                                 "-b"])
    assert r.exit_code == 2 and "system name" in r.output and "choose another name" in r.output, r.output
    odd = toy_env / name.replace("\x00", "\t")  # a file name of its own (no NUL in one): named with NAME=FILE
    odd.write_text("a b .\n")
    r = CliRunner().invoke(cli, ["score", "--source", str(src), "--hyp", str(odd), "--parser", "toy-parser",
                                 "--format", "tsv"])
    assert r.exit_code == 1 and "give the system a name with NAME=FILE" in r.output, r.output
    r = CliRunner().invoke(cli, ["score", "--source", str(src), "--hyp", f"ok={odd}", "--parser", "toy-parser",
                                 "--format", "tsv", "-q"])
    assert r.exit_code == 0 and r.output.splitlines()[1].startswith("ok\t"), r.output


def test_worst_with_score_only_is_refused(toy_env):
    src = toy_env / "src.txt"
    src.write_text("a b .\n")
    r = CliRunner().invoke(cli, ["score", "--source", str(src), "--hyp", str(src), "--parser", "toy-parser",
                                 "-b", "--worst", "3"])
    assert r.exit_code == 1 and "--worst" in r.output and "-b" in r.output and "Traceback" not in r.output


@pytest.mark.parametrize("kw,message", [
    ({"n_bootstrap": -5}, "n_bootstrap=-5: expected a whole number from 0 to 1,000,000"),
    ({"n_bootstrap": 10**12}, "n_bootstrap=1000000000000"),
    ({"confidence": 1.5}, "confidence=1.5: expected a number between 0 and 1"),
    ({"confidence": float("nan")}, "confidence=nan"),
    ({"confidence": "0.9"}, "confidence='0.9'"),
])
def test_corpus_score_bounds_its_bootstrap(kw, message):
    from semsim.kernel.errors import SettingsError
    from semsim.kernel.signature import Signature
    from semsim.kernel.stats import Score, corpus_score
    scores = [Score.fixed(0.5, ("s->r", "r->s"), Signature()), Score.fixed(1.0, ("s->r", "r->s"), Signature())]
    with pytest.raises(SettingsError, match=re.escape(message)):
        corpus_score(scores, **kw)


def test_the_bootstrap_in_blocks_draws_the_same_resamples(monkeypatch):
    """Resamples drawn block by block (bounded memory) give the interval one draw gave."""
    import numpy as np

    from semsim.kernel import stats
    from semsim.kernel.signature import Signature
    rng = np.random.default_rng(0)
    scores = [stats.Score({p: stats.Counts(*(int(x) for x in rng.integers(0, 9, 4))) for p in ("s->r", "r->s")},
                          Signature())
              for _ in range(37)]
    whole = stats.corpus_score(scores, n_bootstrap=500, seed=3)
    monkeypatch.setattr(stats, "BOOTSTRAP_BLOCK", 37 * 7)  # blocks of 7 resamples
    assert stats.corpus_score(scores, n_bootstrap=500, seed=3) == whole


def test_a_file_name_with_a_newline_keeps_each_tsv_record_on_one_line(tmp_path):
    import shutil
    examples = Path(__file__).resolve().parents[1] / "examples"
    a, b = tmp_path / "so\nurce.xml", tmp_path / "cor\trection.xml"
    shutil.copy(examples / "fig1-source.xml", a)
    shutil.copy(examples / "fig1-correction.xml", b)
    r = CliRunner().invoke(cli, ["usim", str(a), str(b), "--format", "tsv"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert len(lines) == 2 and "so\\nurce.xml" in lines[1] and "cor\\trection.xml" in lines[1], r.output


def test_meta_evaluate_and_paired_tests_bound_their_resamples():
    from semsim.app.metaeval import Judgment, meta_evaluate
    from semsim.kernel.errors import SettingsError
    from semsim.kernel.significance import paired_tests
    judgments = [Judgment("a b", "a c", 1.0, (1.0,), 1), Judgment("c d", "c e", 2.0, (2.0,), 2)]
    with pytest.raises(SettingsError, match="n_bootstrap=1000000000: expected a whole number from 0 to 1,000,000"):
        meta_evaluate(judgments, {"len": lambda pairs: [float(len(o)) for _, o in pairs]}, n_bootstrap=10**9)
    with pytest.raises(SettingsError, match="confidence=2"):
        meta_evaluate(judgments, {"len": lambda pairs: [float(len(o)) for _, o in pairs]}, confidence=2)
    with pytest.raises(SettingsError, match="trials=1000000000"):
        paired_tests({"a": [0.1, 0.2], "b": [0.3, 0.4]}, trials=10**9)
