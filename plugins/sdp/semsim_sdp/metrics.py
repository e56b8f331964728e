"""The metrics the DM, PSD and EDS communities report, beside USim.

* **SDP labelled F1** (Oepen et al., SemEval 2014 Task 8 and 2015 Task 18): precision and
  recall of labelled dependencies ``(head, dependent, label)``, nodes identified by their
  anchors (the token they are), each top counted as one more dependency from a virtual
  root, as the official scorer does by default and MTool's ``sdp`` scorer (``score/sdp.py``,
  ``include_virtual=True``) does for MRP. Unlabelled F1 is a second part.
* **EDM** (Dridan & Oepen 2011, as MTool's ``score/edm.py`` scores MRP): triples over
  character spans: names ``(span, predicate)``, arguments ``(span, role, span)``,
  properties ``(span, property, value)`` and tops ``(span)``; the headline ``all`` pools
  them (EDM proper); ``names`` and ``arguments`` are EDM_n and EDM_a. Spans are, as in
  MTool, the non-space characters of a node's anchors with leading and trailing
  punctuation trimmed, so ``Vinken,`` and ``Vinken`` are one span.

Both identify nodes by character offsets, so they assume both graphs are of one text (a
parser's output against the gold graph). On two different sentences they count what
happens to coincide in offsets: that is their definition, and why USim sits beside them.
Everything is sets of tuples: deterministic, and a graph against itself scores exactly 1.
Counts follow semsim's convention: side 1 is the first graph (precision), side 2 the second.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from semsim.kernel.errors import SemsimError
from semsim.kernel.graph import Graph
from semsim.kernel.scheme import Scheme
from semsim.kernel.signature import signature
from semsim.kernel.stats import Counts, Score

#: MTool's ``score.core.PUNCTUATION`` and ``SPACE``: trimmed from span ends / dropped inside.
PUNCTUATION = frozenset(".?!;,:“\"”‘'’()[]{} \t\n\f")
SPACE = frozenset(" \t\n\f")


def anchors(node: dict[str, Any]) -> tuple[tuple[int, int], ...]:
    """A node's anchors as ``(from, to)`` pairs, in file order (MTool's ``anchor()``)."""
    return tuple((a["from"], a["to"]) for a in node.get("anchors") or ())


def explode(text: str, spans: tuple[tuple[int, int], ...]) -> frozenset[int]:
    """The characters a node stands for: each span trimmed of punctuation at both ends,
    whitespace inside dropped (MTool's ``score.core.explode``)."""
    out: set[int] = set()
    for start, end in spans:
        while start < end and text[start] in PUNCTUATION:
            start += 1
        while end > start and text[end - 1] in PUNCTUATION:
            end -= 1
        out.update(i for i in range(start, end) if text[i] not in SPACE)
    return frozenset(out)


def sdp_items(d: dict[str, Any]) -> tuple[frozenset[tuple[Any, ...]], frozenset[tuple[Any, ...]]]:
    """Labelled and unlabelled dependencies of an MRP graph, tops as edges from ``-1``."""
    ident = {n["id"]: anchors(n) for n in d["nodes"]}
    labelled: set[tuple[Any, ...]] = {(ident[e["source"]], ident[e["target"]], e.get("label"))
                                      for e in d.get("edges", ())}
    labelled |= {(-1, ident[t], None) for t in d.get("tops", ())}
    return frozenset(labelled), frozenset((h, t) for h, t, _ in labelled)


def edm_items(d: dict[str, Any], explode_spans: bool = True) -> dict[str, frozenset[tuple[Any, ...]]]:
    """EDM's triples of an MRP graph by kind (names, arguments, properties, tops)."""
    text = d.get("input") or ""
    ident = {n["id"]: explode(text, anchors(n)) if explode_spans else anchors(n) for n in d["nodes"]}
    names = {(ident[n["id"]], n["label"]) for n in d["nodes"] if n.get("label") is not None}
    props = {(ident[n["id"]], p, v) for n in d["nodes"]
             for p, v in zip(n.get("properties") or (), n.get("values") or ())}
    args = {(ident[e["source"]], ident[e["target"]], e.get("label")) for e in d.get("edges", ())}
    tops = {(ident[t],) for t in d.get("tops", ())}
    return {"names": frozenset(names), "arguments": frozenset(args), "properties": frozenset(props),
            "tops": frozenset(tops)}


def _counts(a: frozenset[Any], b: frozenset[Any]) -> Counts:
    c = len(a & b)
    return Counts(c, len(a), c, len(b))


def _mrp(g: Graph, frameworks: tuple[str, ...]) -> dict[str, Any]:
    """The MRP graph this plugin kept in ``g.meta`` (parsed once per graph)."""
    text = g.meta.get("mrp")
    if not text or g.meta.get("framework") not in frameworks:
        raise SemsimError(f"graph {g.id or '?'}: this metric needs a {'/'.join(frameworks).upper()} graph "
                          "read from MRP by the semsim-sdp plugin")
    return g.memo(("semsim_sdp", "mrp"), lambda: json.loads(text))


def sdp_score(d1: dict[str, Any], d2: dict[str, Any], scheme: Scheme | None = None) -> Score:
    """SDP labelled F1 (headline) and unlabelled F1 of two MRP graphs (dicts)."""
    return _sdp(sdp_items(d1), sdp_items(d2), scheme)


def _sdp(items1: tuple[frozenset[Any], frozenset[Any]], items2: tuple[frozenset[Any], frozenset[Any]],
         scheme: Scheme | None) -> Score:
    (l1, u1), (l2, u2) = items1, items2
    sig = signature("sdp", {"tops": "virtual-edges", "identity": "anchors"}, scheme)
    return Score({"labeled": _counts(l1, l2), "unlabeled": _counts(u1, u2)}, sig, headline=("labeled",))


def edm_score(d1: dict[str, Any], d2: dict[str, Any], scheme: Scheme | None = None) -> Score:
    """EDM of two MRP graphs (dicts): ``all`` (headline) and each kind of triple."""
    explode_spans = bool(d1.get("input")) and bool(d2.get("input"))  # as MTool: only when both have text
    return _edm(edm_items(d1, explode_spans), edm_items(d2, explode_spans), explode_spans, scheme)


def _edm(a: dict[str, frozenset[Any]], b: dict[str, frozenset[Any]], explode_spans: bool,
         scheme: Scheme | None) -> Score:
    parts = {k: _counts(a[k], b[k]) for k in a}
    parts["all"] = _counts(frozenset((k, x) for k in a for x in a[k]), frozenset((k, x) for k in b for x in b[k]))
    sig = signature("edm", {"spans": "exploded" if explode_spans else "anchors"}, scheme)
    return Score(parts, sig, headline=("all",))


def sdp_graphs(g1: Graph, g2: Graph) -> Score:
    """SDP labelled F1 of two DM (or two PSD) graphs made by this plugin."""
    items = [g.memo(("semsim_sdp", "sdp"), functools.partial(_sdp_items, g)) for g in (g1, g2)]
    return _sdp(items[0], items[1], g1.scheme)


def _sdp_items(g: Graph) -> tuple[frozenset[tuple[Any, ...]], frozenset[tuple[Any, ...]]]:
    return sdp_items(_mrp(g, ("dm", "psd")))


def edm_graphs(g1: Graph, g2: Graph) -> Score:
    """EDM of two EDS graphs made by this plugin."""
    d1, d2 = _mrp(g1, ("eds",)), _mrp(g2, ("eds",))
    explode_spans = bool(d1.get("input")) and bool(d2.get("input"))
    a, b = (g.memo(("semsim_sdp", "edm", explode_spans), functools.partial(edm_items, d, explode_spans))
            for g, d in ((g1, d1), (g2, d2)))
    return _edm(a, b, explode_spans, g1.scheme)
