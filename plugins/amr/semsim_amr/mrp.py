"""AMR graphs from MRP: rebuilt as PENMAN graphs, then converted like any AMR.

MRP gives AMR nodes with ``label`` (the concept) and ``properties``/``values`` (constants),
and edges with their surface role (``ARG1-of``); a ``-of`` role is read from the other
end, as PENMAN does. MRP drops the quotes around string constants; they are restored
(numbers, ``-``, ``+`` and ``:mode`` values stay bare, as in AMR releases). The adapter
needs only the triples and the top: no PENMAN layout is involved.
"""

from __future__ import annotations

import re

from semsim.kernel.errors import InputError
from semsim.kernel.formats.mrp import MrpGraph
from semsim.kernel.graph import Graph

from .adapter import amr_to_graph

_BARE = re.compile(r"^(-|\+|-?\d+(\.\d+)?)$")


def _constant(prop: str, value: object) -> str:
    text = str(value)
    return text if prop == "mode" or _BARE.match(text) else '"' + text.replace('"', '\\"') + '"'


def mrp_amr_to_graph(m: MrpGraph) -> Graph:
    """The semsim graph of an AMR in MRP (which the core's reader has checked is well-formed
    MRP); every node needs its concept and every edge its role."""
    import penman
    d = m.data
    unlabelled = next((f"node {n['id']} has no concept ('label')" for n in d["nodes"] if not n.get("label")), None)
    unlabelled = unlabelled or next((f"edge #{k} ({e['source']} -> {e['target']}) has no role ('label')"
                                     for k, e in enumerate(d.get("edges", ()), 1) if not e.get("label")), None)
    if unlabelled:
        raise InputError(f"graph {m.id}: {unlabelled}", m.source, m.line)
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
    top = var[d["tops"][0]] if d.get("tops") else triples[0][0]  # read_mrp: at least one node
    apart = _unreachable(d, d["tops"][0] if d.get("tops") else d["nodes"][0]["id"])
    if apart:
        raise InputError(f"graph {m.id}: not connected: node(s) {', '.join(map(str, apart[:5]))} cannot be "
                         "reached from the top (an AMR is one rooted graph)", m.source, m.line)
    try:
        return amr_to_graph(penman.Graph(triples, top=top, metadata={"id": m.id, "snt": d.get("input", "")}))
    except penman.exceptions.PenmanError as exc:
        raise InputError(f"graph {m.id}: not a valid AMR: {exc}", m.source, m.line) from None


def _unreachable(d: dict, top: int) -> list[int]:
    """Nodes no chain of edges (in either direction, as PENMAN inverts roles) joins to ``top``."""
    links: dict[int, set[int]] = {n["id"]: set() for n in d["nodes"]}
    for e in d.get("edges", ()):
        links[e["source"]].add(e["target"])
        links[e["target"]].add(e["source"])
    seen, todo = {top}, [top]
    while todo:
        for n in links[todo.pop()] - seen:
            seen.add(n)
            todo.append(n)
    return sorted(links.keys() - seen)
