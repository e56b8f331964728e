"""Smatch (Cai & Knight 2013) through the reference ``smatch`` package, made deterministic.

The package re-seeds the global ``random`` module from the operating system before its
random restarts (``random.seed()``) and caches triple matches in a module-level dict
across calls, so two runs on the same pair can differ and identical graphs can score
below 1. Here every call clears that cache and gives the package, for the duration of the
call, its own generator with a fixed seed that its argument-less ``seed()`` cannot reset
(the global ``random`` module is never touched); identical graphs score exactly 1.
The result is counts (matched, test triples, gold triples), i.e. sufficient statistics:
corpus Smatch sums them, as ``smatch.py`` does.
"""

from __future__ import annotations

import random
import threading
from typing import Any

from semsim.kernel.errors import SemsimError
from semsim.kernel.graph import Graph
from semsim.kernel.scheme import Scheme
from semsim.kernel.signature import signature
from semsim.kernel.stats import Counts, Score

SEED = 20130804  # the Smatch paper's date; any fixed value makes runs reproducible
RESTARTS = 5  # the package's default number of hill-climbing restarts
_lock = threading.Lock()  # the package keeps state in module globals


class _FixedRandom(random.Random):
    """A generator whose ``seed()`` without an argument keeps the fixed sequence going."""

    def seed(self, a: Any = None, version: int = 2) -> None:
        if a is not None:
            super().seed(a, version)


def _one_line(amr: Any) -> str:
    """The graph on one line without metadata comments, as ``smatch`` reads it."""
    import penman
    g = amr if isinstance(amr, penman.Graph) else penman.decode(amr)
    return penman.encode(penman.Graph(g.triples, top=g.top, epidata=g.epidata), indent=None)


def _canonical(amr: Any) -> Any:
    import penman
    g = amr if isinstance(amr, penman.Graph) else penman.decode(amr)
    return sorted(g.triples), g.top


def smatch_counts(test: Any, gold: Any, restarts: int = RESTARTS, seed: int = SEED) -> Counts:
    """Matched triples and the triple counts of ``test`` and ``gold`` (penman Graphs or PENMAN strings)."""
    import smatch
    a, b = _one_line(test), _one_line(gold)
    with _lock:
        old_random, old_restarts = smatch.random, smatch.iteration_num
        try:
            smatch.random, smatch.iteration_num = _FixedRandom(seed), restarts
            smatch.match_triple_dict.clear()
            matched, n_test, n_gold = smatch.get_amr_match(a, b)
        except Exception as exc:  # its own parser is stricter than penman in places
            raise SemsimError(f"the smatch package cannot read {a[:60]!r} or {b[:60]!r}: "
                              f"{type(exc).__name__}: {exc}") from None
        finally:
            smatch.match_triple_dict.clear()
            smatch.random, smatch.iteration_num = old_random, old_restarts
    if _canonical(test) == _canonical(gold):  # same variables, same triples: exactly 1
        matched = n_test = n_gold = max(n_test, n_gold)
    return Counts(matched, n_test, matched, n_gold)


def smatch_score(test: Any, gold: Any, restarts: int = RESTARTS, seed: int = SEED,
                 scheme: Scheme | None = None) -> Score:
    """Smatch of ``test`` against ``gold`` as a semsim Score (precision on ``test``), signed with
    ``scheme``, the graphs' (:func:`~semsim.kernel.signature.signature`), when they came as graphs: each a
    PENMAN string, a penman Graph, or a semsim :class:`Graph` this plugin read or parsed
    (which keeps its PENMAN text); anything else is one error saying so."""
    test, gold = (_penman(x, name) for x, name in ((test, "test"), (gold, "gold")))
    counts = smatch_counts(test, gold, restarts, seed)
    sig = signature("smatch", {"impl": "smatch-1.0.4", "restarts": restarts, "seed": seed}, scheme)
    return Score({"smatch": counts}, sig)


def smatch_graphs(g1: Graph, g2: Graph) -> Score:
    """Smatch of two semsim graphs made by this plugin (which keeps each AMR's PENMAN text)."""
    texts = [g.meta.get("penman") for g in (g1, g2)]
    if not all(texts):
        raise SemsimError(f"Smatch needs AMR graphs read by the AMR plugin ({g1.id or '?'} / {g2.id or '?'})")
    return smatch_score(texts[0], texts[1], scheme=g1.scheme)



def _penman(x: Any, name: str) -> Any:
    """``x`` as smatch_counts takes it: a semsim Graph becomes the PENMAN text it keeps."""
    if isinstance(x, Graph):
        text = x.meta.get("penman")
        if not text:
            raise SemsimError(f"smatch_score: {name} is a {x.scheme.name} graph not read by the AMR plugin "
                              f"({x.id or '?'}): Smatch needs AMR graphs, PENMAN strings or penman Graphs")
        return text
    import penman
    if not isinstance(x, (str, penman.Graph)):
        raise SemsimError(f"smatch_score: {name} is a {type(x).__name__}; expected a PENMAN string, a penman "
                          "Graph or a semsim Graph of the AMR plugin")
    return x
