"""The Python API a metric suite calls: functions and a sacrebleu-style scorer."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..kernel.align.contextual import Encoder
from ..kernel.align.paraphrase import Judge
from ..kernel.errors import GraphError, InputError, RecordFault, SemsimError, SettingsError
from ..kernel.graph import Graph
from ..kernel.metrics import settings as _settings
from ..kernel.metrics.dagf import dag_f as _dag_f
from ..kernel.metrics.distsim import DistSim
from ..kernel.metrics.distsim import distsim as _distsim
from ..kernel.metrics.legacy import legacy_settings, usim_legacy
from ..kernel.metrics.settings import Settings
from ..kernel.metrics.usim import paper_settings
from ..kernel.metrics.usim import usim as _usim_paper
from ..kernel.scheme import other_scheme
from ..kernel.signature import Signature, signature
from ..kernel.stats import CorpusScore, Score, corpus_score
from .parsing import Parses, ParseSettings, checked_texts, parse_texts
from .plugins import paraphrase_judge, schemes, to_graph, word_encoder
from .reading import read, read_all

if TYPE_CHECKING:
    from .comparison import Comparison
    from .scorer import Scorer

__all__ = ["ParseSettings", "Parses", "USim", "compare", "dag_f", "distsim", "parse", "parse_texts", "read",
           "read_all", "usim"]

VARIANTS = _settings.VARIANTS
GraphLike = Graph | str | os.PathLike[str] | Any


def _graph(x: GraphLike) -> Graph:
    """Accept a Graph, a path, or a native object a plugin can convert."""
    if isinstance(x, Graph):
        return x
    if isinstance(x, (str, os.PathLike)):
        if isinstance(x, str) and x != "-" and not os.path.exists(x):  # a sentence, or a path mistyped
            raise InputError(f"{x[:40]!r} is no file: this takes graphs or their paths; to score sentences of "
                             "text, call text_scores(sources, corrections) or text_corpus_score(...), or open "
                             "a scorer()")
        return read(x)
    return to_graph(x)


def _pair(a: GraphLike, b: GraphLike) -> tuple[Graph, Graph]:
    """Two graphs of one representation: comparing, say, a UCCA graph with an AMR graph
    would give a number that means nothing (no label can match), so it is an error."""
    g1, g2 = _graph(a), _graph(b)
    if g1.scheme.name != g2.scheme.name:
        raise GraphError(f"cannot compare graphs of two representations: {g1.id or 'the first'} is "
                         f"{g1.scheme.name!r}, {g2.id or 'the second'} is {g2.scheme.name!r}")
    if why := other_scheme(g1.scheme, g2.scheme):  # one name, two schemes: no signature could say which
        raise GraphError(f"cannot compare {g1.id or 'the first'} and {g2.id or 'the second'}: {why}")
    return g1, g2


def _sequence(x: object, name: str) -> list[Any]:
    """The items of one side of a corpus; a string or a single graph is refused, since
    iterating it would score its characters or fail far from the call."""
    if isinstance(x, (str, bytes, os.PathLike, Graph)) or not isinstance(x, Iterable):
        hint = "; n_bootstrap, confidence and seed are keyword-only" if isinstance(x, (int, float)) else ""
        raise InputError(f"corpus_score: {name} must be a sequence of graphs or paths, got {type(x).__name__}{hint}")
    return list(x)


def _corpus_pairs(sources: Iterable[Any], corrections: Iterable[Any] | None) -> list[tuple[Any, Any]]:
    """(source, correction) pairs from two line-parallel sequences or from one of pairs."""
    if corrections is not None:
        srcs, cors = _sequence(sources, "sources"), _sequence(corrections, "corrections")
        if len(srcs) != len(cors):
            raise InputError(f"corpus_score: {len(srcs)} sources but {len(cors)} corrections; "
                             "they must be line-parallel")
        return list(zip(srcs, cors))
    pairs = _sequence(sources, "sources")
    for i, p in enumerate(pairs):
        if isinstance(p, (str, bytes)) or not isinstance(p, Sequence) or len(p) != 2:
            raise InputError(f"corpus_score: item {i} is a {type(p).__name__}, not a (source, correction) pair; "
                             "pass the two sides as corpus_score(sources, corrections)")
    return [(a, b) for a, b in pairs]


@dataclass(frozen=True)
class USim(Settings):
    """USim with fixed settings, in the shape of sacrebleu's metrics.

    >>> metric = USim(variant="paper")
    >>> metric.sentence_score(source_graph, correction_graph).f      # doctest: +SKIP
    >>> metric.corpus_score(sources, corrections, n_bootstrap=1000)  # doctest: +SKIP
    >>> metric.corpus_score(zip(sources, corrections))               # doctest: +SKIP

    Every setting, with its default and values, is listed below, generated from the one
    table :data:`~semsim.kernel.metrics.settings.SETTINGS` (``docs/reading-decisions.md`` says
    why each exists); each is checked as the object is made, and the metric is itself the
    settings object the measures take.
    """

    def settings(self) -> dict[str, Any]:
        """Every setting by name (the fields of :data:`semsim.kernel.metrics.settings.SETTINGS`)."""
        return {s.name: getattr(self, s.name) for s in _settings.SETTINGS}

    def sentence_score(self, source: GraphLike, correction: GraphLike) -> Score:
        """USim of one source and its correction: a :class:`~semsim.kernel.stats.Score` whose
        ``f`` is the headline figure and whose ``parts`` keep the counts per direction, so
        that corpus scores can be micro-averaged and signatures compared.

        Each side is a :class:`Graph`, a path any reader plugin reads, or a native object
        a plugin converts (``ucca.core.Passage``). The two must be of one representation
        (a :class:`~semsim.kernel.errors.GraphError` otherwise: no label could ever match).
        """
        g1, g2 = _pair(source, correction)
        if self.variant == "legacy":
            return usim_legacy(g1, g2, self)
        judge, judge_name = self.judge()
        encoder, encoder_name = self.encoder()
        try:
            return _usim_paper(g1, g2, self, judge=judge, judge_name=judge_name, encoder=encoder,
                               encoder_name=encoder_name)
        except RecordFault as exc:  # the alignment names the record's kind; this names its plugin
            from .plugins import plugin_fault
            record = paraphrase_judge() if exc.record == "paraphrase judge" else word_encoder()
            raise plugin_fault(record.plugin, f"its {exc.record} {record.name!r}", exc.detail) from exc.__cause__

    def judge(self) -> tuple[Judge | None, str]:
        """The paraphrase judge ``tokens="paraphrase"`` asks, and its identity for the
        signature (a plugin's: :func:`semsim.app.plugins.paraphrase_judge`); ``(None, "")`` for
        every other token alignment. The judge loads its model on its first query only."""
        if self.tokens != "paraphrase":
            return None, ""
        return _loaded(paraphrase_judge(), "paraphrase judge")

    def encoder(self) -> tuple[Encoder | None, str]:
        """The word vectors ``tokens="contextual"`` grades pairs by, and their identity for
        the signature (a plugin's: :func:`semsim.app.plugins.word_encoder`); ``(None, "")`` for
        every other token alignment. The encoder loads its model on its first call only."""
        if self.tokens != "contextual":
            return None, ""
        return _loaded(word_encoder(), "word encoder")

    def corpus_score(self, sources: Iterable[GraphLike] | Iterable[tuple[GraphLike, GraphLike]],
                     corrections: Iterable[GraphLike] | None = None, *, n_bootstrap: int = 0,
                     confidence: float = 0.95, seed: int = 12345) -> CorpusScore:
        """USim of a corpus: the sentence scores' macro and micro averages (and, with
        ``n_bootstrap``, their percentile bootstrap intervals; seeded, so reproducible).

        As sacrebleu's ``corpus_score(hypotheses, references)``, it takes line-parallel
        sequences, ``corpus_score(sources, corrections)``; or one sequence of
        ``(source, correction)`` pairs, ``corpus_score(zip(sources, corrections))``. Items
        are what :meth:`sentence_score` takes. Sequences of different lengths, or an item
        of the pair form that is not a pair, raise :class:`~semsim.kernel.errors.InputError`
        rather than scoring a truncated or shifted corpus (which ``zip`` would do silently).
        The bootstrap settings are keyword-only, so an old positional ``n_bootstrap``
        cannot be taken for the corrections.
        """
        pairs = _corpus_pairs(sources, corrections)
        return corpus_score([self.sentence_score(a, b) for a, b in pairs], n_bootstrap=n_bootstrap,
                            confidence=confidence, seed=seed)

    def text_scores(self, sources: Sequence[str], corrections: Sequence[str],
                    parsing: ParseSettings | None = None, *, tokenize: str | None = None,
                    errors: str = "raise", progress: Callable[[int, int], None] | None = None) -> list[Score]:
        """USim of each correction against its source, from plain text, as `semsim score`
        computes it: every distinct sentence parsed once through the one route from text
        (:func:`~semsim.app.parsing.parse_texts`: the default parser, the parse cache; ``parsing``
        says otherwise), each score signed with the parser and model. An empty side scores 1
        against another empty one and 0 otherwise.

        A pair the parser fails on (a line over the token limit, say) or too large to align
        costs only itself: ``errors="raise"`` (the default) raises its
        :class:`~semsim.kernel.errors.ParseError` (or ``LimitError``) naming the pair's 0-based
        index (``pair 3 (correction): ...``; ``.index``), the others parsed and cached;
        ``errors="fallback"`` scores it 0 by convention (``Score.convention``), with
        ``extra["error"]`` and ``extra["index"]`` saying which and why
        (:func:`semsim.app.scoring.pair_scores`). To score pair by pair, or many calls, open a
        scorer once (:meth:`scorer`). ``progress(done, total)`` is told how many of the distinct
        sentences are parsed (or found in the cache) as each batch is stored, for a caller that
        draws its own bar (``parsing.progress`` draws semsim's).

        The parser expects tokenized text (``He gave John an apple .``); ``tokenize="spacy"``
        splits untokenized text (LLM outputs, raw corpora) with spaCy's rule-based tokenizer
        first, as ``--tokenize spacy`` does (the same as ``parsing.tokenize``). Text that looks
        untokenized without it gives a :class:`UserWarning` naming the option, as the CLI
        notes it: untokenized text parses differently and scores differently.

        >>> USim().text_scores(["He gva an apple ."], ["He gave an apple ."])[0].f  # doctest: +SKIP
        >>> USim().text_scores(["He gva an apple."], ["He gave an apple."], tokenize="spacy")  # doctest: +SKIP
        """
        from .scoring import check_errors, pair_scores, text_pairs
        from .tokenization import warn_untokenized_python
        srcs, cors = text_pairs(sources, corrections, "text_scores")
        check_errors(errors)
        parsing = _with_tokenize(parsing, tokenize)
        # the two sides together, as one pair (a script's first try) must be able to warn
        warn_untokenized_python([("the texts", [*srcs, *cors])], parsing.tokenize)
        if progress is not None and not callable(progress):
            raise InputError(f"text_scores: progress={progress!r}: expected a callable taking (done, total)")
        return pair_scores(self, srcs, cors, parsing, errors=errors, progress=progress)

    def text_corpus_score(self, sources: Sequence[str], corrections: Sequence[str],
                          parsing: ParseSettings | None = None, *, tokenize: str | None = None,
                          errors: str = "raise", n_bootstrap: int = 0, confidence: float = 0.95,
                          seed: int = 12345) -> CorpusScore:
        """:meth:`corpus_score` of raw text in one call: :meth:`text_scores`, then their macro
        and micro averages (and bootstrap intervals); the signature names the parser and model."""
        return corpus_score(self.text_scores(sources, corrections, parsing, tokenize=tokenize, errors=errors),
                            n_bootstrap=n_bootstrap, confidence=confidence, seed=seed)

    def scorer(self, parsing: ParseSettings | None = None, *, tokenize: str | None = None, errors: str = "raise",
               progress: Callable[[int, int], None] | None = None) -> Scorer:
        """An open :class:`~semsim.app.scorer.Scorer` of this metric: the parser found and the
        parse cache opened once, for many calls (a metric suite's pair-by-pair ``update``);
        a context manager, or call ``close()``. Its ``get_signature()`` names the parser, the
        model's hash and the tokenizer before any score is computed.

        >>> with USim().scorer(ParseSettings(model="ucca-span-ewt-minilm-l2")) as scorer:  # doctest: +SKIP
        ...     scorer.score("He gva an apple .", "He gave an apple .").f
        """
        from .scorer import Scorer
        return Scorer(self, _with_tokenize(parsing, tokenize), errors=errors, progress=progress)

    def part_names(self) -> list[str]:
        """The parts of this metric's scores (directions, or the legacy count)."""
        if self.variant == "legacy":
            return ["legacy"]
        return ["s->r", "r->s"] if self.direction == "both" else [self.direction]

    def get_signature(self, scheme: str | None = None) -> str:
        """The signature of this metric's settings, as every score it makes carries it. A
        score also names its graphs' representation and the plugin that made them
        (``scheme:ucca@HASH12|plugin:semsim-ucca-0.2.0``), which the metric alone cannot know:
        give the representation's name as ``scheme`` to get exactly the signature of a score of
        graphs with the scheme its plugin registered."""
        return self.signature(scheme).format()

    def signature(self, scheme: str | None = None) -> Signature:
        """:meth:`get_signature` as fields, for a caller that adds its own (the parser's)."""
        if self.variant == "legacy":
            settings = legacy_settings(self)
        else:
            settings = paper_settings(self, self.judge()[1], self.encoder()[1])
        registered = schemes().get(scheme) if scheme else None
        if registered or not scheme:
            return signature("usim", settings, registered)
        return signature("usim", {**settings, "scheme": scheme})  # a representation no plugin registered


def _with_tokenize(parsing: ParseSettings | None, tokenize: str | None) -> ParseSettings:
    """``parsing`` (default: the defaults) with ``tokenize`` given as its own keyword; the two
    saying different things is an error rather than a silent pick."""
    parsing = parsing or ParseSettings()
    if tokenize is None or tokenize == parsing.tokenize:
        return parsing
    if parsing.tokenize != "none":
        raise SettingsError(f"tokenize={tokenize!r} and parsing.tokenize={parsing.tokenize!r}: give one of them",
                            ["tokenize"])
    return dataclasses.replace(parsing, tokenize=tokenize)


def _loaded(record: Any, what: str) -> tuple[Any, str]:
    """A judge's or encoder's record loaded, with its identity; the plugin's failure named."""
    from .plugins import plugin_fault
    try:
        loaded, identity = record.load(), record.identity()
    except SemsimError:
        raise
    except (Exception, SystemExit) as exc:
        raise plugin_fault(record.plugin, f"its {what} {record.name!r}", exc) from exc
    if not callable(loaded) or not isinstance(identity, str):
        raise plugin_fault(record.plugin, f"its {what} {record.name!r}", "load() gave no callable, or identity() "
                                                                        "no string")
    return loaded, identity


_settings.track_given(USim)  # a setting restating its default is still one the caller gave


def _settings_doc() -> str:
    """The settings table as the docstring's list: one line per setting, never out of date."""
    lines = ["", "    Settings:", ""]
    for s in _settings.SETTINGS:
        values = ", ".join(map(repr, s.choices)) if s.choices else "True or False" if isinstance(s.default, bool) \
            else ", ".join(map(repr, s.words)) if s.words else ""
        only = f" ({s.variant} only)" if s.variant else ""
        lines.append(f"    - ``{s.name}`` = ``{s.default!r}``{only}{f'; {values}' if values else ''}: "
                     f"{' '.join(s.help.split())}")
    return "\n".join(lines) + "\n"


USim.__doc__ = (USim.__doc__ or "").rstrip() + "\n" + _settings_doc()

def usim(source: GraphLike, correction: GraphLike, variant: str = "paper", **settings: Any) -> Score:
    """USim of a source and its correction (graphs, paths, or native objects)."""
    return USim(variant=variant, **settings).sentence_score(source, correction)


def dag_f(guessed: GraphLike, reference: GraphLike, *, labels: str = "labeled", count: str = "yields") -> Score:
    """DAG F-score of two annotations of the same tokens (precision on ``guessed``)."""
    return _dag_f(*_pair(guessed, reference), labels=labels, count=count)


def distsim(pairs: Iterable[tuple[GraphLike, GraphLike]], labels: Sequence[str] | None = None,
            by_sentence: bool = False) -> DistSim:
    """DistSim per label and label group (lower = more similar) over source/correction pairs:
    a dict of them, whose ``signature`` names the settings (:class:`~semsim.kernel.metrics.distsim.DistSim`)."""
    return _distsim((_pair(a, b) for a, b in pairs), labels, by_sentence)


def parse(texts: Sequence[str], representation: str | None = None, parser: str | None = None,
          model: str | None = None, **settings: Any) -> Parses:
    """Parse whitespace-tokenised sentences, each distinct one once, through the parse cache.

    ``parser`` names a registered parser, else the default one of ``representation``; a
    parser of another representation is an error. A sentence the parser fails on is recorded
    in :attr:`Parses.failed`, and the others are kept. The other keywords are those of
    :class:`~semsim.app.parsing.ParseSettings`: ``cache`` (True for the default file, a path, or
    False for none), ``jobs`` processes or an ``executor`` (docs/scale.md), ``batch_size``,
    ``progress``, and ``tokenize="spacy"`` for untokenized text such as LLM outputs
    (:mod:`semsim.app.tokenization`). :func:`~semsim.app.parsing.parse_texts` takes them as one object.
    """
    from .tokenization import warn_untokenized_python
    how = ParseSettings(parser, representation, model, **settings)
    texts = checked_texts(texts)
    warn_untokenized_python([("the texts", texts)], how.tokenize)
    return parse_texts(texts, how)


def compare(pairs: dict[str, Sequence[tuple[GraphLike, GraphLike]]] | None = None, *,
            sources: Sequence[str] | None = None, corrections: Sequence[str] | None = None,
            parsers: Sequence[str] = (), parsing: ParseSettings | None = None, metric: USim | None = None,
            n_bootstrap: int = 1000, seed: int = 12345) -> Comparison:
    """``semsim compare`` from Python: the same pairs under several representations (UCCA
    against AMR, say), side by side, with the correlation between every two columns.

    Give ``pairs``, per representation a name and its (source, correction) pairs (graphs,
    paths or native objects, matched by position across representations):
    ``compare({"ucca": zip(ucca_src, ucca_cor), "amr": zip(amr_src, amr_cor)})``; or text,
    ``sources`` and ``corrections`` (line-parallel strings), with ``parsers``, one
    ``NAME[=MODEL]`` per representation (``["span-ucca", "amrlib=DIR"]``), parsed through
    ``parsing`` (the cache, jobs, tokenizer; its parser and model are the ``parsers``'). Each
    representation gives a USim column (``metric``'s settings, the same for all) and one per
    metric a plugin registers for it (Smatch for AMR). A pair some column cannot score, or a
    line a parser fails on, is left out of every column and named in the result.

    Returns a :class:`~semsim.app.comparison.Comparison`: ``columns`` (each pair's
    :class:`Score` per column), ``corpus``, ``correlations`` (Pearson and Spearman, with
    p-values), ``signatures``, ``not_compared``; ``table(fmt)`` (or ``str()``) is the
    command's output, in any of its formats.
    """
    from .comparison import check_compared, comparison, pairs_from_texts
    from .scoring import text_pairs
    metric = metric or USim()
    if (pairs is None) == (sources is None and corrections is None):
        raise InputError("compare: give pairs={name: [(source, correction), ...]} per representation, or "
                         "sources=, corrections= and parsers=, not both")
    if pairs is not None:
        if not isinstance(pairs, dict) or not pairs:
            raise InputError(f"compare: pairs must be a dict of representation name -> pairs, got "
                             f"{type(pairs).__name__}")
        by_rep = {name: [_pair(a, b) for a, b in _corpus_pairs(p, None)] for name, p in pairs.items()}
        counts = {name: len(p) for name, p in by_rep.items()}
        if len(set(counts.values())) > 1:
            raise InputError("compare: the representations give different numbers of pairs ("
                             + ", ".join(f"{n}: {c}" for n, c in counts.items()) + "); pairs are matched by position")
        names = [f"pair {i}" for i in range(next(iter(counts.values())))]
        return check_compared(comparison(names, by_rep, metric, n_bootstrap=n_bootstrap, seed=seed))
    srcs, cors = text_pairs(sources, corrections, "compare")
    if isinstance(parsers, str) or not parsers:
        raise InputError("compare: parsers must be a list of parser names (NAME or NAME=MODEL), one per "
                         "representation")
    names, by_rep, unparsed, where, signed_by = pairs_from_texts(srcs, cors, list(parsers), parsing or ParseSettings())
    result = check_compared(comparison(names, by_rep, metric, where, signed_by, n_bootstrap=n_bootstrap, seed=seed))
    left_out = {f"line {e.line}": str(e) for e in reversed(unparsed)}  # a line's first reason kept
    return dataclasses.replace(result, not_compared={**left_out, **result.not_compared})
