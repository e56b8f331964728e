"""Token alignment and sentence synchronisation."""

from __future__ import annotations

from semsim import Token, Unit, build_graph
from semsim.kernel.align.tokens import (
    align_tokens,
    legacy_token_pairs,
    paper_token_pairs,
    synchronised_ends,
    synchronised_spans,
)


def flat(words, ends=(), paragraphs=None):
    toks = [Token(w, punct=not any(c.isalnum() for c in w)) for w in words]
    return build_graph(toks, [Unit("r", anchors=tuple(range(len(words))))], [], sentence_ends=ends)


def test_align_is_case_insensitive_and_partial():
    assert sorted(align_tokens(["He", "gva", "for", "john"], ["He", "gave", "John"])) == [(0, 0), (1, 1), (3, 2)]


def test_pairs_with_nothing_in_common_are_dropped():
    assert align_tokens(["the"], ["a"]) == []
    assert align_tokens(["an"], ["a"]) == [(0, 0)]


def test_equal_cost_alignments_prefer_similar_positions():
    # two "the" on each side: the crossing alignment costs the same edit distance
    assert sorted(align_tokens(["the", "cat", "the", "dog"], ["the", "dog", "the", "cat"])) == [
        (0, 0), (1, 3), (2, 2), (3, 1)]
    assert align_tokens(["the", "the"], ["the"]) == [(0, 0)]


def test_empty_sides():
    assert align_tokens([], ["a"]) == [] and align_tokens(["a"], []) == []


def test_sentence_synchronisation_skips_an_extra_end():
    g1 = flat(["a", "b", ".", "c", "d", ".", "e", "f", "."], ends=(3, 6, 9))
    g2 = flat(["a", "b", "c", "d", ".", "e", "f", "."], ends=(5, 8))
    # ends on punctuation step back to the word before; g1's first end ("b") matches no end
    # of g2 but its next one ("d") does, so it is skipped. As in the authors' code, the
    # stepped-back final positions are kept (the legacy variant leaves the final "." out);
    # the spans give trailing tokens to the last sentence.
    assert synchronised_ends(g1, g2) == [(5, 4), (8, 7)]
    assert synchronised_spans(g1, g2) == [(range(0, 5), range(0, 4)), (range(5, 9), range(4, 8))]


def test_without_sentence_ends_the_whole_text_is_one_sentence():
    g1, g2 = flat(["a", "b"]), flat(["a"])
    assert synchronised_spans(g1, g2) == [(range(0, 2), range(0, 1))]
    assert synchronised_spans(g1, g2, by_sentence=False) == [(range(0, 2), range(0, 1))]


def test_sentence_alignment_keeps_words_in_their_sentence():
    g1 = flat(["the", "cat", "sat", ".", "dogs", "ran", "."], ends=(4, 7))
    g2 = flat(["cat", "sat", ".", "the", "dogs", "ran", "."], ends=(3, 7))
    pairs = paper_token_pairs(g1, g2)
    assert (0, 3) not in pairs  # "the" of sentence 1 does not jump to sentence 2
    assert (4, 4) in pairs
    assert (0, 3) in paper_token_pairs(g1, g2, by_sentence=False)


def test_legacy_alignment_orientation_and_unaligned_marks():
    g1, g2 = flat(["a", "b", "c"]), flat(["a", "c"])
    pairs = legacy_token_pairs(g1, g2)
    assert (1, 1) in pairs and (3, 2) in pairs and (2, -1) in pairs
    pairs = legacy_token_pairs(g2, g1)
    assert (-1, 2) in pairs and (1, 1) in pairs
