"""A dependency tree as a semsim graph, and the scheme it declares."""

from __future__ import annotations

from semsim.kernel.adapt import is_punct
from semsim.kernel.graph import Edge, Graph, Token, Unit
from semsim.kernel.scheme import Scheme

from .conllu import Sentence

DEPS = Scheme(
    "deps",
    # UD's names and spaCy's English (ClearNLP) names of one relation match in weak matching
    equivalences=(frozenset({"obj", "dobj"}), frozenset({"iobj", "dative"})),
    ignored_labels=frozenset({"punct"}),
    label_groups={"core": ("nsubj", "obj", "dobj", "iobj", "dative")},
    label_names={"nsubj": "nominal subject", "obj": "object", "dobj": "direct object", "obl": "oblique"},
)


def to_graph(s: Sentence) -> Graph:
    """Unit 0 is the root; unit i is word i, anchored to its token, under its head's unit: a
    unit's yield is the word's subtree, so USim compares subtrees and their relations."""
    tokens = tuple(Token(w, punct=is_punct(w)) for w in s.words)
    units = (Unit("0"), *(Unit(str(i), kind="word", anchors=(i - 1,)) for i in range(1, len(s.words) + 1)))
    edges = tuple(Edge(head, i, rel) for i, (head, rel) in enumerate(zip(s.heads, s.relations), 1))
    return Graph(tokens, units, edges, scheme=DEPS, id=s.id)
