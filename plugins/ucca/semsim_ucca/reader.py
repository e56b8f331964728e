"""A direct UCCA XML reader.

``ucca.convert.file2passage`` builds a full ``ucca.core.Passage`` (about 1.7 s for a
500-token essay here); semsim only needs tokens, units and edges, which expat delivers in
milliseconds. ``plugins/ucca/tests/test_against_ucca.py`` proves the two routes give identical
graphs on every XML file available. Expat also gives line numbers, so every error names
the file and line.
"""

from __future__ import annotations

import graphlib
import itertools
import os
import pickle
from collections.abc import Iterator
from pathlib import Path
from xml.parsers import expat

from semsim.kernel.errors import InputError
from semsim.kernel.files import read_bytes
from semsim.kernel.graph import Edge, Graph, Token, Unit
from semsim.kernel.limits import token_too_long

from .scheme import finish, node_order


def sniff_xml(path: Path, head: bytes) -> bool:
    """UCCA XML starts with a ``<root`` element holding ``<layer`` elements."""
    text = head.decode("utf-8", "replace")
    return "<root" in text and ("<layer" in text or len(head) < 4096)


class _Builder:
    """Expat callbacks collecting layer 0 (tokens) and layer 1 (units, edges)."""

    def __init__(self, path: Path, parser: expat.XMLParserType):
        self.path, self.parser = path, parser
        self.passage_id: str | None = None
        self.layer: str | None = None
        self.tokens: dict[int, tuple[Token, int]] = {}  # position -> (token, line)
        self.units: list[tuple[str, str, int]] = []  # (id, kind, line)
        self.unit_ids: set[str] = set()
        self.implicit: set[str] = set()
        self.edges: list[list] = []  # [from_id, to_id, [labels], remote, line]
        self.stack: list[str] = []
        self.node: tuple[str, str] | None = None  # (id, type) of the open <node>
        self.edge: list | None = None

    def fail(self, message: str) -> InputError:
        return InputError(message, self.path, self.parser.CurrentLineNumber)

    def start(self, name: str, attrs: dict[str, str]) -> None:
        parent = self.stack[-1] if self.stack else None
        self.stack.append(name)
        if parent is None:
            if name != "root":
                raise self.fail(f"not a UCCA XML passage: top element is <{name}>, expected <root>")
            self.passage_id = attrs.get("passageID", "")
        elif name == "layer" and parent == "root":
            self.layer = attrs.get("layerID")
        elif name == "node" and parent == "layer":
            node_id, kind = attrs.get("ID"), attrs.get("type")
            if not node_id or not kind:
                raise self.fail("<node> without ID or type")
            self.node = (node_id, kind)
            if self.layer == "1":
                if node_id in self.unit_ids:
                    raise self.fail(f"duplicate node ID {node_id!r}")
                self.unit_ids.add(node_id)
                self.units.append((node_id, kind, self.parser.CurrentLineNumber))
        elif name == "attributes" and parent == "node" and self.node is not None:
            self._node_attributes(self.node, attrs)
        elif name == "edge" and parent == "node" and self.node is not None:
            to = attrs.get("toID")
            if not to:
                raise self.fail("<edge> without toID")
            self.edge = [self.node[0], to, [], False, self.parser.CurrentLineNumber, attrs.get("type")]
            self.edges.append(self.edge)
        elif name == "attributes" and parent == "edge" and self.edge is not None:
            self.edge[3] = attrs.get("remote") == "True"
        elif name == "category" and parent == "edge" and self.edge is not None and attrs.get("tag"):
            self.edge[2].append(attrs["tag"])

    def _node_attributes(self, node: tuple[str, str], attrs: dict[str, str]) -> None:
        node_id, kind = node
        if self.layer == "0":
            try:
                position = int(node_id.split(".", 1)[1])
                token = Token(attrs["text"], punct=kind == "Punctuation", paragraph=int(attrs["paragraph"]),
                              para_pos=int(attrs["paragraph_position"]))
            except (IndexError, KeyError, ValueError) as exc:
                raise self.fail(f"terminal {node_id!r} lacks a valid position, text, paragraph or "
                                f"paragraph_position ({exc.__class__.__name__}: {exc})") from None
            if token.paragraph < 1 or token.para_pos < 1:
                raise self.fail(f"terminal {node_id!r}: paragraph and paragraph_position count from 1")
            too_long = token_too_long(token.text)
            if too_long:
                raise self.fail(f"terminal {node_id!r}: {too_long}")
            if position in self.tokens:
                raise self.fail(f"duplicate terminal {node_id!r}")
            self.tokens[position] = (token, self.parser.CurrentLineNumber)
        elif attrs.get("implicit") == "True":
            self.implicit.add(node_id)

    def end(self, name: str) -> None:
        self.stack.pop()
        if name == "node":
            self.node = None
        elif name == "edge":
            if self.edge is not None and not self.edge[2]:  # old format: the tag is the edge's type
                if not self.edge[5]:
                    raise InputError("<edge> without type or category", self.path, self.edge[4])
                self.edge[2].append(self.edge[5])
            self.edge = None
        elif name == "layer":
            self.layer = None

    def graph(self) -> Graph:
        if self.passage_id is None:
            raise InputError("not a UCCA XML passage: no <root> element", self.path)
        if not self.tokens:
            raise InputError("empty passage: no terminals in layer 0", self.path)
        positions = sorted(self.tokens)
        if positions != list(range(1, len(positions) + 1)):
            missing = next(p for p, q in zip(positions, range(1, len(positions) + 1)) if p != q)
            raise InputError(f"terminal positions are not 1..{len(positions)} (gap before 0.{missing})",
                             self.path, self.tokens[missing][1])
        beyond = next((p for p in positions if self.tokens[p][0].para_pos > len(positions)), None)
        if beyond is not None:
            raise InputError(f"terminal 0.{beyond}: paragraph_position {self.tokens[beyond][0].para_pos} is beyond "
                             f"the passage's {len(positions)} terminals", self.path, self.tokens[beyond][1])
        if not self.units:
            raise InputError("not a UCCA XML passage: no layer 1 units", self.path)
        units = sorted(self.units, key=lambda u: node_order(u[0]))
        index = {uid: i for i, (uid, _, _) in enumerate(units)}
        anchors: dict[str, list[int]] = {}
        edges = []
        seen: set[tuple[str, str, bool]] = set()
        primary_parent: dict[str, str] = {}
        kinds = {uid: kind for uid, kind, _ in units}
        lines: dict[tuple[str, str], int] = {}  # of remote edges
        for parent, child, labels, remote, line, _ in self.edges:
            if parent not in index:
                raise InputError(f"edge from a non-layer-1 node {parent!r}", self.path, line)
            if child == parent:
                raise InputError(f"edge from {parent!r} to itself", self.path, line)
            if (parent, child, remote) in seen:
                raise InputError(f"duplicate edge {parent!r} -> {child!r}", self.path, line)
            seen.add((parent, child, remote))
            if not remote and child in index and kinds[parent] != "LKG":  # linkage arguments are not parents
                if child in primary_parent:
                    raise InputError(f"unit {child!r} has two primary parents ({primary_parent[child]!r} and "
                                     f"{parent!r})", self.path, line)
                primary_parent[child] = parent
            if child.startswith("0."):
                try:
                    pos = int(child[2:])
                except ValueError:
                    pos = -1
                if pos not in self.tokens:
                    raise InputError(f"edge to unknown terminal {child!r}", self.path, line)
                if remote:
                    raise InputError(f"remote edge {parent!r} -> terminal {child!r}: remote edges point at "
                                     "units, never at terminals", self.path, line)
                if child in primary_parent:
                    raise InputError(f"terminal {child!r} has two parents ({primary_parent[child]!r} and "
                                     f"{parent!r})", self.path, line)
                primary_parent[child] = parent
                anchors.setdefault(parent, []).append(pos - 1)
            elif child in index:
                edges.append(Edge(index[parent], index[child], tuple(labels), remote))
                if remote:
                    lines[parent, child] = line
            else:
                raise InputError(f"edge to unknown node {child!r}", self.path, line)
        if "1.1" not in index:
            raise InputError("not a UCCA XML passage: no root unit 1.1 in layer 1", self.path)
        root = index["1.1"]
        g = Graph(tokens=tuple(self.tokens[p][0] for p in positions),
                  units=tuple(Unit(uid, kind, tuple(sorted(anchors.get(uid, ()))), uid in self.implicit)
                              for uid, kind, _ in units),
                  edges=tuple(edges), id=self.passage_id, root=root,
                  meta={"source": os.fspath(self.path)})  # refuses a cycle of primary edges
        self._acyclic([(units[e.parent][0], units[e.child][0]) for e in edges], lines)
        return finish(g)


    def _acyclic(self, edges: list[tuple[str, str]], lines: dict[tuple[str, str], int]) -> None:
        """UCCA's foundational layer is a DAG with its remote edges too: a remote edge that
        closes a cycle (a unit a remote participant of its own descendant) is refused, at its
        line (:class:`~semsim.kernel.graph.Graph` refuses cycles of primary edges)."""
        parents: dict[str, list[str]] = {}
        for p, c in edges:
            parents.setdefault(c, []).append(p)
        try:
            tuple(graphlib.TopologicalSorter(parents).static_order())
        except graphlib.CycleError as exc:
            cycle = exc.args[1]  # each node a parent of the next
            p, c = next((p, c) for p, c in itertools.pairwise(cycle) if (p, c) in lines)
            raise InputError(f"remote edge {p!r} -> {c!r} closes a cycle {' -> '.join(cycle[:6])}"
                             f"{' ...' if len(cycle) > 6 else ''} (a UCCA graph, remote edges included, is acyclic)",
                             self.path, lines.get((p, c))) from None


def read_xml(path: Path) -> Iterator[Graph]:
    """Yield the one graph in a UCCA XML file."""
    parser = expat.ParserCreate()
    builder = _Builder(path, parser)
    parser.StartElementHandler = builder.start
    parser.EndElementHandler = builder.end
    try:
        # one buffer, read within the input bound: expat (2.5) rescans a token that spans its
        # chunks once per chunk, so ParseFile took minutes on a 50 MB attribute
        parser.Parse(read_bytes(path), True)
    except expat.ExpatError as exc:
        raise InputError(f"malformed XML: {expat.ErrorString(exc.code)} (column {exc.offset + 1})",
                         path, exc.lineno) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path) from None
    from semsim.kernel.errors import GraphError
    try:
        yield builder.graph()
    except GraphError as exc:
        raise InputError(str(exc), path) from None


def read_pickle(path: Path) -> Iterator[Graph]:
    """Yield the Passage in a ``ucca`` pickle, converted; refused unless pickles are allowed."""
    from semsim.kernel.files import pickle_allowed
    if not pickle_allowed():
        raise InputError("refusing to unpickle (unpickling runs code from the file); "
                         "use `semsim --allow-pickle` or set SEMSIM_ALLOW_PICKLE=1 if you trust it", path)
    try:
        import ucca.core  # noqa: F401  (the classes the pickle refers to)
    except ImportError:
        raise InputError("reading ucca pickles needs the `ucca` package: pip install --no-deps ucca==1.3.11",
                         path) from None
    from .passage import passage_to_graph
    try:
        with open(path, "rb") as f:
            obj = pickle.load(f)
    except Exception as exc:
        raise InputError(f"not a readable pickle: {exc}", path) from None
    yield passage_to_graph(obj)
