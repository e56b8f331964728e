"""``semsim explain`` says what happened to content that moved (#54): aligned pairs that cross
the others are listed as moved (JSON ``moved_tokens``, the page's drawing and note, the text
summary), and a word an order-keeping alignment left out names what the alignment did with its
related word in the other text, never a pairing it did not make."""

from __future__ import annotations

import re

import pytest

from semsim import Unit, USim, build_graph
from semsim.app.explain import explain, render_html, summary
from semsim.kernel.align.tokens import crossing, heaviest_monotone, moved_pairs
from semsim.kernel.scheme import Scheme

SCHEME = Scheme("toy", label_weights={"A": 3, "P": 3})


def scene(words: list[str]):
    """[H [A w0] [P w1] [A w2]]."""
    units = [Unit("root"), Unit("scene"), Unit("a0", anchors=(0,)), Unit("p", anchors=(1,)),
             Unit("a1", anchors=(2,))]
    return build_graph(words, units, [(0, 1, "H"), (1, 2, "A"), (1, 3, "P"), (1, 4, "A")], scheme=SCHEME)


@pytest.mark.parametrize(("pairs", "moved"), [
    ([], []), ([(0, 0)], []), ([(0, 0), (1, 1), (2, 2)], []),
    ([(0, 2), (1, 1), (2, 0)], [(1, 1), (2, 0)]),  # a swap: one pair stays, two moved
    ([(0, 3), (1, 4), (2, 0), (3, 1), (4, 2)], [(0, 3), (1, 4)]),  # a clause of two moved after three
])
def test_moved_pairs_are_those_outside_a_largest_non_crossing_subset(pairs, moved):
    got = moved_pairs(pairs)
    assert got == moved
    kept = [p for p in pairs if p not in got]
    assert all(not crossing(kept, p) for p in kept)
    import numpy as np
    ok = np.zeros((6, 6), dtype=bool)
    for a, b in pairs:
        ok[a, b] = True
    assert len(kept) == len(heaviest_monotone(ok.astype(np.int64), ok))  # as many as any order-keeping subset


def test_crossing_names_the_pairs_a_pair_would_cross():
    assert crossing([(0, 1), (1, 2), (3, 0)], (2, 0)) == [(0, 1), (1, 2)]
    assert crossing([(0, 0), (2, 2)], (1, 1)) == []


def test_an_alignment_that_crosses_shows_moved_pairs_in_json_page_and_text():
    doc = explain(scene(["John", "saw", "Mary"]), scene(["Mary", "saw", "John"]), USim(tokens="edit"))
    assert sorted(map(tuple, doc["token_alignment"])) == [(0, 2), (1, 1), (2, 0)]
    assert doc["moved_tokens"] == [[1, 1], [2, 0]]
    page = render_html(doc)
    assert page.count('<line class="talign" data-moved="1"') == 2 and page.count('<line class="talign"') == 3
    assert "moved: 2 aligned pairs cross the others (kept aligned): saw=saw Mary=Mary" in page
    assert "moved: 2 aligned pairs cross the others (kept aligned): saw=saw Mary=Mary" in summary(doc, width=300)
    same = explain(scene(["John", "saw", "Mary"]), scene(["John", "saw", "Mary"]), USim(tokens="edit"))
    assert same["moved_tokens"] == [] and "moved:" not in summary(same, width=300)


def test_a_word_an_order_keeping_alignment_left_out_says_its_pair_would_cross():
    """The issue's misdescription: "related to Is, but each is aligned to another token" for a
    word whose related word the alignment left out too. Now the reason names the pair it would
    cross, the page's verdict says the words left out have crossing counterparts, and no
    verdict calls them lost."""
    doc = explain(scene(["John", "saw", "Mary"]), scene(["Mary", "saw", "John"]), USim(tokens="ordered"))
    (pair,) = doc["token_alignment"]
    assert doc["moved_tokens"] == []  # an order-keeping alignment crosses nothing: it leaves moved words out
    left = {t["text"]: t for t in doc["unaligned_tokens"]["source"]}
    aligned = f"{scene(['John', 'saw', 'Mary']).tokens[pair[0]].text}"
    for word, t in left.items():
        assert t["left_out_too"] and t["would_cross"] is True
        assert t["reason"] == (f"related to {word}, left out too: pairing them would cross the aligned pair "
                               f"{aligned}={aligned} (the alignment keeps word order)")
        assert "aligned to another token" not in t["reason"]
    note = ("left out in crossing order: 2 source words whose related correction word is left out too, the pair "
            f"crossing the aligned ones (moved; this alignment keeps word order): {' '.join(f'{w}/{w}' for w in left)}")
    assert note in summary(doc, width=300)
    page = render_html(doc)
    assert f'<p class="moved">{note}.</p>' in page
    verdicts = re.findall(r'<p class="verdict">([^<]*)', page)
    assert verdicts and all("lost" not in v for v in verdicts)
    assert all("4 of the words left out have a related word left out in the other text, in crossing order"
               in v for v in verdicts)


def test_a_related_word_aligned_elsewhere_is_said_so():
    doc = explain(scene(["He", "saw", "he"]), scene(["He", "saw", "Mary"]), USim(tokens="ordered"))
    (t,) = doc["unaligned_tokens"]["source"]
    assert t == {"token": 2, "text": "he", "reason": "related to He, each aligned to another token"}
