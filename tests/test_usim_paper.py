"""USim, paper definition: Figure 1, tie-breaks, identities."""

from __future__ import annotations

import pytest
from figure1 import correction, source

import semsim
from semsim import Unit, build_graph
from semsim.kernel.align.tokens import paper_token_pairs
from semsim.kernel.errors import SettingsError
from semsim.kernel.metrics import usim as kernel
from semsim.kernel.metrics.legacy import usim_legacy
from semsim.kernel.metrics.settings import Settings


def usim(g1, g2, **settings):
    """The kernel's paper USim, under the settings given by name."""
    return kernel.usim(g1, g2, Settings(**settings))


def counts(score, part):
    c = score.parts[part]
    return c.matched1, c.total1, c.matched2, c.total2


def test_figure1_token_alignment():
    # He-He, gva-gave, an-an, apple-apple, john-John; "for" has no counterpart
    assert sorted(paper_token_pairs(source(), correction())) == [(0, 0), (1, 1), (2, 3), (3, 4), (5, 2)]


def test_figure1_source_to_correction_is_7_of_9_and_7_of_7():
    s = usim(source(), correction())
    assert counts(s, "s->r") == (7, 9, 7, 7)
    assert s.parts["s->r"].precision == pytest.approx(7 / 9)
    assert s.parts["s->r"].recall == 1.0


def test_figure1_correction_to_source_literal_weight():
    # The correction's scene contains every aligned token but the source's scene has the
    # unaligned "for": w = 5/6 < 1, so the literal w aligns it to a smaller unit and the
    # H edge is lost, as is John->john (C, not A). No tie-break can change this.
    for tie_break in ("coverage", "all", "first"):
        assert counts(usim(source(), correction(), tie_break=tie_break), "r->s")[1::2] == (9, 7)
    assert counts(usim(source(), correction()), "r->s") == (5, 9, 5, 7)


def test_figure1_aligned_denominator_passes_both_directions():
    s = usim(source(), correction(), denominator="aligned")
    assert counts(s, "s->r") == counts(s, "r->s") == (7, 9, 7, 7)


def test_first_in_order_tie_break_fails_figure1():
    assert counts(usim(source(), correction(), tie_break="first"), "s->r") != (7, 9, 7, 7)


@pytest.mark.parametrize("settings", [{}, {"tie_break": "all"}, {"labels": "weak"},
                                      {"by_sentence": False}, {"denominator": "aligned"}, {"variant": "legacy"}])
def test_identical_graphs_score_exactly_one(settings):
    for g in (source(), correction()):
        assert semsim.usim(g, g, **settings).f == 1.0


def test_first_in_order_tie_break_fails_even_identity():
    # the root and the scene have the same yield; the root comes first and has no H edge
    assert usim(source(), source(), tie_break="first").f < 1.0


def test_directions_and_average():
    both = usim(source(), correction())
    assert both.f == pytest.approx((both.parts["s->r"].f + both.parts["r->s"].f) / 2)
    assert list(usim(source(), correction(), direction="s->r").parts) == ["s->r"]
    with pytest.raises(ValueError):
        usim(source(), correction(), direction="sideways")


def test_each_variant_takes_one_settings_object_of_its_own():
    with pytest.raises(SettingsError, match="computes the paper variant"):
        kernel.usim(source(), correction(), Settings(variant="legacy"))
    with pytest.raises(SettingsError, match="computes the legacy variant"):
        usim_legacy(source(), correction(), Settings())
    assert usim_legacy(source(), source(), Settings(variant="legacy")).f == 1.0


def test_swapping_arguments_swaps_directions():
    a, b = usim(source(), correction()), usim(correction(), source())
    for x, y in (("s->r", "r->s"), ("r->s", "s->r")):
        ca, cb = a.parts[x], b.parts[y]
        assert (ca.matched1, ca.total1, ca.matched2, ca.total2) == (cb.matched2, cb.total2, cb.matched1, cb.total1)


def test_labels_modes():
    g1 = build_graph(["run"], [Unit("r"), Unit("x", anchors=(0,))], [(0, 1, "P")])
    g2 = build_graph(["run"], [Unit("r"), Unit("x", anchors=(0,))], [(0, 1, "S")])
    assert usim(g1, g2).f == 0.0
    assert usim(g1, g2, labels="unlabeled").f == 1.0
    # no equivalences in the plain scheme: weak == exact
    assert usim(g1, g2, labels="weak").f == 0.0


def test_multi_label_edges_match_on_any_shared_label():
    g1 = build_graph(["a"], [Unit("r"), Unit("x", anchors=(0,))], [(0, 1, ("A", "P"))])
    g2 = build_graph(["a"], [Unit("r"), Unit("x", anchors=(0,))], [(0, 1, "A")])
    assert usim(g1, g2).f == 1.0


def test_implicit_units_are_not_compared_and_do_not_break_identity():
    g = build_graph(["a", "b"], [Unit("r"), Unit("x", anchors=(0, 1)), Unit("imp", implicit=True)],
                    [(0, 1, "P"), (0, 2, "A")])
    s = usim(g, g)
    assert s.f == 1.0 and s.parts["s->r"].total1 == 1


def test_remote_edges_counted_unless_disabled():
    g1 = build_graph(["a", "b"], [Unit("r"), Unit("x", anchors=(0,)), Unit("y", anchors=(1,))],
                     [(0, 1, "A"), (0, 2, "P"), (1, 2, "A", True)])
    g2 = build_graph(["a", "b"], [Unit("r"), Unit("x", anchors=(0,)), Unit("y", anchors=(1,))],
                     [(0, 1, "A"), (0, 2, "P")])
    assert usim(g1, g2).parts["s->r"].total1 == 3
    assert usim(g1, g2).parts["s->r"].matched1 == 2  # y's counterpart is entered by P only, not A
    assert usim(g1, g2, remote=False).f == 1.0


def test_empty_graphs():
    e = build_graph([], [Unit("r")], [])
    assert usim(e, e).f == 1.0
    assert usim(e, source()).f == 0.0


def test_graphs_of_two_representations_are_not_compared():
    from pathlib import Path
    examples = Path(__file__).resolve().parent.parent / "examples"
    with pytest.raises(semsim.GraphError, match="two representations: fig1-source is 'ucca', fig1-correction is 'amr'"):
        semsim.usim(examples / "fig1-source.xml", examples / "fig1-correction.amr")
