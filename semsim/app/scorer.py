"""An open scorer: a metric, its parser and an open parse cache, kept across calls.

A metric suite that scores pair by pair (an ``evaluate`` module, a TorchMetrics ``update``)
called :meth:`semsim.USim.text_scores` once per pair, and each call opened the SQLite cache,
wrote to it and closed it again (12-29 ms a call, ``Connection.close`` alone 12.5 ms).
:class:`Scorer` opens the cache once, finds the parser once (the plugin keeps its loaded
model), remembers the scores of the pairs :meth:`Scorer.score` has scored (a score depends
on the two sentences alone, for one metric and parser), and closes the cache when it is
closed (a context manager). Every score goes through :func:`semsim.app.scoring.pair_scores`,
the route ``text_scores`` takes, so the numbers are the same.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from ..kernel.errors import InputError, SemsimError
from ..kernel.limits import LimitError, check_pair
from ..kernel.signature import Signature
from ..kernel.stats import CorpusScore, Score, corpus_score
from .cache import ParseCache, model_key, normalise
from .parsing import ParseSettings, parser_fields, signed_with
from .scoring import TextMetric, check_errors, pair_scores, text_pairs

#: pairs an open scorer remembers the scores of (a few KB each)
MEMORY = 100_000


class Scorer:
    """``metric`` on text, with the parser and the parse cache held open until :meth:`close`.

    >>> with semsim.USim().scorer() as scorer:                    # doctest: +SKIP
    ...     scorer.score("He gva an apple .", "He gave an apple .").f
    ...     scorer.get_signature()   # metric, parser, model, tokenizer: known before scoring

    ``errors`` is :func:`~semsim.app.scoring.pair_scores`' policy for a pair that cannot be
    scored (``"raise"``, naming its index, or ``"fallback"``); ``progress(done, total)``, if
    given, is told how many of a call's distinct sentences are parsed (or found in the cache)
    as each batch is stored, for a caller that draws its own bar.

    The model is hashed once, when the scorer first needs it: a model file replaced while a
    scorer is open is not noticed until the next scorer (open one per model version).
    """

    def __init__(self, metric: TextMetric, parsing: ParseSettings | None = None, *, errors: str = "raise",
                 progress: Callable[[int, int], None] | None = None) -> None:
        check_errors(errors)
        if progress is not None and not callable(progress):
            raise InputError(f"progress={progress!r}: expected a callable taking (done, total)")
        self.metric, self.parsing, self.errors, self.progress = metric, parsing or ParseSettings(), errors, progress
        self._parser = self.parsing.find()
        # the parse cache, opened once; a parse elsewhere (workers) still stores through it
        self._store: ParseCache | None = None
        if self.parsing.cache is not False:
            self._store = ParseCache(None if self.parsing.cache is True else self.parsing.cache)
        self._signature: Signature | None = None
        self._model_key: str | None = None
        self._parsed_by: Signature | None = None
        #: the pairs :meth:`score` has scored, by their whitespace-normalised texts (oldest out first)
        self._scored: dict[tuple[str, str], Score] = {}

    # -- the scores ------------------------------------------------------------------------
    def score(self, source: str, correction: str) -> Score:
        """One pair's score (:meth:`scores` of one pair)."""
        for name, text in (("source", source), ("correction", correction)):
            if not isinstance(text, str):
                raise InputError(f"score: {name} is a {type(text).__name__}, expected a string")
        key = (normalise(source), normalise(correction))
        if key in self._scored:  # a score depends on the two sentences alone, under one metric and parser
            self._check_open()
            return self._scored[key]
        score = self._from_cache(*key) or self.scores([source], [correction])[0]
        if not score.extra.get("error"):
            if len(self._scored) >= MEMORY:
                self._scored.pop(next(iter(self._scored)))
            self._scored[key] = score
        return score

    def _from_cache(self, source: str, correction: str) -> Score | None:
        """The pair's score straight from the open cache when both sentences are in it (and
        need no tokenizer): the graphs :func:`pair_scores` would read, scored and signed as it
        signs them, without its per-call set-up (half a call's time). None sends the pair
        the whole way: a sentence to parse, an empty side, a pair too large to align."""
        if self._store is None or self.parsing.tokenize != "none" or not source or not correction:
            return None
        self._check_open()
        if self._model_key is None:  # the model hashed once, when first needed
            self._model_key = model_key(self._parser, self.parsing.model)
        found = self._store.get_many(self._parser.representation, self._parser.name, self._model_key,
                                     [source, correction])
        if source not in found or correction not in found:
            return None
        g1, g2 = found[source].graph, found[correction].graph
        try:
            check_pair(g1, g2)
        except LimitError:
            return None
        self.signature()  # the parser's fields, made once
        assert self._parsed_by is not None
        scored = self.metric.sentence_score(g1, g2)
        return dataclasses.replace(scored, signature=signed_with(scored.signature, self._parsed_by, self._parser.name))

    def scores(self, sources: Sequence[str], corrections: Sequence[str]) -> list[Score]:
        """Each correction's score against its source (line-parallel lists of strings), every
        distinct sentence parsed once, through the open cache."""
        self._check_open()
        srcs, cors = text_pairs(sources, corrections, "scores")
        return pair_scores(self.metric, srcs, cors, self.parsing, errors=self.errors, store=self._store,
                           progress=self.progress)

    def corpus_score(self, sources: Sequence[str], corrections: Sequence[str], *, n_bootstrap: int = 0,
                     confidence: float = 0.95, seed: int = 12345) -> CorpusScore:
        """The corpus's macro and micro averages (:func:`semsim.kernel.stats.corpus_score`) of
        raw text, in one call; a pair scored by the ``fallback`` counts in the macro average."""
        return corpus_score(self.scores(sources, corrections), n_bootstrap=n_bootstrap, confidence=confidence,
                            seed=seed)

    # -- what the scores are -----------------------------------------------------------------
    def signature(self) -> Signature:
        """The signature every score of this scorer carries (the metric's settings, then the
        parser, the model's content hash and the tokenizer), known before any score, as
        sacrebleu's ``get_signature()`` is; the model is hashed once, here."""
        if self._signature is None:
            self._parsed_by = parser_fields(self._parser, self.parsing.model, self.parsing.tokenize)
            self._signature = signed_with(self.metric.signature(self._parser.representation), self._parsed_by,
                                          self._parser.name)
        return self._signature

    def get_signature(self) -> str:
        """:meth:`signature` rendered: what each score's ``signature`` renders to."""
        return self.signature().format()

    # -- open and closed ---------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        return self._closed

    _closed = False

    def close(self) -> None:
        """Close the parse cache (what was parsed is stored already). Idempotent."""
        if self._store is not None:
            self._store.close()
        self._closed = True

    def _check_open(self) -> None:
        if self._closed:
            raise SemsimError("this Scorer is closed: open another (USim().scorer())")

    def __enter__(self) -> Scorer:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Scorer({self.get_signature() if not self._closed else 'closed'})"
