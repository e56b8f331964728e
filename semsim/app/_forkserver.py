"""The fork server behind :func:`semsim.app.testing.bounded`: Linux only (``fork``,
``/proc``, ``resource`` limits), and private, so the public fuzz helpers and conformance kit
of :mod:`semsim.app.testing` are a module a reader takes in without it.

One lean interpreter per test process (:func:`server`, started on first use) forks a child
for each call, held to CPU-time and memory limits, and then imports what the child imported
(:func:`adopt`), so that the next child starts with it: a check costs milliseconds, not an
interpreter start, and not a fork of a test process holding gigabytes. Requests and answers
are length-prefixed frames on the server's stdin and stdout (:func:`send`, :func:`receive`).
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
import resource
import struct
import subprocess
import sys
import threading
import traceback
from pathlib import Path
from typing import Any


def send(stream: Any, *frames: bytes) -> None:
    for frame in frames:
        stream.write(struct.pack("<Q", len(frame)) + frame)
    stream.flush()


def receive(stream: Any) -> bytes:
    head = stream.read(8)
    if len(head) < 8:
        raise EOFError
    size = struct.unpack("<Q", head)[0]
    frame = stream.read(size)
    if len(frame) < size:
        raise EOFError
    return frame


class ForkServer:
    """This process's end of the fork server (:func:`serve` in a fresh interpreter)."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", "from semsim.app._forkserver import serve; serve()"],
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
                send(self.process.stdin, context, call)
                status = struct.unpack("<i", receive(self.process.stdout))[0]
                return status, receive(self.process.stdout)
            except (EOFError, BrokenPipeError):
                raise AssertionError(f"the testing fork server ended (exit status {self.process.wait()}); "
                                     "its error is on stderr") from None


_servers: dict[int, ForkServer] = {}


def server() -> ForkServer:
    """This process's server (by pid: a forked test process starts its own), restarted if it died."""
    running = _servers.get(os.getpid())
    if running is None or running.process.poll() is not None:
        running = _servers[os.getpid()] = ForkServer()
    return running


def serve() -> None:
    """The fork server: for each request (a context and a pickled call) on stdin, fork a
    child that takes the context and runs the call within its limits, and answer with the
    child's wait status and outcome; then import what the child imported. It ends when
    its parent closes stdin (or exits)."""
    requests, answers = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # what a child prints goes to stderr, never into the answers
    while True:
        try:
            context, call = json.loads(receive(requests)), receive(requests)
        except EOFError:
            return
        os.environ.clear()
        os.environ.update(context["env"])
        os.chdir(context["cwd"])
        sys.path[:] = context["path"]
        wait_status, imported, payload = fork_and_call(call, context["seconds"], context["megabytes"])
        send(answers, struct.pack("<i", wait_status), payload)
        adopt(imported)


def fork_and_call(call: bytes, seconds: float, megabytes: int) -> tuple[int, list[str], bytes]:
    read_end, write_end = os.pipe()
    known = set(sys.modules)
    gc.freeze()  # the child's collections skip what the server already holds
    pid = os.fork()
    if pid == 0:  # the child: limits, the call, its outcome pickled down the pipe, and out
        status = 0
        try:
            os.close(read_end)
            cpu = math.ceil(seconds)
            lower_limit(resource.RLIMIT_CPU, cpu, cpu + 1)  # SIGXCPU, then SIGKILL
            size = int(Path("/proc/self/statm").read_text().split()[0]) * resource.getpagesize()
            lower_limit(resource.RLIMIT_AS, size + megabytes * 2**20)
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
                send(pipe, json.dumps(imported).encode(), payload)
        except BaseException:
            status = 70
        finally:
            os._exit(status)  # never the server's exit handlers
    gc.unfreeze()
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        try:
            imported, payload = json.loads(receive(pipe)), receive(pipe)
        except EOFError:  # killed (a limit) or died before it answered
            imported, payload = [], b""
    _, wait_status, _ = os.wait4(pid, 0)
    return wait_status, imported, payload


def lower_limit(kind: int, soft: int, hard: int | None = None) -> None:
    """Lower the limit ``kind`` to ``soft`` (and its hard limit to ``hard``; None: as it is),
    never above the hard limit the process was given: an unprivileged process may not raise
    it, so asking for more (``RLIM_INFINITY`` under ``ulimit -v``) would fail the child
    before it ran. A child that inherits a lower limit than ours is held to that one."""
    _, ceiling = resource.getrlimit(kind)

    def within(value: int) -> int:
        return value if ceiling == resource.RLIM_INFINITY else min(value, ceiling)

    resource.setrlimit(kind, (within(soft), ceiling if hard is None else within(hard)))


def adopt(modules: list[str]) -> None:
    """Import ``modules`` (a child's imports, in the order it made them) in this process, so
    that the next child inherits them; one that cannot be imported here is skipped."""
    for name in modules:
        if name not in sys.modules:
            try:
                importlib.import_module(name)
            except Exception:  # a module that imports only in its context
                continue
