"""semsim's extension points.

A plugin is a module (or object) with functions marked ``@hookimpl`` whose names are
hooks below; it is found through the ``semsim`` entry-point group::

    [project.entry-points.semsim]
    ucca = "semsim_ucca"

Registration hooks receive a ``register`` callback, as in ``llm``, so a plugin body is a
few lines; what they register are the records of :mod:`semsim.kernel.records`. The conversion
hook is ``firstresult``, as in ``pytest``: the first plugin that recognises an object
converts it. This module and the records are part of the kernel: a plugin imports them, never
the plugin manager (:mod:`semsim.app.plugins`). They are versioned together as the plugin API,
:data:`PLUGIN_API` (``"1.0"``): a plugin says which it is written for in its module,
``SEMSIM_PLUGIN_API = "1.0"``, and semsim refuses one written for another major version.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from collections.abc import Callable

    import click

    from .graph import Graph
    from .records import Download, MetricSpec, ParaphraseJudge, Parser, Reader, WordEncoder, Writer
    from .scheme import Scheme

#: The plugin API (these hooks and the records of :mod:`semsim.kernel.records`), ``MAJOR.MINOR``.
#: A plugin declares the one it is written for as a module attribute, ``SEMSIM_PLUGIN_API =
#: "1.0"``, and semsim refuses to load it under another major version, with one line naming it,
#: rather than fail later in a hook. A minor version adds hooks or record fields with defaults;
#: a major one changes or removes what a plugin written for the last one relies on.
PLUGIN_API = "1.0"

hookspec = pluggy.HookspecMarker("semsim")
hookimpl = pluggy.HookimplMarker("semsim")


@hookspec
def register_readers(register: Callable[[Reader], None]) -> None:
    """Register file readers: ``register(Reader(name, suffixes, read, sniff, description))``.

    ``read(path)`` yields graphs, semsim graphs (:class:`~semsim.kernel.graph.Graph`) or native
    objects that :func:`to_graph` converts (a file may hold several). For a graph it cannot read it
    yields an :class:`~semsim.kernel.errors.InputError` naming the file and line, in that graph's
    place, and goes on, so one bad graph costs only its own pair (the CLI scores the others
    and prints one line naming the file and line); it raises the error when the file as a
    whole is unusable. It never lets another exception escape, nor returns a graph for
    input that is not what the file says. ``sniff(path, head)`` gets the first 4 KiB, as
    ``bytes``, and says whether the file is in this format; it is asked only when several readers share a
    suffix (e.g. UCCA XML vs. other XML).
    """


@hookspec
def register_parsers(register: Callable[[Parser], None]) -> None:
    """Register parsers from text to graphs:
    ``register(Parser(name, representation, parse, description, model_identity, serialize, model_name, default))``.

    ``parse(texts, model)`` takes a batch of sentences and returns one graph per text, in
    order: a :class:`~semsim.kernel.graph.Graph` (preferred: the graph the plugin's adapter built,
    kept as it is, built once) or, as before, a native graph that :func:`to_graph` converts;
    ``model`` is what the user passed
    (``--model``), or None for the parser's default. ``model_identity(model)`` returns a
    content hash of the model (part of the parse cache's key; without it the cache is keyed
    by the ``--model`` string alone) and raises :class:`~semsim.kernel.errors.SemsimError` saying
    what to do when the model is missing or unusable (a parser without a model file
    returns a constant naming its rules' version); ``serialize(parsed)`` returns a text form
    of a parse (what ``parse`` returned) kept in the cache beside the graph, for people and tools that inspect the
    cache (semsim never reads it back: a hit serves the graph); ``model_name(model)`` names the model for people:
    scores computed from text carry ``parser:NAME|model:MODEL_NAME@HASH12`` in their
    signature. ``default=True`` makes the parser the one used for its representation when
    the user names a representation but no parser (with several parsers and no default, the
    user must choose with ``--parser``). It never claims plain text given with neither: that
    goes to UCCA's default parser (``$SEMSIM_REPRESENTATION`` changes it), so installing a
    plugin changes no other plugin's results. Loading models must happen on the first call, never at import or
    registration time.
    """


@hookspec
def register_writers(register: Callable[[Writer], None]) -> None:
    """Register writers of graphs to native files:
    ``register(Writer(name, representation, suffix, write, description, write_all))``.

    ``write(graph, path)`` writes one graph whose scheme is named ``representation`` to one
    file (the UCCA plugin's ``xml`` writes UCCA XML passages): ``semsim parse --format NAME -o
    DIR`` writes one file per graph into DIR, parsing into ``representation`` when neither
    ``--representation`` nor ``--parser`` is given. ``write_all(graphs, path)`` writes them all, in
    order, to one file (a treebank: CoNLL-U, multi-graph PENMAN): ``semsim parse --format NAME
    -o FILE``. Give either or both (with both, an existing directory or a path ending in ``/``
    takes one file per graph). Either writes to the path it is given, a temporary name that
    ``semsim parse`` renames into place once the writer returns. MRP JSON Lines (``--format
    mrp``) is built in for every representation.
    """


@hookspec
def register_commands(cli: click.Group) -> None:
    """Add commands to the ``semsim`` command line, as ``llm`` plugins do: inside the hook,
    decorate functions with ``@cli.command()`` / ``@cli.group()`` or call
    ``cli.add_command(...)``. Keep the module light (import heavy libraries inside the
    command): the hook runs whenever the command line lists its commands. A command may use
    the public API (:mod:`semsim.api`) besides the kernel (docs/architecture.md)."""


@hookspec
def register_downloads(register: Callable[[Download], None]) -> None:
    """Register downloadable models: ``register(Download(name, url, parser, sha256, description, subpath))``.

    ``semsim models download NAME`` fetches the archive (http, https or file URL; an
    interrupted http download resumes), checks the SHA-256 (when ``sha256`` is None, the one
    computed is recorded and reported: trust on first use), unpacks it into the per-user
    model directory atomically, and ``semsim models path NAME`` prints ``<dir>/<subpath>``,
    what to pass as ``--model``.
    """


@hookspec
def register_metrics(register: Callable[[MetricSpec], None]) -> None:
    """Register further measures on two graphs of one representation, reported beside USim:
    ``register(MetricSpec(name, representation, score, description))``.

    ``score(g1, g2)`` returns a :class:`~semsim.kernel.stats.Score` (counts per part and a
    signature) for graphs whose scheme is named ``representation``; ``semsim compare``
    reports it next to USim for that representation (the AMR plugin registers Smatch so).
    """


@hookspec
def register_paraphrase_judges(register: Callable[[ParaphraseJudge], None]) -> None:
    """Register a judge of paraphrases for ``--tokens paraphrase``:
    ``register(ParaphraseJudge(name, load, identity, language, description))``.

    The judge decides whether the words a correction wrote between two aligned words say
    what the source's words there said (:mod:`semsim.kernel.align.paraphrase`); it serves every
    representation whose tokens are words of its ``language``. The UCCA plugin registers
    one on the MiniLM sentence encoder it pins.
    """


@hookspec
def register_word_encoders(register: Callable[[WordEncoder], None]) -> None:
    """Register contextual word vectors for ``--tokens contextual``:
    ``register(WordEncoder(name, load, identity, language, description))``.

    The vectors grade each aligned pair of words by how alike the two are in their sentences
    (:mod:`semsim.kernel.align.contextual`); they serve every representation whose tokens are words
    of the ``language``. The UCCA plugin registers one on the MiniLM encoder it pins.
    """


@hookspec
def register_schemes(register: Callable[[Scheme], None]) -> None:
    """Register the schemes of the graphs this plugin builds: ``register(scheme)``.

    A graph carries its :class:`~semsim.kernel.scheme.Scheme`; the plugin that registered a scheme is
    the one every score of its graphs names in its signature (``scheme:NAME@HASH|plugin:...``),
    and what keeps only the scheme's name (an explanation document, ``semsim explain --json``,
    MRP from other tools) finds the rest here: the explanation page names the labels of its
    graphs with the registered scheme's ``label_names``. Two plugins may not register
    different schemes of one name.
    """


@hookspec(firstresult=True)
def to_graph(obj: Any) -> Graph | None:
    """Convert a native graph object (e.g. a ``ucca.core.Passage``) to a semsim Graph.

    Return ``None`` for objects of a type this plugin does not know; the first non-None
    result wins. MRP that semsim wrote (with the member ``"semsim"``) is converted by the
    built-in ``mrp`` plugin before any other is asked: it carries the graph itself.
    """
