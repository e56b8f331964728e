"""``--order scenes|splits`` (semsim/kernel/align/moves.py): a scene that moved keeps its credit
wherever it stands, swapped participants inside one scene still cost what they change, and a
split-off sentence's restated participant counts on neither side. Hand-made graphs: no parser."""

from __future__ import annotations

import pytest

import semsim
from semsim import Unit, USim, build_graph
from semsim.app.explain import explain
from semsim.kernel.align.moves import moved_scenes, restated, scenes
from semsim.kernel.align.tokens import related_matrix
from semsim.kernel.errors import SettingsError
from semsim.kernel.metrics.settings import PRESETS, Settings
from semsim.kernel.metrics.usim import leaf_alignment
from semsim.kernel.scheme import Scheme

SCHEME = Scheme("toy", label_groups={"Scene": ("P", "S")}, label_weights={"A": 3, "P": 3, "F": 0.5})
NO_SCENES = Scheme("flat", label_weights={"A": 3, "P": 3})


def passage(*clauses: list[tuple[str, str]], scheme: Scheme = SCHEME):
    """A root over one H scene per clause; a clause is (label, words) children, each one unit
    over its words."""
    words: list[str] = []
    units = [Unit("root")]
    edges: list[tuple[int, int, str]] = []
    for k, clause in enumerate(clauses):
        units.append(Unit(f"s{k}"))
        s = len(units) - 1
        edges.append((0, s, "H"))
        for label, text in clause:
            ids = tuple(range(len(words), len(words) + len(text.split())))
            words += text.split()
            units.append(Unit(f"s{k}{label}{len(units)}", anchors=ids))
            edges.append((s, len(units) - 1, label))
    return build_graph(words, units, edges, scheme=scheme)


MAYOR = [("A", "the mayor"), ("P", "signed"), ("A", "the new law")]
COMMITTEE = [("A", "the committee"), ("P", "approved"), ("A", "the budget plan")]


def test_scenes_are_the_parents_of_the_schemes_scene_labels():
    g = passage(MAYOR, COMMITTEE)
    assert scenes(g) == [1, 5]
    assert scenes(passage(MAYOR, COMMITTEE, scheme=NO_SCENES)) == []


def test_a_moved_scene_keeps_its_credit_only_under_order_scenes():
    a, b = passage(MAYOR, COMMITTEE), passage(COMMITTEE, MAYOR)
    kept = semsim.usim(a, b, tokens="ordered")
    moved = semsim.usim(a, b, tokens="ordered", order="scenes")
    assert kept.f < 0.7  # the order-keeping alignment leaves one whole clause out
    assert moved.f == 1.0
    pairs, _ = leaf_alignment(a, b, Settings(tokens="ordered", order="scenes"))
    assert len(pairs) == len(a.tokens)


def test_swapped_participants_inside_one_scene_still_cost_what_they_change():
    a = passage([("A", "the old man"), ("P", "saw"), ("A", "the young girl")])
    b = passage([("A", "the young girl"), ("P", "saw"), ("A", "the old man")])
    for order in ("scenes", "splits"):
        assert semsim.usim(a, b, tokens="ordered", order=order).parts == semsim.usim(a, b, tokens="ordered").parts
        assert semsim.usim(a, b, tokens="ordered", order=order).f < 1.0


def test_a_scheme_without_scenes_moves_nothing():
    a, b = passage(MAYOR, COMMITTEE, scheme=NO_SCENES), passage(COMMITTEE, MAYOR, scheme=NO_SCENES)
    assert semsim.usim(a, b, tokens="ordered", order="splits").f == semsim.usim(a, b, tokens="ordered").f


def test_a_restated_participant_counts_on_neither_side_under_order_splits():
    a = passage([("A", "Gomaespuma"), ("S", "was"), ("A", "a radio show")], [("P", "hosted"), ("A", "by Cano")])
    b = passage([("A", "Gomaespuma"), ("S", "was"), ("A", "a radio show")],
                [("A", "Gomaespuma"), ("P", "hosted"), ("A", "by Cano")])
    pairs, _ = leaf_alignment(a, b, Settings(tokens="ordered"))
    assert restated(a, b, pairs, related_matrix(a, b)) == (frozenset(), frozenset({5}))
    kept = semsim.usim(a, b, tokens="ordered", leaves=1, denominator="aligned")
    assert kept.f < 1.0  # the second mention is new content to the paper
    assert semsim.usim(a, b, tokens="ordered", leaves=1, denominator="aligned", order="scenes").parts == kept.parts
    # (w's denominator counts aligned words only, as the presets' does: the restated word is in no yield)
    assert semsim.usim(a, b, tokens="ordered", leaves=1, denominator="aligned", order="splits").f == 1.0


def test_a_new_participant_is_not_excused_as_restated():
    a = passage([("A", "Gomaespuma"), ("S", "was"), ("A", "a radio show")], [("P", "hosted"), ("A", "by Cano")])
    b = passage([("A", "Gomaespuma"), ("S", "was"), ("A", "a radio show")],
                [("A", "Spain"), ("P", "hosted"), ("A", "by Cano")])
    assert semsim.usim(a, b, tokens="ordered", order="splits").parts == semsim.usim(a, b, tokens="ordered").parts


def test_moved_scenes_is_deterministic_and_keeps_the_base_pairs():
    a, b = passage(MAYOR, COMMITTEE), passage(COMMITTEE, MAYOR)
    credit = related_matrix(a, b)
    base, _ = leaf_alignment(a, b, Settings(tokens="ordered"))
    out = moved_scenes(a, b, base, credit)
    assert set(base) <= set(out) and out == sorted(out)
    assert moved_scenes(a, b, list(reversed(base)), credit) == out
    assert len({x for x, _ in out}) == len(out) == len({y for _, y in out})  # still one to one


def test_the_preset_and_the_signature_name_the_order():
    assert PRESETS["meaning-splits"] == {**PRESETS["meaning"], "order": "splits"}
    assert USim(preset="meaning-splits").order == "splits"
    assert "|order:splits|" in USim(tokens="ordered", order="splits").get_signature()
    assert "order" not in USim().get_signature()  # the paper's signature is unchanged
    with pytest.raises(SettingsError):
        USim(preset="meaning-splits", order="kept")
    with pytest.raises(SettingsError):
        USim(order="sideways")


def test_explain_shows_the_restated_words_and_its_counts_are_the_scores():
    a = passage([("A", "Gomaespuma"), ("S", "was"), ("A", "a radio show")], [("P", "hosted"), ("A", "by Cano")])
    b = passage([("A", "Gomaespuma"), ("S", "was"), ("A", "a radio show")],
                [("A", "Gomaespuma"), ("P", "hosted"), ("A", "by Cano")])
    metric = USim(tokens="ordered", order="splits", leaves=1, denominator="aligned")
    doc = explain(a, b, metric)  # raises if its counts differ from the metric's
    assert doc["restated_tokens"] == {"source": [], "correction": [5]}
    assert doc["score"]["f"] == metric.sentence_score(a, b).f == 1.0
