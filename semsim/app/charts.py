"""Charts as inline SVG, and the self-contained page they go on: ``score --html`` and
``meta-eval --html`` (:mod:`.systems_html`, :mod:`.metaeval.page`).

Why hand-written SVG and not matplotlib or a JavaScript library: a page must open offline and
be archived as one file, as the explanation pages are (:mod:`.explain.page`), and the same
numbers must give the same bytes; matplotlib is an optional extra (``plot``) and embeds a
creation date, and a charting script would be an external asset or 200 KB of inline code. The
charts here are few and plain: an interval per row, a heat map, histograms and a scatter, each
an ``<svg>`` with ``<title>`` tooltips (no script at all). Every number a chart draws is also
written in a table on the page, as the TSV rendering writes it.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

from .report import num

#: The page's style: one column, readable tables, the charts' colours.
CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 0 auto;
  max-width: 1000px; padding: 8px 20px 40px; color: #222; }
h1 { font-size: 20px; margin: 12px 0 4px; } h2 { font-size: 16px; margin: 22px 0 6px; }
p.note, p.sig { color: #555; font-size: 12px; } p.sig { word-break: break-all; }
table.data { border-collapse: collapse; font-size: 13px; margin: 6px 0; }
table.data th, table.data td { padding: 2px 8px; text-align: right; border-bottom: 1px solid #e4e4e4; }
table.data th:first-child, table.data td:first-child, table.data td.text { text-align: left; }
table.data td.text { max-width: 360px; }
svg { display: block; margin: 6px 0; font-size: 11px; }
svg text { fill: #333; } svg .axis { stroke: #999; stroke-width: 1; } svg .grid { stroke: #eee; }
svg .ci { stroke: #2563eb; stroke-width: 2; } svg .mean { fill: #2563eb; }
svg .bar { fill: #60a5fa; } svg .dot { fill: #2563eb; fill-opacity: 0.45; }
svg .cell { stroke: #fff; } svg .sig { font-weight: 700; } svg text.light { fill: #fff; }
figure.measure { display: inline-block; vertical-align: top; margin: 6px 18px 6px 0; }
figure.measure figcaption { font-size: 13px; }
"""


def esc(s: object) -> str:
    """``s`` as HTML text or attribute value."""
    return html.escape(str(s), quote=True)


def page(title: str, body: Sequence[str]) -> str:
    """A whole HTML page: ``body``'s parts inline, the style inline, no script, no link."""
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{esc(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<h1>{esc(title)}</h1>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")


def table(head: Sequence[str], rows: Sequence[Sequence[str]], *, cls: str = "data", id: str = "",
          text_columns: Sequence[int] = ()) -> str:
    """A table of cells already formatted (HTML-escaped here); each cell's ``data-col`` is its
    column's heading, so that a test reads the page's numbers by name."""
    ident = f' id="{esc(id)}"' if id else ""
    out = [f'<table class="{esc(cls)}"{ident}><tr>' + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr>"]
    for row in rows:
        out.append("<tr>" + "".join(
            f'<td data-col="{esc(h)}"{_text_class(k in text_columns)}>{c}</td>'
            for k, (h, c) in enumerate(zip(head, row))) + "</tr>")
    return "".join(out) + "</table>"


def _text_class(text: bool) -> str:
    return ' class="text"' if text else ""


def _x(value: float, low: float, high: float, left: float, width: float) -> float:
    return left + (value - low) / (high - low or 1.0) * width


def _ticks(low: float, high: float, n: int = 5) -> list[float]:
    return [low + (high - low) * k / n for k in range(n + 1)]


def intervals(rows: Sequence[tuple[str, float, float | None, float | None]], *, id: str = "",
              label: str = "mean F") -> str:
    """A dot per row (its value) with a line across its interval (low, high; None: no interval),
    one row under another in the order given, on an axis over all of them."""
    values = [v for _, m, lo, hi in rows for v in (m, lo, hi) if v is not None and math.isfinite(v)]
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    pad = (high - low) * 0.05 or 0.05
    low, high = max(0.0, low - pad) if low >= 0 else low - pad, min(1.0, high + pad) if high <= 1 else high + pad
    left, width, step = 190.0, 420.0, 24
    height = 30 + step * len(rows)
    out = [f'<svg{_id(id)} width="660" height="{height + 36}" '
           f'role="img" aria-label="{esc(label)} with intervals">']
    for t in _ticks(low, high):
        x = _x(t, low, high, left, width)
        out.append(f'<line class="grid" x1="{x:.1f}" y1="10" x2="{x:.1f}" y2="{height}"/>'
                   f'<text x="{x:.1f}" y="{height + 14}" text-anchor="middle">{t:.3f}</text>')
    for k, (name, mean, lo, hi) in enumerate(rows):
        y = 26 + step * k
        tip = f"{name}: {num(mean)}" + (f" [{num(lo)}, {num(hi)}]" if lo is not None and hi is not None else "")
        out.append(f'<g class="row" data-name="{esc(name)}"><title>{esc(tip)}</title>'
                   f'<text x="{left - 8}" y="{y + 4}" text-anchor="end">{esc(_short(name))}</text>')
        if lo is not None and hi is not None:
            out.append(f'<line class="ci" x1="{_x(lo, low, high, left, width):.1f}" y1="{y}" '
                       f'x2="{_x(hi, low, high, left, width):.1f}" y2="{y}"/>')
        out.append(f'<circle class="mean" cx="{_x(mean, low, high, left, width):.1f}" cy="{y}" r="4.5"/></g>')
    out.append(f'<text x="{left + width / 2}" y="{height + 30}" text-anchor="middle">{esc(label)}</text></svg>')
    return "".join(out)


def _id(id: str) -> str:
    return f' id="{esc(id)}"' if id else ""


def _short(name: str, n: int = 28) -> str:
    return name if len(name) <= n else name[:n - 1] + "…"


def diverging(value: float, scale: float) -> str:
    """A colour for ``value`` in [-scale, scale]: blue above 0, red below, white at 0."""
    t = max(-1.0, min(1.0, value / scale)) if scale > 0 else 0.0
    target = (37, 99, 235) if t > 0 else (220, 38, 38)
    r, g, b = (round(255 + (c - 255) * abs(t)) for c in target)
    return f"#{r:02x}{g:02x}{b:02x}"


def heatmap(names: Sequence[str], cells: dict[tuple[int, int], tuple[float, str, str, bool]], *, id: str = "",
            scale: float | None = None) -> str:
    """A square grid over ``names`` (rows and columns in the same order): ``cells[i, j]`` is
    (the value coloured, the text written in the cell, its tooltip, whether it is marked
    significant: bold); cells missing stay blank."""
    size = 44 if len(names) <= 12 else max(16, 520 // max(1, len(names)))
    left, top = 200, 16 + 5.2 * max((len(_short(n)) for n in names), default=0)  # the column names, slanted
    scale = scale if scale is not None else max((abs(v) for v, *_ in cells.values()), default=0.0)
    width, height = left + size * len(names) + 10, round(top + size * len(names) + 10)
    out = [f'<svg{_id(id)} width="{width}" height="{height}" role="img" '
           'aria-label="paired tests">']
    for k, name in enumerate(names):
        y = top + size * k + size / 2 + 4
        x = left + size * k + size / 2
        out.append(f'<text x="{left - 6}" y="{y:.1f}" text-anchor="end">{esc(_short(name))}</text>'
                   f'<text transform="translate({x:.1f},{top - 6:.1f}) rotate(-50)">{esc(_short(name))}</text>')
    for (i, j), (value, text, tip, marked) in sorted(cells.items()):
        x, y = left + size * j, round(top + size * i, 1)
        out.append(f'<g class="pair" data-row="{esc(names[i])}" data-column="{esc(names[j])}"><title>{esc(tip)}</title>'
                   f'<rect class="cell" x="{x}" y="{y}" width="{size}" height="{size}" '
                   f'fill="{diverging(value, scale)}"/>'
                   + (f'<text x="{x + size / 2:.1f}" y="{y + size / 2 + 4:.1f}" text-anchor="middle"'
                      f'{_classes(marked, scale > 0 and abs(value) > 0.6 * scale)}>{esc(text)}</text>'
                      if size >= 36 else "") + "</g>")
    out.append("</svg>")
    return "".join(out)


def _classes(marked: bool, dark: bool) -> str:
    """A cell text's classes: bold where significant, white on a dark cell."""
    names = [n for n, on in (("sig", marked), ("light", dark)) if on]
    return f' class="{" ".join(names)}"' if names else ""


def histograms(series: Sequence[tuple[str, Sequence[float]]], *, bins: int = 20, low: float = 0.0,
               high: float = 1.0, id: str = "") -> str:
    """Small multiples: per series, its values' histogram over [low, high] in ``bins`` equal
    bins (the last one closed), each bar's height its share of the series."""
    left, width, row = 190.0, 420.0, 46
    out = [f'<svg{_id(id)} width="660" '
           f'height="{row * len(series) + 34}" role="img" aria-label="score distributions">']
    for k, (name, values) in enumerate(series):
        counts = [0] * bins
        for v in values:
            counts[min(bins - 1, max(0, int((v - low) / (high - low) * bins)))] += 1
        base, top = 8 + row * (k + 1) - 6, max(counts, default=0) or 1
        out.append(f'<g class="dist" data-name="{esc(name)}" data-n="{len(values)}">'
                   f'<text x="{left - 8}" y="{base - 12}" text-anchor="end">{esc(_short(name))}</text>'
                   f'<line class="axis" x1="{left}" y1="{base}" x2="{left + width}" y2="{base}"/>')
        for b, c in enumerate(counts):
            if c:
                h = 34 * c / top
                lo_b, hi_b = low + (high - low) * b / bins, low + (high - low) * (b + 1) / bins
                out.append(f'<rect class="bar" x="{left + width * b / bins + 0.5:.1f}" y="{base - h:.1f}" '
                           f'width="{width / bins - 1:.1f}" height="{h:.1f}"><title>{esc(name)}: {c} lines in '
                           f'[{lo_b:.2f}, {hi_b:.2f}{"]" if b == bins - 1 else ")"}</title></rect>')
        out.append("</g>")
    y = 8 + row * len(series)
    for t in _ticks(low, high):
        out.append(f'<text x="{_x(t, low, high, left, width):.1f}" y="{y + 12}" text-anchor="middle">{t:.1f}</text>')
    out.append("</svg>")
    return "".join(out)


def _padded(values: Sequence[float]) -> tuple[float, float]:
    """The values' range and 3% more each side (no dot on an axis); (0, 1) for none."""
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    pad = (high - low) * 0.03 or 0.5
    return low - pad, high + pad


def scatter(xs: Sequence[float], ys: Sequence[float], *, x_label: str, y_label: str, id: str = "",
            tips: Sequence[str] = ()) -> str:
    """A dot per (x, y), on axes over the data's range, each dot's tooltip ``tips[k]``."""
    left, top, width, height = 56.0, 12.0, 300.0, 220.0
    x_low, x_high = _padded(xs)
    y_low, y_high = _padded(ys)
    out = [f'<svg{_id(id)} width="{left + width + 20:.0f}" '
           f'height="{top + height + 44:.0f}" role="img" aria-label="{esc(x_label)} against {esc(y_label)}">'
           f'<line class="axis" x1="{left}" y1="{top + height}" x2="{left + width}" y2="{top + height}"/>'
           f'<line class="axis" x1="{left}" y1="{top}" x2="{left}" y2="{top + height}"/>']
    for t in _ticks(x_low, x_high, 4):
        out.append(f'<text x="{_x(t, x_low, x_high, left, width):.1f}" y="{top + height + 14}" '
                   f'text-anchor="middle">{t:.2f}</text>')
    for t in _ticks(y_low, y_high, 4):
        y = top + height - (t - y_low) / (y_high - y_low or 1.0) * height
        out.append(f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end">{t:.2f}</text>')
    for k, (x, y) in enumerate(zip(xs, ys)):
        cx = _x(x, x_low, x_high, left, width)
        cy = top + height - (y - y_low) / (y_high - y_low or 1.0) * height
        tip = f"<title>{esc(tips[k])}</title>" if k < len(tips) else ""
        out.append(f'<circle class="dot" cx="{cx:.1f}" cy="{cy:.1f}" r="2.5">{tip}</circle>')
    out.append(f'<text x="{left + width / 2}" y="{top + height + 32}" text-anchor="middle">{esc(x_label)}</text>'
               f'<text transform="translate(12,{top + height / 2}) rotate(-90)" text-anchor="middle">'
               f'{esc(y_label)}</text></svg>')
    return "".join(out)
