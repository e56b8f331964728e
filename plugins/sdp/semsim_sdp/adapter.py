"""DM, PSD and EDS graphs (MRP) as semsim graphs, so that USim and DAG F-score apply unchanged.

What each framework's graph becomes (``docs/mrp.md`` has the full definition and why):

* **tokens**: the input split at whitespace and at every anchor boundary of the graph, so
  each anchor covers whole tokens (DM's ``Vinken`` and the comma after it become two
  tokens; EDS's ``Vinken,`` stays one). Tokens no node covers stay in the sequence: USim
  aligns sentences, not just their predicates. A token without a letter or digit is
  punctuation (outside content yields, as in UCCA).
* **units**: a virtual root (unit 0, kind ``ROOT``), then every node, in the order of its
  anchors (then label, then id), anchored to the tokens its spans cover. DM and PSD nodes
  are words (kind ``token``); EDS nodes are ``surface`` predicates (``_join_v_1``, their
  own word) or ``abstract`` ones (``compound``, ``udef_q``: no word of their own, their
  span is the construction's). ``Unit.label`` is the node label (lemma, or predicate).
* **edges**: the framework's labelled edges (parallel edges are one multi-label edge),
  and a ``TOP`` edge from the virtual root to each top node. For EDS only, the predicate
  (with its ``carg`` constant, ``named(Pierre)``) is the label of a remote edge from the
  root to the node: EDS predicates carry meaning that the token text does not (abstract
  nodes have no text), and USim can only compare labels on edges.

DM, PSD and EDS graphs need not be trees: nodes have several parents and PSD (DM in
places) has cycles. The primary edges, which define yields, are a spanning forest chosen
from the graph alone, as the AMR plugin does: a breadth-first search from the tops and
from every node no edge enters (then, for a cycle nothing leads into, from its node that
reaches most of what is left, the first such by anchors) gives each node a depth; its
primary edge comes from a parent one level up, the one with the smallest label, then the
first by anchors. Every other edge is remote. So
no well-formed graph is refused, and yields (own anchors plus primary descendants) never
depend on the file's node or edge order, nor on node ids except between nodes alike in
anchors and label (EDS quantifiers of one span, say).
"""

from __future__ import annotations

import itertools
import json
import re
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from semsim.kernel.adapt import depths, is_punct, primary_edges
from semsim.kernel.errors import InputError
from semsim.kernel.formats.mrp import MrpGraph
from semsim.kernel.graph import Edge, Graph, Token, Unit
from semsim.kernel.scheme import Scheme

_DM_ARGS = ("ARG1", "ARG2", "ARG3", "ARG4")
_PSD_ARGS = ("ACT-arg", "PAT-arg", "ADDR-arg", "EFF-arg", "ORIG-arg")
_EDS_ARGS = ("ARG", "ARG1", "ARG2", "ARG3", "ARG4")
#: The frameworks this plugin claims, with their schemes. Label groups are for DistSim; label
#: weights (USim's ``edge_weights="scheme"``) put a predicate's arguments above its other edges.
SCHEMES = {
    "dm": Scheme("dm", label_groups={"ARGs": _DM_ARGS}, label_weights=dict.fromkeys(_DM_ARGS, 3)),
    "psd": Scheme("psd", label_groups={"args": _PSD_ARGS}, label_weights=dict.fromkeys(_PSD_ARGS, 3)),
    "eds": Scheme("eds", label_groups={"ARGs": _EDS_ARGS}, label_weights=dict.fromkeys(_EDS_ARGS, 3)),
}
FRAMEWORKS = tuple(SCHEMES)
TOP = "TOP"
PRED = "pred:"  # prefix of EDS predicate labels on root edges, so they never equal a role
_WORD = re.compile(r"\S+")


def segment(text: str, cuts: Sequence[int]) -> list[tuple[int, int]]:
    """Character spans of the tokens: ``text`` split at whitespace and at every offset in ``cuts``."""
    bounds = sorted({0, len(text), *(c for c in cuts if 0 <= c <= len(text))})
    spans = []
    for a, b in itertools.pairwise(bounds):
        spans += [(a + m.start(), a + m.end()) for m in _WORD.finditer(text[a:b])]
    return spans


def _fail(m: MrpGraph, problem: str) -> InputError:
    return InputError(f"graph {m.id}: {problem}", m.source, m.line)


def _node_key(n: dict[str, Any]) -> tuple[Any, ...]:
    anchors = sorted((a["from"], a["to"]) for a in n.get("anchors", ()))
    return anchors, n.get("label") or "", n["id"]


def mrp_framework_to_graph(m: MrpGraph) -> Graph:
    """The semsim graph of a DM, PSD or EDS graph that the core's reader found well-formed
    MRP (node ids unique, edges and tops naming nodes, anchors inside the input). Refused,
    as an :class:`~semsim.kernel.errors.InputError` naming file and line: a node without anchors
    (all three frameworks anchor every node) or whose anchors cover no word."""
    d, fw = m.data, m.framework
    scheme = SCHEMES[fw]
    text = d.get("input", "")
    nodes = sorted(d["nodes"], key=_node_key)
    for n in nodes:
        if not n.get("anchors"):
            raise _fail(m, f"node {n['id']} has no anchors (every {fw.upper()} node is anchored to the input)")
    spans = segment(text, [x for n in nodes for a in n["anchors"] for x in (a["from"], a["to"])])
    tokens = tuple(Token(text[a:b], punct=is_punct(text[a:b])) for a, b in spans)
    index = {n["id"]: i + 1 for i, n in enumerate(nodes)}
    units = [Unit("ROOT", "ROOT")]
    for n in nodes:
        covered = tuple(t for t, (a, b) in enumerate(spans)
                        if any(x["from"] <= a and b <= x["to"] for x in n["anchors"]))
        if not covered:
            where = ", ".join(f"{a['from']}:{a['to']}" for a in n["anchors"])
            raise _fail(m, f"node {n['id']}: anchor {where} covers no word of the input")
        label = n.get("label")
        kind = "token" if fw != "eds" else "surface" if (label or "").startswith("_") else "abstract"
        units.append(Unit(str(n["id"]), kind, covered, label=label))

    labels: dict[tuple[int, int], list[str]] = defaultdict(list)  # parallel edges: one multi-label edge
    for e in d.get("edges", ()):
        labels[(index[e["source"]], index[e["target"]])].append(e.get("label") or "_")
    tops = sorted({index[t] for t in d.get("tops", ())})
    for t in tops:
        labels[(0, t)].append(TOP)
    primary = _spanning_forest(len(units), {k: sorted(v) for k, v in labels.items()})
    edges = [Edge(p, c, tuple(ls), remote=primary.get(c) != p) for (p, c), ls in labels.items()]
    if fw == "eds":  # the predicate (and its constant) of every node, on a remote edge from the root
        for n in nodes:
            props = dict(zip(n.get("properties", ()), n.get("values", ())))
            pred = (n.get("label") or "_") + (f"({props['carg']})" if "carg" in props else "")
            edges.append(Edge(0, index[n["id"]], (PRED + pred,), remote=True))
    return Graph(tokens, tuple(units), tuple(edges), scheme=scheme, id=m.id, root=0,
                 meta={"framework": fw, "input": text, "source": m.source, "line": m.line,
                       "mrp": json.dumps(d, sort_keys=True, ensure_ascii=False)})


def _spanning_forest(n_units: int, labels: dict[tuple[int, int], list[str]]) -> dict[int, int]:
    """Each unit's primary parent (see the module docstring), from the edges' labels by
    (parent, child); the root's ``TOP`` edges lead to the tops. Unit indices follow the
    nodes' anchors, so "first" is a property of the graph, not of the file."""
    out: dict[int, list[int]] = defaultdict(list)
    into: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for p, c in sorted(labels):
        if p != c:  # a self-loop can never be primary
            out[p].append(c)
            into[c].append((p, c))
    starts = {0: 0, **{u: 1 for u in range(1, n_units) if not into[u]}}
    # a cycle nothing leads into: entered where most of what is left can be reached (then the first such node)
    depth, _ = depths(range(1, n_units), out.__getitem__, starts,
                      lambda left, depth: max(left, key=lambda u: (len(_reach(u, out, depth)), -u)))
    primary = primary_edges(into, depth, parent=lambda e: e[0], order=lambda e: (labels[e], e[0]))
    return {c: p for c, (p, _) in primary.items()}


def _reach(u: int, out: dict[int, list[int]], done: dict[int, int]) -> set[int]:
    """The nodes not yet in ``done`` that ``u`` reaches (itself included)."""
    seen, todo = {u}, [u]
    while todo:
        for c in out[todo.pop()]:
            if c not in seen and c not in done:
                seen.add(c)
                todo.append(c)
    return seen
