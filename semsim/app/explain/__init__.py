"""``semsim explain``: why USim gave a pair the score it did.

:func:`explain` builds the explanation as JSON-able data from the metric's own functions
(:mod:`.document`, its shape typed in :mod:`.schema`); :func:`render_html` draws it as one
self-contained HTML page, one drawing per sentence with a list of the unmatched edges
(:mod:`.page`, over :mod:`.layout`, :mod:`.svg` and :mod:`.misses`); :func:`summary` is the
short text, wrapped to the terminal, that the command prints when asked for no file
(:mod:`.text_summary`: a module named ``summary`` would be hidden by this function).
"""

from __future__ import annotations

from .document import explain
from .page import render_html
from .schema import ExplanationDoc
from .text_summary import summary

__all__ = ["ExplanationDoc", "explain", "render_html", "summary"]
