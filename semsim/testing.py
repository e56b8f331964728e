"""Fuzzing helpers for readers, semsim's own and plugins' (needs ``hypothesis``, in the
``test`` extra).

semsim's promise on bad input is that every reader either returns graphs or refuses with
a :class:`~semsim.errors.SemsimError` naming the file and line; never another exception
and never a crash. :func:`check_reader` states that as a property; the strategies feed it
arbitrary bytes (:func:`any_bytes`) and mutations of valid files (:func:`mutated`,
:func:`json_mutated`), so that a plugin's tests can fuzz its reader in three lines::

    from hypothesis import given
    from semsim.testing import check_reader, fuzz_settings, mutated

    @fuzz_settings()
    @given(data=mutated([VALID_FILE.read_bytes()]))
    def test_reader_never_crashes(tmp_path_factory, data):
        check_reader(tmp_path_factory.mktemp("fuzz") / "x.amr", data, "penman")

and :func:`check_command` runs a ``semsim`` command on such input the same way.

The number of examples comes from ``SEMSIM_FUZZ_EXAMPLES`` (CI runs a fixed, derandomised
budget, 50 a test: the fuzz tests were a quarter of the suite's time at 100; ``benchmarks/fuzz.py``
runs long, random ones).
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib
import json
import math
import os
import pickle
import re
import resource
import signal
import struct
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from .errors import SemsimError
from .graph import Graph
from .io import iter_graphs

T = TypeVar("T")

#: Fragments that break formats in interesting ways: brackets and quotes of PENMAN, JSON
#: and XML, numbers at the edges, control and non-UTF-8 bytes, line breaks, and the
#: markers of PENMAN metadata, M2 lines and UCCA XML elements; then what issue #23 found:
#: lone surrogates (JSON escapes, and their bytes), byte-order marks, every line separator
#: Unicode has, remote and terminal edges of UCCA XML, a huge token (300,000 characters,
#: beyond the edit-distance bound when a file is paired with itself) and deep nesting.
FRAGMENTS = (
    b"(", b")", b'"', b"\\", b"{", b"}", b"[", b"]", b",", b":", b"/", b"~e.1", b"-1", b"0", b"99999999",
    b"1e308", b"null", b"true", b"\x00", b"\x0c", b"\xff", b"\xc3", b"\r\n", b"\n", b"\n\n", b"# ::id ",
    b"# ::snt ", b":ARG0", b":ARG0-of", b"<", b">", b"/>", b"</node>", b'<edge toID="1.1" type="A">', b"&",
    b"S ", b"A 0 1|||R:OTHER|||x|||REQUIRED|||-NONE-|||0", b"|||", b'"from": 5', b'"to": 0', b'"anchors"',
    b'"\\ud800"', b"\\udfff", b"\xed\xa0\x80", b"\xef\xbb\xbf", b"\xff\xfe", b"\r", "\u2028".encode(),
    "\u2029".encode(), "\u0085".encode(), b"\x1c", b'<attributes remote="True"/>',
    b'<edge toID="0.1" type="Terminal"><attributes/></edge>', b"w" * 300_000, b"(a / b :r " * 250,
    b"<node><edge>" * 300,
)


def fuzz_settings(examples: int = 50) -> Callable[[Any], Any]:
    """Hypothesis settings for a fuzz test: ``SEMSIM_FUZZ_EXAMPLES`` examples (``examples``
    if unset), derandomised unless ``SEMSIM_FUZZ_RANDOM=1``, no deadline (a slow example is
    not a failure here; ``benchmarks/fuzz.py`` measures speed)."""
    n = int(os.environ.get("SEMSIM_FUZZ_EXAMPLES") or examples)
    return settings(max_examples=n, deadline=None, derandomize=os.environ.get("SEMSIM_FUZZ_RANDOM") != "1",
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture], database=None)


def any_bytes(max_size: int = 2000) -> st.SearchStrategy[bytes]:
    """Arbitrary bytes, half of them made of :data:`FRAGMENTS` (closer to real syntax)."""
    return st.one_of(st.binary(max_size=max_size),
                     st.lists(st.sampled_from(FRAGMENTS) | st.binary(max_size=3), max_size=60).map(b"".join))


_WORD = re.compile(rb"[\w.-]+")


@st.composite
def mutated(draw: st.DrawFn, seeds: Sequence[bytes], max_edits: int = 4) -> bytes:
    """A valid file (one of ``seeds``) with 1 to ``max_edits`` byte-level edits: a span
    deleted, duplicated or replaced by a fragment, a fragment inserted, the file cut short,
    or a word (an id, a number, a label) replaced by another word of the file, which keeps
    the syntax and changes what refers to what (the edits that make cycles, self-loops and
    spans out of range)."""
    data = bytearray(draw(st.sampled_from(list(seeds))))
    for _ in range(draw(st.integers(1, max_edits))):
        i = draw(st.integers(0, len(data)))
        j = draw(st.integers(i, min(len(data), i + 40)))
        op = draw(st.sampled_from(("delete", "duplicate", "replace", "insert", "truncate", "reuse", "reuse")))
        piece = draw(st.sampled_from(FRAGMENTS) | st.binary(min_size=1, max_size=3))
        if op == "reuse":
            words = list(_WORD.finditer(data))
            if words:
                a, b = draw(st.sampled_from(words)), draw(st.sampled_from(words))
                data[a.start():a.end()] = b.group()
        elif op == "delete":
            del data[i:j]
        elif op == "duplicate":
            data[j:j] = data[i:j]
        elif op == "replace":
            data[i:j] = piece
        elif op == "insert":
            data[i:i] = piece
        else:
            del data[i:]
    return bytes(data)


# No subnormal floats: a library loaded earlier in the process (torch) may have set
# flush-to-zero, under which Hypothesis cannot draw them.
_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 10**9) | st.floats(allow_nan=False, allow_subnormal=False)
    | st.text(max_size=5) | st.sampled_from(["\ud800", "x\udfffy", "a\u2028b", "\ufeff"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(
        ["id", "from", "to", "label", "source", "target", "anchors", "nodes", "edges", "tops", "input",
         "properties", "values", "framework"]), inner, max_size=3),
    max_leaves=6)


@st.composite
def json_mutated(draw: st.DrawFn, seeds: Sequence[bytes], max_edits: int = 3) -> bytes:
    """A JSON Lines file (one of ``seeds``) whose objects are valid JSON but altered: a value
    anywhere replaced by another JSON value, a key deleted, a list emptied or an item
    duplicated; what a JSON parser accepts and only the reader's checks can refuse."""
    lines = [json.loads(line) for line in draw(st.sampled_from(list(seeds))).decode("utf-8").splitlines()
             if line.strip()]
    for _ in range(draw(st.integers(1, max_edits))):
        k = draw(st.integers(0, len(lines) - 1))
        lines[k] = _mutate_json(draw, lines[k])
    return b"".join(_json_line(x) for x in lines)


def _json_line(x: Any) -> bytes:
    """One JSON Lines line: UTF-8, or with ASCII escapes where a lone surrogate has no UTF-8."""
    try:
        return (json.dumps(x, ensure_ascii=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(x) + "\n").encode("ascii")


def _mutate_json(draw: st.DrawFn, obj: Any) -> Any:
    """One random edit somewhere inside ``obj`` (a copy is returned)."""
    if isinstance(obj, dict) and obj and draw(st.integers(0, 2)):
        key = draw(st.sampled_from(sorted(obj)))
        out = dict(obj)
        if draw(st.integers(0, 4)) == 0:
            del out[key]
        else:
            out[key] = _mutate_json(draw, obj[key])
        return out
    if isinstance(obj, list) and obj and draw(st.integers(0, 2)):
        i = draw(st.integers(0, len(obj) - 1))
        out = list(obj)
        action = draw(st.integers(0, 5))
        if action == 0:
            out.insert(i, obj[i])
        elif action == 1:
            del out[i]
        else:
            out[i] = _mutate_json(draw, obj[i])
        return out
    return draw(_JSON_VALUES)


def bounded(fn: Callable[..., T], *args: Any, seconds: float | None = None, megabytes: int | None = None) -> T:
    """``fn(*args)`` in a child process held to ``seconds`` of CPU time and ``megabytes`` of
    memory beyond what it starts with (``SEMSIM_FUZZ_SECONDS``, default 10, and
    ``SEMSIM_FUZZ_MEGABYTES``, default 1,000): what it returns or raises comes back here, and
    exceeding either limit is an ``AssertionError``. So a hang or a blow-up on some input
    fails a property like a traceback does, without a timed assertion: CPU time, not wall
    time, so a busy machine does not fail it.

    The child is forked from a lean server process (one per test process, started on first
    use), not from this one: a fork costs time in proportion to the memory of the process
    forked (0.055 ms a MB here), and a test process that has loaded parsers holds gigabytes
    (117 ms a fork at 2 GB; the fuzz tests fork thousands of times). The child gets this
    process's environment variables, working directory and ``sys.path``, so it sees the
    plugins they register (``SEMSIM_PLUGINS``), but not objects set in this process's
    memory; ``fn`` and ``args`` are pickled, so ``fn`` must be importable by name. The server
    then imports what each child imported (semsim imports scipy and plugins' libraries on
    first use: 1.5 s a ``compare`` child otherwise), so a check costs milliseconds, not an
    interpreter start."""
    seconds = seconds or float(os.environ.get("SEMSIM_FUZZ_SECONDS") or 10)
    megabytes = megabytes or int(os.environ.get("SEMSIM_FUZZ_MEGABYTES") or 1000)
    context = {"env": dict(os.environ), "cwd": os.getcwd(), "path": [str(p) for p in sys.path], "seconds": seconds,
               "megabytes": megabytes}
    wait_status, payload = _fork_server().run(json.dumps(context).encode(), pickle.dumps((fn, args)))
    what = f"{getattr(fn, '__name__', fn)}{tuple(args)!r:.200}"
    if os.WIFSIGNALED(wait_status):
        signal_number = os.WTERMSIG(wait_status)
        assert signal_number not in (signal.SIGXCPU, signal.SIGKILL), f"{what}: more than {seconds:g} s of CPU time"
        raise AssertionError(f"{what}: killed by signal {signal_number}")
    assert payload, f"{what}: the child exited with status {os.waitstatus_to_exitcode(wait_status)}"
    kind, value = pickle.loads(payload)
    assert kind != "memory", f"{what}: more than {megabytes:,} MB of memory"
    if kind == "raised":
        exc, trace = value
        if isinstance(exc, AssertionError | SemsimError):
            raise exc
        raise AssertionError(f"{what} raised in the child:\n{trace}")
    return value


def _send(stream: Any, *frames: bytes) -> None:
    for frame in frames:
        stream.write(struct.pack("<Q", len(frame)) + frame)
    stream.flush()


def _receive(stream: Any) -> bytes:
    head = stream.read(8)
    if len(head) < 8:
        raise EOFError
    size = struct.unpack("<Q", head)[0]
    frame = stream.read(size)
    if len(frame) < size:
        raise EOFError
    return frame


class _ForkServer:
    """This process's end of the fork server (:func:`_serve` in a fresh interpreter)."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", "from semsim.testing import _serve; _serve()"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.lock = threading.Lock()  # one request at a time on the pipes
        self.owner = os.getpid()
        atexit.register(self.close)

    def close(self) -> None:
        """End the server (it returns when its stdin closes) and reap it, so that neither it
        nor its pipes outlive this process; a forked copy of this process leaves it alone."""
        if os.getpid() != self.owner:
            return
        assert self.process.stdin is not None and self.process.stdout is not None
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()

    def run(self, context: bytes, call: bytes) -> tuple[int, bytes]:
        """The child's wait status and its pickled outcome (empty if it died first)."""
        assert self.process.stdin is not None and self.process.stdout is not None
        with self.lock:
            try:
                _send(self.process.stdin, context, call)
                status = struct.unpack("<i", _receive(self.process.stdout))[0]
                return status, _receive(self.process.stdout)
            except (EOFError, BrokenPipeError):
                raise AssertionError(f"semsim.testing's fork server ended (exit status {self.process.wait()}); "
                                     "its error is on stderr") from None


_servers: dict[int, _ForkServer] = {}


def _fork_server() -> _ForkServer:
    """This process's server (by pid: a forked test process starts its own), restarted if it died."""
    server = _servers.get(os.getpid())
    if server is None or server.process.poll() is not None:
        server = _servers[os.getpid()] = _ForkServer()
    return server


def _serve() -> None:
    """The fork server: for each request (a context and a pickled call) on stdin, fork a
    child that takes the context and runs the call within its limits, and answer with the
    child's wait status and outcome; then import what the child imported. It ends when
    its parent closes stdin (or exits)."""
    requests, answers = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # what a child prints goes to stderr, never into the answers
    while True:
        try:
            context, call = json.loads(_receive(requests)), _receive(requests)
        except EOFError:
            return
        os.environ.clear()
        os.environ.update(context["env"])
        os.chdir(context["cwd"])
        sys.path[:] = context["path"]
        wait_status, imported, payload = _fork_and_call(call, context["seconds"], context["megabytes"])
        _send(answers, struct.pack("<i", wait_status), payload)
        _adopt(imported)


def _fork_and_call(call: bytes, seconds: float, megabytes: int) -> tuple[int, list[str], bytes]:
    read_end, write_end = os.pipe()
    known = set(sys.modules)
    gc.freeze()  # the child's collections skip what the server already holds
    pid = os.fork()
    if pid == 0:  # the child: limits, the call, its outcome pickled down the pipe, and out
        status = 0
        try:
            os.close(read_end)
            cpu = math.ceil(seconds)
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))  # SIGXCPU, then SIGKILL
            size = int(Path("/proc/self/statm").read_text().split()[0]) * resource.getpagesize()
            resource.setrlimit(resource.RLIMIT_AS, (size + megabytes * 2**20, resource.RLIM_INFINITY))
            try:
                fn, args = pickle.loads(call)
                outcome: tuple[str, Any] = ("returned", fn(*args))
            except MemoryError:
                outcome = ("memory", None)
            except BaseException as exc:
                outcome = ("raised", (exc, traceback.format_exc()))
            try:
                payload = pickle.dumps(outcome)
            except Exception as exc:
                payload = pickle.dumps(("raised", (AssertionError(f"unpicklable outcome: {exc}"), "")))
            imported = [name for name in list(sys.modules) if name not in known]
            with os.fdopen(write_end, "wb") as pipe:
                _send(pipe, json.dumps(imported).encode(), payload)
        except BaseException:
            status = 70
        finally:
            os._exit(status)  # never the server's exit handlers
    gc.unfreeze()
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        try:
            imported, payload = json.loads(_receive(pipe)), _receive(pipe)
        except EOFError:  # killed (a limit) or died before it answered
            imported, payload = [], b""
    _, wait_status, _ = os.wait4(pid, 0)
    return wait_status, imported, payload


def _adopt(modules: list[str]) -> None:
    """Import ``modules`` (a child's imports, in the order it made them) in this process, so
    that the next child inherits them; one that cannot be imported here is skipped."""
    for name in modules:
        if name not in sys.modules:
            try:
                importlib.import_module(name)
            except Exception:  # a module that imports only in its context
                continue


def check_reader(path: Path, data: bytes, format: str | None = None) -> list[Graph | SemsimError]:
    """Write ``data`` to ``path`` and read every graph in it through the registered reader
    (``format``, else by suffix) as the CLI does, within :func:`bounded`'s time and memory:
    the outcome must be graphs, per-graph errors, or a :class:`SemsimError` about the file;
    anything else fails (a bug). Returns what was read, so that a test can check more."""
    path.write_bytes(data)
    return bounded(_read_all, path, format)


def _read_all(path: Path, format: str | None) -> list[Graph | SemsimError]:
    try:
        out: list[Graph | SemsimError] = list(iter_graphs(path, format, errors="yield"))
    except SemsimError as exc:
        return [exc]
    for g in out:
        assert isinstance(g, Graph | SemsimError), f"reader yielded {type(g).__name__}"
    return out


@dataclass(frozen=True)
class CommandResult:
    """What a ``semsim`` run gave: exit status and output (stdout, then stderr)."""

    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def check_command(args: Sequence[str]) -> CommandResult:
    """Run ``semsim ARGS`` (click's test runner, in a :func:`bounded` child) and check the
    CLI's side of the promise: exit 0, or exit 1 with click's one-line error, within the
    time and memory bounds; any other exception (a traceback) fails the test."""
    return bounded(_run_command, list(args))


def _run_command(args: list[str]) -> CommandResult:
    from click.testing import CliRunner

    from .cli import cli
    result = CliRunner().invoke(cli, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        f"{args}: {type(result.exception).__name__}: {result.exception}"
    assert result.exit_code in (0, 1), (args, result.exit_code, result.output)
    assert "Traceback" not in result.output
    return CommandResult(result.exit_code, result.stdout, result.stderr)
