"""semsim's UCCA plugin: hook implementations only; the work is in the modules."""

from __future__ import annotations

import sys
from typing import Any

from semsim.hookspecs import hookimpl
from semsim.plugins import Reader

from .reader import read_pickle, read_xml, sniff_xml


@hookimpl
def register_readers(register):
    register(Reader("ucca-xml", (".xml",), read_xml, sniff_xml, "UCCA XML passage (one per file)"))
    register(Reader("ucca-pickle", (".pickle", ".pkl"), read_pickle, None,
                    "ucca Passage pickle (only with --allow-pickle: unpickling runs code)"))


@hookimpl
def to_graph(obj: Any):
    core = sys.modules.get("ucca.core")  # no ucca imported: obj cannot be a Passage
    if core is not None and isinstance(obj, core.Passage):
        from .passage import passage_to_graph
        return passage_to_graph(obj)
    return None
