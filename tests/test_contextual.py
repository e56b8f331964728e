"""``--tokens contextual`` and ``--preset meaning``: graded leaf alignment, graded edge
credit, the preset's expansion and signature, and semsim explain's accounting of both."""

from __future__ import annotations

import dataclasses
import json
import zlib

import numpy as np
import pytest
from click.testing import CliRunner

import semsim
from semsim.app.explain import explain
from semsim.app.metric import USimMetric
from semsim.kernel.align.contextual import FLOOR, contextual_pairs, credits
from semsim.kernel.align.tokens import heaviest_monotone
from semsim.kernel.errors import SettingsError
from semsim.kernel.graph import Edge, Graph, Token, Unit
from semsim.kernel.metrics import settings
from semsim.kernel.metrics.usim import leaf_shares
from semsim.kernel.scheme import Scheme

SCHEME = Scheme("t", label_weights={"F": 0.5, "A": 3})


def flat(text: str, labels: dict[str, str] | None = None) -> Graph:
    """A root over one unit per word, each entered by the word's label (A by default)."""
    words = text.split()
    units = [Unit("root")] + [Unit(f"u{i}", anchors=(i,)) for i in range(len(words))]
    edges = [Edge(0, i + 1, ((labels or {}).get(w, "A"),)) for i, w in enumerate(words)]
    return Graph(tuple(Token(w, punct=w == ".") for w in words), tuple(units), tuple(edges), scheme=SCHEME)


def one_hot(words):
    """Each lower-cased word its own direction (by a fixed hash); ``nearX`` close to ``X``."""
    out = np.zeros((len(words), 65))
    for i, w in enumerate(words):
        base = w.lower().removeprefix("near")
        out[i, zlib.crc32(base.encode()) % 64] = 1.0
        if w.lower().startswith("near"):
            out[i, 64] = 0.5  # cosine 1/sqrt(1.25) = 0.894 with the word itself
    return out


def score(a: str, b: str, labels: dict[str, str] | None = None, **kw):
    return semsim.kernel.metrics.usim.usim(flat(a, labels), flat(b, labels),
                                           settings.Settings(tokens="contextual", **kw),
                                           encoder=one_hot, encoder_name="one-hot@1")


def test_heaviest_monotone_prefers_weight_and_never_crosses():
    w = np.array([[5, 0, 9], [0, 5, 0]])
    assert heaviest_monotone(w, w > 0) == [(0, 0), (1, 1)]  # 5 + 5 beats 9
    w = np.array([[5, 0, 11], [0, 5, 0]])
    assert heaviest_monotone(w, w > 0) == [(0, 2)]  # 11 beats 5 + 5; (1, 1) would cross it
    w = np.array([[0, 7], [7, 0]])
    assert len(heaviest_monotone(w, w > 0)) == 1  # two crossing pairs: one kept


def test_credit_rescales_cosine_and_leaves_punctuation_out():
    c = credits(flat("a b ."), flat("a nearb ."), one_hot)
    assert c[0, 0] == 1.0 and c[2, 2] == 0.0  # punctuation earns nothing, even identical
    assert c[1, 1] == pytest.approx(round((1 / np.sqrt(1.25) - FLOOR) / (1 - FLOOR), 6))
    assert c[0, 1] == 0.0  # orthogonal: below the floor
    assert contextual_pairs(flat("a b ."), flat("a nearb ."), c) == [(0, 0), (1, 1)]


def test_identical_sentences_score_one_and_a_replaced_word_costs_by_its_similarity():
    assert score("a b c", "a b c").f == 1.0
    same, near, far = score("a b c", "a b c").f, score("a b c", "a nearb c").f, score("a b c", "a x c").f
    assert same > near > far
    near_counts = score("a b c", "a nearb c").parts["s->r"]  # the edge into b's unit earns b's credit
    assert 2 < near_counts.matched1 < 3 and near_counts.total1 == 3


def test_swapped_words_stay_unaligned():
    c = credits(flat("john saw mary"), flat("mary saw john"), one_hot)
    assert contextual_pairs(flat("john saw mary"), flat("mary saw john"), c) in ([(0, 2)], [(1, 1)], [(2, 0)])


def test_function_words_leaves_count_half():
    g = flat("the dog barks .", {"the": "F"})
    assert list(leaf_shares(g)) == [0.5, 1.0, 1.0, 0.0]
    lost_function = score("the dog barks", "dog barks", {"the": "F"}, leaves=8)
    lost_content = score("the dog barks", "the barks", {"the": "F"}, leaves=8)
    assert lost_function.f > lost_content.f


def test_scores_are_deterministic():
    assert score("a b c d", "a nearb x d", leaves=8).parts == score("a b c d", "a nearb x d", leaves=8).parts


def test_preset_expands_into_the_settings_and_the_signature(toy_plugin):
    m = semsim.USim(preset="meaning")
    assert (m.tokens, m.labels, m.leaves) == ("contextual", "unlabeled", 8)
    sig = m.get_signature("toy")
    assert "|preset:meaning|" in sig and "|tokens:contextual|ctx:toy-vectors@1|" in sig and "|leaves:8|" in sig
    assert semsim.USim(preset="meaning", tokens="contextual").leaves == 8  # restating the preset's own value
    assert "preset" not in semsim.USim().get_signature("toy")  # the paper's signature as it was


@pytest.mark.parametrize("kw", [{"tokens": "ordered"}, {"labels": "weak"}, {"leaves": 2},
                                # restating the default is still asking for it (#45)
                                {"tokens": "edit"}, {"labels": "labeled"}, {"leaves": 0}])
def test_preset_refuses_a_setting_it_sets_given_otherwise(kw):
    with pytest.raises(SettingsError, match="preset 'meaning' sets"):
        semsim.USim(preset="meaning", **kw)
    with pytest.raises(SettingsError, match="preset 'meaning' sets"):
        USimMetric.Config(preset="meaning", **kw)


@pytest.mark.parametrize("typed", [["--tokens", "edit"], ["--labels", "labeled"], ["--leaves", "0"]])
def test_cli_refuses_a_preset_with_a_setting_the_user_typed_even_at_its_default(toy_env, tmp_path, typed):
    """click knows where a value came from: one typed meets the preset, a default does not."""
    from semsim.app.cli import cli
    a = tmp_path / "a.toy"
    a.write_text(json.dumps({"words": ["the", "dog"], "labels": ["F", "A"]}) + "\n")
    run = CliRunner().invoke(cli, ["usim", str(a), str(a), "--preset", "meaning", *typed])
    assert run.exit_code == 1 and run.output.startswith("Error: preset 'meaning' sets"), run.output
    run = CliRunner().invoke(cli, ["usim", str(a), str(a), "--preset", "meaning", "--variant", "legacy"])
    # the message names what the user gave (the preset), not the settings it filled in
    assert run.exit_code == 1 and run.output.strip() == (
        "Error: --preset meaning: --variant legacy ignores it (only --variant paper uses it)"), run.output
    assert dataclasses.replace(semsim.USim(preset="meaning"), direction="s->r").tokens == "contextual"


def test_preset_is_a_paper_setting():
    # the message names what the caller gave (the preset), not the settings it filled in (#45)
    with pytest.raises(SettingsError, match=r"^preset='meaning': the legacy variant does not use it \(only the "
                                            r"paper variant does\); leave it out$") as caught:
        semsim.USim(variant="legacy", preset="meaning")
    assert caught.value.settings == ("preset",)
    with pytest.raises(SettingsError):
        semsim.USim(preset="best")
    assert "meaning" in settings.PRESETS


def test_explain_counts_the_credits_the_score_counts(toy_plugin):
    from toy_plugin import ToyTree
    a = ToyTree(("the", "Big", "dog", "barks"), ("F", "Big", "A", "P"))
    b = ToyTree(("the", "Large", "cat", "barks"), ("F", "Large", "A", "P"))
    metric = semsim.USim(preset="meaning")
    doc = explain(semsim.app.usim._graph(a), semsim.app.usim._graph(b), metric)  # raises if its counts differ
    assert doc["score"]["f"] == pytest.approx(metric.sentence_score(a, b).f)
    assert len(doc["token_credits"]) == len(doc["token_alignment"])
    rows = [r for r in doc["directions"]["s->r"]["edges"]["source"] if r["compared"]]
    assert all(0.0 <= r["credit"] <= 1.0 for r in rows) and any(r["credit"] == 0.0 for r in rows)


def test_cli_takes_the_preset_and_leaves_8(toy_env, tmp_path):
    from semsim.app.cli import cli
    a, b = tmp_path / "a.toy", tmp_path / "b.toy"
    a.write_text(json.dumps({"words": ["the", "dog", "barks"], "labels": ["F", "A", "P"]}) + "\n")
    b.write_text(json.dumps({"words": ["the", "cat", "barks"], "labels": ["F", "A", "P"]}) + "\n")
    run = CliRunner().invoke(cli, ["usim", str(a), str(b), "--preset", "meaning", "--format", "json"])
    assert run.exit_code == 0, run.output
    assert "preset:meaning" in run.output and "ctx:toy-vectors@1" in run.output
    run = CliRunner().invoke(cli, ["usim", str(a), str(b), "--preset", "meaning", "--tokens", "ordered"])
    assert run.exit_code != 0 and "preset 'meaning' sets tokens='contextual'" in run.output
    assert "Traceback" not in run.output


class Pieced:
    """``one_hot`` with word pieces: a word not in a small vocabulary splits into three."""

    VOCAB = frozenset({"the", "idea", "tracking", "good"})

    def __call__(self, words):
        return one_hot(words)

    def pieces(self, words):
        return [1 if w in self.VOCAB else 3 for w in words]


def test_a_fixed_misspelling_earns_full_credit_and_a_new_one_does_not():
    fix = credits(flat("the iede"), flat("the idea"), Pieced())
    assert fix[1, 1] == 1.0  # iede -> idea: related, and the source splits further
    assert credits(flat("the iede"), flat("the idea"), one_hot)[1, 1] == 0.0  # no pieces: vectors alone
    broken = credits(flat("tracking good"), flat("accking good"), Pieced())
    assert broken[0, 0] == 0.0  # the correction misspelled it: no credit from the rule
    assert credits(flat("the cat"), flat("the idea"), Pieced())[1, 1] == 0.0  # unrelated words: none either
