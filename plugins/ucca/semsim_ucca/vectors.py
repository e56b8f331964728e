"""English contextual word vectors for ``--tokens contextual`` (:mod:`semsim.kernel.align.contextual`).

A word's vector is the mean of its word pieces' hidden states at layer :data:`LAYER` of
all-MiniLM-L6-v2, the encoder this plugin already pins (by content hash; no download). Layer
4 of 6, not the last: on the human meaning judgments the layer was chosen on
(``docs/validity.md``: TMU-GFM dev and ASSET), the middle layers keep more of the word
itself and the last more of the sentence around it. One sentence is encoded at a time, on
one thread, so that a word's vector never depends on what else was encoded or on the
thread count; a sentence longer than the encoder's window is encoded in consecutive
windows of words.

The layers run on ONNX Runtime (:mod:`.span.inference.bert`, the parser's own BERT forward pass, only
the first :data:`LAYER` layers), so ``--tokens contextual`` and ``--preset meaning`` need no
torch or ``transformers``: they run wherever the default parser runs. Its states are
``transformers``' to float32 rounding (at most 6e-6 apart on JFLEG's sentences, a cosine of
1 - 1e-12), and a credit keeps 6 decimals. The judge of ``--tokens paraphrase``
(:mod:`.paraphrase`) still runs the whole sentence encoder in ``transformers`` (:func:`minilm`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from semsim.kernel.errors import SemsimError
from semsim.kernel.records import WordEncoder

ENCODER = "all-MiniLM-L6-v2"
#: the hidden layer read (0: the embeddings)
LAYER = 4
#: words per window: a word is rarely more than 3 pieces, and the window is 512 pieces
WINDOW = 160
#: the encoder's longest input, in word pieces
MAX_PIECES = 512
#: sentences whose vectors are kept per process
CACHE_SIZE = 20_000


@functools.lru_cache(maxsize=2)
def minilm(layers: int | None = None) -> tuple[Any, Any, Any]:
    """The pinned MiniLM's resolved spec, tokenizer and model, loaded once per process;
    with ``layers``, only its first ``layers`` layers (the hidden states up to them are the
    full model's, at a fraction of the cost)."""
    from .span.inference.encoder import resolve
    spec = resolve(ENCODER)
    try:
        import torch  # noqa: F401  (transformers' models need it; a missing one is named here)
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as hf_logging
    except ImportError:
        raise SemsimError("the paraphrase judge of --tokens paraphrase needs torch and transformers: the UCCA "
                          "plugin's `paraphrase` extra, torch first "
                          "(docs/install.md; bash scripts/setup.sh installs them)") from None
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    extra = {} if layers is None else {"num_hidden_layers": layers}
    model = AutoModel.from_pretrained(str(spec.path), **extra).eval()
    return spec, AutoTokenizer.from_pretrained(str(spec.path)), model


@functools.lru_cache(maxsize=1)
def layers() -> Any:
    """The pinned MiniLM's embeddings and first :data:`LAYER` layers on ONNX Runtime
    (:class:`.span.inference.bert.Bert`, with its ``tokenizers`` word pieces), loaded once per process."""
    from .span.inference.bert import Bert
    from .span.inference.encoder import resolve
    return Bert(resolve(ENCODER).path, depth=LAYER)


def one_thread() -> Any:
    """A context in which torch runs on one thread (restored after): results that cannot
    depend on the thread count."""
    import contextlib

    import torch

    @contextlib.contextmanager
    def scope() -> Any:
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            with torch.inference_mode():
                yield
        finally:
            torch.set_num_threads(threads)
    return scope()


class MiniLMWords:
    """Words to vectors at :data:`LAYER`, each sentence encoded alone."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, ...], np.ndarray] = {}

    def pieces(self, words: Sequence[str]) -> list[int]:
        """How many word pieces each word is split into (semsim rewards a correction whose
        word the vocabulary knows better as a fixed misspelling: :mod:`semsim.kernel.align.contextual`)."""
        return [_pieces(w) for w in words]

    def clear(self) -> None:
        """Forget the encoded sentences (a benchmark times a cold encoder so)."""
        self._cache.clear()

    def __call__(self, words: Sequence[str]) -> np.ndarray:
        key = tuple(words)
        found = self._cache.get(key)
        if found is not None:
            return found
        bert = layers()
        parts = []
        for start in range(0, len(key), WINDOW):
            window = list(key[start:start + WINDOW])
            encoding = bert.tokenizer.encode(window, is_pretokenized=True)
            ids, owners = encoding.ids, encoding.word_ids
            if len(ids) > MAX_PIECES:  # as transformers' truncation: the pieces cut, the closing [SEP] kept
                ids, owners = [*ids[:MAX_PIECES - 1], ids[-1]], [*owners[:MAX_PIECES - 1], None]
            states = bert(np.array([ids], dtype=np.int64), np.ones((1, len(ids)), dtype=np.int64))[LAYER][0]
            out = np.zeros((len(window), states.shape[1]))
            count = np.zeros(len(window))
            for piece, word in enumerate(owners):
                if word is not None:
                    out[word] += states[piece]
                    count[word] += 1
            parts.append(out / np.maximum(count, 1)[:, None])  # a word with no piece left: zeros
        vectors = np.concatenate(parts) if parts else np.zeros((0, 1))
        if len(self._cache) >= CACHE_SIZE:
            self._cache.clear()
        self._cache[key] = vectors
        return vectors


@functools.lru_cache(maxsize=100_000)
def _pieces(word: str) -> int:
    return len(layers().tokenizer.encode(word, add_special_tokens=False).ids) or 1


@functools.lru_cache(maxsize=1)
def load() -> MiniLMWords:
    """The process's encoder (its model loads on the first sentence)."""
    return MiniLMWords()


def identity() -> str:
    """``minilm-l6@HASH12,layer4``: the encoder by content, and the layer read."""
    from .span.inference.encoder import resolve
    return f"minilm-l6@{resolve(ENCODER).sha256[:12]},layer{LAYER}"


WORD_ENCODER = WordEncoder("minilm", load, identity, "en",
                           f"English: all-MiniLM-L6-v2's layer {LAYER}, a word the mean of its pieces")
