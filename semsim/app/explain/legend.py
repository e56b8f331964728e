"""The page's legend of labels: the labels the two graphs use, each with what its scheme calls it.

A representation's categories are often one letter (UCCA's A, P, S, D, E, C, ...), which a
reader who does not know the scheme cannot read. The names come from the scheme
(:attr:`semsim.kernel.scheme.Scheme.label_names`); the document keeps only the scheme's name, so they
are found through the schemes the plugins register, and the JSON stays as it was.
"""

from __future__ import annotations

from collections.abc import Mapping

from .schema import SIDES, ExplanationDoc


def registered_names(doc: ExplanationDoc) -> dict[str, str]:
    """The label names of the document's schemes, as the installed plugins register them
    (none for a scheme no plugin registers)."""
    from ..plugins import schemes
    found = schemes()
    names: dict[str, str] = {}
    for side in SIDES:
        scheme = found.get(doc["graphs"][side]["scheme"])
        if scheme is not None:
            names.update(scheme.label_names)
    return names


def used_labels(doc: ExplanationDoc, names: Mapping[str, str]) -> list[tuple[str, str]]:
    """``(label, name)`` of every label on an edge of either graph, ``""`` where the scheme
    names none: the named ones in the scheme's order (UCCA's lists scenes and their parts
    first), then the others alphabetically."""
    used = {label for side in SIDES for e in doc["graphs"][side]["edges"] for label in e["labels"]}
    order = {label: n for n, label in enumerate(names)}
    return [(label, names.get(label, "")) for label in sorted(used, key=lambda x: (order.get(x, len(order)), x))]


def edge_title(labels: list[str], names: Mapping[str, str]) -> str:
    """An edge's tooltip: its labels with their names (``A Participant``), ``""`` if none is named."""
    if not any(label in names for label in labels):
        return ""
    return " / ".join(f"{label} {names[label]}" if label in names else label for label in labels)
