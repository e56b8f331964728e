"""Where the page draws each token, unit and edge: the geometry, kept apart from the SVG.

Two scales. A passage is cut into its synchronised sentences (:func:`blocks`): an essay of
600 tokens drawn as one row is 30,000 pixels wide, where a sentence is a screen or two. A
unit spanning several sentences (a passage root) is drawn in each of them, over that
sentence's part of its children.

Within a sentence (:func:`place`) the source graph stands on top and the correction below
it, each over its own token row, the two rows facing each other across the token alignment
(the paper's Figure 1). The correction's graph therefore hangs upside down, root at the
bottom: this keeps every alignment line short, where two upright trees would have the lines
cross the lower tree. Tokens of both texts are placed in one pass so that aligned tokens
share a column where the alignment is monotone, like a diff; units are layered by height
above the tokens, each centred over its primary children and anchored tokens, then pushed
apart within its layer. Everything depends only on the document, so a page is reproducible.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from .schema import SIDES, EdgeDoc, ExplanationDoc, GraphDoc, Side, TokenDoc

MARGIN = 96.0       # left margin, room for the row captions
TOP = 36.0
LAYER_H = 52.0      # vertical distance between layers
BAND = 64.0         # between the two token rows, where the alignment lines run
TOKEN_GAP = 10.0
SENTENCE_GAP = 28.0
CHAR_W = 7.4        # estimated width of a character at the token font size
R = 10.0            # unit circle radius
MIN_SEP = 2 * R + 12
LABEL_AT = 0.65    # where on an edge (from the parent) its label sits


def label_width(text: str) -> float:
    """The width an edge label takes."""
    return len(text) * 8.0 + 6  # bold 12px, generous: an overlap is worse than a wider tree


def _text_w(text: str) -> float:
    return max(len(text) * CHAR_W + 8, 22.0)


def heights(n: int, edges: Sequence[EdgeDoc]) -> list[int]:
    """Per unit (of ``n``), the length of the longest primary path down to a unit without
    primary children. Layering by height keeps every preterminal just over its token, as in
    Figure 1, however deep the rest of a passage is."""
    parents: list[list[int]] = [[] for _ in range(n)]
    pending = [0] * n
    for e in edges:
        if not e["remote"]:
            parents[e["child"]].append(e["parent"])
            pending[e["parent"]] += 1
    height = [0] * n
    ready = [u for u in range(n) if not pending[u]]
    while ready:  # graphs are validated acyclic on primary edges
        u = ready.pop()
        for p in parents[u]:
            height[p] = max(height[p], height[u] + 1)
            pending[p] -= 1
            if not pending[p]:
                ready.append(p)
    return height


# -- sentences ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Block:
    """One sentence of the drawing. Per side (source, correction): its token range, the
    units drawn in it and the edges drawn in it, as indices into the document's lists."""

    index: int
    tokens: tuple[range, range]
    units: tuple[list[int], list[int]]
    edges: tuple[list[int], list[int]]


@dataclass(frozen=True)
class DrawnIn:
    """Of one side, the (first) sentence each unit and each edge is drawn in, by index:
    where the page's lists send a reader, and what the summary numbers a miss with."""

    units: dict[int, int]
    edges: dict[int, int]


def _no_word(token: TokenDoc) -> bool:
    """Punctuation, as the synchronisation sees it (a token without word characters)."""
    return token["punct"] or not re.sub(r"[\W_]+", "", token["text"])


def sentence_spans(doc: ExplanationDoc) -> list[tuple[range, range]]:
    """The document's synchronised sentences (one span for the whole texts if it has none),
    each side's closing punctuation kept with its sentence: the synchronisation steps back
    from a final full stop, which would otherwise open the next sentence's drawing."""
    graphs = [doc["graphs"][side] for side in SIDES]
    n = [len(g["tokens"]) for g in graphs]
    spans = doc.get("sentences") or [{"source": [0, n[0]], "correction": [0, n[1]]}]
    starts = [[s[side][0] for s in spans] for side in SIDES]
    for k, g in enumerate(graphs):
        ends = set(g["sentence_ends"])
        for j in range(1, len(spans)):
            t, stop = starts[k][j], starts[k][j + 1] if j + 1 < len(spans) else n[k]
            if t < stop and t + 1 in ends and _no_word(g["tokens"][t]):
                starts[k][j] = t + 1
        starts[k][0] = 0
    out = []
    for j in range(len(spans)):
        stops = [starts[k][j + 1] if j + 1 < len(spans) else n[k] for k in (0, 1)]
        out.append((range(starts[0][j], max(starts[0][j], stops[0])), range(starts[1][j], max(starts[1][j], stops[1]))))
    return out


def unit_sentences(g: GraphDoc, starts: list[int]) -> list[set[int]]:
    """The sentences each unit is drawn in: those of its tokens; a unit without tokens
    (implicit) goes with its first parent's first sentence; the child of a remote edge from
    another sentence is drawn there too, beside its parent, so that every edge is drawn."""
    n = len(g["units"])

    def sentence_of(t: int) -> int:
        return max(bisect.bisect_right(starts, t) - 1, 0)

    where = [{sentence_of(t) for t in (*unit["yield"], *unit["anchors"])} for unit in g["units"]]
    parents: list[list[int]] = [[] for _ in range(n)]
    for e in g["edges"]:
        if not e["remote"]:
            parents[e["child"]].append(e["parent"])
    height = heights(n, g["edges"])
    for u in sorted(range(n), key=lambda u: (-height[u], u)):  # parents before their children
        if not where[u]:
            above: set[int] = set().union(*(where[p] for p in parents[u]))
            where[u] = {min(above)} if above else {0}
    for e in g["edges"]:
        if not where[e["parent"]] & where[e["child"]]:
            where[e["child"]].add(min(where[e["parent"]]))
    return where


def blocks(doc: ExplanationDoc) -> list[Block]:
    """The sentences of the drawing, in text order."""
    spans = sentence_spans(doc)
    units: list[list[list[int]]] = [[[] for _ in spans] for _ in SIDES]
    edges: list[list[list[int]]] = [[[] for _ in spans] for _ in SIDES]
    for k, side in enumerate(SIDES):
        g = doc["graphs"][side]
        where = unit_sentences(g, [span[k].start for span in spans])
        for u, sentences in enumerate(where):
            for j in sentences:
                units[k][j].append(u)
        for i, e in enumerate(g["edges"]):
            for j in sorted(where[e["parent"]] & where[e["child"]]):
                edges[k][j].append(i)
    return [Block(j, span, (units[0][j], units[1][j]), (edges[0][j], edges[1][j])) for j, span in enumerate(spans)]


def first_sentences(blocks_: list[Block]) -> dict[Side, DrawnIn]:
    """Per side, the (first) sentence each unit and each edge is drawn in."""
    out: dict[Side, DrawnIn] = {}
    for k, side in enumerate(SIDES):
        units: dict[int, int] = {}
        edges: dict[int, int] = {}
        for b in blocks_:
            for u in b.units[k]:
                units.setdefault(u, b.index)
            for i in b.edges[k]:
                edges.setdefault(i, b.index)
        out[side] = DrawnIn(units, edges)
    return out


# -- within a sentence ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Placement:
    """Where one graph's part of a sentence is drawn, by the document's indices: the centre
    and width of each token (all on one row, at ``token_y``), the centre of each unit, and
    the edges drawn."""

    token_x: dict[int, float]
    token_w: dict[int, float]
    token_y: float
    unit_x: dict[int, float]
    unit_y: dict[int, float]
    edges: list[int]


@dataclass(frozen=True)
class _Part:
    """One graph's part of a sentence, as the geometry sees it: tokens, units and edges
    re-indexed from 0 (a unit's local index is its position in ``units``)."""

    span: range                 # the document's tokens in the sentence
    units: list[int]            # the document's units drawn in it
    edge_ids: list[int]         # the document's edges drawn in it
    tokens: list[TokenDoc]
    sentence_ends: list[int]    # 1-based, local
    anchors: list[list[int]]    # per unit, its local tokens
    edges: list[EdgeDoc]        # parent and child local

    @classmethod
    def of(cls, g: GraphDoc, span: range, units: list[int], edge_ids: list[int]) -> _Part:
        local = {u: n for n, u in enumerate(units)}
        return cls(span, units, edge_ids, g["tokens"][span.start:span.stop],
                   [p - span.start for p in g["sentence_ends"] if span.start < p <= span.stop],
                   [[t - span.start for t in g["units"][u]["anchors"] if t in span] for u in units],
                   [{**e, "parent": local[e["parent"]], "child": local[e["child"]]}
                    for e in (g["edges"][i] for i in edge_ids)])

    def placement(self, token_x: list[float], token_w: list[float], token_y: float,
                  unit_x: list[float], unit_y: list[float]) -> Placement:
        """The part's local positions, keyed by the document's indices."""
        span = self.span
        return Placement({t: token_x[t - span.start] for t in span}, {t: token_w[t - span.start] for t in span},
                         token_y, {u: unit_x[n] for n, u in enumerate(self.units)},
                         {u: unit_y[n] for n, u in enumerate(self.units)}, self.edge_ids)


def monotone(pairs: list[list[int]]) -> list[tuple[int, int]]:
    """The longest subsequence of the token pairs increasing on both sides (patience
    sorting): the pairs that can share a column."""
    ordered = sorted((a, b) for a, b in pairs)
    tails: list[int] = []      # the j of the last pair of the best chain of each length
    tail_idx: list[int] = []
    prev = [-1] * len(ordered)
    for k, (_, j) in enumerate(ordered):
        pos = bisect.bisect_left(tails, j)
        if pos == len(tails):
            tails.append(j)
            tail_idx.append(k)
        else:
            tails[pos], tail_idx[pos] = j, k
        prev[k] = tail_idx[pos - 1] if pos else -1
    out = []
    k = tail_idx[-1] if tail_idx else -1
    while k >= 0:
        out.append(ordered[k])
        k = prev[k]
    return out[::-1]


def token_positions(parts: tuple[_Part, _Part], pairs: list[list[int]]
                    ) -> tuple[list[float], list[float], list[float], list[float]]:
    """Centres and widths of the tokens of both parts, aligned tokens (``pairs``, local) in
    shared columns."""
    w = [[_text_w(t["text"]) for t in p.tokens] for p in parts]
    ends = [set(p.sentence_ends) for p in parts]
    xs: list[list[float]] = [[0.0] * len(w[0]), [0.0] * len(w[1])]
    cursor = [MARGIN, MARGIN]
    nxt = [0, 0]

    def advance(side: int, k: int, width: float) -> None:
        last = k + 1 == len(w[side])
        cursor[side] += width + TOKEN_GAP + (SENTENCE_GAP if k + 1 in ends[side] and not last else 0)

    def place_until(side: int, stop: int) -> None:
        while nxt[side] < stop:
            k = nxt[side]
            xs[side][k] = cursor[side] + w[side][k] / 2
            advance(side, k, w[side][k])
            nxt[side] += 1

    for a, b in monotone(pairs):
        place_until(0, a)
        place_until(1, b)
        width = max(w[0][a], w[1][b])
        cursor[0] = cursor[1] = max(cursor)
        xs[0][a] = xs[1][b] = cursor[0] + width / 2
        advance(0, a, width)
        advance(1, b, width)
        nxt[0], nxt[1] = a + 1, b + 1
    place_until(0, len(w[0]))
    place_until(1, len(w[1]))
    return xs[0], w[0], xs[1], w[1]


def unit_positions(part: _Part, token_x: list[float], layer: list[int]) -> list[float]:
    """x of each unit: centred over its primary children and anchored tokens; units with
    neither (implicit units) sit beside their parent; then pushed apart within each layer."""
    n = len(part.anchors)
    children: list[list[int]] = [[] for _ in range(n)]
    parents: list[list[int]] = [[] for _ in range(n)]
    for e in part.edges:
        parents[e["child"]].append(e["parent"])
        if not e["remote"]:
            children[e["parent"]].append(e["child"])
    x: list[float | None] = [None] * n
    order = sorted(range(n), key=lambda u: (layer[u], u))  # lowest first: children before parents
    for u in order:
        spots = [token_x[t] for t in part.anchors[u]] + [v for v in (x[c] for c in children[u]) if v is not None]
        if spots:
            x[u] = (min(spots) + max(spots)) / 2
    right = max([*token_x, *(v for v in x if v is not None), MARGIN])
    for u in sorted(range(n), key=lambda u: (-layer[u], u)):  # parents first
        if x[u] is None:
            placed = [v for v in (x[p] for p in parents[u]) if v is not None]
            if placed:
                x[u] = placed[0] + MIN_SEP
            else:
                right += MIN_SEP
                x[u] = right
    # The label of a unit's incoming edge sits near it (LABEL_AT): neighbours are kept far
    # enough apart for their labels not to overlap, which matters for AMR's long roles.
    label_w = [0.0] * n
    for e in part.edges:
        if not e["remote"]:
            label_w[e["child"]] = max(label_w[e["child"]], label_width("/".join(e["labels"])))
    xs = [float(v) for v in x if v is not None]
    assert len(xs) == n  # every unit is placed by now
    for lay in sorted(set(layer)):
        row = sorted((u for u in range(n) if layer[u] == lay), key=lambda u: (xs[u], u))
        for a, b in itertools.pairwise(row):
            xs[b] = max(xs[b], xs[a] + max(MIN_SEP, (label_w[a] + label_w[b]) / (2 * LABEL_AT) + 6))
    return xs


def place(doc: ExplanationDoc, block: Block) -> tuple[Placement, Placement, float, float]:
    """Both sides' positions in ``block``'s drawing, and its width and height."""
    parts = (_Part.of(doc["graphs"]["source"], block.tokens[0], block.units[0], block.edges[0]),
             _Part.of(doc["graphs"]["correction"], block.tokens[1], block.units[1], block.edges[1]))
    s1, s2 = block.tokens
    pairs = [[a - s1.start, b - s2.start] for a, b in doc["token_alignment"] if a in s1 and b in s2]
    x1, w1, x2, w2 = token_positions(parts, pairs)
    h1, h2 = (heights(len(p.units), p.edges) for p in parts)
    d1, d2 = max(h1, default=0), max(h2, default=0)
    ty1 = TOP + (d1 + 1) * LAYER_H
    ty2 = ty1 + BAND
    u1, u2 = unit_positions(parts[0], x1, h1), unit_positions(parts[1], x2, h2)
    right = max([x + w / 2 for x, w in zip(x1 + x2, w1 + w2)] + u1 + u2 + [MARGIN])
    return (parts[0].placement(x1, w1, ty1, u1, [ty1 - (v + 1) * LAYER_H for v in h1]),
            parts[1].placement(x2, w2, ty2, u2, [ty2 + (v + 1) * LAYER_H for v in h2]),
            right + 60, ty2 + (d2 + 1) * LAYER_H + TOP)
