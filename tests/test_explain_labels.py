"""The explanation page's edge labels never cover one another where a unit has two parents
(issue #58.8: an SRL plugin's argument of two predicates showed "ARARGM-DIR", "ARG" drawn over
"ARGM-DIR": both edges end at the unit, and each label sat at the same fraction of its edge)."""

from __future__ import annotations

import itertools
import re

import pytest

from semsim.app.explain.document import explain
from semsim.app.explain.layout import blocks, label_width
from semsim.app.explain.svg import render_svg
from semsim.kernel.graph import Unit, build_graph

LABEL = re.compile(r'<text class="elabel[^"]*" x="([-\d.]+)" y="([-\d.]+)">([^<]*)</text>')

GRAPHS = {
    "two parents side by side": build_graph(
        ["a", "b", "c"], [Unit("0"), Unit("p1", anchors=(0,)), Unit("p2", anchors=(2,)), Unit("c", anchors=(1,))],
        [(0, 1, "root"), (0, 2, "root"), (1, 3, "ARG"), (2, 3, "ARGM-DIR")]),
    "an argument of two predicates": build_graph(
        ["He", "went", "home", "quickly", "today"],
        [Unit("0"), Unit("p1", anchors=(1,)), Unit("p2", anchors=(3,)), Unit("a", anchors=(0,)),
         Unit("b", anchors=(2,)), Unit("c", anchors=(4,))],
        [(0, 1, "root"), (0, 2, "root"), (1, 3, "ARG0"), (2, 3, "ARGM-DIR"), (1, 4, "ARG1"), (2, 5, "ARGM-TMP")]),
}


def covered(svg: str) -> list[tuple[str, str]]:
    """Pairs of edge labels whose boxes (label_width wide, a line high) overlap."""
    labels = [(float(x), float(y), text) for x, y, text in LABEL.findall(svg)]
    return [(a, b) for (x1, y1, a), (x2, y2, b) in itertools.combinations(labels, 2)
            if abs(y1 - y2) < 12 and abs(x1 - x2) < (label_width(a) + label_width(b)) / 2 - 6]


@pytest.mark.parametrize("name", GRAPHS)
def test_the_labels_of_a_unit_s_two_incoming_edges_do_not_cover_each_other(name):
    g = GRAPHS[name]
    doc = explain(g, g)
    svg = "".join(render_svg(doc, b) for b in blocks(doc))
    assert len(LABEL.findall(svg)) == 2 * len(g.edges)  # every label drawn, in both graphs
    assert covered(svg) == []
