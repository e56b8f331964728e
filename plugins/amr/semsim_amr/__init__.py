"""semsim's AMR plugin: hook implementations only."""

from __future__ import annotations

from typing import Any

from semsim.hookspecs import hookimpl
from semsim.plugins import Metric, Reader

from .reader import read_penman, read_penman_aligned, sniff_penman


@hookimpl
def register_readers(register):
    register(Reader("penman", (".amr", ".penman"), read_penman, sniff_penman,
                    "AMR graphs in PENMAN notation, blank-line separated, # :: metadata"))
    register(Reader("penman-aligned", (".amr", ".penman"), read_penman_aligned, lambda path, head: False,
                    "PENMAN AMRs anchored to the words of # ::tok (or ::snt) by their ~e.N alignments; "
                    "only with --read-format"))


@hookimpl
def register_metrics(register):
    from .smatch import smatch_graphs
    register(Metric("smatch", "amr", smatch_graphs, "Smatch (Cai & Knight 2013), deterministic"))


@hookimpl
def to_graph(obj: Any):
    import penman

    from semsim.formats.mrp import is_mrp
    if is_mrp(obj, "amr"):
        from .mrp import mrp_amr_to_graph
        return mrp_amr_to_graph(obj)
    if isinstance(obj, penman.Graph):
        from .adapter import amr_to_graph
        return amr_to_graph(obj)
    return None
