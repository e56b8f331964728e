"""MRP, the CoNLL 2019/2020 meaning-representation format (JSON Lines), read once for all
frameworks (UCCA, AMR, EDS, DM, PSD...).

The reader yields :class:`MrpGraph` objects; a framework's plugin converts them through
the ``to_graph`` hook (the UCCA plugin adds UCCA's scheme and unit kinds, the AMR plugin
treats anchorless concept graphs as AMR). For frameworks no plugin claims, the fallback
here gives a generic graph: tokens are the anchored character spans of the input, nodes
are units anchored to them (node labels kept), edges keep their labels (parallel edges, MRP's
way of giving an edge several labels, become one multi-label edge), and an edge with the
``remote`` property is remote.

MRP cannot say everything an adapter puts in a semsim graph (which tokens are punctuation,
unit kinds and ids, tokens no node covers, the scheme), so MRP that semsim writes
(``semsim parse``, :func:`graph_to_mrp` with ``verbatim=True``) also carries the graph in its
JSON form (:mod:`semsim.kernel.graph_json`, the form graphs travel in between processes and in the
parse cache) as the member ``"semsim"``, which other MRP tools ignore. Such a line is read
back as that graph, field for field, not converted again by a plugin (whose conversion
could judge punctuation or kinds otherwise: issue #47); its nodes, edges, tops and input
must still be the MRP of that graph, so a line edited by another tool is refused, not read
half-stale. A line without the member is converted by its framework's plugin, as any MRP.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..adapt import is_punct
from ..errors import InputError
from ..files import lone_surrogate, printable, read_text, shown
from ..graph import Edge, Graph, GraphError, Token, Unit
from ..graph_json import graph_from_dict, graph_to_dict
from ..hookspecs import hookimpl
from ..records import Reader
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
    """One graph per line (lines end at line feeds only: a U+2028 inside a JSON string is
    a character); a line that is not a well-formed MRP graph (:func:`check_mrp`) is yielded
    as an error in its place. A pretty-printed JSON file is one error, not one per line."""
    lines = read_text(path, "MRP files").split("\n")
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError as exc:
            if n == _first(lines) and (line.strip() in ("{", "[") or _is_json("\n".join(lines))):
                raise InputError("not MRP: a JSON document spread over several lines; MRP has one graph a "
                                 "line (rewrite it with jq -c)", shown(path), n) from None
            yield InputError(f"not an MRP graph: malformed JSON: {exc}", shown(path), n)
            continue
        except RecursionError:
            yield InputError("not an MRP graph: JSON nested too deeply", shown(path), n)
            continue
        problem = check_mrp(data)
        if problem:
            name = (f"graph {printable(str(data['id']))}" if isinstance(data, dict) and _is_id(data.get("id"))
                    else "not an MRP graph")
            yield InputError(f"{name}: {problem}", shown(path), n)
        else:
            yield MrpGraph(data["framework"], str(data["id"]), data, shown(path), n)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _first(lines: list[str]) -> int:
    """The number of the first line that is not blank."""
    return next(n for n, line in enumerate(lines, 1) if line.strip())


def _is_id(x: Any) -> bool:
    return isinstance(x, str | int) and not isinstance(x, bool)


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _properties(obj: dict[str, Any], what: str) -> str | None:
    """What is wrong with the ``properties``/``values`` (and 2019's ``attributes``) of a node or edge."""
    props, values = obj.get("properties", []), obj.get("values", [])
    attributes = obj.get("attributes", [])
    if not isinstance(props, list) or not isinstance(values, list) or not isinstance(attributes, list):
        return f"{what}: 'properties', 'values' and 'attributes' must be lists"
    if not all(isinstance(p, str) for p in [*props, *attributes]):
        return f"{what}: property names must be strings"
    if len(values) != len(props or attributes):
        return f"{what}: {len(props or attributes)} properties but {len(values)} values"
    if not all(v is None or isinstance(v, str | int | float | bool) for v in values):
        return f"{what}: property values must be strings, numbers or booleans"
    return None


def check_mrp(d: Any) -> str | None:
    """What makes ``d`` (one decoded line) not a well-formed MRP graph, or None.

    Required: an object with ``id`` and ``framework``, and ``nodes`` (a non-empty list of
    objects with distinct integer ids). Checked where given: ``input`` (a string), node
    labels, properties and values, anchors (objects of integer ``from`` < ``to`` within the
    input), ``tops`` (ids of nodes) and edges (objects whose ``source`` and ``target`` are
    ids of nodes, with a string label). Anything else (``flavor``, ``time``...) is ignored.
    """
    if not isinstance(d, dict):
        return f"expected a JSON object, found {type(d).__name__}"
    for key in ("id", "framework"):
        if key not in d:
            return f"no {key!r}"
    if not _is_id(d["id"]):
        return "'id' must be a string or a number"
    surrogate = lone_surrogate(d)
    if surrogate:
        return surrogate
    if not isinstance(d["framework"], str) or not d["framework"]:
        return "'framework' must be a non-empty string"
    text = d.get("input", "")
    if not isinstance(text, str):
        return "'input' must be a string"
    nodes = d.get("nodes")
    if not isinstance(nodes, list) or not nodes:
        return "'nodes' must be a non-empty list" if nodes is None or isinstance(nodes, list) else \
            f"'nodes' must be a list, found {type(nodes).__name__}"
    ids: set[int] = set()
    for k, node in enumerate(nodes):
        if not isinstance(node, dict):
            return f"node #{k + 1} is not an object"
        if "id" not in node or not _is_int(node["id"]):
            return f"node #{k + 1} has no integer 'id'"
        nid = node["id"]
        if nid in ids:
            return f"two nodes have id {nid}"
        ids.add(nid)
        if node.get("label") is not None and not isinstance(node["label"], str):
            return f"node {nid}: 'label' must be a string"
        problem = _properties(node, f"node {nid}")
        if problem:
            return problem
        anchors = node.get("anchors", [])
        if not isinstance(anchors, list):
            return f"node {nid}: 'anchors' must be a list"
        for a in anchors:
            if not isinstance(a, dict) or not _is_int(a.get("from")) or not _is_int(a.get("to")):
                return f"node {nid}: an anchor must be an object with integer 'from' and 'to'"
            if not 0 <= a["from"] < a["to"]:
                return f"node {nid}: anchor {a['from']}:{a['to']} is empty or reversed"
            if a["to"] > len(text):
                return (f"node {nid}: anchor {a['from']}:{a['to']} ends beyond the input "
                        f"({len(text)} characters)")
    tops = d.get("tops", [])
    if not isinstance(tops, list):
        return f"'tops' must be a list, found {type(tops).__name__}"
    for t in tops:
        if not _is_int(t) or t not in ids:
            return f"top {t!r} is not the id of a node"
    edges = d.get("edges", [])
    if not isinstance(edges, list):
        return f"'edges' must be a list, found {type(edges).__name__}"
    for k, e in enumerate(edges):
        if not isinstance(e, dict):
            return f"edge #{k + 1} is not an object"
        for end in ("source", "target"):
            if end not in e:
                return f"edge #{k + 1} has no {end!r}"
            if not _is_int(e[end]) or e[end] not in ids:
                return f"edge #{k + 1}: {end} {e[end]!r} is not the id of a node"
        if e.get("label") is not None and not isinstance(e["label"], str):
            return f"edge #{k + 1}: 'label' must be a string"
        problem = _properties(e, f"edge #{k + 1}")
        if problem:
            return problem
    return None


def sniff_mrp(path: Path, head: bytes) -> bool:
    return head.lstrip().startswith(b"{") and b'"framework"' in head


def edge_is_remote(edge: dict[str, Any]) -> bool:
    props = dict(zip(edge.get("properties", ()), edge.get("values", ())))
    return bool(props.get("remote")) or "remote" in edge.get("attributes", ())


def mrp_to_graph(m: MrpGraph, scheme: Scheme = PLAIN, kinds: dict[int, str] | None = None) -> Graph:
    """A generic graph from an anchored MRP graph (see the module docstring); a graph with
    no anchors at all (no tokens) is an :class:`InputError` naming its file and line."""
    d = m.data
    text = d.get("input", "")
    nodes = sorted(d.get("nodes", ()), key=lambda n: n["id"])
    spans = sorted({(a["from"], a["to"]) for n in nodes for a in n.get("anchors", ())})
    if not spans:  # nothing to align: against itself it would score a perfect, meaningless 1
        raise InputError(f"graph {m.id}: no tokens: no node is anchored to the input, and semsim compares "
                         f"{m.framework} graphs through their tokens", m.source or None, m.line or None)
    token_of = {s: i for i, s in enumerate(spans)}
    tokens = tuple(Token(text[a:b], punct=is_punct(text[a:b])) for a, b in spans)
    index = {n["id"]: i for i, n in enumerate(nodes)}
    parents = {e["source"] for e in d.get("edges", ())}  # nodes with outgoing edges
    units = tuple(Unit(str(n["id"]), (kinds or {}).get(n["id"], ""),
                       tuple(sorted(token_of[(a["from"], a["to"])] for a in n.get("anchors", ()))),
                       implicit=not n.get("anchors") and n["id"] not in parents, label=n.get("label"))
                  for n in nodes)
    labels: dict[tuple[int, int, bool], list[str]] = {}  # parallel edges = one edge with several labels
    for e in d.get("edges", ()):  # read_mrp checked that every edge and top names a node
        key = (index[e["source"]], index[e["target"]], edge_is_remote(e))
        labels.setdefault(key, []).append(e.get("label") or "_")
    root = index[d["tops"][0]] if d.get("tops") else 0
    edges = tuple(Edge(p, c, tuple(ls), remote) for (p, c, remote), ls in labels.items())
    return Graph(tokens, units, edges, scheme=scheme, id=m.id, root=root,
                 meta={"framework": m.framework, "input": text, "source": m.source})


@hookimpl
def register_readers(register: Callable[[Reader], None]) -> None:
    register(Reader("mrp", (".mrp", ".jsonl"), read_mrp, sniff_mrp, "MRP JSON Lines (any framework)"))


@hookimpl(trylast=True)
def to_graph(obj: Any) -> Graph | None:
    return mrp_to_graph(obj) if isinstance(obj, MrpGraph) else None


@hookimpl(tryfirst=True, specname="to_graph")
def to_graph_as_written(obj: Any) -> Graph | None:
    """MRP that semsim wrote with its graph (``"semsim"``): that graph, before any plugin converts it."""
    return written_graph(obj) if isinstance(obj, MrpGraph) and VERBATIM in obj.data else None


#: The member of an MRP graph that holds the semsim graph it was written from (:func:`graph_to_mrp`).
VERBATIM = "semsim"
_SHOWN = ("input", "tops", "nodes", "edges")  # what graph_to_mrp writes of a graph, besides its id


def written_graph(m: MrpGraph) -> Graph:
    """The graph an MRP line carries in its ``"semsim"`` member, exactly as it was written
    (its id and where it was read are the line's); an :class:`InputError` naming the file and
    line where the member is no graph, or where the line's MRP is not that graph's."""
    where = (m.source or None, m.line or None)
    try:
        g = graph_from_dict(m.data[VERBATIM])
        mrp = graph_to_mrp(g, m.framework)
    except (ValueError, TypeError, KeyError, AttributeError, GraphError) as exc:
        raise InputError(f"graph {printable(m.id)}: its {VERBATIM!r} member is not a semsim graph ({exc}); "
                         "remove the member to read the graph as plain MRP", *where) from None
    changed = [k for k in _SHOWN if mrp[k] != m.data.get(k, [] if k != "input" else "")]
    if changed:
        verb = "differs" if changed == ["input"] else "differ"
        raise InputError(f"graph {printable(m.id)}: its {' and '.join(changed)} {verb} from the semsim graph it "
                         f"was written with (edited by another tool?); remove the {VERBATIM!r} member to read the "
                         "graph as plain MRP", *where)
    return g.with_(id=m.id, meta={**g.meta, "source": m.source, "line": m.line})


def graph_to_mrp(g: Graph, framework: str | None = None, *, verbatim: bool = False) -> dict[str, Any]:
    """An MRP graph (flavor 1, anchored) of a semsim graph: the input is the tokens joined by
    single spaces, anchors are the tokens' character spans, a multi-label edge becomes
    parallel edges, and remote edges carry the ``remote`` property (as MRP 2019's UCCA).
    With ``verbatim``, the graph itself too, as the member ``"semsim"`` (the module
    docstring): what ``semsim parse`` writes, so that reading the file gives this graph back."""
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
    out = {"id": g.id, "flavor": 1, "framework": framework or g.meta.get("framework") or g.scheme.name,
           "version": 1.0, "input": g.text, "tops": [g.root], "nodes": nodes, "edges": edges}
    if verbatim:  # where it was read from is no part of the graph
        form = graph_to_dict(g)
        form["meta"] = {k: v for k, v in form["meta"].items() if k not in ("source", "line")}
        out[VERBATIM] = form
    return out
