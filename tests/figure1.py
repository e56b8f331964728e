"""The paper's Figure 1 as generic graphs (no plugin needed).

Source "He gva an apple for john": [H [A He] [P gva] [A [E an] [C apple]] [A [R for] [C john]]]
Correction "He gave John an apple": [H [A He] [P gave] [A John] [A [E an] [C apple]]]
"""

from semsim import Unit, build_graph


def source():
    return build_graph(
        ["He", "gva", "an", "apple", "for", "john"],
        [Unit("root"), Unit("scene"), Unit("He", anchors=(0,)), Unit("gva", anchors=(1,)), Unit("an apple"),
         Unit("an", anchors=(2,)), Unit("apple", anchors=(3,)), Unit("for john"), Unit("for", anchors=(4,)),
         Unit("john", anchors=(5,))],
        [(0, 1, "H"), (1, 2, "A"), (1, 3, "P"), (1, 4, "A"), (4, 5, "E"), (4, 6, "C"), (1, 7, "A"),
         (7, 8, "R"), (7, 9, "C")], id="fig1-source")


def correction():
    return build_graph(
        ["He", "gave", "John", "an", "apple"],
        [Unit("root"), Unit("scene"), Unit("He", anchors=(0,)), Unit("gave", anchors=(1,)),
         Unit("John", anchors=(2,)), Unit("an apple"), Unit("an", anchors=(3,)), Unit("apple", anchors=(4,))],
        [(0, 1, "H"), (1, 2, "A"), (1, 3, "P"), (1, 4, "A"), (1, 5, "A"), (5, 6, "E"), (5, 7, "C")],
        id="fig1-correction")
