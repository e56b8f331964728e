"""Conversion of ``ucca.core.Passage`` objects (from ucca's readers, pickles or TUPA)."""

from __future__ import annotations

from typing import Any

from semsim.kernel.graph import Edge, Graph, Token, Unit

from .scheme import finish, node_order


def passage_to_graph(passage: Any) -> Graph:
    """The semsim graph of a ucca Passage: the same graph the direct XML reader yields."""
    terminals = sorted(passage.layer("0").all, key=lambda t: t.position)
    tokens = tuple(Token(t.text, punct=t.punct, paragraph=t.paragraph, para_pos=t.para_pos) for t in terminals)
    nodes = sorted(passage.layer("1").all, key=lambda n: node_order(n.ID))
    index = {n.ID: i for i, n in enumerate(nodes)}
    units, edges = [], []
    for node in nodes:
        anchors = []
        for edge in node:
            child = edge.child
            if child.layer.ID == "0":
                anchors.append(child.position - 1)
            else:
                edges.append(Edge(index[node.ID], index[child.ID], tuple(edge.tags),
                                  bool(edge.attrib.get("remote", False))))
        units.append(Unit(node.ID, node.tag, tuple(sorted(anchors)), bool(node.attrib.get("implicit", False))))
    root = index[passage.layer("1").heads[0].ID]
    return finish(Graph(tokens, tuple(units), tuple(edges), id=str(passage.ID), root=root,
                        meta={"source": "ucca.core.Passage"}))


def graph_to_passage(graph: Graph) -> Any:
    """A ``ucca.core.Passage`` of a UCCA graph (e.g. a parse), for UCCA XML and ``ucca.evaluation``.

    Terminals keep their paragraphs; units anchored only to punctuation and entered by ``U``
    become punctuation units, as in UCCA; implicit units are kept; a unit's second primary
    parent (a linkage node's arguments) is not written. An edge with several categories
    stays one edge with all of them.
    """
    from ucca import core, layer0, layer1

    passage = core.Passage(graph.id or "1")
    l0 = layer0.Layer0(passage)
    terminals = [l0.add_terminal(t.text, t.punct, t.paragraph or 1) for t in graph.tokens]
    l1 = layer1.Layer1(passage)
    made: dict[int, Any] = {graph.root: l1.heads[0]}
    for u in graph.postorder[::-1]:  # parents before children
        if u not in made:
            continue  # not reached by primary edges from the root
        for e in graph.edges:
            if e.parent != u or e.remote or e.child in made:
                continue
            child = graph.units[e.child]
            tags = [(label,) for label in e.labels]
            if (e.labels == (layer1.EdgeTags.Punctuation,) and child.anchors
                    and all(graph.tokens[a].punct for a in child.anchors)
                    and not graph.primary_children[e.child]):
                made[e.child] = l1.add_punct(made[u], terminals[child.anchors[0]])
                for a in child.anchors[1:]:
                    made[e.child].add(layer1.EdgeTags.Terminal, terminals[a])
                continue
            made[e.child] = l1.add_fnode_multiple(made[u], tags, implicit=child.implicit)
            for a in child.anchors:
                made[e.child].add(layer1.EdgeTags.Terminal, terminals[a])
    for a in graph.units[graph.root].anchors:
        made[graph.root].add(layer1.EdgeTags.Terminal, terminals[a])
    for e in graph.edges:
        if e.remote and e.parent in made and e.child in made:
            l1.add_remote_multiple(made[e.parent], [(label,) for label in e.labels], made[e.child])
    return passage


def write_xml(graph: Graph, path: Any) -> None:
    """One graph as a UCCA XML passage file (the standard format ``ucca`` reads)."""
    from ucca.convert import passage2file
    passage2file(graph_to_passage(graph), str(path))
