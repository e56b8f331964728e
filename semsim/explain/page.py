"""The explanation as one self-contained HTML page: scores, a drawing per sentence (:mod:`.svg`),
and the list of unmatched edges, with the document itself embedded for ``explain.js``.

Everything is inline (CSS, script, SVG, data), so the page opens offline and can be archived
as is; it depends only on the document, so the same input gives a byte-identical page.
"""

from __future__ import annotations

import json
import re
from importlib.resources import files

from .layout import Block, blocks, first_sentences
from .misses import Miss, misses
from .schema import ExplanationDoc, Side
from .svg import esc, initial_direction, render_svg
from .text_summary import leaves_note, paraphrase_note


def _num(v: float) -> str:
    return f"{v:.4f}"


def _scores_table(doc: ExplanationDoc) -> str:
    """P, R and F per direction (a radio button each: the direction shown), then USim's."""
    first = initial_direction(doc)
    rows = []
    for name, d in doc["directions"].items():
        c = d["counts"]
        checked = " checked" if name == first else ""
        rows.append(
            f'<tr class="dir-row{" on" if name == first else ""}" data-dir="{esc(name)}">'
            f'<td><label><input type="radio" name="dir" value="{esc(name)}"{checked}> {esc(name)}</label></td>'
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


def _sentence_label(doc: ExplanationDoc, block: Block, words: int = 6) -> str:
    tokens = doc["graphs"]["source"]["tokens"][block.tokens[0].start:block.tokens[0].stop] \
        or doc["graphs"]["correction"]["tokens"][block.tokens[1].start:block.tokens[1].stop]
    text = " ".join(t["text"] for t in tokens[:words]) + (" …" if len(tokens) > words else "")
    return f"{block.index + 1}: {text}"


def _count_note(n: int, unit: str) -> str:
    """What the sentence menu says beside a sentence (``explain.js`` writes the same)."""
    return f" — {n} unmatched {unit}{'' if n == 1 else 's'}" if n else ""


def _sentence_nav(doc: ExplanationDoc, blocks_: list[Block], by_dir: dict[str, dict[Side, list[Miss]]]) -> str:
    """Previous/next buttons, a menu of the sentences (with the unmatched count of the
    direction shown) and the switch to all sentences at once; nothing for one sentence."""
    if len(blocks_) < 2:
        return ""
    first = by_dir[initial_direction(doc)]
    kind = "unit" if doc["detail"] == "legacy" else "edge"
    counts = [0] * len(blocks_)
    for m in (*first["source"], *first["correction"]):
        counts[m.sentence] += 1
    options = "".join(
        f'<option value="{b.index}" data-label="{esc(_sentence_label(doc, b))}"{" selected" if not b.index else ""}>'
        f'{esc(_sentence_label(doc, b) + _count_note(counts[b.index], kind))}</option>' for b in blocks_)
    return (f'<nav id="sentence-nav" data-kind="{kind}"><button type="button" id="prev-sentence" disabled>'
            f'&#8249; previous</button><select id="sentence-select" aria-label="sentence">{options}</select>'
            f'<button type="button" id="next-sentence">next &#8250;</button>'
            f'<span id="sentence-count">sentence 1 of {len(blocks_)}</span>'
            f'<label><input type="checkbox" id="all-sentences"> all sentences</label></nav>')


def _tokens_text(doc: ExplanationDoc, side: Side, span: range) -> str:
    return " ".join(t["text"] for t in doc["graphs"][side]["tokens"][span.start:span.stop])


def _canvas(doc: ExplanationDoc, blocks_: list[Block]) -> str:
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
                       f'<span class="cap">source</span> {esc(_tokens_text(doc, "source", b.tokens[0]))}<br>'
                       f'<span class="cap">correction</span> {esc(_tokens_text(doc, "correction", b.tokens[1]))}</p>')
        out.append(f'<div class="scroll">{render_svg(doc, b)}</div></section>')
    out.append("</div>")
    return "\n".join(out)


def _unmatched(doc: ExplanationDoc, by_dir: dict[str, dict[Side, list[Miss]]], many: bool) -> str:
    """The list of what each direction left unmatched, per side; an item leads to its
    sentence and highlights it (``explain.js``)."""
    first = initial_direction(doc)
    kind = "units" if doc["detail"] == "legacy" else "edges"
    out = [f'<section id="unmatched"><h2>Unmatched {kind}</h2>']
    for name, sides in by_dir.items():
        out.append(f'<div class="misses{" on" if name == first else ""}" data-dir="{esc(name)}">')
        for side, items in sides.items():
            counts = doc["directions"][name]["counts"]
            total, matched = (counts["total1"], counts["matched1"]) if side == "source" else (counts["total2"],
                                                                                              counts["matched2"])
            if leaves := doc.get("leaves"):  # the counts hold the leaf edges too; this lists edges
                total -= leaves["weight"] * leaves[side]
                matched -= leaves["weight"] * leaves["aligned"]
            weighed = doc["settings"].get("edge_weights", "uniform") != "uniform"
            of = f"weighing {total - matched:g} of {total:g}" if weighed else f"of {total}"
            out.append(f'<h3>{esc(name)}: {len(items)} {side} {kind} unmatched, {of}</h3>' if weighed else
                       f'<h3>{esc(name)}: {len(items)} {of} {side} {kind} unmatched</h3>')
            if not items:
                continue
            out.append(f'<ol class="miss-list" data-side="{side}">')
            for m in items:
                where = f'<span class="where">sentence {m.sentence + 1}</span> ' if many else ""
                out.append(f'<li class="miss" data-side="{side}" data-{m.kind}="{m.index}" '
                           f'data-sentence="{m.sentence}" tabindex="0">{where}{esc(m.name)}: '
                           f'<span class="reason">{esc(m.reason)}</span></li>')
            out.append("</ol>")
        out.append("</div>")
    if leaves := doc.get("leaves"):
        note = leaves_note(leaves, "token_credits" in doc)
        out.append(f"<p>{esc(note)}, counted in every direction's precision and recall.</p>")
    if note := paraphrase_note(doc):
        out.append(f"<p>{esc(note)}.</p>")
    out.append("</section>")
    return "\n".join(out)


def _resource(name: str) -> str:
    return files("semsim.explain").joinpath(name).read_text(encoding="utf-8")


def render_html(doc: ExplanationDoc) -> str:
    """The page for an explanation document (from :func:`semsim.explain.explain`)."""
    g1, g2 = doc["graphs"]["source"], doc["graphs"]["correction"]
    text = [" ".join(t["text"] for t in g["tokens"]) for g in (g1, g2)]
    data = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
    # the JSON sits in a <script>: with <, > and & as JSON escapes no text can end the block
    # ("</script>") or enter the script-data double-escaped state ("<!--" then "<script")
    data = data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    note = f'<p class="note">{esc(doc["note"])}</p>' if doc.get("note") else ""
    title = f"semsim explain: {g1['id'] or 'source'} vs {g2['id'] or 'correction'}"
    blocks_ = blocks(doc)
    sentences = first_sentences(blocks_)
    by_dir = {name: misses(doc, name, sentences) for name in doc["directions"]}
    values = {
        "title": esc(title),
        "css": _resource("explain.css"),
        "js": _resource("explain.js"),
        "source_text": esc(text[0]),
        "correction_text": esc(text[1]),
        "scores": _scores_table(doc),
        "note": note,
        "signature": esc(doc["signature"]),
        "nav": _sentence_nav(doc, blocks_, by_dir),
        "canvas": _canvas(doc, blocks_),
        "unmatched": _unmatched(doc, by_dir, len(blocks_) > 1),
        "data": data,
    }
    # one pass: text put into the page is never searched for placeholders again
    return re.sub(r"\{\{(\w+)\}\}", lambda m: values[m[1]], _resource("template.html"))
