"""Exceptions that carry enough context for a one-line message.

The CLI prints ``str(error)`` and exits non-zero, so every error raised for bad input
names the file and, where known, the line: ``essay.xml:12: unknown edge target '1.99'``.
"""

from __future__ import annotations

import contextvars
import os
from collections.abc import Sequence

#: whether semsim's command line is running (set by the CLI): an error names the option
#: there (``--model DIR``) and the Python keyword elsewhere (``model=DIR``), so that a
#: caller of the API is never told about options it has no way to pass
COMMAND_LINE: contextvars.ContextVar[bool] = contextvars.ContextVar("semsim_command_line", default=False)


def option(name: str, value: str = "") -> str:
    """How the user gives setting ``name`` (``model``, ``batch_timeout``) where it is given:
    ``--model DIR`` on the command line, ``model=DIR`` from Python."""
    if COMMAND_LINE.get():
        return f"--{name.replace('_', '-')}" + (f" {value}" if value else "")
    return f"{name}={value or '...'}"


class SemsimError(Exception):
    """Base class: anything semsim reports to a user as a one-line error."""

    #: the 0-based position of the pair a Python API call over many pairs failed on, where it
    #: says (``USim.text_scores(errors="raise")``); None otherwise
    index: int | None = None


class InputError(SemsimError):
    """Malformed, empty or mismatched input, located by file and (optionally) line."""

    def __init__(self, message: str, path: str | os.PathLike[str] | None = None, line: int | None = None):
        self.message = message
        self.path = None if path is None else os.fspath(path)
        self.line = line
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = self.path + (f":{self.line}" if self.line is not None else "") + ": "
        return where + self.message


class SettingsError(SemsimError, ValueError):
    """Settings that are unknown, or that the chosen variant would silently ignore (a score
    whose signature lacks a setting the user asked for would be a quiet lie). ``settings``
    names the ignored ones, so that the CLI can name its own options instead."""

    def __init__(self, message: str, settings: Sequence[str] = ()):
        self.settings = tuple(settings)
        super().__init__(message)


class GraphError(SemsimError):
    """A graph that breaks the model's invariants (dangling edge, cycle, bad anchor)."""


class PluginError(SemsimError):
    """No plugin (or more than one) can handle a request, or a plugin misbehaved."""


class RecordFault(PluginError):
    """A registered record the kernel calls (a ``"paraphrase judge"``, a ``"word encoder"``:
    ``record``) misbehaved, and ``detail`` says how. The kernel knows no plugin; the
    application, which knows which plugin registered the record, names it from these two
    fields (:mod:`semsim.app.usim`), never from the message's words."""

    def __init__(self, record: str, detail: str):
        super().__init__(f"{record} {detail}")
        self.record, self.detail = record, detail

    def __reduce__(self) -> tuple[type, tuple[str, str]]:
        return RecordFault, (self.record, self.detail)


class ParseError(SemsimError):
    """A parser produced no usable graph for some sentences of a batch (``sentences``).

    Unlike other errors of a parser (a missing model, say), this one is about the
    sentences, not the run: the parsing route parses the rest of the batch and reports these."""

    def __init__(self, message: str, sentences: Sequence[str] = ()):
        self.sentences = list(sentences)
        super().__init__(message)

    def __reduce__(self) -> tuple[type, tuple[str, list[str]]]:
        # crosses process boundaries (--jobs) as a ParseError whatever a subclass's __init__ takes
        return ParseError, (str(self), self.sentences)
