"""What semsim needs to know about UCCA, as data (plus UCCA's sentence ends)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

from semsim.kernel.graph import Edge, Graph, Token, Unit
from semsim.kernel.scheme import Scheme

#: UCCA's foundational layer, as ``ucca.evaluation`` compares it: P~S, H~C, N~L, F~R are
#: equivalent in weak labelled matching; punctuation (U) and linkage (LA, LR, LKG nodes)
#: are not compared; DistSim's groups are the paper's Table 1 columns (Scenes counted by
#: their main relation, P or S). Label weights (USim's ``edge_weights="scheme"``) follow
#: UCCA's own hierarchy: a scene (H), its main relation (P, S) and its participants (A)
#: carry a text's meaning, adverbials (D) and centers (C) refine it, function words and
#: relators (F, R) carry the least; elaborators, quantifiers and the rest weigh 1. Label
#: names are the foundational layer's categories as the UCCA guidelines and ``ucca.layer1.EdgeTags``
#: name them (the explanation page's legend).
UCCA = Scheme(
    name="ucca",
    equivalences=(frozenset("PS"), frozenset("HC"), frozenset("NL"), frozenset("FR")),
    ignored_labels=frozenset({"U", "LA", "LR", "Terminal"}),
    ignored_kinds=frozenset({"PNCT", "LKG"}),
    label_groups={"A+D": ("A", "D"), "Scene": ("P", "S")},
    label_weights={"H": 3, "P": 3, "S": 3, "A": 3, "D": 2, "C": 2, "F": 0.5, "R": 0.5},
    label_names={"H": "Parallel Scene", "P": "Process", "S": "State", "A": "Participant", "D": "Adverbial",
                 "C": "Center", "E": "Elaborator", "N": "Connector", "R": "Relator", "L": "Linker",
                 "G": "Ground", "F": "Function", "T": "Time", "Q": "Quantifier", "U": "Punctuation",
                 "LR": "Link Relation", "LA": "Link Argument", "UNA": "Unanalyzable", "UNC": "Uncertain",
                 "Terminal": "Terminal"},
)

_SENTENCE_FINAL = frozenset(".?!")


def punctuation_unit(entered_by_u: bool, texts: Sequence[str]) -> bool:
    """Whether a unit is UCCA's punctuation unit (``PNCT``, as UCCA XML marks it): a ``U`` edge
    enters it, it has tokens (``texts``), and they hold no letter or digit. The one rule the
    MRP reader and the span parser's graphs both follow; a token is punctuation exactly when
    such a unit holds it."""
    return entered_by_u and bool(texts) and not any(ch.isalnum() for t in texts for ch in t)


def sentence_ends(g: Graph) -> tuple[int, ...]:
    """1-based positions ending sentences, as the authors' USim code finds them.

    Candidates are tokens ending in ``.``, ``?`` or ``!``; one is kept if it ends a top-level
    scene, or follows one and starts none. Paragraph ends and the last token are added.
    (``docs/legacy.md`` step 1.)
    """
    # the yields are asked for unit by unit, only for scene units: a graph's yields are bounded
    # (SEMSIM_MAX_YIELDS), and one without scenes must not be refused here, while it is read
    return sentence_ends_of(g.tokens, g.units, g.edges, g.root, lambda u: g.yields[u])


def sentence_ends_of(tokens: Sequence[Token], units: Sequence[Unit], edges: Iterable[Edge], root: int,
                     yields: Callable[[int], Collection[int]]) -> tuple[int, ...]:
    """:func:`sentence_ends` from a graph's parts and a unit's yield (a function of its index), for a converter that
    knows them before it builds the graph (the span parser's trees): the graph is then built
    once, sentence ends and all, rather than built and copied."""
    n = len(tokens)
    if not n:
        return ()
    edges = tuple(edges)
    parent = [-1] * len(units)  # the primary parent of foundational kind ("fparent")
    for e in edges:
        if not e.remote and units[e.parent].kind == "FN" and parent[e.child] < 0:
            parent[e.child] = e.parent
    scene = [False] * len(units)
    for e in edges:
        if units[e.parent].kind == "FN" and ("P" in e.labels or "S" in e.labels):
            scene[e.parent] = True
    starts, ends = set(), set()
    for u, unit in enumerate(units):
        if unit.kind != "FN" or not scene[u] or not yields(u):
            continue
        a = parent[u]
        while a not in (-1, root) and not scene[a]:
            a = parent[a]
        if a in (-1, root):
            starts.add(min(yields(u)) + 1)
            ends.add(max(yields(u)) + 1)
    marks = set()
    for i, t in enumerate(tokens):
        x = i + 1
        if t.text and t.text[-1] in _SENTENCE_FINAL and (x in ends or (x - 1 in ends and x not in starts)):
            marks.add(x)
    marks.update(i for i, t in enumerate(tokens) if t.para_pos == 1 and i > 0)  # position before, 1-based
    marks.add(n)
    return tuple(sorted(marks))


def finish(g: Graph, **changes: Any) -> Graph:
    """Attach the UCCA scheme and sentence ends to a freshly converted graph, with
    ``changes`` (fields the sentence ends do not depend on, such as the tokens' punctuation
    flags), in one copy: every copy of a graph is validated again, cycle check included
    (with four copies, converting the span parser's output was a sixth of its time on
    CoNLL-2014)."""
    return g.with_(scheme=UCCA, sentence_ends=sentence_ends(g), **changes)


def node_order(node_id: str) -> tuple[int, ...]:
    """A UCCA node ID (``1.12``) as a sort key: layer, then number, numerically (``1.9``
    before ``1.10``), so that units come out in the order the annotators created them;
    an ID of another form sorts last."""
    try:
        return tuple(int(p) for p in node_id.split("."))
    except ValueError:
        return (1 << 30,)
