"""The generic graph every representation is converted to.

A :class:`Graph` is a rooted, labelled DAG of *units* over an ordered token sequence.
Units are anchored to tokens (a UCCA preterminal to its words, an AMR concept to the
words an aligner gave it) and connected by edges that carry one or more labels and are
either *primary* (they define the tree-like backbone and the yields) or *remote*
(re-entrancies that do not contribute to yields, as in UCCA). Units may be *implicit*
(no tokens at all). Everything is immutable; derived structure (children, yields,
yield matrices, label masks) is computed once on first use and cached.
"""

from __future__ import annotations

import dataclasses
import graphlib
import numbers
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any, NoReturn, TypeVar

import numpy as np

from .errors import GraphError, InputError
from .limits import max_yields, too_deep
from .scheme import PLAIN, Scheme

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Token:
    """One token. ``paragraph``/``para_pos`` are 1-based, as in UCCA's layer 0."""

    text: str
    punct: bool = False
    paragraph: int = 1
    para_pos: int = 0


@dataclass(frozen=True, slots=True)
class Unit:
    """A node. ``anchors`` are indices of the tokens directly under it; ``kind`` is the
    native node type (e.g. UCCA's ``FN``/``PNCT``/``LKG``), which a :class:`Scheme` may
    exclude from comparison; ``label`` is an optional node label (e.g. an AMR concept)."""

    id: str
    kind: str = ""
    anchors: tuple[int, ...] = ()
    implicit: bool = False
    label: str | None = None


@dataclass(frozen=True, slots=True)
class Edge:
    """A labelled edge between two unit indices. ``labels`` is sorted and non-empty.

    A bare string is one label, as in :func:`build_graph`: ``Edge(0, 1, "NP")`` has the
    labels ``("NP",)``. Without this, a string is iterated as its characters, and edges
    labelled ``"NP"`` and ``"PN"`` would both carry the labels N and P and match.
    """

    parent: int
    child: int
    labels: tuple[str, ...]
    remote: bool = False

    def __post_init__(self) -> None:
        # one isinstance per edge: edges are built millions of times
        if isinstance(self.labels, str):
            object.__setattr__(self, "labels", (self.labels,))


def _whole(x: object) -> bool:
    """An index: an int (a numpy integer too), not a bool or a float."""
    return x.__class__ is int or (isinstance(x, numbers.Integral) and not isinstance(x, bool))


@dataclass(frozen=True, eq=True)
class Graph:
    """An immutable labelled DAG over tokens.

    Args:
        tokens: the token sequence, in text order.
        units: the nodes; ``units[root]`` is the root.
        edges: the edges; stored sorted by (parent, child, labels, remote) so that two
            graphs built from the same content compare equal whatever the input order.
        scheme: what the adapter declares about the representation.
        id: the graph's identifier (passage id, sentence id, file name...).
        root: index of the root unit.
        sentence_ends: sorted 1-based token positions that end a sentence, if the adapter
            knows them; used to align long texts sentence by sentence.
        meta: free-form metadata (source file, parser, ...); not used by any metric.
    """

    tokens: tuple[Token, ...]
    units: tuple[Unit, ...]
    edges: tuple[Edge, ...]
    scheme: Scheme = PLAIN
    id: str = ""
    root: int = 0
    sentence_ends: tuple[int, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "units", tuple(self.units))
        edges = []
        for e in self.edges:
            try:
                labels: tuple[Any, ...] = tuple(sorted(set(e.labels)))
            except TypeError:  # None, a number, labels of mixed types
                labels = (None,)
            if not labels:
                raise GraphError(f"graph {self.id!r}: edge {e.parent}->{e.child} has no label")
            if labels[0].__class__ is not str:  # sorted: one string first means all are strings
                raise GraphError(f"graph {self.id!r}: edge {e.parent}->{e.child} has labels {e.labels!r}: "
                                 "expected strings")
            # an edge already in normal form is kept (a graph built from another graph's edges)
            edges.append(e if labels == e.labels and e.remote.__class__ is bool
                         else Edge(e.parent, e.child, labels, bool(e.remote)))
        set_(self, "edges", tuple(sorted(edges, key=lambda e: (e.parent, e.child, e.labels, e.remote))))
        self._normalise_light()
        self._validate()

    def _normalise_light(self) -> None:
        """The fields a copy may change without its structure being checked again (:meth:`with_`)."""
        set_ = object.__setattr__
        set_(self, "tokens", tuple(self.tokens))
        set_(self, "sentence_ends", tuple(sorted(set(self.sentence_ends))))
        set_(self, "meta", MappingProxyType(dict(self.meta)))

    def __hash__(self) -> int:
        return hash((self.id, self.tokens, self.units, self.edges, self.root))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its fields (``meta`` as a dict: a read-only view cannot be pickled), so
        that graphs cross process boundaries (a worker pool, a forked fuzz check)."""
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return (_rebuild, ({**fields, "meta": dict(self.meta)},))

    def _validate(self) -> None:
        n_units, n_tokens = len(self.units), len(self.tokens)
        if not _whole(self.root) or not 0 <= self.root < max(n_units, 1):
            raise GraphError(f"graph {self.id!r}: root index {self.root!r} out of range")
        # the types too, of what a caller built by hand: one line, not a TypeError deep in a
        # metric (class checks first: graphs are built for every cached parse)
        for t in self.tokens:
            if (t.__class__ is not Token and not isinstance(t, Token)) or t.text.__class__ is not str:
                raise GraphError(f"graph {self.id!r}: token {t!r} is not a Token of a string")
        for e in self.edges:
            p, c = e.parent, e.child
            if (p.__class__ is not int and not _whole(p)) or (c.__class__ is not int and not _whole(c)):
                raise GraphError(f"graph {self.id!r}: edge {p!r}->{c!r}: unit indices must be whole numbers")
            if not (0 <= p < n_units and 0 <= c < n_units):
                raise GraphError(f"graph {self.id!r}: edge {p}->{c} points outside the graph")
        for u in self.units:
            if (u.__class__ is not Unit and not isinstance(u, Unit)) \
                    or (u.label is not None and u.label.__class__ is not str):
                raise GraphError(f"graph {self.id!r}: unit {u!r} is not a Unit with a string label (or None)")
            for a in u.anchors:
                if a.__class__ is not int and not _whole(a):
                    raise GraphError(f"graph {self.id!r}: unit {u.id!r} has the anchor {a!r}: token indices must be "
                                     "whole numbers")
                if not 0 <= a < n_tokens:
                    raise GraphError(f"graph {self.id!r}: unit {u.id!r} is anchored outside the token range")
        self._check_sentence_ends()
        _ = self.postorder  # raises on a cycle of primary edges

    def _check_sentence_ends(self) -> None:
        if any(not 1 <= p <= len(self.tokens) for p in self.sentence_ends):
            raise GraphError(f"graph {self.id!r}: sentence end outside 1..{len(self.tokens)}")

    # -- structure ---------------------------------------------------------------------------
    @cached_property
    def incoming(self) -> tuple[tuple[int, ...], ...]:
        """Per unit, the indices (into ``edges``) of its incoming edges."""
        inc: list[list[int]] = [[] for _ in self.units]
        for i, e in enumerate(self.edges):
            inc[e.child].append(i)
        return tuple(map(tuple, inc))

    @cached_property
    def primary_children(self) -> tuple[tuple[int, ...], ...]:
        ch: list[list[int]] = [[] for _ in self.units]
        for e in self.edges:
            if not e.remote:
                ch[e.parent].append(e.child)
        return tuple(map(tuple, ch))

    @cached_property
    def postorder(self) -> tuple[int, ...]:
        """Units with every primary child before its parent, in the order of
        ``graphlib.TopologicalSorter({u: primary_children[u]}).static_order()`` (the UCCA
        plugin numbers the nodes it writes in this order), computed without graphlib's
        per-node objects: every graph read, parsed or copied is checked by it, and graphlib
        was half of reading a parse back from the cache. A cycle is reported by graphlib."""
        order = topological_order(self.primary_children)
        if order is None:
            self._raise_cycle()
        return order

    def _raise_cycle(self) -> NoReturn:
        """The cycle graphlib finds (its nodes' ids name it in the error)."""
        sorter = graphlib.TopologicalSorter({u: self.primary_children[u] for u in range(len(self.units))})
        try:
            sorter.prepare()
        except graphlib.CycleError as exc:
            ids = [self.units[i].id for i in exc.args[1]]
            raise GraphError(f"graph {self.id!r}: primary edges form a cycle through {ids}") from None
        raise AssertionError("topological_order found a cycle that graphlib does not")

    @cached_property
    def heights(self) -> tuple[int, ...]:
        """Per unit, the length of its longest primary path down to a unit without primary
        children (0 for those): how far up the graph it sits."""
        h = [0] * len(self.units)
        for u in self.postorder:
            h[u] = max((h[c] + 1 for c in self.primary_children[u]), default=0)
        return tuple(h)

    # -- yields ------------------------------------------------------------------------------
    @cached_property
    def yields(self) -> tuple[frozenset[int], ...]:
        """Per unit, the token indices it dominates through primary edges (punctuation included).

        Their total size grows with depth × tokens (a chain of 10,000 units, each adding a
        token, holds 50 million): beyond :func:`semsim.kernel.limits.max_yields` the graph is refused
        with a :class:`~semsim.kernel.limits.LimitError` as soon as the bound is passed, so memory
        stays bounded whatever the input."""
        out: list[frozenset[int]] = [frozenset()] * len(self.units)
        total, limit = 0, max_yields()
        for u in self.postorder:
            out[u] = frozenset(self.units[u].anchors).union(*(out[c] for c in self.primary_children[u]))
            total += len(out[u])
            if total > limit:
                raise too_deep(len(self.units), len(self.tokens), limit)
        return tuple(out)

    @cached_property
    def content_yields(self) -> tuple[frozenset[int], ...]:
        """Yields without punctuation tokens, as UCCA's evaluation and the paper's USim use them."""
        punct = {i for i, t in enumerate(self.tokens) if t.punct}
        return tuple(y - punct for y in self.yields) if punct else self.yields

    @cached_property
    def content_yield_matrix(self) -> np.ndarray:
        """``M[u, t] = 1.0`` iff token ``t`` is in the content yield of unit ``u`` (float for BLAS)."""
        yields = self.content_yields
        m = np.zeros((len(self.units), len(self.tokens)))
        m[[u for u, y in enumerate(yields) for _ in y], [t for y in yields for t in y]] = 1.0  # one numpy call
        return m

    # -- compared edges ----------------------------------------------------------------------
    @cached_property
    def compared_edges(self) -> tuple[int, ...]:
        """Indices of the edges the edge-based metrics count: not ignored by the scheme
        (e.g. punctuation, linkage), into a unit with a non-empty content yield (implicit
        and punctuation-only units have no tokens to align, so their edges could never match)."""
        scheme = self.scheme
        yields = self.content_yields
        return tuple(i for i, e in enumerate(self.edges)
                     if not scheme.is_ignored_edge(e.labels, self.units[e.child].kind) and yields[e.child])

    def compared_edges_of(self, remote: bool = True) -> tuple[int, ...]:
        """:attr:`compared_edges`, without the remote ones unless ``remote``: the edges USim
        counts, in the order of :meth:`label_masks` (and of its edge weights)."""
        return self.memo(("compared_edges", remote), lambda: tuple(
            i for i in self.compared_edges if remote or not self.edges[i].remote))

    def label_masks(self, labels: str = "labeled", remote: bool = True
                    ) -> tuple[tuple[tuple[int, int], ...], tuple[int, ...]]:
        """The compared edges as ``(child, label mask)`` and, per unit, the mask of its
        compared incoming edges. ``labels`` is ``labeled`` (exact), ``weak`` (the scheme's
        equivalences) or ``unlabeled`` (every label matches every label)."""
        def build() -> tuple[tuple[tuple[int, int], ...], tuple[int, ...]]:
            weak = labels == "weak"
            items = []
            incoming = [0] * len(self.units)
            for i in self.compared_edges_of(remote):
                e = self.edges[i]
                m = 1 if labels == "unlabeled" else self.scheme.mask(e.labels, weak)
                items.append((e.child, m))
                incoming[e.child] |= m
            return tuple(items), tuple(incoming)

        return self.memo(("label_masks", labels, remote), build)

    def memo(self, key: Hashable, build: Callable[[], T]) -> T:
        """Derived data a metric computes once per graph (graphs are immutable)."""
        cache = self.__dict__.setdefault("_memo", {})
        if key not in cache:
            cache[key] = build()
        return cache[key]

    # -- convenience -------------------------------------------------------------------------
    @property
    def text(self) -> str:
        return " ".join(t.text for t in self.tokens)

    def unit_text(self, u: int) -> str:
        return " ".join(self.tokens[t].text for t in sorted(self.yields[u]))

    def with_(self, **changes: Any) -> Graph:
        """A copy with some fields replaced (graphs are immutable; the copy is validated).

        A copy that keeps the units and edges (a new id, scheme, meta, sentence ends, or
        tokens as many as before) is not checked for cycles and anchors again: they are
        the ones this graph was checked with. Converting a parse copies a graph twice, and
        the full check was a third of that conversion."""
        if "tokens" in changes:
            changes["tokens"] = tuple(changes["tokens"])
        if not changes.keys() <= _LIGHT_CHANGES or len(changes.get("tokens", self.tokens)) != len(self.tokens):
            return dataclasses.replace(self, **changes)
        copy = object.__new__(type(self))
        for f in dataclasses.fields(self):
            object.__setattr__(copy, f.name, changes.get(f.name, getattr(self, f.name)))
        copy._normalise_light()
        copy._check_sentence_ends()
        return copy


def topological_order(children: Sequence[Sequence[int]]) -> tuple[int, ...] | None:
    """Nodes ``0..n-1`` with each node's ``children`` before it, exactly as graphlib's
    ``static_order`` of ``{u: children[u]}`` orders them (None if they form a cycle):
    nodes enter graphlib's table as a key or, earlier, as someone's child; those without
    children are ready in that order, and each node passed out readies the parents whose
    last child it was, in the order they named it."""
    n = len(children)
    seen, entered = bytearray(n), []
    parents: list[list[int]]
    waiting, parents = [0] * n, [[] for _ in range(n)]
    for u, kids in enumerate(children):
        if not seen[u]:
            seen[u] = 1
            entered.append(u)
        waiting[u] += len(kids)
        for c in kids:
            if not seen[c]:
                seen[c] = 1
                entered.append(c)
            parents[c].append(u)
    order = [u for u in entered if not waiting[u]]
    for u in order:  # grows while it is read: graphlib's ready list, first in, first out
        for p in parents[u]:
            waiting[p] -= 1
            if not waiting[p]:
                order.append(p)
    return tuple(order) if len(order) == n else None


#: fields :meth:`Graph.with_` replaces without checking the structure again
_LIGHT_CHANGES = frozenset({"id", "scheme", "meta", "sentence_ends", "tokens"})


def _rebuild(fields: dict[str, Any]) -> Graph:
    return Graph(**fields)


def build_graph(
    tokens: Sequence[str | Token],
    units: Sequence[Unit],
    edges: Sequence[tuple[int, int, str | Sequence[str]] | tuple[int, int, str | Sequence[str], bool] | Edge],
    **kwargs: Any,
) -> Graph:
    """Build a :class:`Graph` from plain values: token strings, ``(parent, child, label)``
    triples (label a string or a sequence of strings). Handy in tests and toy plugins."""
    toks = []
    for k, t in enumerate(tokens):
        if not isinstance(t, (Token, str)):
            raise InputError(f"build_graph: tokens[{k}] is {t!r:.40}, not a string or a Token")
        toks.append(t if isinstance(t, Token) else Token(t))
    es = []
    for k, e in enumerate(edges):
        if isinstance(e, Edge):
            es.append(e)
            continue
        # the argument's own shape, named by position: a label of None or 5 met tuple() far inside
        if isinstance(e, (str, bytes)) or not isinstance(e, Sequence) or len(e) not in (3, 4):
            raise InputError(f"build_graph: edges[{k}] is {e!r:.40}, not (parent, child, label[, remote])")
        parent, child, labels, *rest = e
        if not isinstance(labels, str) and not (isinstance(labels, Sequence) and labels
                                                and all(isinstance(x, str) for x in labels)):
            raise InputError(f"build_graph: edges[{k}] has the label {labels!r:.40}: a string or a sequence of "
                             "strings expected")
        es.append(Edge(parent, child, (labels,) if isinstance(labels, str) else tuple(labels),
                       bool(rest and rest[0])))
    return Graph(tuple(toks), tuple(units), tuple(es), **kwargs)


def concat(graphs: Sequence[Graph], id: str = "") -> Graph:
    """One graph of several sentences' graphs, in order, as a passage: tokens follow one
    another, the sentence roots merge into one root (unit 0, the first graph's root unit),
    and sentence ends are kept, so sentence-by-sentence alignment still sees the sentences."""
    if not graphs:
        raise GraphError("no graphs to join")
    first = graphs[0]
    tokens: list[Token] = []
    units: list[Unit] = [first.units[first.root]]
    edges: list[Edge] = []
    ends: list[int] = []
    root_anchors: list[int] = []
    for k, g in enumerate(graphs):
        t0 = len(tokens)
        where = {g.root: 0}
        root_anchors.extend(a + t0 for a in g.units[g.root].anchors)
        for u, unit in enumerate(g.units):
            if u != g.root:
                where[u] = len(units)
                units.append(dataclasses.replace(unit, id=f"{k + 1}.{unit.id}",
                                                 anchors=tuple(a + t0 for a in unit.anchors)))
        edges.extend(dataclasses.replace(e, parent=where[e.parent], child=where[e.child]) for e in g.edges)
        tokens.extend(g.tokens)
        if g.tokens:
            ends.extend(e + t0 for e in (g.sentence_ends or (len(g.tokens),)))
    units[0] = dataclasses.replace(units[0], anchors=tuple(sorted(root_anchors)))
    return Graph(tuple(tokens), tuple(units), tuple(edges), scheme=first.scheme, id=id or first.id, root=0,
                 sentence_ends=tuple(ends), meta=dict(first.meta))
