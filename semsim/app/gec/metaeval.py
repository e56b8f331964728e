"""Meta-evaluation against people: how well a measure's sentence scores agree with human
judgments of meaning preservation.

A faithfulness measure is only as good as its agreement with people who judged whether an
output kept its source's meaning. This module reads such judgments (:func:`read_judgments`:
TMU-GFM's GEC ratings, ASSET's simplification ratings, or a plain TSV), keeps the outputs
that changed their source (:func:`changed`: an unchanged output is perfectly faithful to
any measure and would inflate every correlation), scores the pairs with any measures
(:class:`USimMeasure` for semsim with any USim settings; :data:`ANCHORS`, the measures a
reader knows: token Levenshtein, chrF, MiniLM cosine, BERTScore), and correlates each with
the people (:func:`correlate`: Pearson, Spearman, Kendall, each with a bootstrap interval
that resamples *sources*, since several outputs of one source are not independent).

A measure is anything that maps ``(source, output)`` pairs, as the table gives them, to
one float each; a ``signature`` attribute, if it has one, names what computed the numbers.
Each measure tokenizes as it needs: USim through its ``tokenize`` setting, the Levenshtein
anchor likewise, while chrF (whitespace ignored) and the encoders (their own word pieces)
read the text as written.
"""

from __future__ import annotations

import csv
import functools
import io
import math
import os
import re
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np

from ...kernel.errors import InputError, SemsimError, SettingsError
from ...kernel.files import read_text, shown
from ...kernel.stats import percentile_interval
from ..report import Col, Record, Report, Table, num, render

#: The table formats :func:`read_judgments` reads; ``auto`` tells them apart by header and suffix.
TABLE_FORMATS = ("auto", "tmu-gfm", "asset", "tsv")
#: The correlation coefficients reported, in order (Kendall's is tau-b: ties are common).
CORRELATIONS = ("pearson", "spearman", "kendall")
#: The renderings of :meth:`MetaEvaluation.render`.
RENDERINGS = ("text", "markdown", "tsv", "json")
#: The encoder the embedding anchors run on (:data:`semsim.models.PINNED`): the one the UCCA
#: parser and its paraphrase judge pin, so that all of them compute with the same weights.
ENCODER = "all-MiniLM-L6-v2"

Pair = tuple[str, str]


# -- judgments ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Judgment:
    """People's judgment of how well ``output`` keeps the meaning of ``source``.

    ``human`` is the number correlated with (the raters' mean), ``ratings`` the raters'
    own numbers; ``row`` is the 1-based line of the table where the judgment starts (its
    first row, for tables with a row per rating), so that a number can be traced back.
    """

    source: str
    output: str
    human: float
    ratings: tuple[float, ...]
    row: int
    system: str = ""


def read_judgments(path: str | os.PathLike[str], format: str = "auto") -> list[Judgment]:
    """The judgments of a table (``-``: standard input), in the table's order.

    Formats (:data:`TABLE_FORMATS`): ``tmu-gfm`` (CSV with ``source``, ``output``,
    ``meaning``: the raters' scores joined by commas, ``ave_m``: their mean, the human
    score; ``system`` if present), ``asset`` (CSV with a row per rating: ``original``,
    ``simplification``, ``aspect``, ``rating``; the ``meaning`` ratings of each pair
    averaged, the pairs in the order first seen), ``tsv`` (``source<TAB>output<TAB>score``
    with any further scores in more columns, averaged; a first line whose third field is
    no number is a header). A missing column, a row with too few or too many fields, a
    score that is no finite number, or no judgment at all is an :class:`InputError`
    naming the file and line.
    """
    if format not in TABLE_FORMATS:
        raise SettingsError(f"unknown table format {format!r}: choose one of {', '.join(TABLE_FORMATS)}")
    text = read_text(path)
    where = shown(path)
    if format == "auto":
        format = _detect(where, text)
    readers: dict[str, Callable[[str, str], list[Judgment]]] = {"tmu-gfm": _read_tmu_gfm, "asset": _read_asset,
                                                                 "tsv": _read_tsv}
    judgments = readers[format](where, text)
    if not judgments:
        raise InputError(f"no judgments in this {format} table", where)
    return judgments


def _header_cells(text: str) -> list[str]:
    first = text.split("\n", 1)[0]
    try:
        return [c.strip().lower() for c in next(csv.reader([first]), [])]
    except csv.Error:
        return []


def _detect(path: str, text: str) -> str:
    """The format of a table from its first line (and, for a headerless TSV, its suffix)."""
    first = text.split("\n", 1)[0]
    if not text.strip():
        raise InputError("empty table", path, 1)
    if "\t" in first or Path(path).suffix.lower() in (".tsv", ".tab"):
        return "tsv"
    header = set(_header_cells(text))
    if {"source", "output"} <= header:
        return "tmu-gfm"
    if {"original", "simplification"} <= header:
        return "asset"
    raise InputError("cannot tell the table's format: neither a TMU-GFM header (source,output,...,meaning,...,"
                     "ave_m), an ASSET one (original,simplification,...,aspect,...,rating) nor tab-separated "
                     "fields; name it with --table-format", path, 1)


def _csv_records(path: str, text: str) -> Iterator[tuple[int, list[str]]]:
    """(first line, fields) of each non-blank CSV record (a quoted field may span lines)."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    start = 1
    try:
        for record in reader:
            if record:
                yield start, record
            start = reader.line_num + 1
    except csv.Error as exc:
        raise InputError(f"not CSV: {exc}", path, reader.line_num) from None


def _columns(path: str, header: list[str], line: int, required: Sequence[str], fmt: str) -> dict[str, int]:
    """Where each column is; a missing required column names the header's line, and so does
    one of the columns read (``required``, ``system``) given twice: which would be meant?"""
    names = [c.strip().lower() for c in header]
    missing = [c for c in required if c not in names]
    if missing:
        raise InputError(f"no column {', '.join(missing)} in the header of this {fmt} table "
                         f"(expected {','.join(required)})", path, line)
    twice = next((c for c in (*required, "system") if names.count(c) > 1), None)
    if twice is not None:
        raise InputError(f"column {twice!r} appears {names.count(twice)} times in the header: keep one", path, line)
    return {name: names.index(name) for name in dict.fromkeys(names)}


def _fields(path: str, line: int, record: list[str], header: list[str]) -> None:
    if len(record) != len(header):
        few = "too few" if len(record) < len(header) else "too many"
        raise InputError(f"{few} fields: {len(record)}, but the header has {len(header)}", path, line)


def _number(path: str, line: int, what: str, text: str) -> float:
    """A score of a table, refused unless it is a finite number."""
    if not _NUMBER.fullmatch(text.strip()):  # float() takes 1_0 and other scripts' digits: a table does not
        raise InputError(f"{what} {text.strip()!r} is not a number (plain digits, a point, an exponent)", path, line)
    value = float(text.strip())
    if not math.isfinite(value):
        raise InputError(f"{what} {text.strip()!r} is not a finite number", path, line)
    return value


def _csv_table(path: str, text: str, required: tuple[str, ...], fmt: str
               ) -> tuple[Iterator[tuple[int, list[str]]], list[str], dict[str, int]]:
    """A CSV table's remaining records, its header and the columns it must have (by name)."""
    records = _csv_records(path, text)
    first = next(records, None)
    if first is None:
        raise InputError("empty table", path, 1)
    line, header = first
    return records, header, _columns(path, header, line, required, fmt)


def _read_tmu_gfm(path: str, text: str) -> list[Judgment]:
    records, header, col = _csv_table(path, text, ("source", "output", "meaning", "ave_m"), "tmu-gfm")
    out = []
    for line, record in records:
        _fields(path, line, record, header)
        ratings = tuple(_number(path, line, "meaning rating", r) for r in record[col["meaning"]].split(","))
        out.append(Judgment(record[col["source"]], record[col["output"]],
                            _number(path, line, "ave_m", record[col["ave_m"]]), ratings, line,
                            record[col["system"]] if "system" in col else ""))
    return out


def _read_asset(path: str, text: str) -> list[Judgment]:
    records, header, col = _csv_table(path, text, ("original", "simplification", "aspect", "rating"), "asset")
    ratings: dict[Pair, list[float]] = {}
    rows: dict[Pair, int] = {}
    for line, record in records:
        _fields(path, line, record, header)
        if record[col["aspect"]].strip().lower() != "meaning":  # fluency and simplicity say nothing of meaning
            continue
        pair = (record[col["original"]], record[col["simplification"]])
        rows.setdefault(pair, line)
        ratings.setdefault(pair, []).append(_number(path, line, "rating", record[col["rating"]]))
    return [Judgment(src, out, float(np.mean(r)), tuple(r), rows[src, out]) for (src, out), r in ratings.items()]


def _read_tsv(path: str, text: str) -> list[Judgment]:
    lines = text.split("\n")
    while lines and not lines[-1].strip():  # the end of the last line, or blank lines after it
        lines.pop()
    out = []
    for n, line in enumerate(lines, 1):
        cells = line.split("\t")
        if len(cells) < 3:
            raise InputError(f"too few fields: {len(cells)}; expected source<TAB>output<TAB>score[<TAB>score...]",
                             path, n)
        if n == 1 and not _is_number(cells[2]):  # a header
            continue
        ratings = tuple(_number(path, n, "score", c) for c in cells[2:])
        out.append(Judgment(cells[0], cells[1], float(np.mean(ratings)), ratings, n))
    return out


#: A score as a table writes it: ASCII digits, a point, an exponent (``inf`` and ``nan`` too,
#: which :func:`_number` then refuses as not finite); no ``1_0``, no digits of other scripts.
_NUMBER = re.compile(r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)", re.IGNORECASE)


def _is_number(text: str) -> bool:
    """Whether a first row's third field is a score (else the row is a header): as float()
    reads it, so that ``1_0`` is a score :func:`_number` refuses, not a header dropped."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def _normalised(text: str) -> str:
    return " ".join(text.split())


def changed(judgments: Sequence[Judgment]) -> list[Judgment]:
    """The judgments whose output differs from its source, whitespace aside: an output that
    copies its source keeps its meaning for every measure and every rater alike, so keeping
    such pairs measures how well a measure spots copies (the data's READMEs say so)."""
    return [j for j in judgments if _normalised(j.source) != _normalised(j.output)]


# -- correlations ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Correlation:
    """A correlation coefficient and its bootstrap interval (``nan`` where undefined: a
    constant column, fewer than two pairs, or no bootstrap asked for)."""

    value: float
    low: float
    high: float

    def as_dict(self) -> dict[str, float | None]:
        """JSON has no NaN: an undefined number is ``null``."""
        return {"value": _finite(self.value), "low": _finite(self.low), "high": _finite(self.high)}


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _coefficient(name: str, x: np.ndarray, y: np.ndarray) -> float:
    """scipy's coefficient (Kendall's tau-b), nan where it is undefined."""
    from scipy import stats
    if len(x) < 2:
        return math.nan
    function = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns of a constant input, and returns nan: that is the answer
        return float(function(x, y).statistic)


def correlate(scores: Sequence[float], human: Sequence[float], groups: Sequence[Any] | None = None,
              n_bootstrap: int = 1000, confidence: float = 0.95, seed: int = 0) -> dict[str, Correlation]:
    """Pearson, Spearman and Kendall (tau-b) correlations of ``scores`` with ``human``
    (scipy's), each with a percentile bootstrap interval.

    The bootstrap resamples ``groups`` (equal values form one group, numbered in order of
    first appearance; None: every pair its own), taking all the pairs of each group drawn:
    several outputs of one source share its difficulty, so resampling pairs would pretend
    they are independent and make the interval too narrow. Resample ``b`` draws the groups
    ``numpy.random.default_rng(seed).integers(0, G, (n_bootstrap, G))[b]``, so the same
    inputs give the same interval; resamples on which a coefficient is undefined (every
    score equal) are left out of its interval.
    """
    x, y = np.asarray(scores, dtype=float), np.asarray(human, dtype=float)
    if x.ndim != 1 or x.shape != y.shape:
        raise SemsimError(f"{len(x)} scores but {len(y)} human scores")
    if groups is not None and len(groups) != len(x):
        raise SemsimError(f"{len(groups)} groups for {len(x)} scores")
    values = {name: _coefficient(name, x, y) for name in CORRELATIONS}
    if n_bootstrap <= 0 or len(x) < 2:
        return {name: Correlation(v, math.nan, math.nan) for name, v in values.items()}
    numbers: dict[Any, int] = {}
    group = np.array([numbers.setdefault(g, len(numbers)) for g in (range(len(x)) if groups is None else groups)])
    draws = np.random.default_rng(seed).integers(0, len(numbers), (n_bootstrap, len(numbers)))
    counts = np.zeros((n_bootstrap, len(numbers)))
    np.add.at(counts, (np.arange(n_bootstrap)[:, None], draws), 1)
    samples = _resampled(x, y, counts[:, group])
    out = {}
    for name, v in values.items():
        finite = samples[name][np.isfinite(samples[name])]
        low, high = percentile_interval(finite, confidence) if finite.size else (math.nan, math.nan)
        out[name] = Correlation(v, low, high)
    return out


#: Above this many pairs, Kendall's resamples are computed one by one (scipy, n log n each)
#: instead of as one product with the n x n sign matrix.
_KENDALL_MATRIX_MAX = 4000


def _resampled(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> dict[str, np.ndarray]:
    """Each coefficient on each resample, a resample given as how many times it holds each
    pair (a row of ``w``): the coefficients of the multiset, computed as weighted ones
    (equal to scipy's on the expanded resample; a test holds them so), since calling scipy
    on every resample costs seconds of overhead per measure."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ux, x_at = np.unique(x, return_inverse=True)
        uy, y_at = np.unique(y, return_inverse=True)
        wx, wy = _by_value(w, x_at, len(ux)), _by_value(w, y_at, len(uy))
        out = {"pearson": _weighted_pearson(np.broadcast_to(x, w.shape), np.broadcast_to(y, w.shape), w),
               "spearman": _weighted_pearson(_weighted_ranks(wx)[:, x_at], _weighted_ranks(wy)[:, y_at], w)}
        n = w.sum(axis=1)
        pairs = n * (n - 1) / 2
        tied_x, tied_y = (wx * (wx - 1) / 2).sum(axis=1), (wy * (wy - 1) / 2).sum(axis=1)
        if len(x) <= _KENDALL_MATRIX_MAX:
            signs = np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])
            net = ((w @ signs) * w).sum(axis=1) / 2  # concordant minus discordant pairs; a pair's copies tie
        else:
            net = np.array([_kendall_net(x, y, row) for row in w])
        out["kendall"] = net / np.sqrt((pairs - tied_x) * (pairs - tied_y))
    return {k: np.where(np.isfinite(v), np.clip(v, -1.0, 1.0), np.nan) for k, v in out.items()}


def _by_value(w: np.ndarray, at: np.ndarray, size: int) -> np.ndarray:
    """The weight of each distinct value (in sorted order) in each resample."""
    out = np.zeros((w.shape[0], size))
    np.add.at(out.T, at, w.T)
    return out


def _weighted_ranks(weights: np.ndarray) -> np.ndarray:
    """The average rank of each distinct value in each resample (scipy's ``rankdata``)."""
    return np.cumsum(weights, axis=1) - weights + (weights + 1) / 2


def _weighted_pearson(a: np.ndarray, b: np.ndarray, w: np.ndarray) -> np.ndarray:
    n = w.sum(axis=1, keepdims=True)
    da = a - (w * a).sum(axis=1, keepdims=True) / n
    db = b - (w * b).sum(axis=1, keepdims=True) / n
    return (w * da * db).sum(axis=1) / np.sqrt((w * da * da).sum(axis=1) * (w * db * db).sum(axis=1))


def _kendall_net(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """Concordant minus discordant pairs of one large resample, from scipy's tau-b."""
    idx = np.repeat(np.arange(len(x)), w.astype(int))
    tau = _coefficient("kendall", x[idx], y[idx])
    n = len(idx)
    _, cx = np.unique(x[idx], return_counts=True)
    _, cy = np.unique(y[idx], return_counts=True)
    pairs = n * (n - 1) / 2
    return float(tau * np.sqrt((pairs - (cx * (cx - 1) / 2).sum()) * (pairs - (cy * (cy - 1) / 2).sum())))


# -- measures -------------------------------------------------------------------------------------
Measure = Callable[[Sequence[Pair]], Sequence[float]]


def _version(distribution: str) -> str:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return "unknown"


def _needs(module: str, anchor: str, distribution: str) -> None:
    """A one-line error naming the package an anchor needs, when it is missing."""
    import importlib.util
    if importlib.util.find_spec(module) is None:
        raise SemsimError(f"the {anchor} anchor needs {distribution}: pip install 'semsim[metaeval]'")


@dataclass(frozen=True)
class Levenshtein:
    """Token Levenshtein similarity, 1 - distance / the longer side's length (rapidfuzz's
    ``normalized_similarity`` over the two token lists): how much of the wording an output
    kept, the measure every faithfulness measure must beat to mean anything more."""

    tokenize: str = "none"  # how lines become tokens first (semsim.tokenize): whitespace, or spaCy

    name = "levenshtein"

    def __call__(self, pairs: Sequence[Pair]) -> list[float]:
        from rapidfuzz.distance import Levenshtein as Distance

        from ..tokenization import tokenize
        sources = tokenize([s for s, _ in pairs], self.tokenize)
        outputs = tokenize([o for _, o in pairs], self.tokenize)
        return [float(Distance.normalized_similarity(s.split(), o.split())) for s, o in zip(sources, outputs)]

    @property
    def signature(self) -> str:
        from ..tokenization import with_tokenizer
        return with_tokenizer(f"levenshtein|unit:token|norm:max-length|rapidfuzz:{_version('rapidfuzz')}",
                              self.tokenize)


@functools.lru_cache(maxsize=1)
def _chrf() -> Any:
    _needs("sacrebleu", "chrf", "sacrebleu")
    from sacrebleu.metrics import CHRF
    return CHRF()


@dataclass(frozen=True)
class ChrF:
    """sacrebleu's chrF (character 6-grams, beta 2) of the output against the source as its
    reference, divided by 100. Its n-grams skip whitespace, so tokenizing changes nothing;
    beta 2 weighs recall, how much of the source's characters the output kept."""

    name = "chrf"

    def __call__(self, pairs: Sequence[Pair]) -> list[float]:
        metric = _chrf()
        return [metric.sentence_score(o, [s]).score / 100 for s, o in pairs]

    @property
    def signature(self) -> str:
        return f"chrf|ref:source|{_chrf().get_signature()}".replace("|version:", "|sacrebleu:")


def _quiet_transformers() -> None:
    """Offline, and without transformers' loading bars and notes (shown with ``semsim -v``)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local directory never needs the hub
    from transformers.utils import logging as hf_logging

    from ...kernel.progress import verbose
    if not verbose():
        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()


def _encoder_id(name: str) -> str:
    from ...kernel.models import PINNED
    return f"{name}@{PINNED[name].sha256[:12]}"


@functools.lru_cache(maxsize=2)
def _sentence_transformer(name: str, device: str) -> Any:
    _needs("sentence_transformers", "minilm-cosine", "sentence-transformers")
    from ...kernel.models import pinned_path
    directory = pinned_path(name, "encoder")
    _quiet_transformers()
    from sentence_transformers import SentenceTransformer
    return SentenceTransformer(str(directory), device=device)


@dataclass(frozen=True)
class MiniLMCosine:
    """Cosine of the two sentences' MiniLM embeddings (sentence-transformers' mean pooling,
    normalised), on the pinned all-MiniLM-L6-v2: meaning as a sentence encoder sees it."""

    model: str = ENCODER
    device: str = "cpu"  # the same numbers on every machine
    batch_size: int = 64

    name = "minilm-cosine"

    def __call__(self, pairs: Sequence[Pair]) -> list[float]:
        encoder = _sentence_transformer(self.model, self.device)
        texts = list(dict.fromkeys(t for pair in pairs for t in pair))  # each distinct sentence once
        vectors = encoder.encode(texts, batch_size=self.batch_size, normalize_embeddings=True,
                                 convert_to_numpy=True, show_progress_bar=False)
        at = {t: i for i, t in enumerate(texts)}
        return [float(np.clip(vectors[at[s]] @ vectors[at[o]], -1.0, 1.0)) for s, o in pairs]

    @property
    def signature(self) -> str:
        return (f"minilm-cosine|model:{_encoder_id(self.model)}|pool:mean|norm:yes"
                f"|sentence-transformers:{_version('sentence-transformers')}")


@functools.lru_cache(maxsize=2)
def _bert_scorer(name: str, num_layers: int, device: str, batch_size: int) -> Any:
    _needs("bert_score", "bertscore", "bert-score")
    from ...kernel.models import pinned_path
    directory = pinned_path(name, "encoder")
    _quiet_transformers()
    from bert_score import BERTScorer
    return BERTScorer(model_type=str(directory), num_layers=num_layers, lang="en", device=device,
                      batch_size=batch_size)


@dataclass(frozen=True)
class BERTScore:
    """BERTScore F1 (Zhang et al. 2020: greedy matching of contextual token embeddings) of
    the output against the source, on the pinned MiniLM's 6 layers: no idf weights, no
    baseline rescaling (the ``bert-score`` library, offline on the local directory)."""

    model: str = ENCODER
    num_layers: int = 6
    device: str = "cpu"
    batch_size: int = 64

    name = "bertscore"

    def __call__(self, pairs: Sequence[Pair]) -> list[float]:
        scorer = _bert_scorer(self.model, self.num_layers, self.device, self.batch_size)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an empty side: bert-score warns and scores 0, as semsim does
            _, _, f1 = scorer.score([o for _, o in pairs], [s for s, _ in pairs])
        return [float(v) for v in f1.tolist()]

    @property
    def signature(self) -> str:
        return (f"bertscore|model:{_encoder_id(self.model)}|layers:{self.num_layers}|f1|idf:no|rescale:no"
                f"|bert-score:{_version('bert-score')}")


#: The anchors: measures from well-kept libraries that a reader already trusts, to read a
#: semsim measure's correlation against. Each is a callable on pairs with a ``signature``.
ANCHORS: dict[str, Levenshtein | ChrF | MiniLMCosine | BERTScore] = {
    "levenshtein": Levenshtein(), "chrf": ChrF(), "minilm-cosine": MiniLMCosine(), "bertscore": BERTScore(),
}
#: The Python module each anchor needs (what ``pip install 'semsim[metaeval]'`` brings).
ANCHOR_MODULES = {"levenshtein": "rapidfuzz", "chrf": "sacrebleu", "minilm-cosine": "sentence_transformers",
                  "bertscore": "bert_score"}


def anchor(name: str, tokenize: str = "none") -> Measure:
    """The anchor ``name`` (:data:`ANCHORS`); ``tokenize`` reaches the anchors that count
    words (``levenshtein``); chrF and the encoders segment text themselves."""
    if name not in ANCHORS:
        raise SettingsError(f"unknown anchor {name!r}: choose one of {', '.join(ANCHORS)}")
    a = ANCHORS[name]
    return Levenshtein(tokenize) if isinstance(a, Levenshtein) else a


class USimMeasure:
    """USim with any settings, from text: :class:`semsim.gec.metric.USimMetric` built from
    ``config`` (how to parse: ``parser``, ``model``, ``tokenize``, ``cache``...) and
    ``settings`` (USim's own, given as a mapping and passed on as they are, so a setting
    USim gains later works here unchanged; a setting may also override ``config``).
    Unknown or invalid settings are refused when the measure is made, before any parse."""

    def __init__(self, settings: Mapping[str, Any] | None = None, **config: Any) -> None:
        from .metric import USimMetric
        self.settings = dict(settings or {})
        known = {f.name for f in fields(USimMetric.Config)}
        unknown = sorted(set(self.settings) - known)
        if unknown:
            raise SettingsError(f"unknown USim setting {', '.join(unknown)}: choose from {', '.join(sorted(known))}",
                                unknown)
        self.metric = USimMetric(USimMetric.Config(**{**config, **self.settings}))

    def __call__(self, pairs: Sequence[Pair]) -> list[float]:
        return self.metric.score_sentence([s for s, _ in pairs], [o for _, o in pairs])

    @property
    def signature(self) -> str:
        return self.metric.get_signature()


# -- the meta-evaluation --------------------------------------------------------------------------
@dataclass(frozen=True)
class MeasureResult:
    """One measure's sentence scores and their correlations with the people."""

    name: str
    scores: list[float]
    correlations: dict[str, Correlation]
    signature: str

    def as_dict(self) -> dict[str, Any]:
        return {"measure": self.name, "n": len(self.scores),
                **{k: c.as_dict() for k, c in self.correlations.items()}, "signature": self.signature}


@dataclass(frozen=True)
class MetaEvaluation:
    """Every measure's correlations on the same judgments, and the per-sentence view."""

    judgments: list[Judgment]
    results: list[MeasureResult]
    n_bootstrap: int
    confidence: float
    seed: int
    #: where the judgments came from, for the reports: ``table``, ``read`` (judgments in it),
    #: ``kept`` (which outputs), as a command sets them
    notes: Mapping[str, Any] = field(default_factory=dict)

    @property
    def sources(self) -> int:
        """Distinct sources: the units the bootstrap resamples."""
        return len({j.source for j in self.judgments})

    def rows(self) -> list[dict[str, Any]]:
        """One record per judgment: the pair, the human score, each measure's score and its
        rank error, rank by the measure minus rank by people (average ranks, 1 = least
        faithful): a large positive error is a pair the measure finds far more faithful than
        people did, a large negative one the reverse; sort by it to read the worst first."""
        from scipy.stats import rankdata
        human = rankdata([j.human for j in self.judgments])
        ranks = {r.name: rankdata(r.scores) - human for r in self.results}
        return [{"row": j.row, "system": j.system, "source": j.source, "output": j.output, "human": j.human,
                 "ratings": list(j.ratings), "scores": {r.name: r.scores[i] for r in self.results},
                 "rank_errors": {name: float(e[i]) for name, e in ranks.items()}}
                for i, j in enumerate(self.judgments)]

    def as_dict(self) -> dict[str, Any]:
        return {**self.notes, "n": len(self.judgments), "sources": self.sources, "bootstrap": self.n_bootstrap,
                "confidence": self.confidence, "seed": self.seed, "resampled": "sources",
                "measures": [r.as_dict() for r in self.results]}

    def render(self, fmt: str) -> str:
        """The table of correlations as text, Markdown, TSV or JSON (:data:`RENDERINGS`)."""
        rows = [{"measure": r.name, "n": len(r.scores),
                 **{f"{c}{s}": float(getattr(r.correlations[c], a)) for c in CORRELATIONS
                    for s, a in (("", "value"), ("_low", "low"), ("_high", "high"))}, "signature": r.signature}
                for r in self.results]
        return render(Report(rows, document=lambda _: self.as_dict(), parts=self._parts, formats=RENDERINGS), fmt)

    def _parts(self, _rows: list[Record], markdown: bool) -> list[Table | str]:
        ci = f"{num(self.confidence, 0, percent=True)} CI" if self.n_bootstrap else "no CI"
        cols = [Col("measure", "<"), Col("n", md="---:"), *(Col(f"{c.capitalize()} [{ci}]", md=":---:")
                                                            for c in CORRELATIONS)]
        rows = [[r.name, str(len(r.scores)), *(_cell(r.correlations[c]) for c in CORRELATIONS)] for r in self.results]
        out: list[Table | str] = [Table(cols, rows)]
        table = self.notes.get("table")
        read = f"{table}: {len(self.judgments)} of {self.notes.get('read', '?')} judgments ({self.notes['kept']}), " \
            if table and "kept" in self.notes else f"{len(self.judgments)} judgments, "
        about = (f"{read}{self.sources} sources"
                 + (f"; {self.n_bootstrap} bootstrap resamples of the sources, seed {self.seed}"
                    if self.n_bootstrap else ""))
        out += ["", about, "", "**signatures**" if markdown else "signatures:"]
        if markdown:
            out.append("")
        for r in self.results:
            out.append(f"- {r.name}: `{r.signature}`" if markdown else f"  {r.name}: {r.signature}")
        return out


def _cell(c: Correlation) -> str:
    """A coefficient and its interval, three decimals; ``n/a`` where undefined."""
    def r(x: float) -> str:
        return num(x, 3, nonfinite="n/a")
    if not math.isfinite(c.low):
        return r(c.value)
    return f"{r(c.value)} [{r(c.low)}, {r(c.high)}]"


def meta_evaluate(judgments: Sequence[Judgment], measures: Mapping[str, Measure], n_bootstrap: int = 1000,
                  confidence: float = 0.95, seed: int = 0,
                  on_measure: Callable[[str], None] | None = None) -> MetaEvaluation:
    """Score every judgment's pair with each measure and correlate the scores with the
    people's (:func:`correlate`, resampling sources, the same resamples for every measure).
    A measure is a callable on ``(source, output)`` pairs; its ``signature`` attribute, if
    any, is reported with it. ``on_measure(name)`` is called before each measure runs (a
    command's progress note). A measure that returns the wrong number of scores, or one
    that is no finite number, is a :class:`SemsimError` naming it."""
    from ...kernel.stats import check_bootstrap
    check_bootstrap(n_bootstrap, confidence)  # the command line's bounds, before any measure runs
    judgments = list(judgments)
    if not judgments:
        raise SemsimError("no judgments to meta-evaluate")
    pairs = [(j.source, j.output) for j in judgments]
    human = [j.human for j in judgments]
    groups = [j.source for j in judgments]
    results = []
    for name, measure in measures.items():
        if on_measure:
            on_measure(name)
        scores = [float(s) for s in measure(pairs)]
        if len(scores) != len(pairs):
            raise SemsimError(f"measure {name} gave {len(scores)} scores for {len(pairs)} pairs")
        bad = next((i for i, s in enumerate(scores) if not math.isfinite(s)), None)
        if bad is not None:
            raise SemsimError(f"measure {name} gave {scores[bad]} for row {judgments[bad].row}")
        results.append(MeasureResult(name, scores, correlate(scores, human, groups, n_bootstrap, confidence, seed),
                                     str(getattr(measure, "signature", ""))))
    return MetaEvaluation(judgments, results, n_bootstrap, confidence, seed)
