"""UCCA graphs from MRP (the CoNLL 2019 format), equal in content to the XML route.

MRP's UCCA nodes are the XML's layer-1 units: anchored nodes are the preterminals (their
character spans are the terminals), the others are non-terminal or implicit units, and
remote edges carry the ``remote`` property. Punctuation units (``PNCT`` in XML) are the
anchored nodes entered by a ``U`` edge whose tokens have no letter or digit, and their
tokens are the punctuation tokens. MRP 2019 omits implicit units.
"""

from __future__ import annotations

from dataclasses import replace

from semsim.kernel.formats.mrp import MrpGraph, mrp_to_graph
from semsim.kernel.graph import Graph

from .scheme import UCCA, finish, punctuation_unit


def mrp_ucca_to_graph(m: MrpGraph) -> Graph:
    d = m.data
    text = d.get("input", "")
    into_by_u = {e["target"] for e in d.get("edges", ()) if e.get("label") == "U"}
    kinds = {n["id"]: "PNCT" if punctuation_unit(n["id"] in into_by_u, [text[a["from"]:a["to"]] for a in
                                                                       n.get("anchors", ())]) else "FN"
             for n in d.get("nodes", ())}
    g = mrp_to_graph(m, UCCA, kinds)
    # as in UCCA XML, a token is punctuation exactly when a punctuation unit holds it; an MRP
    # graph is one sentence, one paragraph: its tokens' positions 1..n, as UCCA XML numbers them
    punct = {t for u in g.units if u.kind == "PNCT" for t in u.anchors}
    return finish(g, tokens=tuple(replace(t, punct=i in punct, para_pos=t.para_pos or i + 1)
                                  for i, t in enumerate(g.tokens)))
