"""The span parser's model: its sizes, vocabularies and batches (torch-free; its decoder is :mod:`.decoder`; the
network itself, in torch for training, is :mod:`..training.network`, and a parse runs it on numpy and
ONNX Runtime, :mod:`.runtime`).

A minimal-span chart parser (Stern et al. 2017; Kitaev & Klein 2018), as the HLT@SUDA system
that won SemEval-2019 Task 1 applied it to UCCA, with our own choices throughout:

* **encoder**: per token, embeddings of discrete spaCy features (word, tag, dependency,
  head direction, affixes, shape; entities optional, see :attr:`Config.features`),
  spaCy's own 96-d context vector, optionally a character CNN over the word as written
  (:class:`..training.network.CharCNN`: misspelled and rare words get more than ``<unk>``) and a learned mix of
  a frozen pretrained transformer's layers (:class:`..training.network.ScalarMix`, :mod:`.encoder`), through a
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
from typing import Any

import numpy as np

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
    #: the share of training sentences seen with learner errors injected, drawn anew each epoch
    #: (:mod:`..training.noise`; 0: none); training only, kept here so that the model file says it
    noise: float = 0.0
    #: weight of the consistency objective on (learner sentence, correction) pairs of
    #: ``semsim ucca train --pairs`` (0: none); training only, kept so that the model file says it
    consistency: float = 0.0

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
        for name, high in (("dropout", 0.99), ("word_dropout", 1e6), ("encoder_lr", 1e3), ("ud_weight", 1e3),
                           ("noise", 1.0), ("consistency", 1e3)):
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


# -- batches -------------------------------------------------------------------------------------
def all_spans(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Start and end of every span of an n-token sentence, ordered by start then end."""
    i, j = np.triu_indices(n + 1, k=1)
    return i, j


def span_index(s: int, e: int, n: int) -> int:
    """The row of span ``(s, e)`` in :func:`all_spans` order."""
    return s * n - s * (s - 1) // 2 + (e - s - 1)


def span_batch(lengths: Sequence[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sentence, start and end of every span of every sentence of a batch: each sentence's
    spans in :func:`all_spans` order (n(n+1)/2 rows for n tokens), sentence after sentence."""
    spans = [all_spans(n) for n in lengths]
    b = np.concatenate([np.full(len(s[0]), k) for k, s in enumerate(spans)])
    i = np.concatenate([s[0] for s in spans])
    j = np.concatenate([s[1] for s in spans])
    return b, i, j


@dataclass
class Inputs:
    """A batch as arrays (numpy for a parse, torch tensors in training): feature indices
    (B, T) per field, spaCy vectors (B, T, d), character indices (B, T, C), encoder layers
    (B, T, layers, dim), lengths (B,)."""

    ids: dict[str, Any]
    vectors: Any
    lengths: Any
    chars: Any = None
    layers: Any = None


def arrays(features: Sequence[Features], vocabs: dict[str, Vocab], rng: np.random.Generator | None = None,
           word_dropout: float = 0.0) -> Inputs:
    """A batch's :class:`Inputs` in numpy; with ``rng``, rare words become ``<unk>`` with
    probability alpha / (alpha + count) so the ``<unk>`` embedding is trained. ``vocabs``
    holds the fields' vocabularies and, for a model with a character encoder, ``chars``."""
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
    chars = char_ids([f.strings["form"] for f in features], vocabs["chars"]) if "chars" in vocabs else None
    layers = None
    if features[0].layers is not None:
        layers = np.zeros((len(features), longest, *features[0].layers.shape[1:]), dtype=np.float32)
        for b, feat in enumerate(features):
            layers[b, :lengths[b]] = feat.layers
    return Inputs(ids, vectors, np.asarray(lengths, dtype=np.int64), chars, layers)
