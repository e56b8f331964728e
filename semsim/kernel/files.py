"""File primitives every layer uses: writing atomically, reading text in whatever encoding
it comes in (with errors that name the file), standard input as a file, the per-user cache
directory. No graphs, no plugins: a plugin's reader and the CLI's outputs stand on these.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import re
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from .errors import InputError, SemsimError

#: ``semsim --allow-pickle`` as the command line passed it (:func:`allow_pickle`)
_pickle: list[bool] = []


def allow_pickle(on: bool) -> None:
    """Let readers unpickle files in this process (``semsim --allow-pickle``): unpickling runs
    code, so a reader of a pickle format asks :func:`pickle_allowed` first."""
    _pickle[:] = [on]


def pickle_allowed() -> bool:
    """Whether a reader may unpickle: ``--allow-pickle`` (:func:`allow_pickle`), or
    ``SEMSIM_ALLOW_PICKLE=1`` in the environment."""
    return _pickle[0] if _pickle else os.environ.get("SEMSIM_ALLOW_PICKLE") == "1"


def cache_dir() -> Path:
    """``$SEMSIM_CACHE_DIR``, else ``$XDG_CACHE_HOME/semsim``, else ``~/.cache/semsim``."""
    if os.environ.get("SEMSIM_CACHE_DIR"):
        return Path(os.environ["SEMSIM_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "semsim"


@contextmanager
def atomic_write(path: str | os.PathLike[str], binary: bool = False, keep_partial: bool = False) -> Iterator[IO[Any]]:
    """Write ``path`` through ``path.partial``, renamed into place only when the block
    completes, so that a reader never sees half a file (a device or a pipe, such as
    ``/dev/null``, is written directly: renaming onto it would replace it). When the block fails, the partial
    file is deleted, or with ``keep_partial`` kept and named on stderr (a results file
    written record by record then keeps every complete record: no lost work; an empty one
    is deleted all the same)."""
    target = Path(path)
    if target.exists() and not target.is_file():  # /dev/null, a named pipe: write into it, never replace it
        try:
            with open(target, "wb") if binary else open(target, "w", encoding="utf-8", errors="backslashreplace",
                                                         newline="\n") as f:
                yield f
        except OSError as exc:
            raise SemsimError(f"{target}: cannot write: {exc.strerror or exc}") from None
        return
    partial = target.with_name(target.name + ".partial")
    try:  # text: a lone surrogate (a file name that is not UTF-8) is written as its \\udcXX escape
        f = open(partial, "wb") if binary else open(  # noqa: SIM115
            partial, "w", encoding="utf-8", errors="backslashreplace", newline="\n")
    except OSError as exc:
        raise SemsimError(f"{target}: cannot write: {exc.strerror or exc}") from None
    try:
        with f:
            yield f
        os.replace(partial, target)
    except BaseException as exc:
        if keep_partial and partial.exists() and partial.stat().st_size:
            print(f"semsim: results so far kept in {partial}", file=sys.stderr)
        else:
            partial.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise SemsimError(f"{target}: cannot write: {exc.strerror or exc}") from None
        raise


#: An input given as ``-`` is standard input, named so in messages.
STDIN, STDIN_NAME = "-", "<stdin>"


def is_stdin(path: str | os.PathLike[str]) -> bool:
    return os.fspath(path) == STDIN


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name one file: the same file where both exist (links, ``./``, case on
    a case-insensitive disk), else the same absolute path once resolved."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()


def one_line(text: str) -> str:
    """``text`` with each character that could move or restyle a terminal's text written as
    Python writes it in a string (``\\n``, ``\\t``, ``\\x1b``, ``\\x9b``, ``\\u202e``): the
    control characters (C0, DEL, C1: a newline, a tab, an escape, a CSI), the line and paragraph
    separators, the bidirectional overrides and lone surrogates. A file name in a record, a
    table row or a message stays on one line and in its column, and shows what it holds."""
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(lambda m: repr(m.group())[1:-1], text)


#: What :func:`one_line` escapes: C0 and C1 controls and DEL, U+2028/9, the bidirectional
#: marks and overrides (U+200E/F, U+202A-E, U+2066-9), lone surrogates.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def shown(path: str | os.PathLike[str]) -> str:
    """How messages name an input: its path, or ``<stdin>``."""
    return STDIN_NAME if is_stdin(path) else os.fspath(path)


def stdin_bytes() -> bytes:
    """Standard input, read once per stream (a command may read ``-`` more than once: to
    find its reader, then to read it)."""
    stream = sys.stdin.buffer
    data = getattr(stream, "_semsim_data", None)
    if data is None:
        from .limits import read_bounded
        data = read_bounded(stream, "standard input")
        with contextlib.suppress(AttributeError):  # a stream without a __dict__: read once is all it can be
            stream._semsim_data = data  # type: ignore[union-attr]  # our mark on the stream object itself
    return data


#: what pipes and devices given as paths held, read once: they cannot be read twice
_STREAMS: dict[str, bytes] = {}


def is_stream(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` can be read only once: standard input, or a pipe or device given as a
    path (``<(zcat a.xml.gz)``, ``/dev/stdin``), whose size says nothing of its content."""
    if is_stdin(path):
        return True
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def input_bytes(path: str | os.PathLike[str]) -> bytes:
    """All of a stream (:func:`is_stream`), read once per process within the input bound
    (:func:`semsim.kernel.limits.read_bounded`: ``/dev/zero`` stops there), so that finding its reader
    and reading it see the same bytes."""
    if is_stdin(path):
        return stdin_bytes()
    key = os.fspath(path)
    if key not in _STREAMS:
        _STREAMS[key] = _whole(path)
    return _STREAMS[key]


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """All of a file, or of a stream (:func:`input_bytes`), within the input bound; what a
    reader of a binary or XML format takes instead of ``open(path, "rb")``. Anything that
    cannot be read is an :class:`InputError` naming the file."""
    return input_bytes(path) if is_stream(path) else _whole(path)


def _whole(path: str | os.PathLike[str]) -> bytes:
    """The file opened and read once, refused past :func:`semsim.kernel.limits.max_input_bytes`."""
    from .limits import LimitError, read_bounded
    where = shown(path)
    try:
        with open(path, "rb") as f:
            return read_bounded(f, "the file")
    except FileNotFoundError:
        raise InputError("no such file", where) from None
    except LimitError as exc:
        raise InputError(str(exc), where) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", where) from None


def read_text(path: str | os.PathLike[str], kind: str = "") -> str:
    r"""A text file's contents (``-``: standard input), as the readers of every text format
    take it: decoded (:func:`decode_text`), its line ends made ``\n`` (CRLF and the old
    Mac's lone CR alike; the other Unicode line separators, such as U+2028, stay what they
    are inside a line: characters), and free of control characters (:data:`_CONTROL`).
    Anything else is an :class:`InputError` naming the file and the line of the problem;
    ``kind`` (e.g. ``"M2 files"``) names what must be UTF-8 in that message."""
    p = Path(shown(path))
    text = decode_text(read_bytes(path), p, kind).replace("\r\n", "\n").replace("\r", "\n")
    bad = _CONTROL.search(text)
    if bad:
        line = text.count("\n", 0, bad.start()) + 1
        column = bad.start() - (text.rfind("\n", 0, bad.start()) + 1) + 1
        raise InputError(f"control character U+{ord(bad.group()):04X} at column {column}: not a text file, "
                         "or a corrupt one", p, line)
    return text


#: C0 control characters other than tab and line feed (carriage returns are line ends by
#: then): a NUL byte or an escape in a text file means binary data or corruption, and
#: vertical tab, form feed and the separators \x1c-\x1e would end lines for
#: ``str.splitlines`` but not for line numbers.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")

#: byte-order marks and the encodings they announce; any other file must be UTF-8
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def _declared(data: bytes) -> str | None:
    """The encoding ``data``'s byte-order mark declares, if it starts with one."""
    return next((enc for bom, enc in _BOMS if data.startswith(bom)), None)


def decode_text(data: bytes, path: str | os.PathLike[str], kind: str = "") -> str:
    """``data`` as text: UTF-8, or the UTF-8, UTF-16 or UTF-32 its byte-order mark declares
    (an editor's "Unicode" is UTF-16 with a mark). Anything else is one :class:`InputError`
    naming the line of the first bad byte, or saying that the bytes look like UTF-16
    without a mark (NUL in every other byte)."""
    encoding = _declared(data) or "utf-8"
    must = f"; {kind} must be UTF-8" if kind else ""
    if encoding == "utf-8" and _looks_utf16(data):
        raise InputError("not UTF-8: UTF-16 without a byte-order mark; convert it, e.g. with "
                         "iconv -f UTF-16LE -t UTF-8", path, 1)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        if encoding.startswith("utf-8"):
            raise InputError(f"not UTF-8 ({exc.reason} at byte {exc.start}){must}; convert it, e.g. with iconv",
                             path, data.count(b"\n", 0, exc.start) + 1) from None
        raise InputError(f"not {encoding.upper()}, as its byte-order mark says ({exc.reason} at byte {exc.start}); "
                         "convert it to UTF-8, e.g. with iconv", path) from None


def _looks_utf16(data: bytes) -> bool:
    """ASCII text in UTF-16 without a byte-order mark: NUL in most odd or most even bytes."""
    head = data[:256]
    return len(head) >= 8 and max(head[0::2].count(0), head[1::2].count(0)) > len(head) // 3


def text_head(data: bytes) -> bytes:
    """The start of a file as UTF-8 without a byte-order mark, for readers' ``sniff``: a file
    in UTF-16 or with a mark is recognised as its UTF-8 twin would be."""
    encoding = _declared(data)
    if encoding is None:
        return data
    return data.decode(encoding, errors="ignore").encode("utf-8")


_SURROGATE = re.compile("[\ud800-\udfff]")


def printable(text: str) -> str:
    """``text`` with any lone surrogate as its ``\\udXXX`` escape, safe in a message."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def text_problem(text: object) -> str | None:
    """What makes ``text`` no sentence semsim takes (None if nothing): not a string, a lone
    surrogate (not a character: no UTF-8 file or terminal can take it), or a control
    character a text file is refused for (:data:`_CONTROL`: a NUL, an escape). The Python
    API holds text to the rule the command line holds files to."""
    if not isinstance(text, str):
        return f"{text!r:.40} is not a string (a sentence)"
    bad = _SURROGATE.search(text) or _CONTROL.search(text)
    if bad is None:
        return None
    what = "lone surrogate" if _SURROGATE.match(bad.group()) else "control character"
    return f"{what} U+{ord(bad.group()):04X} at column {bad.start() + 1} of '{one_line(printable(text[:40]))}'"


def checked_sentences(name: str, items: Any) -> list[str]:
    """``items`` as a list of sentences, each one :func:`text_problem` finds nothing wrong
    with; else one :class:`InputError` naming the argument and the position (``name[k]``, as
    Python indexes it). The check of every Python entry that takes sentences (the
    gec-metrics class, the ``evaluate`` module), before anything else touches them: a None
    met ``.strip()``, a lone surrogate evaluate's Arrow encoding."""
    if items is None or isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
        what = "one string" if isinstance(items, (str, bytes)) else repr(items)[:40]
        raise InputError(f"{name}: expected a list of sentences, not {what}")
    items = list(items)
    for k, item in enumerate(items):
        if (problem := text_problem(item)) is not None:
            raise InputError(f"{name}[{k}]: {problem}")
    return items


def lone_surrogate(obj: Any) -> str | None:
    """What is wrong if a decoded JSON value holds a lone surrogate (a ``"\\ud800"`` escape
    without its pair): not a character, so no UTF-8 file or terminal can take it. None if
    every string (keys included) is valid Unicode."""
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            bad = _SURROGATE.search(x)
            if bad:
                return (f"lone surrogate U+{ord(bad.group()):04X} in the string '{printable(x[:40])}': a \\u escape "
                        "without its pair is not a character")
        elif isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return None
