"""The legacy variant on a graph with no units to compare (issue #58.8): decided, kept as the
authors' code has it. Their USim is an F-score over units with "0 if either set is empty"
(/work/shared/specs/usim-legacy.md, step 7), so a graph with none scores 0.0, against itself
too, where the paper's variant gives 1.0; docs/legacy.md says so and what it does to corpus
scores: the pair is a 0.0 in the macro mean and adds no counts to the micro one."""

from __future__ import annotations

from semsim import USim
from semsim.kernel.graph import Unit, build_graph

NO_UNITS = build_graph(["Hello", "!"], [Unit("0")], [])  # a root over the tokens, nothing under it
TWO_UNITS = build_graph(["a", "b"], [Unit("0"), Unit("1", anchors=(0,)), Unit("2", anchors=(1,))],
                        [(0, 1, "A"), (0, 2, "B")])


def test_a_graph_with_no_units_scores_0_against_itself_under_the_legacy_variant_only():
    legacy, paper = USim(variant="legacy"), USim()
    assert legacy.sentence_score(NO_UNITS, NO_UNITS).f == 0.0
    assert legacy.sentence_score(NO_UNITS, TWO_UNITS).f == legacy.sentence_score(TWO_UNITS, NO_UNITS).f == 0.0
    assert legacy.sentence_score(TWO_UNITS, TWO_UNITS).f == 1.0
    assert paper.sentence_score(NO_UNITS, NO_UNITS).f == 1.0


def test_in_a_corpus_the_pair_lowers_the_macro_mean_and_not_the_micro_one():
    corpus = USim(variant="legacy").corpus_score([NO_UNITS, TWO_UNITS], [NO_UNITS, TWO_UNITS])
    assert (corpus.macro, corpus.micro) == (0.5, 1.0)
    paper = USim().corpus_score([NO_UNITS, TWO_UNITS], [NO_UNITS, TWO_UNITS])
    assert (paper.macro, paper.micro) == (1.0, 1.0)
