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
from ..scheme import Scheme
from ..signature import Signature, signature


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


class DistSim(dict[str, float]):
    """DistSim per label and label group, and ``signature``: the settings that produced it,
    as a :class:`~semsim.kernel.stats.Score` carries its own.

    A dict, as :func:`distsim` returned before it was signed, so that every use of the
    result goes on working: ``result["A"]``, ``==`` with a plain dict, iteration, printing
    and ``json.dumps`` (which writes the labels alone). The signature rides along as an
    attribute, not as a key, where it would read as one more label."""

    signature: Signature

    def __init__(self, values: Mapping[str, float], signature: Signature) -> None:
        super().__init__(values)
        self.signature = signature


def distsim(pairs: Iterable[tuple[Graph, Graph]], labels: Sequence[str] | None = None,
            by_sentence: bool = False) -> DistSim:
    """DistSim per label and label group over sentence (or passage) pairs, signed with its
    settings and the first pair's scheme (:func:`~semsim.kernel.signature.signature`)."""
    diffs: Counter[str] = Counter()
    n = 0
    seen: set[str] = set()
    scheme: Scheme | None = None
    for g1, g2 in pairs:
        scheme = scheme or g1.scheme
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
    assert scheme is not None  # n > 0: a pair was read
    wanted = list(labels) if labels is not None else sorted(seen)
    sig = signature("distsim", {"by_sentence": by_sentence, "labels": ",".join(labels or ()) or "all"}, scheme)
    return DistSim({k: diffs[k] / n for k in wanted}, sig)
