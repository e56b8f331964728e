"""The §4.4 remedies as named USim options: lexically-aware token alignment (``tokens``) and
top-weighted edges (``edge_weights``); and the leaf edges (``leaves``). The paper variant's
own numbers are held elsewhere (test_usim_paper, the plugins' reference tests); here: what each option changes, that it
refuses what it would ignore, and that explain and the signature show it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from figure1 import correction, source

import semsim
from semsim import Unit, USim, build_graph
from semsim.app.explain import explain
from semsim.kernel.align.tokens import align_tokens, related
from semsim.kernel.errors import SettingsError
from semsim.kernel.metrics.settings import SETTINGS
from semsim.kernel.scheme import Scheme

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SCHEME = Scheme("toy", label_weights={"A": 3, "P": 3, "F": 0.5})


def scene(words: list[str], scheme: Scheme = SCHEME):
    """[H [A w0] [P w1] [A [F w2] [C w3]]] (the object phrase optional)."""
    units = [Unit("root"), Unit("scene"), Unit("a0", anchors=(0,)), Unit("p", anchors=(1,))]
    edges = [(0, 1, "H"), (1, 2, "A"), (1, 3, "P")]
    if len(words) == 3:
        units.append(Unit("a1", anchors=(2,)))
        edges.append((1, 4, "A"))
    elif len(words) == 4:
        units += [Unit("obj"), Unit("f", anchors=(2,)), Unit("c", anchors=(3,))]
        edges += [(1, 4, "A"), (4, 5, "F"), (4, 6, "C")]
    return build_graph(words, units, edges, scheme=scheme)


def test_related_tokens_are_misspellings_and_inflections_not_other_words():
    assert related("iede", "idea") and related("gva", "gave") and related("child", "children")
    assert not related("idea", "iron") and not related("the", "a") and not related("is", "was")


def test_lexical_alignment_keeps_misspellings_and_drops_unrelated_words():
    src, fixed = ["He", "gva", "the", "iede"], ["He", "gave", "the", "idea"]
    assert align_tokens(src, fixed, "lexical") == align_tokens(src, fixed) == [(0, 0), (1, 1), (2, 2), (3, 3)]
    assert (1, 1) in align_tokens(["the", "idea"], ["the", "iron"])  # the paper's: they share an "i"
    assert align_tokens(["the", "idea"], ["the", "iron"], "lexical") == [(0, 0)]


def test_an_unrelated_replacement_is_unaligned_and_costs_its_edges():
    a, b = scene(["He", "saw", "the", "idea"]), scene(["He", "saw", "the", "iron"])
    assert semsim.usim(a, b).f == 1.0  # the paper's alignment pairs idea with iron
    lexical = semsim.usim(a, b, tokens="lexical")
    assert lexical.f < 1.0
    doc = explain(a, b, USim(tokens="lexical"))
    c_edge = doc["directions"]["s->r"]["edges"]["source"][5]
    assert not c_edge["matched"] and c_edge["reason"] == "child unaligned (no token of its yield is aligned)"
    assert doc["unaligned_tokens"]["source"] == [
        {"token": 3, "text": "idea", "reason": "no lexically related token in the other sentence"}]


def test_a_misspelling_fix_scores_as_with_the_paper_alignment():
    for tokens in ("lexical", "ordered"):
        fixed = semsim.usim(scene(["He", "gva", "the", "iede"]), scene(["He", "gave", "the", "idea"]), tokens=tokens)
        assert fixed.f == 1.0
    assert semsim.usim(source(), correction(), tokens="lexical").parts == semsim.usim(source(), correction()).parts


def test_only_the_ordered_alignment_tells_swapped_arguments():
    a, b = scene(["John", "saw", "Mary"]), scene(["Mary", "saw", "John"])
    assert semsim.usim(a, b).f == semsim.usim(a, b, tokens="lexical").f == 1.0  # both are A: UCCA cannot tell
    assert semsim.usim(a, b, tokens="ordered").f < 1.0
    assert semsim.usim(a, a, tokens="ordered").f == 1.0


@pytest.mark.parametrize("weights", ["height", "scheme", "capped"])
def test_weighted_edges_make_a_lost_participant_cost_more_than_a_lost_function_word(weights):
    full = scene(["He", "saw", "the", "idea"])
    no_function_word = build_graph(["He", "saw", "idea"], [Unit("root"), Unit("scene"), Unit("a0", anchors=(0,)),
                                                          Unit("p", anchors=(1,)), Unit("obj", anchors=(2,))],
                                   [(0, 1, "H"), (1, 2, "A"), (1, 3, "P"), (1, 4, "A")], scheme=SCHEME)
    no_object = scene(["He", "saw"])
    for metric in (USim(), USim(edge_weights=weights)):
        assert metric.sentence_score(full, full).f == 1.0

    def share_of_the_objects_loss(metric: USim) -> float:
        """What losing "the" costs the source side, as a share of what losing "the idea" does."""
        lost = [1 - metric.sentence_score(full, b).parts["s->r"].precision for b in (no_function_word, no_object)]
        return lost[0] / lost[1]
    assert share_of_the_objects_loss(USim(edge_weights=weights)) < share_of_the_objects_loss(USim())


def test_weighted_counts_are_sums_of_weights():
    full, no_object = scene(["He", "saw", "the", "idea"]), scene(["He", "saw"])
    counts = USim(edge_weights="scheme").sentence_score(full, no_object).parts["s->r"]
    # source edges: H 1, A 3, P 3, A 3 (the object), F 0.5, C 1; the object's three are lost
    assert (counts.matched1, counts.total1) == (7.0, 11.5)
    height = USim(edge_weights="height").sentence_score(full, no_object).parts["s->r"]
    assert (height.matched1, height.total1) == (1 + 2 + 1 + 1, 3 + 1 + 1 + 2 + 1 + 1)


def test_scheme_weights_are_refused_for_a_scheme_without_them():
    plain = scene(["He", "saw", "the", "idea"], Scheme("plain"))
    with pytest.raises(SettingsError, match="declares no label weights"):
        semsim.usim(plain, plain, edge_weights="scheme")
    assert semsim.usim(plain, plain, edge_weights="height").f == 1.0


def test_leaf_edges_count_every_token_matched_when_aligned():
    a, b = scene(["He", "saw", "the", "idea"]), scene(["He", "saw", "the", "iron"])
    plain = USim(tokens="ordered").sentence_score(a, b).parts["s->r"]
    counts = USim(tokens="ordered", leaves=2).sentence_score(a, b).parts["s->r"]
    # four tokens a side, three aligned (iron is no idea): 2 x 3 matched of 2 x 4, on each side
    assert (counts.matched1 - plain.matched1, counts.total1 - plain.total1) == (6, 8)
    assert (counts.matched2 - plain.matched2, counts.total2 - plain.total2) == (6, 8)
    assert USim(leaves=2).sentence_score(a, a).f == 1.0


def test_a_leaf_is_lost_only_where_the_alignment_drops_its_token():
    """The leaf edges follow A_l: the paper's alignment pairs idea with iron, so no leaf is
    lost; the ordered one leaves iron out; a misspelling stays aligned under both."""
    from semsim.kernel.stats import Counts
    a, b = scene(["He", "saw", "the", "idea"]), scene(["He", "saw", "the", "iron"])
    for tokens, aligned in (("edit", 4), ("ordered", 3)):
        without = USim(tokens=tokens).sentence_score(a, b).parts
        with_leaves = USim(tokens=tokens, leaves=2).sentence_score(a, b).parts
        assert with_leaves == {d: c + Counts(2 * aligned, 8, 2 * aligned, 8) for d, c in without.items()}
    fixed = semsim.usim(scene(["He", "gva", "the", "iede"]), scene(["He", "gave", "the", "idea"]),
                        tokens="ordered", leaves=2)
    assert fixed.f == 1.0


def test_leaf_edges_leave_punctuation_out_as_the_alignment_does():
    from semsim.kernel.align.tokens import paper_token_pairs
    from semsim.kernel.metrics.usim import leaf_counts
    g = semsim.read(EXAMPLES / "fig1-source.xml")
    punct = sum(t.punct for t in g.tokens)
    assert punct and leaf_counts(g, g, paper_token_pairs(g, g), 3).total1 == 3 * (len(g.tokens) - punct)


def test_explain_shows_the_leaf_edges_and_checks_them_against_the_score():
    from semsim.app.explain import render_html, summary
    a, b = scene(["He", "saw", "the", "idea"]), scene(["He", "saw", "the", "iron"])
    assert "leaves" not in explain(a, b, USim(tokens="ordered"))
    doc = explain(a, b, USim(tokens="ordered", leaves=2))  # raises if its counts differ from the score's
    assert doc["leaves"] == {"weight": 2, "source": 4, "correction": 4, "aligned": 3}
    assert doc["settings"]["leaves"] == "2"
    note = "leaf edges (weight 2): 3 of 4 source and 3 of 4 correction tokens aligned"
    assert note in summary(doc, width=200) and note in render_html(doc)
    assert "3 of 6 source edges unmatched" in render_html(doc)  # the edges, without the leaves (counts: 14)


@pytest.mark.parametrize("settings", [{"tokens": "lexical"}, {"edge_weights": "height"},
                                      {"tokens": "ordered", "edge_weights": "scheme"}, {"leaves": 2}])
def test_the_legacy_variant_refuses_the_remedies(settings):
    with pytest.raises(SettingsError, match="the legacy variant does not use"):
        USim(variant="legacy", **settings)


@pytest.mark.parametrize("name,value", [("tokens", "semantic"), ("edge_weights", "depth"), ("leaves", 5),
                                        ("leaves", 2.0), ("leaves", True), ("leaves", "2")])
def test_unknown_values_are_refused(name, value):
    with pytest.raises(SettingsError, match=f"unknown {name}"):
        USim(**{name: value})


def test_signatures_name_the_remedies_only_when_used():
    default = USim().get_signature("ucca")
    assert "tokens" not in default and "weights" not in default
    sig = USim(tokens="ordered", edge_weights="height").get_signature("ucca")
    assert "|tokens:ordered|weights:height|scheme:ucca@" in sig
    assert "|tokens:ordered|leaves:2|scheme:ucca@" in USim(tokens="ordered", leaves=2).get_signature("ucca")
    a = scene(["He", "saw", "the", "idea"])
    assert str(semsim.usim(a, a, tokens="ordered", edge_weights="height").signature).startswith(sig.split("|scheme")[0])


def test_explain_shows_what_each_edge_weighed_and_nothing_new_by_default():
    a, b = scene(["He", "saw", "the", "idea"]), scene(["He", "saw"])
    plain = explain(a, b)
    assert "unaligned_tokens" not in plain and "tokens" not in plain["settings"]
    assert all("weight" not in row for row in plain["directions"]["s->r"]["edges"]["source"])
    doc = explain(a, b, USim(edge_weights="scheme", tokens="lexical"))
    assert doc["settings"]["edge_weights"] == "scheme" and doc["settings"]["tokens"] == "lexical"
    rows = doc["directions"]["s->r"]["edges"]["source"]
    assert [r.get("weight") for r in rows] == [1.0, 3.0, 3.0, 3.0, 0.5, 1.0]
    assert doc["directions"]["s->r"]["counts"]["total1"] == 11.5


@pytest.mark.parametrize("pair", [(f"fig1-source.{x}", f"fig1-correction.{x}") for x in ("xml", "amr")])
@pytest.mark.parametrize("tokens", ["lexical", "ordered", "paraphrase"])
@pytest.mark.parametrize("weights", ["height", "scheme"])
@pytest.mark.parametrize("leaves", [0, 2])
def test_every_remedy_works_on_every_representation(pair, tokens, weights, leaves):
    src, cor = (EXAMPLES / p for p in pair)
    metric = USim(tokens=tokens, edge_weights=weights, leaves=leaves)
    assert metric.sentence_score(src, src).f == 1.0
    assert 0.0 < metric.sentence_score(src, cor).f < 1.0
    explain(semsim.read(src), semsim.read(cor), metric)  # checks its own counts against the score's


@pytest.mark.slow
def test_cli_options_and_their_refusal():
    run = [sys.executable, "-m", "semsim", "usim", *(str(EXAMPLES / f"fig1-{s}.xml") for s in ("source", "correction"))]
    r = subprocess.run([*run, "--tokens", "ordered", "--edge-weights", "scheme", "--format", "json"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "tokens:ordered|weights:scheme" in json.loads(r.stdout)["pairs"][0]["signature"]
    r = subprocess.run([*run, "--variant", "legacy", "--tokens", "lexical"], capture_output=True, text=True)
    assert r.returncode != 0 and r.stderr.strip().splitlines()[-1].endswith(
        "--tokens lexical: --variant legacy ignores it (only --variant paper uses it)")


def test_the_gec_metrics_config_has_every_setting_flat_with_its_default():
    """gec-metrics reads a config from flat YAML fields: USimMetric.Config has one per setting."""
    import dataclasses

    from semsim.app.metric import USimMetric
    config = {f.name: f.default for f in dataclasses.fields(USimMetric.Config)}
    assert {s.name: s.default for s in SETTINGS}.items() <= config.items()
    assert USimMetric.Config(labels="weak").usim == USim(labels="weak")


def test_the_docs_option_table_is_the_settings_table():
    from semsim.kernel.metrics.settings import markdown_table
    usage = (Path(__file__).resolve().parents[1] / "docs" / "usage.md").read_text(encoding="utf-8")
    assert markdown_table() in usage


@pytest.mark.parametrize("setting", [s for s in SETTINGS if s.name != "variant"], ids=lambda s: s.name)
def test_every_setting_of_the_table_reaches_the_signature(setting):
    """The signature is written by each variant's metric; no setting of the table may be
    missing from it, or two different scores would share one signature."""
    values = list(setting.choices) or list(setting.words.values()) or [not setting.default]
    for value in values:
        if value == setting.default:
            continue
        # a value that needs another setting (no unit edges: the leaves alone) gets it on both sides
        needs = {"leaves": 1} if (setting.name, value) == ("edge_weights", "none") else {}
        base = USim(variant=setting.variant or "paper", **needs)
        other = USim(**{"variant": setting.variant or "paper", **needs, setting.name: value})
        assert other.get_signature() != base.get_signature(), (setting.name, value)


def test_the_ordered_alignment_prefers_more_pairs_to_closer_ones():
    """Five related pairs outweigh four equal ones that cross them."""
    a = ["ab", "cd", "ef", "gh", "ij", "X1", "X2", "X3", "X4"]
    b = ["X1", "X2", "X3", "X4", "ax", "cx", "ex", "gx", "ix"]
    assert align_tokens(a, b, "ordered") == [(0, 4), (1, 5), (2, 6), (3, 7), (4, 8)]


def test_the_lexical_alignment_minimises_the_distance_of_related_pairs_only():
    """Unrelated pairs all cost the same, so their own distances cannot steer the choice."""
    from rapidfuzz.distance import Levenshtein
    a, b = ["ac", "d", "ddba"], ["adda", "cbac", "a"]
    pairs = align_tokens(a, b, "lexical")
    assert all(related(a[i].lower(), b[j].lower()) for i, j in pairs)
    assert sum(Levenshtein.distance(a[i], b[j]) for i, j in pairs) == 3 and len(pairs) == 2


@pytest.mark.parametrize("value", [0, 1, 1.0, "yes"])
def test_yes_no_settings_take_booleans_only(value):
    with pytest.raises(SettingsError, match="unknown remote"):
        USim(remote=value)


def test_dice_aligns_a_unit_with_the_counterpart_saying_most_nearly_the_same():
    from semsim.kernel.align.units import align_units, dice_alignment
    # v0 covers 3 aligned tokens; u0 covers 2 of them, u1 all 3 and a fourth
    overlap, size1, size2 = np.array([[2.0, 3.0]]), np.array([3.0]), np.array([2.0, 4.0])
    # §3's w: u0 lies wholly inside v0 (w = 1), u1 does not (3/4)
    assert align_units(overlap, size1, size2, "all").tolist() == [[True, False]]
    # Dice: u0 2·2/5 = 0.8 lacks a third of v0, u1 2·3/7 = 0.857 has one token more
    a = dice_alignment(overlap, size1, size2, (((0, 1),), ((0, 1), (1, 1))), ((1,), (1, 1)))
    assert a.tolist() == [[True, True]]  # v0 chose u1; u0's own best is v0, the only unit there is
    # a counterpart no edge of a shared label enters is never chosen
    b = dice_alignment(overlap, size1, size2, (((0, 1),), ()), ((1,), (1, 0)))
    assert b.tolist() == [[True, False]]


def test_dice_is_one_relation_in_both_directions_and_keeps_identical_graphs_at_one():
    src, cor = (semsim.read(EXAMPLES / f"fig1-{x}.xml") for x in ("source", "correction"))
    metric = USim(tokens="lexical", units="dice")
    assert metric.sentence_score(src, src).f == 1.0
    parts = metric.sentence_score(src, cor).parts
    assert parts["s->r"] == parts["r->s"]
    doc = explain(src, cor, metric)  # checks its own counts against the score's
    pairs = doc["directions"]["s->r"]["unit_alignment"]
    assert pairs and all(0 < p["dice"] <= 1 and "w" not in p for p in pairs)


def test_no_unit_edges_leaves_the_leaves_alone():
    """``edge_weights="none"``: the ablation that says what the units add. Its counts are
    exactly the leaf edges' (:func:`leaf_counts` on the same alignment), whatever the units
    say, and it is refused without leaves, where nothing would be compared."""
    from semsim.kernel.metrics.settings import Settings
    from semsim.kernel.metrics.usim import leaf_alignment, leaf_counts
    src, cor = (semsim.read(EXAMPLES / f"fig1-{x}.xml") for x in ("source", "correction"))
    metric = USim(tokens="lexical", leaves=2, edge_weights="none")
    pairs, _ = leaf_alignment(src, cor, Settings(tokens="lexical"))
    expected = leaf_counts(src, cor, pairs, 2)
    score = metric.sentence_score(src, cor)
    assert all(part == expected for part in score.parts.values())
    assert score.f == expected.f < USim(tokens="lexical", leaves=2).sentence_score(src, src).f == 1.0
    # the units do not enter: a correction whose units differ but whose tokens are the same scores 1
    flat = build_graph(["He", "saw", "the", "idea"], [Unit("root", anchors=(0, 1, 2, 3))], [], scheme=SCHEME)
    assert USim(leaves=1, edge_weights="none").sentence_score(scene(["He", "saw", "the", "idea"]), flat).f == 1.0
    assert USim(leaves=1).sentence_score(scene(["He", "saw", "the", "idea"]), flat).f < 1.0
    assert "|weights:none|" in metric.get_signature()
    # the explanation checks its counts against the score's, and lists no unit edge as a miss
    from semsim.app.explain.misses import misses
    doc = explain(src, cor, metric)
    assert all(not m for d in ("s->r", "r->s") for m in misses(doc, d).values())
    assert misses(explain(src, cor, USim(tokens="lexical", leaves=2)), "s->r")["source"]
    with pytest.raises(SettingsError, match="edge_weights='none' counts no unit edge"):
        USim(edge_weights="none")
    from support import run_cli
    r = run_cli("usim", EXAMPLES / "fig1-source.xml", EXAMPLES / "fig1-correction.xml", "--edge-weights", "none")
    assert r.exit_code != 0 and "counts no unit edge" in r.output and "variant" not in r.output


def test_capped_weights_are_what_a_leaf_weighs_and_need_no_declared_weights():
    full, no_object = scene(["He", "saw", "the", "idea"]), scene(["He", "saw"])
    counts = USim(edge_weights="capped").sentence_score(full, no_object).parts["s->r"]
    # source edges: H 1, A 1, P 1, A 1 (the object), F 0.5, C 1; the object's three are lost
    assert (counts.matched1, counts.total1) == (3.0, 5.5)
    # a scheme without weights: every edge 1, as every leaf is (the preset works on any representation)
    plain, short = scene(["He", "saw", "the", "idea"], Scheme("plain")), scene(["He", "saw"], Scheme("plain"))
    capped = semsim.usim(plain, short, edge_weights="capped")
    assert capped.f == semsim.usim(plain, short).f < 1.0 and "weights:capped" in capped.signature.format()
