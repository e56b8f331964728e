"""Hand-made DM and EDS graphs (MRP dictionaries) shared by ``test_sdp.py`` and ``test_fuzz_sdp.py``.

Not a test module: the tests import it by name (pytest puts this directory on ``sys.path``)."""

from __future__ import annotations

TEXT = "The cat sat ."


def node(i: int, label: str, a: int, b: int, **props: str) -> dict:
    n = {"id": i, "label": label, "anchors": [{"from": a, "to": b}]}
    if props:
        n.update(properties=list(props), values=list(props.values()))
    return n


def edge(s: int, t: int, label: str) -> dict:
    return {"source": s, "target": t, "label": label}


def mrp(framework: str, nodes: list[dict], edges: list[dict], tops: list[int], text: str = TEXT,
        id: str = "1") -> dict:
    return {"id": id, "framework": framework, "input": text, "tops": tops, "nodes": nodes, "edges": edges}


THE, CAT, SAT = node(0, "the", 0, 3), node(1, "cat", 4, 7), node(2, "sit", 8, 11)
DM_GOLD = mrp("dm", [THE, CAT, SAT], [edge(0, 1, "BV"), edge(2, 1, "ARG1")], [2])
DM_SYS = mrp("dm", [THE, CAT, SAT], [edge(0, 1, "BV"), edge(2, 1, "ARG2"), edge(2, 0, "ARG1")], [2])

EDS_GOLD = mrp("eds", [node(0, "_the_q", 0, 3), node(1, "_cat_n_1", 4, 7), node(2, "_sit_v_1", 8, 13)],
               [edge(0, 1, "BV"), edge(2, 1, "ARG1")], [2])
EDS_SYS = mrp("eds", [node(0, "_the_q", 0, 3), node(1, "_dog_n_1", 4, 7), node(2, "_sit_v_1", 8, 11),
                      node(3, "named", 4, 7, carg="Cat")],
              [edge(0, 1, "BV"), edge(2, 1, "ARG2")], [2])
