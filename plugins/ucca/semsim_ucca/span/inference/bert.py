"""A BERT encoder's forward pass on ONNX Runtime, on the weights' safetensors file.

Why neither ``transformers`` nor torch: importing ``transformers`` costs 4 s of a parse's
start and torch 2 s and 190 MB, for a network of twenty lines. Why ONNX Runtime and not
numpy: at MiniLM's size a parse spends a quarter of its time here, and numpy is 50% slower than torch
(its exact ``erf`` alone is 20 ns a value) where ONNX Runtime matches torch (measured:
``docs/parser.md``, *A parse without torch*); it imports in 0.1 s. The graph is built here,
in memory, from the operations of ``transformers``' ``BertModel`` in the same order:
embeddings summed word + token type + position, then LayerNorm; per layer self-attention
with padded keys masked out, output projection, residual LayerNorm, exact-GELU feed-forward,
residual LayerNorm. The weights are handed to the session as they are, never copied into
the graph (that copy alone took 0.5 s). Its hidden states are ``transformers``' to float32
rounding (``plugins/ucca/tests/test_span_inputs.py`` compares them). Word pieces come from
the ``tokenizers`` library and the directory's ``tokenizer.json``, which is what
``transformers``' fast tokenizer runs. Only what a parse needs is here: inference, the first
``depth`` layers, absolute positions, one thread (:mod:`semsim.kernel.threads`: parallelism comes
from processes). Anything else (other architectures, fine-tuning) goes through
``transformers`` (:mod:`.encoder`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


def supports(directory: Path) -> bool:
    """Whether this module runs the encoder in ``directory``: a BERT with absolute positions,
    exact GELU, safetensors weights and a ``tokenizer.json``."""
    from .encoder_files import encoder_config
    config = encoder_config(directory)
    return (config.get("model_type") == "bert" and config.get("hidden_act") == "gelu"
            and config.get("position_embedding_type", "absolute") == "absolute"
            and not config.get("is_decoder") and (directory / "model.safetensors").is_file()
            and (directory / "tokenizer.json").is_file())


class Bert:
    """The embeddings and the first ``depth`` layers of the BERT in ``directory`` (all when None)."""

    def __init__(self, directory: Path, depth: int | None = None) -> None:
        from safetensors import safe_open

        from .encoder_files import encoder_config, tokenizer
        config = encoder_config(directory)
        self.depth = min(depth, config["num_hidden_layers"]) if depth is not None else config["num_hidden_layers"]
        self.dim, self.heads = int(config["hidden_size"]), int(config["num_attention_heads"])
        self.eps = float(config["layer_norm_eps"])
        self.pad_id = int(config.get("pad_token_id", 0))
        wanted = ("embeddings.", *(f"encoder.layer.{k}." for k in range(self.depth)))
        with safe_open(str(directory / "model.safetensors"), framework="numpy") as f:
            names = list(f.keys())
            prefix = "bert." if any(n.startswith("bert.") for n in names) else ""
            w = {n[len(prefix):]: f.get_tensor(n).astype(np.float32, copy=False) for n in names
                 if n[len(prefix):].startswith(wanted)}
        #: the weights read (the session holds them, not this object: no second copy)
        self.names = sorted(w)
        self.tokenizer = tokenizer(directory)
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        # word + token type 0 (then + position, in the graph): the same two additions, in the
        # same order, as BertEmbeddings; the first made once, in place, and looked up here
        # (ONNX Runtime would copy the 30,522 × 384 table, 47 MB)
        self.words = w.pop("embeddings.word_embeddings.weight")
        self.words += w["embeddings.token_type_embeddings.weight"][0]
        self._session = _session(w, self.depth, self.heads, self.eps, self.dim)

    def __call__(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> list[np.ndarray]:
        """Every layer's states (B, pieces, dim), the embeddings' first, as ``output_hidden_states``."""
        return self._session.run(None, {"words": self.words[input_ids],
                                        "attention_mask": np.asarray(attention_mask, dtype=np.int64)})


def _session(w: dict[str, np.ndarray], depth: int, heads: int, eps: float, dim: int) -> Any:
    """An ONNX Runtime session from the looked-up word embeddings (``words``) and the
    attention mask to the embeddings' and ``depth`` layers' states."""
    from .onnx_graph import Graph
    g = Graph()
    length = g.op("Gather", g.op("Shape", "attention_mask"), g.const(1, np.int64))
    positions = g.op("Range", g.const(0, np.int64), length, g.const(1, np.int64))
    x = g.op("Add", "words", g.op("Gather", g.weight("positions", w["embeddings.position_embeddings.weight"]),
                                  positions))
    x = g.op("LayerNormalization", x, g.weight("embeddings.g", w["embeddings.LayerNorm.weight"]),
             g.weight("embeddings.beta", w["embeddings.LayerNorm.bias"]), axis=-1, epsilon=eps)
    states = [x, *layers(g, w, x, [f"encoder.layer.{k}." for k in range(depth)], heads, eps, dim)]
    pieces = ["batch", "pieces"]
    return g.session([("words", np.float32, [*pieces, dim]), ("attention_mask", np.int64, pieces)],
                     [(s, [*pieces, dim]) for s in states])


def layers(g: Any, w: dict[str, np.ndarray], x: str, prefixes: list[str], heads: int, eps: float, dim: int
           ) -> list[str]:
    """BERT layers (weights ``w[prefix + ...]``) on graph ``g`` over states ``x`` (B, L, dim),
    keys masked where the graph's input ``attention_mask`` (B, L) is 0; each layer's output.
    A parse's frozen encoder layers (:func:`_session`) and a model's fine-tuned ones
    (:func:`.runtime.tuned_session`) are both built here."""
    from onnx import TensorProto

    def linear(x: str, name: str) -> str:  # the weight stored transposed: MatMul takes (in, out)
        return g.op("Add", g.op("MatMul", x, g.weight(f"{name}.wt", w[f"{name}.weight"].T)),
                    g.weight(f"{name}.b", w[f"{name}.bias"]))

    def norm(x: str, name: str) -> str:
        return g.op("LayerNormalization", x, g.weight(f"{name}.g", w[f"{name}.weight"]),
                    g.weight(f"{name}.beta", w[f"{name}.bias"]), axis=-1, epsilon=eps)

    size = dim // heads
    keep = g.op("Unsqueeze", g.op("Cast", "attention_mask", to=TensorProto.BOOL), g.const([1, 2], np.int64))  # B,1,1,L
    split, merge = g.const([0, 0, heads, size], np.int64), g.const([0, 0, dim], np.int64)
    out = []
    for p in prefixes:
        q, key, v = (g.op("Transpose", g.op("Reshape", linear(x, f"{p}attention.self.{n}"), split), perm=perm)
                     for n, perm in (("query", [0, 2, 1, 3]), ("key", [0, 2, 3, 1]), ("value", [0, 2, 1, 3])))
        scores = g.op("Where", keep, g.op("MatMul", g.op("Mul", q, g.const(size ** -0.5)), key), g.const(-np.inf))
        a = g.op("Reshape", g.op("Transpose", g.op("MatMul", g.op("Softmax", scores, axis=-1), v), perm=[0, 2, 1, 3]),
                 merge)
        x = norm(g.op("Add", linear(a, f"{p}attention.output.dense"), x), f"{p}attention.output.LayerNorm")
        h = linear(x, f"{p}intermediate.dense")
        erf = g.op("Erf", g.op("Mul", h, g.const(0.5 ** 0.5)))
        gelu = g.op("Mul", g.op("Mul", h, g.op("Add", erf, g.const(1.0))), g.const(0.5))
        x = norm(g.op("Add", linear(gelu, f"{p}output.dense"), x), f"{p}output.LayerNorm")
        out.append(x)
    return out
