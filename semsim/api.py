"""The Python API a metric suite calls: functions and a sacrebleu-style scorer.

The public face of the house: written in the application (:mod:`semsim.app.usim`, beside
what it uses) and only re-exported here, so that no module below imports the top level."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .app.usim import (
    VARIANTS,
    GraphLike,
    Parses,
    ParseSettings,
    USim,
    compare,
    dag_f,
    distsim,
    parse,
    parse_texts,
    read,
    read_all,
    usim,
)

if TYPE_CHECKING:
    from .app.scorer import Scorer


def __getattr__(name: str) -> Any:
    """``Scorer`` on first use: its route from text to scores is not paid for by ``import semsim``."""
    if name == "Scorer":
        from .app.scorer import Scorer
        return Scorer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["VARIANTS", "GraphLike", "ParseSettings", "Parses", "Scorer", "USim", "compare", "dag_f", "distsim",
           "parse", "parse_texts", "read", "read_all", "usim"]
