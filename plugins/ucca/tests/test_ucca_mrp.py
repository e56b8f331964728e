"""UCCA read from MRP equals UCCA read from XML, on the MRP sample's WSJ sentences."""

from __future__ import annotations

from collections import Counter

import pytest

import semsim

pytestmark = pytest.mark.slow

PTB_QUOTES = {"``": '"', "''": '"'}


def canonical(g):
    """Edges by the yields they connect (node ids differ between the formats). MRP 2019 omits
    UCCA's implicit units, so edges into them are left out."""
    def key(u):
        return tuple(sorted(g.yields[u])), g.units[u].kind
    edges = Counter((key(e.parent), key(e.child), e.labels, e.remote) for e in g.edges
                    if not g.units[e.child].implicit)
    return edges, [PTB_QUOTES.get(t.text, t.text) for t in g.tokens], [t.punct for t in g.tokens], g.sentence_ends


@pytest.mark.needs_shared
def test_mrp_and_xml_give_the_same_ucca_graphs(shared):
    sample = shared / "data" / "mrp-sample"
    graphs = semsim.read_all(sample / "ucca.mrp")
    assert len(graphs) == 87 and all(g.scheme.name == "ucca" for g in graphs)
    for g in graphs:  # MRP id 20003005 is wsj_0003.5
        xml = semsim.read(sample / "ucca-xml" / f"wsj_{g.id[1:5]}.{int(g.id[5:])}.xml")
        assert canonical(g) == canonical(xml), g.id
