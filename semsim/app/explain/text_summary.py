"""The explanation as a few lines for a terminal: what ``semsim explain`` prints when asked
for no file. Short by design (at most ``limit`` misses per direction, the rest counted);
the page and the JSON hold everything."""

from __future__ import annotations

import shutil
import textwrap

from .layout import blocks, first_sentences
from .misses import misses
from .schema import SIDES, DirectionDoc, ExplanationDoc, LeavesDoc

TEXT_WIDTH = 100    # columns of the text summary when the terminal's are unknown


def count(value: float) -> str:
    """A count as people read it: a whole number as one (``10``), a graded or weighted sum
    to 4 decimals like every other number (``29.6015``); the JSON keeps the exact value."""
    return str(int(value)) if float(value).is_integer() else f"{value:.4f}"


def _share(counts: tuple[int, int], limit: int) -> tuple[int, int]:
    """How many of each side's misses to print: ``limit`` in all, split evenly, a side with
    fewer leaving the rest to the other, so that one side's misses never hide the other's."""
    a = min(counts[0], max(limit // 2, limit - counts[1]))
    return a, min(counts[1], limit - a)


def _aligned_note(d: DirectionDoc) -> str:
    """Which units choose in this direction: under ``r->s`` the correction's do, which the
    reasons (``no source unit chose it``) only make sense with."""
    if d["from"] not in SIDES:
        return ""
    return f"  ({d['from']} units aligned onto {d['to']} units)"


def leaves_note(leaves: LeavesDoc, graded: bool = False) -> str:
    """What ``--leaves`` added to every direction's counts, in words (``graded``: under
    ``--tokens contextual``, where each aligned leaf counts its pair's credit)."""
    w, n = leaves["weight"], leaves["aligned"]
    graded_ = ", each counting its pair's credit (function words half)" if graded else ""
    return (f"leaf edges (weight {w}): {n} of {leaves['source']} source and {n} of {leaves['correction']} "
            f"correction tokens aligned{graded_}")


def restated_note(doc: ExplanationDoc) -> str:
    """The words ``--order splits`` found restating aligned words (a split-off sentence naming its
    participant again), which count on neither side; empty when there are none."""
    restated = doc.get("restated_tokens")
    if not restated or not any(restated.values()):
        return ""
    words = [f"{side}: {' '.join(doc['graphs'][side]['tokens'][i]['text'] for i in restated[side])}"
             for side in SIDES if restated[side]]
    return "restated, so counted on neither side (--order splits): " + "; ".join(words)


def paraphrase_note(doc: ExplanationDoc) -> str:
    """The gaps ``--tokens paraphrase`` asked its judge about, and the verdicts, in words."""
    gaps = doc.get("paraphrases", [])
    if not gaps:
        return ""
    said = [f"{p['source_text']} / {p['correction_text']}: {'aligned' if p['paraphrase'] else 'not aligned'}, "
            f"{p['reason']}" for p in gaps]
    return "paraphrase gaps: " + "; ".join(said)


def moved_note(doc: ExplanationDoc) -> str:
    """The aligned pairs that cross the others (``moved_tokens``: content that moved, and kept
    its pair), in words; empty where none crosses (an order-keeping alignment never does)."""
    moved = doc.get("moved_tokens", [])
    if not moved:
        return ""
    g1, g2 = doc["graphs"]["source"]["tokens"], doc["graphs"]["correction"]["tokens"]
    return (f"moved: {len(moved)} aligned pairs cross the others (kept aligned): "
            + " ".join(f"{g1[a]['text']}={g2[b]['text']}" for a, b in moved))


def crossing_note(doc: ExplanationDoc) -> str:
    """The source words the token alignment left out whose related word in the correction it
    left out too, in crossing order (``unaligned_tokens``' ``would_cross``): content that moved,
    which an order-keeping alignment does not pair; empty where there is none."""
    g2 = doc["graphs"]["correction"]["tokens"]
    left = [f"{t['text']}/{g2[t['left_out_too'][0]]['text']}"
            for t in doc.get("unaligned_tokens", {}).get("source", []) if t.get("would_cross")]
    if not left:
        return ""
    return (f"left out in crossing order: {len(left)} source words whose related correction word is left out too, "
            f"the pair crossing the aligned ones (moved; this alignment keeps word order): {' '.join(left)}")


def _wrap(line: str, width: int, indent: str) -> list[str]:
    """``line`` broken at spaces to ``width`` columns, continuation lines indented; a token
    longer than the width (a signature, a URL) stays whole on its own line."""
    return textwrap.wrap(line, width, subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False, drop_whitespace=True) or [line]


def summary(doc: ExplanationDoc, limit: int = 12, width: int | None = None) -> str:
    """A few lines for a terminal: scores per direction and what did not match, wrapped to
    ``width`` columns (default: the terminal's, else 100)."""
    width = max(width or shutil.get_terminal_size((TEXT_WIDTH, 24)).columns, 40)
    g1, g2 = doc["graphs"]["source"], doc["graphs"]["correction"]
    blocks_ = blocks(doc)
    many = len(blocks_) > 1
    sentences = first_sentences(blocks_)
    lines = _wrap(f"source:     {' '.join(t['text'] for t in g1['tokens'])}", width, " " * 12)
    lines += _wrap(f"correction: {' '.join(t['text'] for t in g2['tokens'])}", width, " " * 12)
    credits = doc.get("token_credits")  # --tokens contextual: what each pair earns
    lines += _wrap("tokens aligned: " + (" ".join(f"{g1['tokens'][a]['text']}={g2['tokens'][b]['text']}"
                                                   + (f"({credits[k]:.2f})" if credits else "")
                                                   for k, (a, b) in enumerate(doc["token_alignment"])) or "none"),
                   width, " " * 16)
    if note := moved_note(doc):
        lines += _wrap(note, width, " " * 16)
    if note := crossing_note(doc):
        lines += _wrap(note, width, " " * 16)
    if note := paraphrase_note(doc):
        lines += _wrap(note, width, " " * 16)
    for name, d in doc["directions"].items():
        c = d["counts"]
        lines += _wrap(f"{name}: P {c['precision']:.4f} ({count(c['matched1'])}/{count(c['total1'])})  "
                       f"R {c['recall']:.4f} ({count(c['matched2'])}/{count(c['total2'])})  F {c['f']:.4f}"
                       f"{_aligned_note(d)}",
                       width, "  ")
        if leaves := doc.get("leaves"):
            lines += _wrap(f"  {leaves_note(leaves, 'token_credits' in doc)}, counted above", width, "      ")
        if note := restated_note(doc):
            lines += _wrap(f"  {note}", width, "      ")
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
