"""The normalisation UCCA's evaluator applied when the paper was written (ucca 1.0.50).

``ucca.evaluation.evaluate`` normalises both passages before counting (``normalize=True``,
its default). In ucca 1.0.50, the version behind the paper's IAA DAG F-score of 0.845, that
is two steps, described here from their observed effect and re-implemented on semsim graphs:

1. *Flatten centres* (each graph alone): a primary ``C`` edge X→U is dissolved when U is a
   foundational unit and both X and U have exactly one outgoing ``C`` edge (remote ones
   included); U's children move up to X. C-chains thus collapse to their innermost C.
2. *Move common functions* (needs both graphs): an ``F`` unit whose content yield is also
   the yield of an ``F`` unit in the other graph is detached from its primary parent (its
   remote parents too) and hung from the root as ``F`` in both graphs; its ancestors' yields
   shrink accordingly.

semsim's :func:`semsim.dag_f` does not normalise (it equals ``evaluate(normalize=False)``);
apply this first to reproduce the 1.0.50 numbers::

    g1, g2 = evaluation_normalize(g1, g2)
    semsim.dag_f(g1, g2, labels="weak")
"""

from __future__ import annotations

from semsim.kernel.graph import Edge, Graph


def _flatten_centres(g: Graph) -> list[Edge]:
    n_c = [0] * len(g.units)
    for e in g.edges:
        if "C" in e.labels:
            n_c[e.parent] += 1
    dissolved = {i for i, e in enumerate(g.edges)
                 if "C" in e.labels and not e.remote and g.units[e.child].kind == "FN"
                 and n_c[e.child] == 1 and n_c[e.parent] == 1}
    into = {g.edges[i].child: g.edges[i].parent for i in dissolved}  # U -> X

    def owner(u: int) -> int:
        while u in into:
            u = into[u]
        return u

    return [Edge(owner(e.parent), e.child, e.labels, e.remote)
            for i, e in enumerate(g.edges) if i not in dissolved]


def _function_units(g: Graph, edges: list[Edge]) -> dict[frozenset[int], int]:
    """Content yield -> unit, for units whose primary incoming edge is F (later units win)."""
    probe = g.with_(edges=tuple(edges))
    out = {}
    for e in probe.edges:
        if not e.remote and e.labels == ("F",):
            out[probe.content_yields[e.child]] = e.child
    return out


def evaluation_normalize(g1: Graph, g2: Graph) -> tuple[Graph, Graph]:
    """Both graphs normalised as ucca 1.0.50's ``evaluate`` did before counting."""
    e1, e2 = _flatten_centres(g1), _flatten_centres(g2)
    f1, f2 = _function_units(g1, e1), _function_units(g2, e2)
    common = f1.keys() & f2.keys()
    out = []
    for g, edges, fs in ((g1, e1, f1), (g2, e2, f2)):
        moved = {fs[y] for y in common}
        kept = [e for e in edges if e.child not in moved or g.units[e.parent].kind != "FN"]
        kept += [Edge(g.root, u, ("F",)) for u in sorted(moved)]
        out.append(g.with_(edges=tuple(kept)))
    return out[0], out[1]
