"""Learner errors injected into gold trees (``--set noise=P``, :mod:`semsim_ucca.span.training.noise`)."""

from __future__ import annotations

import numpy as np
import pytest
from brackets import TRAINING, to_xml

pytestmark = pytest.mark.needs_ucca


def tree(words: list[str], nodes: list[tuple[str, list[int], list[int]]]):
    from semsim_ucca.span.inference.tree import Node, Tree
    return Tree(words, [Node(label, children, terminals) for label, children, terminals in nodes])


# "He gave the apple to John ." : ROOT -> H -> (A He, P gave, A (F the, C apple), A (R to, C John)), U .
FIG = tree(["He", "gave", "the", "apple", "to", "John", "."],
           [("ROOT", [1, 9], []), ("H", [2, 3, 4, 7], []), ("A", [], [0]), ("P", [], [1]), ("A", [5, 6], []),
            ("F", [], [2]), ("C", [], [3]), ("A", [8, 10], []), ("R", [], [4]), ("U", [], [6]), ("C", [], [5])])
TAGS = ["PRP", "VBD", "DT", "NN", "IN", "NNP", "."]


def test_the_rates_come_from_learner_data_with_their_hash():
    from semsim_ucca.span.training import noise
    table, sha = noise.rates()
    assert set(table) >= {"R:SPELL", "M:DET", "R:PREP", "R:NOUN:NUM"} and all(0 < r < 0.1 for r in table.values())
    assert len(sha) == 64


def test_a_deleted_article_takes_its_unit_and_keeps_every_other():
    from semsim_ucca.span.inference.tree import tree_to_spans
    from semsim_ucca.span.training.noise import inject
    out = inject(FIG, TAGS, np.random.default_rng(0), {"M:DET": 1.0})
    assert out.tokens == ["He", "gave", "apple", "to", "John", "."]
    spans = tree_to_spans(out).labels
    # the article's F unit is gone; "apple" is left alone in its A unit (a chain: A over C); the rest shifts
    assert (2, 3) in spans and spans[(2, 3)] == "A/C" and spans[(3, 5)] == "A" and "F" not in spans.values()
    assert spans[(0, 6)].startswith("ROOT")


def test_substitutions_keep_the_gold_structure():
    from semsim_ucca.span.inference.tree import tree_to_spans
    from semsim_ucca.span.training.noise import inject
    for kind, expect in (("R:NOUN:NUM", "apples"), ("R:DET", None), ("R:PREP", None), ("R:SPELL", None)):
        out = inject(FIG, TAGS, np.random.default_rng(1), {kind: 1.0})
        assert len(out.tokens) == len(FIG.tokens) and out.tokens != FIG.tokens, kind
        assert set(tree_to_spans(out).labels.items()) == set(tree_to_spans(FIG).labels.items()), kind
        if expect:
            assert expect in out.tokens


def test_injection_is_seeded_and_never_empties_a_sentence():
    from semsim_ucca.span.training.noise import inject
    every = {k: 1.0 for k in ("M:DET", "M:PREP", "M:PUNCT", "R:SPELL")}
    a = inject(FIG, TAGS, np.random.default_rng(5), every)
    assert a.tokens == inject(FIG, TAGS, np.random.default_rng(5), every).tokens
    only = tree(["the"], [("ROOT", [1], []), ("F", [], [0])])
    assert inject(only, ["DT"], np.random.default_rng(0), {"M:DET": 1.0}).tokens == ["the"]


def test_calibration_gives_each_kind_its_rate_where_it_applies():
    from semsim_ucca.span.training.noise import calibrate
    # 7 tokens, one article: an article error at 1 in 70 tokens is 1 in 10 articles
    assert calibrate([FIG], [TAGS], {"M:DET": 1 / 70})["M:DET"] == pytest.approx(0.1)
    assert calibrate([FIG], [TAGS], {"M:DET": 0.5})["M:DET"] == 0.5  # capped
    assert calibrate([FIG], [TAGS], {"R:VERB:SVA": 0.01})["R:VERB:SVA"] == 0.0  # no present-tense verb here


def test_noise_is_a_checked_setting():
    from semsim_ucca.span.inference.model import Config
    assert Config(noise=0.5).noise == 0.5
    with pytest.raises(ValueError, match="noise"):
        Config(noise=1.5)


@pytest.mark.slow
def test_training_with_noise_sees_noisy_copies_and_names_the_rates(tmp_path):
    from semsim_ucca.span.inference.model import Config
    from semsim_ucca.span.inference.parser import SpanParser
    from semsim_ucca.span.training import noise
    from semsim_ucca.span.training.train import Corpus, Settings, train
    for split, items in (("train", TRAINING[:9]), ("dev", TRAINING[9:])):
        (tmp_path / split).mkdir()
        for i, b in enumerate(items):
            (tmp_path / split / f"{split}{i}.xml").write_text(to_xml(b, f"{split}{i}"), encoding="utf-8")
    config = Config(lstm_dim=8, mlp_dim=8, remote_dim=4, word_dim=4, feat_dim=2, lstm_layers=1, noise=0.5)
    settings = Settings(Corpus((str(tmp_path / "train"),)), Corpus((str(tmp_path / "dev"),)), epochs=1, config=config)
    model = tmp_path / "m.safetensors"
    train(settings, model, progress=False, log=lambda m: None)
    work = tmp_path / "m.safetensors.work"
    assert len(list(work.glob("prepared-noisy-*.jsonl"))) == 1  # the noisy copies, prepared once
    loaded = SpanParser.load(model)
    assert loaded.info["learner_errors_sha256"] == noise.rates()[1]
    assert loaded.net.config.noise == 0.5
