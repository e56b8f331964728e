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

from .api import USim, dag_f, distsim, read, read_all, usim
from .kernel.errors import GraphError, InputError, PluginError, SemsimError
from .kernel.graph import Edge, Graph, Token, Unit, build_graph
from .kernel.scheme import Scheme
from .kernel.stats import CorpusScore, Counts, Score, corpus_score
from .kernel.version import __version__

__all__ = [
    "CorpusScore", "Counts", "Edge", "Graph", "GraphError", "InputError", "PluginError", "Scheme", "Score",
    "SemsimError", "Token", "USim", "Unit", "__version__", "build_graph", "corpus_score", "dag_f",
    "distsim", "read", "read_all", "usim",
]
