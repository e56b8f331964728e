"""One sentence's drawing as SVG, from the positions :mod:`.layout` gives.

Every state the page can show is written into the SVG as classes and data attributes: the
first direction's colours, and one layer of node-alignment links per direction. The page's
script (``explain.js``) then only switches classes, so the drawing is computed once, here,
and the same document always gives the same bytes.
"""

from __future__ import annotations

import html
import itertools
from collections.abc import Mapping, Sequence

from .layout import LABEL_AT, LAYER_H, Block, Placement, R, label_width, place
from .legend import edge_title
from .misses import short
from .schema import ExplanationDoc, GraphDoc, Side


def fmt(v: float) -> str:
    """A coordinate as the SVG gives it: one decimal."""
    return f"{v:.1f}"


def esc(s: object) -> str:
    """``s`` as HTML text or attribute value."""
    return html.escape(str(s), quote=True)


def initial_direction(doc: ExplanationDoc) -> str:
    """The direction the page shows first: the document's first."""
    return next(iter(doc["directions"]))


def unit_state(doc: ExplanationDoc, direction: str, side: Side, u: int) -> str:
    """``a`` aligned/matched, ``x`` not, ``n`` outside the comparison (the CSS classes)."""
    row = doc["directions"][direction]["units"][side][u]
    if doc["detail"] == "legacy":
        return "n" if not row["compared"] else "a" if row["matched"] else "x"
    if not doc["graphs"][side]["units"][u]["yield"]:
        return "n"
    return "a" if row["aligned"] else "x"


def edge_state(doc: ExplanationDoc, direction: str, side: Side, i: int) -> str:
    """``m`` matched, ``u`` unmatched, ``n`` not compared (or no edge detail: legacy)."""
    d = doc["directions"][direction]
    if "edges" not in d:
        return "n"
    row = d["edges"][side][i]
    return "n" if not row["compared"] else "m" if row["matched"] else "u"


def aligned_text(doc: ExplanationDoc, direction: str, side: Side, u: int) -> str:
    """The "aligned to" note beside a unit of the side being aligned (Figure 1's numbers)."""
    d = doc["directions"][direction]
    if d["from"] not in (side, "both"):
        return ""
    aligned = d["units"][side][u]["aligned"]
    return "→" + ",".join(str(v) for v in aligned) if aligned else ""


def _is_elbow(x1: float, y1: float, x2: float, y2: float) -> bool:
    return abs(x2 - x1) > 3 * abs(y2 - y1)


def _elbow_heights(g: GraphDoc, pos: Placement) -> dict[int, float]:
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


def _free_spot(x1: float, y1: float, x2: float, y2: float, width: float,
               placed: Sequence[tuple[float, float, float]]) -> tuple[float, float]:
    """Where a straight edge's label goes: at ``LABEL_AT``, nearer the child, where siblings
    spread; but where a label drawn already covers that spot (a unit with two parents: both
    edges end at it, and their labels met, "ARG" over "ARGM-DIR"), the first spot further up
    the edge that covers none."""
    for t in (LABEL_AT, 0.45, 0.3, 0.8):
        x, y = x1 + t * (x2 - x1), y1 + t * (y2 - y1)
        if not any(abs(y - py) < 13 and abs(x - px) < (width + w) / 2 for px, py, w in placed):
            return x, y
    return x1 + LABEL_AT * (x2 - x1), y1 + LABEL_AT * (y2 - y1)


def _graph_svg(doc: ExplanationDoc, side: Side, pos: Placement, flip: bool, names: Mapping[str, str]) -> list[str]:
    """One graph's part: anchor lines, edges (named in a tooltip by ``names``, the labels'
    names), units, tokens and the row's caption."""
    g = doc["graphs"][side]
    first = initial_direction(doc)
    out = [f'<g class="graph" data-side="{side}">']
    tok_edge = pos.token_y + (12 if flip else -12)
    out.append('<g class="anchors">')
    for u in pos.unit_x:
        for t in g["units"][u]["anchors"]:
            if t in pos.token_x:
                out.append(f'<line class="anchor" x1="{fmt(pos.unit_x[u])}" y1="{fmt(pos.unit_y[u])}" '
                           f'x2="{fmt(pos.token_x[t])}" y2="{fmt(tok_edge)}"/>')
    out.append("</g>")
    out.append('<g class="edges">')
    elbow_at = _elbow_heights(g, pos)
    placed: list[tuple[float, float, float]] = []  # (x, y, width) of each edge label drawn so far
    for i in pos.edges:
        e = g["edges"][i]
        x1, y1 = pos.unit_x[e["parent"]], pos.unit_y[e["parent"]]
        x2, y2 = pos.unit_x[e["child"]], pos.unit_y[e["child"]]
        label = "/".join(e["labels"])
        state = edge_state(doc, first, side, i)
        cls = f"edge {state}" + (" remote" if e["remote"] else "")
        if e["remote"]:  # bend remote edges aside so that they do not hide primary ones
            cx, cy = (x1 + x2) / 2 + 0.25 * abs(y2 - y1) + 24, (y1 + y2) / 2
            shape = f'<path d="M{fmt(x1)},{fmt(y1)} Q{fmt(cx)},{fmt(cy)} {fmt(x2)},{fmt(y2)}"/>'
            lx, ly = (x1 + 2 * cx + x2) / 4, (y1 + 2 * cy + y2) / 4
        elif _is_elbow(x1, y1, x2, y2):  # a long edge (e.g. root to a far sentence): elbow, as org
            ym = y1 + (LAYER_H if y2 > y1 else -LAYER_H) * elbow_at[e["parent"]]  # charts do, below the parent
            shape = f'<path d="M{fmt(x1)},{fmt(y1)} V{fmt(ym)} H{fmt(x2)} V{fmt(y2)}"/>'
            # the label on the horizontal run, just before the corner: two elbows into one
            # child share the vertical run, but not the horizontal one
            lx, ly = x2 - (1 if x2 > x1 else -1) * (label_width(label) / 2 + 4), ym
        else:
            shape = f'<line x1="{fmt(x1)}" y1="{fmt(y1)}" x2="{fmt(x2)}" y2="{fmt(y2)}"/>'
            lx, ly = _free_spot(x1, y1, x2, y2, label_width(label), placed)
        lcls = "elabel"
        if abs(lx - x2) < 4 and not e["remote"]:  # beside a vertical edge, not across it (nor the note)
            lx, lcls = lx + 5, "elabel side"
        placed.append((lx, ly, label_width(label)))
        tip = edge_title(e["labels"], names)
        out.append(f'<g class="{cls}" data-side="{side}" data-edge="{i}">'
                   f'{f"<title>{esc(tip)}</title>" if tip else ""}{shape}'
                   f'<text class="{lcls}" x="{fmt(lx)}" y="{fmt(ly)}">{esc(label)}</text></g>')
    out.append("</g>")
    out.append('<g class="units">')
    for u in pos.unit_x:
        unit = g["units"][u]
        x, y = pos.unit_x[u], pos.unit_y[u]
        tip = f"{side} unit {u}: {unit['id']}" + (f" [{unit['kind']}]" if unit["kind"] else "") \
            + (f" {unit['label']}" if unit["label"] else "") + (f" “{short(unit['text'])}”" if unit["text"] else "")
        note_y = y + (-R - 6 if flip else R + 11)  # on the children's side, away from the incoming edge label
        out.append(f'<g class="unit {unit_state(doc, first, side, u)}" data-side="{side}" data-unit="{u}" '
                   f'tabindex="0"><title>{esc(tip)}</title>'
                   f'<circle cx="{fmt(x)}" cy="{fmt(y)}" r="{fmt(R)}"/>'
                   f'<text class="idx" x="{fmt(x)}" y="{fmt(y)}">{u}</text>'
                   f'<text class="al" x="{fmt(x)}" y="{fmt(note_y)}">'
                   f'{esc(aligned_text(doc, first, side, u))}</text></g>')
    out.append("</g>")
    aligned = {p[0 if side == "source" else 1] for p in doc["token_alignment"]}
    out.append('<g class="tokens">')
    for t in pos.token_x:
        tok = g["tokens"][t]
        cls = "token" + (" punct" if tok["punct"] else "") + ("" if t in aligned else " unaligned")
        x, w = pos.token_x[t], pos.token_w[t]
        out.append(f'<g class="{cls}" data-side="{side}" data-token="{t}">'
                   f'<rect x="{fmt(x - w / 2)}" y="{fmt(pos.token_y - 11)}" width="{fmt(w)}" height="22" rx="4"/>'
                   f'<text x="{fmt(x)}" y="{fmt(pos.token_y)}">{esc(tok["text"])}</text></g>')
    out.append("</g>")
    out.append(f'<text class="caption" x="8" y="{fmt(pos.token_y)}">{side}</text>')
    out.append("</g>")
    return out


def render_svg(doc: ExplanationDoc, block: Block, names: Mapping[str, str] | None = None) -> str:
    """The drawing of one sentence: both graphs' parts in it, the token alignment within it
    and the node alignment between units drawn in it; ``names``: the labels' names, for the
    edges' tooltips."""
    s1, s2, width, height = place(doc, block)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="drawing" width="{fmt(width)}" height="{fmt(height)}" '
           f'viewBox="0 0 {fmt(width)} {fmt(height)}" role="img" '
           f'aria-label="source and correction graphs, sentence {block.index + 1}">']
    out.append('<g class="token-alignment">')
    moved = {(a, b) for a, b in doc.get("moved_tokens", [])}
    for a, b in doc["token_alignment"]:
        if a in s1.token_x and b in s2.token_x:
            mark = ' data-moved="1"' if (a, b) in moved else ""  # crosses other pairs (moved_tokens)
            out.append(f'<line class="talign"{mark} data-source="{a}" data-correction="{b}" x1="{fmt(s1.token_x[a])}" '
                       f'y1="{fmt(s1.token_y + 12)}" x2="{fmt(s2.token_x[b])}" y2="{fmt(s2.token_y - 12)}"/>')
    out.append("</g>")
    first = initial_direction(doc)
    for name, d in doc["directions"].items():  # node alignment, one layer per direction
        on = " on" if name == first else ""
        out.append(f'<g class="links{on}" data-dir="{esc(name)}">')
        for p in d["unit_alignment"]:
            v, u = p["source"], p["correction"]
            if v not in s1.unit_x or u not in s2.unit_x:
                continue
            x1, y1, x2, y2 = s1.unit_x[v], s1.unit_y[v], s2.unit_x[u], s2.unit_y[u]
            out.append(f'<path class="nlink" data-source="{v}" data-correction="{u}" '
                       f'd="M{fmt(x1)},{fmt(y1)} C{fmt(x1)},{fmt(y1 + 80)} '
                       f'{fmt(x2)},{fmt(y2 - 80)} {fmt(x2)},{fmt(y2)}"/>')
        out.append("</g>")
    out += _graph_svg(doc, "source", s1, flip=False, names=names or {})
    out += _graph_svg(doc, "correction", s2, flip=True, names=names or {})
    out.append("</svg>")
    return "\n".join(out)
