"""What USim did with one source/correction pair, as plain JSON-able data.

Every number here comes from the metric's own functions (:mod:`semsim.kernel.metrics.usim`,
:mod:`semsim.kernel.metrics.legacy`): the token alignment, the node alignment per direction and
the per-edge match flags are the very values the score is counted from, so an explanation
cannot drift from the score. :func:`explain` also checks that the flags it reports add up
to the counts of :meth:`semsim.USim.sentence_score`, and raises if they ever do not.

The document (``docs/explain.md``; its types in :mod:`.schema`) names units and edges by
their index in the graph's ``units`` and ``edges`` lists, which are also given, so a program
needs nothing but the JSON.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

from ...kernel.align.paraphrase import Gap, Verdict
from ...kernel.align.tokens import crossing, judged_token_pairs, moved_pairs, related, synchronised_spans
from ...kernel.errors import SemsimError
from ...kernel.graph import Graph
from ...kernel.metrics import legacy, settings, usim
from ...kernel.signature import Signature
from ...kernel.stats import Counts, Score
from ..usim import USim
from .schema import (
    SIDES,
    CountsDoc,
    DetailDoc,
    DirectionDoc,
    EdgeVerdictDoc,
    ExplanationDoc,
    GraphDoc,
    HeadDoc,
    ParaphraseDoc,
    SentenceDoc,
    Side,
    UnalignedTokenDoc,
    UnitPairDoc,
    UnitVerdictDoc,
)

#: Version of the JSON layout (bumped when a field changes meaning or disappears).
FORMAT = 1
#: What :meth:`Graph.label_masks` gives: the compared edges as ``(child, label mask)``, and
#: per unit the mask of its compared incoming edges.
Masks = tuple[tuple[tuple[int, int], ...], tuple[int, ...]]


def explain(g1: Graph, g2: Graph, metric: USim | None = None,
            sign: Callable[[Signature], Signature] | None = None) -> ExplanationDoc:
    """The explanation of ``metric`` (default: paper USim, default settings) on the source
    ``g1`` and its correction ``g2``; ``sign`` adds what the graphs came from to the score's
    signature (:meth:`semsim.app.parsing.Parses.sign`, for graphs parsed from text)."""
    from ...kernel.version import __version__
    metric = metric or USim()
    score = metric.sentence_score(g1, g2)
    head: HeadDoc = {
        "format": FORMAT,
        "version": __version__,
        "settings": _settings(metric),
        "signature": (sign(score.signature) if sign else score.signature).format(),
        "score": {"f": score.f, "precision": score.precision, "recall": score.recall,
                  "convention": score.convention is not None},
        "graphs": {"source": graph_data(g1), "correction": graph_data(g2)},
        "sentences": sentences(g1, g2),
    }
    detail = _legacy(g1, g2, metric, score) if metric.variant == "legacy" else _paper(g1, g2, metric, score)
    return {**head, **detail}


def _settings(metric: USim) -> dict[str, Any]:
    return settings.shown(metric.settings())


def _counts(counts: Counts) -> CountsDoc:
    """A direction's counts as the document gives them: :meth:`Counts.as_dict`, whose keys
    are those of :class:`CountsDoc`."""
    return cast(CountsDoc, counts.as_dict())


def graph_data(g: Graph) -> GraphDoc:
    """Tokens, units and edges of a graph, with what the renderer and a reader need."""
    return {
        "id": g.id,
        "scheme": g.scheme.name,
        "root": g.root,
        "sentence_ends": list(g.sentence_ends),
        "tokens": [{"text": t.text, "punct": t.punct} for t in g.tokens],
        "units": [{"id": u.id, "kind": u.kind, "label": u.label, "anchors": list(u.anchors),
                   "implicit": u.implicit, "yield": sorted(g.content_yields[i]), "text": g.unit_text(i)}
                  for i, u in enumerate(g.units)],
        "edges": [{"parent": e.parent, "child": e.child, "labels": list(e.labels), "remote": e.remote}
                  for e in g.edges],
    }


def sentences(g1: Graph, g2: Graph) -> list[SentenceDoc]:
    """The synchronised sentences, as 0-based ``[start, stop)`` token ranges per side: the
    spans ``--align sentence`` aligns tokens within, and the page's unit of navigation (an
    essay is read sentence by sentence, not as one 30,000-pixel drawing). Given under every
    setting, so that the page can be split even when tokens were aligned over the passage."""
    return [{"source": [r1.start, r1.stop], "correction": [r2.start, r2.stop]}
            for r1, r2 in synchronised_spans(g1, g2, by_sentence=True)]


# -- the paper variant ----------------------------------------------------------------------------
def compared_edge_indices(g: Graph, remote: bool) -> list[int]:
    """Indices (into ``g.edges``) of the edges :meth:`Graph.label_masks` counts, in its order."""
    return list(g.compared_edges_of(remote))


def not_compared_reason(g: Graph, i: int, remote: bool) -> str:
    """Why edge ``i`` is outside the comparison (it is not in :func:`compared_edge_indices`)."""
    e = g.edges[i]
    kind = g.units[e.child].kind
    if kind in g.scheme.ignored_kinds:
        return f"edge not compared: child of ignored kind {kind}"
    ignored = sorted(g.scheme.ignored_labels.intersection(e.labels))
    if ignored:
        return f"edge not compared: ignored label {'/'.join(ignored)}"
    if not g.content_yields[e.child]:
        return "edge not compared: empty yield (implicit or punctuation-only child)"
    if e.remote and not remote:
        return "edge not compared: remote edges excluded (--no-remote)"
    return "edge not compared"


def _paper(g1: Graph, g2: Graph, metric: USim, score: Score) -> DetailDoc:
    """The paper's USim: the leaf alignment, and per direction the node alignment and every
    edge's verdict, checked against the score's counts."""
    graphs = (g1, g2)
    credit = None
    if metric.tokens == "contextual":
        pairs, credit = usim.leaf_alignment(g1, g2, metric, encoder=metric.encoder()[0])
        judged: list[tuple[Gap, Verdict]] = []
    else:
        pairs, judged = judged_token_pairs(g1, g2, by_sentence=metric.by_sentence, how=metric.tokens,
                                           judge=metric.judge()[0])
        pairs = usim.with_moves(g1, g2, pairs, metric)
    excused = usim.excused_tokens(g1, g2, pairs, metric, credit)
    alignments = usim.unit_alignments(g1, g2, pairs, metric, credit)
    overlap = usim.overlap_matrix(g1, g2, pairs)
    sizes = usim.yield_sizes(g1, g2, pairs, metric.denominator)
    compared = [compared_edge_indices(g, metric.remote) for g in graphs]
    masks = [g.label_masks(metric.labels, metric.remote) for g in graphs]
    for g, idx, (items, _) in zip(graphs, compared, masks):
        if [(g.edges[i].child) for i in idx] != [child for child, _ in items]:
            raise SemsimError("internal error: the explainer's compared edges differ from the metric's")
    directions: dict[str, DirectionDoc] = {}
    weighed = metric.edge_weights != "uniform" or credit is not None or any(excused)
    weights = list(usim.counted_weights(g1, g2, metric, excused)) if weighed else [[], []]
    leaves = usim.leaf_counts(g1, g2, pairs, metric.leaves, credit, excused) if metric.leaves else None
    graded = None if credit is None else usim.overlap_matrix(g1, g2, pairs, [credit[x, y] for x, y in pairs])
    for name, a in alignments.items():
        flags = usim.edge_matches(g1, g2, a, metric.labels, metric.remote)
        # what each compared edge earned: 1 or 0, or under --tokens contextual its credit
        earned = (usim.edge_credits(g1, g2, a, graded, sizes, metric.labels, metric.remote, metric.units)
                  if graded is not None
                  else tuple([float(f) for f in fl] for fl in flags))
        if not weighed:  # integers, as the score counts them
            counts = Counts(sum(flags[0]), len(flags[0]), sum(flags[1]), len(flags[1]))
        else:
            (m1, t1), (m2, t2) = ((sum(x * c for x, c in zip(w, e)), sum(w)) for w, e in zip(weights, earned))
            counts = Counts(m1, t1, m2, t2)
        if leaves is not None:
            counts = counts + leaves
        if counts != score.parts[name]:
            raise SemsimError(f"internal error: explained counts {counts} differ from the score's {score.parts[name]}")
        by = graded if metric.units == "dice" and graded is not None else overlap  # what A was chosen on
        directions[name] = _paper_direction(name, graphs, a, by, sizes, compared, masks, flags, metric, counts)
        for k in (0, 1):  # what each compared edge weighed, and earned
            for n, row in enumerate(r for r in directions[name]["edges"][SIDES[k]] if r["compared"]):
                if metric.edge_weights != "uniform" or excused[k]:
                    row["weight"] = weights[k][n]
                if credit is not None:
                    row["credit"] = earned[k][n]  # exact, as the counts are
    doc: DetailDoc = {"detail": "paper", "token_alignment": [list(p) for p in sorted(pairs)], "directions": directions}
    if credit is not None:
        doc["token_credits"] = [float(credit[x, y]) for x, y in sorted(pairs)]
    doc["moved_tokens"] = [list(p) for p in moved_pairs(pairs)]
    paraphrases = [paraphrase_doc(g1, g2, gap, v) for gap, v in judged]
    if metric.tokens != "edit":
        doc["unaligned_tokens"] = unaligned_tokens(g1, g2, pairs, metric, paraphrases, credit)
    if metric.tokens == "paraphrase":
        doc["paraphrases"] = paraphrases
    if leaves is not None:
        doc["leaves"] = {"weight": metric.leaves, "source": sum(not t.punct for t in g1.tokens),
                         "correction": sum(not t.punct for t in g2.tokens), "aligned": len(pairs)}
    if metric.order == "splits":  # what only restates aligned words, counted on neither side
        doc["restated_tokens"] = {SIDES[k]: sorted(excused[k]) for k in (0, 1)}
    return doc


def paraphrase_doc(g1: Graph, g2: Graph, gap: Gap, verdict: Verdict) -> ParaphraseDoc:
    """One judged gap, as the explanation lists it."""
    return {"source": list(gap.source), "correction": list(gap.correction),
            "source_text": " ".join(g1.tokens[i].text for i in gap.source),
            "correction_text": " ".join(g2.tokens[j].text for j in gap.correction),
            "paraphrase": verdict.paraphrase, "similarity": verdict.similarity, "reason": verdict.reason}


def unaligned_tokens(g1: Graph, g2: Graph, pairs: list[tuple[int, int]], metric: USim,
                     paraphrases: Sequence[ParaphraseDoc] = (),
                     credit: np.ndarray | None = None) -> dict[Side, list[UnalignedTokenDoc]]:
    """Per side, each content token the leaf alignment left out and why, naming only what the
    alignment did: nothing in the other sentence is lexically related to it; the related
    tokens are aligned to others; or a related token was left out too (listed as
    ``left_out_too``), and then whether pairing the two would cross the aligned pairs (an
    alignment that keeps word order drops content that moved) or earn no contextual credit
    (``credit``: ``--tokens contextual``'s). With ``paraphrase``, a token of a gap the judge
    refused says so, and a token left over by an uneven paraphrase (``a lot of`` / ``many``)
    too (``paraphrases``: the judged gaps, :func:`paraphrase_doc`)."""
    aligned = ({a for a, _ in pairs}, {b for _, b in pairs})
    in_gap: tuple[dict[int, str], dict[int, str]] = ({}, {})
    for p in paraphrases:
        text = f"{p['source_text']} / {p['correction_text']}"
        why = (f"left over in the paraphrase {text}" if p["paraphrase"]
               else f"in the gap {text}, judged no paraphrase ({p['reason']})")
        for k, side in enumerate((p["source"], p["correction"])):
            in_gap[k].update(dict.fromkeys(side, why))
    graphs = (g1, g2)
    out: dict[Side, list[UnalignedTokenDoc]] = {SIDES[0]: [], SIDES[1]: []}
    for spans in synchronised_spans(g1, g2, metric.by_sentence):
        for k in (0, 1):
            g, other = graphs[k], graphs[1 - k]
            candidates = [j for j in spans[1 - k] if not other.tokens[j].punct]
            for i in spans[k]:
                if g.tokens[i].punct or i in aligned[k]:
                    continue
                row: UnalignedTokenDoc = {"token": i, "text": g.tokens[i].text, "reason": in_gap[k].get(i, "")}
                if not row["reason"]:
                    near = [j for j in candidates if related(g.tokens[i].text.lower(), other.tokens[j].text.lower())]
                    free = [j for j in near if j not in aligned[1 - k]]
                    row["reason"] = _unaligned_token_reason(graphs, k, i, [j for j in near if j in aligned[1 - k]],
                                                            free, pairs, credit)
                    if free:
                        row["left_out_too"] = free
                        pair = (i, free[0]) if k == 0 else (free[0], i)
                        row["would_cross"] = bool((credit is None or credit[pair] > 0) and crossing(pairs, pair))
                out[SIDES[k]].append(row)
    return out


def _unaligned_token_reason(graphs: tuple[Graph, Graph], k: int, i: int, taken: list[int], free: list[int],
                            pairs: Sequence[tuple[int, int]], credit: np.ndarray | None) -> str:
    """Why token ``i`` of side ``k`` (outside every judged gap) was left unaligned, from what
    the alignment did with its lexically related tokens in the other sentence: ``taken``,
    aligned to other tokens; ``free``, left out too (then: the aligned pair that pairing them
    would cross, or their contextual credit of 0)."""
    other = graphs[1 - k]
    if not taken and not free:
        return "no lexically related token in the other sentence"
    reasons = []
    if free:
        j = free[0]
        pair = (i, j) if k == 0 else (j, i)
        crossed = crossing(pairs, pair)
        texts = ", ".join(other.tokens[j].text for j in free)
        if credit is not None and credit[pair] <= 0:
            why = "their contextual credit is 0"
        elif crossed:
            a, b = crossed[0]
            why = (f"pairing them would cross the aligned pair {graphs[0].tokens[a].text}={graphs[1].tokens[b].text}"
                   + (f" and {len(crossed) - 1} more" if len(crossed) > 1 else "")
                   + " (the alignment keeps word order)")
        else:
            why = "the alignment did not pair them"
        reasons.append(f"related to {texts}, left out too: {why}")
    if taken:
        reasons.append(f"related to {', '.join(other.tokens[j].text for j in taken)}, each aligned to another token")
    return "; ".join(reasons)


def _paper_direction(name: str, graphs: tuple[Graph, Graph], a: np.ndarray, overlap: np.ndarray,
                     sizes: tuple[np.ndarray, np.ndarray], compared: list[list[int]],
                     masks: list[Masks], flags: tuple[list[bool], list[bool]], metric: USim,
                     counts: Counts) -> DirectionDoc:
    """One direction: the node alignment with its weights, and every edge's fate."""
    frm = 0 if name == "s->r" else 1  # the side whose nodes are aligned onto the other
    rel = (a, a.T)  # rel[k][x, y]: unit x of side k is aligned with unit y of the other side
    ov = (overlap, overlap.T)
    pair_rows: list[UnitPairDoc] = []
    for v, u in zip(*np.nonzero(a)):
        x, y = (v, u) if frm == 0 else (u, v)  # x aligned onto y: w(x, y) = O / |yield(y)|
        o = float(ov[frm][x, y])
        if metric.units == "dice":  # symmetric: one weight for the pair
            pair_rows.append({"source": int(v), "correction": int(u),
                              "dice": 2 * o / float(sizes[0][v] + sizes[1][u])})
        else:
            pair_rows.append({"source": int(v), "correction": int(u), "w": o / float(sizes[1 - frm][y]),
                              "coverage": o / float(sizes[frm][x])})
    units: dict[Side, list[UnitVerdictDoc]] = {}
    for k, g in enumerate(graphs):
        rows: list[UnitVerdictDoc] = []
        for x in range(len(g.units)):
            aligned = [int(y) for y in np.nonzero(rel[k][x])[0]]
            row: UnitVerdictDoc = {"aligned": aligned}
            if not aligned:
                row["reason"] = _unaligned_reason(g, x, ov[k][x], k == frm, SIDES[1 - k], metric.units)
            rows.append(row)
        units[SIDES[k]] = rows
    edges: dict[Side, list[EdgeVerdictDoc]] = {}
    for k, g in enumerate(graphs):
        other = graphs[1 - k]
        _, incoming_other = masks[1 - k]
        position = {i: n for n, i in enumerate(compared[k])}
        other_mask = {i: masks[1 - k][0][n][1] for n, i in enumerate(compared[1 - k])}
        items = masks[k][0]
        verdicts: list[EdgeVerdictDoc] = []
        for i, e in enumerate(g.edges):
            if i not in position:
                verdicts.append({"compared": False, "matched": False,
                                 "reason": not_compared_reason(g, i, metric.remote)})
                continue
            child, mask = items[position[i]]
            matched = flags[k][position[i]]
            counterparts = [int(y) for y in np.nonzero(rel[k][child])[0]]
            matches = [j for y in counterparts for j in other.incoming[y] if other_mask.get(j, 0) & mask]
            if matched != bool(matches):
                raise SemsimError("internal error: the explainer's edge matches differ from the metric's")
            verdict: EdgeVerdictDoc = {"compared": True, "matched": matched, "matches": sorted(matches)}
            if not matched:
                verdict["reason"] = _unmatched_reason(e.labels, counterparts, incoming_other,
                                                      units[SIDES[k]][child].get("reason"))
            verdicts.append(verdict)
        edges[SIDES[k]] = verdicts
    return {"from": SIDES[frm], "to": SIDES[1 - frm], "counts": _counts(counts),
            "unit_alignment": pair_rows, "units": units, "edges": edges}


def _unaligned_reason(g: Graph, x: int, overlap_row: np.ndarray, from_side: bool, other: str,
                      units: str = "yield") -> str:
    """Why unit ``x`` has no counterpart; ``other`` names the other side, so that a reader of
    ``r->s`` (the correction's units choose) sees which graph did the choosing."""
    if not g.content_yields[x]:
        return "empty yield (implicit or punctuation only): w undefined"
    if not overlap_row.any():
        return "no token of its yield is aligned"
    if units == "dice":
        return "no best Dice match of a compared edge: no edge enters it, and no edge's child has it as its best"
    if from_side:  # overlap but no positive weight: cannot happen with w's definition
        return "no node with positive weight"
    return f"no {other} unit chose it"


def _unmatched_reason(labels: tuple[str, ...], counterparts: list[int], incoming_other: tuple[int, ...],
                      child_reason: str | None) -> str:
    if not counterparts:
        return "child unaligned" + (f" ({child_reason})" if child_reason else "")
    if not any(incoming_other[y] for y in counterparts):
        return "aligned child has no compared incoming edge"
    return f"aligned child has no incoming edge labelled {'/'.join(labels)}"


# -- the legacy variant ---------------------------------------------------------------------------
def _legacy(g1: Graph, g2: Graph, metric: USim, score: Score) -> DetailDoc:
    """The authors' code compares units, not edges: per unit, its best-similarity partners
    and whether one of them carries a compatible label."""
    pairs = legacy.legacy_token_pairs(g1, g2)
    n1, n2, sim, compatible = legacy.legacy_similarity(g1, g2, pairs, 0 if metric.single_token_units else 1)
    matched = (legacy.matched_units(sim, compatible), legacy.matched_units(sim.T, compatible.T))
    counts = Counts(int(matched[0].sum()), len(n1), int(matched[1].sum()), len(n2))
    if score.convention is None and counts != score.parts["legacy"]:
        raise SemsimError(f"internal error: explained counts {counts} differ from the score's {score.parts['legacy']}")
    ns, sims = (n1, n2), (sim, sim.T)
    row_of = ({u: x for x, u in enumerate(n1)}, {u: y for y, u in enumerate(n2)})
    units: dict[Side, list[UnitVerdictDoc]] = {}
    links: set[tuple[int, int]] = set()
    for k, g in enumerate((g1, g2)):
        rows: list[UnitVerdictDoc] = [{"compared": False, "matched": False, "aligned": [],
                                       "reason": "unit not compared (no primary parent, or an ignored kind)"}
                                      for _ in g.units]
        s = sims[k]
        for x, unit in enumerate(ns[k]):
            best = float(s[x].max()) if s.shape[1] else 0.0
            partners = [int(y) for y in np.nonzero(s[x] == best)[0]] if best > 0 else []
            other_units = [ns[1 - k][y] for y in partners]
            row: UnitVerdictDoc = {"compared": True, "matched": bool(matched[k][x]), "aligned": other_units,
                                   "similarity": best}
            if not partners:
                row["reason"] = "no unit of the other graph shares an aligned token"
            elif not matched[k][x]:
                row["reason"] = "no best-similarity partner has a compatible incoming label"
            rows[unit] = row
            links.update((unit, o) if k == 0 else (o, unit) for o in other_units)
        units[SIDES[k]] = rows
    # 1-based legacy positions, -1 for "unaligned": 0-based pairs of aligned tokens only
    token_pairs = sorted((a - 1, b - 1) for a, b in pairs if a > 0 and b > 0)
    return {"detail": "legacy",
            "note": "the legacy variant compares units, not edges: per-edge detail is for the paper variant",
            "token_alignment": [list(p) for p in token_pairs],
            "directions": {"legacy": {"from": "both", "to": "both", "counts": _counts(counts),
                                      "unit_alignment": [{"source": v, "correction": u, "similarity": float(
                                          sim[row_of[0][v], row_of[1][u]])} for v, u in sorted(links)],
                                      "units": units}}}
