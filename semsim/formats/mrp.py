"""MRP, the CoNLL 2019/2020 meaning-representation format (JSON Lines), read once for all
frameworks (UCCA, AMR, EDS, DM, PSD...).

The reader yields :class:`MrpGraph` objects; a framework's plugin converts them through
the ``to_graph`` hook (the UCCA plugin adds UCCA's scheme and unit kinds, the AMR plugin
treats anchorless concept graphs as AMR). For frameworks no plugin claims, the fallback
here gives a generic graph: tokens are the anchored character spans of the input, nodes
are units anchored to them (node labels kept), edges keep their labels (parallel edges, MRP's
way of giving an edge several labels, become one multi-label edge), and an edge with the
``remote`` property is remote.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..graph import Edge, Graph, Token, Unit
from ..hookspecs import hookimpl
from ..plugins import Reader
from ..scheme import PLAIN, Scheme


@dataclass(frozen=True)
class MrpGraph:
    """One MRP graph as read (the JSON object, untouched, plus where it came from)."""

    framework: str
    id: str
    data: dict[str, Any] = field(repr=False)
    source: str = ""
    line: int = 0


def is_mrp(obj: Any, framework: str) -> bool:
    """Whether ``obj`` is an MRP graph of ``framework`` (what a plugin's ``to_graph`` claims)."""
    return isinstance(obj, MrpGraph) and obj.framework == framework


def read_mrp(path: Path) -> Iterator[MrpGraph | InputError]:
    """One graph per line; a line that is not an MRP graph is yielded as an error in its place."""
    try:
        with open(path, encoding="utf-8-sig") as f:
            lines = f.read().splitlines()
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 ({exc.reason} at byte {exc.start})", path) from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            yield MrpGraph(str(data["framework"]), str(data["id"]), data, str(path), n)
        except (ValueError, KeyError, TypeError) as exc:
            yield InputError(f"not an MRP graph: {exc}", path, n)


def sniff_mrp(path: Path, head: bytes) -> bool:
    return head.lstrip().startswith(b"{") and b'"framework"' in head


def edge_is_remote(edge: dict[str, Any]) -> bool:
    props = dict(zip(edge.get("properties", ()), edge.get("values", ())))
    return bool(props.get("remote")) or "remote" in edge.get("attributes", ())


def mrp_to_graph(m: MrpGraph, scheme: Scheme = PLAIN, kinds: dict[int, str] | None = None) -> Graph:
    """A generic graph from an anchored MRP graph (see the module docstring)."""
    d = m.data
    text = d.get("input", "")
    nodes = sorted(d.get("nodes", ()), key=lambda n: n["id"])
    spans = sorted({(a["from"], a["to"]) for n in nodes for a in n.get("anchors", ())})
    token_of = {s: i for i, s in enumerate(spans)}
    tokens = tuple(Token(text[a:b], punct=not any(c.isalnum() for c in text[a:b])) for a, b in spans)
    index = {n["id"]: i for i, n in enumerate(nodes)}
    parents = {e["source"] for e in d.get("edges", ())}  # nodes with outgoing edges
    units = tuple(Unit(str(n["id"]), (kinds or {}).get(n["id"], ""),
                       tuple(sorted(token_of[(a["from"], a["to"])] for a in n.get("anchors", ()))),
                       implicit=not n.get("anchors") and n["id"] not in parents, label=n.get("label"))
                  for n in nodes)
    labels: dict[tuple[int, int, bool], list[str]] = {}  # parallel edges = one edge with several labels
    try:
        for e in d.get("edges", ()):
            key = (index[e["source"]], index[e["target"]], edge_is_remote(e))
            labels.setdefault(key, []).append(e.get("label") or "_")
        root = index[d["tops"][0]] if d.get("tops") else 0
    except KeyError as exc:
        raise InputError(f"graph {m.id}: edge or top names an unknown node {exc}", m.source, m.line) from None
    edges = tuple(Edge(p, c, tuple(ls), remote) for (p, c, remote), ls in labels.items())
    return Graph(tokens, units, edges, scheme=scheme, id=m.id, root=root,
                 meta={"framework": m.framework, "input": text, "source": m.source})


@hookimpl
def register_readers(register):
    register(Reader("mrp", (".mrp", ".jsonl"), read_mrp, sniff_mrp, "MRP JSON Lines (any framework)"))


@hookimpl(trylast=True)
def to_graph(obj: Any):
    return mrp_to_graph(obj) if isinstance(obj, MrpGraph) else None


def graph_to_mrp(g: Graph, framework: str | None = None) -> dict[str, Any]:
    """An MRP graph (flavor 1, anchored) of a semsim graph: the input is the tokens joined by
    single spaces, anchors are the tokens' character spans, a multi-label edge becomes
    parallel edges, and remote edges carry the ``remote`` property (as MRP 2019's UCCA)."""
    offsets, pos = [], 0
    for t in g.tokens:
        offsets.append((pos, pos + len(t.text)))
        pos += len(t.text) + 1
    nodes = []
    for i, u in enumerate(g.units):
        node: dict[str, Any] = {"id": i}
        if u.label is not None:
            node["label"] = u.label
        if u.anchors:
            node["anchors"] = [{"from": offsets[a][0], "to": offsets[a][1]} for a in sorted(u.anchors)]
        nodes.append(node)
    edges = []
    for e in g.edges:
        for label in e.labels:
            edge: dict[str, Any] = {"source": e.parent, "target": e.child, "label": label}
            if e.remote:
                edge.update(properties=["remote"], values=[True])
            edges.append(edge)
    return {"id": g.id, "flavor": 1, "framework": framework or g.meta.get("framework") or g.scheme.name,
            "version": 1.0, "input": g.text, "tops": [g.root], "nodes": nodes, "edges": edges}
