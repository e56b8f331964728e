"""USim as a reference-free metric for GEC metric suites.

gec-metrics (``pip install gec-metrics``) gives every metric one surface: a subclass of
``gec_metrics.metrics.MetricBaseForReferenceFree`` with a nested ``@dataclass Config``
deriving from the base's ``Config``, built as ``Metric(Metric.Config(**settings))`` (its
command line reads the settings from a YAML file, so they are flat fields of plain
values), with ``score_sentence(sources, hypotheses) -> list[float]`` and
``score_corpus(sources, hypotheses) -> float``. When gec-metrics is installed,
:class:`USimMetric` *is* such a subclass (its meta-evaluations check ``isinstance``), and
:func:`register` adds it to gec-metrics' registry as ``usim``::

    import gec_metrics
    from semsim.app.metric import register
    register()
    cls = gec_metrics.get_metric("usim")
    scorer = cls(cls.Config(parser="tupa", model="path/to/model", labels="weak"))
    scorer.score_sentence(sources, hypotheses)      # [0.93, 1.0, ...]
    scorer.score_corpus(sources, hypotheses)        # 0.95
    scorer.rank_systems(sources, [hyps_a, hyps_b])  # gec-metrics' own system ranking

Without gec-metrics it has the same shape on a stand-in base, so a suite can call it
without semsim depending on the package (which pulls torch, transformers, an LLM client
and more). Importing gec-metrics takes seconds; it is imported here only when installed.

Sentences are parsed through the parse cache, each distinct sentence once, so scoring
many systems on the same sources parses the sources once (``score_systems`` does all
systems in one pass). An empty side follows the convention of ``semsim score``: 1 if
both sides are empty, 0 otherwise. A sentence the parser cannot parse raises
:class:`semsim.kernel.errors.ParseError` naming it (once the rest of its batch is parsed and
cached): there is no honest number to return for it.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..kernel.errors import SemsimError, SettingsError
from ..kernel.metrics.settings import SETTINGS, Settings, given_fields, track_given
from ..kernel.signature import Signature
from ..kernel.stats import Score
from .parsing import ParseSettings
from .usim import USim


class _StandaloneBase:
    """What USimMetric needs of gec-metrics' ``MetricBase`` when gec-metrics is absent:
    the nested ``Config`` and an ``__init__`` that stores the config (or the defaults)."""

    @dataclass
    class Config:
        pass

    def __init__(self, config: Any = None) -> None:
        self.config = config if config is not None else self.Config()


def _gec_metrics_base() -> type:
    """gec-metrics' reference-free base class if gec-metrics is installed, else the stand-in.

    Only a missing ``gec_metrics`` falls back silently; an installed one that fails to
    import (a dependency missing) falls back with a warning naming the error, so semsim's
    own use of the adapter keeps working while the broken installation is visible."""
    if importlib.util.find_spec("gec_metrics") is None:
        return _StandaloneBase
    try:
        from gec_metrics.metrics.base import MetricBaseForReferenceFree
    except ImportError as exc:
        warnings.warn(f"gec-metrics is installed but cannot be imported ({exc}); USimMetric is not a "
                      "gec-metrics metric in this process", RuntimeWarning, stacklevel=2)
        return _StandaloneBase
    return MetricBaseForReferenceFree


if TYPE_CHECKING:
    _Base = _StandaloneBase
else:
    _Base = _gec_metrics_base()


_CONFIG_DOC = """How sentences are parsed and which USim is computed, as flat fields of plain
values (gec-metrics builds the config from a YAML mapping).

After the parsing fields come :class:`semsim.USim`'s settings, one field per row of
:data:`semsim.kernel.metrics.settings.SETTINGS` with its default (made from the fields of
:class:`~semsim.kernel.metrics.settings.Settings`, not written out again), so
``Config(parser=..., **dataclasses.asdict(USim(labels="weak")))`` works too;
``config.usim`` is the :class:`~semsim.USim` they make.
"""


class USimMetric(_Base):
    """USim from plain text, as a gec-metrics reference-free metric (see the module)."""

    @dataclass
    class _Parsing(_Base.Config):
        """The fields of :class:`Config` before USim's settings: how sentences are parsed;
        and what a config checks when made."""

        parser: str | None = None  # a registered parser; None: the only one for ``representation``
        representation: str | None = None
        model: str | None = None
        cache: str | None = None  # parse cache file; None: the default location
        use_cache: bool = True
        batch_size: int = 32
        jobs: int = 1
        executor: str = "local"  # or "dask" (a local cluster of ``jobs`` workers), "dask://HOST:PORT"
        batch_timeout: float | None = None  # Dask: seconds per batch before its worker is restarted
        progress: bool = False
        tokenize: str = "none"  # or "spacy": tokenize untokenized text (LLM outputs) first (semsim.app.tokenization)
        trust_model: bool = False  # load a TUPA/amrlib model semsim did not download (its format runs code)

        def __post_init__(self) -> None:
            # checked as every surface's settings are, when made: not at the first sentence
            if type(self.use_cache) is not bool:  # "no" is a true string (a YAML config's quoting)
                raise SettingsError(f"use_cache={self.use_cache!r}: expected True or False", ["use_cache"])
            _ = self.usim, self.parsing

        @property
        def usim(self) -> USim:
            given = given_fields(self)  # the keys the config was given (track_given)
            return USim(**{s.name: getattr(self, s.name) for s in SETTINGS
                           if given is None or s.name in given or getattr(self, s.name) != s.default})

        @property
        def parsing(self) -> ParseSettings:
            """The parsing fields as the one settings object of every route from text
            (``cache`` and ``use_cache`` apart here, for gec-metrics' flat YAML)."""
            cache = (self.cache or True) if self.use_cache else False
            return ParseSettings(self.parser, self.representation, self.model, cache, self.batch_size, self.jobs,
                                 self.executor, self.batch_timeout, self.tokenize, self.progress, self.trust_model)

    if TYPE_CHECKING:  # a type checker sees the parsing fields; the settings' come from the table
        class Config(_Parsing):
            pass
    else:
        Config = dataclasses.make_dataclass(
            "Config", [(f.name, f.type, dataclasses.field(default=f.default)) for f in dataclasses.fields(Settings)],
            bases=(_Parsing,), namespace={"__doc__": _CONFIG_DOC, "__module__": __name__,
                                          "__qualname__": "USimMetric.Config"})
    track_given(Config)

    config: Config

    def __init__(self, config: Config | None = None) -> None:
        # gec-metrics' MetricBase.__init__ sets config (the defaults if None) and the
        # attributes its helpers use (apply_edits)
        super().__init__(config)

    def score_sentence(self, sources: Sequence[str], hypotheses: Sequence[str]) -> list[float]:
        """USim F of each hypothesis against its source."""
        return self.score_systems(sources, [hypotheses])[0]

    def score_corpus(self, sources: Sequence[str], hypotheses: Sequence[str]) -> float:
        """The mean sentence score (the figure the USim paper reports)."""
        scores = self.score_sentence(sources, hypotheses)
        if not scores:
            raise SemsimError("no sentences to score")
        return sum(scores) / len(scores)

    def rank_systems(self, sources: Sequence[str], hypotheses: Sequence[Sequence[str]],
                     aggregation: str = "default") -> list[float]:
        """System scores (gec-metrics' ``rank_systems``) from one pass over every system's
        sentences: each distinct sentence parsed once, the model hashed once. ``default``
        is each system's mean USim; ``trueskill`` rates systems on their pairwise
        sentence comparisons, as gec-metrics does (needs gec-metrics).

        A high USim means *faithful* to the source, which an unchanged output is
        perfectly: it ranks conservative systems first. Read it beside a measure of
        grammaticality, never as a quality ranking on its own (docs/systems.md)."""
        if aggregation == "default":
            return [sum(scores) / len(scores) if scores else 0.0 for scores in self.score_systems(sources, hypotheses)]
        if aggregation == "trueskill":
            if not hasattr(self, "run_trueskill"):
                raise SemsimError("aggregation='trueskill' needs gec-metrics (its TrueSkill rating)")
            return self.run_trueskill(self.score_pairwise(sources, hypotheses))
        raise SettingsError(f"aggregation must be 'default' or 'trueskill', not {aggregation!r}")

    def score_pairwise(self, sources: Sequence[str], hypotheses: Sequence[Sequence[str]]) -> list[list[list[int]]]:
        """gec-metrics' pairwise table (sentence × system × system: 1 if the row system scores
        higher, -1 lower, 0 a tie), from one pass over all systems (:meth:`score_systems`)."""
        scores = self.score_systems(sources, hypotheses)
        return [[[(a > b) - (a < b) for b in row] for a in row] for row in zip(*scores)]

    def score_systems(self, sources: Sequence[str], hypotheses: Sequence[Sequence[str]]) -> list[list[float]]:
        """Sentence scores of several systems' outputs (num_systems x num_sentences), parsing
        every distinct sentence once."""
        return [[s.f for s in scores] for scores in self.sentence_scores(sources, hypotheses)]

    def sentence_scores(self, sources: Sequence[str], hypotheses: Sequence[Sequence[str]]) -> list[list[Score]]:
        """Full :class:`~semsim.Score` objects (counts, signature) per system and sentence."""
        from ..kernel.files import checked_sentences
        from .scoring import score_texts
        from .tokenization import warn_untokenized_python
        sources = checked_sentences("sources", sources)
        hypotheses = [checked_sentences(f"hypotheses[{k}]", h) for k, h in enumerate(hypotheses)]
        for k, hyps in enumerate(hypotheses):
            if len(hyps) != len(sources):
                raise SemsimError(f"system {k} has {len(hyps)} sentences but there are {len(sources)} sources")
        c = self.config
        warn_untokenized_python([("the sources", sources), *((f"system {k}", h) for k, h in enumerate(hypotheses))],
                                c.tokenize)
        systems = {str(k): hyps for k, hyps in enumerate(hypotheses)}
        return list(score_texts(c.usim, sources, systems, c.parsing).by_system().values())

    def get_signature(self) -> str:
        """The settings of the scores, with the parser and model that produced the graphs (and
        the tokenizer, if one split the text first): :meth:`signature` rendered, as gec-metrics
        and the Hugging Face module write it."""
        return self.signature().format()

    def signature(self) -> Signature:
        """:meth:`get_signature` as fields: what every score of this metric carries."""
        from .parsing import parser_fields, signed_with
        c = self.config
        parser = c.parsing.find()
        return signed_with(c.usim.signature(parser.representation), parser_fields(parser, c.model, c.tokenize),
                           parser.name)


def config_fields(settings: ParseSettings) -> dict[str, Any]:
    """The parsing fields of a :class:`USimMetric.Config` that parses as ``settings`` says
    (the inverse of its ``parsing``)."""
    fields = {f.name: getattr(settings, f.name) for f in dataclasses.fields(settings) if f.name != "cache"}
    cache = settings.cache
    return {**fields, "cache": None if isinstance(cache, bool) else str(cache), "use_cache": cache is not False}


def register(name: str = "usim") -> type[USimMetric]:
    """Add :class:`USimMetric` to gec-metrics' registry, so that ``gec_metrics.get_metric(name)``
    (and what is built on it) finds it. gec-metrics has no plugin entry points, so this
    is explicit: importing semsim does not change another package's state."""
    from gec_metrics.metrics import METRIC_ID2CLS, MetricBaseForReferenceFree
    if not issubclass(USimMetric, MetricBaseForReferenceFree):
        raise SemsimError("gec-metrics was not importable when semsim.app.metric was imported; see the warning")
    METRIC_ID2CLS[name] = USimMetric
    return USimMetric
