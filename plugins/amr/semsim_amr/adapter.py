"""AMR as a semsim graph, so that USim applies unchanged.

AMR is not anchored to words, so USim's "leaves" are the graph's own nodes:

* every concept (``give-01``) and every constant (``"John"``, ``-``, ``61``) becomes a unit
  anchored to a pseudo-token whose text is that label, in the order the PENMAN string
  introduces them; USim's token alignment thus aligns concepts by edit distance, as it
  aligns words;
* relations are edges labelled with their role, in canonical direction (``:ARG0-of`` is
  read as ``:ARG0`` from the other end), so equivalent AMRs rooted differently compare
  equal; a virtual root points to the top concept with a ``TOP`` edge;
* the first edge into a node (in PENMAN order) is primary, later ones (reentrancies) are
  remote, as are edges that would close a cycle; a unit's yield is therefore the set of
  concepts and constants it dominates through primary edges;
* ``:instance`` is the unit's label, not an edge.

See ``docs/amr.md`` for what this means for USim on AMR.
"""

from __future__ import annotations

from typing import Any

from semsim.graph import Edge, Graph, Token, Unit
from semsim.scheme import Scheme

AMR = Scheme("amr", label_groups={"ARGs": tuple(f"ARG{i}" for i in range(6))})


def _reaches(children: dict[int, list[int]], start: int, goal: int) -> bool:
    stack, seen = [start], set()
    while stack:
        n = stack.pop()
        if n == goal:
            return True
        if n not in seen:
            seen.add(n)
            stack.extend(children.get(n, ()))
    return False


def amr_to_graph(amr: Any, graph_id: str | None = None) -> Graph:
    """The semsim graph of a ``penman.Graph``."""
    units = [Unit("ROOT", "ROOT")]
    tokens: list[Token] = []
    index: dict[str, int] = {}

    def unit(key: str, label: str, kind: str) -> int:
        if key not in index:
            index[key] = len(units)
            units.append(Unit(key, kind, (len(tokens),), label=label))
            tokens.append(Token(label))
        return index[key]

    concepts = {src: tgt for src, role, tgt in amr.triples if role == ":instance"}
    edges: list[Edge] = []
    primary_children: dict[int, list[int]] = {}
    has_parent: set[int] = set()

    def add(parent: int, child: int, role: str) -> None:
        remote = child in has_parent or _reaches(primary_children, child, parent)
        if not remote:
            has_parent.add(child)
            primary_children.setdefault(parent, []).append(child)
        edges.append(Edge(parent, child, (role,), remote))

    add(0, unit(amr.top, concepts.get(amr.top, amr.top), "concept"), "TOP")
    for i, (src, role, tgt) in enumerate(amr.triples):
        if role == ":instance":
            unit(src, tgt, "concept")
            continue
        parent = unit(src, concepts.get(src, src), "concept")
        if tgt in concepts:
            child = unit(tgt, concepts[tgt], "concept")
        else:  # a constant: its own unit, one per occurrence
            child = unit(f"{src}{role}#{i}", str(tgt), "constant")
        add(parent, child, role.lstrip(":"))
    meta = dict(amr.metadata)
    return Graph(tuple(tokens), tuple(units), tuple(edges), scheme=AMR,
                 id=graph_id or meta.get("id", ""), root=0, meta=meta)
