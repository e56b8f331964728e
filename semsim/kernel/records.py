"""What a plugin registers: the records its hooks hand to ``register`` (:mod:`semsim.kernel.hookspecs`).

They are plain frozen data in the kernel, so that a plugin can build them without importing
the plugin manager, and the application (:mod:`semsim.app.plugins`) can collect them without
knowing any plugin. Each record names the representation it serves in one field,
``representation`` (``ucca``, ``amr``, ``dm``...: the name of the graphs' scheme).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import PluginError
from .signature import Signature


@dataclass(frozen=True)
class Reader:
    """A file format: ``read(path)`` yields graphs; ``sniff(path, head)`` recognises content."""

    name: str
    suffixes: tuple[str, ...]
    read: Callable[[Path], Iterator[Any]]
    sniff: Callable[[Path, bytes], bool] | None = None
    description: str = ""
    plugin: str = field(default="", compare=False)


@dataclass(frozen=True)
class Parser:
    """Text to graphs, in batches.

    ``parse(texts, model)`` returns one graph per text (``model``: a path or name the parser
    understands, or None for its default, e.g. from an environment variable): a
    :class:`~semsim.kernel.graph.Graph`, built once by the plugin's adapter and kept as it is (the
    preferred form), or a native object (MRP, a UCCA passage) that the ``to_graph`` hook
    converts, as parsers returned before graphs (still taken: a parser may mix the two).
    ``model_identity(model)`` names the model's content (a hash) for the parse cache and
    raises :class:`~semsim.kernel.errors.SemsimError` with advice when the model is missing.
    ``serialize(parsed)`` gives a text form of what ``parse`` returned (a graph or a native
    object) to keep in the cache beside its graph,
    for people and tools that inspect the cache (optional; semsim never reads it back).
    A parser without a model file gives a ``model_identity`` naming its rules' version.
    ``model_name(model)`` names the model for people, in score signatures (optional): a
    :class:`~semsim.kernel.signature.Signature` whose first field is the name and whose other
    fields name what else the model depends on (a pretrained encoder, say), which the
    signature puts after the model's hash (keys semsim writes are refused). A plain string is
    one name, whatever it holds (the rendering escapes ``|``, newlines and control characters).
    """

    name: str
    representation: str
    parse: Callable[[Sequence[str], str | None], list[Any]]
    description: str = ""
    model_identity: Callable[[str | None], str] | None = None
    serialize: Callable[[Any], str] | None = None
    model_name: Callable[[str | None], str | Signature] | None = None
    default: bool = False
    plugin: str = field(default="", compare=False)
    #: whether the graphs' tokens are the parser's own rather than the text's space-separated
    #: words: a tokenizer of its own, or pseudo-tokens (a DRS's lemmas and senses). False (the
    #: contract): a graph whose tokens are not the words is refused for its sentence, naming
    #: the parser, since USim aligns tokens by their text and would score a parser's tokens as
    #: if they were the words (one that split "can't" scored 1.0 against an unchanged text it
    #: had split the same way). True: the parser says so, and its tokens are taken as they are.
    own_tokens: bool = False
    #: the models the plugin installs with itself, by name (what ``model=`` takes), and their
    #: files: ``semsim models list`` shows them beside the downloadable ones
    shipped: Callable[[], Mapping[str, str]] | None = None


@dataclass(frozen=True)
class Writer:
    """Graphs of ``representation`` to native files named with ``suffix``.

    ``write(graph, path)`` writes one graph to one file (a UCCA XML passage);
    ``write_all(graphs, path)`` writes a sequence of graphs, in order, to one file (a treebank:
    CoNLL-U, multi-graph PENMAN). A writer has one of them or both; a separate field, not a
    flag that changes what ``write`` takes, so that writers of one graph per file keep working.
    """

    name: str
    representation: str
    suffix: str
    write: Callable[[Any, Path], None] | None = None
    description: str = ""
    write_all: Callable[[Sequence[Any], Path], None] | None = None
    plugin: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if self.write is None and self.write_all is None:
            raise PluginError(f"writer {self.name!r} has neither write nor write_all")


@dataclass(frozen=True)
class MetricSpec:
    """A measure on two graphs of ``representation`` offered beside USim (Smatch for AMR,
    say); "spec" because the metric itself is ``score``, this is its registration."""

    name: str
    representation: str
    score: Callable[[Any, Any], Any]
    description: str = ""
    plugin: str = field(default="", compare=False)


@dataclass(frozen=True)
class ParaphraseJudge:
    """Says whether the words a correction wrote in place of a source's say the same, for
    ``--tokens paraphrase`` (:mod:`semsim.kernel.align.paraphrase`, which also defines the queries
    and verdicts). Unlike the other records it serves a ``language``, not a representation:
    the tokens of any graph are words of one.

    ``load()`` returns the judge itself, a callable from a list of
    :class:`~semsim.kernel.align.paraphrase.Query` to one :class:`~semsim.kernel.align.paraphrase.Verdict`
    each, loading its model on the first call only; it must give the same verdicts whatever
    the batch, the process or the thread count. ``identity()`` names the judge for score
    signatures: its model by content hash and its settings (``minilm-l6@53aa51172d14,w3,t0.90``).
    """

    name: str
    load: Callable[[], Callable[[Sequence[Any]], list[Any]]]
    identity: Callable[[], str]
    language: str = "en"
    description: str = ""
    plugin: str = field(default="", compare=False)


@dataclass(frozen=True)
class WordEncoder:
    """Contextual word vectors for ``--tokens contextual`` (:mod:`semsim.kernel.align.contextual`):
    how alike two words are *in their sentences*, which a form-based relation cannot say
    (``striving``/``struggling``, ``indemnification``/``operations``). Like
    :class:`ParaphraseJudge`, it serves a ``language``, not a representation.

    ``load()`` returns the encoder, a callable from a sentence's words to one vector per word
    (a float array of shape ``(len(words), dim)``), loading its model on the first call
    only; it must give the same vectors whatever else was encoded, in any process or thread
    count. ``identity()`` names it for score signatures: its model by content hash and the
    layer it reads (``minilm-l6@53aa51172d14,layer4``).
    """

    name: str
    load: Callable[[], Callable[[Sequence[str]], Any]]
    identity: Callable[[], str]
    language: str = "en"
    description: str = ""
    plugin: str = field(default="", compare=False)


@dataclass(frozen=True)
class Download:
    """A model archive ``semsim models download NAME`` can fetch (:mod:`semsim.app.downloads`).
    ``sha256`` None: no published checksum (trust on first use)."""

    name: str
    url: str
    parser: str
    sha256: str | None = None
    description: str = ""
    subpath: str = ""  # what to pass to the parser, relative to the unpacked directory
    plugin: str = field(default="", compare=False)
