"""What a direction left unmatched, named for a reader: the page lists it and the summary
prints it, from this one list, so that the two never disagree on what was missed or where.

Each miss also says which of three causes it has (:data:`CAUSES`), so that a reader sees at a
glance whether a low score comes from lost content or from different structures: a fluent
rewrite that keeps the meaning ("a problem of trusts" / "a trust issue") misses mostly over
words both texts share."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .layout import DrawnIn, blocks, first_sentences
from .schema import SIDES, DirectionDoc, ExplanationDoc, GraphDoc, Side

#: Why an edge (legacy: a unit) found no match, for people. ``words``: no word under it is
#: aligned (content lost, added or changed); ``grouping``: its words are aligned, but no unit
#: of the other graph was aligned with its child (the words are grouped into other units);
#: ``label``: its child has a counterpart, but that is entered by other labels (or by no
#: compared edge). The last two are differences of structure.
Cause = Literal["words", "grouping", "label"]
CAUSES: dict[Cause, str] = {"words": "words not aligned", "grouping": "grouped differently",
                            "label": "labelled differently"}


def short(text: str, limit: int = 100) -> str:
    """A unit's text cut to ``limit`` characters: a passage root's would be the whole passage."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def edge_name(g: GraphDoc, i: int, limit: int = 48) -> str:
    """``parent -LABEL-> child "text"``, the text cut short: an edge into a sentence would
    otherwise quote the whole sentence."""
    e = g["edges"][i]
    child = g["units"][e["child"]]
    text = f' "{short(child["text"], limit)}"' if child["text"] else ""
    return f'{g["units"][e["parent"]]["id"]} -{"/".join(e["labels"])}-> {child["id"]}{text}'


def unit_name(g: GraphDoc, u: int, limit: int = 48) -> str:
    """``id "text"``, the text cut short."""
    unit = g["units"][u]
    return f'{unit["id"]} "{short(unit["text"], limit)}"'


@dataclass(frozen=True)
class Miss:
    """An unmatched edge (or, legacy, unit) of one side in one direction, for the lists."""

    side: Side
    kind: Literal["edge", "unit"]
    index: int
    sentence: int   # 0-based: the (first) sentence it is drawn in
    name: str       # e.g. 1.8 -R-> 1.9 "for"
    reason: str
    cause: Cause


def misses(doc: ExplanationDoc, direction: str, sentences: dict[Side, DrawnIn] | None = None
           ) -> dict[Side, list[Miss]]:
    """Per side, what ``direction`` left unmatched: compared edges without a match (the
    paper variant) or compared units without one (legacy), in text order (by sentence,
    then index); an edge that weighs nothing (``--edge-weights none``) costs nothing and is
    no miss. ``sentences``: :func:`.layout.first_sentences` of the document's blocks, when
    the caller has them."""
    d = doc["directions"][direction]
    sentences = sentences or first_sentences(blocks(doc))
    out: dict[Side, list[Miss]] = {}
    for k, side in enumerate(SIDES):
        g = doc["graphs"][side]
        aligned = {pair[k] for pair in doc["token_alignment"]}
        if "edges" in d:
            out[side] = [Miss(side, "edge", i, sentences[side].edges.get(i, 0), edge_name(g, i), row["reason"],
                              _cause(g, d, side, g["edges"][i]["child"], aligned))
                         for i, row in enumerate(d["edges"][side])
                         if row["compared"] and not row["matched"] and row.get("weight", 1.0) != 0]
        else:
            out[side] = [Miss(side, "unit", u, sentences[side].units.get(u, 0), unit_name(g, u), row["reason"],
                              "label" if row["aligned"] else "words")
                         for u, row in enumerate(d["units"][side]) if row["compared"] and not row["matched"]]
        out[side].sort(key=lambda m: (m.sentence, m.index))
    return out


def _cause(g: GraphDoc, d: DirectionDoc, side: Side, child: int, aligned: set[int]) -> Cause:
    """The cause of an unmatched edge into ``child`` (``aligned``: the side's aligned tokens)."""
    if d["units"][side][child]["aligned"]:
        return "label"
    return "grouping" if aligned.intersection(g["units"][child]["yield"]) else "words"
