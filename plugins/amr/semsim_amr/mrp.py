"""AMR graphs from MRP: rebuilt as PENMAN graphs, then converted like any AMR.

MRP gives AMR nodes with ``label`` (the concept) and ``properties``/``values`` (constants),
and edges with their surface role (``ARG1-of``); a ``-of`` role is read from the other
end, as PENMAN does. MRP drops the quotes around string constants; they are restored
(numbers, ``-``, ``+`` and ``:mode`` values stay bare, as in AMR releases). The adapter
needs only the triples and the top: no PENMAN layout is involved.
"""

from __future__ import annotations

import re

from semsim.formats.mrp import MrpGraph
from semsim.graph import Graph

from .adapter import amr_to_graph

_BARE = re.compile(r"^(-|\+|-?\d+(\.\d+)?)$")


def _constant(prop: str, value: object) -> str:
    text = str(value)
    return text if prop == "mode" or _BARE.match(text) else '"' + text.replace('"', '\\"') + '"'


def mrp_amr_to_graph(m: MrpGraph) -> Graph:
    import penman
    d = m.data
    var = {n["id"]: f"n{n['id']}" for n in d.get("nodes", ())}
    triples = []
    for n in d.get("nodes", ()):
        triples.append((var[n["id"]], ":instance", n.get("label", "")))
        constants = zip(n.get("properties", ()), n.get("values", ()))
        triples += [(var[n["id"]], f":{p}", _constant(p, v)) for p, v in constants]
    for e in d.get("edges", ()):
        role, src, tgt = e["label"], var[e["source"]], var[e["target"]]
        if role.endswith("-of"):
            role, src, tgt = role[:-3], tgt, src
        triples.append((src, f":{role}", tgt))
    top = var[d["tops"][0]] if d.get("tops") else triples[0][0]
    return amr_to_graph(penman.Graph(triples, top=top, metadata={"id": m.id, "snt": d.get("input", "")}))
