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
import os
import warnings
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
    def signature(self) -> Signature:
        return Signature.of("minilm-cosine", {"model": _encoder_id(self.model), "pool": "mean", "norm": "yes",
                                              "sentence-transformers": _version("sentence-transformers")})


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
    def signature(self) -> Signature:
        return (Signature.of("bertscore", {"model": _encoder_id(self.model), "layers": self.num_layers}).add("f1")
                + Signature.of(None, {"idf": "no", "rescale": "no", "bert-score": _version("bert-score")}))


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
