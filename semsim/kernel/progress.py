"""Progress on stderr: a live bar on a terminal, and, when stderr is a file or a pipe (a
batch job's log), one plain status line every ``SEMSIM_PROGRESS_INTERVAL`` seconds (30 by
default) instead of carriage-return redraws, so that a log of a long run says how far it got.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Iterable
from typing import Any, TextIO

from tqdm import tqdm

from .errors import SemsimError

#: How a status line reads in a log: "parsing with ucca-span: 4,000/10,000 sent (40%), 13.2 sent/s, 05:02".
LOG_FORMAT = "{desc}: {n_fmt}/{total_fmt} {unit} ({percentage:.0f}%), {rate_fmt}, {elapsed} elapsed"


class _Lines:
    """A stream for tqdm that turns its carriage-return redraws into whole lines, from the
    first interval on: a run shorter than that leaves no progress in the log at all."""

    def __init__(self, stream: TextIO, interval: float):
        self.stream, self.interval = stream, interval
        self.started = time.monotonic()

    def write(self, text: str) -> None:
        line = text.replace("\r", "").rstrip()
        if line and time.monotonic() - self.started >= self.interval:
            self.stream.write(line + "\n")

    def flush(self) -> None:
        self.stream.flush()


def bar(iterable: Iterable[Any] | None = None, *, total: int | None = None, desc: str = "", unit: str = "it",
        quiet: bool = False, **kwargs: Any) -> tqdm:
    """A progress bar on stderr (``quiet``: none), as described in the module docstring;
    other keyword arguments go to tqdm (``unit_scale``, ``leave``...)."""
    if quiet:
        return tqdm(iterable, total=total, disable=True)
    if sys.stderr.isatty():
        return tqdm(iterable, total=total, desc=desc, unit=unit, file=sys.stderr, **{"leave": False, **kwargs})
    interval = progress_interval()
    return tqdm(iterable, total=total, desc=desc, unit=unit, file=_Lines(sys.stderr, interval), mininterval=interval,
                maxinterval=interval, ascii=True, bar_format=LOG_FORMAT, **{**kwargs, "leave": True})


def progress_interval() -> float:
    """``SEMSIM_PROGRESS_INTERVAL`` in seconds (30 unset; 0: every update), refused unless a
    number of seconds."""
    raw = os.environ.get("SEMSIM_PROGRESS_INTERVAL", "").strip()
    try:
        value = float(raw) if raw else 30.0
    except ValueError:
        value = float("nan")
    if not math.isfinite(value) or value < 0:
        raise SemsimError(f"SEMSIM_PROGRESS_INTERVAL={raw!r}: expected a number of seconds, 0 or more")
    return value


#: ``semsim -v`` as the command line passed it (:func:`set_verbose`); None: ``SEMSIM_VERBOSE`` says
_verbose: list[bool] = []


def set_verbose(on: bool) -> None:
    """Say whether to show what plugins' libraries print, in this process (the command line's
    ``-v``; a local worker process is handed it as it starts)."""
    _verbose[:] = [on]


def verbose() -> bool:
    """Whether the user asked to see what a plugin's libraries print (``semsim -v``, passed
    here by :func:`set_verbose`, or ``SEMSIM_VERBOSE`` set in the environment).

    Parsers wrap libraries that talk (TUPA announces every file it loads, DyNet its memory
    pool, from C++): by default a plugin keeps that off the user's terminal, which belongs
    to semsim's progress bar and one-line errors, and shows it only when this is true (or
    when loading fails, where it helps to find out why)."""
    return _verbose[0] if _verbose else bool(os.environ.get("SEMSIM_VERBOSE"))
