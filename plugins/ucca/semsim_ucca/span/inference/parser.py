"""A trained span parser: its model file, and parsing tokenised sentences with it.

A model is one safetensors file: the network's weights (float16 when exported for shipping,
float32 in training checkpoints) and, in the file's metadata, everything else needed to use
it — the network's sizes, the feature and label vocabularies, the spaCy model the features
came from, the pretrained encoder's name and weights' SHA-256 (never its weights: they come
from the encoder's package, :mod:`.encoder`) and how the model was trained. One file means
one content hash, which names the model in the parse cache and in score signatures.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from semsim.kernel.errors import SemsimError
from semsim.kernel.files import atomic_write
from semsim.kernel.models import sha256_file

from .features import FIELDS, SPACY_MODEL, Features, featurize
from .tree import ROOT, Node, Tree, spans_to_tree

FORMAT = "semsim-ucca-span/1"
#: spans scored in one batch at most: about 60 MB of label-classifier activations
SPAN_BUDGET = 40_000


def length_batches(lengths: Sequence[int], batch_size: int, budget: int = SPAN_BUDGET) -> list[list[int]]:
    """Indices of sentences grouped by length (shortest first): at most ``batch_size`` a
    group and at most ``budget`` spans, but never less than one sentence."""
    order = sorted(range(len(lengths)), key=lambda k: lengths[k])
    out: list[list[int]] = []
    spans = 0
    for k in order:
        n = lengths[k] * (lengths[k] + 1) // 2
        if not out or len(out[-1]) >= batch_size or spans + n > budget:
            out.append([])
            spans = 0
        out[-1].append(k)
        spans += n
    return out


class SpanParser:
    """The network with its vocabularies; :meth:`parse` turns tokenised sentences into trees.

    ``net`` is the torch network while training (:class:`..training.network.SpanParserNet`; each
    evaluation copies it) and its numpy form once read from a model file
    (:class:`.runtime.Net`): a parse runs the latter either way, so training's dev scores are
    those of the code that ships."""

    def __init__(self, net: Any, vocabs: dict[str, Any], labels: Any, remote_labels: Any,
                 info: dict[str, Any] | None = None) -> None:
        from .model import is_root
        self.net = net
        self.vocabs = vocabs
        self.labels = labels
        self.remote_labels = remote_labels
        self.info = dict(info or {})
        #: the model file it was read from (None while training): errors name it
        self.source: Path | None = None
        self.root_mask = np.array([is_root(s) for s in labels.itos])
        #: subtracted from the "no remote edge" logit before the argmax: remote edges are rare
        #: (about one per thousand unit pairs) and the trained scorer is too cautious; the
        #: training command tunes this on dev for the best remote F1 (:func:`..training.train.tune_remote_bias`)
        self.remote_bias = float(self.info.get("remote_bias", 0.0))

    # -- files ---------------------------------------------------------------------------------
    def metadata(self) -> dict[str, Any]:
        return {"format": FORMAT, "config": self.net.config.to_dict(),
                "vocabs": {f: v.itos for f, v in self.vocabs.items()},
                "labels": self.labels.itos, "remote_labels": self.remote_labels.itos,
                "vector_dim": self.net.vector_dim, "encoder_shape": list(self.net.encoder_shape),
                "info": self.info}

    @property
    def encoder_sha256(self) -> str | None:
        """The SHA-256 of the pretrained encoder's weights the model was trained on (or None)."""
        return self.info.get("encoder_sha256") if self.net.config.encoder else None

    def encoder(self) -> Any:
        """The pretrained encoder, checked against the hash in the model file (or None)."""
        if not self.net.config.encoder:
            return None
        from .encoder import load
        c = self.net.config
        try:
            return load(c.encoder, self.encoder_sha256, depth=self.net.encoder_shape[0] - 1)
        except SemsimError as exc:  # the encoder is the model file's: name the file
            raise SemsimError(_naming(self.source, exc) if self.source else str(exc)) from None

    def save(self, path: str | os.PathLike[str], half: bool = True) -> str:
        """Write the model file atomically (the network being trained, or one loaded for
        parsing); returns its SHA-256."""
        from safetensors.numpy import save
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        from .runtime import Net
        weights = (self.net.w if isinstance(self.net, Net) else
                   {k: v.detach().cpu().numpy() for k, v in self.net.state_dict().items()})
        tensors = {k: np.asarray(v.astype(np.float16) if half and v.dtype.kind == "f" else v, order="C")
                   for k, v in weights.items() if not k.startswith("ud_")}  # training-only
        with atomic_write(path, binary=True) as f:
            f.write(save(tensors, metadata={"semsim": json.dumps(self.metadata(), sort_keys=True)}))
        return sha256_file(path)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> SpanParser:
        """Read a model file for parsing (numpy, :mod:`.runtime`: no torch); any problem is one
        :class:`SemsimError` naming the file."""
        from .model import MAX_WIDTH, Config, Vocab
        from .runtime import Net, check_shapes, shapes
        path = Path(path)
        if not path.is_file():
            raise SemsimError(f"{path}: no such span parser model file")
        meta = read_metadata(path)
        try:
            from safetensors import safe_open
            with safe_open(str(path), framework="numpy") as f:
                tensors = {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118 (safe_open has no __iter__)
            _check_weights(tensors)
            # models written before features were a setting used every field
            config = Config(**{"features": ",".join(FIELDS), **meta["config"]})
            vocabs = {f: Vocab(meta["vocabs"][f]) for f in (*config.fields(), *(("chars",) if config.char_dim else ()))}
            labels, remote_labels = Vocab(meta["labels"]), Vocab(meta["remote_labels"])
            shape = tuple(meta.get("encoder_shape", (0, 0)))
            if not all(isinstance(x, int) and 0 <= x <= MAX_WIDTH for x in (*shape, meta["vector_dim"])):
                raise ValueError(f"declares input sizes {meta['vector_dim']!r}, {shape!r}: at most {MAX_WIDTH}")
            check_shapes(tensors, shapes(config, {f: len(v) for f, v in vocabs.items()}, int(meta["vector_dim"]),
                                         shape, len(labels), len(remote_labels)))
            net = Net(config, tensors, int(meta["vector_dim"]), shape, cls._tuned_shape(config, meta))
            parser = cls(net, vocabs, labels, remote_labels, meta.get("info"))
            parser.source = path
            return parser
        except SemsimError as exc:  # the encoder it names: said as this file's
            raise SemsimError(_naming(path, exc)) from None
        except Exception as exc:  # safetensors, json and the shape checks each raise their own
            raise SemsimError(f"{path}: not a usable span parser model ({type(exc).__name__}: {exc})") from None

    @staticmethod
    def _tuned_shape(config: Any, meta: dict[str, Any]) -> tuple[int, float] | None:
        """Attention heads and LayerNorm epsilon of the fine-tuned encoder layers (their weights
        are in the model file, their shape in the encoder's configuration)."""
        if not config.encoder_tune:
            return None
        from .encoder import check, resolve
        from .encoder_files import encoder_config as read_config
        sha = (meta.get("info") or {}).get("encoder_sha256")
        spec = check(config.encoder, sha) if sha else resolve(config.encoder)
        encoder_config = read_config(spec.path)
        return int(encoder_config["num_attention_heads"]), float(encoder_config["layer_norm_eps"])

    # -- parsing -------------------------------------------------------------------------------
    def predict(self, features: Sequence[Features], batch_size: int = 64
                ) -> list[tuple[dict[tuple[int, int], str], list[tuple[tuple[int, int], tuple[int, int], str]]]]:
        """Labelled spans and remote edges of featurized sentences, batched by length: at
        most ``batch_size`` sentences and :data:`SPAN_BUDGET` spans a batch (every span of
        an n-token sentence is scored, n(n+1)/2 of them, so one 227-token sentence of
        CoNLL-2014 weighs as much as 150 of JFLEG's 18-token ones)."""
        from .decoder import cky
        from .model import arrays, span_batch
        from .runtime import Net, log_softmax
        net = self.net if isinstance(self.net, Net) else Net.from_torch(self.net)
        out: list[Any] = [None] * len(features)
        for idx in length_batches([len(f.strings["word"]) for f in features], batch_size):
            batch = [features[k] for k in idx]
            inputs = arrays(batch, self.vocabs)
            fw, bw = net.encode(inputs)
            logp = log_softmax(net.label_logits(fw, bw, *span_batch(inputs.lengths.tolist())))
            offset = 0
            for k, feat in enumerate(batch):
                n = len(feat.strings["word"])
                m = n * (n + 1) // 2
                chosen = cky(logp[offset:offset + m], n, self.root_mask)
                labelled = {s: self.labels.itos[lab] for s, lab in chosen.items()}
                out[idx[k]] = (labelled, self._remotes(net, fw, bw, k, list(chosen)))
                offset += m
        return out

    def _remotes(self, net: Any, fw: np.ndarray, bw: np.ndarray, k: int, units: list[tuple[int, int]]
                 ) -> list[tuple[tuple[int, int], tuple[int, int], str]]:
        if len(units) < 2 or len(self.remote_labels) < 2:
            return []
        i = np.array([s for s, _ in units])
        j = np.array([e for _, e in units])
        logits = net.remote_logits(net.span_reps(fw, bw, np.full_like(i, k), i, j))
        logits[..., 0] -= self.remote_bias
        best = logits.argmax(axis=-1)
        out = []
        for p, c in zip(*np.nonzero(best)):
            (ps, pe), (cs, ce) = units[p], units[c]
            if not (cs <= ps and pe <= ce):  # a unit cannot be a remote child of its own descendant
                out.append((units[p], units[c], self.remote_labels.itos[best[p, c]]))
        return out

    def parse(self, sentences: Sequence[Sequence[str]], batch_size: int = 64) -> list[Tree]:
        """Trees of tokenised sentences (an empty sentence gives a root without units)."""
        nonempty = [k for k, s in enumerate(sentences) if len(s)]
        feats = featurize([sentences[k] for k in nonempty], name=self.info.get("spacy_model", SPACY_MODEL),
                          fields=self.net.config.fields(), spacy_vectors=self.net.vector_dim > 0,
                          encoder=self.encoder())
        predicted = self.predict(feats, batch_size)
        trees = [Tree(list(s), [Node(ROOT)]) for s in sentences]
        for k, (labels, remotes) in zip(nonempty, predicted):
            trees[k] = spans_to_tree(sentences[k], labels, remotes)
        return trees


def read_metadata(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A model file's semsim metadata, checked to be of the types :meth:`SpanParser.metadata`
    writes. The one way in for everything that reads a model file's header (loading it, and
    the encoder its cache key and signature name), so a damaged header is one
    :class:`SemsimError` naming the file wherever it is first read, never an AttributeError."""
    try:
        from safetensors import safe_open
        with safe_open(str(path), framework="numpy") as f:
            header = f.metadata() or {}
        if "semsim" not in header:
            raise ValueError("no semsim metadata in its header")
        meta = json.loads(header["semsim"])
        _check_metadata(meta)
    except (RecursionError, MemoryError):
        raise SemsimError(f"{path}: not a usable span parser model (its metadata is nested too deep)") from None
    except Exception as exc:  # safetensors and json each raise their own
        raise SemsimError(f"{path}: not a usable span parser model ({type(exc).__name__}: {exc})") from None
    return meta


def _naming(path: Path | None, exc: SemsimError) -> str:
    """``exc``'s line led by the model file it concerns (once)."""
    return str(exc) if path is None or str(exc).startswith(f"{path}:") else f"{path}: {exc}"


def _check_metadata(meta: Any) -> None:
    """The model file's metadata is of the types :meth:`SpanParser.metadata` writes: an object
    whose vocabularies and label lists are lists of distinct strings (a repeated entry would
    give two ids one string, and scores of a network that never saw that vocabulary)."""
    if not isinstance(meta, dict) or not isinstance(meta.get("config"), dict) \
            or not isinstance(meta.get("vocabs"), dict) or not isinstance(meta.get("info", {}), (dict, type(None))):
        raise ValueError("metadata of the wrong types (an object with config, vocabs and info objects expected)")
    if meta.get("format") != FORMAT:
        raise ValueError(f"format {meta.get('format')!r}, expected {FORMAT!r}")
    if not isinstance(meta["config"].get("encoder") or "", str) \
            or not isinstance((meta.get("info") or {}).get("encoder_sha256") or "", str):
        raise ValueError("its encoder name or encoder_sha256 is not a string")
    if not isinstance(meta.get("encoder_shape", []), list):
        raise ValueError(f"encoder_shape {meta.get('encoder_shape')!r} is not a list")
    lists = {**{f"vocabulary {k!r}": v for k, v in meta["vocabs"].items()},
             "labels": meta.get("labels"), "remote labels": meta.get("remote_labels")}
    for what, items in lists.items():
        if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
            raise ValueError(f"its {what} is not a list of strings")
        if len(set(items)) != len(items):
            twice = next(x for x in items if items.count(x) > 1)
            raise ValueError(f"its {what} lists {twice!r} more than once")
    if not isinstance(meta.get("vector_dim"), int) or isinstance(meta.get("vector_dim"), bool):
        raise ValueError(f"vector_dim {meta.get('vector_dim')!r} is not a whole number")


def _check_weights(tensors: dict[str, np.ndarray]) -> None:
    """Weights are finite floating-point numbers, as :meth:`SpanParser.save` writes them: NaN
    or inf weights, or integers where floats belong, would score silently (every sentence
    the same flat parse)."""
    for name, t in tensors.items():
        if t.dtype.kind != "f":
            raise ValueError(f"weight {name!r} has dtype {t.dtype}, not floating point")
        if not np.isfinite(t).all():
            raise ValueError(f"weight {name!r} holds values that are not finite (NaN or inf)")
