"""The pinned MiniLM's word-piece states for the embedding anchors, without torch.

Why not ``sentence-transformers`` and ``bert-score``: both stand on torch, and
``pip install 'semsim[metaeval]'`` then pulled torch's CUDA build and its ``nvidia-*``
packages (6.5 GB, 3 minutes) for a six-layer encoder that a parse already runs without it.
Why numpy and not the UCCA plugin's ONNX Runtime graph (``semsim_ucca.span.inference.bert``):
the core imports no plugin, a copy of that graph builder would be a second one to keep, and
at an anchor's size (a few thousand sentences of tens of word pieces, each encoded once) numpy's
matrix products take seconds, with nothing to install beyond ``tokenizers`` and ``safetensors``
(the ``metaeval`` extra). The forward pass follows ``transformers``' ``BertModel`` operation by
operation (embeddings word + token type + position, LayerNorm; per layer self-attention,
output projection, residual LayerNorm, exact-GELU feed-forward, residual LayerNorm), so its
states are the libraries' to float32 rounding (``tests/test_metaeval_anchors.py`` holds the
anchors to ``bert-score``'s and ``sentence-transformers``' numbers). Each sentence is encoded
alone, unpadded: its states never depend on what else was encoded.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from pathlib import Path

import numpy as np

#: sentences whose states are kept (a meta-evaluation's few thousand: 40 pieces × 384 floats each)
KEPT = 20_000


class MiniLM:
    """The BERT in ``directory`` (``config.json``, ``tokenizer.json``, ``model.safetensors``):
    word pieces and last-layer states of a sentence."""

    def __init__(self, directory: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer
        config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
        self.heads, self.eps = int(config["num_attention_heads"]), float(config["layer_norm_eps"])
        self.depth = int(config["num_hidden_layers"])
        weights = load_file(str(directory / "model.safetensors"))
        prefix = "bert." if any(n.startswith("bert.") for n in weights) else ""
        self.w = {n[len(prefix):]: v.astype(np.float32, copy=False) for n, v in weights.items()}
        self.tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        self.cls_sep = {self.tokenizer.token_to_id("[CLS]"), self.tokenizer.token_to_id("[SEP]")}
        self._kept: dict[tuple[tuple[int, ...], int], np.ndarray] = {}

    def pieces(self, text: str, max_length: int) -> list[int]:
        """``text``'s word pieces with [CLS] and [SEP], at most ``max_length`` (as ``transformers``
        truncates: the last pieces cut, [SEP] kept)."""
        ids = self.tokenizer.encode(text).ids
        return ids if len(ids) <= max_length else [*ids[:max_length - 1], ids[-1]]

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.eps) * self.w[f"{name}.weight"] + self.w[f"{name}.bias"]

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        return x @ self.w[f"{name}.weight"].T + self.w[f"{name}.bias"]

    def states(self, ids: list[int], layers: int | None = None) -> np.ndarray:
        """The (pieces, dim) output of layer ``layers`` (all layers when None) for one sentence,
        kept for the next anchor (both read the last layer of the same pieces)."""
        key = (tuple(ids), self.depth if layers is None else layers)
        if key not in self._kept:
            if len(self._kept) >= KEPT:
                self._kept.clear()
            self._kept[key] = self._forward(ids, key[1])
        return self._kept[key]

    def _forward(self, ids: list[int], layers: int) -> np.ndarray:
        from scipy.special import erf
        w = self.w
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.token_type_embeddings.weight"][0]
             + w["embeddings.position_embeddings.weight"][:len(ids)])
        x = self._norm(x, "embeddings.LayerNorm")
        n, dim = x.shape
        size = dim // self.heads
        for k in range(layers):
            p = f"encoder.layer.{k}."
            q, key, v = (self._linear(x, f"{p}attention.self.{m}").reshape(n, self.heads, size).transpose(1, 0, 2)
                         for m in ("query", "key", "value"))
            scores = (q * np.float32(size ** -0.5)) @ key.transpose(0, 2, 1)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            a = ((scores / scores.sum(-1, keepdims=True)) @ v).transpose(1, 0, 2).reshape(n, dim)
            x = self._norm(self._linear(a, f"{p}attention.output.dense") + x, f"{p}attention.output.LayerNorm")
            h = self._linear(x, f"{p}intermediate.dense")
            h = h * (erf(h * np.float32(0.5 ** 0.5)) + 1) * np.float32(0.5)
            x = self._norm(self._linear(h, f"{p}output.dense") + x, f"{p}output.LayerNorm")
        return x


@functools.lru_cache(maxsize=2)
def minilm(name: str) -> MiniLM:
    """The pinned encoder ``name`` (:func:`semsim.kernel.models.pinned_path`: refused unless its
    weights are the pinned ones), loaded once per process."""
    from ...kernel.models import pinned_path
    from ...kernel.threads import limit
    limit()  # BLAS's threads, one per core, spin against each other on a busy machine: 10× slower
    return MiniLM(pinned_path(name, "encoder"))


def encode(model: MiniLM, texts: Iterable[str], max_length: int, layers: int | None = None
           ) -> dict[str, tuple[list[int], np.ndarray]]:
    """Each distinct text (stripped, as both libraries do) to its pieces and states."""
    out: dict[str, tuple[list[int], np.ndarray]] = {}
    for text in texts:
        if text not in out:
            ids = model.pieces(text.strip(), max_length)
            out[text] = (ids, model.states(ids, layers))
    return out
