"""TUPA through the real code path: train a tiny model on shipped fixtures, parse, score, cache.

A model trained on twelve sentences for two epochs is only a smoke test of the machinery:
its parses are poor (mostly flat structures), and numbers from it mean nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.needs_tupa, pytest.mark.slow]

SENTENCES = ["John gave Mary a book .", "She left because she was tired .", "The cat sat on the mat ."]
HYPOTHESES = ["John gave a book to Mary .", "She left , she was tired .", "The cat sat on the mat ."]


@pytest.fixture(autouse=True)
def _trusted(monkeypatch):
    """These tests load the model they trained: the opt-in a user gives with --trust-model."""
    monkeypatch.setenv("SEMSIM_TRUST_MODELS", "1")


@pytest.fixture(scope="module")
def tiny_model(tiny_tupa_model):
    return tiny_tupa_model  # conftest.py: trained once per run, shared with docs/sensitivity.md's transcript


def semsim(*args, env=None):
    return subprocess.run([sys.executable, "-m", "semsim.app.cli", *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})})


def test_in_process_parse_gives_graphs(tiny_model):
    import semsim as api
    from semsim_ucca import tupa
    passages = tupa.parse(SENTENCES, str(tiny_model))
    graphs = [api.app.plugins.to_graph(p) for p in passages]
    assert [g.text for g in graphs] == SENTENCES
    assert all(len(g.units) > len(g.tokens) for g in graphs)
    assert api.usim(graphs[2], graphs[2]).f == 1.0
    assert "<root" in tupa.serialize(passages[0]) and "<extra" not in tupa.serialize(passages[0])
    assert tupa.model_identity(str(tiny_model)) == tupa.model_identity(str(tiny_model))


def test_score_command_parses_once_and_caches(tiny_model, tmp_path):
    src, hyp = tmp_path / "src.txt", tmp_path / "hyp.txt"
    src.write_text("\n".join(SENTENCES) + "\n")
    hyp.write_text("\n".join(HYPOTHESES) + "\n")
    env = {"SEMSIM_CACHE_DIR": str(tmp_path / "cache")}
    args = ["score", "--source", src, "--hyp", hyp, "--parser", "tupa", "--model", tiny_model, "-q",
            "--format", "json", "-o", tmp_path / "s.jsonl"]
    first = semsim(*args, env=env)
    assert first.returncode == 0, first.stderr
    records = [json.loads(x) for x in (tmp_path / "s.jsonl").read_text().splitlines()]
    assert [r["line"] for r in records] == [1, 2, 3] and records[2]["f"] == 1.0  # identical sentence
    second = semsim(*args, env=env)
    assert json.loads(second.stdout) == json.loads(first.stdout)
    info = json.loads(semsim("cache", "info", "--format", "json", env=env).stdout)
    assert info["entries"] == 5 and info["hits"] == 5  # 5 distinct sentences, all hit on the re-run
    assert info["groups"][0]["parser"] == "tupa"



def test_tupa_is_quiet_unless_verbose_and_writes_nothing_beside_the_model(tiny_model, tmp_path):
    """TUPA and DyNet (from C++) announce every load; the terminal is semsim's: their lines
    appear only with `semsim -v`, and no PREFIX.log is written next to the user's model."""
    src = tmp_path / "s.txt"
    src.write_text("\n".join(SENTENCES) + "\n")
    before = sorted(p.name for p in tiny_model.parent.iterdir())
    args = ["score", "--source", src, "--hyp", src, "--parser", "tupa", "--model", tiny_model, "--no-cache", "-q"]
    quiet = semsim(*args)
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr
    loud = semsim("-v", *args)
    assert loud.returncode == 0 and "[dynet]" in loud.stderr and "Loading from" in loud.stderr
    assert sorted(p.name for p in tiny_model.parent.iterdir()) == before

def test_missing_model_is_one_clear_line(tmp_path):
    src = tmp_path / "s.txt"
    src.write_text("a b .\n")
    r = semsim("score", "--source", src, "--hyp", src, "--parser", "tupa", "--model", tmp_path / "nope", "--no-cache",
               env={"SEMSIM_TUPA_MODEL": ""})
    assert r.returncode == 1
    assert r.stderr.strip() == f"Error: not a TUPA model: {tmp_path / 'nope'}.json does not exist (a model is the " \
                               "prefix of the files TUPA writes: PREFIX.json, PREFIX.data, ...)"
    r = semsim("score", "--source", src, "--hyp", src, "--parser", "tupa", "--no-cache", env={"SEMSIM_TUPA_MODEL": ""})
    assert r.returncode == 1 and "no TUPA model: pass --model PREFIX" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.needs_shared
def test_jfleg_dev_end_to_end(tiny_model, shared, tmp_path):
    """The first JFLEG dev sentences against two references: real learner text through the CLI."""
    dev = shared / "data" / "jfleg" / "dev"
    paths = []
    for name in ("dev.src", "dev.ref0", "dev.ref1"):
        lines = (dev / name).read_text(encoding="utf-8").splitlines()[:5]  # the tiny model takes 0.7 s a sentence
        paths.append(tmp_path / name)
        paths[-1].write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = semsim("score", "--source", paths[0], "--ref", paths[1], "--ref", paths[2], "--model", tiny_model,
               "--parser", "tupa", "--format", "json", "-q", env={"SEMSIM_CACHE_DIR": str(tmp_path / "c")})
    assert r.returncode == 0, r.stderr
    systems = json.loads(r.stdout)["systems"]
    assert [s["system"] for s in systems] == ["ref:dev.ref0", "ref:dev.ref1"]
    assert all(s["n"] == 5 and 0.0 < s["macro_f"] <= 1.0 for s in systems)


def test_incompatible_model_is_one_clear_line(tiny_model, tmp_path):
    broken = tmp_path / "broken"
    for f in tiny_model.parent.iterdir():
        (tmp_path / f.name.replace(tiny_model.name, "broken")).write_bytes(f.read_bytes())
    (tmp_path / "broken.data").write_bytes(b"not a model")
    src = tmp_path / "s.txt"
    src.write_text("a b .\n")
    r = semsim("score", "--source", src, "--hyp", src, "--parser", "tupa", "--model", broken, "--no-cache", "-q")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith(f"Error: cannot load TUPA model {broken}:")


def test_loading_dynet_leaves_ieee_floats_as_they_were():
    """DyNet is built with fast-math: importing it (which loading a TUPA model does) turns
    subnormal floats off for the whole process, and a later test's Hypothesis floats raised
    FloatingPointError in the same worker. The plugin puts IEEE 754 back once the model is
    loaded (ieee_floats), in this thread and the threads it starts."""
    import threading

    pytest.importorskip("dynet")  # flushes subnormals to zero, if this process had not imported it yet
    from semsim_ucca.tupa import ieee_floats
    tiny = 5e-324
    ieee_floats()
    seen = []
    thread = threading.Thread(target=lambda: seen.append(tiny * 1.0))
    thread.start()
    thread.join()
    assert tiny * 1.0 == tiny and seen == [tiny]
