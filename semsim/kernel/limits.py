"""Resource bounds: input too large for a quadratic step, or nested too deeply for a
recursive reader, is refused with one clear error instead of a ``MemoryError`` or
``RecursionError`` (or a machine swapping for an hour).

Every bound is far above real data (the longest JFLEG sentence is ~100 words, the deepest
AMR 3.0 graph ~25 levels) and can be raised through the environment when a user knows
their machine has the memory:

``SEMSIM_MAX_ALIGN_CELLS`` (default 16,000,000)
    The largest matrix an alignment builds: tokens × tokens of the token alignment
    (a cost matrix, and scipy's assignment solver, cubic in time) and units × units of the
    node alignment. About 40 bytes a cell at the peak, so the default is ~0.6 GB.
``SEMSIM_MAX_ALIGN_CHARS`` (default 10,000,000,000)
    The characters the token alignment's edit distances compare: all characters of one
    side × all of the other (rapidfuzz compares about 3·10^10 a second, so the default
    is a few seconds at most; a pair of 1 MB tokens would be 10^12). Real text is far
    below: a 600-word essay against its correction is ~10^7.
``SEMSIM_MAX_YIELDS`` (default 4,000,000)
    The total size of a graph's unit yields (each unit's set of tokens), which DAG F,
    USim and explain compute: depth × tokens, so a chain of units each adding a token
    grows with the square of its depth. About 60 bytes each (~0.25 GB at the default);
    the largest graph of the paper's essays has 4,568.
``SEMSIM_MAX_SENTENCE_TOKENS`` (default 1,000)
    The longest sentence a parser whose cost grows with the square of its length should
    take (semsim's span parser scores every span: 1,500 tokens need ~3.7 GB and 27 s).
``SEMSIM_MAX_TOKEN_CHARS`` (default 10,000)
    The longest token a reader takes (the UCCA XML reader checks it): no word is longer, and
    a 50 MB "token" (a corrupt or hostile file) only makes everything that reads it crawl.
``SEMSIM_MAX_INPUT_BYTES`` (default 536,870,912: 512 MiB)
    The largest text file (or standard input) read: a text is held in memory whole, decoded,
    so an endless stream (``--source /dev/zero``) would take all the memory there is.
    JFLEG's and CoNLL-2014's files are under 1 MB.
``SEMSIM_MAX_DEPTH`` (default 200)
    How deeply a graph may nest in a reader that recurses (PENMAN). penman recurses a few
    frames per level and slows down quadratically with depth (1,000 levels take ~8 s).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .errors import SemsimError

CELLS_ENV, DEFAULT_CELLS = "SEMSIM_MAX_ALIGN_CELLS", 16_000_000
CHARS_ENV, DEFAULT_CHARS = "SEMSIM_MAX_ALIGN_CHARS", 10_000_000_000
YIELDS_ENV, DEFAULT_YIELDS = "SEMSIM_MAX_YIELDS", 4_000_000
TOKENS_ENV, DEFAULT_TOKENS = "SEMSIM_MAX_SENTENCE_TOKENS", 1_000
DEPTH_ENV, DEFAULT_DEPTH = "SEMSIM_MAX_DEPTH", 200
INPUT_ENV, DEFAULT_INPUT = "SEMSIM_MAX_INPUT_BYTES", 512 * 2**20
TOKEN_CHARS_ENV, DEFAULT_TOKEN_CHARS = "SEMSIM_MAX_TOKEN_CHARS", 10_000
#: The most bootstrap resamples (or paired-test trials) a run may ask for: a million takes
#: minutes on a large corpus already; more is a typo (``10**9``), refused in one line.
MAX_BOOTSTRAP = 1_000_000
#: The most parsing processes (``--jobs``, ``jobs=``): more only contend for the cores, and
#: each loads its own model. The command line and the Python API hold it alike.
MAX_JOBS = 4 * (os.cpu_count() or 1)


class LimitError(SemsimError):
    """An input beyond one of these bounds (the message names the bound and how to raise it).

    Raised where the size is found, without a location; the command that knows which file,
    line or pair it was adds that, reports it, and goes on with the rest."""


def _setting(env: str, default: int, maximum: int | None = None) -> int:
    raw = os.environ.get(env, "").strip()
    if not raw:
        return default
    try:
        value = int(raw.replace("_", "").replace(",", ""))
    except ValueError:
        value = 0
    if value < 1:
        raise SemsimError(f"{env}={raw!r}: expected a positive whole number")
    if maximum is not None and value > maximum:
        raise SemsimError(f"{env}={raw!r}: at most {maximum:,}")
    return value


def check_settings() -> None:
    """Read every bound now: a malformed one (``SEMSIM_MAX_SENTENCE_TOKENS=abc``) is an error at
    the start of a run, not only when something reaches it (which a warm cache may never do)."""
    for read in (max_input_bytes, max_cells, max_align_chars, max_yields, max_sentence_tokens, max_depth,
                 max_token_chars):
        read()


def max_input_bytes() -> int:
    return _setting(INPUT_ENV, DEFAULT_INPUT)


def read_bounded(stream: Any, what: str) -> bytes:
    """All of a binary stream, refused with a :class:`LimitError` past :func:`max_input_bytes`
    (read in one go up to one byte more, so an endless stream stops there)."""
    limit = max_input_bytes()
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise LimitError(f"{what} is larger than {limit:,} bytes (raise {INPUT_ENV} to read it)")
    return data


def max_cells() -> int:
    return _setting(CELLS_ENV, DEFAULT_CELLS)


def max_align_chars() -> int:
    return _setting(CHARS_ENV, DEFAULT_CHARS)


def max_yields() -> int:
    return _setting(YIELDS_ENV, DEFAULT_YIELDS)


def max_token_chars() -> int:
    return _setting(TOKEN_CHARS_ENV, DEFAULT_TOKEN_CHARS)


def token_too_long(text: str) -> str | None:
    """Why a token is too long to be a word (:func:`max_token_chars`), or None."""
    limit = max_token_chars()
    if len(text) <= limit:
        return None
    return f"a token of {len(text):,} characters, over the limit of {limit:,} (raise {TOKEN_CHARS_ENV} to read it)"


def max_sentence_tokens() -> int:
    return _setting(TOKENS_ENV, DEFAULT_TOKENS)


#: the deepest nesting a recursive reader may be allowed: Python's recursion limit follows
#: it, and far beyond this the interpreter's own C stack overflows (a crash, not an error)
MAX_DEPTH = 5_000


def max_depth() -> int:
    return _setting(DEPTH_ENV, DEFAULT_DEPTH, MAX_DEPTH)


def check_cells(rows: int, cols: int, what: str) -> None:
    """Refuse a ``rows`` × ``cols`` matrix of ``what`` (e.g. "token alignment") beyond the bound."""
    limit = max_cells()
    if rows * cols > limit:
        raise LimitError(f"too large for the {what}: {rows:,} × {cols:,} = {rows * cols:,} cells, over the limit "
                         f"of {limit:,} (raise it with {CELLS_ENV}=N if the memory is there, ~40 bytes a cell)")


def check_chars(chars1: int, chars2: int) -> None:
    """Refuse edit distances between ``chars1`` characters of tokens and ``chars2`` beyond the bound."""
    limit = max_align_chars()
    if chars1 * chars2 > limit:
        raise LimitError(f"too large for the token alignment's edit distances: {chars1:,} × {chars2:,} characters "
                         f"= {chars1 * chars2:,}, over the limit of {limit:,} (a token that long is not a word; "
                         f"raise it with {CHARS_ENV}=N)")


def too_deep(units: int, tokens: int, limit: int) -> LimitError:
    """The error for a graph whose units' yields hold more than ``limit`` tokens in all."""
    return LimitError(f"too deeply nested: the yields of its {units:,} units (over {tokens:,} tokens) hold more "
                      f"than {limit:,} tokens in all, the limit (raise it with {YIELDS_ENV}=N if the memory is "
                      "there, ~60 bytes each)")


def check_pair(g1: Any, g2: Any) -> None:
    """Refuse, before any work, two graphs whose alignment could exceed the bounds: their
    tokens, their tokens' characters and their units, whole (a sentence-by-sentence
    alignment is never larger)."""
    check_cells(len(g1.tokens), len(g2.tokens), "token alignment")
    check_chars(sum(len(t.text) for t in g1.tokens), sum(len(t.text) for t in g2.tokens))
    check_cells(len(g1.units), len(g2.units), "node alignment")


def sentence_too_long(tokens: int, what: str) -> str | None:
    """Why a sentence of ``tokens`` tokens is too long for ``what`` (e.g. "the span parser"), or None."""
    limit = max_sentence_tokens()
    if tokens <= limit:
        return None
    return (f"sentence too long for {what}: {tokens:,} tokens, over the limit of {limit:,} "
            f"(raise it with {TOKENS_ENV}=N if the memory is there)")


def check_depth(depth: int, what: str) -> None:
    """Refuse ``what`` (e.g. "PENMAN graph") nested ``depth`` levels deep beyond the bound."""
    limit = max_depth()
    if depth > limit:
        raise LimitError(f"{what} nested {depth:,} levels deep, over the limit of {limit:,} "
                         f"(raise it with {DEPTH_ENV}=N)")


@contextmanager
def recursion_for_depth(frames_per_level: int = 4) -> Iterator[None]:
    """Python's recursion limit raised, for the block, to what :func:`max_depth` levels of a
    recursive reader need (never lowered), so that the depth bound, not Python, decides."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, max_depth() * frames_per_level + 1000))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)
