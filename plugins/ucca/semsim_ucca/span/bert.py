"""A BERT encoder's forward pass in plain torch, on the weights' safetensors file.

Why not ``transformers``: importing it costs 4 s of a parse's start (torch alone 1.4 s),
for a network that is twenty lines of torch. This module runs the same operations in the
same order as ``transformers``' ``BertModel`` with its default (SDPA) attention — embeddings
summed word + token type + position, then LayerNorm; per layer self-attention through
``scaled_dot_product_attention`` with a boolean key mask (none when nothing is padded),
output projection, residual LayerNorm, GELU feed-forward, residual LayerNorm — so its hidden
states are the same numbers (``plugins/ucca/tests/test_encoder.py`` compares them). Word
pieces come from the ``tokenizers`` library and the directory's ``tokenizer.json``, which is
what ``transformers``' fast tokenizer runs. Only what a parse needs is here: inference, the
first ``depth`` layers, absolute positions. Anything else (other architectures, fine-tuning)
goes through ``transformers`` (:mod:`.encoder`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def supports(directory: Path) -> bool:
    """Whether this module runs the encoder in ``directory``: a BERT with absolute positions,
    exact GELU, safetensors weights and a ``tokenizer.json``."""
    try:
        config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (config.get("model_type") == "bert" and config.get("hidden_act") == "gelu"
            and config.get("position_embedding_type", "absolute") == "absolute"
            and not config.get("is_decoder") and (directory / "model.safetensors").is_file()
            and (directory / "tokenizer.json").is_file())


class Bert:
    """The embeddings and the first ``depth`` layers of the BERT in ``directory`` (all when None)."""

    def __init__(self, directory: Path, depth: int | None = None, device: str = "cpu") -> None:
        import torch
        from safetensors import safe_open
        from tokenizers import Tokenizer
        config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
        self.depth = min(depth, config["num_hidden_layers"]) if depth is not None else config["num_hidden_layers"]
        self.dim, self.heads = int(config["hidden_size"]), int(config["num_attention_heads"])
        self.eps = float(config["layer_norm_eps"])
        self.pad_id = int(config.get("pad_token_id", 0))
        wanted = ("embeddings.", *(f"encoder.layer.{k}." for k in range(self.depth)))
        with safe_open(str(directory / "model.safetensors"), framework="pt", device=device) as f:
            names = list(f.keys())
            prefix = "bert." if any(n.startswith("bert.") for n in names) else ""
            self.w: dict[str, Any] = {n[len(prefix):]: f.get_tensor(n).float() for n in names
                                      if n[len(prefix):].startswith(wanted)}
        self.tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        self._torch = torch

    def _norm(self, x: Any, name: str) -> Any:
        return self._torch.nn.functional.layer_norm(x, (self.dim,), self.w[f"{name}.weight"], self.w[f"{name}.bias"],
                                                    self.eps)

    def _linear(self, x: Any, name: str) -> Any:
        return self._torch.nn.functional.linear(x, self.w[f"{name}.weight"], self.w[f"{name}.bias"])

    def __call__(self, input_ids: Any, attention_mask: Any) -> list[Any]:
        """Every layer's states (B, pieces, dim), the embeddings' first, as ``output_hidden_states``."""
        torch, F = self._torch, self._torch.nn.functional
        batch, length = input_ids.shape
        w = self.w
        x = F.embedding(input_ids, w["embeddings.word_embeddings.weight"])
        x = x + F.embedding(torch.zeros_like(input_ids), w["embeddings.token_type_embeddings.weight"])
        positions = torch.arange(length, device=input_ids.device)[None]
        x = x + F.embedding(positions, w["embeddings.position_embeddings.weight"])
        x = self._norm(x, "embeddings.LayerNorm")
        mask = None if bool(attention_mask.all()) else attention_mask.bool()[:, None, None, :].expand(
            batch, 1, length, length).contiguous()
        states, size = [x], self.dim // self.heads
        for k in range(self.depth):
            p = f"encoder.layer.{k}."
            q, key, v = (self._linear(x, f"{p}attention.self.{n}").view(batch, length, -1, size).transpose(1, 2)
                         for n in ("query", "key", "value"))
            a = F.scaled_dot_product_attention(q, key, v, attn_mask=mask, dropout_p=0.0, scale=size ** -0.5,
                                               is_causal=False)
            a = a.transpose(1, 2).contiguous().reshape(batch, length, -1).contiguous()
            x = self._norm(self._linear(a, f"{p}attention.output.dense") + x, f"{p}attention.output.LayerNorm")
            h = F.gelu(self._linear(x, f"{p}intermediate.dense"))
            x = self._norm(self._linear(h, f"{p}output.dense") + x, f"{p}output.LayerNorm")
            states.append(x)
        return states
