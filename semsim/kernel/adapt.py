"""Tools for a graph adapter: what every representation needs to become a semsim graph.

USim's yields follow *primary* edges, which must form a forest; a representation whose
nodes have several parents (AMR re-entrancies, DM/PSD/EDS arguments) or cycles (PSD) has
to choose one incoming edge per node, from the graph alone, never from how a file happens to
lay it out. The rule the adapters share: a breadth-first search from the graph's starting
nodes gives each node a depth (:func:`depths`); a part that nothing reaches, a cycle no edge
leads into, is entered at a node the adapter's own rule picks (``enter``: AMR and SDP pick
differently, and keep their rules, so their scores do not move); a node's primary edge comes
from a parent one level up, the first by the adapter's order (:func:`primary_edges`). Every
other edge is remote.

And the one punctuation test for tokens that come without one (:func:`is_punct`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

N = TypeVar("N", bound=Hashable)
E = TypeVar("E")


def is_punct(text: str) -> bool:
    """A token without a letter or a digit is punctuation (outside content yields, as UCCA's
    punctuation is): what a representation whose tokens carry no category of their own uses."""
    return not any(ch.isalnum() for ch in text)


def depths(nodes: Sequence[N], children: Callable[[N], Iterable[N]], starts: Mapping[N, int],
           enter: Callable[[list[N], dict[N, int]], N]) -> tuple[dict[N, int], list[N]]:
    """Each node's depth, by breadth-first search from ``starts`` (node: its depth), and the
    nodes where a part that nothing reached was entered, in order.

    When the search ends with nodes left (in ``nodes`` order), ``enter(left, depth)`` picks
    where to go on, at depth 1; a rule that depends only on the graph keeps the result
    independent of the file's order.
    """
    depth = dict(starts)
    queue: deque[N] = deque(starts)
    entered: list[N] = []
    while True:
        while queue:
            n = queue.popleft()
            for c in children(n):
                if c not in depth:
                    depth[c] = depth[n] + 1
                    queue.append(c)
        left = [n for n in nodes if n not in depth]
        if not left:
            return depth, entered
        entry = enter(left, depth)
        depth[entry] = 1
        queue.append(entry)
        entered.append(entry)


def primary_edges(incoming: Mapping[N, Iterable[E]], depth: Mapping[N, int], parent: Callable[[E], N],
                  order: Callable[[E], Any]) -> dict[N, E]:
    """Each node's primary incoming edge: of its edges from a parent one level up, the
    first by ``order`` (a node without such a parent, a start, has none)."""
    out = {}
    for child, edges in incoming.items():
        above = [e for e in edges if depth[parent(e)] == depth[child] - 1]
        if above:
            out[child] = min(above, key=order)
    return out
