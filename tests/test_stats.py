from __future__ import annotations

import pytest

from semsim.kernel.signature import Signature, signature
from semsim.kernel.stats import Counts, Score, corpus_score

SIG = Signature.of("sig")


def test_counts_edge_cases():
    assert Counts(0, 0, 0, 0).f == 1.0
    assert Counts(0, 0, 0, 3).f == 0.0
    c = Counts(7, 9, 7, 7)
    assert c.precision == pytest.approx(7 / 9) and c.recall == 1.0
    assert c.f == pytest.approx(2 * (7 / 9) / (1 + 7 / 9))
    assert c + Counts(1, 1, 0, 1) == Counts(8, 10, 7, 8)


def _score(*cs):
    return Score({f"d{i}": c for i, c in enumerate(cs)}, SIG)


def test_corpus_micro_and_macro():
    scores = [_score(Counts(1, 1, 1, 1)), _score(Counts(0, 3, 0, 1))]
    cs = corpus_score(scores)
    assert cs.macro == pytest.approx(0.5)
    assert cs.micro == pytest.approx(Counts(1, 4, 1, 2).f)
    assert cs.parts["d0"] == Counts(1, 4, 1, 2)


def test_bootstrap_is_seeded_and_brackets_the_mean():
    scores = [_score(Counts(i % 5, 5, i % 3, 3)) for i in range(40)]
    a = corpus_score(scores, n_bootstrap=300, seed=1)
    b = corpus_score(scores, n_bootstrap=300, seed=1)
    assert a.ci == b.ci and a.ci_micro == b.ci_micro
    assert a.ci[0] <= a.macro <= a.ci[1]
    assert corpus_score(scores, n_bootstrap=300, seed=2).ci != a.ci


def test_headline_average_over_parts():
    s = Score({"x": Counts(1, 1, 1, 1), "y": Counts(0, 1, 0, 1)}, SIG)
    assert s.f == 0.5 and float(s) == 0.5
    assert Score(s.parts, SIG, headline=("x",)).f == 1.0
    assert s.as_dict()["signature"] == "sig"


def test_corpus_needs_scores():
    with pytest.raises(ValueError):
        corpus_score([])


def test_signature_format():
    from semsim.kernel.version import __version__
    assert signature("usim", {"variant": "paper", "remote": True}).format() == \
        f"usim|variant:paper|remote:yes|version:{__version__}"


def test_fractional_counts_are_summed_exactly():
    """Graded settings give fractional counts: the corpus sums them as floats (an int64 sum
    truncated 0.5 + 0.5 + 0.25 to 0), and whole counts stay ints as they always printed."""
    graded = [_score(Counts(0.5, 1.5, 0.25, 1.0)), _score(Counts(0.5, 0.75, 0.5, 1.25))]
    cs = corpus_score(graded, n_bootstrap=50)
    assert cs.parts["d0"] == Counts(1.0, 2.25, 0.75, 2.25)
    assert cs.micro == pytest.approx(Counts(1.0, 2.25, 0.75, 2.25).f)
    assert 0 < cs.ci_micro[0] <= cs.ci_micro[1] < 1
    whole = corpus_score([_score(Counts(1, 2, 1, 3)), _score(Counts(2, 2, 0, 1))]).parts["d0"]
    assert [type(x) for x in vars(whole).values()] == [int] * 4 and whole == Counts(3, 4, 1, 4)


def test_graded_usim_corpus_micro_is_the_sum_of_its_sentences():
    """`--edge-weights capped` on the Figure 1 pair and the reversed pair: micro F from the
    sentence counts summed by hand (the issue's 0.91491 against 0.91349 came from truncation)."""
    from pathlib import Path

    import semsim
    ex = Path(__file__).resolve().parent.parent / "examples"
    src, cor = semsim.read(ex / "fig1-source.xml"), semsim.read(ex / "fig1-correction.xml")
    metric = semsim.USim(edge_weights="capped", leaves=1)
    scores = [metric.sentence_score(src, cor), metric.sentence_score(cor, src)]
    assert any(x != int(x) for s in scores for c in s.parts.values() for x in vars(c).values())
    by_hand = [sum((s.parts[k] for s in scores), Counts(0, 0, 0, 0)).f for k in scores[0].parts]
    assert metric.corpus_score(zip([src, cor], [cor, src])).micro == pytest.approx(sum(by_hand) / len(by_hand),
                                                                                   abs=1e-12)
