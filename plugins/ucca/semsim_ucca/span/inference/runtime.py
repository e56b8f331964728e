"""The span parser's forward pass without torch: what a parse runs.

Why: a parse needs no gradients, and importing torch cost every parsing process 2 s of its
start and 190 MB of its memory (measured: ``docs/parser.md``, *A parse without torch*), for
a network of a few matrix products and a BiLSTM. Training builds and trains
:class:`..training.network.SpanParserNet` in torch; the same weights, read from the model file (or
copied from the network being trained, for its dev evaluations), run here, the operations
of :mod:`..training.network` in the same order, in float32: the BiLSTM and the label MLP over every
span, nearly all of the network's time, on ONNX Runtime (:mod:`.onnx_graph`: its LSTM and
matrix products are as fast as torch's where numpy's were 25% slower), the embeddings, the
character CNN, the layer mix and the remote scorer in numpy. The numbers agree with torch's
to float32 rounding (``plugins/ucca/tests/test_span_inputs.py`` holds them to it); a parse
whose best tree hangs on that rounding is a tie, and none of 3,627 parses compared changed
(``docs/parser.md``). The pretrained encoder runs on ONNX Runtime too (:mod:`.bert`), and
so do the fine-tuned encoder layers of a model trained with ``encoder_tune``
(:func:`tuned_session`, the same layers' graph).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

Arrays = Mapping[str, np.ndarray]


def linear(x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
    """``x @ w.T + b`` as torch's ``F.linear`` (``w`` is (out, in))."""
    y = (x.reshape(-1, x.shape[-1]) @ w.T).reshape(*x.shape[:-1], w.shape[0])  # one BLAS call, not one per row
    return y + b if b is not None else y


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def tuned_session(w: Arrays, layers: int, heads: int, eps: float, dim: int) -> Any:
    """A model's fine-tuned encoder layers (``encoder_tune``: :class:`..training.network.TunedLayers`,
    BERT layers over words, weights under ``tuned.layers.K.``) as an ONNX Runtime session:
    word states (B, T, dim) and the words' mask (B, T) to each layer's output."""
    from .bert import layers as bert_layers
    from .onnx_graph import Graph
    g = Graph()
    out = bert_layers(g, dict(w), "x", [f"tuned.layers.{k}." for k in range(layers)], heads, eps, dim)
    words = ["batch", "words"]
    return g.session([("x", np.float32, [*words, dim]), ("attention_mask", np.int64, words)],
                     [(o, [*words, dim]) for o in out])


def _onnx_gates(m: np.ndarray) -> np.ndarray:
    """torch's LSTM gate blocks (input, forget, cell, output) in ONNX's order (input, output,
    forget, cell)."""
    i, f, g, o = np.split(m, 4, axis=0)
    return np.concatenate([i, o, f, g], axis=0)


def bilstm_session(w: Arrays, layers: int, in_dim: int) -> Any:
    """``nn.LSTM(bidirectional=True, batch_first=True)`` over packed rows as an ONNX Runtime
    session: (B, T, in) float32 and the rows' lengths (B,) int32 to (B, T, 2 hidden), zeros
    past each row's end, as ``pad_packed_sequence`` leaves them. ONNX's LSTM reverses each
    row within its length for the backward direction, as packing does."""
    from .onnx_graph import Graph
    g = Graph()
    hidden = w["weight_hh_l0"].shape[1]
    x = g.op("Transpose", "x", perm=[1, 0, 2])  # ONNX Runtime's LSTM runs time-major only
    for layer in range(layers):
        directions = (f"l{layer}", f"l{layer}_reverse")
        stacked = {name: np.stack([_onnx_gates(w[f"{name}_{d}"]) for d in directions])
                   for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")}
        y = g.op("LSTM", x, g.weight(f"W{layer}", stacked["weight_ih"]), g.weight(f"R{layer}", stacked["weight_hh"]),
                 g.weight(f"B{layer}", np.concatenate([stacked["bias_ih"], stacked["bias_hh"]], axis=1)), "lengths",
                 direction="bidirectional", hidden_size=hidden)  # Y: (T, directions, B, hidden)
        # (T, B, 2 hidden): forward then backward, as torch concatenates them
        x = g.op("Reshape", g.op("Transpose", y, perm=[0, 2, 1, 3]), g.const([0, 0, 2 * hidden], np.int64))
    out = g.op("Transpose", x, perm=[1, 0, 2])
    return g.session([("x", np.float32, ["batch", "steps", in_dim]), ("lengths", np.int32, ["batch"])],
                     [(out, ["batch", "steps", 2 * hidden])])


def labels_session(w: Arrays, h: int) -> Any:
    """The label MLP (linear, LayerNorm, ReLU, linear) over spans as an ONNX Runtime session:
    forward and backward fencepost states (B, F, h) and each span's (sentence, start) and
    (sentence, end) to its logits (S, labels). The first layer is linear in the span vector,
    so it runs once per fencepost and the O(n²) spans only subtract (4x fewer
    multiplications): ``W [f_j - f_i ; b_i - b_j] = u_j - u_i`` with ``u = W_f f - W_b b``."""
    from .onnx_graph import Graph
    g = Graph()
    first = w["label_mlp.1.weight"]
    u = g.op("Sub", g.op("MatMul", "fw", g.weight("first_fw", first[:, :h].T)),
             g.op("MatMul", "bw", g.weight("first_bw", first[:, h:].T)))
    hidden = g.op("Add", g.op("Sub", g.op("GatherND", u, "ends"), g.op("GatherND", u, "starts")),
                  g.weight("first_b", w["label_mlp.1.bias"]))
    hidden = g.op("Relu", g.op("LayerNormalization", hidden, g.weight("norm", w["label_mlp.2.weight"]),
                               g.weight("norm_b", w["label_mlp.2.bias"]), axis=-1, epsilon=1e-5))  # nn.LayerNorm's
    logits = g.op("Add", g.op("MatMul", hidden, g.weight("out", w["label_mlp.5.weight"].T)),
                  g.weight("out_b", w["label_mlp.5.bias"]))
    states = ["batch", "fenceposts", h]
    return g.session([("fw", np.float32, states), ("bw", np.float32, states), ("starts", np.int64, ["spans", 2]),
                      ("ends", np.int64, ["spans", 2])], [(logits, ["spans", w["label_mlp.5.bias"].shape[0]])])


def shapes(config: Any, sizes: Mapping[str, int], vector_dim: int, encoder_shape: tuple[int, int], n_labels: int,
           n_remote: int) -> dict[str, tuple[int, ...]]:
    """The shape of every weight :class:`..training.network.SpanParserNet` has for these sizes (the
    fine-tuned encoder layers' ``tuned.*`` aside: their shapes are the encoder's)."""
    c, h = config, config.lstm_dim
    out: dict[str, tuple[int, ...]] = {
        f"embeddings.{f}.weight": (sizes[f], c.word_dim if f == "word" else c.feat_dim) for f in c.fields()}
    if c.char_dim:
        out.update({"chars.embedding.weight": (sizes["chars"], c.char_dim),
                    "chars.conv.weight": (c.char_filters, c.char_dim, 3), "chars.conv.bias": (c.char_filters,)})
    if c.encoder:
        out.update({"mix.weights": (encoder_shape[0] + c.encoder_tune,), "mix.gamma": ()})
    in_dim = (c.word_dim + c.feat_dim * (len(c.fields()) - 1) + vector_dim + (c.char_filters if c.char_dim else 0)
              + (encoder_shape[1] if c.encoder else 0))
    out["boundary"] = (2, in_dim)
    for layer in range(c.lstm_layers):
        for suffix in (f"l{layer}", f"l{layer}_reverse"):
            out.update({f"lstm.weight_ih_{suffix}": (4 * h, in_dim if layer == 0 else 2 * h),
                        f"lstm.weight_hh_{suffix}": (4 * h, h), f"lstm.bias_ih_{suffix}": (4 * h,),
                        f"lstm.bias_hh_{suffix}": (4 * h,)})
    out.update({"label_mlp.1.weight": (c.mlp_dim, 2 * h), "label_mlp.1.bias": (c.mlp_dim,),
                "label_mlp.2.weight": (c.mlp_dim,), "label_mlp.2.bias": (c.mlp_dim,),
                "label_mlp.5.weight": (n_labels, c.mlp_dim), "label_mlp.5.bias": (n_labels,)})
    for name in ("remote_parent", "remote_child"):
        out.update({f"{name}.1.weight": (c.remote_dim, 2 * h), f"{name}.1.bias": (c.remote_dim,)})
    out.update({"remote_out.weight": (n_remote, c.remote_dim), "remote_out.bias": (n_remote,)})
    return out


def check_shapes(weights: Arrays, expected: Mapping[str, tuple[int, ...]]) -> None:
    """A ValueError unless ``weights`` are exactly the ``expected`` ones (plus ``tuned.*``),
    as torch's ``load_state_dict`` would say."""
    names = {k for k in weights if not k.startswith("tuned.")}
    missing, unexpected = sorted(set(expected) - names), sorted(names - set(expected))
    if missing or unexpected:
        raise ValueError(f"weights missing: {', '.join(missing) or 'none'}; "
                         f"unexpected: {', '.join(unexpected) or 'none'}")
    for k, shape in expected.items():
        if tuple(weights[k].shape) != shape:
            raise ValueError(f"weight {k} has shape {tuple(weights[k].shape)}, the network {shape}")


class Net:
    """:class:`..training.network.SpanParserNet` at parse time, on its weights: numpy and ONNX Runtime sessions.

    ``tuned`` is the attention heads and LayerNorm epsilon of the fine-tuned encoder layers
    (``encoder_tune``), BERT layers whose weights are in the model file under ``tuned.``."""

    def __init__(self, config: Any, weights: Arrays, vector_dim: int, encoder_shape: tuple[int, int],
                 tuned: tuple[int, float] | None = None) -> None:
        self.config, self.vector_dim = config, vector_dim
        self.encoder_shape = tuple(encoder_shape) if config.encoder else (0, 0)
        self.w = {k: np.asarray(v, dtype=np.float32, order="C") if v.dtype.kind == "f" else v
                  for k, v in weights.items()}
        if config.encoder_tune and tuned is None:
            raise ValueError(f"encoder_tune={config.encoder_tune} needs the encoder's heads and LayerNorm epsilon")
        self.tuned = tuned if config.encoder_tune else None
        self._tuned = (tuned_session(self.w, config.encoder_tune, *self.tuned, encoder_shape[1])
                       if self.tuned else None)
        self._labels = labels_session(self.w, config.lstm_dim)
        lstm = {k[len("lstm."):]: v for k, v in self.w.items() if k.startswith("lstm.")}
        self._bilstm = bilstm_session(lstm, config.lstm_layers, self.w["boundary"].shape[1])

    @classmethod
    def from_torch(cls, net: Any) -> Net:
        """The network being trained, copied for a parse (its dev evaluations)."""
        weights = {k: v.detach().float().cpu().numpy() for k, v in net.state_dict().items() if not k.startswith("ud_")}
        tuned = None
        if net.tuned is not None:
            attention = net.tuned.layers[0].attention.self
            tuned = (int(attention.num_attention_heads), float(net.tuned.layers[0].output.LayerNorm.eps))
        return cls(net.config, weights, net.vector_dim, net.encoder_shape, tuned)

    def _chars(self, ids: np.ndarray) -> np.ndarray:
        """:class:`..training.network.CharCNN`: (B, T, C) character ids to (B, T, filters)."""
        batch, tokens, width = ids.shape
        flat = ids.reshape(-1, width)
        e = self.w["chars.embedding.weight"][flat]  # (N, C, dim); row 0 (padding) is zeros
        padded = np.pad(e, ((0, 0), (1, 1), (0, 0)))
        windows = np.concatenate([padded[:, k:k + width] for k in range(3)], axis=-1)  # (N, C, 3 dim)
        kernel = self.w["chars.conv.weight"]  # (filters, dim, 3)
        h = np.maximum(windows @ kernel.transpose(2, 1, 0).reshape(-1, kernel.shape[0]) + self.w["chars.conv.bias"],
                       0.0)
        h = np.where((flat == 0)[:, :, None], 0.0, h)  # padding never wins the max (ReLU >= 0)
        return h.max(axis=1).reshape(batch, tokens, -1)

    def encode(self, inputs: Any) -> tuple[np.ndarray, np.ndarray]:
        """Forward and backward fencepost states, as :meth:`..training.network.SpanParserNet.encode`."""
        c, w = self.config, self.w
        parts = [w[f"embeddings.{f}.weight"][inputs.ids[f]] for f in inputs.ids] + [inputs.vectors]
        if c.char_dim:
            parts.append(self._chars(inputs.chars))
        lengths = np.asarray(inputs.lengths)
        if c.encoder:
            layers = inputs.layers  # (B, T, frozen layers, dim)
            if self._tuned is not None:  # :class:`..training.network.TunedLayers`, over the words
                keep = (np.arange(layers.shape[1])[None, :] < lengths[:, None]).astype(np.int64)
                above = self._tuned.run(None, {"x": np.ascontiguousarray(layers[:, :, -1]), "attention_mask": keep})
                layers = np.concatenate([layers, np.stack(above, axis=2)], axis=2)
            mix = softmax(w["mix.weights"], axis=0)
            parts.append(w["mix.gamma"] * np.einsum("...ld,l->...d", layers, mix))
        x = np.concatenate(parts, axis=-1).astype(np.float32, copy=False)
        batch, longest, dim = x.shape
        padded = np.zeros((batch, longest + 2, dim), dtype=np.float32)
        padded[:, 0] = w["boundary"][0]
        padded[:, 1:longest + 1] = x
        padded[np.arange(batch), lengths + 1] = w["boundary"][1]
        (out,) = self._bilstm.run(None, {"x": padded, "lengths": (lengths + 2).astype(np.int32)})
        h = c.lstm_dim
        return out[:, :longest + 1, :h], out[:, 1:longest + 2, h:]

    @staticmethod
    def span_reps(fw: np.ndarray, bw: np.ndarray, b: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        return np.concatenate([fw[b, j] - fw[b, i], bw[b, i] - bw[b, j]], axis=-1)

    def label_logits(self, fw: np.ndarray, bw: np.ndarray, b: np.ndarray, i: np.ndarray, j: np.ndarray
                     ) -> np.ndarray:
        """The label MLP over spans (:func:`labels_session`)."""
        (logits,) = self._labels.run(None, {"fw": fw, "bw": bw, "starts": np.stack([b, i], axis=1),
                                            "ends": np.stack([b, j], axis=1)})
        return logits

    def remote_logits(self, reps: np.ndarray) -> np.ndarray:
        """(P, P, R) logits of a remote edge from unit p to unit c."""
        w = self.w
        hp = linear(reps, w["remote_parent.1.weight"], w["remote_parent.1.bias"])
        hc = linear(reps, w["remote_child.1.weight"], w["remote_child.1.bias"])
        return linear(np.maximum(hp[:, None, :] + hc[None, :, :], 0.0), w["remote_out.weight"], w["remote_out.bias"])
