"""The explanation as one self-contained HTML page, and as a short text summary.

The page draws the source graph on top and the correction below it, each over its own
token row, with the two token rows facing each other across the token alignment (the
paper's Figure 1: structure of the source on top, of the correction at the bottom, word
alignments between). The correction's graph therefore hangs upside down, root at the
bottom: this keeps every alignment line short, where two upright trees would have the
lines cross the lower tree. Tokens of both texts are placed in one pass so that aligned
tokens share a column where the alignment is monotone, like a diff.

A passage is drawn one synchronised sentence at a time (:func:`blocks`): an essay of 600
tokens drawn as one row is 30,000 pixels wide, where a sentence is a screen or two. A unit
spanning several sentences (a passage root) is drawn in each of them, over that
sentence's part of its children; the page navigates between sentences and lists every
unmatched edge with the sentence it is drawn in.

The layout is computed here (layers by height above the tokens, each unit
centred over its primary children and anchored tokens, then pushed apart within its
layer) and written as SVG; ``explain.js`` only switches classes (direction shown,
highlights, sentence shown) using the explanation document embedded in the page.
Everything is inline (no network at view time) and the output depends only on the
document, so the same input gives a byte-identical page.
"""

from __future__ import annotations

import bisect
import html
import itertools
import json
import re
import shutil
import textwrap
from dataclasses import dataclass
from importlib.resources import files
from typing import Any

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
SIDES = ("source", "correction")
TEXT_WIDTH = 100    # columns of the text summary when the terminal's are unknown


# -- layout ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Side:
    """Positions of one graph's tokens and units."""

    token_x: list[float]
    token_w: list[float]
    token_y: float
    unit_x: list[float]
    unit_y: list[float]


def _label_w(text: str) -> float:
    return len(text) * 8.0 + 6  # bold 12px, generous: an overlap is worse than a wider tree


def _text_w(text: str) -> float:
    return max(len(text) * CHAR_W + 8, 22.0)


def _monotone(pairs: list[list[int]]) -> list[tuple[int, int]]:
    """The longest subsequence of the token pairs increasing on both sides (patience
    sorting): the pairs that can share a column."""
    pairs = sorted((a, b) for a, b in pairs)
    tails: list[int] = []      # the j of the last pair of the best chain of each length
    tail_idx: list[int] = []
    prev = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
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
        out.append(pairs[k])
        k = prev[k]
    return out[::-1]


def token_positions(doc: dict[str, Any]) -> tuple[list[float], list[float], list[float], list[float]]:
    """Centres and widths of the tokens of both graphs, aligned tokens in shared columns."""
    g1, g2 = doc["graphs"]["source"], doc["graphs"]["correction"]
    w = [[_text_w(t["text"]) for t in g["tokens"]] for g in (g1, g2)]
    ends = [set(g["sentence_ends"]) for g in (g1, g2)]
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

    for a, b in _monotone(doc["token_alignment"]):
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


def heights(g: dict[str, Any]) -> list[int]:
    """Per unit, the length of the longest primary path down to a unit without primary
    children. Layering by height keeps every preterminal just over its token, as in
    Figure 1, however deep the rest of a passage is."""
    n = len(g["units"])
    parents: list[list[int]] = [[] for _ in range(n)]
    pending = [0] * n
    for e in g["edges"]:
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


def unit_positions(g: dict[str, Any], token_x: list[float], layer: list[int]) -> list[float]:
    """x of each unit: centred over its primary children and anchored tokens; units with
    neither (implicit units) sit beside their parent; then pushed apart within each layer."""
    n = len(g["units"])
    children: list[list[int]] = [[] for _ in range(n)]
    parents: list[list[int]] = [[] for _ in range(n)]
    for e in g["edges"]:
        parents[e["child"]].append(e["parent"])
        if not e["remote"]:
            children[e["parent"]].append(e["child"])
    x: list[float | None] = [None] * n
    order = sorted(range(n), key=lambda u: (layer[u], u))  # lowest first: children before parents
    for u in order:
        spots = [token_x[t] for t in g["units"][u]["anchors"]] + [x[c] for c in children[u] if x[c] is not None]
        if spots:
            x[u] = (min(spots) + max(spots)) / 2  # type: ignore[type-var]
    right = max([*token_x, *(v for v in x if v is not None), MARGIN])
    for u in sorted(range(n), key=lambda u: (-layer[u], u)):  # parents first
        if x[u] is None:
            placed = [x[p] for p in parents[u] if x[p] is not None]
            if placed:
                x[u] = placed[0] + MIN_SEP
            else:
                right += MIN_SEP
                x[u] = right
    # The label of a unit's incoming edge sits near it (LABEL_AT): neighbours are kept far
    # enough apart for their labels not to overlap, which matters for AMR's long roles.
    label_w = [0.0] * n
    for e in g["edges"]:
        if not e["remote"]:
            label_w[e["child"]] = max(label_w[e["child"]], _label_w("/".join(e["labels"])))
    xs = [float(v) for v in x]  # type: ignore[arg-type]
    for lay in sorted(set(layer)):
        row = sorted((u for u in range(n) if layer[u] == lay), key=lambda u: (xs[u], u))
        for a, b in itertools.pairwise(row):
            xs[b] = max(xs[b], xs[a] + max(MIN_SEP, (label_w[a] + label_w[b]) / (2 * LABEL_AT) + 6))
    return xs


def layout(doc: dict[str, Any]) -> tuple[Side, Side, float, float]:
    """Both sides' positions, and the canvas width and height."""
    x1, w1, x2, w2 = token_positions(doc)
    g1, g2 = doc["graphs"]["source"], doc["graphs"]["correction"]
    h1, h2 = heights(g1), heights(g2)
    d1, d2 = max(h1, default=0), max(h2, default=0)
    ty1 = TOP + (d1 + 1) * LAYER_H
    ty2 = ty1 + BAND
    s1 = Side(x1, w1, ty1, unit_positions(g1, x1, h1), [ty1 - (v + 1) * LAYER_H for v in h1])
    s2 = Side(x2, w2, ty2, unit_positions(g2, x2, h2), [ty2 + (v + 1) * LAYER_H for v in h2])
    right = max([x + w / 2 for x, w in zip(x1 + x2, w1 + w2)] + s1.unit_x + s2.unit_x + [MARGIN])
    return s1, s2, right + 60, ty2 + (d2 + 1) * LAYER_H + TOP


# -- sentences ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Block:
    """One sentence of the drawing. Per side (source, correction): its token range, the
    units drawn in it and the edges drawn in it, as indices into the document's lists."""

    index: int
    tokens: tuple[range, range]
    units: tuple[list[int], list[int]]
    edges: tuple[list[int], list[int]]


def _no_word(token: dict[str, Any]) -> bool:
    """Punctuation, as the synchronisation sees it (a token without word characters)."""
    return token["punct"] or not re.sub(r"[\W_]+", "", token["text"])


def sentence_spans(doc: dict[str, Any]) -> list[tuple[range, range]]:
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


def unit_sentences(g: dict[str, Any], starts: list[int]) -> list[set[int]]:
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
    height = heights(g)
    for u in sorted(range(n), key=lambda u: (-height[u], u)):  # parents before their children
        if not where[u]:
            above = set().union(*(where[p] for p in parents[u]))
            where[u] = {min(above)} if above else {0}
    for e in g["edges"]:
        if not where[e["parent"]] & where[e["child"]]:
            where[e["child"]].add(min(where[e["parent"]]))
    return where


def blocks(doc: dict[str, Any]) -> list[Block]:
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


def first_sentences(doc: dict[str, Any], blocks_: list[Block]) -> dict[str, dict[str, dict[int, int]]]:
    """Per side, the (first) sentence each unit and each edge is drawn in: where the page's
    lists send a reader."""
    out: dict[str, dict[str, dict[int, int]]] = {}
    for k, side in enumerate(SIDES):
        units: dict[int, int] = {}
        edges: dict[int, int] = {}
        for b in blocks_:
            for u in b.units[k]:
                units.setdefault(u, b.index)
            for i in b.edges[k]:
                edges.setdefault(i, b.index)
        out[side] = {"units": units, "edges": edges}
    return out


def _sub_doc(doc: dict[str, Any], block: Block) -> tuple[dict[str, Any], list[dict[int, int]]]:
    """The part of ``doc`` drawn in ``block``, re-indexed, for :func:`layout`; and per side
    the map from the document's unit indices to the part's."""
    graphs: dict[str, Any] = {}
    maps = []
    for k, side in enumerate(SIDES):
        g, span = doc["graphs"][side], block.tokens[k]
        local = {u: n for n, u in enumerate(block.units[k])}
        graphs[side] = {
            "tokens": g["tokens"][span.start:span.stop],
            "sentence_ends": [p - span.start for p in g["sentence_ends"] if span.start < p <= span.stop],
            "units": [{"anchors": [t - span.start for t in g["units"][u]["anchors"] if t in span]}
                      for u in block.units[k]],
            "edges": [{**e, "parent": local[e["parent"]], "child": local[e["child"]]}
                      for e in (g["edges"][i] for i in block.edges[k])],
        }
        maps.append(local)
    s1, s2 = block.tokens
    pairs = [[a - s1.start, b - s2.start] for a, b in doc["token_alignment"] if a in s1 and b in s2]
    return {"graphs": graphs, "token_alignment": pairs}, maps


@dataclass(frozen=True)
class Placed:
    """Where one graph's part of a sentence is drawn, by the document's indices."""

    token_x: dict[int, float]
    token_w: dict[int, float]
    token_y: float
    unit_x: dict[int, float]
    unit_y: dict[int, float]
    edges: list[int]


def place(doc: dict[str, Any], block: Block) -> tuple[Placed, Placed, float, float]:
    """Both sides' positions in ``block``'s drawing, and its width and height."""
    sub, maps = _sub_doc(doc, block)
    s1, s2, width, height = layout(sub)
    placed = []
    for k, pos in enumerate((s1, s2)):
        span = block.tokens[k]
        placed.append(Placed({t: pos.token_x[t - span.start] for t in span},
                             {t: pos.token_w[t - span.start] for t in span}, pos.token_y,
                             {u: pos.unit_x[n] for u, n in maps[k].items()},
                             {u: pos.unit_y[n] for u, n in maps[k].items()}, block.edges[k]))
    return placed[0], placed[1], width, height


# -- SVG ------------------------------------------------------------------------------------------
def _f(v: float) -> str:
    return f"{v:.1f}"


def _esc(s: object) -> str:
    return html.escape(str(s), quote=True)


def _short(text: str, limit: int = 100) -> str:
    """A unit's text for a tooltip: a passage root's would be the whole passage."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _initial(doc: dict[str, Any]) -> str:
    return next(iter(doc["directions"]))


def unit_state(doc: dict[str, Any], direction: str, side: str, u: int) -> str:
    """``a`` aligned/matched, ``x`` not, ``n`` outside the comparison (the CSS classes)."""
    row = doc["directions"][direction]["units"][side][u]
    if doc["detail"] == "legacy":
        return "n" if not row["compared"] else "a" if row["matched"] else "x"
    if not doc["graphs"][side]["units"][u]["yield"]:
        return "n"
    return "a" if row["aligned"] else "x"


def edge_state(doc: dict[str, Any], direction: str, side: str, i: int) -> str:
    """``m`` matched, ``u`` unmatched, ``n`` not compared (or no edge detail: legacy)."""
    d = doc["directions"][direction]
    if "edges" not in d:
        return "n"
    row = d["edges"][side][i]
    return "n" if not row["compared"] else "m" if row["matched"] else "u"


def aligned_text(doc: dict[str, Any], direction: str, side: str, u: int) -> str:
    """The "aligned to" note beside a unit of the side being aligned (Figure 1's numbers)."""
    d = doc["directions"][direction]
    if d["from"] not in (side, "both"):
        return ""
    aligned = d["units"][side][u]["aligned"]
    return "→" + ",".join(str(v) for v in aligned) if aligned else ""


def _is_elbow(x1: float, y1: float, x2: float, y2: float) -> bool:
    return abs(x2 - x1) > 3 * abs(y2 - y1)


def _elbow_heights(g: dict[str, Any], pos: Placed) -> dict[int, float]:
    """How far below its parent (in layers) each parent's elbow edges run: half a layer,
    but staggered between parents of one layer (a passage root and a linkage unit beside
    it), whose elbows would otherwise run along the same line and hide each other."""
    parents = sorted({e["parent"] for e in (g["edges"][i] for i in pos.edges) if not e["remote"]
                      and _is_elbow(pos.unit_x[e["parent"]], pos.unit_y[e["parent"]],
                                    pos.unit_x[e["child"]], pos.unit_y[e["child"]])},
                     key=lambda u: (pos.unit_y[u], pos.unit_x[u], u))
    at: dict[int, float] = {}
    for _, row in itertools.groupby(parents, key=lambda u: pos.unit_y[u]):
        for rank, u in enumerate(row):
            at[u] = (0.5, 0.25)[rank % 2]
    return at


def _graph_svg(doc: dict[str, Any], side: str, pos: Placed, flip: bool) -> list[str]:
    g = doc["graphs"][side]
    first = _initial(doc)
    out = [f'<g class="graph" data-side="{side}">']
    tok_edge = pos.token_y + (12 if flip else -12)
    out.append('<g class="anchors">')
    for u in pos.unit_x:
        for t in g["units"][u]["anchors"]:
            if t in pos.token_x:
                out.append(f'<line class="anchor" x1="{_f(pos.unit_x[u])}" y1="{_f(pos.unit_y[u])}" '
                           f'x2="{_f(pos.token_x[t])}" y2="{_f(tok_edge)}"/>')
    out.append("</g>")
    out.append('<g class="edges">')
    elbow_at = _elbow_heights(g, pos)
    for i in pos.edges:
        e = g["edges"][i]
        x1, y1 = pos.unit_x[e["parent"]], pos.unit_y[e["parent"]]
        x2, y2 = pos.unit_x[e["child"]], pos.unit_y[e["child"]]
        label = "/".join(e["labels"])
        state = edge_state(doc, first, side, i)
        cls = f"edge {state}" + (" remote" if e["remote"] else "")
        if e["remote"]:  # bend remote edges aside so that they do not hide primary ones
            cx, cy = (x1 + x2) / 2 + 0.25 * abs(y2 - y1) + 24, (y1 + y2) / 2
            shape = f'<path d="M{_f(x1)},{_f(y1)} Q{_f(cx)},{_f(cy)} {_f(x2)},{_f(y2)}"/>'
            lx, ly = (x1 + 2 * cx + x2) / 4, (y1 + 2 * cy + y2) / 4
        elif _is_elbow(x1, y1, x2, y2):  # a long edge (e.g. root to a far sentence): elbow, as org
            ym = y1 + (LAYER_H if y2 > y1 else -LAYER_H) * elbow_at[e["parent"]]  # charts do, below the parent
            shape = f'<path d="M{_f(x1)},{_f(y1)} V{_f(ym)} H{_f(x2)} V{_f(y2)}"/>'
            # the label on the horizontal run, just before the corner: two elbows into one
            # child share the vertical run, but not the horizontal one
            lx, ly = x2 - (1 if x2 > x1 else -1) * (_label_w(label) / 2 + 4), ym
        else:
            shape = f'<line x1="{_f(x1)}" y1="{_f(y1)}" x2="{_f(x2)}" y2="{_f(y2)}"/>'
            lx, ly = x1 + LABEL_AT * (x2 - x1), y1 + LABEL_AT * (y2 - y1)  # nearer the child: siblings' spread
        lcls = "elabel"
        if abs(lx - x2) < 4 and not e["remote"]:  # beside a vertical edge, not across it (nor the note)
            lx, lcls = lx + 5, "elabel side"
        out.append(f'<g class="{cls}" data-side="{side}" data-edge="{i}">{shape}'
                   f'<text class="{lcls}" x="{_f(lx)}" y="{_f(ly)}">{_esc(label)}</text></g>')
    out.append("</g>")
    out.append('<g class="units">')
    for u in pos.unit_x:
        unit = g["units"][u]
        x, y = pos.unit_x[u], pos.unit_y[u]
        tip = f"{side} unit {u}: {unit['id']}" + (f" [{unit['kind']}]" if unit["kind"] else "") \
            + (f" {unit['label']}" if unit["label"] else "") + (f" “{_short(unit['text'])}”" if unit["text"] else "")
        note_y = y + (-R - 6 if flip else R + 11)  # on the children's side, away from the incoming edge label
        out.append(f'<g class="unit {unit_state(doc, first, side, u)}" data-side="{side}" data-unit="{u}" '
                   f'tabindex="0"><title>{_esc(tip)}</title>'
                   f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(R)}"/>'
                   f'<text class="idx" x="{_f(x)}" y="{_f(y)}">{u}</text>'
                   f'<text class="al" x="{_f(x)}" y="{_f(note_y)}">'
                   f'{_esc(aligned_text(doc, first, side, u))}</text></g>')
    out.append("</g>")
    aligned = {p[0 if side == "source" else 1] for p in doc["token_alignment"]}
    out.append('<g class="tokens">')
    for t in pos.token_x:
        tok = g["tokens"][t]
        cls = "token" + (" punct" if tok["punct"] else "") + ("" if t in aligned else " unaligned")
        x, w = pos.token_x[t], pos.token_w[t]
        out.append(f'<g class="{cls}" data-side="{side}" data-token="{t}">'
                   f'<rect x="{_f(x - w / 2)}" y="{_f(pos.token_y - 11)}" width="{_f(w)}" height="22" rx="4"/>'
                   f'<text x="{_f(x)}" y="{_f(pos.token_y)}">{_esc(tok["text"])}</text></g>')
    out.append("</g>")
    out.append(f'<text class="caption" x="8" y="{_f(pos.token_y)}">{side}</text>')
    out.append("</g>")
    return out


def render_svg(doc: dict[str, Any], block: Block) -> str:
    """The drawing of one sentence: both graphs' parts in it, the token alignment within it
    and the node alignment between units drawn in it."""
    s1, s2, width, height = place(doc, block)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="drawing" width="{_f(width)}" height="{_f(height)}" '
           f'viewBox="0 0 {_f(width)} {_f(height)}" role="img" '
           f'aria-label="source and correction graphs, sentence {block.index + 1}">']
    out.append('<g class="token-alignment">')
    for a, b in doc["token_alignment"]:
        if a in s1.token_x and b in s2.token_x:
            out.append(f'<line class="talign" data-source="{a}" data-correction="{b}" x1="{_f(s1.token_x[a])}" '
                       f'y1="{_f(s1.token_y + 12)}" x2="{_f(s2.token_x[b])}" y2="{_f(s2.token_y - 12)}"/>')
    out.append("</g>")
    first = _initial(doc)
    for name, d in doc["directions"].items():  # node alignment, one layer per direction
        on = " on" if name == first else ""
        out.append(f'<g class="links{on}" data-dir="{_esc(name)}">')
        for p in d["unit_alignment"]:
            v, u = p["source"], p["correction"]
            if v not in s1.unit_x or u not in s2.unit_x:
                continue
            x1, y1, x2, y2 = s1.unit_x[v], s1.unit_y[v], s2.unit_x[u], s2.unit_y[u]
            out.append(f'<path class="nlink" data-source="{v}" data-correction="{u}" '
                       f'd="M{_f(x1)},{_f(y1)} C{_f(x1)},{_f(y1 + 80)} {_f(x2)},{_f(y2 - 80)} {_f(x2)},{_f(y2)}"/>')
        out.append("</g>")
    out += _graph_svg(doc, "source", s1, flip=False)
    out += _graph_svg(doc, "correction", s2, flip=True)
    out.append("</svg>")
    return "\n".join(out)


# -- page -----------------------------------------------------------------------------------------
def _num(v: float) -> str:
    return f"{v:.4f}"


def _scores_table(doc: dict[str, Any]) -> str:
    first = _initial(doc)
    rows = []
    for name, d in doc["directions"].items():
        c = d["counts"]
        checked = " checked" if name == first else ""
        rows.append(
            f'<tr class="dir-row{" on" if name == first else ""}" data-dir="{_esc(name)}">'
            f'<td><label><input type="radio" name="dir" value="{_esc(name)}"{checked}> {_esc(name)}</label></td>'
            f'<td class="p">{_num(c["precision"])}</td><td class="r">{_num(c["recall"])}</td>'
            f'<td class="f">{_num(c["f"])}</td>'
            f'<td class="n">{c["matched1"]}/{c["total1"]}</td><td class="n">{c["matched2"]}/{c["total2"]}</td></tr>')
    s = doc["score"]
    rows.append(f'<tr class="total"><td>USim</td><td class="p">{_num(s["precision"])}</td>'
                f'<td class="r">{_num(s["recall"])}</td><td class="f">{_num(s["f"])}</td><td></td><td></td></tr>')
    unit = "units" if doc["detail"] == "legacy" else "edges"
    head = (f"<tr><th>direction</th><th>P</th><th>R</th><th>F</th><th>matched source {unit}</th>"
            f"<th>matched correction {unit}</th></tr>")
    return f'<table id="scores">{head}{"".join(rows)}</table>'


@dataclass(frozen=True)
class Miss:
    """An unmatched edge (or, legacy, unit) of one side in one direction, for the lists."""

    side: str
    kind: str       # "edge" or "unit"
    index: int
    sentence: int   # 0-based: the (first) sentence it is drawn in
    name: str       # e.g. 1.8 -R-> 1.9 "for"
    reason: str


def misses(doc: dict[str, Any], direction: str,
           sentences: dict[str, dict[str, dict[int, int]]] | None = None) -> dict[str, list[Miss]]:
    """Per side, what ``direction`` left unmatched: compared edges without a match (the
    paper variant) or compared units without one (legacy), in text order (by sentence,
    then index)."""
    d = doc["directions"][direction]
    sentences = sentences or first_sentences(doc, blocks(doc))
    out: dict[str, list[Miss]] = {}
    for side in SIDES:
        g = doc["graphs"][side]
        if "edges" in d:
            out[side] = [Miss(side, "edge", i, sentences[side]["edges"].get(i, 0), _edge_name(g, i), row["reason"])
                         for i, row in enumerate(d["edges"][side]) if row["compared"] and not row["matched"]]
        else:
            out[side] = [Miss(side, "unit", u, sentences[side]["units"].get(u, 0), _unit_name(g, u), row["reason"])
                         for u, row in enumerate(d["units"][side]) if row["compared"] and not row["matched"]]
        out[side].sort(key=lambda m: (m.sentence, m.index))
    return out


def _sentence_label(doc: dict[str, Any], block: Block, words: int = 6) -> str:
    tokens = doc["graphs"]["source"]["tokens"][block.tokens[0].start:block.tokens[0].stop] \
        or doc["graphs"]["correction"]["tokens"][block.tokens[1].start:block.tokens[1].stop]
    text = " ".join(t["text"] for t in tokens[:words]) + (" …" if len(tokens) > words else "")
    return f"{block.index + 1}: {text}"


def _count_note(n: int, unit: str) -> str:
    """What the sentence menu says beside a sentence (``explain.js`` writes the same)."""
    return f" — {n} unmatched {unit}{'' if n == 1 else 's'}" if n else ""


def _sentence_nav(doc: dict[str, Any], blocks_: list[Block], by_dir: dict[str, dict[str, list[Miss]]]) -> str:
    """Previous/next buttons, a menu of the sentences (with the unmatched count of the
    direction shown) and the switch to all sentences at once; nothing for one sentence."""
    if len(blocks_) < 2:
        return ""
    first = by_dir[_initial(doc)]
    kind = "unit" if doc["detail"] == "legacy" else "edge"
    counts = [0] * len(blocks_)
    for m in (*first["source"], *first["correction"]):
        counts[m.sentence] += 1
    options = "".join(
        f'<option value="{b.index}" data-label="{_esc(_sentence_label(doc, b))}"{" selected" if not b.index else ""}>'
        f'{_esc(_sentence_label(doc, b) + _count_note(counts[b.index], kind))}</option>' for b in blocks_)
    return (f'<nav id="sentence-nav" data-kind="{kind}"><button type="button" id="prev-sentence" disabled>'
            f'&#8249; previous</button><select id="sentence-select" aria-label="sentence">{options}</select>'
            f'<button type="button" id="next-sentence">next &#8250;</button>'
            f'<span id="sentence-count">sentence 1 of {len(blocks_)}</span>'
            f'<label><input type="checkbox" id="all-sentences"> all sentences</label></nav>')


def _tokens_text(doc: dict[str, Any], side: str, span: range) -> str:
    return " ".join(t["text"] for t in doc["graphs"][side]["tokens"][span.start:span.stop])


def _canvas(doc: dict[str, Any], blocks_: list[Block]) -> str:
    """One section per sentence, each with its own drawing; the first is shown (``on``)
    and, with several, the others wait for the sentence menu (``single``)."""
    many = len(blocks_) > 1
    single = ' class="single"' if many else ""
    out = [f'<div id="canvas"{single}>']
    for b in blocks_:
        out.append(f'<section class="sentence{" on" if not b.index else ""}" id="sentence-{b.index + 1}" '
                   f'data-sentence="{b.index}">')
        if many:
            out.append(f'<h2>sentence {b.index + 1} of {len(blocks_)}</h2><p class="texts">'
                       f'<span class="cap">source</span> {_esc(_tokens_text(doc, "source", b.tokens[0]))}<br>'
                       f'<span class="cap">correction</span> {_esc(_tokens_text(doc, "correction", b.tokens[1]))}</p>')
        out.append(f'<div class="scroll">{render_svg(doc, b)}</div></section>')
    out.append("</div>")
    return "\n".join(out)


def _unmatched(doc: dict[str, Any], by_dir: dict[str, dict[str, list[Miss]]], many: bool) -> str:
    """The list of what each direction left unmatched, per side; an item leads to its
    sentence and highlights it (``explain.js``)."""
    first = _initial(doc)
    kind = "units" if doc["detail"] == "legacy" else "edges"
    out = [f'<section id="unmatched"><h2>Unmatched {kind}</h2>']
    for name, sides in by_dir.items():
        out.append(f'<div class="misses{" on" if name == first else ""}" data-dir="{_esc(name)}">')
        for side, items in sides.items():
            counts = doc["directions"][name]["counts"]
            total, matched = (counts["total1"], counts["matched1"]) if side == "source" else (counts["total2"],
                                                                                              counts["matched2"])
            weighed = doc["settings"].get("edge_weights", "uniform") != "uniform"
            of = f"weighing {total - matched:g} of {total:g}" if weighed else f"of {total}"
            out.append(f'<h3>{_esc(name)}: {len(items)} {side} {kind} unmatched, {of}</h3>' if weighed else
                       f'<h3>{_esc(name)}: {len(items)} {of} {side} {kind} unmatched</h3>')
            if not items:
                continue
            out.append(f'<ol class="miss-list" data-side="{side}">')
            for m in items:
                where = f'<span class="where">sentence {m.sentence + 1}</span> ' if many else ""
                out.append(f'<li class="miss" data-side="{side}" data-{m.kind}="{m.index}" '
                           f'data-sentence="{m.sentence}" tabindex="0">{where}{_esc(m.name)}: '
                           f'<span class="reason">{_esc(m.reason)}</span></li>')
            out.append("</ol>")
        out.append("</div>")
    out.append("</section>")
    return "\n".join(out)


def _resource(name: str) -> str:
    return files("semsim.explain").joinpath(name).read_text(encoding="utf-8")


def render_html(doc: dict[str, Any]) -> str:
    """The page for an explanation document (from :func:`semsim.explain.explain`)."""
    g1, g2 = doc["graphs"]["source"], doc["graphs"]["correction"]
    text = [" ".join(t["text"] for t in g["tokens"]) for g in (g1, g2)]
    data = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
    data = data.replace("</", "<\\/")  # the JSON sits in a <script>; "</script>" must not end it
    note = f'<p class="note">{_esc(doc["note"])}</p>' if doc.get("note") else ""
    title = f"semsim explain: {g1['id'] or 'source'} vs {g2['id'] or 'correction'}"
    blocks_ = blocks(doc)
    sentences = first_sentences(doc, blocks_)
    by_dir = {name: misses(doc, name, sentences) for name in doc["directions"]}
    values = {
        "title": _esc(title),
        "css": _resource("explain.css"),
        "js": _resource("explain.js"),
        "source_text": _esc(text[0]),
        "correction_text": _esc(text[1]),
        "scores": _scores_table(doc),
        "note": note,
        "signature": _esc(doc["signature"]),
        "nav": _sentence_nav(doc, blocks_, by_dir),
        "canvas": _canvas(doc, blocks_),
        "unmatched": _unmatched(doc, by_dir, len(blocks_) > 1),
        "data": data,
    }
    # one pass: text put into the page is never searched for placeholders again
    return re.sub(r"\{\{(\w+)\}\}", lambda m: values[m[1]], _resource("template.html"))


# -- text -----------------------------------------------------------------------------------------
def _edge_name(g: dict[str, Any], i: int, limit: int = 48) -> str:
    """``parent -LABEL-> child "text"``, the text cut short: an edge into a sentence would
    otherwise quote the whole sentence."""
    e = g["edges"][i]
    child = g["units"][e["child"]]
    text = f' "{_short(child["text"], limit)}"' if child["text"] else ""
    return f'{g["units"][e["parent"]]["id"]} -{"/".join(e["labels"])}-> {child["id"]}{text}'


def _unit_name(g: dict[str, Any], u: int, limit: int = 48) -> str:
    unit = g["units"][u]
    return f'{unit["id"]} "{_short(unit["text"], limit)}"'


def _share(counts: tuple[int, int], limit: int) -> tuple[int, int]:
    """How many of each side's misses to print: ``limit`` in all, split evenly, a side with
    fewer leaving the rest to the other, so that one side's misses never hide the other's."""
    a = min(counts[0], max(limit // 2, limit - counts[1]))
    return a, min(counts[1], limit - a)


def _aligned_note(d: dict[str, Any]) -> str:
    """Which units choose in this direction: under ``r->s`` the correction's do, which the
    reasons (``no source unit chose it``) only make sense with."""
    if d["from"] not in SIDES:
        return ""
    return f"  ({d['from']} units aligned onto {d['to']} units)"


def _wrap(line: str, width: int, indent: str) -> list[str]:
    """``line`` broken at spaces to ``width`` columns, continuation lines indented; a token
    longer than the width (a signature, a URL) stays whole on its own line."""
    return textwrap.wrap(line, width, subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False, drop_whitespace=True) or [line]


def summary(doc: dict[str, Any], limit: int = 12, width: int | None = None) -> str:
    """A few lines for a terminal: scores per direction and what did not match, wrapped to
    ``width`` columns (default: the terminal's, else 100)."""
    width = max(width or shutil.get_terminal_size((TEXT_WIDTH, 24)).columns, 40)
    g1, g2 = doc["graphs"]["source"], doc["graphs"]["correction"]
    blocks_ = blocks(doc)
    many = len(blocks_) > 1
    sentences = first_sentences(doc, blocks_)
    lines = _wrap(f"source:     {' '.join(t['text'] for t in g1['tokens'])}", width, " " * 12)
    lines += _wrap(f"correction: {' '.join(t['text'] for t in g2['tokens'])}", width, " " * 12)
    lines += _wrap("tokens aligned: " + (" ".join(f"{g1['tokens'][a]['text']}={g2['tokens'][b]['text']}"
                                                   for a, b in doc["token_alignment"]) or "none"), width, " " * 16)
    for name, d in doc["directions"].items():
        c = d["counts"]
        lines += _wrap(f"{name}: P {c['precision']:.4f} ({c['matched1']}/{c['total1']})  "
                       f"R {c['recall']:.4f} ({c['matched2']}/{c['total2']})  F {c['f']:.4f}{_aligned_note(d)}",
                       width, "  ")
        sides = misses(doc, name, sentences)
        kind = "edge" if "edges" in d else "unit"
        shown = _share((len(sides["source"]), len(sides["correction"])), limit)
        for (side, items), k in zip(sides.items(), shown):
            for m in items[:k]:
                where = f" (sentence {m.sentence + 1})" if many else ""
                lines += _wrap(f"  unmatched {side} {kind} {m.name}{where}: {m.reason}", width, "      ")
        left = [f"{len(items) - k} more unmatched {side} {kind}s" for (side, items), k in zip(sides.items(), shown)
                if len(items) > k]
        if left:
            lines += _wrap(f"  ... and {', '.join(left)} (see --json or --html)", width, "      ")
    if doc.get("note"):
        lines += _wrap(f"note: {doc['note']}", width, "  ")
    lines += _wrap(f"USim F {doc['score']['f']:.4f}  [{doc['signature']}]", width, "  ")
    return "\n".join(lines)
