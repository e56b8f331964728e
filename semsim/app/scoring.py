"""Text to scores: the one route `semsim score`, :meth:`semsim.USim.text_scores` and
:class:`semsim.app.metric.USimMetric` (and through it gec-metrics, the Hugging Face module and
the meta-evaluation) take (:func:`score_texts`), beside the route from text to graphs
(:func:`semsim.app.parsing.parse_texts`).

It owns what each of them used to write out for itself: parsing every side through
:func:`~semsim.app.parsing.parse_texts` (scoring pairs while workers still parse), the lines
left out (a sentence the parser failed on, a pair too large to align), the empty-line
convention of the authors' tool and the score it copies when no line could give one, and the
signature: the metric's settings, then the parser's and model's fields.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..kernel.errors import InputError, SemsimError
from ..kernel.graph import Graph
from ..kernel.limits import check_pair
from ..kernel.signature import Signature
from ..kernel.stats import Score
from .parsing import Parses, ParseSettings, graph_key, parse_texts
from .textfiles import too_large_lines, unparsed_lines


class TextMetric(Protocol):
    """What the route asks of a metric (:class:`semsim.USim` is one)."""

    def sentence_score(self, source: Graph, correction: Graph) -> Score: ...

    def part_names(self) -> list[str]: ...

    def signature(self, scheme: str | None = None) -> Signature: ...


@dataclass(frozen=True)
class Files:
    """Where the texts were read from, for the errors that name a line left out
    (``FILE:LINE: why``): the source's file and each system's, by the system's name."""

    source: str | os.PathLike[str]
    systems: Mapping[str, str | os.PathLike[str]]


@dataclass(frozen=True)
class ScoredLines:
    """What :func:`score_texts` returns: every line's score, system by system in the order
    given and line by line (the lines left out missing, for every system alike), with the
    texts as they were parsed (tokenized, if a tokenizer split them)."""

    source: list[str]
    systems: dict[str, list[str]]
    lines: list[SentenceResult]
    #: the lines left out, one error per file and line: the parser failed on a sentence, or a
    #: pair is too large to align (only with ``keep_going``; otherwise the first one raises)
    skipped: list[InputError] = field(default_factory=list)
    #: the settings and parser every score names (the metric's fields, then the parser's)
    signature: Signature = field(default_factory=Signature)

    @property
    def skip(self) -> set[int]:
        """The 1-based lines left out."""
        return {e.line for e in self.skipped if e.line is not None}

    def by_system(self) -> dict[str, list[Score]]:
        """Each system's scores, in line order."""
        out: dict[str, list[Score]] = {name: [] for name in self.systems}
        for r in self.lines:
            out[r.system].append(r.score)
        return out


def score_texts(metric: TextMetric, source: Sequence[str], systems: Mapping[str, Sequence[str]],
                parsing: ParseSettings | None = None, *, keep_going: bool = False,
                files: Files | None = None) -> ScoredLines:
    """Each system's lines scored against the ``source`` lines (line-parallel), from text.

    Every distinct sentence is parsed once, through the parse cache (``parsing``); with
    batches parsed elsewhere (``jobs`` > 1, Dask) each pair is scored as soon as its two
    sides are parsed. A pair with an empty side is not parsed: it scores 1 if both sides are
    empty and 0 otherwise, by convention, with the parts and signature of a real score of
    the run (or, when no line gives one, of a zero score with the run's signature).

    With ``keep_going``, a line whose sentence the parser failed on, or whose pair is too
    large to align, is left out for every system alike and named in
    :attr:`ScoredLines.skipped` (by ``files``, else by ``source`` and the systems' names);
    if that leaves nothing but empty-line conventions, :class:`~semsim.kernel.errors.SemsimError`.
    Without it, the first sentence the parser fails on raises
    :class:`~semsim.kernel.errors.ParseError`, and a pair too large to align its
    :class:`~semsim.kernel.limits.LimitError`: the Python surfaces have no honest number to return.
    """
    parsing = parsing or ParseSettings()
    systems = {name: list(lines) for name, lines in systems.items()}
    if any(len(lines) != len(source) for lines in systems.values()):
        raise InputError(f"every system needs one line per source line ({len(source)})")
    # with batches parsed elsewhere, this process scores each pair once its two sides are parsed
    early = None if parsing.parses_here else ScoresWhileParsing(source, systems.values(), metric.sentence_score)
    parses = parse_texts([*source, *(line for lines in systems.values() for line in lines)], parsing,
                         keep_going=keep_going, on_parsed=early)
    src = parses.tokenized(source)
    tokenized = {name: parses.tokenized(lines) for name, lines in systems.items()}
    skipped = _skipped(src, tokenized, parses, files) if keep_going else []
    skip = {e.line for e in skipped if e.line is not None}
    pairs = {i for i, s in enumerate(src, 1) if s.strip() and any(f[i - 1].strip() for f in tokenized.values())}
    if skipped and pairs <= skip:  # what is left would be empty-line conventions only
        raise SemsimError(f"no line could be scored: {skipped[0]}")
    signature = parses.sign(metric.signature(parses.representation))
    fallback = Score.fixed(0.0, metric.part_names(), signature)
    lines = list(score_lines(src, tokenized, parses.graphs, parses.signed(metric.sentence_score), fallback, skip,
                             early.scored if early else None))
    return ScoredLines(src, tokenized, lines, skipped, signature)


def _skipped(source: list[str], systems: dict[str, list[str]], parses: Parses,
             files: Files | None, left_out: Collection[int] = ()) -> list[InputError]:
    """The lines to leave out, in file order: the source's and each system's unparsed
    sentences, then the pairs too large to align (:mod:`semsim.app.textfiles`; not asked of
    a line already ``left_out``)."""
    at = files or Files("source", {name: name for name in systems})
    by_file = {at.systems[name]: lines for name, lines in systems.items()}
    unparsed = unparsed_lines({at.source: source, **by_file}, parses.failed)
    return unparsed + too_large_lines(source, by_file, parses.graphs,
                                      {e.line for e in unparsed if e.line is not None} | set(left_out))


@dataclass(frozen=True)
class ParsedPairs:
    """Two line-parallel texts (a source and one output) parsed through the one route from
    text (:func:`parse_pairs`): the texts as tokenized for parsing, the lines left out, and
    the parses (their graphs, and :meth:`~semsim.app.parsing.Parses.sign` for the scores)."""

    source: list[str]
    output: list[str]
    parses: Parses
    #: one error per file and line: a sentence the parser failed on, a pair too large to align
    skipped: list[InputError]

    @property
    def lines(self) -> list[int]:
        """The 1-based lines to score: two non-empty sides, not left out."""
        skip = {e.line for e in self.skipped if e.line is not None}
        return [i for i, (a, b) in enumerate(zip(self.source, self.output), 1)
                if a.strip() and b.strip() and i not in skip]

    def graphs(self, line: int) -> tuple[Graph, Graph]:
        """The two graphs of 1-based ``line`` (one of :attr:`lines`)."""
        got = self.parses.graphs
        return got[graph_key(self.source[line - 1])], got[graph_key(self.output[line - 1])]


def parse_pairs(source: Sequence[str], output: Sequence[str], parsing: ParseSettings, files: Files,
                left_out: Collection[int] = ()) -> ParsedPairs:
    """The step from two line-parallel texts to graph pairs that ``semsim score``'s route takes
    (:func:`score_texts`) and ``semsim compare --source --hyp`` takes per parser: parse every
    distinct sentence once, and leave out, by file and line, the sentences the parser failed
    on and the pairs too large to align (not asked of lines already ``left_out``)."""
    parses = parse_texts([*source, *output], parsing)
    src, out = parses.tokenized(source), parses.tokenized(output)
    (name,) = files.systems
    return ParsedPairs(src, out, parses, _skipped(src, {name: out}, parses, files, left_out))


class ScoresWhileParsing:
    """Line pairs scored while the rest of a run is still being parsed: ``on_parsed`` for
    :func:`semsim.app.parsing.parse_texts`, then :attr:`scored` for :func:`score_lines`.

    With batches parsed in worker processes (``--jobs``, Dask), the command's own process
    only stores what comes back, and it sat idle for most of the parse; after the parse,
    scoring the pairs ran on one core while the others idled (SEEDA: 10 of the 91 s of
    ``--jobs 2``). So each pair is scored as soon as its two sentences are parsed. A score
    depends on the two graphs alone, so it is the same whenever it is computed, and the
    output is byte-identical (tested). A pair too large to align, or one a measure refuses
    (a :class:`~semsim.kernel.errors.SemsimError`), is left to :func:`score_lines`, which skips
    it or raises as it always did; any other exception is a bug, and stops the run at once.
    """

    def __init__(self, source: Sequence[str], systems: Iterable[Sequence[str]],
                 score: Callable[[Graph, Graph], Score]) -> None:
        self.lines, self.score = (list(source), [list(s) for s in systems]), score
        self.scored: dict[tuple[str, str], Score] = {}
        self._waiting: dict[str, list[tuple[str, str]]] | None = None  # a key -> the pairs it completes
        self._signed = score

    def __call__(self, new: Mapping[str, Graph], parses: Parses) -> None:
        if self._waiting is None:  # the first call: the texts are tokenized, the parser signed
            self._waiting, (source, systems) = {}, self.lines
            self._signed = parses.signed(self.score)
            pairs = dict.fromkeys((parses.key(a), parses.key(b)) for lines in systems for a, b in zip(source, lines)
                                  if a.strip() and b.strip())
            for pair in pairs:
                for key in dict.fromkeys(pair):
                    self._waiting.setdefault(key, []).append(pair)
        graphs = parses.graphs
        for key in new:
            for a, b in self._waiting.pop(key, ()):
                if (a, b) in self.scored or a not in graphs or b not in graphs:
                    continue
                try:
                    check_pair(graphs[a], graphs[b])
                    self.scored[a, b] = self._signed(graphs[a], graphs[b])
                except SemsimError:  # too large, a measure refusing the pair: score_lines skips or raises
                    continue


@dataclass(frozen=True)
class SentenceResult:
    system: str
    line: int
    score: Score
    empty: bool


def score_lines(source: Sequence[str], systems: Mapping[str, Sequence[str]], graphs: dict[str, Graph],
                  score: Callable[[Graph, Graph], Score], fallback: Score,
                  skip: Collection[int] = (), scored: Mapping[tuple[str, str], Score] | None = None
                  ) -> Iterator[SentenceResult]:
    """Score each system's lines against the source lines, in file order, but for the
    1-based lines in ``skip`` (e.g. a sentence that could not be parsed), for every system
    alike, so that systems stay comparable sentence by sentence.

    A pair with an empty side is not parsed; as in the authors' tool it scores 1 if both
    sides are empty and 0 otherwise, by convention (no counts). Such scores copy the parts
    and signature of a real score of the run (``fallback`` when every pair is empty).
    ``scored`` holds pairs scored already, by normalised text (:class:`ScoresWhileParsing`).
    """
    template: Score | None = None
    # A pair is scored once: systems agree on most lines (SEEDA: 18,367 pairs, 7,773 distinct),
    # and a score depends on the two graphs alone.
    scored = dict(scored or {})

    def pair_score(src: str, hyp: str) -> Score:
        pair = graph_key(src), graph_key(hyp)
        if pair not in scored:
            scored[pair] = score(graphs[pair[0]], graphs[pair[1]])
        return scored[pair]

    for name, lines in systems.items():
        for i, (src, hyp) in enumerate(zip(source, lines)):
            if i + 1 in skip:
                continue
            if src.strip() and hyp.strip():
                yield SentenceResult(name, i + 1, pair_score(src, hyp), False)
                continue
            if template is None:
                template = next((pair_score(a, b)
                                 for lines_ in systems.values() for k, (a, b) in enumerate(zip(source, lines_))
                                 if a.strip() and b.strip() and k + 1 not in skip), fallback)
            value = 1.0 if not src.strip() and not hyp.strip() else 0.0
            yield SentenceResult(name, i + 1, Score.fixed(value, list(template.parts), template.signature,
                                                          template.headline), True)
