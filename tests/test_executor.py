"""Parsing on a Dask cluster (``--executor``): the same output and cache as ``--jobs 1``,
whatever dies or hangs. The cluster tests start real local clusters (loopback only) of two
worker processes, through the commands themselves, as a user's laptop would."""

from __future__ import annotations

import functools
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from support import SOURCE, SYS1, SYS2, files, interruptible, run_semsim

import semsim.app.plugins as plugins
from semsim.app.executors import ExecutorSpec, executor_spec
from semsim.app.parsing import ParseSettings, find_parser, parse_sentences
from semsim.kernel.errors import SemsimError, SettingsError

# each death costs a worker restart (about a second): let the scheduler give up at the first
FAST_FAIL = {"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "0", "OMP_NUM_THREADS": "1"}


score = functools.partial(run_semsim, "score")


def cache_rows(path):
    """What a cache holds, but for when and how often it was read."""
    with sqlite3.connect(path) as con:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        return con.execute("SELECT key, representation, parser, model, text, native, graph FROM parses "
                           "ORDER BY key").fetchall()


def wait_until_parsing(log, sentence, alive=lambda: True, seconds=30):
    """Until a worker has started parsing ``sentence`` (the toy parser logs it first): an
    event to wait for, not a fixed sleep that a loaded machine may outlast."""
    deadline = time.monotonic() + seconds
    while sentence not in (log.read_text() if log.exists() else ""):
        assert time.monotonic() < deadline and alive(), f"no worker started on {sentence!r}"
        time.sleep(0.2)


def run(tmp, tag, *opts, env=None):
    """``score`` of two systems with ``opts``, with a cache of its own: (result, -o text, cache rows)."""
    f = files(tmp)
    o, cache = tmp / f"{tag}.jsonl", tmp / f"{tag}.sqlite3"
    r = score("--source", f["src.txt"], "--hyp", f["sys1.txt"], "--hyp", f["sys2.txt"], "--parser", "toy-parser",
              "--batch-size", "2", "--format", "json", "--bootstrap", "20", "--paired", "none", "--cache", cache,
              "-o", o, "-q", *opts, env=env)
    return r, o.read_text() if o.exists() else None, cache_rows(cache)


def test_executor_values():
    assert executor_spec(None) == executor_spec("local") == ExecutorSpec("local")
    assert executor_spec("dask") == ExecutorSpec("dask")
    assert executor_spec("dask://10.0.0.5:8786") == ExecutorSpec("dask", "tcp://10.0.0.5:8786")
    assert executor_spec("tls://h:8786").address == "tls://h:8786"
    assert executor_spec("dask://[fe80::1]:8786").address == "tcp://[fe80::1]:8786"
    for bad in ("ray", "ray://h:10001", "spark", "dask://"):
        with pytest.raises(SettingsError, match=rf"^executor={re.escape(bad)}: "):  # the keyword, in Python
            executor_spec(bad)


@pytest.mark.slow
@pytest.mark.parametrize("address", ["dask://fe80::1:8786", "dask://h:port", "dask://h", "tcp://h:8786/status",
                                     "dask://h:8786?x=1", "dask://me@h:8786", "dask://h:0", "dask://h:99999",
                                     "tls://:8786", "dask://[fe80::1:8786"])
def test_malformed_scheduler_address_fails_at_once(address, toy_env):
    """Dask would try each until its connect timeout, then fail with a traceback: refused before
    anything is read or parsed, in one line naming the option."""
    with pytest.raises(SettingsError, match="not a scheduler address"):
        executor_spec(address)
    f = files(toy_env)
    r = score("--source", f["src.txt"], "--hyp", f["sys1.txt"], "--executor", address)
    assert r.returncode == 2 and "not a scheduler address" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.slow
def test_bad_executor_is_one_line(toy_env):
    f = files(toy_env)
    r = score("--source", f["src.txt"], "--hyp", f["sys1.txt"], "--executor", "ray://h:1")
    assert r.returncode == 2 and "Ray is not supported" in r.stderr and "Traceback" not in r.stderr
    r = score("--source", f["src.txt"], "--hyp", f["sys1.txt"], "--parser", "toy-parser", "--batch-timeout", "9")
    assert r.returncode == 1 and r.stderr == "Error: --batch-timeout needs executor dask or " \
                                             "dask://HOST:PORT (docs/scale.md)\n"


@pytest.mark.needs_dask
def test_tls_without_a_tls_configuration_is_one_line_at_once(toy_env):
    """Dask failed inside its connect, then spent a minute closing its client: a traceback
    after 60 s. Without Dask's TLS settings, tls:// is refused before any connection."""
    import time
    f = files(toy_env)
    start = time.monotonic()
    r = score("--source", f["src.txt"], "--hyp", f["sys1.txt"], "--parser", "toy-parser", "--no-cache",
              "--executor", "tls://127.0.0.1:1")
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.startswith("Error: --executor tls://127.0.0.1:1: Dask has no TLS configuration for its client")
    assert time.monotonic() - start < 30


def test_dask_missing_is_one_clear_error(toy_env, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    plugins.reset_plugin_manager()
    with pytest.raises(SemsimError, match=r"pip install 'semsim\[distributed\]'"):
        parse_sentences(["a b", "c d"], find_parser("toy-parser", None), ParseSettings(executor="dask"))


def test_a_worker_checks_its_parser_and_model(toy_env):
    """What a worker runs, here: a worker whose model (or plugin) is not the driver's refuses
    to parse, rather than fill the cache under the driver's key."""
    from semsim.app.cache import model_key
    from semsim.app.executors import parse_on_worker
    from semsim.kernel.errors import PluginError
    plugins.reset_plugin_manager()
    key = model_key(find_parser("toy-parser", None), None)
    [(native, graph)] = parse_on_worker("toy-parser", None, key, ["A b"], 0.5)  # its watchdog is cancelled
    assert json.loads(native) == ["Big", "Small"] and graph
    time.sleep(0.8)  # (else it would have ended this process by now)
    with pytest.raises(PluginError, match="differs from this machine's"):
        parse_on_worker("toy-parser", None, "other-model|toy-1|graph-1", ["A b"], None)
    with pytest.raises(PluginError, match="has no parser 'nope'"):
        parse_on_worker("nope", None, key, ["A b"], None)


@pytest.mark.slow
@pytest.mark.needs_dask
def test_same_output_and_cache_as_jobs_1_even_when_a_worker_dies(toy_env):
    """Two workers; then two workers, one of which is killed (SIGKILL) by the batch it parses:
    the scheduler runs that batch again on the other, and nothing changes, byte for byte."""
    r1, out1, rows1 = run(toy_env, "jobs1", "--jobs", "1")
    r2, out2, rows2 = run(toy_env, "dask", "--executor", "dask", "--jobs", "2")
    assert r1.returncode == 0 and r2.returncode == 0, r2.stderr
    assert out1 == out2 and r1.stdout == r2.stdout and rows1 == rows2
    assert len(rows1) == len({" ".join(t.split()) for t in SOURCE + SYS1 + SYS2 if t.strip()})
    flag = toy_env / "killed"
    r3, out3, rows3 = run(toy_env, "killed", "--executor", "dask", "--jobs", "2",
                          env={"TOY_KILL_AT": "Dogs ran fast .", "TOY_KILL_ONCE": str(flag)})
    assert flag.exists(), "no worker was killed"
    assert r3.returncode == 0, r3.stderr
    assert out3 == out1 and r3.stdout == r1.stdout and rows3 == rows1


@pytest.mark.slow
@pytest.mark.needs_dask
def test_a_sentence_that_fails_kills_or_hangs_costs_only_its_line(toy_env):
    """A parser error, a worker killed at every try and a batch past --batch-timeout: each is
    pinned to its sentence, which is reported; every other line scores as with --jobs 1."""
    env = {**FAST_FAIL, "TOY_FAIL_AT": "Dogs ran fast .", "TOY_KILL_AT": "the cat sat down .",
           "TOY_HANG_AT": "He gave an apple ."}
    _, out1, rows1 = run(toy_env, "jobs1", "--jobs", "1", env={"TOY_FAIL_AT": env["TOY_FAIL_AT"]})
    r2, out2, rows2 = run(toy_env, "faults", "--executor", "dask", "--jobs", "2", "--batch-timeout", "2", env=env)
    assert r2.returncode == 1
    errors = [line for line in r2.stderr.splitlines() if "sys2.txt:" in line or "sys1.txt:" in line]
    assert any("sys1.txt:4:" in e and "toy parser cannot parse this" in e for e in errors), r2.stderr
    assert any("sys2.txt:2:" in e and "worker died" in e for e in errors), r2.stderr
    assert any("sys2.txt:1:" in e and "--batch-timeout 2s" in e for e in errors), r2.stderr
    scored = {(x["system"], x["line"]): x["f"] for x in map(json.loads, out2.splitlines())}
    assert {line for _, line in scored} == {3, 5}  # lines 1, 2 and 4 are out, for every system
    # --jobs 1 (only the parser error: a kill would end it) agrees on every line both scored
    scored1 = {(x["system"], x["line"]): x["f"] for x in map(json.loads, out1.splitlines())}
    assert {k: v for k, v in scored1.items() if k in scored} == scored
    assert set(rows2) < set(rows1) and len(rows1) - len(rows2) == 2  # all but the killer and the hanger


@pytest.mark.slow
@pytest.mark.needs_dask
def test_ctrl_c_leaves_a_usable_cache(toy_env):
    """Interrupted while a batch hangs on the cluster: what was parsed stays in the cache, and
    the next run parses only the rest and scores as --jobs 1 does."""
    f = files(toy_env)
    log, cache = toy_env / "parsed.log", toy_env / "c.sqlite3"
    args = ["--source", f["src.txt"], "--hyp", f["sys1.txt"], "--hyp", f["sys2.txt"], "--parser", "toy-parser",
            "--batch-size", "2", "--format", "json", "--bootstrap", "20", "--paired", "none", "--cache", cache, "-q"]
    cmd = [sys.executable, "-m", "semsim.app.cli", "score", *map(str, args), "--executor", "dask", "--jobs", "1"]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env={**os.environ, **FAST_FAIL, "TOY_HANG_AT": "Dogs run .", "TOY_PARSE_LOG": str(log)},
                          preexec_fn=interruptible) as proc:
        try:
            wait_until_parsing(log, "Dogs run .", alive=lambda: proc.poll() is None)
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=60)  # a loaded CI machine stops a cluster slowly
        finally:
            if proc.poll() is None:
                proc.kill()  # and the with statement waits for it, so no process outlives the test
    assert proc.returncode != 0
    done = {row[4] for row in cache_rows(cache)}
    assert done and "Dogs run ." not in done
    log.unlink()
    r = score(*args, env={"TOY_PARSE_LOG": str(log)})
    assert r.returncode == 0, r.stderr
    assert done.isdisjoint(log.read_text().splitlines())  # nothing parsed twice
    again = score(*args[:-3], "--no-cache", "-q")
    assert json.loads(again.stdout) == json.loads(r.stdout)


@pytest.mark.slow
@pytest.mark.needs_dask
def test_a_running_scheduler_by_address(toy_env):
    """``dask://HOST:PORT``: a cluster someone else started (here, this test), whose workers
    were started with the toy plugin; its workers stay up after the run."""
    from distributed import LocalCluster
    parser = find_parser("toy-parser", None)
    texts = [*SOURCE, *SYS1, *SYS2]
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        address = cluster.scheduler_address.replace("tcp://", "dask://")
        remote = parse_sentences(texts, parser, ParseSettings(batch_size=2, executor=address))
        assert len(cluster.scheduler.workers) == 2
    here = parse_sentences(texts, parser, ParseSettings(batch_size=2))
    assert remote.keys() == here.keys() and all(remote[t] == here[t] for t in here)


def test_every_command_that_parses_takes_the_executor():
    from semsim.app.cli import cli
    for name in ("score", "compare", "sensitivity", "parse"):
        params = {p.name for p in cli.get_command(None, name).params}
        assert {"jobs", "executor", "batch_timeout"} <= params, name


@pytest.mark.slow
@pytest.mark.needs_dask
@pytest.mark.needs_gec_metrics
def test_usim_metric_on_a_local_cluster(toy_env):
    """The Python API behind the commands: ``USimMetric.Config(executor=...)``."""
    from semsim.app.metric import USimMetric
    with pytest.raises(SettingsError, match="Ray"):
        USimMetric.Config(parser="toy-parser", executor="ray")
    with pytest.raises(SettingsError, match=r"batch_timeout=\.\.\. needs"):
        USimMetric.Config(parser="toy-parser", batch_timeout=5.0)
    here = USimMetric(USimMetric.Config(parser="toy-parser", use_cache=False, batch_size=2))
    dask = USimMetric(USimMetric.Config(parser="toy-parser", use_cache=False, batch_size=2, executor="dask", jobs=2))
    assert dask.score_systems(SOURCE, [SYS1, SYS2]) == here.score_systems(SOURCE, [SYS1, SYS2])


@pytest.mark.slow
@pytest.mark.needs_dask
def test_a_lost_scheduler_is_one_error(toy_env, monkeypatch):
    """The cluster goes away mid-run (here: closed while a batch hangs): one error, not a hang."""
    import threading

    from distributed import LocalCluster

    from semsim.kernel.errors import PluginError
    monkeypatch.setenv("TOY_HANG_AT", "hang here")
    log = toy_env / "parsed.log"
    monkeypatch.setenv("TOY_PARSE_LOG", str(log))  # before the cluster starts: its workers inherit it
    parser, raised = find_parser("toy-parser", None), []

    def run(address):
        try:
            parse_sentences(["a b", "hang here", "c d"], parser, ParseSettings(batch_size=1, executor=address))
        except PluginError as exc:
            raised.append(str(exc))
    cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None, silence_logs=50)
    thread = threading.Thread(target=run, args=(cluster.scheduler_address,), daemon=True)
    thread.start()
    wait_until_parsing(log, "hang here", alive=thread.is_alive)
    cluster.close()
    thread.join(60)
    assert not thread.is_alive() and len(raised) == 1
    assert raised[0].startswith("lost the Dask cluster while parsing") and "\n" not in raised[0]


@pytest.mark.slow
@pytest.mark.parametrize("size", [2, 1])
def test_a_worker_that_dies_blames_no_other_sentence(toy_env, size):
    """#56: a local worker killed by one sentence was said to die "on the batch starting" the
    batch's first (longest) sentence, another line's; a batch of one names its sentence."""
    killer = "Dogs ran fast ."
    r, _, _ = run(toy_env, f"b{size}", "--jobs", "2", "--batch-size", str(size), env={"TOY_KILL_AT": killer})
    assert r.returncode == 1, r.stderr
    (line,) = r.stderr.strip().splitlines()
    assert "a worker process of parser 'toy-parser' died on " in line, line
    if size == 1:  # the pool breaks for every batch in flight: the other worker's may see it first
        assert "(or on the sentence another worker had then: --jobs 1 names it)" in line, line
    else:
        assert "one of a batch of 2 sentences, which one is not known (--batch-size 1 names it)" in line, line
        others = {" ".join(t.split()) for t in SOURCE + SYS1 + SYS2 if t.strip()} - {killer}
        assert not any(repr(t) in line for t in others), line
