"""Scoring parses against gold UCCA with the official evaluator, ``ucca.evaluation``.

The numbers are those of SemEval-2019 Task 1 and of the TUPA papers: ``evaluate`` with its
defaults (``normalize=True``: centers flattened, common functions moved to the root) on each
sentence, micro-averaged over the corpus with ``Scores.aggregate``. ``evaluate`` changes both
passages it is given, so gold passages are kept pickled and unpickled for every evaluation.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class UccaScores:
    """Labelled and unlabelled F1 of primary and remote edges (micro-averaged)."""

    labeled_primary: float
    labeled_remote: float
    unlabeled_primary: float
    unlabeled_remote: float
    sentences: int

    def as_dict(self) -> dict[str, float | int]:
        return dict(self.__dict__)


def frozen(passage: Any) -> bytes:
    """A gold passage kept for repeated evaluation."""
    return pickle.dumps(passage, protocol=pickle.HIGHEST_PROTOCOL)


def evaluate(pairs: Iterable[tuple[Any, bytes | Any]]) -> UccaScores:
    """Official scores of (guessed passage, gold passage or :func:`frozen` gold) pairs."""
    from ucca.evaluation import Scores
    from ucca.evaluation import evaluate as ucca_evaluate
    scores = []
    for guessed, gold in pairs:
        ref = pickle.loads(gold) if isinstance(gold, bytes) else gold
        scores.append(ucca_evaluate(guessed, ref))
    total = Scores.aggregate(scores)

    def f1(kind: str, construction: str) -> float:
        results = total.evaluators[kind].results.get(construction)
        return float(results.f1) if results is not None else 0.0

    return UccaScores(f1("labeled", "primary"), f1("labeled", "remote"), f1("unlabeled", "primary"),
                      f1("unlabeled", "remote"), len(scores))
