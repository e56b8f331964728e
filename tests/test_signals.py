"""Signals (#45): SIGTERM or SIGINT to the main process of `semsim score --jobs 2` (alone, as
a process manager sends them) ends the run promptly, and no worker process outlives it, even
one busy with a batch that never finishes; SIGKILL to the main process takes the workers
with it (the parent-death signal). A rerun after an interrupted one equals a clean run. A
Ctrl-C that lands while the pool starts a worker, after the worker started and before the pool
recorded it, ends that worker too (it is raised there deterministically: no race to win)."""

from __future__ import annotations

import contextlib
import json
import multiprocessing.process
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from support import interrupt_second_start, interruptible

from semsim.app.executors import Processes

TOY = str(Path(__file__).with_name("toy_plugin.py"))  # the toy plugin, as SEMSIM_PLUGINS loads it


pytestmark = pytest.mark.slow

LINES = [f"Word{i} is here ." for i in range(40)]


def _start(d, cache, hang: str | None) -> tuple[subprocess.Popen, list[psutil.Process]]:
    """`semsim score --jobs 2` with one batch that hangs; returns once both workers are busy."""
    (d / "src.txt").write_text("\n".join(LINES) + "\n")
    (d / "hyp.txt").write_text("\n".join(line.lower() for line in LINES) + "\n")
    env = {**os.environ, "SEMSIM_LOAD_PLUGINS": "", "SEMSIM_PLUGINS": TOY, "SEMSIM_CACHE_DIR": str(d / "cache"),
           "TOY_PARSE_LOG": str(d / "parsed.log"), "PYTHONFAULTHANDLER": "1",  # SIGABRT: every thread's stack
           **({"TOY_HANG_AT": hang} if hang else {})}
    proc = subprocess.Popen([sys.executable, "-m", "semsim.app.cli", "score", "--source", str(d / "src.txt"), "--hyp",
                             str(d / "hyp.txt"), "--parser", "toy-parser", "--jobs", "2", "--batch-size", "4",
                             "--cache", str(cache), "-q", "--bootstrap", "0", "--format", "json"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=interruptible)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # the hanging batch has been handed to a worker
        if (d / "parsed.log").exists() and hang in (d / "parsed.log").read_text().splitlines():
            break
        time.sleep(0.1)
    else:
        proc.kill()
        pytest.fail("the workers never started")
    return proc, psutil.Process(proc.pid).children(recursive=True)


def _stacks(proc: subprocess.Popen, sig: int, workers: list[psutil.Process]) -> str:
    """End a run that hangs, and say where it was: whether it ignored or caught ``sig`` (its
    dispositions in /proc), then every thread's stack (faulthandler's, on SIGABRT) and the rest of
    its stderr."""
    status = ""
    with contextlib.suppress(OSError):
        masks = dict(line.split(":\t") for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines()
                     if line.startswith(("SigIgn", "SigCgt")))
        status = ", ".join(f"{name} {'yes' if int(masks[key], 16) >> (sig - 1) & 1 else 'no'}"
                           for name, key in (("ignored", "SigIgn"), ("caught", "SigCgt")))
    proc.send_signal(signal.SIGABRT)
    try:
        _, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    _gone(workers, 1)
    return f"{signal.Signals(sig).name} {status}\n{err[-20000:]}"


def _gone(processes: list[psutil.Process], within: float) -> list[psutil.Process]:
    _, alive = psutil.wait_procs(processes, timeout=within)
    for p in alive:  # never leave them behind for the next test
        p.kill()
    return alive


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_to_the_main_process_alone_ends_the_run_and_its_workers(tmp_path, sig):
    hang = LINES[5]
    proc, workers = _start(tmp_path, tmp_path / "c.sqlite3", hang)
    assert len(workers) >= 2
    os.kill(proc.pid, sig)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{signal.Signals(sig).name}: the run did not end; where it was:\n{_stacks(proc, sig, workers)}")
    assert proc.returncode != 0 and "Traceback" not in proc.stderr.read()
    assert _gone(workers, 10) == [], "worker processes outlived the run"
    # the rerun completes from the cache and equals a clean run
    env = {**os.environ, "SEMSIM_LOAD_PLUGINS": "", "SEMSIM_PLUGINS": TOY}
    args = ["score", "--source", str(tmp_path / "src.txt"), "--hyp", str(tmp_path / "hyp.txt"), "--parser",
            "toy-parser", "--jobs", "2", "--batch-size", "4", "-q", "--bootstrap", "0", "--format", "json"]
    again = subprocess.run([sys.executable, "-m", "semsim.app.cli", *args, "--cache", str(tmp_path / "c.sqlite3")],
                           env=env, capture_output=True, text=True, timeout=120)
    clean = subprocess.run([sys.executable, "-m", "semsim.app.cli", *args, "--no-cache"], env=env, capture_output=True,
                           text=True, timeout=120)
    assert again.returncode == clean.returncode == 0, again.stderr + clean.stderr
    assert json.loads(again.stdout) == json.loads(clean.stdout)


def test_sigkill_to_the_main_process_takes_the_workers_with_it(tmp_path):
    proc, workers = _start(tmp_path, tmp_path / "c.sqlite3", LINES[5])
    proc.kill()
    proc.wait(timeout=10)
    assert _gone(workers, 10) == [], "worker processes outlived a killed main process"


def test_ctrl_c_between_a_workers_start_and_the_pool_recording_it_ends_that_worker(toy_env, monkeypatch):
    """Leaving the executor by that Ctrl-C ends every worker it started, the second included,
    before it returns (the second was left waiting for work, and Python's exit waited for it)."""
    started: list[multiprocessing.process.BaseProcess] = []
    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", interrupt_second_start(started))
    try:
        with pytest.raises(KeyboardInterrupt), Processes("toy-parser", None, "key", jobs=2) as pool:
            list(pool.imap([["a b"], ["c d"], ["e f"]]))
        assert len(started) == 2
        assert [p.pid for p in started if p.is_alive()] == [], "a worker outlived the interrupted executor"
    finally:
        for p in started:  # never leave one behind for the next test
            if p.is_alive():
                p.kill()
                p.join()


#: ``semsim`` with the second worker's start interrupted as above; it appends each worker's pid
#: and start time to the file WORKERS names, so that the test can find them once the run is gone.
_INTERRUPTED_RUN = """
import multiprocessing.process, os, sys, psutil
sys.path.insert(0, os.environ["TESTS"])
from support import interrupt_second_start
def record(process):
    with open(os.environ["WORKERS"], "a") as f:
        f.write(f"{process.pid} {psutil.Process(process.pid).create_time()}\\n")
multiprocessing.process.BaseProcess.start = interrupt_second_start([], record)
from semsim.app.cli import run
run()
"""


def _alive(workers: Path) -> list[psutil.Process]:
    """The processes listed in ``workers`` (pid and start time) still running (a pid reused since
    is another process, a zombie has ended)."""
    alive = []
    for line in workers.read_text().splitlines() if workers.exists() else []:
        pid, created = line.split()
        with contextlib.suppress(psutil.NoSuchProcess):
            process = psutil.Process(int(pid))
            if process.create_time() == float(created) and process.status() != psutil.STATUS_ZOMBIE:
                alive.append(process)
    return alive


def test_a_run_interrupted_as_its_second_worker_starts_ends_with_its_workers(tmp_path):
    """The command: exit status 1 and click's one line, at once (it waited forever for the
    worker, or the worker, left starting, failed with a traceback once the run removed the
    pool's queues), and no worker left."""
    (tmp_path / "src.txt").write_text("\n".join(LINES) + "\n")
    workers = tmp_path / "workers"
    env = {**os.environ, "SEMSIM_LOAD_PLUGINS": "", "SEMSIM_PLUGINS": TOY, "WORKERS": str(workers),
           "TESTS": str(Path(__file__).parent)}
    src = str(tmp_path / "src.txt")
    args = ["score", "--source", src, "--hyp", src, "--parser", "toy-parser", "--jobs", "2", "--batch-size", "4",
            "--no-cache", "-q", "--bootstrap", "0"]
    try:
        r = subprocess.run([sys.executable, "-c", _INTERRUPTED_RUN, *args], env=env, capture_output=True, text=True,
                           timeout=120)
    except subprocess.TimeoutExpired as exc:
        r = exc
    left = _alive(workers)
    for process in left:  # never leave them behind for the next test
        process.kill()
    assert not isinstance(r, subprocess.TimeoutExpired), f"the interrupted run did not end: {r.stderr!r}"
    assert left == [], "worker processes outlived the run"
    assert len(workers.read_text().splitlines()) == 2
    assert r.returncode == 1 and r.stderr.strip() == "Aborted!", r.stderr
