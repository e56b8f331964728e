"""AMR as a semsim graph, so that USim applies unchanged.

AMR is not anchored to words, so USim's "leaves" are the graph's own nodes:

* every concept (``give-01``) and every constant (``"John"``, ``-``, ``61``) becomes a unit
  anchored to a pseudo-token whose text is that label; USim's token alignment thus aligns
  concepts by edit distance, as it aligns words;
* relations are edges labelled with their role, in canonical direction (``:ARG0-of`` is
  read as ``:ARG0`` from the other end), so equivalent AMRs rooted differently compare
  equal; a virtual root points to the top concept with a ``TOP`` edge;
* ``:instance`` is the unit's label, not an edge.

Yields follow primary edges, and an AMR node can have several parents, so one incoming
edge per node must be chosen as primary. The choice depends only on the graph, never on
how a PENMAN string happens to lay it out (which relation is written inline and which as
a reentrant variable): a breadth-first search over canonical edges from the top, and from
every concept no edge enters (a concept that only an ``-of`` relation attaches, say),
gives each node its depth; its primary edge comes from a parent one level up, the one with
the smallest role (then parent concept) if several. Every other edge into it is remote.
Pseudo-tokens are ordered by a depth-first walk of that tree with children in role order,
again independent of the layout. Only nodes alike in depth, role and everything four
relations down are told apart by file order.

See ``docs/amr.md`` for what this means for USim on AMR.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from typing import Any

from semsim.kernel.adapt import depths, is_punct, primary_edges
from semsim.kernel.graph import Edge, Graph, Token, Unit
from semsim.kernel.scheme import Scheme

#: Label weights (USim's ``edge_weights="scheme"``): a predicate's core roles (ARG0-ARG5) carry
#: its meaning; non-core roles (:mod, :time, :op, ...) weigh 1. Label names (the explanation
#: page's legend) gloss the numbered roles, as the AMR guidelines do; the others name themselves.
AMR = Scheme("amr", label_groups={"ARGs": tuple(f"ARG{i}" for i in range(6))},
             label_weights={f"ARG{i}": 3 for i in range(6)},
             label_names={"ARG0": "core role 0 (usually the agent)", "ARG1": "core role 1 (usually the patient)",
                          **{f"ARG{i}": f"core role {i} of the frame" for i in range(2, 6)}})


ANCHORS = ("concepts", "alignments")


def amr_to_graph(amr: Any, graph_id: str | None = None, anchors: str = "concepts") -> Graph:
    """The semsim graph of a ``penman.Graph``.

    ``anchors="concepts"``: every concept and constant is its own pseudo-token (AMR as it
    is, no alignment needed). ``anchors="alignments"``: the tokens are the sentence's words
    (``# ::tok``, else ``# ::snt`` split on spaces) and each concept or constant is anchored
    to the words its surface alignment (``~e.3``, ISI style, 0-based) names; unaligned ones
    have no words of their own, so USim compares AMRs over the sentence, as it does UCCA.
    """
    if anchors not in ANCHORS:
        raise ValueError(f"unknown anchoring {anchors!r}; choose from {', '.join(ANCHORS)}")
    # nodes: variables (labelled by their concept, or by their name if they have none) and
    # one node per occurrence of a constant
    label = {src: str(tgt) for src, role, tgt in amr.triples if role == ":instance"}
    label.update({src: str(src) for src, role, _ in amr.triples if src not in label})
    kind = dict.fromkeys(label, "concept")
    triple = {src: (src, role, tgt) for src, role, tgt in amr.triples if role == ":instance"}
    out: dict[str, list[tuple[str, str]]] = defaultdict(list)  # node -> [(role, child)] in file order
    incoming: dict[str, list[tuple[str, str]]] = defaultdict(list)  # node -> [(role, parent)]
    for i, (src, role, tgt) in enumerate(amr.triples):
        if role == ":instance":
            continue
        child = tgt if tgt in kind and kind[tgt] == "concept" else f"{src}{role}#{i}"
        if child != tgt:
            label[child], kind[child], triple[child] = str(tgt), "constant", (src, role, tgt)
        out[src].append((role.lstrip(":"), child))
        incoming[child].append((role.lstrip(":"), src))

    @cache
    def key(n: str, levels: int = 4) -> tuple[Any, ...]:
        """What a node is, up to ``levels`` relations down: its concept and its relations' keys
        (names no variable, so it orders nodes the same way in every layout)."""
        below = tuple(sorted((r, key(c, levels - 1)) for r, c in out[n])) if levels else ()
        return label[n], below

    top = amr.top if amr.top in label else next(iter(label), None)
    sources = [top] if top is not None else []
    sources += sorted((n for n in label if n != top and not incoming[n] and kind[n] == "concept"), key=key)
    # a cycle no edge leads into is entered at its smallest concept
    depth, entered = depths(list(label), lambda n: [c for _, c in out[n]], dict.fromkeys(sources, 1),
                            lambda left, _: min(left, key=key))
    sources += entered
    primary: dict[str, tuple[str, str]] = primary_edges(  # child -> (role, parent)
        incoming, depth, parent=lambda rp: rp[1], order=lambda rp: (rp[0], key(rp[1])))
    children: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for c, (r, p) in primary.items():
        children[p].append((r, c))

    order: list[str] = []  # depth-first, children by role: the pseudo-tokens' order
    stack = list(reversed(sources))
    while stack:
        n = stack.pop()
        order.append(n)
        stack.extend(c for _, c in sorted(children[n], key=lambda rc: (rc[0], key(rc[1])), reverse=True))
    index = {n: i + 1 for i, n in enumerate(order)}
    if anchors == "concepts":
        tokens = [Token(label[n]) for n in order]
        anchored = {n: (i,) for i, n in enumerate(order)}
    else:
        from penman import surface
        words = str(amr.metadata.get("tok") or amr.metadata.get("snt") or "").split()
        tokens = [Token(w, punct=is_punct(w)) for w in words]
        aligned = surface.alignments(amr)
        anchored = {n: tuple(sorted(aligned[triple[n]].indices)) if triple.get(n) in aligned else ()
                    for n in order}
    units = [Unit("ROOT", "ROOT")] + [Unit(n, kind[n], anchored[n], label=label[n]) for n in order]
    edges = [Edge(0, index[top], ("TOP",))] if top is not None else []
    edges += [Edge(index[p], index[c], (r,), remote=primary.get(c) != (r, p))
              for c, parents in incoming.items() for r, p in parents]
    import penman
    meta = {**amr.metadata, "penman": penman.encode(penman.Graph(amr.triples, top=amr.top), indent=None)}
    return Graph(tuple(tokens), tuple(units), tuple(edges), scheme=AMR,
                 id=graph_id or meta.get("id", ""), root=0, meta=meta)
