"""UCCA sentences as labelled span trees, and back.

The span parser predicts a labelled bracketing, so a UCCA graph is turned into one:

* **units** are layer-1 nodes with tokens (implicit units and linkage nodes are left out;
  the parser never predicts them);
* a unit's **label** is the category of its primary incoming edge (``ROOT`` for the root;
  several categories on one edge are joined with ``+``);
* a unit whose yield has gaps (a **discontinuous** unit, e.g. *gave … up*) is cut into its
  maximal contiguous runs of children: the first run keeps the label, each later run becomes
  a sibling labelled ``L~`` ("continues the nearest preceding L"). Done bottom-up, this leaves
  every unit contiguous, and :func:`merge_continuations` undoes it exactly;
* units with the same span (a unit whose only content is one child unit) form a **chain**,
  one span labelled ``OUTER/INNER``;
* **remote** edges are kept as (parent span, child span, label).

:func:`tree_from_passage` reads a ``ucca.core.Passage``; :func:`tree_to_passage` writes one
(for UCCA XML and ``ucca.evaluation``); :func:`tree_to_graph` builds the semsim graph the
parser returns, and :func:`tree_to_mrp` writes an MRP graph.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from semsim.kernel.graph import Graph

ROOT = "ROOT"
CONT = "~"  # suffix of a later fragment of a discontinuous unit
CHAIN = "/"  # separates the labels of units sharing one span, outermost first


@dataclass
class Node:
    """A unit: its label (category of the edge into it), child units and direct tokens."""

    label: str
    children: list[int] = field(default_factory=list)
    terminals: list[int] = field(default_factory=list)

    def copy(self) -> Node:
        return Node(self.label, list(self.children), list(self.terminals))


@dataclass
class Tree:
    """A sentence's units; ``nodes[0]`` is the root. ``remotes`` are (parent, child, label)."""

    tokens: list[str]
    nodes: list[Node]
    remotes: list[tuple[int, int, str]] = field(default_factory=list)
    id: str = ""

    def yields(self) -> list[set[int]]:
        out: list[set[int] | None] = [None] * len(self.nodes)

        def visit(n: int) -> set[int]:
            if out[n] is None:
                y = set(self.nodes[n].terminals)
                for c in self.nodes[n].children:
                    y |= visit(c)
                out[n] = y
            return out[n]  # type: ignore[return-value]

        stack = [0]
        order = []
        while stack:  # iterative post-order: deep trees must not hit the recursion limit
            n = stack.pop()
            order.append(n)
            stack.extend(self.nodes[n].children)
        for n in reversed(order):
            visit(n)
        return [y or set() for y in out]


# -- from and to ucca passages -------------------------------------------------------------------
def tree_from_passage(passage: Any) -> Tree:
    """The span tree of a ``ucca.core.Passage`` (one sentence, usually)."""
    from ucca import layer0, layer1

    terminals = sorted(passage.layer(layer0.LAYER_ID).all, key=lambda t: t.position)
    tokens = [t.text for t in terminals]
    l1 = passage.layer(layer1.LAYER_ID)
    root = l1.heads[0]
    nodes: list[Node] = [Node(ROOT)]
    index = {root.ID: 0}
    remotes_native = []
    stack = [root]
    while stack:
        unit = stack.pop()
        me = index[unit.ID]
        for edge in unit:
            child = edge.child
            if child.layer.ID == layer0.LAYER_ID:
                nodes[me].terminals.append(child.position - 1)
            elif edge.attrib.get("remote"):
                remotes_native.append((unit, child, _label(edge)))
            elif child.tag == layer1.NodeTags.Linkage or child.attrib.get("implicit"):
                continue
            elif child.ID not in index:
                index[child.ID] = len(nodes)
                nodes.append(Node(_label(edge)))
                nodes[me].children.append(index[child.ID])
                stack.append(child)
    remotes = [(index[p.ID], index[c.ID], lab) for p, c, lab in remotes_native
               if p.ID in index and c.ID in index]
    tree = Tree(tokens, nodes, remotes, str(passage.ID))
    return prune_empty(tree)


def _label(edge: Any) -> str:
    tags = sorted(getattr(edge, "tags", None) or [edge.tag])
    return "+".join(tags)


def prune_empty(tree: Tree) -> Tree:
    """Drop units without tokens (e.g. holding only implicit units), renumbering the rest."""
    ys = tree.yields()
    keep = [n for n in range(len(tree.nodes)) if n == 0 or ys[n]]
    if len(keep) == len(tree.nodes):
        return tree
    new = {old: i for i, old in enumerate(keep)}
    nodes = [Node(tree.nodes[o].label, [new[c] for c in tree.nodes[o].children if c in new],
                  list(tree.nodes[o].terminals)) for o in keep]
    remotes = [(new[p], new[c], lab) for p, c, lab in tree.remotes if p in new and c in new]
    return Tree(tree.tokens, nodes, remotes, tree.id)


def tree_to_passage(tree: Tree, passage_id: str | None = None) -> Any:
    """A ``ucca.core.Passage`` with the tree's units (PNCT for ``U`` units of punctuation)."""
    from ucca import core, layer0, layer1

    passage = core.Passage(passage_id or tree.id or "1")
    l0 = layer0.Layer0(passage)
    terminals = [l0.add_terminal(text=t, punct=layer0.is_punct_text(t) if hasattr(layer0, "is_punct_text")
                                 else _is_punct(t)) for t in tree.tokens]
    l1 = layer1.Layer1(passage)
    made: dict[int, Any] = {0: l1.heads[0]}

    def categories(label: str) -> list[tuple[str]]:
        return [(t,) for t in label.split("+")]

    stack = [0]
    while stack:
        n = stack.pop()
        unit = made[n]
        for t in tree.nodes[n].terminals:
            unit.add(layer1.EdgeTags.Terminal, terminals[t])
        for c in tree.nodes[n].children:
            child = tree.nodes[c]
            if (child.label == layer1.EdgeTags.Punctuation and not child.children and child.terminals
                    and all(terminals[t].punct for t in child.terminals)):
                made[c] = l1.add_punct(unit, terminals[child.terminals[0]])
                for t in child.terminals[1:]:
                    made[c].add(layer1.EdgeTags.Terminal, terminals[t])
                continue
            made[c] = l1.add_fnode_multiple(unit, categories(child.label))
            stack.append(c)
    for p, c, label in tree.remotes:
        if p in made and c in made and p != c:
            l1.add_remote_multiple(made[p], categories(label), made[c])
    return passage


def _is_punct(text: str) -> bool:
    import unicodedata
    return bool(text) and all(unicodedata.category(ch).startswith(("P", "S")) for ch in text)


def tree_to_graph(tree: Tree, graph_id: str = "") -> Graph:
    """The tree as the UCCA graph semsim scores, built once (what the parser returns).

    It is, field for field, the graph that the tree's MRP (:func:`tree_to_mrp`) converts to
    through the plugin's ``to_graph`` (:func:`semsim_ucca.mrp.mrp_ucca_to_graph`), which the
    parser returned until issue #48 and which ``test_tree_to_graph_is_the_mrp_route`` holds it
    to: unit ``i`` is node ``i`` (id ``"i"``), of kind ``PNCT`` when it has tokens, a ``U``
    edge enters it and its tokens hold no letter or digit, else ``FN``; a token is punctuation
    when a ``PNCT`` unit holds it; edges of one parent, child and remoteness are one edge with
    their labels (``+`` splits a label); the scheme is UCCA's, with its sentence ends. Built
    directly, it skips a graph built only to be written as MRP and the MRP's conversion. A
    tree whose nodes leave a token unanchored (no parse does) takes the MRP route, which
    drops such tokens."""
    from semsim.kernel.graph import Edge, Graph, Token, Unit

    from ...scheme import UCCA, punctuation_unit, sentence_ends_of
    graph_id = graph_id or tree.id
    n = len(tree.tokens)
    if not n or {t for node in tree.nodes for t in node.terminals} != set(range(n)):
        from semsim.kernel.formats.mrp import MrpGraph

        from ...mrp import mrp_ucca_to_graph
        return mrp_ucca_to_graph(MrpGraph("ucca", graph_id, tree_to_mrp(tree, graph_id)))
    grouped: dict[tuple[int, int, bool], set[str]] = {}
    for p, node in enumerate(tree.nodes):
        for c in node.children:
            grouped.setdefault((p, c, False), set()).update(tree.nodes[c].label.split("+"))
    for p, c, label in tree.remotes:
        grouped.setdefault((p, c, True), set()).update(label.split("+"))
    # MRP has no empty edge label: its reader names one "_"
    edges = sorted((Edge(p, c, tuple(sorted({x or "_" for x in labels})), remote)
                    for (p, c, remote), labels in grouped.items()),
                   key=lambda e: (e.parent, e.child, e.labels, e.remote))
    into_by_u = {e.child for e in edges if "U" in e.labels}
    punct_units = {u for u in into_by_u if punctuation_unit(True, [tree.tokens[t] for t in tree.nodes[u].terminals])}
    parents = {e.parent for e in edges}
    units = tuple(Unit(str(u), "PNCT" if u in punct_units else "FN", tuple(sorted(node.terminals)),
                       implicit=not node.terminals and u not in parents) for u, node in enumerate(tree.nodes))
    punct = {t for u in punct_units for t in tree.nodes[u].terminals}
    # a sentence is one paragraph: its tokens' positions 1..n, as UCCA's layer 0 (and the XML
    # writer, which cannot write an unknown one) numbers them
    tokens = tuple(Token(text, punct=i in punct, para_pos=i + 1) for i, text in enumerate(tree.tokens))
    ends = sentence_ends_of(tokens, units, edges, 0, tree.yields().__getitem__)
    return Graph(tokens, units, tuple(edges), scheme=UCCA, id=graph_id, sentence_ends=ends,
                 meta={"framework": "ucca", "input": " ".join(tree.tokens), "source": ""})


def tree_to_mrp(tree: Tree, graph_id: str = "") -> dict[str, Any]:
    """The tree as an MRP 2019 UCCA graph (tokens joined by single spaces are the input),
    written by the core's :func:`semsim.kernel.formats.mrp.graph_to_mrp` (the route the parser's
    graphs took before :func:`tree_to_graph`, which it falls back on)."""
    from semsim.kernel.formats.mrp import graph_to_mrp
    from semsim.kernel.graph import Edge, Graph, Token, Unit

    units = tuple(Unit(str(n), anchors=tuple(sorted(node.terminals))) for n, node in enumerate(tree.nodes))
    edges = [Edge(n, c, tuple(tree.nodes[c].label.split("+"))) for n, node in enumerate(tree.nodes)
             for c in node.children]
    edges += [Edge(p, c, tuple(label.split("+")), remote=True) for p, c, label in tree.remotes]
    graph = Graph(tuple(Token(t) for t in tree.tokens), units, tuple(edges), id=graph_id or tree.id)
    return graph_to_mrp(graph, "ucca")


# -- to and from labelled spans -----------------------------------------------------------------
@dataclass(frozen=True)
class Spans:
    """A tree as labelled spans: ``labels[(i, j)]`` is the chain label of tokens ``i..j-1``;
    ``remotes`` are ((i, j) parent, (i, j) child, label)."""

    n: int
    labels: dict[tuple[int, int], str]
    remotes: tuple[tuple[tuple[int, int], tuple[int, int], str], ...] = ()


def fragment(tree: Tree) -> Tree:
    """Cut discontinuous units into contiguous fragments (see the module docstring). Every
    unit keeps its index as its first fragment, whose span stands for it; the later
    fragments are appended."""
    nodes = [nd.copy() for nd in tree.nodes]
    parent = {c: p for p, nd in enumerate(nodes) for c in nd.children}
    order: list[int] = []
    stack = [0]
    while stack:
        n = stack.pop()
        order.append(n)
        stack.extend(nodes[n].children)
    span: dict[int, tuple[int, int]] = {}  # node -> (min, max) token, after its fix-up
    for n in reversed(order):  # children before parents
        items: list[tuple[tuple[int, int], int | None]] = [((t, t), None) for t in nodes[n].terminals] + [
            (span[c], c) for c in nodes[n].children]
        items.sort(key=lambda x: x[0])
        runs: list[list[tuple[tuple[int, int], int | None]]] = []
        for item in items:
            if runs and item[0][0] == runs[-1][-1][0][1] + 1:
                runs[-1].append(item)
            else:
                runs.append([item])
        if len(runs) > 1 and n != 0:
            p = parent[n]
            label = nodes[n].label.split(CHAIN)[-1] if CHAIN in nodes[n].label else nodes[n].label
            for run in runs[1:]:
                frag = len(nodes)
                nodes.append(Node(label + CONT, [c for _, c in run if c is not None],
                                  [s[0] for s, c in run if c is None]))
                for c in nodes[frag].children:
                    parent[c] = frag
                span[frag] = (run[0][0][0], run[-1][0][1])
                nodes[p].children.append(frag)
                parent[frag] = p
            nodes[n].children = [c for _, c in runs[0] if c is not None]
            nodes[n].terminals = [s[0] for s, c in runs[0] if c is None]
            items = runs[0]
        span[n] = (items[0][0][0], max(s[1] for s, _ in items)) if items else (0, -1)
    return Tree(tree.tokens, nodes, list(tree.remotes), tree.id)


def tree_to_spans(tree: Tree) -> Spans:
    """The labelled spans of a tree (discontinuous units fragmented, chains joined)."""
    fragmented = fragment(tree)
    ys = fragmented.yields()
    labels: dict[tuple[int, int], str] = {}
    span_of: dict[int, tuple[int, int]] = {}
    stack = [0]
    while stack:
        n = stack.pop()
        y = ys[n]
        s = (min(y), max(y) + 1)
        span_of[n] = s
        labels[s] = f"{labels[s]}{CHAIN}{fragmented.nodes[n].label}" if s in labels else fragmented.nodes[n].label
        stack.extend(fragmented.nodes[n].children)
    remotes = tuple((span_of[p], span_of[c], lab) for p, c, lab in tree.remotes if p in span_of and c in span_of)
    return Spans(len(tree.tokens), labels, remotes)


def spans_to_tree(tokens: Sequence[str], labels: dict[tuple[int, int], str],
                  remotes: Iterable[tuple[tuple[int, int], tuple[int, int], str]] = ()) -> Tree:
    """A tree from nested labelled spans (the root span ``(0, n)`` must be among them):
    chains are unfolded, each token goes to the innermost unit holding it, fragments are
    merged back, and remote edges attach to the outermost unit of their spans."""
    n = len(tokens)
    ordered = sorted(labels, key=lambda s: (s[0], -s[1]))
    nodes: list[Node] = []
    outer: dict[tuple[int, int], int] = {}
    inner: dict[tuple[int, int], int] = {}
    open_: list[tuple[tuple[int, int], int]] = []  # (span, innermost node) of enclosing spans
    owner = [0] * n
    for s in ordered:
        while open_ and not (open_[-1][0][0] <= s[0] and s[1] <= open_[-1][0][1]):
            open_.pop()
        parts = labels[s].split(CHAIN)
        if s == (0, n):
            parts = parts[1:] if parts and parts[0] == ROOT else parts
            parts = [ROOT, *parts]
        prev = open_[-1][1] if open_ else None
        for k, lab in enumerate(parts):
            idx = len(nodes)
            nodes.append(Node(lab))
            if prev is not None:
                nodes[prev].children.append(idx)
            if k == 0:
                outer[s] = idx
            prev = idx
        inner[s] = prev  # type: ignore[assignment]
        for t in range(s[0], s[1]):
            owner[t] = prev  # type: ignore[assignment]
        open_.append((s, prev))  # type: ignore[arg-type]
    for t in range(n):
        nodes[owner[t]].terminals.append(t)
    tree = Tree(list(tokens), nodes, [(outer[p], outer[c], lab) for p, c, lab in remotes
                                      if p in outer and c in outer])
    return prune_empty(merge_continuations(tree))


def merge_continuations(tree: Tree) -> Tree:
    """Fold each ``L~`` unit into the nearest preceding sibling labelled ``L`` (top-down, so
    that fragments of fragmented parents meet again first); without one, drop the ``~``."""
    if not any(nd.label.endswith(CONT) for nd in tree.nodes):
        return tree  # nothing to merge (most sentences)
    nodes = [nd.copy() for nd in tree.nodes]
    ys = tree.yields()
    first_tok = [min(y) if y else -1 for y in ys]
    redirect: dict[int, int] = {}
    stack = [0]
    while stack:
        n = stack.pop()
        kids = sorted(nodes[n].children, key=lambda c: first_tok[c])
        kept: list[int] = []
        for c in kids:
            if nodes[c].label.endswith(CONT):
                base = nodes[c].label[: -len(CONT)]
                target = next((k for k in reversed(kept) if nodes[k].label == base), None)
                if target is not None:
                    nodes[target].children.extend(nodes[c].children)
                    nodes[target].terminals.extend(nodes[c].terminals)
                    redirect[c] = target
                    continue
                nodes[c].label = base
            kept.append(c)
        nodes[n].children = kept
        # fragments merged into a child are visited through it
        stack.extend(kept)
    reachable = set()
    stack = [0]
    while stack:
        n = stack.pop()
        reachable.add(n)
        stack.extend(nodes[n].children)

    def resolve(n: int) -> int:
        while n in redirect:
            n = redirect[n]
        return n

    remotes = []
    seen = set()
    for p, c, lab in tree.remotes:
        p, c = resolve(p), resolve(c)
        if p in reachable and c in reachable and p != c and (p, c) not in seen:
            seen.add((p, c))
            remotes.append((p, c, lab))
    keep = sorted(reachable)
    new = {old: i for i, old in enumerate(keep)}
    out = [Node(nodes[o].label, [new[c] for c in nodes[o].children], sorted(nodes[o].terminals)) for o in keep]
    return Tree(tree.tokens, out, [(new[p], new[c], lab) for p, c, lab in remotes], tree.id)
