"""USim as a Hugging Face ``evaluate`` module (issue #21), through the real ``evaluate``
package: loaded by path, it scores as ``semsim score`` does, its settings come from
``config_name`` and keywords, bad settings fail clearly, and it never touches the network.

evaluate's caches (the copied script, the Arrow files of ``compute``) go to ``tmp_path``; the
toy parser stands in for the UCCA parser, which is slow to load."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

import semsim.app.hf
from semsim.app.cli import cli
from semsim.kernel.errors import SemsimError, SettingsError

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ["He gva an apple .", "The cat sat .", "Dogs run fast .", "", "I like Tea .", "Big Dog ."]
HYP = ["He gave John an apple .", "the Cat sat down .", "Dogs ran fast .", "", "We like Tea .", "x"]
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


class NetworkAttempt(AssertionError):
    """Raised (and recorded) by the socket guard: a test fails even if the caller catches it."""


@pytest.fixture
def hf_env(toy_env, monkeypatch):
    """evaluate with its caches in tmp_path, offline, and every attempt to resolve a host name
    or open an internet socket recorded and refused; the test fails if there was one.

    evaluate reads its cache locations when first imported, so they are also set on
    ``evaluate.config``; its modules cache is put on ``sys.path`` and its modules imported,
    both undone afterwards."""
    home = toy_env / "hf"
    caches = {"HF_HOME": home, "HF_MODULES_CACHE": home / "modules", "HF_METRICS_CACHE": home / "metrics",
              "HF_EVALUATE_CACHE": home / "evaluate", "HF_DATASETS_CACHE": home / "datasets"}
    for name, value in {**caches, **OFFLINE}.items():
        monkeypatch.setenv(name, str(value))
    import evaluate
    for name in ("HF_MODULES_CACHE", "HF_METRICS_CACHE", "HF_EVALUATE_CACHE"):
        monkeypatch.setattr(evaluate.config, name, caches[name])
    monkeypatch.setattr(evaluate.config, "HF_EVALUATE_OFFLINE", True)
    monkeypatch.setattr(sys, "path", list(sys.path))
    attempts: list[str] = []

    def refuse(what: str):
        def guard(*args, **kwargs):
            attempts.append(f"{what}{args[1:] if what == 'connect' else args}")
            raise NetworkAttempt(f"network access attempted: {attempts[-1]}")
        return guard

    real_connect = socket.socket.connect

    def connect(sock, address):
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            return refuse("connect")(sock, address)
        return real_connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", refuse("getaddrinfo"))
    monkeypatch.setattr(socket, "create_connection", refuse("create_connection"))
    modules = set(sys.modules)
    yield toy_env
    for name in set(sys.modules) - modules:
        if name.startswith("evaluate_modules"):
            del sys.modules[name]
    assert attempts == [], attempts


def _load(**kwargs):
    import evaluate
    return evaluate.load(semsim.app.hf.module_path(), **kwargs)


def _semsim_score(tmp: Path, *options: str) -> tuple[list[dict], dict]:
    """``semsim score`` on SOURCE and HYP: its per-sentence records and its JSON report."""
    for name, lines in (("src.txt", SOURCE), ("hyp.txt", HYP)):
        (tmp / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp / "out.jsonl"
    r = CliRunner().invoke(cli, ["score", "--source", str(tmp / "src.txt"), "--hyp", str(tmp / "hyp.txt"),
                                 "--parser", "toy-parser", "-o", str(out), "--format", "json", "--bootstrap", "0",
                                 "-q", *options])
    assert r.exit_code == 0, r.output
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return records, json.loads(r.stdout)


def test_module_path_is_a_local_evaluate_module():
    """An absolute directory holding a script of its own name: what evaluate loads as local
    (a relative name with at most one slash would be looked up on the Hub first)."""
    path = Path(semsim.app.hf.module_path())
    assert path.is_absolute() and path.name == "usim" and (path / "usim.py").is_file()
    assert "import ." not in (path / "usim.py").read_text(encoding="utf-8")  # no file for evaluate to fetch


@pytest.mark.slow
@pytest.mark.needs_evaluate
def test_same_scores_as_semsim_score(hf_env):
    usim = _load()
    result = usim.compute(sources=SOURCE, predictions=HYP, parser="toy-parser")
    records, report = _semsim_score(hf_env)
    assert result["scores"] == [r["f"] for r in records]
    assert result["usim"] == report["systems"][0]["macro_f"]
    assert result["signature"] == report["signature"] == records[0]["signature"]
    assert {r["signature"] for r in records} == {result["signature"]}
    assert result["scores"][3] == 1.0 and result["scores"][5] < 1.0  # both empty: 1; "x": no shared unit
    # evaluate's streaming interface gives the same
    for start in (0, 3):
        usim.add_batch(sources=SOURCE[start:start + 3], predictions=HYP[start:start + 3])
    assert usim.compute(parser="toy-parser") == result
    assert usim.name == "usim" and set(usim.features) == {"sources", "predictions"}
    assert "Choshen" in usim.citation and "N18-2020" in usim.citation


@pytest.mark.needs_evaluate
@pytest.mark.parametrize(("config_name", "shows"), [
    ("default", "variant:paper|dir:both|tie:coverage|labels:labeled"),
    ("legacy", "variant:legacy"),
    ("weak", "labels:weak"),
    ("unlabeled", "labels:unlabeled"),
    # the preset loads the word encoder (1-2 s)
    pytest.param("meaning", "preset:meaning|dir:both|tie:all|labels:unlabeled|remote:yes|denom:aligned",
                 marks=pytest.mark.slow),
])
def test_config_name_sets_the_settings(hf_env, config_name, shows):
    result = _load(config_name=config_name, parser="toy-parser").compute(sources=SOURCE, predictions=HYP)
    assert shows in result["signature"] and result["signature"].endswith("parser:toy-parser|model:rules@rules-v1")
    config = {**semsim.app.hf.CONFIG_NAMES[config_name], "parser": "toy-parser"}
    assert result == semsim.app.hf.compute(SOURCE, HYP, config)


@pytest.mark.needs_evaluate
def test_config_name_meaning_scores_as_semsim_score_with_the_preset(hf_env):
    """Issue #46: the setting the docs recommend, by name as evaluate records it."""
    result = _load(config_name="meaning", parser="toy-parser").compute(sources=SOURCE, predictions=HYP)
    records, report = _semsim_score(hf_env, "--preset", "meaning")
    assert result["scores"] == [r["f"] for r in records] and result["signature"] == report["signature"]


def _docs_table(heading: str) -> dict[str, str]:
    """docs/evaluate.md's table under ``heading``: each name in backticks in a row's first
    cell, with the row."""
    text = (ROOT / "docs" / "evaluate.md").read_text(encoding="utf-8").split(heading, 1)[1]
    rows = [line for line in text.split("\n\n|", 1)[1].split("\n\n")[0].splitlines()[2:]]
    return {name: row for row in rows for name in re.findall(r"`([^`]+)`", row.split(" | ")[0])}


def test_docs_list_every_setting_and_every_value():
    """docs/evaluate.md's settings table names every field of USimMetric.Config, and for each
    USim setting of the settings table (semsim/kernel/metrics/settings.py) every value it takes, so
    that a setting added there (as `preset` was) cannot be left out of the docs."""
    from semsim.kernel.metrics.settings import SETTINGS
    table = _docs_table("## Settings")
    assert set(table) == set(semsim.app.hf.setting_names())
    for s in SETTINGS:
        row = table[s.name]
        values = s.choices or (tuple(s.words) if isinstance(s.default, int) and not isinstance(s.default, bool) else ())
        missing = [v for v in values if not re.search(rf"`{re.escape(v)}`|\b{re.escape(v)}\b", row)]
        assert not missing, (s.name, missing)
    assert set(_docs_table("### Config names")) == set(semsim.app.hf.CONFIG_NAMES)


@pytest.mark.needs_evaluate
def test_keywords_set_the_settings(hf_env):
    """Keywords of load() override the config name, keywords of compute() those of load(),
    for that compute only; the scores are semsim score's with the same options."""
    usim = _load(config_name="weak", parser="toy-parser", tie_break="all")
    loaded = usim.compute(sources=SOURCE, predictions=HYP)
    assert "|tie:all|labels:weak|" in loaded["signature"]
    unlabeled = usim.compute(sources=SOURCE, predictions=HYP, labels="unlabeled", tie_break="first")
    assert "|tie:first|labels:unlabeled|" in unlabeled["signature"]
    records, report = _semsim_score(hf_env, "--labels", "unlabeled", "--tie-break", "first")
    assert unlabeled["scores"] == [r["f"] for r in records] and unlabeled["signature"] == report["signature"]
    assert usim.compute(sources=SOURCE, predictions=HYP) == loaded  # compute's keywords did not stick
    legacy = _load(parser="toy-parser").compute(sources=SOURCE, predictions=HYP, variant="legacy")
    assert "variant:legacy" in legacy["signature"]


@pytest.mark.slow
@pytest.mark.needs_evaluate
def test_unknown_settings_are_clear_errors(hf_env):
    with pytest.raises(SettingsError, match=r"unknown config_name 'paper-ish'.*default, legacy, weak, unlabeled"):
        _load(config_name="paper-ish")
    with pytest.raises(SettingsError, match=r"unknown setting 'lables' \(did you mean 'labels'\?\).*settings: parser"):
        _load(lables="weak")  # evaluate alone would drop it silently
    with pytest.raises(SettingsError, match="unknown variant 'nonsense'; choose from"):
        _load(variant="nonsense")
    with pytest.raises(SettingsError, match="the legacy variant does not use it"):
        _load(config_name="legacy", labels="weak")
    usim = _load(parser="toy-parser")
    with pytest.raises(SettingsError, match=r"unknown setting 'source' for semsim's USim module; the inputs are"):
        usim.compute(source=SOURCE, predictions=HYP, sources=SOURCE)
    with pytest.raises(ValueError, match="reference-less: give sources= and predictions="):
        usim.compute(predictions=HYP, references=SOURCE)
    with pytest.raises(SettingsError, match="unknown setting 'n_bootstrap'"):
        usim.compute(sources=SOURCE, predictions=HYP, n_bootstrap=100)


@pytest.mark.slow
@pytest.mark.needs_evaluate
def test_nothing_is_downloaded_in_a_fresh_process(hf_env):
    """A new interpreter, offline, with empty caches and sockets refused before evaluate is
    imported, loads the module and scores without a request; what evaluate imports is a
    byte-identical copy of the script in its modules cache (HF_HOME)."""
    home = hf_env / "fresh-hf"
    env = {**os.environ, **OFFLINE, "HF_HOME": str(home), "PYTHONPATH": str(ROOT)}
    for name in ("HF_MODULES_CACHE", "HF_METRICS_CACHE", "HF_EVALUATE_CACHE", "HF_DATASETS_CACHE"):
        env.pop(name, None)
    code = f"""
import json, socket, sys
def refuse(*args, **kwargs):
    print("NETWORK", args, file=sys.stderr, flush=True)
    raise OSError("network access attempted")
real = socket.socket.connect
socket.socket.connect = lambda s, a: refuse(a) if s.family in (socket.AF_INET, socket.AF_INET6) else real(s, a)
socket.getaddrinfo = socket.create_connection = refuse
import evaluate, semsim.app.hf
usim = evaluate.load(semsim.app.hf.module_path(), parser="toy-parser")
print(json.dumps(usim.compute(sources={SOURCE!r}, predictions={HYP!r})))
"""
    r = subprocess.run([sys.executable, "-c", code], env=env, cwd=hf_env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert "NETWORK" not in r.stderr, r.stderr
    assert json.loads(r.stdout) == semsim.app.hf.compute(SOURCE, HYP, {"parser": "toy-parser"})
    copied = list((home / "modules" / "evaluate_modules" / "metrics" / "usim").glob("*/usim.py"))
    assert [p.read_bytes() for p in copied] == [(Path(semsim.app.hf.module_path()) / "usim.py").read_bytes()]


@pytest.mark.slow
@pytest.mark.needs_evaluate
def test_the_module_is_in_the_wheel(hf_env):
    """The wheel built from the sources ships the script, and evaluate loads the shipped copy."""
    src = hf_env / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "semsim", src / "semsim", ignore=shutil.ignore_patterns("__pycache__"))
    dist = hf_env / "dist"
    subprocess.run([sys.executable, "-c", f"from setuptools import build_meta; build_meta.build_wheel({str(dist)!r})"],
                   cwd=src, check=True, capture_output=True)
    (wheel,) = dist.glob("semsim-*.whl")
    unpacked = hf_env / "unpacked"
    with zipfile.ZipFile(wheel) as zf:
        assert {"semsim/app/hf/__init__.py", "semsim/app/hf/usim/usim.py"} <= set(zf.namelist())
        zf.extractall(unpacked)
    import evaluate
    usim = evaluate.load(str(unpacked / "semsim" / "app" / "hf" / "usim"), parser="toy-parser")
    assert usim.compute(sources=SOURCE, predictions=HYP) == semsim.app.hf.compute(SOURCE, HYP, {"parser": "toy-parser"})


@pytest.mark.parametrize("sources,predictions,message", [
    (["a b ."], [None], r"predictions\[0\]: None is not a string \(a sentence\)"),
    (["a b ."], [1], r"predictions\[0\]: 1 is not a string"),
    (["a b .", "c \ud800 ."], ["a b .", "c d ."], r"^sources\[1\]: lone surrogate U\+D800 at column 3"),  # #56
    ("a b .", ["a b ."], "sources is one string"),
    (None, ["a b ."], "no sources"),
])
def test_inputs_that_are_no_sentences_are_refused(hf_env, sources, predictions, message):
    """evaluate would cast 1 to "1" and iterate a bare string (issue #32): refused first."""
    usim = _load()
    with pytest.raises(SemsimError, match=message):
        usim.compute(sources=sources, predictions=predictions, parser="toy-parser")


def test_a_lone_surrogate_added_in_batches_is_refused_naming_it(hf_env):
    """#56: evaluate's Arrow writer met it first (UnicodeEncodeError)."""
    usim = _load()
    with pytest.raises(SemsimError, match=r"^predictions\[0\]: lone surrogate U\+D800 at column 1"):
        usim.add_batch(sources=["a ."], predictions=["\ud800 ."])


@pytest.mark.parametrize("setting", [{"batch_size": 0}, {"jobs": 0}, {"jobs": True}])
def test_counts_that_cannot_parse_are_refused(setting):
    from semsim.app.metric import USimMetric
    with pytest.raises(SettingsError, match="expected a whole number of at least 1"):
        USimMetric.Config(**setting)


@pytest.mark.slow
@pytest.mark.needs_evaluate
def test_a_compute_that_raises_leaves_no_arrow_file(hf_env, monkeypatch):
    """The inputs' Arrow file goes when compute returns, and when it raises (#55.5)."""
    metrics = hf_env / "hf" / "metrics"
    usim = _load()
    assert usim.compute(sources=SOURCE[:2], predictions=HYP[:2], parser="toy-parser")["scores"]
    assert not list(metrics.rglob("*.arrow"))
    monkeypatch.setenv("TOY_FAIL_AT", "Dogs ran fast .")
    with pytest.raises(SemsimError, match="toy parser cannot parse this"):
        usim.compute(sources=SOURCE, predictions=HYP, parser="toy-parser")
    assert not list(metrics.rglob("*.arrow"))
    monkeypatch.delenv("TOY_FAIL_AT")  # the module still computes afterwards
    assert usim.compute(sources=SOURCE[:2], predictions=HYP[:2], parser="toy-parser")["scores"]
