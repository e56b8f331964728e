"""The span parser's network and its decoder.

A minimal-span chart parser (Stern et al. 2017; Kitaev & Klein 2018), as the HLT@SUDA system
that won SemEval-2019 Task 1 applied it to UCCA, with our own choices throughout:

* **encoder**: per token, embeddings of discrete spaCy features (word, tag, dependency,
  head direction, affixes, shape; entities optional, see :attr:`Config.features`),
  spaCy's own 96-d context vector, optionally a character CNN over the word as written
  (:class:`CharCNN`: misspelled and rare words get more than ``<unk>``) and a learned mix of
  a frozen pretrained transformer's layers (:class:`ScalarMix`, :mod:`.encoder`), through a
  two-layer BiLSTM over ``<s> tokens </s>``;
* **span representation** of tokens ``i..j-1``: the fencepost differences
  ``[f_j - f_i ; b_i - b_j]`` of the forward and backward states;
* **labels**: an MLP gives each span a distribution over chain labels (``0`` = no unit),
  trained with cross-entropy on every span of the sentence;
* **decoding**: CKY finds the binary bracketing with the highest sum of per-span log
  probabilities; a span's score is its best label or "no unit", whichever is higher, and the
  whole sentence is forced to a ``ROOT`` label (an exact search, in numpy);
* **remote edges**: an additive pair scorer over (parent unit, child unit) span
  representations predicts a remote category or none, for every pair of predicted units
  where the child does not contain the parent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
import torch
from torch import nn

from .features import FIELDS, Features
from .tree import CHAIN, ROOT

NULL = "<none>"
UNK = "<unk>"
PAD = "<pad>"


#: the widest layer and the most layers a span parser may declare: far beyond any useful size
#: (the shipped model's widest is 250), well short of what would exhaust memory
MAX_WIDTH, MAX_LAYERS = 4096, 48


def _within(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name}={value!r}: expected a whole number from {low} to {high}")


@dataclass
class Config:
    """Sizes of the network (kept in the model file so that loading rebuilds it), checked when made."""

    word_dim: int = 100
    feat_dim: int = 24  # every discrete feature but the word
    lstm_dim: int = 200  # per direction
    lstm_layers: int = 2
    mlp_dim: int = 250
    remote_dim: int = 128
    dropout: float = 0.3
    word_dropout: float = 0.25  # alpha of the alpha / (alpha + count) replacement by <unk>
    #: the discrete token features, comma-separated, from :data:`.features.FIELDS` (``word`` first)
    features: str = "word,tag,dep,head,prefix,suffix,shape"
    spacy_vectors: bool = True  # spaCy's 96-d tok2vec vector as an input
    char_dim: int = 0  # character embeddings of the character CNN (0: no character encoder)
    char_filters: int = 100  # its output width (filters of width 3, max-pooled)
    #: a pretrained encoder (:mod:`.encoder`: a pinned name, a directory or a hub id); "" for none
    encoder: str = ""
    #: its top layers fine-tuned with the parser (0: all frozen); their weights are in the model file
    encoder_tune: int = 0
    encoder_lr: float = 0.05  # the fine-tuned layers' learning rate, as a fraction of the parser's
    #: only the encoder's first K layers, frozen (0: all): a parse runs K of them, so fewer
    #: layers parse faster (MiniLM's middle layers carry most of what UCCA needs)
    encoder_layers: int = 0
    #: weight of the auxiliary task in training: gold UD tags, heads and relations (0: none);
    #: its layers serve training only and are not in the model file
    ud_weight: float = 0.0

    def __post_init__(self) -> None:
        """Refuse a network no one means before any of it is allocated: ``--set lstm_dim=0`` or
        ``dropout=nan`` would fail deep in torch, and a model file declaring a 10⁶-wide layer
        would allocate gigabytes before its tensors are found not to fit (a ValueError, which
        the command and the model loader report in one line)."""
        for name in ("word_dim", "feat_dim", "lstm_dim", "mlp_dim", "remote_dim", "char_filters"):
            _within(name, getattr(self, name), 1, MAX_WIDTH)
        _within("lstm_layers", self.lstm_layers, 1, MAX_LAYERS)
        for name in ("char_dim", "encoder_tune", "encoder_layers"):
            _within(name, getattr(self, name), 0, MAX_WIDTH if name == "char_dim" else MAX_LAYERS)
        for name, high in (("dropout", 0.99), ("word_dropout", 1e6), ("encoder_lr", 1e3), ("ud_weight", 1e3)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= high:
                raise ValueError(f"{name}={value!r}: expected a number from 0 to {high:g}")
        self.fields()

    def fields(self) -> tuple[str, ...]:
        out = tuple(f.strip() for f in self.features.split(",") if f.strip())
        unknown = set(out) - set(FIELDS)
        if unknown or not out or out[0] != "word":
            raise ValueError(f"features {self.features!r}: word first, then any of {', '.join(FIELDS[1:])}")
        return out

    def to_dict(self) -> dict[str, float | int | str]:
        return asdict(self)


class Vocab:
    """Strings to indices; index 0 is padding, 1 unknown (for feature vocabularies)."""

    def __init__(self, itos: Sequence[str], counts: Sequence[int] | None = None) -> None:
        self.itos = list(itos)
        self.stoi = {s: i for i, s in enumerate(self.itos)}
        self.counts = np.asarray(counts if counts is not None else [0] * len(self.itos), dtype=np.int64)

    @classmethod
    def build(cls, counter: dict[str, int], specials: Sequence[str] = (PAD, UNK), min_count: int = 1) -> Vocab:
        items = sorted((s for s, c in counter.items() if c >= min_count and s not in specials),
                       key=lambda s: (-counter[s], s))
        return cls([*specials, *items], [0] * len(specials) + [counter[s] for s in items])

    def __len__(self) -> int:
        return len(self.itos)

    def index(self, s: str, default: int = 1) -> int:
        return self.stoi.get(s, default)


def is_root(label: str) -> bool:
    return label.split(CHAIN, 1)[0] == ROOT


#: characters of a word the character CNN reads: the first and the last half of this many
CHAR_WINDOW = 20


def char_ids(words: Sequence[Sequence[str]], chars: Vocab) -> np.ndarray:
    """(sentences, longest, CHAR_WINDOW) character indices of words as written (0: padding)."""
    longest = max((len(w) for w in words), default=0)
    out = np.zeros((len(words), longest, CHAR_WINDOW), dtype=np.int64)
    half = CHAR_WINDOW // 2
    for b, sentence in enumerate(words):
        for k, word in enumerate(sentence):
            text = word if len(word) <= CHAR_WINDOW else word[:half] + word[-half:]
            out[b, k, :len(text)] = [chars.index(ch) for ch in text]
    return out


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
        self.tuned = TunedLayers(tuned) if c.encoder_tune else None
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

    def label_logits_eval(self, fw: torch.Tensor, bw: torch.Tensor, b: torch.Tensor, i: torch.Tensor,
                          j: torch.Tensor) -> torch.Tensor:
        """``label_mlp(span_reps(...))`` without dropout, computed faster: the first layer is
        linear in the span vector, so it is applied once per fencepost and the O(n²) spans
        only add and subtract (4x fewer multiplications at parse time; same numbers)."""
        first = self.label_mlp[1]
        h = self.config.lstm_dim
        # W [f_j - f_i ; b_i - b_j] = u_j - u_i with u = W_f f - W_b b, per fencepost
        u = fw @ first.weight[:, :h].T - bw @ first.weight[:, h:].T
        hidden = u[b, j] - u[b, i] + first.bias
        for layer in self.label_mlp[2:]:
            if not isinstance(layer, nn.Dropout):
                hidden = layer(hidden)
        return hidden

    def remote_logits(self, reps: torch.Tensor) -> torch.Tensor:
        """(P, P, R) logits of a remote edge from unit p to unit c, for one sentence's units."""
        hp, hc = self.remote_parent(reps), self.remote_child(reps)
        return self.remote_out(torch.relu(hp[:, None, :] + hc[None, :, :]))


# -- batches -------------------------------------------------------------------------------------
def all_spans(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Start and end of every span of an n-token sentence, ordered by start then end."""
    i, j = np.triu_indices(n + 1, k=1)
    return i, j


def batch_spans(lengths: Sequence[int], device: torch.device) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Sentence, start and end of every span of every sentence of a batch: each sentence's
    spans in :func:`all_spans` order (n(n+1)/2 rows for n tokens), sentence after sentence."""
    spans = [all_spans(n) for n in lengths]
    b = np.concatenate([np.full(len(s[0]), k) for k, s in enumerate(spans)])
    i = np.concatenate([s[0] for s in spans])
    j = np.concatenate([s[1] for s in spans])
    return tuple(torch.from_numpy(a).to(device) for a in (b, i, j))  # type: ignore[return-value]


def span_index(s: int, e: int, n: int) -> int:
    """The row of span ``(s, e)`` in :func:`all_spans` order."""
    return s * n - s * (s - 1) // 2 + (e - s - 1)


@dataclass
class Inputs:
    """A batch as tensors: feature indices (B, T) per field, spaCy vectors (B, T, d),
    character indices (B, T, C), encoder layers (B, T, layers, dim), lengths (B,)."""

    ids: dict[str, torch.Tensor]
    vectors: torch.Tensor
    lengths: torch.Tensor
    chars: torch.Tensor | None = None
    layers: torch.Tensor | None = None


def tensorize(features: Sequence[Features], vocabs: dict[str, Vocab], device: torch.device,
              rng: np.random.Generator | None = None, word_dropout: float = 0.0) -> Inputs:
    """A batch's :class:`Inputs`; with ``rng``, rare words become ``<unk>`` with probability
    alpha / (alpha + count) so the ``<unk>`` embedding is trained. ``vocabs`` holds the
    fields' vocabularies and, for a model with a character encoder, ``chars``."""
    lengths = [len(f.strings["word"]) for f in features]
    longest = max(lengths)
    fields = [f for f in vocabs if f != "chars"]
    ids = {f: np.zeros((len(features), longest), dtype=np.int64) for f in fields}
    width = features[0].vectors.shape[1]
    vectors = np.zeros((len(features), longest, width), dtype=np.float32)
    for b, feat in enumerate(features):
        n = lengths[b]
        for f in fields:
            ids[f][b, :n] = [vocabs[f].index(s) for s in feat.strings[f]]
        vectors[b, :n] = feat.vectors
    if rng is not None and word_dropout > 0:
        w = ids["word"]
        counts = vocabs["word"].counts[w]
        drop = rng.random(w.shape) < word_dropout / (word_dropout + counts)
        ids["word"] = np.where(drop & (w > 1), 1, w)
    tensor = lambda a: torch.from_numpy(a).to(device)  # noqa: E731
    chars = tensor(char_ids([f.strings["form"] for f in features], vocabs["chars"])) if "chars" in vocabs else None
    layers = None
    if features[0].layers is not None:
        stacked = np.zeros((len(features), longest, *features[0].layers.shape[1:]), dtype=np.float32)
        for b, feat in enumerate(features):
            stacked[b, :lengths[b]] = feat.layers
        layers = tensor(stacked)
    return Inputs({f: tensor(a) for f, a in ids.items()}, tensor(vectors), torch.tensor(lengths, device=device),
                  chars, layers)


# -- decoding ------------------------------------------------------------------------------------
def cky(label_logp: np.ndarray, n: int, root_mask: np.ndarray) -> dict[tuple[int, int], int]:
    """The best bracketing of an n-token sentence under per-span label log-probabilities.

    ``label_logp`` holds one row per span in :func:`all_spans` order; column 0 is "no unit".
    Returns {span: label index} for the labelled spans; the whole sentence always gets the
    best label allowed by ``root_mask`` (the ``ROOT`` labels), every other span a label
    outside it or none.
    """
    starts, ends = all_spans(n)
    inner = np.where(root_mask, -np.inf, label_logp)
    inner[:, 0] = -np.inf
    best_label = inner.argmax(axis=1)
    best_label_score = inner[np.arange(len(best_label)), best_label]
    keep = best_label_score > label_logp[:, 0]
    # A tree's log-probability is that of every span of the sentence: log p(label) for its
    # units, log p(none) for all others. Up to the sum of every span's log p(none), which is
    # the same for all trees, that is the sum over its units of log p(label) - log p(none);
    # a span of the binarisation that is no unit adds 0. (Scoring such a span log p(none)
    # instead rewards trees with more "none" spans: flat ones, every unit under the root.)
    span_score = np.where(keep, best_label_score - label_logp[:, 0], 0.0)
    score = np.full((n + 1, n + 1), -np.inf)
    score[starts, ends] = span_score
    chart = np.full((n + 1, n + 1), -np.inf)
    split = np.zeros((n + 1, n + 1), dtype=np.int64)
    idx = np.arange(n)
    chart[idx, idx + 1] = score[idx, idx + 1]
    for length in range(2, n + 1):
        i = np.arange(n - length + 1)
        j = i + length
        # candidates k = i+1 .. j-1, one row per start
        ks = i[:, None] + np.arange(1, length)[None, :]
        totals = chart[i[:, None], ks] + chart[ks, j[:, None]]
        arg = totals.argmax(axis=1)
        split[i, j] = ks[np.arange(len(i)), arg]
        chart[i, j] = score[i, j] + totals[np.arange(len(i)), arg]
    root_row = label_logp[span_index(0, n, n)]
    root_label = int(np.where(root_mask, root_row, -np.inf).argmax())
    out = {(0, n): root_label}
    stack = [(0, n)]
    while stack:
        s, e = stack.pop()
        if (s, e) != (0, n):
            k = span_index(s, e, n)
            if keep[k]:
                out[(s, e)] = int(best_label[k])
        if e - s > 1:
            m = int(split[s, e])
            stack.extend([(s, m), (m, e)])
    return out
