"""The ``amrlib`` parser through amrlib's real ``load_stog_model`` path, on tiny models built here.

What is real and what is not: every test marked ``needs_amrlib`` runs the installed amrlib,
transformers and torch, unpatched: loading the model directory, tokenizing, beam search,
decoding, amrlib's deserializer, then semsim's conversion, cache and CLI. The models are
tiny and random (``tiny_amrlib.py``); the "constrained" one has a generation config that
forces its output (``sequence_bias``), so a successful parse has a known result. Neither
says anything about parse quality.
"""

from __future__ import annotations

import json
import os
import pickle
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from tiny_amrlib import HUB_TOKENIZER, WANT_GO, build_tiny_model

import semsim
from semsim import SemsimError
from semsim.app.cache import ParseCache
from semsim.app.cli import cli
from semsim.app.parsing import ParseSettings, find_parser, parse_sentences
from semsim.kernel.errors import ParseError
from semsim_amr import amrlib_parser

SENTENCES = ["The boy wants to go .", "He wants to leave ."]
needs_amrlib = pytest.mark.needs_amrlib


@pytest.fixture(scope="session")
def models(tmp_path_factory) -> dict[str, Path]:
    """A constrained model (always emits WANT_GO) and a random one (emits garbage -> ``()``)."""
    if amrlib_parser.MODEL_ENV in os.environ:
        pytest.fail(f"unset {amrlib_parser.MODEL_ENV} to run these tests")
    root = tmp_path_factory.mktemp("amrlib")
    return {"constrained": build_tiny_model(root / "constrained", forced=WANT_GO),
            "random": build_tiny_model(root / "random")}


@pytest.fixture(autouse=True)
def _no_tokenizer_env(monkeypatch):
    monkeypatch.delenv(amrlib_parser.TOKENIZER_ENV, raising=False)
    monkeypatch.delenv(amrlib_parser.MODEL_ENV, raising=False)
    # these tests load models they built themselves: the opt-in a user gives with --trust-model
    # (the tests of the refusal, and of an installed model, unset it)
    monkeypatch.setenv("SEMSIM_TRUST_MODELS", "1")


def semsim_cli(*args, env=None) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1", **(env or {})}
    env.pop(amrlib_parser.MODEL_ENV, None)
    return subprocess.run([sys.executable, "-m", "semsim.app.cli", *map(str, args)], capture_output=True, text=True,
                          env=env)


def fake_model_dir(d: Path, weights: bytes = b"weights") -> Path:
    """Files shaped like an amrlib model, for the checks that need no torch."""
    d.mkdir(parents=True, exist_ok=True)
    (d / "amrlib_meta.json").write_text('{"inference_module": ".parse_xfm.inference", "inference_class": '
                                        '"Inference", "model_fn": "model.safetensors"}')
    (d / "config.json").write_text(json.dumps({"task_specific_params": {"parse_amr": {
        "model_name_or_path": HUB_TOKENIZER}}}))
    (d / "model.safetensors").write_bytes(weights)
    return d


# -- without torch -----------------------------------------------------------------------------
@pytest.mark.slow
def test_registering_the_parser_imports_neither_torch_nor_amrlib():
    code = ("import sys, semsim.app.plugins as p; ps, ms = p.parsers(), p.downloads(); "
            "assert ps['amrlib'].representation == 'amr'; "
            "assert ms['amrlib-parse-xfm-bart-large-0.1.0'].parser == 'amrlib'; "
            "print(sorted(m for m in ('torch', 'transformers', 'amrlib') if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(SemsimError, match=r"^no amrlib model: pass model=DIR .*tokenizer.*SEMSIM_AMRLIB_MODEL.*"
                                          r"semsim models download amrlib-parse-xfm-bart-large-0.1.0"):
        amrlib_parser.model_identity(None)
    with pytest.raises(SemsimError, match=re.escape(f"not an amrlib model: {tmp_path / 'nope'} is not")):
        amrlib_parser.model_identity(str(tmp_path / "nope"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(SemsimError, match=r"has no amrlib_meta\.json or config\.json"):
        amrlib_parser.parse(["a b ."], str(tmp_path / "empty"))


@pytest.mark.slow
def test_missing_model_through_the_cli_is_one_line(tmp_path):
    src = tmp_path / "s.txt"
    src.write_text("a b .\n")
    r = semsim_cli("score", "--source", src, "--hyp", src, "--parser", "amrlib", "--model", tmp_path / "nope",
                   "--no-cache", "-q")
    assert r.returncode == 1
    assert r.stderr.strip() == (f"Error: not an amrlib model: {tmp_path / 'nope'} is not a directory (pass the "
                                "directory holding amrlib_meta.json, config.json and the weights)")


def test_a_model_directory_of_ones_own_loads_only_with_trust_model(tmp_path, monkeypatch):
    """amrlib's weights are pickles: a directory semsim did not download is refused, in one
    line that says why and how to opt in, before anything is imported."""
    monkeypatch.delenv("SEMSIM_TRUST_MODELS")
    monkeypatch.setenv("SEMSIM_MODELS_DIR", str(tmp_path / "models"))
    d = fake_model_dir(tmp_path / "m")
    with pytest.raises(SemsimError, match=r"^refusing to load amrlib model .*/m: loading it runs code from its files "
                                          r"\(its weights are torch pickles\) and it is not a model semsim downloaded; "
                                          r"pass trust_model=True"):
        amrlib_parser.parse(["a b ."], str(d))
    src = tmp_path / "s.txt"
    src.write_text("a b .\n")
    r = CliRunner().invoke(cli, ["score", "--source", str(src), "--hyp", str(src), "--parser", "amrlib",
                                 "--model", str(d), "--no-cache", "-q"])
    assert r.exit_code == 1 and r.output.startswith("Error: refusing to load amrlib model"), r.output
    assert len(r.output.strip().splitlines()) == 1


@pytest.mark.parametrize("meta", [
    '{"inference_module": "torch.hub", "inference_class": "load", "model_fn": "model.safetensors"}',
    '{"inference_module": ".parse_xfm.inference", "inference_class": "Other", "model_fn": "model.safetensors"}',
    '{"inference_module": ".parse_xfm.inference", "inference_class": "Inference", "model_fn": "../x.bin"}',
    '["not", "an", "object"]',
])
def test_amrlib_meta_may_name_only_the_inference_classes_amrlib_ships(tmp_path, meta):
    """amrlib imports whatever module amrlib_meta.json names (torch.hub imports the
    directory's hubconf.py): anything but its own parse classes is refused, trusted or not."""
    d = fake_model_dir(tmp_path / "m")
    (d / "amrlib_meta.json").write_text(meta)
    with pytest.raises(SemsimError, match=r"amrlib_meta\.json: "):
        amrlib_parser.parse(["a b ."], str(d))


def test_model_identity_is_stable_and_follows_weights_and_tokenizer(tmp_path, monkeypatch):
    d = fake_model_dir(tmp_path / "m")
    first = amrlib_parser.model_identity(str(d))
    assert first == amrlib_parser.model_identity(str(d)) == amrlib_parser.model_identity(str(d) + "/")
    assert first == amrlib_parser.model_identity(str(fake_model_dir(tmp_path / "copy")))  # content, not path
    (d / ".semsim-model.json").write_text("{}")  # semsim's install marker is not the model
    assert amrlib_parser.model_identity(str(d)) == first
    (d / "model.safetensors").write_bytes(b"weightz")
    changed = amrlib_parser.model_identity(str(d))
    assert changed != first
    tok = tmp_path / "tok"
    tok.mkdir()
    (tok / "tokenizer_config.json").write_text("{}")
    monkeypatch.setenv(amrlib_parser.TOKENIZER_ENV, str(tok))  # a tokenizer from elsewhere counts too
    with_tok = amrlib_parser.model_identity(str(d))
    assert with_tok != changed
    (tok / "tokenizer_config.json").write_text('{"x": 1}')
    assert amrlib_parser.model_identity(str(d)) != with_tok


def test_model_identity_resolves_installed_model_names(tmp_path, monkeypatch):
    monkeypatch.setenv("SEMSIM_MODELS_DIR", str(tmp_path / "models"))
    name = "amrlib-parse-xfm-bart-base-0.1.0"
    with pytest.raises(SemsimError, match=re.escape(f"amrlib model '{name}' is not installed: `semsim models "
                                                    f"download {name}`")):
        amrlib_parser.model_identity(name)
    installed = tmp_path / "models" / name
    fake_model_dir(installed / "model_parse_xfm_bart_base-v0_1_0")
    (installed / ".semsim-model.json").write_text(json.dumps({"subpath": "model_parse_xfm_bart_base-v0_1_0"}))
    assert amrlib_parser.model_identity(name) == amrlib_parser.model_identity(
        str(installed / "model_parse_xfm_bart_base-v0_1_0"))


# -- the real load-and-parse path ----------------------------------------------------------------
@pytest.mark.slow
@needs_amrlib
def test_real_load_and_beam_search_with_output_forced_by_generation_config(models, tmp_path):
    parser = find_parser("amrlib", None)
    cache = ParseCache(tmp_path / "c.sqlite3")
    graphs = parse_sentences(SENTENCES, parser, ParseSettings(model=str(models["constrained"])), cache=cache)
    assert set(graphs) == set(SENTENCES)
    for text, g in graphs.items():
        assert g.meta["snt"] == text
        assert sorted(t.text for t in g.tokens) == ["boy", "go-02", "want-01"]
        assert sorted(e.labels[0] for e in g.edges) == ["ARG0", "ARG0", "ARG1", "TOP"]
    assert semsim.usim(graphs[SENTENCES[0]], graphs[SENTENCES[1]]).f == 1.0
    # the cache keeps amrlib's PENMAN, and a second run parses nothing
    model_id = next(iter(cache.stats()["groups"]))["model"]
    entry = cache.get_many("amr", "amrlib", model_id, [SENTENCES[0]])[SENTENCES[0]]
    assert entry.native is not None and entry.native.startswith(f"# ::snt {SENTENCES[0]}\n(w / want-01")
    parser_that_must_not_run = type(parser)(parser.name, parser.representation, _fail, parser.description,
                                            parser.model_identity, parser.serialize, parser.plugin)
    again = parse_sentences(SENTENCES, parser_that_must_not_run, ParseSettings(model=str(models["constrained"])),
                            cache=cache)
    assert {t: g.meta["penman"] for t, g in again.items()} == {t: g.meta["penman"] for t, g in graphs.items()}


def _fail(texts, model):
    raise AssertionError("parsed although every sentence is cached")


@pytest.mark.slow
@needs_amrlib
def test_random_model_output_is_a_visible_failure_naming_the_sentences(models):
    """amrlib turns the random model's output into ``()``; semsim refuses to score it."""
    with pytest.raises(amrlib_parser.ParseFailure) as info:
        amrlib_parser.parse(SENTENCES, str(models["random"]))
    assert info.value.sentences == SENTENCES
    assert str(info.value) == ("amrlib could not parse 2 of 2 sentence(s) of a batch into an AMR (no beam decoded "
                               "to a graph): 'The boy wants to go .', 'He wants to leave .'")
    # as a --jobs worker hands it back: a ParseError (the pool itself: test_pipeline, with the toy parser)
    back = pickle.loads(pickle.dumps(info.value))
    assert isinstance(back, ParseError) and str(back) == str(info.value) and back.sentences == SENTENCES
    with pytest.raises(SemsimError, match="amrlib could not parse 1 of 1"):
        parse_sentences(SENTENCES[:1], find_parser("amrlib", None), ParseSettings(model=str(models["random"])))


@pytest.mark.parametrize("output", [None, "()", "(", "# ::snt x\n()"])
def test_outputs_that_are_not_amrs_are_failures(output):
    assert amrlib_parser._decode(output) is None
    assert amrlib_parser._decode("(b / boy)").top == "b"


@pytest.mark.slow
@needs_amrlib
def test_hub_tokenizer_without_local_copy_is_a_clear_error_and_the_env_var_fixes_it(models, tmp_path, monkeypatch):
    bare = tmp_path / "bare"
    bare.mkdir()
    for f in models["constrained"].iterdir():
        if f.name in ("amrlib_meta.json", "config.json", "generation_config.json") or f.suffix == ".safetensors":
            shutil.copy(f, bare / f.name)
    with pytest.raises(SemsimError, match=re.escape(
            f"amrlib model {bare} names the tokenizer '{HUB_TOKENIZER}', which is not on this machine, and semsim "
            "does not download it implicitly")):
        amrlib_parser.parse(SENTENCES, str(bare))
    monkeypatch.setenv(amrlib_parser.TOKENIZER_ENV, str(models["constrained"]))
    (graph,) = amrlib_parser.parse(SENTENCES[:1], str(bare))
    assert graph.instances()[0].target == "want-01" and graph.metadata["snt"] == SENTENCES[0]


@pytest.mark.slow
@needs_amrlib
def test_broken_weights_are_one_clear_error(models, tmp_path):
    broken = shutil.copytree(models["constrained"], tmp_path / "broken")
    (broken / "model.safetensors").write_bytes(b"not weights")
    prefix = re.escape(f"cannot load amrlib model {broken}: ")
    with pytest.raises(SemsimError, match=f"^{prefix}.*is it an amrlib parse model"):
        amrlib_parser.parse(SENTENCES, str(broken))


# -- the CLI, end to end -------------------------------------------------------------------------
@pytest.mark.slow
@needs_amrlib
def test_cli_download_of_a_file_url_then_score_with_the_model_name(models, tmp_path, monkeypatch):
    name, stem = "amrlib-parse-xfm-bart-base-0.1.0", "model_parse_xfm_bart_base-v0_1_0"
    archive = tmp_path / f"{stem}.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:  # laid out like amrlib's release archives
        tar.add(models["constrained"], arcname=stem)
    env = {"SEMSIM_MODELS_DIR": str(tmp_path / "models"), "SEMSIM_CACHE_DIR": str(tmp_path / "cache")}
    monkeypatch.delenv("SEMSIM_TRUST_MODELS")  # a model semsim downloaded loads without the opt-in
    r = semsim_cli("models", "download", name, "--url", archive.as_uri(), "-q", env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(tmp_path / "models" / name / stem)
    src, hyp = tmp_path / "src.txt", tmp_path / "hyp.txt"
    src.write_text("\n".join(SENTENCES) + "\n")
    hyp.write_text("The boy wants to leave .\n\n")
    r = semsim_cli("score", "--source", src, "--hyp", hyp, "--parser", "amrlib", "--model", name, "-q",
                   "--format", "json", "-o", tmp_path / "s.jsonl", env=env)
    assert r.returncode == 0, r.stderr
    records = [json.loads(x) for x in (tmp_path / "s.jsonl").read_text().splitlines()]
    # line 1: both sides forced to the same AMR; line 2: empty hypothesis, scored 0 by convention
    assert [(r["line"], r["f"], r["empty"]) for r in records] == [(1, 1.0, False), (2, 0.0, True)]
    info = json.loads(semsim_cli("cache", "info", "--format", "json", env=env).stdout)
    assert info["entries"] == 3 and info["groups"][0]["parser"] == "amrlib"
    (tmp_path / "models" / name / stem / "hubconf.py").write_text("import os\n")  # tampered since
    r = semsim_cli("score", "--source", src, "--hyp", hyp, "--parser", "amrlib", "--model", name, "-q", "--no-cache",
                   env=env)
    assert r.returncode == 1 and r.stderr.startswith("Error: refusing to load amrlib model") \
        and f"'{stem}/hubconf.py' differs from what semsim recorded" in r.stderr, r.stderr


@pytest.mark.slow
@needs_amrlib
def test_cli_unparsable_output_is_one_error_line(models, tmp_path):
    src = tmp_path / "s.txt"
    src.write_text(SENTENCES[0] + "\n" + SENTENCES[1] + "\n")
    r = semsim_cli("score", "--source", src, "--hyp", src, "--parser", "amrlib", "--model", models["random"],
                   "--no-cache", "-q", "--batch-size", "1")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines()[-1] == (
        f"Error: no line could be scored: {src}:1: amrlib could not parse 1 of 1 sentence(s) of a batch into an "
        f"AMR (no beam decoded to a graph): '{SENTENCES[0]}'")
