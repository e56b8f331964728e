"""The consistency objective on (learner sentence, correction) pairs (``--pairs``, ``--set consistency=W``)."""

from __future__ import annotations

import numpy as np
import pytest
from brackets import TRAINING, to_xml

pytestmark = pytest.mark.needs_ucca


def spans_of(spans: np.ndarray) -> list[tuple[int, int]]:
    return [(i, j) for i, j in spans.tolist()]


def test_spans_correspond_where_both_edges_are_words_of_both_sentences():
    from semsim_ucca.span.training.train import corresponding_spans
    source, correction = ["I", "go", "school"], ["I", "go", "to", "school"]
    src, ref = corresponding_spans(source, correction)
    pairs = sorted(zip(spans_of(ref), spans_of(src)))
    # `to` was added: no span starts or ends at it, but spans over it correspond to spans without it
    assert pairs == [((0, 1), (0, 1)), ((0, 2), (0, 2)), ((0, 4), (0, 3)), ((1, 2), (1, 2)), ((1, 4), (1, 3)),
                     ((3, 4), (2, 3))]


def test_a_changed_word_has_no_span_edge_of_its_own_and_case_is_no_change():
    from semsim_ucca.span.training.train import corresponding_spans
    source, correction = ["he", "see", "the", "apples"], ["He", "sees", "the", "apples"]
    src, ref = corresponding_spans(source, correction)
    pairs = set(zip(spans_of(ref), spans_of(src)))
    assert ((0, 4), (0, 4)) in pairs and ((2, 4), (2, 4)) in pairs
    assert not any(1 in (i, j - 1) for (i, j), _ in pairs)  # `see` / `sees` is no span's edge
    assert len(pairs) == 6  # three matched words: 3 + 2 + 1 spans


def test_consistency_is_a_checked_setting():
    from semsim_ucca.span.inference.model import Config
    assert Config(consistency=0.5).consistency == 0.5
    with pytest.raises(ValueError, match="consistency"):
        Config(consistency=-1)


def _net():
    import torch

    from semsim_ucca.span.inference.features import Features
    from semsim_ucca.span.inference.model import Config, Vocab
    from semsim_ucca.span.training.network import SpanParserNet
    torch.manual_seed(0)
    config = Config(lstm_dim=8, mlp_dim=8, remote_dim=4, word_dim=4, feat_dim=2, lstm_layers=1, dropout=0.0,
                    word_dropout=0.0, features="word", spacy_vectors=False)
    words = ["he", "see", "sees", "the", "apples"]
    vocabs = {"word": Vocab(["<pad>", "<unk>", *words])}

    def features(tokens: list[str]) -> Features:
        return Features(np.zeros((len(tokens), 0), dtype=np.float32), {"word": [t.lower() for t in tokens]})

    return SpanParserNet(config, {"word": len(words) + 2}, 0, 5, 2), vocabs, features


def _pair(features, source: list[str], correction: list[str]):
    from semsim_ucca.span.inference.tree import Spans
    from semsim_ucca.span.training.train import Example, Pair, corresponding_spans
    ex = lambda t: Example("x", t, Spans(len(t), {}), features(t))  # noqa: E731
    return Pair(ex(source), ex(correction), *corresponding_spans(source, correction))


def test_the_loss_is_zero_for_a_sentence_against_itself_and_pulls_only_the_learners_side():
    import torch

    from semsim_ucca.span.training.train import _consistency_loss
    net, vocabs, features = _net()
    rng = np.random.default_rng(0)
    same = _pair(features, ["he", "sees", "the", "apples"], ["he", "sees", "the", "apples"])
    zero = _consistency_loss(net, [same], vocabs, torch.device("cpu"), rng)
    assert float(zero.detach()) == pytest.approx(0, abs=1e-6)
    changed = _pair(features, ["he", "see", "the", "apples"], ["he", "sees", "the", "apples"])
    loss = _consistency_loss(net, [changed], vocabs, torch.device("cpu"), rng)
    assert float(loss.detach()) > 0
    loss.backward()
    # `see` is only in the learner's sentence and `sees` only in the correction: the target carries no gradient
    grad = net.embeddings["word"].weight.grad
    assert grad[vocabs["word"].index("see")].abs().sum() > 0
    assert grad[vocabs["word"].index("sees")].abs().sum() == 0
    assert net.training  # the target is computed without dropout, and training mode comes back


def _corpus(tmp_path):
    for split, items in (("train", TRAINING[:9]), ("dev", TRAINING[9:])):
        (tmp_path / split).mkdir()
        for i, b in enumerate(items):
            (tmp_path / split / f"{split}{i}.xml").write_text(to_xml(b, f"{split}{i}"), encoding="utf-8")
    (tmp_path / "src.txt").write_text("John give Mary a book .\nDogs run fast .\nThe cat sit on mat .\n")
    (tmp_path / "ref.txt").write_text("John gave Mary a book .\nDogs run fast .\nThe cat sat on the mat .\n")


@pytest.mark.slow
def test_training_with_pairs_names_them_and_keeps_their_features(tmp_path):
    from semsim_ucca.span.inference.model import Config
    from semsim_ucca.span.inference.parser import SpanParser
    from semsim_ucca.span.training.train import Corpus, Settings, train
    _corpus(tmp_path)
    config = Config(lstm_dim=8, mlp_dim=8, remote_dim=4, word_dim=4, feat_dim=2, lstm_layers=1, consistency=1.0)
    pairs = ((str(tmp_path / "src.txt"), str(tmp_path / "ref.txt")),)
    settings = Settings(Corpus((str(tmp_path / "train"),)), Corpus((str(tmp_path / "dev"),)), epochs=1, config=config,
                        pairs=pairs)
    model = tmp_path / "m.safetensors"
    train(settings, model, progress=False, log=lambda m: None)
    assert len(list((tmp_path / "m.safetensors.work").glob("prepared-pairs-*.jsonl"))) == 1
    loaded = SpanParser.load(model)
    assert loaded.net.config.consistency == 1.0
    assert loaded.info["pairs_used"] == 2  # the unchanged pair is left out
    assert str(tmp_path / "ref.txt") in loaded.info["pairs"]


@pytest.mark.slow
def test_pairs_must_be_line_aligned_and_consistency_needs_them(tmp_path):
    import subprocess
    import sys
    _corpus(tmp_path)
    (tmp_path / "short.txt").write_text("John gave Mary a book .\n")
    base = [sys.executable, "-m", "semsim.app.cli", "ucca", "train", "--train", str(tmp_path / "train"),
            "--dev", str(tmp_path / "dev"), "--epochs", "1",
            "-q", "-m", str(tmp_path / "m.safetensors"), "--set", "lstm_dim=8", "--set", "mlp_dim=8",
            "--set", "consistency=1"]
    result = subprocess.run(base, capture_output=True, text=True)
    assert result.returncode != 0 and "--pairs" in result.stderr and "Traceback" not in result.stderr
    result = subprocess.run([*base, "--pairs", tmp_path / "src.txt", tmp_path / "short.txt"], capture_output=True,
                            text=True)
    assert result.returncode != 0 and "short.txt: 1 lines, where" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    pairs_only = [*base[:-2], "--pairs", tmp_path / "src.txt", tmp_path / "ref.txt"]
    result = subprocess.run(pairs_only, capture_output=True, text=True)
    assert result.returncode != 0 and "--set consistency=W" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "m.safetensors").exists()


def test_empty_pairs_files_or_pairs_without_a_change_are_refused(tmp_path):
    """#56: empty --pairs files trained as if the objective had not been asked for."""
    from semsim.kernel.errors import SemsimError
    from semsim_ucca.span.training.train import read_pairs
    (tmp_path / "a.txt").write_text("")
    (tmp_path / "b.txt").write_text("")
    (tmp_path / "same.txt").write_text("Dogs run fast .\n")
    with pytest.raises(SemsimError, match=r"^--pairs \S+a\.txt \S+b\.txt: empty files; the consistency objective"):
        read_pairs([(str(tmp_path / "a.txt"), str(tmp_path / "b.txt"))])
    with pytest.raises(SemsimError, match=r"^--pairs \S+same\.txt \S+same\.txt: no pair the correction changed"):
        read_pairs([(str(tmp_path / "same.txt"), str(tmp_path / "same.txt"))])


@pytest.mark.slow
def test_pairs_files_edited_in_place_do_not_resume_the_old_checkpoint(tmp_path):
    """#56: the checkpoint kept the --pairs files' names, and resumed on whatever they held now."""
    from semsim_ucca.span.inference.model import Config
    from semsim_ucca.span.training.train import Corpus, Settings, train
    _corpus(tmp_path)
    config = Config(lstm_dim=8, mlp_dim=8, remote_dim=4, word_dim=4, feat_dim=2, lstm_layers=1, consistency=1.0)
    settings = Settings(Corpus((str(tmp_path / "train"),)), Corpus((str(tmp_path / "dev"),)), epochs=1, config=config,
                        pairs=((str(tmp_path / "src.txt"), str(tmp_path / "ref.txt")),))
    model = tmp_path / "m.safetensors"
    train(settings, model, progress=False, log=lambda m: None)
    settings.epochs = 2
    (tmp_path / "ref.txt").write_text("John gave Mary the book .\nDogs ran fast .\nThe cat sat on a mat .\n")
    with pytest.raises(Exception, match=r"checkpoint\.pt: a run with other --pairs contents \(the files were edited "
                                         r"since\); use another work directory or --restart"):
        train(settings, model, progress=False, log=lambda m: None)
