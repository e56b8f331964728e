"""semsim's extension points.

A plugin is a module (or object) with functions marked ``@hookimpl`` whose names are
hooks below; it is found through the ``semsim`` entry-point group::

    [project.entry-points.semsim]
    ucca = "semsim_ucca"

Registration hooks receive a ``register`` callback, as in ``llm``, so a plugin body is a
few lines. The conversion hook is ``firstresult``, as in ``pytest``: the first plugin that
recognises an object converts it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from collections.abc import Callable

    import click

    from .graph import Graph
    from .models import ModelSpec
    from .plugins import Metric, Parser, Reader, Writer

hookspec = pluggy.HookspecMarker("semsim")
hookimpl = pluggy.HookimplMarker("semsim")


@hookspec
def register_readers(register: Callable[[Reader], None]) -> None:
    """Register file readers: ``register(Reader(name, suffixes, read, sniff))``.

    ``read(path)`` yields graphs, native or :class:`~semsim.graph.Graph` (a file may hold
    several). For a graph it cannot read it yields an :class:`~semsim.errors.InputError`
    naming the file and line, in that graph's place, and goes on with the next, so one bad
    graph costs only itself; it raises the error when the file as a whole is unusable.
    ``sniff(path, head)`` says, from the first bytes, whether the file is in this format;
    it picks between readers that share a suffix (e.g. UCCA XML vs. other XML).
    """


@hookspec
def register_parsers(register: Callable[[Parser], None]) -> None:
    """Register parsers from text to native graphs: ``register(Parser(name, representation, parse, ...))``.

    ``parse(texts, model)`` takes a batch of sentences and returns one native graph per text,
    in order; the native graphs are converted with :func:`to_graph`. ``model_identity(model)``
    returns a content hash of the model (the parse cache's key). Loading models must happen
    on the first call, never at import or registration time. ``default=True`` makes a
    parser the one used for its representation when the user names none.
    """


@hookspec
def register_writers(register: Callable[[Writer], None]) -> None:
    """Register writers of graphs to native files: ``register(Writer(name, scheme, suffix, write))``.

    ``write(graph, path)`` writes one graph of the scheme named ``scheme`` to one file (e.g.
    a UCCA XML passage); ``semsim parse --format NAME`` uses it.
    """


@hookspec
def register_commands(cli: click.Group) -> None:
    """Add commands to the ``semsim`` command line, as ``llm`` plugins do: decorate
    functions with ``@cli.command()`` or ``@cli.group()`` inside this hook."""


@hookspec
def register_models(register: Callable[[ModelSpec], None]) -> None:
    """Register downloadable models: ``register(ModelSpec(name, url, parser, sha256, ...))``.

    ``semsim models download NAME`` fetches, verifies and unpacks them into the per-user
    model directory; ``subpath`` says what to pass to the parser inside the unpacked files.
    """


@hookspec
def register_metrics(register: Callable[[Metric], None]) -> None:
    """Register further measures on pairs of graphs of one representation, reported beside
    USim (e.g. Smatch for AMR): ``register(Metric(name, scheme, score, description))``.

    ``score(g1, g2)`` returns a :class:`~semsim.stats.Score` for graphs whose scheme is named
    ``scheme``; ``semsim compare`` reports it next to USim for that representation.
    """


@hookspec(firstresult=True)
def to_graph(obj: Any) -> Graph | None:
    """Convert a native graph object (e.g. a ``ucca.core.Passage``) to a semsim Graph.

    Return ``None`` for objects of a type this plugin does not know; the first non-None
    result wins.
    """
