"""The built-in MRP reader and its generic conversion (for frameworks no plugin claims)."""

from __future__ import annotations

import json

import pytest

import semsim
from semsim.kernel.formats.mrp import MrpGraph, read_mrp

GRAPH = {"id": "g1", "framework": "toyframe", "input": "Kim sleeps.", "tops": [3],
         "nodes": [{"id": 0, "anchors": [{"from": 0, "to": 3}], "label": "kim"},
                   {"id": 1, "anchors": [{"from": 4, "to": 10}]}, {"id": 2, "anchors": [{"from": 10, "to": 11}]},
                   {"id": 3}],
         "edges": [{"source": 3, "target": 0, "label": "A"}, {"source": 3, "target": 0, "label": "B"},
                   {"source": 3, "target": 1, "label": "P"}, {"source": 3, "target": 2, "label": "U"},
                   {"source": 1, "target": 0, "label": "A", "properties": ["remote"], "values": [True]}]}


def test_generic_conversion(isolated_plugins, tmp_path):
    f = tmp_path / "x.mrp"
    f.write_text(json.dumps(GRAPH) + "\n")
    (m,) = read_mrp(f)
    assert isinstance(m, MrpGraph) and m.framework == "toyframe"
    g = semsim.read(f)
    assert [t.text for t in g.tokens] == ["Kim", "sleeps", "."] and g.tokens[2].punct
    assert g.units[g.root].id == "3" and g.units[0].label == "kim"
    assert {(e.parent, e.child): (e.labels, e.remote) for e in g.edges} == {
        (3, 0): (("A", "B"), False), (3, 1): (("P",), False), (3, 2): (("U",), False), (1, 0): (("A",), True)}
    assert semsim.usim(g, g).f == 1.0


def test_bad_lines_name_file_and_line(isolated_plugins, tmp_path):
    f = tmp_path / "bad.mrp"
    f.write_text(json.dumps(GRAPH) + "\n{not json\n")
    with pytest.raises(semsim.InputError, match=r"bad\.mrp:2: not an MRP graph"):
        semsim.read_all(f)
    broken = dict(GRAPH, edges=[{"source": 3, "target": 9, "label": "A"}])
    f.write_text(json.dumps(broken) + "\n")
    with pytest.raises(semsim.InputError, match=r"bad\.mrp:1: graph g1: edge #1: target 9 is not the id of a node"):
        semsim.read_all(f)


def test_a_bad_line_costs_only_its_own_graph(isolated_plugins, tmp_path):
    from semsim.app.reading import iter_graphs
    broken = dict(GRAPH, id="g2", edges=[{"source": 3, "target": 9, "label": "A"}])
    f = tmp_path / "mixed.mrp"
    f.write_text("\n".join([json.dumps(GRAPH), "{not json", json.dumps(broken), json.dumps(dict(GRAPH, id="g4"))])
                 + "\n", encoding="utf-8")
    got = list(iter_graphs(f, errors="yield"))
    assert [g.id if isinstance(g, semsim.Graph) else str(g) for g in got] == [
        "g1", f"{f}:2: not an MRP graph: malformed JSON: Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1)", f"{f}:3: graph g2: edge #1: target 9 is not the id of a node", "g4"]
    f.write_bytes(b"\xff{}\n")
    with pytest.raises(semsim.InputError, match=r"mixed\.mrp:1: not UTF-8"):
        list(iter_graphs(f, errors="yield"))
