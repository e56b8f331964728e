"""The explanation as one self-contained HTML page, and as a short text summary.

The page draws the source graph on top and the correction below it, each over its own
token row, with the two token rows facing each other across the token alignment (the
paper's Figure 1: structure of the source on top, of the correction at the bottom, word
alignments between). The correction's graph therefore hangs upside down, root at the
bottom: this keeps every alignment line short, where two upright trees would have the
lines cross the lower tree. Tokens of both texts are placed in one pass so that aligned
tokens share a column where the alignment is monotone, like a diff.

The layout is computed here (layers by height above the tokens, each unit
centred over its primary children and anchored tokens, then pushed apart within its
layer) and written as SVG; ``explain.js`` only switches classes (direction shown,
highlights) using the explanation document embedded in the page. Everything is inline
(no network at view time) and the output depends only on the document, so the same input
gives a byte-identical page.
"""

from __future__ import annotations

import bisect
import html
import itertools
import json
import re
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


def _graph_svg(doc: dict[str, Any], side: str, pos: Side, flip: bool) -> list[str]:
    g = doc["graphs"][side]
    first = _initial(doc)
    out = [f'<g class="graph" id="graph-{side}" data-side="{side}">']
    tok_edge = pos.token_y + (12 if flip else -12)
    out.append('<g class="anchors">')
    for u, unit in enumerate(g["units"]):
        for t in unit["anchors"]:
            out.append(f'<line class="anchor" x1="{_f(pos.unit_x[u])}" y1="{_f(pos.unit_y[u])}" '
                       f'x2="{_f(pos.token_x[t])}" y2="{_f(tok_edge)}"/>')
    out.append("</g>")
    out.append('<g class="edges">')
    for i, e in enumerate(g["edges"]):
        x1, y1 = pos.unit_x[e["parent"]], pos.unit_y[e["parent"]]
        x2, y2 = pos.unit_x[e["child"]], pos.unit_y[e["child"]]
        label = "/".join(e["labels"])
        state = edge_state(doc, first, side, i)
        cls = f"edge {state}" + (" remote" if e["remote"] else "")
        if e["remote"]:  # bend remote edges aside so that they do not hide primary ones
            cx, cy = (x1 + x2) / 2 + 0.25 * abs(y2 - y1) + 24, (y1 + y2) / 2
            shape = f'<path d="M{_f(x1)},{_f(y1)} Q{_f(cx)},{_f(cy)} {_f(x2)},{_f(y2)}"/>'
            lx, ly = (x1 + 2 * cx + x2) / 4, (y1 + 2 * cy + y2) / 4
        elif abs(x2 - x1) > 3 * abs(y2 - y1):  # a long edge (e.g. root to a far sentence): elbow, as
            ym = y1 + (LAYER_H if y2 > y1 else -LAYER_H) / 2  # org charts do, half a layer from the parent
            shape = f'<path d="M{_f(x1)},{_f(y1)} V{_f(ym)} H{_f(x2)} V{_f(y2)}"/>'
            lx, ly = x2, (ym + y2) / 2
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
    for u, unit in enumerate(g["units"]):
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
    for t, tok in enumerate(g["tokens"]):
        cls = "token" + (" punct" if tok["punct"] else "") + ("" if t in aligned else " unaligned")
        x, w = pos.token_x[t], pos.token_w[t]
        out.append(f'<g class="{cls}" data-side="{side}" data-token="{t}">'
                   f'<rect x="{_f(x - w / 2)}" y="{_f(pos.token_y - 11)}" width="{_f(w)}" height="22" rx="4"/>'
                   f'<text x="{_f(x)}" y="{_f(pos.token_y)}">{_esc(tok["text"])}</text></g>')
    out.append("</g>")
    caption_y = pos.token_y
    out.append(f'<text class="caption" x="8" y="{_f(caption_y)}">{side}</text>')
    out.append("</g>")
    return out


def render_svg(doc: dict[str, Any]) -> str:
    s1, s2, width, height = layout(doc)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" id="semsim-svg" width="{_f(width)}" height="{_f(height)}" '
           f'viewBox="0 0 {_f(width)} {_f(height)}" role="img" aria-label="source and correction graphs">']
    out.append('<g class="token-alignment">')
    for a, b in doc["token_alignment"]:
        out.append(f'<line class="talign" data-source="{a}" data-correction="{b}" x1="{_f(s1.token_x[a])}" '
                   f'y1="{_f(s1.token_y + 12)}" x2="{_f(s2.token_x[b])}" y2="{_f(s2.token_y - 12)}"/>')
    out.append("</g>")
    first = _initial(doc)
    for name, d in doc["directions"].items():  # node alignment, one layer per direction
        on = " on" if name == first else ""
        out.append(f'<g class="links{on}" data-dir="{_esc(name)}">')
        for p in d["unit_alignment"]:
            v, u = p["source"], p["correction"]
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
    values = {
        "title": _esc(title),
        "css": _resource("explain.css"),
        "js": _resource("explain.js"),
        "source_text": _esc(text[0]),
        "correction_text": _esc(text[1]),
        "scores": _scores_table(doc),
        "note": note,
        "signature": _esc(doc["signature"]),
        "svg": render_svg(doc),
        "data": data,
    }
    # one pass: text put into the page is never searched for placeholders again
    return re.sub(r"\{\{(\w+)\}\}", lambda m: values[m[1]], _resource("template.html"))


# -- text -----------------------------------------------------------------------------------------
def _edge_name(g: dict[str, Any], i: int) -> str:
    e = g["edges"][i]
    child = g["units"][e["child"]]
    text = f' "{child["text"]}"' if child["text"] else ""
    return f'{g["units"][e["parent"]]["id"]} -{"/".join(e["labels"])}-> {child["id"]}{text}'


def summary(doc: dict[str, Any], limit: int = 12) -> str:
    """A few lines for a terminal: scores per direction and what did not match."""
    g1, g2 = doc["graphs"]["source"], doc["graphs"]["correction"]
    lines = [f"source:     {' '.join(t['text'] for t in g1['tokens'])}",
             f"correction: {' '.join(t['text'] for t in g2['tokens'])}",
             "tokens aligned: " + (" ".join(f"{g1['tokens'][a]['text']}={g2['tokens'][b]['text']}"
                                            for a, b in doc["token_alignment"]) or "none")]
    for name, d in doc["directions"].items():
        c = d["counts"]
        lines.append(f"{name}: P {c['precision']:.4f} ({c['matched1']}/{c['total1']})  "
                     f"R {c['recall']:.4f} ({c['matched2']}/{c['total2']})  F {c['f']:.4f}")
        misses = []
        if "edges" in d:
            for side, g in (("source", g1), ("correction", g2)):
                misses += [f"  unmatched {side} edge {_edge_name(g, i)}: {row['reason']}"
                           for i, row in enumerate(d["edges"][side]) if row["compared"] and not row["matched"]]
        else:
            for side, g in (("source", g1), ("correction", g2)):
                misses += [f"  unmatched {side} unit {g['units'][u]['id']} \"{g['units'][u]['text']}\": {row['reason']}"
                           for u, row in enumerate(d["units"][side]) if row["compared"] and not row["matched"]]
        lines += misses[:limit]
        if len(misses) > limit:
            lines.append(f"  ... and {len(misses) - limit} more (see --json or --html)")
    if doc.get("note"):
        lines.append(f"note: {doc['note']}")
    lines.append(f"USim F {doc['score']['f']:.4f}  [{doc['signature']}]")
    return "\n".join(lines)
