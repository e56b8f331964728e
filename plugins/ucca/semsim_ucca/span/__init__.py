"""semsim's own UCCA parser (``ucca-span``): a span-based chart parser trained by semsim.

This module is what the plugin registers; it is light (no torch, spaCy or ucca import)
until the first parse. The model is a file: ``--model PATH`` (or the name of a model shipped
in this package, :data:`MODELS`), else ``$SEMSIM_UCCA_SPAN_MODEL``, else the default shipped
model (:data:`DEFAULT_MODEL`, trained with ``semsim ucca train``; see docs/parser.md).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from semsim.kernel.errors import SemsimError, option
from semsim.kernel.signature import Signature

if TYPE_CHECKING:
    from semsim.kernel.graph import Graph

NAME = "ucca-span"
ENV = "SEMSIM_UCCA_SPAN_MODEL"
MODELS = Path(__file__).resolve().parent.parent / "models"
#: the default (since #54): characters and the first 2 of all-MiniLM-L6-v2's 6 layers (frozen), trained
#: on the official EWT split with learner errors injected and a consistency objective on JFLEG test's
#: (learner sentence, correction) pairs (docs/parser.md); the same network, so the same speed, as
#: ``ucca-span-ewt-minilm-l2``, the default before it, which is still shipped
DEFAULT_MODEL = MODELS / "ucca-span-ewt-minilm-l2-consistency.safetensors"

#: how trees are read off the network's span scores (:func:`.inference.decoder.cky`): part of the parse
#: cache's key and of signatures, since it changes parses without changing the model file.
#: ``cky-2`` (2026-11-25) scores a tree by its units only; ``cky-1`` also scored the spans that
#: are no unit, log p(none), which made nearly every parse flat (every unit under the root).
DECODER = "cky-2"

_loaded: dict[tuple[str, int, int], Any] = {}


def resolve_model(model: str | os.PathLike[str] | None) -> Path:
    """The model file: a path, or the name of a shipped model (``ucca-span-ewt-chars``)."""
    from semsim.kernel.models import requested_model
    path = requested_model(model, ENV, Path.is_file, default=DEFAULT_MODEL,
                           named=lambda name: MODELS / f"{name}.safetensors")
    if not path.is_file():
        where = (option("model", str(model)) if model else f"${ENV}" if os.environ.get(ENV)
                 else "the plugin's shipped model")
        shipped = ", ".join(sorted(p.stem for p in MODELS.glob("*.safetensors"))) or "none"
        raise SemsimError(f"{path}: no span parser model there ({where}); the shipped ones are {shipped}; train "
                          "one with `semsim ucca train` or reinstall semsim-ucca")
    return path


def shipped_models() -> dict[str, str]:
    """The models installed with this package (``model=`` takes each name), by name: their files."""
    return {p.stem: str(p) for p in sorted(MODELS.glob("*.safetensors"))}


def _encoder(path: Path) -> tuple[str, str] | None:
    """The pretrained encoder a model file names (name, weights' SHA-256), from its header
    (read once per file version)."""
    from semsim.kernel.models import file_version
    return _header_encoder(*file_version(path))


@functools.cache
def _header_encoder(path: str, size: int, mtime_ns: int) -> tuple[str, str] | None:
    from .inference.parser import read_metadata
    meta = read_metadata(path)  # checked: a damaged header is one line naming the file
    name = meta["config"].get("encoder")
    return (name, (meta.get("info") or {}).get("encoder_sha256", "")) if name else None


def model_identity(model: str | None = None) -> str:
    """The parse cache's key: the SHA-256 of the model file, with a pretrained encoder ``+``
    the SHA-256 of its weights (hashed once per file version), and ``+`` the :data:`DECODER`."""
    from semsim.kernel.models import sha256_once
    path = resolve_model(model)
    encoder = _encoder(path)  # the file's header only
    return sha256_once(path) + (f"+{encoder[1]}" if encoder else "") + f"+{DECODER}"


def model_name(model: str | None = None) -> Signature:
    """The model's name in signatures: its file name without the suffix, then the fields
    ``encoder:NAME@HASH12`` for a model that reads a pretrained encoder, and ``decoder:``
    the :data:`DECODER`."""
    path = resolve_model(model)
    encoder = _encoder(path)
    name = Signature.of(path.stem)
    if encoder:
        name = name.add("encoder", f"{encoder[0]}@{encoder[1][:12]}")
    return name.add("decoder", DECODER)


def load(model: str | None = None) -> Any:
    """The :class:`.parser.SpanParser` of a model file, loaded once per process."""
    path = resolve_model(model)
    from semsim.kernel.models import file_version
    key = file_version(path)
    if key not in _loaded:
        from .inference.parser import SpanParser
        _loaded[key] = SpanParser.load(path)
    return _loaded[key]


def parse(texts: Sequence[str], model: str | None = None) -> list[Graph]:
    """UCCA graphs of whitespace-tokenised sentences, each built once from its tree
    (:func:`.tree.tree_to_graph`; ids ``s0``, ``s1``... by position in the batch)."""
    from semsim.kernel.errors import ParseError
    from semsim.kernel.limits import sentence_too_long

    from .inference.tree import tree_to_graph
    sentences = [t.split() for t in texts]
    too_long = [(t, why) for t, s in zip(texts, sentences) if (why := sentence_too_long(len(s), "the span parser"))]
    if too_long:  # every span is scored: memory grows with the square of the length
        raise ParseError(too_long[0][1], [t for t, _ in too_long])
    trees = load(model).parse(sentences)
    return [tree_to_graph(tree, f"s{i}") for i, tree in enumerate(trees)]


def serialize(graph: Graph) -> str:
    """The parse as one line of MRP JSON (what the cache keeps beside the graph, for people:
    semsim reads the graph)."""
    from semsim.kernel.formats.mrp import graph_to_mrp
    return json.dumps(graph_to_mrp(graph, "ucca"), ensure_ascii=False, sort_keys=True)
