"""DistSim (Sulem et al. 2015, as used in the USim paper §3).

For a label l, c_i(l) and d_i(l) count the l-labelled edges of the i-th source and
correction; DistSim(l) = 1/N Σ_i |c_i(l) - d_i(l)|. A label group (e.g. UCCA's A+D, or
Scenes) counts the edges bearing any label of the group. Lower is more similar.

Passages can be split into synchronised sentences (``by_sentence``), each edge counted in
the sentence holding the first token of its child's yield, so that N is the number of
sentence pairs as in the paper.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from ..align.tokens import synchronised_spans
from ..graph import Graph


def label_counts(g: Graph, groups: Mapping[str, Sequence[str]] | None = None,
                 spans: Sequence[range] | None = None) -> list[Counter[str]]:
    """Per span (default: the whole graph), the number of compared edges per label and group."""
    groups = g.scheme.label_groups if groups is None else groups
    spans = list(spans) if spans is not None else [range(len(g.tokens))]
    out: list[Counter[str]] = [Counter() for _ in spans]
    if not spans:
        return out
    starts = [s.start for s in spans]
    for i in g.compared_edges:
        e = g.edges[i]
        y = g.yields[e.child] or g.yields[e.parent]
        first = min(y) if y else 0
        k = max(bisect_right(starts, first) - 1, 0)
        if first not in spans[k]:  # after the last synchronised sentence end
            continue
        labels = set(e.labels)
        for label in labels:
            out[k][label] += 1
        for name, members in groups.items():
            if labels.intersection(members):
                out[k][name] += 1
    return out


def distsim(pairs: Iterable[tuple[Graph, Graph]], labels: Sequence[str] | None = None,
            by_sentence: bool = False) -> dict[str, float]:
    """DistSim per label and label group over sentence (or passage) pairs."""
    diffs: Counter[str] = Counter()
    n = 0
    seen: set[str] = set()
    for g1, g2 in pairs:
        spans = synchronised_spans(g1, g2, by_sentence) if by_sentence else [
            (range(len(g1.tokens)), range(len(g2.tokens)))]
        c1 = label_counts(g1, spans=[s for s, _ in spans])
        c2 = label_counts(g2, spans=[s for _, s in spans])
        for a, b in zip(c1, c2):
            keys = set(a) | set(b)
            seen |= keys
            for k in keys:
                diffs[k] += abs(a[k] - b[k])
            n += 1
    if not n:
        raise ValueError("distsim needs at least one pair")
    wanted = list(labels) if labels is not None else sorted(seen)
    return {k: diffs[k] / n for k in wanted}
