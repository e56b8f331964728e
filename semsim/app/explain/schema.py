"""The explanation document's shape, as types: ``docs/explain.md`` describes the JSON, these
say it to the code that builds (:mod:`.document`) and reads it (the page, the summary).

The document is plain ``dict``/``list`` data so that it is its own JSON; a ``TypedDict`` types
it without a conversion that could change a byte of the output. Units, edges and tokens are
named by their index in the graph's lists; every map with one entry per side is keyed by
:data:`Side`. Keys that only one variant (or one setting) writes are optional.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

#: A graph of the pair: the source, or its correction.
Side = Literal["source", "correction"]
SIDES: tuple[Side, Side] = ("source", "correction")


class TokenDoc(TypedDict):
    """A token: its text, and whether the graph marks it as punctuation."""

    text: str
    punct: bool


#: A unit (node): ``anchors`` are the tokens directly under it, ``yield`` its content yield
#: (punctuation excluded, as USim uses it), ``text`` its yield as words. Functional syntax:
#: ``yield`` is a keyword.
UnitDoc = TypedDict("UnitDoc", {
    "id": str, "kind": str, "label": str | None, "anchors": list[int], "implicit": bool,
    "yield": list[int], "text": str,
})


class EdgeDoc(TypedDict):
    """An edge from unit ``parent`` to unit ``child``."""

    parent: int
    child: int
    labels: list[str]
    remote: bool


class GraphDoc(TypedDict):
    """One graph, with what the renderers and a reader need; ``sentence_ends`` are 1-based."""

    id: str
    scheme: str
    root: int
    sentence_ends: list[int]
    tokens: list[TokenDoc]
    units: list[UnitDoc]
    edges: list[EdgeDoc]


#: One synchronised sentence: per side, its tokens as a 0-based ``[start, stop)`` pair.
SentenceDoc = dict[Side, list[int]]


class ScoreDoc(TypedDict):
    """The headline score; ``convention``: fixed by convention (e.g. legacy, an empty side)."""

    f: float
    precision: float
    recall: float
    convention: bool


class CountsDoc(TypedDict):
    """One direction's counts (1 = source, 2 = correction), sums of weights when edges weigh."""

    precision: float
    recall: float
    f: float
    matched1: float
    total1: float
    matched2: float
    total2: float


class _UnitPairOptional(TypedDict, total=False):
    w: float            # paper: w(x, y) for x aligned onto y
    coverage: float     # paper: the same over |yield(x)|
    dice: float         # paper, --units dice (instead of w and coverage): 2 O / (|yield(v)| + |yield(u)|)
    similarity: float   # legacy


class UnitPairDoc(_UnitPairOptional):
    """A pair of the node alignment, by unit index."""

    source: int
    correction: int


class _UnitVerdictOptional(TypedDict, total=False):
    compared: bool      # legacy: in N(P)
    matched: bool       # legacy: a best partner with a compatible label
    similarity: float   # legacy, compared units
    reason: str         # when not aligned (paper) or not matched (legacy)


class UnitVerdictDoc(_UnitVerdictOptional):
    """What one direction did with a unit: the other side's units aligned with it."""

    aligned: list[int]


class _EdgeVerdictOptional(TypedDict, total=False):
    matches: list[int]  # compared edges: the other side's edges that match it
    reason: str         # when not compared or not matched
    weight: float       # compared edges, under --edge-weights other than uniform
    credit: float       # compared edges, under --tokens contextual: what the edge earned, 0 to 1


class EdgeVerdictDoc(_EdgeVerdictOptional):
    """What one direction did with an edge (paper variant)."""

    compared: bool
    matched: bool


#: Who aligns onto whom: a side, or ``both`` (legacy, which compares units both ways at once).
Party = Literal["source", "correction", "both"]

#: One direction (``s->r``, ``r->s``, or ``legacy``): ``from`` is the side whose units are
#: aligned onto the other's. Functional syntax: ``from`` is a keyword.
_DirectionBase = TypedDict("_DirectionBase", {
    "from": Party, "to": Party, "counts": CountsDoc, "unit_alignment": list[UnitPairDoc],
    "units": dict[Side, list[UnitVerdictDoc]],
})


class DirectionDoc(_DirectionBase, total=False):
    """One direction; ``edges`` only in the paper variant (legacy compares units)."""

    edges: dict[Side, list[EdgeVerdictDoc]]


class _UnalignedTokenOptional(TypedDict, total=False):
    left_out_too: list[int]   # related tokens of the other side the alignment left out as well
    would_cross: bool         # pairing it with the first of them would cross the aligned pairs


class UnalignedTokenDoc(_UnalignedTokenOptional):
    """A content token the leaf alignment left out, and why."""

    token: int
    text: str
    reason: str


class HeadDoc(TypedDict):
    """What every explanation starts with: the settings, the score and both graphs."""

    format: int
    version: str
    settings: dict[str, Any]
    signature: str
    score: ScoreDoc
    graphs: dict[Side, GraphDoc]
    sentences: list[SentenceDoc]


class LeavesDoc(TypedDict):
    """The leaf edges ``--leaves`` counts: their weight, each side's content tokens and how
    many the leaf alignment aligned (the matched ones; in every direction's counts)."""

    weight: int
    source: int
    correction: int
    aligned: int


class ParaphraseDoc(TypedDict):
    """A substitution gap the paraphrase judge was asked about (``--tokens paraphrase``): each
    side's content tokens, their words, and the verdict (``similarity`` is None where a rule
    refused the gap before the judge's model was asked)."""

    source: list[int]
    correction: list[int]
    source_text: str
    correction_text: str
    paraphrase: bool
    similarity: float | None
    reason: str


class _DetailOptional(TypedDict, total=False):
    note: str                                               # legacy
    unaligned_tokens: dict[Side, list[UnalignedTokenDoc]]   # paper, --tokens lexical|ordered|paraphrase
    paraphrases: list[ParaphraseDoc]                        # paper, --tokens paraphrase
    leaves: LeavesDoc                                       # paper, --leaves 1|2|3|8
    token_credits: list[float]                              # paper, --tokens contextual: per aligned pair
    restated_tokens: dict[Side, list[int]]                  # paper, --order splits: counted on neither side
    moved_tokens: list[list[int]]                           # paper: aligned pairs that cross the others (moved)


class DetailDoc(_DetailOptional):
    """What the variant did: the token alignment (0-based pairs) and each direction."""

    detail: Literal["paper", "legacy"]
    token_alignment: list[list[int]]
    directions: dict[str, DirectionDoc]


class ExplanationDoc(HeadDoc, DetailDoc):
    """The whole document, as :func:`semsim.app.explain.explain` returns it and ``--json`` writes it."""
