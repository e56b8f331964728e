"""The Python API a metric suite calls: functions and a sacrebleu-style scorer.

The public face of the house: written in the application (:mod:`semsim.app.usim`, beside
what it uses) and only re-exported here, so that no module below imports the top level."""

from __future__ import annotations

from .app.usim import (
    VARIANTS,
    GraphLike,
    Parses,
    ParseSettings,
    USim,
    dag_f,
    distsim,
    parse,
    parse_texts,
    read,
    read_all,
    usim,
)

__all__ = ["VARIANTS", "GraphLike", "ParseSettings", "Parses", "USim", "dag_f", "distsim", "parse", "parse_texts",
           "read", "read_all", "usim"]
