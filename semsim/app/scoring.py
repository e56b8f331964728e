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

import contextlib
import os
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from ..kernel.errors import InputError, ParseError, SemsimError, SettingsError
from ..kernel.graph import Graph
from ..kernel.limits import LimitError, check_pair
from ..kernel.signature import Signature
from ..kernel.stats import Score
from .cache import ParseCache
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
                files: Files | None = None, store: ParseCache | None = None,
                none_scored: bool = False, progress: Callable[[int, int], None] | None = None) -> ScoredLines:
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
    :class:`~semsim.kernel.limits.LimitError`. ``none_scored`` lets every line be left out
    (the Python API then gives each its documented fallback, :func:`pair_scores`).
    ``store``: an open parse cache, used instead of ``parsing.cache`` (:func:`parse_texts`).
    ``progress(done, total)``: told how many of the distinct sentences are parsed (or found in
    the cache) as each batch is stored, for a caller that draws its own bar.
    """
    parsing = parsing or ParseSettings()
    systems = {name: list(lines) for name, lines in systems.items()}
    if any(len(lines) != len(source) for lines in systems.values()):
        raise InputError(f"every system needs one line per source line ({len(source)})")
    # with batches parsed elsewhere, this process scores each pair once its two sides are parsed
    early = None if parsing.parses_here else ScoresWhileParsing(source, systems.values(), metric.sentence_score)
    texts = [*source, *(line for lines in systems.values() for line in lines)]
    parses = parse_texts(texts, parsing, keep_going=keep_going, on_parsed=_told(early, progress, texts), store=store)
    src = parses.tokenized(source)
    tokenized = {name: parses.tokenized(lines) for name, lines in systems.items()}
    skipped = _skipped(src, tokenized, parses, files) if keep_going else []
    skip = {e.line for e in skipped if e.line is not None}
    pairs = {i for i, s in enumerate(src, 1) if s.strip() and any(f[i - 1].strip() for f in tokenized.values())}
    if skipped and pairs <= skip and not none_scored:  # what is left would be empty-line conventions only
        raise SemsimError(f"no line could be scored: {skipped[0]}")
    signature = parses.sign(metric.signature(parses.representation))
    fallback = Score.fixed(0.0, metric.part_names(), signature)
    # scoring takes as long as parsing where the parses come from the cache (--preset meaning's
    # contextual alignment: 30 s for 25 systems), so it shows progress as a parse does
    from ..kernel.progress import bar
    total = len(tokenized) * (len(src) - len(skip & set(range(1, len(src) + 1))))
    lines = list(bar(score_lines(src, tokenized, parses.graphs, parses.signed(metric.sentence_score), fallback, skip,
                                 early.scored if early else None),
                     total=total, desc="scoring", unit="line", quiet=not parsing.progress or total < 2))
    return ScoredLines(src, tokenized, lines, skipped, signature)


def _told(early: ScoresWhileParsing | None, progress: Callable[[int, int], None] | None,
          texts: Sequence[str]) -> Callable[[dict[str, Graph], Parses], None] | None:
    """What :func:`parse_texts` calls as graphs arrive: the pairs scored while workers parse
    (``early``), and the caller's ``progress`` told of the distinct sentences parsed so far."""
    if progress is None:
        return early
    total = len({" ".join(t.split()) for t in texts if t.strip()})
    done = 0

    def told(new: dict[str, Graph], parses: Parses) -> None:
        nonlocal done
        if early is not None:
            early(new, parses)
        done += len(new)
        with contextlib.suppress(Exception):  # a caller's bar must not fail the parse (on_parsed must not raise)
            progress(min(done, total), total)
    return told


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


#: What the Python API does with a pair it cannot score (:func:`pair_scores`' ``errors``)
ERRORS = ("raise", "fallback")


def pair_scores(metric: TextMetric, sources: Sequence[str], corrections: Sequence[str],
                parsing: ParseSettings | None = None, *, errors: str = "raise", store: ParseCache | None = None,
                fallback: float = 0.0, progress: Callable[[int, int], None] | None = None) -> list[Score]:
    """One score per (source, correction) pair, from text, for the Python API: a pair the
    parser fails on (or too large to align) costs only itself.

    ``errors="raise"``: the first such pair raises its :class:`~semsim.kernel.errors.ParseError`
    (or :class:`~semsim.kernel.limits.LimitError`) naming the pair's 0-based index, the side
    and the reason (``pair 3 (correction): ...``), with ``index`` as an attribute; the other
    pairs were parsed and cached. ``errors="fallback"``: that pair scores ``fallback`` by
    convention (``Score.convention``; zero counts, so it adds nothing to a micro average and
    ``fallback`` to a macro one), and its ``extra`` holds ``error`` (the reason) and
    ``index``, as ``semsim score --keep-going`` names a line it leaves out."""
    check_errors(errors)
    result = score_texts(metric, sources, {"": corrections}, parsing, keep_going=True, store=store,
                         files=Files("source", {"": "correction"}), none_scored=True, progress=progress)
    by_line = {r.line: r.score for r in result.lines}
    why: dict[int, InputError] = {}
    for e in result.skipped:
        why.setdefault((e.line or 1) - 1, e)
    template = next(iter(by_line.values()), None)
    out = []
    for index in range(len(sources)):
        if index + 1 in by_line:
            out.append(by_line[index + 1])
            continue
        e = why[index]
        if errors == "raise":
            raise pair_error(e, index)
        fixed = Score.fixed(fallback, metric.part_names(), result.signature,
                            template.headline if template else ())
        out.append(replace(fixed, extra={"error": f"{e.path}: {e.message}", "index": index}))
    return out


def pair_error(e: InputError, index: int) -> SemsimError:
    """The error of a pair left out, named by its 0-based index and side: a
    :class:`ParseError` if a side did not parse, else a :class:`LimitError` (too large)."""
    message = f"pair {index} ({e.path}): {e.message}"
    # the limits' messages (semsim.kernel.limits.check_pair) say "too large ..." / "too deeply ..."
    error: SemsimError = LimitError(message) if e.message.startswith("too ") else ParseError(message)
    error.index = index
    return error


def check_errors(errors: object) -> None:
    """Refuse an ``errors`` policy that is not one of :data:`ERRORS` (one line)."""
    if errors not in ERRORS:
        raise SettingsError(f"errors={errors!r}: expected one of {', '.join(map(repr, ERRORS))}", ["errors"])


def text_pairs(sources: object, corrections: object, caller: str) -> tuple[list[str], list[str]]:
    """The two sides of text pairs as lists of strings, line-parallel; else one
    :class:`InputError` naming what is wrong: a side given as one string (its characters are
    no sentences), or an item that is no string, by side, 0-based position and type."""
    sides = []
    for name, side in (("sources", sources), ("corrections", corrections)):
        if isinstance(side, (str, bytes)) or not isinstance(side, Iterable):
            raise InputError(f"{caller}: {name} must be a list of strings (one sentence each), got "
                             f"{'one ' if isinstance(side, (str, bytes)) else ''}{type(side).__name__}"
                             f"{'; wrap a single pair as ([source], [correction])' if isinstance(side, str) else ''}")
        items = list(side)
        bad = next((k for k, t in enumerate(items) if not isinstance(t, str)), None)
        if bad is not None:
            raise InputError(f"{caller}: {name}[{bad}] is {type(items[bad]).__name__}, expected a string")
        sides.append(items)
    if len(sides[0]) != len(sides[1]):
        raise InputError(f"{caller}: {len(sides[0])} sources but {len(sides[1])} corrections; they must be "
                         "line-parallel")
    return sides[0], sides[1]


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
    (:func:`score_texts`) and ``semsim compare --source --hyp`` takes per parser, ``semsim explain
    --line`` for its one pair (raising what it leaves out) and ``semsim sensitivity`` for each
    chain's (anchor, version) pairs (leaving out the chain): parse every
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
