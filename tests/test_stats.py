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
