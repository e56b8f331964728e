"""semsim's AMR plugin: hook implementations only."""

from __future__ import annotations

from typing import Any

from semsim.hookspecs import hookimpl
from semsim.plugins import Reader

from .reader import read_penman, sniff_penman


@hookimpl
def register_readers(register):
    register(Reader("penman", (".amr", ".penman"), read_penman, sniff_penman,
                    "AMR graphs in PENMAN notation, blank-line separated, # :: metadata"))


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
