"""The span parser's network in torch, as training builds and trains it.

The model (:mod:`.model`) says what the network computes; this module is that computation
with gradients, dropout and GPU support. A parse runs the same weights on numpy and ONNX
Runtime (:mod:`.runtime`), which the tests hold to this module's numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from ..inference.features import Features
from ..inference.model import Config, Inputs, Vocab, arrays, span_batch


class CharCNN(nn.Module):
    """A word's vector from its characters: embeddings, one convolution of width 3, ReLU
    and max-pooling (Ma & Hovy 2016), so ``gva`` and ``iede`` are not just ``<unk>``."""

    def __init__(self, n_chars: int, dim: int, filters: int, dropout: float) -> None:
        super().__init__()
        self.embedding = nn.Embedding(n_chars, dim, padding_idx=0)
        self.conv = nn.Conv1d(dim, filters, kernel_size=3, padding=1)
        self.dropout = nn.Dropout(dropout)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """(B, T, C) character ids to (B, T, filters)."""
        batch, tokens, width = ids.shape
        flat = ids.reshape(-1, width)
        h = torch.relu(self.conv(self.dropout(self.embedding(flat)).transpose(1, 2)))  # (N, filters, C)
        h = h.masked_fill((flat == 0)[:, None, :], 0.0)  # padding never wins the max (ReLU >= 0)
        return h.max(dim=2).values.reshape(batch, tokens, -1)


class ScalarMix(nn.Module):
    """A softmax-weighted sum of an encoder's layers, scaled (Peters et al. 2018): which
    layers hold what UCCA needs is learned, the encoder itself stays frozen."""

    def __init__(self, layers: int) -> None:
        super().__init__()
        self.weights = nn.Parameter(torch.zeros(layers))
        self.gamma = nn.Parameter(torch.ones(()))

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        """(..., layers, dim) to (..., dim)."""
        return self.gamma * torch.einsum("...ld,l->...d", states, torch.softmax(self.weights, 0))


class TunedLayers(nn.Module):
    """The pretrained encoder's top layers, fine-tuned over words.

    The frozen layers below run once per sentence over word pieces (at training time, once
    for the whole corpus); their output is pooled to words, and these layers (initialised
    with the encoder's own weights) continue from there over the words, trained with the
    parser. Only these layers' weights go into the model file (two of MiniLM's six: 7 MB).
    """

    def __init__(self, layers: nn.ModuleList) -> None:
        super().__init__()
        self.layers = layers

    def forward(self, states: torch.Tensor, lengths: torch.Tensor) -> list[torch.Tensor]:
        """(B, T, dim) word states to each layer's output (B, T, dim)."""
        present = torch.arange(states.shape[1], device=states.device)[None, :] < lengths[:, None]
        mask = (~present)[:, None, None, :].to(states.dtype) * torch.finfo(states.dtype).min
        out = []
        for layer in self.layers:
            states = layer(states, attention_mask=mask)
            states = states[0] if isinstance(states, tuple) else states
            out.append(states)
        return out


class SpanParserNet(nn.Module):
    """Encoder, span label classifier and remote-edge scorer (see the module docstring)."""

    def __init__(self, config: Config, vocab_sizes: dict[str, int], vector_dim: int,
                 n_labels: int, n_remote: int, encoder_shape: tuple[int, int] = (0, 0),
                 tuned: nn.ModuleList | None = None, ud_sizes: tuple[int, int] | None = None) -> None:
        super().__init__()
        self.config = config
        c = config
        self.embeddings = nn.ModuleDict({
            f: nn.Embedding(vocab_sizes[f], c.word_dim if f == "word" else c.feat_dim, padding_idx=0)
            for f in c.fields()})
        self.vector_dim = vector_dim
        self.chars = CharCNN(vocab_sizes["chars"], c.char_dim, c.char_filters, c.dropout) if c.char_dim else None
        self.encoder_shape = tuple(encoder_shape) if c.encoder else (0, 0)
        self.mix = ScalarMix(self.encoder_shape[0] + c.encoder_tune) if c.encoder else None
        if ud_sizes:  # training only (:meth:`ud_logits`); left out of the model file
            span_dim = 2 * c.lstm_dim
            self.ud_tags = nn.Linear(span_dim, ud_sizes[0])
            self.ud_rels = nn.Linear(span_dim, ud_sizes[1])
            self.ud_dep, self.ud_head = nn.Linear(span_dim, c.remote_dim), nn.Linear(span_dim, c.remote_dim)
            self.ud_root = nn.Parameter(torch.zeros(c.remote_dim))
        if c.encoder_tune and (tuned is None or len(tuned) != c.encoder_tune):
            raise ValueError(f"encoder_tune={c.encoder_tune} needs that many of the encoder's layers")
        self.tuned = TunedLayers(tuned) if c.encoder_tune and tuned is not None else None
        in_dim = (c.word_dim + c.feat_dim * (len(c.fields()) - 1) + vector_dim
                  + (c.char_filters if c.char_dim else 0) + self.encoder_shape[1])
        self.boundary = nn.Parameter(torch.zeros(2, in_dim))  # <s> and </s>
        self.input_dropout = nn.Dropout(c.dropout)
        self.lstm = nn.LSTM(in_dim, c.lstm_dim, num_layers=c.lstm_layers, bidirectional=True,
                            batch_first=True, dropout=c.dropout if c.lstm_layers > 1 else 0.0)
        span_dim = 2 * c.lstm_dim
        self.label_mlp = nn.Sequential(
            nn.Dropout(c.dropout), nn.Linear(span_dim, c.mlp_dim), nn.LayerNorm(c.mlp_dim), nn.ReLU(),
            nn.Dropout(c.dropout), nn.Linear(c.mlp_dim, n_labels))
        self.remote_parent = nn.Sequential(nn.Dropout(c.dropout), nn.Linear(span_dim, c.remote_dim))
        self.remote_child = nn.Sequential(nn.Dropout(c.dropout), nn.Linear(span_dim, c.remote_dim))
        self.remote_out = nn.Linear(c.remote_dim, n_remote)

    def encode(self, inputs: Inputs) -> tuple[torch.Tensor, torch.Tensor]:
        """Fencepost states: forward ``fw[b, k]`` and backward ``bw[b, k]`` for k = 0..n."""
        parts = [self.embeddings[f](inputs.ids[f]) for f in inputs.ids] + [inputs.vectors]
        if self.chars is not None:
            parts.append(self.chars(inputs.chars))
        if self.mix is not None:
            layers = inputs.layers  # (B, T, frozen layers, dim)
            if self.tuned is not None:
                above = self.tuned(layers[:, :, -1], inputs.lengths)
                layers = torch.cat([layers, torch.stack(above, dim=2)], dim=2)
            parts.append(self.mix(layers))
        lengths = inputs.lengths
        x = torch.cat(parts, dim=-1)  # (B, T, D)
        batch, longest, dim = x.shape
        padded = x.new_zeros(batch, longest + 2, dim)
        padded[:, 0] = self.boundary[0]
        padded[:, 1:longest + 1] = x
        rows = torch.arange(batch, device=x.device)
        padded[rows, lengths + 1] = self.boundary[1]
        padded = self.input_dropout(padded)
        packed = nn.utils.rnn.pack_padded_sequence(padded, (lengths + 2).cpu(), batch_first=True,
                                                   enforce_sorted=False)
        out, _ = self.lstm(packed)
        out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=longest + 2)
        h = self.config.lstm_dim
        return out[:, : longest + 1, :h], out[:, 1: longest + 2, h:]

    def ud_logits(self, fw: torch.Tensor, bw: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Per token (B, T): UPOS and relation logits, and head logits over the tokens and
        the root (the last of T + 1 candidates), from the token's two LSTM states."""
        tokens = torch.cat([fw[:, 1:], bw[:, :-1]], dim=-1)  # token k: fw after it, bw before it
        dep, head = self.ud_dep(tokens), self.ud_head(tokens)
        candidates = torch.cat([head, self.ud_root.expand(head.shape[0], 1, -1)], dim=1)
        return self.ud_tags(tokens), self.ud_rels(tokens), dep @ candidates.transpose(1, 2)

    @staticmethod
    def span_reps(fw: torch.Tensor, bw: torch.Tensor, b: torch.Tensor, i: torch.Tensor, j: torch.Tensor
                  ) -> torch.Tensor:
        return torch.cat([fw[b, j] - fw[b, i], bw[b, i] - bw[b, j]], dim=-1)

    def remote_logits(self, reps: torch.Tensor) -> torch.Tensor:
        """(P, P, R) logits of a remote edge from unit p to unit c, for one sentence's units."""
        hp, hc = self.remote_parent(reps), self.remote_child(reps)
        return self.remote_out(torch.relu(hp[:, None, :] + hc[None, :, :]))


# -- batches -------------------------------------------------------------------------------------
def batch_spans(lengths: Sequence[int], device: torch.device) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """:func:`.model.span_batch` as tensors on ``device``."""
    return tuple(torch.from_numpy(a).to(device) for a in span_batch(lengths))  # type: ignore[return-value]


def tensorize(features: Sequence[Features], vocabs: dict[str, Vocab], device: torch.device,
              rng: np.random.Generator | None = None, word_dropout: float = 0.0) -> Inputs:
    """:func:`.model.arrays` as tensors on ``device``."""
    a = arrays(features, vocabs, rng, word_dropout)
    tensor = lambda x: None if x is None else torch.from_numpy(x).to(device)  # noqa: E731
    return Inputs({f: tensor(x) for f, x in a.ids.items()}, tensor(a.vectors), tensor(a.lengths), tensor(a.chars),
                  tensor(a.layers))
