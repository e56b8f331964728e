"""semsim's plugin for the MRP frameworks DM, PSD and EDS: hook implementations only.

It claims MRP graphs of these frameworks in ``to_graph`` (before the core's generic MRP
fallback, which would refuse cyclic PSD graphs and know nothing of tops or predicates) and
registers each community's metric: SDP labelled F1 for DM and PSD, EDM for EDS. The core
names none of them: this is a plugin as any third party would write it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from semsim.kernel.graph import Graph
from semsim.kernel.hookspecs import hookimpl
from semsim.kernel.records import MetricSpec
from semsim.kernel.scheme import Scheme

#: the plugin API this plugin is written for (semsim refuses it under another major version)
SEMSIM_PLUGIN_API = "1.0"


@hookimpl
def register_metrics(register: Callable[[MetricSpec], None]) -> None:
    from .metrics import edm_graphs, sdp_graphs
    for fw in ("dm", "psd"):
        register(MetricSpec(f"sdp-{fw}", fw, sdp_graphs,
                        "SDP 2014/2015 labelled dependency F1 (tops as virtual edges), deterministic"))
    register(MetricSpec("edm", "eds", edm_graphs, "EDM (Dridan & Oepen 2011): names, arguments, properties, tops"))


@hookimpl
def register_schemes(register: Callable[[Scheme], None]) -> None:
    from .adapter import SCHEMES
    for scheme in SCHEMES.values():
        register(scheme)


@hookimpl
def to_graph(obj: Any) -> Graph | None:
    from semsim.kernel.formats.mrp import MrpGraph
    if isinstance(obj, MrpGraph) and obj.framework in ("dm", "psd", "eds"):
        from .adapter import mrp_framework_to_graph
        return mrp_framework_to_graph(obj)
    return None
