"""semsim: how faithfully one text keeps the meaning of another, by comparing their
meaning-representation graphs (USim, DAG F-score, DistSim; Choshen & Abend 2018).

The functions here are the public API::

    import semsim
    src, cor = semsim.read("source.xml"), semsim.read("correction.xml")
    semsim.usim(src, cor).f                 # paper definition, both directions averaged
    semsim.usim(src, cor, variant="legacy")  # what the authors' released code computes
    semsim.USim().corpus_score(zip(sources, corrections), n_bootstrap=1000)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .api import ParseSettings, USim, compare, dag_f, distsim, read, read_all, usim
from .kernel.errors import GraphError, InputError, ParseError, PluginError, SemsimError, SettingsError
from .kernel.graph import Edge, Graph, Token, Unit, build_graph
from .kernel.limits import LimitError
from .kernel.scheme import Scheme
from .kernel.stats import CorpusScore, Counts, Score, corpus_score
from .kernel.version import __version__

if TYPE_CHECKING:
    from .app.scorer import Scorer


def __getattr__(name: str) -> Any:
    """``semsim.Scorer`` on first use (:mod:`semsim.api`): its route from text to scores is not
    paid for by ``import semsim``."""
    if name == "Scorer":
        from .api import Scorer
        return Scorer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "CorpusScore", "Counts", "Edge", "Graph", "GraphError", "InputError", "LimitError", "ParseError", "ParseSettings",
    "PluginError", "Scheme", "Score", "Scorer", "SemsimError", "SettingsError", "Token", "USim", "Unit",
    "__version__", "build_graph", "compare", "corpus_score", "dag_f", "distsim", "read", "read_all", "usim",
]
