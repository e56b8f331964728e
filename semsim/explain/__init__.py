"""``semsim explain``: why USim gave a pair the score it did.

:func:`explain` builds the explanation as JSON-able data from the metric's own functions
(:mod:`.model`); :func:`render_html` draws it as one self-contained HTML page, one drawing
per sentence with a list of the unmatched edges (:mod:`.render`); :func:`summary` is the
short text, wrapped to the terminal, that the command prints when asked for no file.
"""

from __future__ import annotations

from .model import explain
from .render import render_html, summary

__all__ = ["explain", "render_html", "summary"]
