"""The anchors of a meta-evaluation: measures from well-kept libraries that a reader already
trusts (token Levenshtein, chrF, MiniLM cosine, BERTScore), to read a semsim measure's
correlation with people against.

Part of :mod:`semsim.app.metaeval` (which re-exports these names). Each anchor is a callable
on ``(source, output)`` pairs with a ``signature``; each tokenizes as it needs: the
Levenshtein anchor through its ``tokenize`` setting, while chrF (whitespace ignored) and the
encoders (their own word pieces) read the text as written. The libraries behind chrF and
the encoders are optional (``pip install 'semsim[metaeval]'``) and loaded on first use.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import numpy as np

from ...kernel.align.tokens import levenshtein_similarity
from ...kernel.errors import SemsimError, SettingsError
from ...kernel.signature import Signature
from .tables import Pair

#: The encoder the embedding anchors run on (:data:`semsim.kernel.models.PINNED`): the one the UCCA
#: parser and its paraphrase judge pin, so that all of them compute with the same weights.
ENCODER = "all-MiniLM-L6-v2"

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
    """Token Levenshtein similarity, 1 - distance / the longer side's length
    (:func:`semsim.kernel.align.tokens.levenshtein_similarity`, with rapidfuzz's distance): how much
    of the wording an output kept, the measure every faithfulness measure must beat to mean
    anything more."""

    tokenize: str = "none"  # how lines become tokens first (semsim.app.tokenization): whitespace, or spaCy

    name = "levenshtein"

    def __call__(self, pairs: Sequence[Pair]) -> list[float]:
        from ..tokenization import tokenize
        sources = tokenize([s for s, _ in pairs], self.tokenize)
        outputs = tokenize([o for _, o in pairs], self.tokenize)
        return [levenshtein_similarity(s.split(), o.split()) for s, o in zip(sources, outputs)]

    @property
    def signature(self) -> Signature:
        from ..tokenization import with_tokenizer
        return with_tokenizer(Signature.of("levenshtein", {"unit": "token", "norm": "max-length",
                                                           "rapidfuzz": _version("rapidfuzz")}), self.tokenize)


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
    def signature(self) -> Signature:
        # sacrebleu's own signature's fields, as it writes them (version last, named as the library)
        info = _chrf().get_signature().info
        fields = {k: v for k, v in info.items() if v is not None and k != "version"}
        return Signature.of("chrf", {"ref": "source", **fields, "sacrebleu": info["version"]})


def _encoder_id(name: str) -> str:
    from ...kernel.models import PINNED
    return f"{name}@{PINNED[name].sha256[:12]}"


def _encoder(name: str, anchor: str) -> Any:
    """The pinned encoder in numpy (:mod:`.encoder`), or a one-line error naming what it needs."""
    _needs("tokenizers", anchor, "tokenizers")
    _needs("safetensors", anchor, "safetensors")
    from .encoder import minilm
    return minilm(name)


@dataclass(frozen=True)
class MiniLMCosine:
    """Cosine of the two sentences' MiniLM embeddings, as sentence-transformers makes them for
    the pinned all-MiniLM-L6-v2 (its configuration: 256 word pieces at most, the mean of all the
    last layer's piece states, [CLS] and [SEP] included, normalised): meaning as a sentence
    encoder sees it, computed without torch (:mod:`.encoder`)."""

    model: str = ENCODER
    max_length: int = 256  # the model's sentence_bert_config.json

    name = "minilm-cosine"

    def __call__(self, pairs: Sequence[Pair]) -> list[float]:
        from .encoder import encode
        states = encode(_encoder(self.model, self.name), (t for pair in pairs for t in pair), self.max_length)
        vectors = {t: _unit(s.mean(0)) for t, (_, s) in states.items()}
        return [float(np.clip(vectors[s] @ vectors[o], -1.0, 1.0)) for s, o in pairs]

    @property
    def signature(self) -> Signature:
        return Signature.of("minilm-cosine", {"model": _encoder_id(self.model), "pool": "mean", "norm": "yes",
                                              "pieces": self.max_length, "run": "numpy"})


def _unit(v: np.ndarray) -> np.ndarray:
    return v / max(float(np.linalg.norm(v)), 1e-12)  # sentence-transformers' Normalize: F.normalize's epsilon


def greedy_match(source: tuple[list[int], np.ndarray], output: tuple[list[int], np.ndarray],
                 skip: set[int]) -> tuple[float, float, float]:
    """BERTScore's precision, recall and F1 without idf weights (``bert_score.utils.greedy_cos_idf``):
    each of the output's pieces (its precision) or the source's (its recall), [CLS] and [SEP]
    left out (``skip``), weighs equally, credited with its best cosine among all the other
    side's pieces, [CLS] and [SEP] included. An empty side scores 0, as in the library."""
    (src_ids, src), (out_ids, out) = source, output
    sim = np.stack([_unit(v) for v in out]) @ np.stack([_unit(v) for v in src]).T
    p_keep = np.array([i not in skip for i in out_ids])
    r_keep = np.array([i not in skip for i in src_ids])
    if not p_keep.any() or not r_keep.any():
        return 0.0, 0.0, 0.0
    p, r = float(sim.max(1)[p_keep].mean()), float(sim.max(0)[r_keep].mean())
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


@dataclass(frozen=True)
class BERTScore:
    """BERTScore F1 (Zhang et al. 2020: greedy matching of contextual token embeddings) of
    the output against the source, on the pinned MiniLM's 6 layers: no idf weights, no
    baseline rescaling; the ``bert-score`` library's greedy match (:func:`greedy_match`) on
    states computed without torch (:mod:`.encoder`; the library's numbers to 1e-5,
    ``tests/test_metaeval_anchors.py``)."""

    model: str = ENCODER
    num_layers: int = 6
    max_length: int = 512  # the tokenizer's model_max_length, as bert-score truncates

    name = "bertscore"

    def __call__(self, pairs: Sequence[Pair]) -> list[float]:
        return [f for _, _, f in self.scores(pairs)]

    def scores(self, pairs: Sequence[Pair]) -> list[tuple[float, float, float]]:
        """Each pair's precision, recall and F1."""
        from .encoder import encode
        model = _encoder(self.model, self.name)
        states = encode(model, (t for pair in pairs for t in pair), self.max_length, self.num_layers)
        return [greedy_match(states[s], states[o], model.cls_sep) for s, o in pairs]

    @property
    def signature(self) -> Signature:
        return (Signature.of("bertscore", {"model": _encoder_id(self.model), "layers": self.num_layers}).add("f1")
                + Signature.of(None, {"idf": "no", "rescale": "no", "run": "numpy"}))


#: The anchors: measures from well-kept libraries that a reader already trusts, to read a
#: semsim measure's correlation against. Each is a callable on pairs with a ``signature``.
ANCHORS: dict[str, Levenshtein | ChrF | MiniLMCosine | BERTScore] = {
    "levenshtein": Levenshtein(), "chrf": ChrF(), "minilm-cosine": MiniLMCosine(), "bertscore": BERTScore(),
}
#: The Python module each anchor needs (what ``pip install 'semsim[metaeval]'`` brings).
ANCHOR_MODULES = {"levenshtein": "rapidfuzz", "chrf": "sacrebleu", "minilm-cosine": "tokenizers",
                  "bertscore": "tokenizers"}


def anchor(name: str, tokenize: str = "none") -> Measure:
    """The anchor ``name`` (:data:`ANCHORS`); ``tokenize`` reaches the anchors that count
    words (``levenshtein``); chrF and the encoders segment text themselves."""
    if name not in ANCHORS:
        raise SettingsError(f"unknown anchor {name!r}: choose one of {', '.join(ANCHORS)}")
    a = ANCHORS[name]
    return Levenshtein(tokenize) if isinstance(a, Levenshtein) else a
