"""semsim's AMR plugin: hook implementations only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from semsim.kernel.graph import Graph
from semsim.kernel.hookspecs import hookimpl
from semsim.kernel.records import Download, MetricSpec, Parser, Reader
from semsim.kernel.scheme import Scheme

from .reader import read_penman, read_penman_aligned, sniff_penman

#: the plugin API this plugin is written for (semsim refuses it under another major version)
SEMSIM_PLUGIN_API = "1.0"


@hookimpl
def register_readers(register: Callable[[Reader], None]) -> None:
    register(Reader("penman", (".amr", ".penman"), read_penman, sniff_penman,
                    "AMR graphs in PENMAN notation, blank-line separated, # :: metadata"))
    register(Reader("penman-aligned", (".amr", ".penman"), read_penman_aligned, lambda path, head: False,
                    "PENMAN AMRs anchored to the words of # ::tok (or ::snt) by their ~e.N alignments; "
                    "only with --read-format"))


@hookimpl
def register_parsers(register: Callable[[Parser], None]) -> None:
    from . import amrlib_parser  # light: torch, transformers and amrlib are imported on the first parse
    register(Parser("amrlib", "amr", amrlib_parser.parse,
                    "amrlib 0.8.1 sentence-to-AMR models (--model DIR, an amrlib model directory; "
                    "loading one runs code from it: trusted models only)",
                    model_identity=amrlib_parser.model_identity, serialize=amrlib_parser.serialize,
                    own_tokens=True))  # an AMR's tokens are its concepts, not the sentence's words


@hookimpl
def register_downloads(register: Callable[[Download], None]) -> None:
    # No SHA-256 is published for amrlib's models: the one computed on first download is
    # recorded and reported (trust on first use). Each archive unpacks into one directory.
    from .amrlib_parser import RELEASE_URL, RELEASES
    for name, tag, stem, description in RELEASES:
        register(Download(name, f"{RELEASE_URL}/{tag}/{stem}.tar.gz", "amrlib", None, description, subpath=stem))


@hookimpl
def register_metrics(register: Callable[[MetricSpec], None]) -> None:
    from .smatch import smatch_graphs
    register(MetricSpec("smatch", "amr", smatch_graphs, "Smatch (Cai & Knight 2013), deterministic"))


@hookimpl
def register_schemes(register: Callable[[Scheme], None]) -> None:
    from .adapter import AMR
    register(AMR)


@hookimpl
def to_graph(obj: Any) -> Graph | None:
    import penman

    from semsim.kernel.formats.mrp import is_mrp
    if is_mrp(obj, "amr"):
        from .mrp import mrp_amr_to_graph
        return mrp_amr_to_graph(obj)
    if isinstance(obj, penman.Graph):
        from .adapter import amr_to_graph
        return amr_to_graph(obj)
    return None
