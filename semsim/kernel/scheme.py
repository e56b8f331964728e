"""What an adapter declares about its representation, as data.

The core never names a UCCA or AMR label. Label equivalences (UCCA's P~S, H~C, N~L, F~R),
which edges and units are outside comparison (punctuation, linkage), and named label
groups for DistSim all come from the plugin that built the graph, as a :class:`Scheme`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache


@cache
def _bit(label: str) -> int:
    """A process-wide bit per label. Only equality of bits matters, so the assignment
    order (and hence the hash seed or the order graphs are read) never changes a score."""
    return 1 << _bit.cache_info().currsize


@dataclass(frozen=True)
class Scheme:
    """Representation-specific facts the metrics need.

    Attributes:
        name: the representation's name, e.g. ``"ucca"``.
        equivalences: groups of labels treated as the same in "weak" labelled matching.
        ignored_labels: an edge bearing any of these labels is not compared.
        ignored_kinds: units of these kinds (and the edges into them) are not compared.
        label_groups: named sets of labels for DistSim, e.g. ``{"A+D": ("A", "D")}``.
        label_weights: what an edge of each label weighs when USim weighs edges by the
            scheme (``edge_weights="scheme"``): the representation's own ranking of its
            categories, e.g. a scene or a participant above a function word. An edge weighs
            its heaviest label's weight; labels not listed weigh 1.
        label_names: what each label stands for, for people, e.g. ``{"A": "Participant"}``:
            the explanation page's legend and tooltips name a representation's one-letter
            categories with it. No metric reads it.
    """

    name: str
    equivalences: tuple[frozenset[str], ...] = ()
    ignored_labels: frozenset[str] = frozenset()
    ignored_kinds: frozenset[str] = frozenset()
    label_groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    label_weights: Mapping[str, float] = field(default_factory=dict)
    label_names: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "equivalences", tuple(frozenset(g) for g in self.equivalences))
        object.__setattr__(self, "ignored_labels", frozenset(self.ignored_labels))
        object.__setattr__(self, "ignored_kinds", frozenset(self.ignored_kinds))
        object.__setattr__(self, "label_groups", {k: tuple(v) for k, v in dict(self.label_groups).items()})
        object.__setattr__(self, "label_weights", {k: float(v) for k, v in dict(self.label_weights).items()})
        object.__setattr__(self, "label_names", {k: str(v) for k, v in dict(self.label_names).items()})
        if any(not w > 0 for w in self.label_weights.values()):  # also refuses NaN
            raise ValueError(f"scheme {self.name!r}: label weights must be positive, got {self.label_weights}")

    def __hash__(self) -> int:
        return hash((self.name, self.equivalences, self.ignored_labels, self.ignored_kinds,
                     tuple(sorted(self.label_groups.items())), tuple(sorted(self.label_weights.items())),
                     tuple(sorted(self.label_names.items()))))

    def expand(self, labels: Iterable[str]) -> frozenset[str]:
        """The labels plus every label equivalent to one of them."""
        labels = frozenset(labels)
        return labels.union(*(g for g in self.equivalences if g & labels))

    def mask(self, labels: Iterable[str], weak: bool = False) -> int:
        """A bit mask of the labels (expanded when ``weak``): two label sets share a label
        exactly when their masks share a bit, which keeps matching loops cheap."""
        m = 0
        for label in self.expand(labels) if weak else labels:
            m |= _bit(label)
        return m

    def weight(self, labels: Iterable[str]) -> float:
        """An edge's weight under ``label_weights``: its heaviest label's (1 if none is listed)."""
        return max((self.label_weights.get(label, 1.0) for label in labels), default=1.0)

    def is_ignored_edge(self, labels: Iterable[str], child_kind: str) -> bool:
        return child_kind in self.ignored_kinds or not self.ignored_labels.isdisjoint(labels)


#: The scheme of graphs whose adapter declared nothing special.
PLAIN = Scheme("plain")


@lru_cache(maxsize=64)
def scheme_digest(scheme: Scheme) -> str:
    """A content hash of what in a scheme can change a number (12 hex digits of a SHA-256):
    its name, equivalences, ignored labels and kinds, label groups and weights, in a canonical
    order; not ``label_names``, which no metric reads. A plugin whose code changes while its
    version does not (an editable install, an inline ``SEMSIM_PLUGINS`` module) still signs
    its scores differently once its scheme does."""
    content = {"name": scheme.name, "equivalences": sorted(sorted(g) for g in scheme.equivalences),
               "ignored_labels": sorted(scheme.ignored_labels), "ignored_kinds": sorted(scheme.ignored_kinds),
               "label_groups": {k: sorted(v) for k, v in scheme.label_groups.items()},
               "label_weights": dict(scheme.label_weights)}
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode("utf-8")).hexdigest()[:12]


def other_scheme(a: Scheme, b: Scheme) -> str | None:
    """Why graphs of schemes ``a`` and ``b`` cannot be scored together (None: they can): two
    representations (a UCCA passage and an AMR: no label of one can match the other), or one
    name for two schemes (one graph's scheme edited in its file, or written by another
    version of its plugin), which a score would mix while its signature names ``a`` alone."""
    if a is b or a == b:
        return None
    if a.name != b.name:
        return f"two representations, {a.name!r} and {b.name!r}"
    if scheme_digest(a) == scheme_digest(b):  # they differ in label names only, which no number reads
        return None
    return (f"two schemes named {a.name!r}, {a.name}@{scheme_digest(a)} and {b.name}@{scheme_digest(b)} (one edited "
            "in its file, or written by another version of its plugin)")


#: Who made graphs of a scheme, by the scheme's name: ``NAME-VERSION`` of the plugin that
#: registered it, or None (the plugin manager's :func:`semsim.app.plugins.scheme_plugin`).
MadeBy = Callable[[str], "str | None"]

#: the one :data:`MadeBy` every signature asks, set by the application as it loads its plugin
#: manager (:func:`attribute_schemes`): the kernel knows no plugin, and a plugin's measure
#: signs its scores with its plugin as semsim's own measures do, without knowing the manager
_made_by: list[MadeBy] = []


def attribute_schemes(made_by: MadeBy) -> None:
    """Name who made each scheme's graphs in every signature from now on (the application's
    plugin manager calls this once)."""
    _made_by[:] = [made_by]


def scheme_fields(scheme: Scheme, made_by: MadeBy | None = None) -> dict[str, str]:
    """The signature fields that name the graphs' representation: ``scheme:NAME@HASH12``
    (:func:`scheme_digest`) and, where ``made_by`` (default: the one the application set,
    :func:`attribute_schemes`) knows it, ``plugin:DISTRIBUTION-VERSION``."""
    made_by = made_by or (_made_by[0] if _made_by else None)
    plugin = made_by(scheme.name) if made_by is not None else None
    return {"scheme": f"{scheme.name}@{scheme_digest(scheme)}", **({"plugin": plugin} if plugin else {})}
