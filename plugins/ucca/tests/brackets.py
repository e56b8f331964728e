"""Tiny UCCA annotations written as brackets, turned into UCCA XML for tests.

``[H [A John] [P gave] [A [E a] [C book]]] [U .]``: a unit is ``[LABEL child ...]``; a
child is a unit or a word (a word directly in a unit is one of its terminals). A unit
labelled ``U`` is punctuation. These are our own annotations (MIT, like the core).
"""

from __future__ import annotations

import re
from xml.sax.saxutils import quoteattr

TRAINING = [
    "[H [A John] [P gave] [A Mary] [A [E a] [C book]]] [U .]",
    "[H [A She] [P left]] [L because] [H [A she] [F was] [S tired]] [U .]",
    "[H [A [E The] [C cat]] [P sat] [A [R on] [E the] [C mat]]] [U .]",
    "[H [A Dogs] [P run] [D fast]] [U .]",
    "[H [A I] [D really] [P like] [A [E green] [C apples]]] [U .]",
    "[H [A [E The] [C children]] [P played] [A [R in] [E the] [C park]] [T yesterday]] [U .]",
    "[H [A He] [F is] [D very] [S happy]] [U .]",
    "[H [A We] [P went] [A home]] [L and] [H [P slept]] [U .]",
    "[H [A [E My] [C brother]] [P bought] [A [E a] [E new] [C car]]] [U .]",
    "[H [A They] [F will] [P visit] [A Paris] [T soon]] [U .]",
    "[H [A [E The] [C teacher]] [P explained] [A [E the] [C problem]] [D clearly]] [U .]",
    "[H [A You] [D should] [P read] [A [E this] [C book]]] [U .]",
]


def to_xml(brackets: str, passage_id: str) -> str:
    tokens = re.findall(r"\[|\]|[^\s\[\]]+", brackets)
    words: list[str] = []
    nodes: list[list] = [["1.1", "FN", []]]  # id, type, [(child id, tag)]
    stack = [0]
    pending_label = False
    for tok in tokens:
        if tok == "[":
            pending_label = True
        elif tok == "]":
            stack.pop()
        elif pending_label:
            nodes.append([f"1.{len(nodes) + 1}", "PNCT" if tok == "U" else "FN", []])
            nodes[stack[-1]][2].append((nodes[-1][0], tok))
            stack.append(len(nodes) - 1)
            pending_label = False
        else:
            words.append(tok)
            nodes[stack[-1]][2].append((f"0.{len(words)}", "Terminal"))
    out = [f'<root annotationID="0" passageID={quoteattr(passage_id)}>', "<attributes />",
           '<layer layerID="0"><attributes />']
    for i, w in enumerate(words, 1):
        kind = "Word" if any(c.isalnum() for c in w) else "Punctuation"
        out.append(f'<node ID="0.{i}" type="{kind}"><attributes paragraph="1" paragraph_position="{i}" '
                   f'text={quoteattr(w)} /></node>')
    out.append('</layer><layer layerID="1"><attributes />')
    for node_id, kind, edges in nodes:
        out.append(f'<node ID="{node_id}" type="{kind}"><attributes />')
        out.extend(f'<edge toID="{child}" type="{tag}"><attributes /></edge>' for child, tag in edges)
        out.append("</node>")
    out.append("</layer></root>")
    return "\n".join(out) + "\n"
