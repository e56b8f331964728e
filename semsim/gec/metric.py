"""USim as a reference-free metric for GEC metric suites.

GEC metric suites such as gec-metrics give every metric one surface: a class with a
nested ``@dataclass Config``, built as ``Metric(Metric.Config(...))``, with
``score_sentence(sources, hypotheses) -> list[float]`` and ``score_corpus(sources,
hypotheses) -> float`` (the mean of sentence scores for reference-free metrics). This
class has exactly that shape, so a suite can call it (or wrap it in its own base class)
without semsim knowing the suite::

    from semsim.gec.metric import USimMetric
    scorer = USimMetric(USimMetric.Config(parser="tupa", model="path/to/model"))
    scorer.score_sentence(sources, hypotheses)      # [0.93, 1.0, ...]
    scorer.score_corpus(sources, hypotheses)        # 0.95

Sentences are parsed through the parse cache, each distinct sentence once, so scoring
many systems on the same sources parses the sources once (``score_systems`` does all
systems in one pass). An empty side follows the convention of ``semsim score``: 1 if
both sides are empty, 0 otherwise. A sentence the parser cannot parse raises
:class:`semsim.errors.ParseError` naming it (once the rest of its batch is parsed and
cached): there is no honest number to return for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..api import USim
from ..errors import SemsimError
from ..stats import Score


class USimMetric:
    """USim from plain text, in the shape of gec-metrics' reference-free metrics."""

    @dataclass
    class Config:
        """How sentences are parsed and which USim is computed (see ``semsim.USim``)."""

        parser: str | None = None  # a registered parser; None: the only one for ``representation``
        representation: str | None = None
        model: str | None = None
        usim: USim = field(default_factory=USim)
        cache: str | None = None  # parse cache file; None: the default location
        use_cache: bool = True
        batch_size: int = 32
        jobs: int = 1
        progress: bool = False

    def __init__(self, config: Config | None = None) -> None:
        self.config = config if config is not None else self.Config()

    def score_sentence(self, sources: Sequence[str], hypotheses: Sequence[str]) -> list[float]:
        """USim F of each hypothesis against its source."""
        return self.score_systems(sources, [hypotheses])[0]

    def score_corpus(self, sources: Sequence[str], hypotheses: Sequence[str]) -> float:
        """The mean sentence score (the figure the USim paper reports)."""
        scores = self.score_sentence(sources, hypotheses)
        if not scores:
            raise SemsimError("no sentences to score")
        return sum(scores) / len(scores)

    def score_systems(self, sources: Sequence[str], hypotheses: Sequence[Sequence[str]]) -> list[list[float]]:
        """Sentence scores of several systems' outputs (num_systems x num_sentences), parsing
        every distinct sentence once."""
        return [[s.f for s in scores] for scores in self.sentence_scores(sources, hypotheses)]

    def sentence_scores(self, sources: Sequence[str], hypotheses: Sequence[Sequence[str]]) -> list[list[Score]]:
        """Full :class:`~semsim.Score` objects (counts, signature) per system and sentence."""
        from ..cache import ParseCache
        from ..pipeline import find_parser, parse_sentences, parser_signature, score_systems, signed
        for k, hyps in enumerate(hypotheses):
            if len(hyps) != len(sources):
                raise SemsimError(f"system {k} has {len(hyps)} sentences but there are {len(sources)} sources")
        c = self.config
        parser = find_parser(c.parser, c.representation)
        texts = [*sources, *(h for hyps in hypotheses for h in hyps)]
        if c.use_cache:
            with ParseCache(c.cache) as cache:
                graphs = parse_sentences(texts, parser, c.model, cache, c.batch_size, c.jobs, c.progress)
        else:
            graphs = parse_sentences(texts, parser, c.model, None, c.batch_size, c.jobs, c.progress)
        systems = {str(k): hyps for k, hyps in enumerate(hypotheses)}
        parsed_by = parser_signature(parser, c.model)
        fallback = Score.fixed(0.0, c.usim.part_names(), f"{c.usim.get_signature()}|{parsed_by}")
        out: dict[str, list[Score]] = {k: [] for k in systems}
        for r in score_systems(sources, systems, graphs, signed(c.usim.sentence_score, parsed_by), fallback):
            out[r.system].append(r.score)
        return list(out.values())

    def signature(self) -> str:
        """The settings of the scores, with the parser and model that produced the graphs."""
        from ..pipeline import find_parser, parser_signature
        c = self.config
        return f"{c.usim.get_signature()}|{parser_signature(find_parser(c.parser, c.representation), c.model)}"
