"""Graphs of this plugin back to CoNLL-U, every graph of a run in one file."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from semsim.kernel.graph import Graph


def write(graphs: Sequence[Graph], path: Path) -> None:
    """Graphs of this plugin to one CoNLL-U file (a sentence each): the unit anchored to a
    word gives its head (the word its parent unit is anchored to) and its relation."""
    out = []
    for g in graphs:
        word_of = {u: unit.anchors[0] + 1 for u, unit in enumerate(g.units) if unit.anchors}
        out += [f"# sent_id = {g.id}", f"# text = {g.text}"]
        for u, i in sorted(word_of.items(), key=lambda item: item[1]):
            edge = g.edges[g.incoming[u][0]]
            out.append("\t".join([str(i), g.tokens[i - 1].text, "_", "_", "_", "_",
                                  str(word_of.get(edge.parent, 0)), edge.labels[0], "_", "_"]))
        out.append("")
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
