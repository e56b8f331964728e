"""The explanation as one self-contained HTML page: a drawing per sentence (:mod:`.svg`) beside a
panel with the scores, where they were lost, a legend of the labels (:mod:`.legend`) and the
list of unmatched edges, with the document itself embedded for ``explain.js``.

The panel answers first what a reader of a low score asks: did the correction lose content, or
say the same in another structure? It sets the words aligned beside the edges matched, and
sorts what is unmatched by cause (:data:`.misses.CAUSES`), each count leading to its list.

Everything is inline (CSS, script, SVG, data), so the page opens offline and can be archived
as is; it depends only on the document (and the label names of its scheme), so the same input
gives a byte-identical page.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from importlib.resources import files
from typing import Any

from .layout import Block, blocks, first_sentences
from .legend import registered_names, used_labels
from .misses import CAUSES, Miss, misses
from .schema import SIDES, ExplanationDoc, Side
from .svg import esc, initial_direction, render_svg
from .text_summary import count, crossing_note, leaves_note, moved_note, paraphrase_note, restated_note


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
            f'<td class="n">{count(c["matched1"])}/{count(c["total1"])}</td>'
            f'<td class="n">{count(c["matched2"])}/{count(c["total2"])}</td></tr>')
    s = doc["score"]
    rows.append(f'<tr class="total"><td>USim</td><td class="p">{_num(s["precision"])}</td>'
                f'<td class="r">{_num(s["recall"])}</td><td class="f">{_num(s["f"])}</td><td></td><td></td></tr>')
    unit = "units" if doc["detail"] == "legacy" else "edges"
    head = (f'<tr><th rowspan="2">direction</th><th rowspan="2">P</th><th rowspan="2">R</th><th rowspan="2">F</th>'
            f'<th colspan="2" class="group">matched {unit}</th></tr><tr><th>source</th><th>correction</th></tr>')
    return f'<table id="scores">{head}{"".join(rows)}</table>'


def _content_tokens(doc: ExplanationDoc) -> list[tuple[int, int]]:
    """Per side, (content tokens aligned, content tokens): how much of the text has a
    counterpart at all, whatever the graphs make of it."""
    out = []
    for k, side in enumerate(SIDES):
        tokens = doc["graphs"][side]["tokens"]
        aligned = {pair[k] for pair in doc["token_alignment"]}
        content = [t for t, tok in enumerate(tokens) if not tok["punct"]]
        out.append((len(aligned.intersection(content)), len(content)))
    return out


def _verdict(counts: dict[str, int], kind: str, crossing: int = 0) -> str:
    """One sentence on where a direction's misses come from, naming only what the alignments
    did: structure over aligned words, or words the token alignment left out (``crossing``:
    how many of those have a related word left out in the other text that pairing would
    cross the aligned pairs: moved, which an order-keeping alignment cannot pair, not lost)."""
    total, content = sum(counts.values()), counts["words"]
    structure = total - content
    if not total:
        return f"Nothing unmatched: every compared {kind[:-1]} has its match."
    lead = ("Mostly different structure" if structure > content else "Mostly words the token alignment left out"
            if content > structure else "As many misses over different structure as over words left out")
    moved = (f" {crossing} of the words left out have a related word left out in the other text, in crossing "
             "order: moved, which an alignment that keeps word order does not pair." if crossing and content else "")
    return (f"{lead}: {structure} of the {total} unmatched {kind} are over words aligned in both texts, "
            f"{content} over words the token alignment left out.{moved}")


def _crossing_left_out(doc: ExplanationDoc) -> int:
    """How many words the token alignment left out have a related word left out in the other
    text that would cross the aligned pairs (``unaligned_tokens``' ``would_cross``)."""
    return sum(bool(t.get("would_cross")) for side in doc.get("unaligned_tokens", {}).values() for t in side)


def _why(doc: ExplanationDoc, by_dir: dict[str, dict[Side, list[Miss]]]) -> str:
    """Per direction, the words aligned beside the edges (units) matched, and the misses by
    cause, each count a button that shows them in its side's list (``explain.js``; the page
    has no links); then the notes on leaves and paraphrases."""
    first = initial_direction(doc)
    kind = "units" if doc["detail"] == "legacy" else "edges"
    words = _content_tokens(doc)
    out = ['<section id="why"><h2>Lost content or different structure?</h2>']
    for n, (name, sides) in enumerate(by_dir.items()):
        d = doc["directions"][name]
        verdicts = d["edges"] if "edges" in d else d["units"]
        rows = [f'<tr><th>{esc(name)}</th><th>source</th><th>correction</th></tr>',
                '<tr><td>words aligned</td>' + "".join(f'<td>{a} of {t}</td>' for a, t in words) + "</tr>"]
        matched = [(sum(r["matched"] for r in verdicts[side] if r["compared"]),
                    sum(r["compared"] for r in verdicts[side])) for side in SIDES]
        rows.append(f"<tr><td>{kind} matched</td>" + "".join(f"<td>{m} of {t}</td>" for m, t in matched) + "</tr>")
        counts: dict[str, int] = dict.fromkeys(CAUSES, 0)
        for cause, what in CAUSES.items():
            cells = []
            for side in SIDES:
                c = sum(m.cause == cause for m in sides[side])
                counts[cause] += c
                cells.append(f'<td><button type="button" class="to-list" data-list="misses-{n}-{side}" '
                             f'data-cause="{cause}">{c}</button></td>' if c else "<td>0</td>")
            rows.append(f'<tr class="cause-row"><td><span class="cause {cause}">{esc(what)}</span></td>'
                        f'{"".join(cells)}</tr>')
        out.append(f'<div class="why{" on" if name == first else ""}" data-dir="{esc(name)}">'
                   f'<table class="why-table">{"".join(rows)}</table>'
                   f'<p class="verdict">{esc(_verdict(counts, kind, _crossing_left_out(doc)))}</p></div>')
    for note in (moved_note(doc), crossing_note(doc)):
        if note:
            out.append(f'<p class="moved">{esc(note)}.</p>')
    if leaves := doc.get("leaves"):
        note = leaves_note(leaves, "token_credits" in doc)
        out.append(f"<p>{esc(note)}, counted in every direction's precision and recall.</p>")
    if note := paraphrase_note(doc):
        out.append(f"<p>{esc(note)}.</p>")
    if note := restated_note(doc):
        out.append(f"<p>{esc(note)}.</p>")
    out.append("</section>")
    return "\n".join(out)


def _labels(doc: ExplanationDoc, names: Mapping[str, str]) -> str:
    """The legend of the labels on the two graphs' edges, with their names (nothing for graphs
    without edges). ``explain.js`` reads the names from it for its descriptions."""
    used = used_labels(doc, names)
    if not used:
        return ""
    items = "".join(f'<li data-label="{esc(label)}" data-name="{esc(name)}"><b class="lab">{esc(label)}</b> '
                    f'{esc(name)}</li>' for label, name in used)
    scheme = doc["graphs"]["source"]["scheme"]
    return f'<section id="labels"><h2>Labels ({esc(scheme)})</h2><ul class="label-list">{items}</ul></section>'


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


def _canvas(doc: ExplanationDoc, blocks_: list[Block], names: Mapping[str, str]) -> str:
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
        out.append(f'<div class="scroll">{render_svg(doc, b, names)}</div></section>')
    out.append("</div>")
    return "\n".join(out)


def _unmatched_heading(doc: ExplanationDoc, name: str, side: Side, n: int) -> str:
    """``s->r: 3 of 10 source edges unmatched``, counted from the same per-edge (legacy: per-unit)
    verdicts as the "matched" row of the panel, so the two always agree. The direction's
    counts cannot give it: they hold the leaf edges of ``--leaves`` too, graded by credit and
    halved for function words under ``--tokens contextual``. Where edges weigh or earn a
    graded credit, what the compared ones earn of their weight follows, rounded for people."""
    d = doc["directions"][name]
    kind = "units" if doc["detail"] == "legacy" else "edges"
    rows: list[Mapping[str, Any]] = [r for r in (d["edges"] if "edges" in d else d["units"])[side] if r["compared"]]
    head = f"{name}: {n} of {len(rows)} {side} {kind} unmatched"
    weights, credits = any("weight" in r for r in rows), any("credit" in r for r in rows)
    if not (weights or credits):
        return head
    total = sum(r.get("weight", 1.0) for r in rows)
    earned = sum(r.get("weight", 1.0) * r.get("credit", float(r["matched"])) for r in rows)
    by = " and ".join(w for w, used in (("weight", weights), ("credit", credits)) if used)
    return f"{head}; the {len(rows)} {kind} earn {count(earned)} of {count(total)} by {by}"


def _unmatched(doc: ExplanationDoc, by_dir: dict[str, dict[Side, list[Miss]]], many: bool) -> str:
    """The list of what each direction left unmatched, per side; an item leads to its
    sentence and highlights it (``explain.js``)."""
    first = initial_direction(doc)
    kind = "units" if doc["detail"] == "legacy" else "edges"
    out = [f'<section id="unmatched"><h2>Unmatched {kind}</h2>']
    for n, (name, sides) in enumerate(by_dir.items()):
        out.append(f'<div class="misses{" on" if name == first else ""}" data-dir="{esc(name)}">')
        for side, items in sides.items():
            out.append(f"<h3>{esc(_unmatched_heading(doc, name, side, len(items)))}</h3>")
            if not items:
                continue
            out.append(f'<ol class="miss-list" id="misses-{n}-{side}" data-side="{side}">')
            for m in items:
                where = f'<span class="where">sentence {m.sentence + 1}</span> ' if many else ""
                out.append(f'<li class="miss" data-side="{side}" data-{m.kind}="{m.index}" '
                           f'data-sentence="{m.sentence}" data-cause="{m.cause}" tabindex="0">{where}'
                           f'<span class="cause {m.cause}" title="{esc(CAUSES[m.cause])}">{m.cause}</span> '
                           f'{esc(m.name)}: <span class="reason">{esc(m.reason)}</span></li>')
            out.append("</ol>")
        out.append("</div>")
    out.append("</section>")
    return "\n".join(out)


def _resource(name: str) -> str:
    return files("semsim.app.explain").joinpath(name).read_text(encoding="utf-8")


def render_html(doc: ExplanationDoc, label_names: Mapping[str, str] | None = None) -> str:
    """The page for an explanation document (from :func:`semsim.app.explain.explain`); its label
    legend names labels with ``label_names``, by default those of the scheme the installed
    plugins register under the document's scheme name."""
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
    names = registered_names(doc) if label_names is None else label_names
    values = {
        "title": esc(title),
        "css": _resource("explain.css"),
        "js": _resource("explain.js"),
        "source_text": esc(text[0]),
        "correction_text": esc(text[1]),
        "scores": _scores_table(doc),
        "note": note,
        "why": _why(doc, by_dir),
        "labels": _labels(doc, names),
        "signature": esc(doc["signature"]),
        "nav": _sentence_nav(doc, blocks_, by_dir),
        "canvas": _canvas(doc, blocks_, names),
        "unmatched": _unmatched(doc, by_dir, len(blocks_) > 1),
        "data": data,
    }
    # one pass: text put into the page is never searched for placeholders again
    return re.sub(r"\{\{(\w+)\}\}", lambda m: values[m[1]], _resource("template.html"))
