"""Where batches of sentences are parsed, behind one interface (:class:`Executor`): in this
process (:class:`Serial`), in local worker processes (``--jobs``, :class:`Processes`), or on a
Dask cluster (:class:`Dask`: ``--executor dask`` starts one on this machine,
``dask://HOST:PORT`` uses a running one; docs/scale.md). Each runs :func:`parse_batch`, the
unit of work, wherever it runs; :func:`semsim.app.parsing.parse_sentences` only dedupes, looks
up the cache, hands batches to an executor and stores what comes back.

A batch comes back as graphs (:data:`Parsed`). In this process they are the parser's own
objects, built once; a batch parsed in another process (a worker, a Dask task) crosses back
as graph JSON (:mod:`semsim.kernel.graph_json`, :data:`Shipped`), the one form graphs travel in
between processes, and is read back into graphs once, here (:func:`received`).

Dask (its ``distributed`` scheduler), not Ray: a pure-Python install of a few MB (Ray's
wheel is about 80 MB, with its own object store and raylet processes); ``Client.submit``
and ``as_completed`` are the :mod:`concurrent.futures` API the ``--jobs`` path already uses;
its scheduler re-runs the tasks of a worker that dies on another worker, up to
``distributed.scheduler.allowed-failures`` times, then fails them with ``KilledWorker``,
which is the bounded retry semsim needs; and its long-lived worker processes keep what a
parser loads in module state (the parsers cache loaded models per process), so each worker
loads the model once. Only this module imports Dask, and only when asked to, so that it
stays an optional dependency (the ``distributed`` extra).

The driver (the process running the command) keeps the parse cache: workers only parse and
return results, the driver stores each batch as it arrives, keyed by text, so the output
does not depend on the number of workers or the order in which batches finish.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from multiprocessing.context import BaseContext, SpawnProcess
from multiprocessing.process import BaseProcess
from typing import Any

from ..kernel import threads
from ..kernel.errors import COMMAND_LINE, ParseError, PluginError, SemsimError, SettingsError, option
from ..kernel.graph import Graph
from ..kernel.graph_json import check_graph, graph_from_dict, graph_to_dict
from ..kernel.models import TRUST_ENV, trusted_by_user
from ..kernel.progress import set_verbose, verbose
from .cache import model_key
from .plugins import parsers, to_graph

#: What a parsed batch is: per sentence, the parser's serialised native parse (or None) and
#: the graph.
Parsed = list[tuple[str | None, Graph]]
#: A parsed batch as it crosses a process boundary: each graph as graph JSON
#: (:func:`semsim.kernel.graph_json.graph_to_dict`), the one form graphs travel in between processes.
Shipped = list[tuple[str | None, dict[str, Any]]]

#: What ``--executor`` takes (besides ``local``), for messages.
EXECUTORS = "local, dask (a cluster on this machine) or dask://HOST:PORT (a running scheduler)"

#: Exit status of a worker that ran past ``--batch-timeout`` (EX_TEMPFAIL), for its logs.
TIMEOUT_EXIT = 75


@dataclass(frozen=True)
class ExecutorSpec:
    """A parsed ``--executor`` value: the engine, and the scheduler's address (None: local)."""

    engine: str  # "local" or "dask"
    address: str | None = None

    @property
    def distributed(self) -> bool:
        return self.engine != "local"


def executor_spec(value: str | None) -> ExecutorSpec:
    """``local`` (or nothing): this machine's processes (``--jobs``); ``dask``: a Dask cluster
    started on this machine; ``dask://HOST:PORT`` (or ``tcp://``, ``tls://``): a running one."""
    value = (value or "local").strip()
    if value == "local":
        return ExecutorSpec("local")
    engine, sep, rest = value.partition("://")
    if engine == "dask" and not sep:
        return ExecutorSpec("dask")
    if engine in ("dask", "tcp", "tls") and sep and rest:
        return ExecutorSpec("dask", f"{'tcp' if engine == 'dask' else engine}://{_host_port(value, rest)}")
    if engine == "ray":
        raise SettingsError(f"{option('executor', value)}: Ray is not supported (yet); use {EXECUTORS} (docs/scale.md)")
    raise SettingsError(f"{option('executor', value)}: unknown executor; use {EXECUTORS}")


def _host_port(value: str, rest: str) -> str:
    """``HOST:PORT`` of a scheduler's address, checked now: Dask would otherwise try a malformed
    one (an unbracketed IPv6 address, a port that is no number, a path) until its connect
    timeout, and then fail with a traceback."""
    from urllib.parse import urlsplit
    bad = f"{option('executor', value)}: not a scheduler address; expected dask://HOST:PORT (IPv6 as [ADDRESS]:PORT)"
    try:
        parts = urlsplit(f"//{rest}")
        port = parts.port
    except ValueError:
        raise SettingsError(bad) from None
    if not parts.hostname or port is None or port == 0 or parts.path or parts.query or parts.fragment \
            or parts.username is not None or ("[" in rest and not rest.startswith("[")):
        raise SettingsError(bad)
    return rest


def _worker_start(loud: bool = False, trusted: bool = False, command_line: bool = False) -> None:
    """A local worker process's start: it dies with the process that started it (Linux's
    parent-death signal: a main process killed by SIGKILL leaves no worker behind), ignores
    Ctrl-C (the main process decides what an interrupt ends), is held to its threads, and
    shows what plugins' libraries print if the main process does (``loud``: ``-v``)."""
    set_verbose(loud)
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            import ctypes
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
            if os.getppid() == 1:  # the parent died before the signal was set
                os._exit(1)
    if trusted:  # trust_model=True, given in the parent's context: this process is semsim's own
        os.environ[TRUST_ENV] = "1"
    if command_line:  # its errors name options, as its parent's do
        COMMAND_LINE.set(True)
    threads.limit()


def parse_batch(parser_name: str, model: str | None, texts: list[str]) -> Parsed:
    """Parse one batch, in whichever process runs it (the unit of work of every executor).

    A parser returns :class:`~semsim.kernel.graph.Graph` objects, kept as they are (the plugin's
    adapter built each once, with everything it put in), or native objects (MRP, a UCCA
    passage: what parsers returned before graphs), converted here by the ``to_graph`` hook."""
    parser = parsers()[parser_name]
    # wherever it runs, a parse never spins more threads than it was given; in the caller's
    # process (no worker) the limits are given back afterwards and no variable is set
    with threads.scoped():
        natives = parser.parse(texts, model)
    if len(natives) != len(texts):
        raise PluginError(f"parser {parser_name!r} returned {len(natives)} parses for {len(texts)} sentences")
    out = []
    for text, native in zip(texts, natives):
        try:
            graph = to_graph(native)  # a Graph is itself
            check_graph(graph)  # what graph JSON refuses is refused here too, cache or no cache
        except (SemsimError, ValueError) as exc:  # a parse that is no valid graph is that sentence's failure
            raise ParseError(f"parser {parser_name!r} gave {text!r} a graph semsim cannot use: {exc}", [text]) from None
        if not parser.own_tokens and graph.tokens and [t.text for t in graph.tokens] != text.split():
            raise ParseError(f"parser {parser_name!r} (plugin {parser.plugin!r}) re-tokenized {text!r}: its graph's "
                             f"tokens {' '.join(t.text for t in graph.tokens)!r} are not the text's words (a parser "
                             "whose tokens are its own says so: Parser(own_tokens=True))", [text])
        out.append((parser.serialize(native) if parser.serialize else None, graph))
    return out


def shipped(parsed: Parsed) -> Shipped:
    """A parsed batch ready to cross a process boundary: its graphs as graph JSON."""
    return [(native, graph_to_dict(graph)) for native, graph in parsed]


def received(batch: Shipped) -> Parsed:
    """A batch that crossed a process boundary (:func:`shipped`), as graphs again: each read
    back once, field for field."""
    return [(native, graph_from_dict(graph)) for native, graph in batch]


def _received_from(future: Future[Shipped]) -> Parsed:
    """A finished worker's batch, read back in this process (deferred: the caller may never ask)."""
    return received(future.result())


def parse_shipped(parser_name: str, model: str | None, texts: list[str]) -> Shipped:
    """:func:`parse_batch` in a worker process, its graphs as graph JSON for the way back
    (not pickled as objects: one documented form between processes, the cache's)."""
    return shipped(parse_batch(parser_name, model, texts))


#: (parser, model, the driver's model key) this worker process has checked its own against:
#: hashing a model (33 MB for TUPA, GBs for amrlib) once per worker, not once per batch. The
#: worker keeps the model it loaded for the first batch, so that is the one the check is about.
_verified: set[tuple[str, str | None, str]] = set()


def parse_on_worker(parser_name: str, model: str | None, driver_key: str, texts: list[str],
                    timeout: float | None) -> Shipped:
    """One batch, parsed on a Dask worker (the task every batch runs).

    The worker checks, once per parser and model, that its parser and model are the
    driver's (the cache key names the model's content: a worker with another file would fill
    the cache with wrong parses).
    Past ``timeout`` seconds the worker process exits: a parser stuck in native code cannot
    be interrupted in its thread, and the scheduler then treats the batch as it treats a
    batch whose worker crashed (retried elsewhere, a bounded number of times); the worker's
    nanny starts a fresh worker in its place.
    """
    watchdog = threading.Timer(timeout, os._exit, (TIMEOUT_EXIT,)) if timeout else None
    if watchdog is not None:
        watchdog.daemon = True
        watchdog.start()
    try:
        threads.limit()  # a Dask worker is semsim's own process: held for good, variables and all
        parser = parsers().get(parser_name)
        if parser is None:
            raise PluginError(f"a Dask worker has no parser {parser_name!r}: install its plugin on every worker "
                              "(docs/scale.md)")
        if (parser_name, model, driver_key) not in _verified:
            if (theirs := model_key(parser, model)) != driver_key:
                raise PluginError(f"a Dask worker's model or plugin for parser {parser_name!r} differs from this "
                                  f"machine's ({theirs} != {driver_key}): give every worker the same files "
                                  "(docs/scale.md)")
            _verified.add((parser_name, model, driver_key))
        return parse_shipped(parser_name, model, texts)
    finally:
        if watchdog is not None:
            watchdog.cancel()


class Executor:
    """Where a run's batches are parsed: a context manager (leaving it, by an error or Ctrl-C
    too, stops what is still queued) over one parser and model.

    :meth:`imap` gives every batch's outcome as it finishes: a call that returns the parsed
    batch or raises what went wrong, so that the caller decides, batch by batch, what to keep.
    :meth:`run` parses one batch and waits (the sentence-by-sentence retries of a failed
    batch); :meth:`cancel` hands out no further batch (the ones running still arrive).
    ``in_order``: outcomes come one at a time in batch order, so a failed batch is best
    retried at once (in this process, before the next batch is parsed).
    """

    in_order = False

    def __init__(self, parser_name: str, model: str | None, key: str) -> None:
        self.parser_name, self.model, self.key = parser_name, model, key
        self.cancelled = False

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        self.close(quick=kind is not None)

    def close(self, quick: bool = False) -> None:
        """Release what the executor holds (quickly after an error: nothing more is wanted)."""

    def imap(self, batches: Sequence[list[str]]) -> Iterator[tuple[int, Callable[[], Parsed]]]:
        raise NotImplementedError

    def run(self, texts: list[str]) -> Parsed:
        return parse_batch(self.parser_name, self.model, texts)

    def cancel(self) -> None:
        self.cancelled = True


class Serial(Executor):
    """Every batch in this process, in order, each parsed when its outcome is asked for."""

    in_order = True

    def imap(self, batches: Sequence[list[str]]) -> Iterator[tuple[int, Callable[[], Parsed]]]:
        for k, batch in enumerate(batches):
            if self.cancelled:
                return
            yield k, functools.partial(self.run, batch)


class _Recorded(BaseContext):
    """The spawn context, but every process it makes is added to ``started`` as it is made,
    before anything starts it. The pool records a worker only once ``start()`` has returned: a
    Ctrl-C landing in between would leave a live worker that nobody ends, and Python's exit
    would wait for it forever (:meth:`Processes._end_workers`). The process is a plain
    ``SpawnProcess``: a worker receives and runs what it would from ``get_context("spawn")``."""

    _name = "spawn"

    def __init__(self, started: list[BaseProcess]) -> None:
        self.started = started

    def Process(self, *args: Any, **kwargs: Any) -> SpawnProcess:
        process = SpawnProcess(*args, **kwargs)
        self.started.append(process)  # atomic: the pool may make one from its own thread
        return process


class Processes(Executor):
    """Batches in ``jobs`` local worker processes (spawned: a fork would share torch's thread
    pools and locks), each limited to its share of threads (:mod:`semsim.kernel.threads`); a failed
    batch's retries run in this process."""

    #: Seconds the workers are given to end on SIGTERM after an interrupt, before SIGKILL.
    END_WITHIN = 5.0

    def __init__(self, parser_name: str, model: str | None, key: str, jobs: int) -> None:
        super().__init__(parser_name, model, key)
        self._workers: list[BaseProcess] = []  # every worker process the pool made, started or about to be
        self.pool = ProcessPoolExecutor(max_workers=jobs, mp_context=_Recorded(self._workers),
                                        initializer=_worker_start,
                                        initargs=(verbose(), trusted_by_user(), COMMAND_LINE.get()))

    def close(self, quick: bool = False) -> None:
        if quick:  # an error, Ctrl-C or SIGTERM: the batches running are not wanted, nor waited for
            self._end_workers()
        self.pool.shutdown(wait=not quick, cancel_futures=True)

    def _end_workers(self) -> None:
        """End every worker process, and wait until they have ended (a batch may take minutes,
        or hang): Python's exit waits for each worker still alive, so a run whose main process
        alone was interrupted (a process manager's SIGINT) would never end. A worker that is
        still starting ends too: left alone it would fail to read the pool's queues once this
        process has removed them, with a traceback."""
        started = [process for process in self._workers if process.pid is not None]  # None: never started
        for process in started:
            with contextlib.suppress(OSError):
                process.terminate()
        deadline = time.monotonic() + self.END_WITHIN
        for process in started:
            process.join(max(0.0, deadline - time.monotonic()))
        for process in started:
            if process.is_alive():  # a parser that handles SIGTERM, or a machine too busy to let it end
                with contextlib.suppress(OSError):
                    process.kill()
                process.join(self.END_WITHIN)

    def imap(self, batches: Sequence[list[str]]) -> Iterator[tuple[int, Callable[[], Parsed]]]:
        futures = {self.pool.submit(parse_shipped, self.parser_name, self.model, b): k for k, b in enumerate(batches)}
        for future in as_completed(futures):
            if not future.cancelled():
                yield futures[future], functools.partial(_received_from, future)

    def run(self, texts: list[str]) -> Parsed:
        # the retries run here, once the pool has finished: its workers' models are freed first
        self.pool.shutdown(wait=True)
        return super().run(texts)

    def cancel(self) -> None:
        super().cancel()
        self.pool.shutdown(wait=False, cancel_futures=True)


class Dask(Executor):
    """Batches on a Dask cluster, through a client (and, for ``--executor dask``, the local
    cluster it started); leaving it, by an error or Ctrl-C too, cancels what is still queued.
    Workers check that their parser and model are this machine's (:func:`parse_on_worker`)."""

    def __init__(self, parser_name: str, model: str | None, key: str, spec: ExecutorSpec, workers: int,
                 timeout: float | None) -> None:
        super().__init__(parser_name, model, key)
        try:
            import distributed
        except ImportError:
            raise SemsimError(f"{option('executor', 'dask')} needs Dask's distributed scheduler: "
                              "pip install 'semsim[distributed]' (docs/scale.md)") from None
        self._distributed = distributed
        self.timeout = timeout
        self._threads, self._asked = 1, -1e9
        # semsim reports what failed, per sentence: the scheduler's own logs only with --verbose
        level = logging.WARNING if verbose() else logging.CRITICAL
        self.cluster = None
        # Dask's configuration gives some of its loggers (distributed.client...) levels of their own
        for name in ["distributed", *(n for n in logging.root.manager.loggerDict if n.startswith("distributed."))]:
            logging.getLogger(name).setLevel(level)
        try:
            if spec.address is None:
                # loopback only; one thread per worker: one parser (and model) per process
                self.cluster = distributed.LocalCluster(
                    n_workers=max(1, workers), threads_per_worker=1, processes=True, host="127.0.0.1",
                    dashboard_address=None, silence_logs=level,
                    env={TRUST_ENV: "1"} if trusted_by_user() else {})  # trust_model=True, for its workers
                self.client = distributed.Client(self.cluster, set_as_default=False)
            else:
                if spec.address.startswith("tls://") and \
                        distributed.Security().get_connection_args("client").get("ssl_context") is None:
                    # Dask would fail inside its connect, then spend a minute closing the client
                    raise SemsimError(f"{option('executor', spec.address)}: Dask has no TLS configuration for its "
                                      "client (distributed.comm.tls: ca-file, client.cert, client.key in Dask's "
                                      "configuration); docs/scale.md")
                self.client = distributed.Client(spec.address, set_as_default=False, timeout=30)
        except SemsimError:
            self.close()
            raise
        except Exception as exc:  # refused, timed out, no such host (OSError), a TLS setting Dask rejects
            self.close()
            where = f"reach a Dask scheduler at {spec.address}" if spec.address else "start a local Dask cluster"
            why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise SemsimError(f"{option('executor').removesuffix('=...')}: cannot {where}: {why}") from None

    def close(self, quick: bool = False) -> None:
        """Disconnect, and stop a cluster this pool started. After an error or Ctrl-C, a
        worker may be stuck in a parse: its processes are given a few seconds, not Dask's
        graceful minute, so that the interrupt ends the run while the cache stays usable."""
        timeout = 5 if quick else None
        client = getattr(self, "client", None)
        if client is not None:
            with contextlib.suppress(Exception):
                client.close(timeout=timeout)
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                self.cluster.close(timeout=timeout)

    def threads(self) -> int:
        """Worker threads of the cluster (workers may come and go: asked again after a second)."""
        now = time.monotonic()
        if now - self._asked >= 1.0:
            with contextlib.suppress(OSError):  # a lost scheduler: the next result says so
                self._threads, self._asked = max(1, sum(self.client.nthreads().values())), now
        return self._threads

    def _submit(self, texts: list[str]) -> Any:
        # pure=False: a batch sent again (sentence by sentence) is a new task, never a cached result
        return self.client.submit(parse_on_worker, self.parser_name, self.model, self.key, texts, self.timeout,
                                  pure=False)

    def _outcome(self, texts: Sequence[str], future: Any) -> Callable[[], Parsed]:
        """A call that returns the batch's result or raises what semsim makes of its failure."""
        def result() -> Parsed:
            try:
                return received(future.result())
            except self._distributed.KilledWorker:
                what = f"the batch starting {texts[0]!r}" if len(texts) > 1 else repr(texts[0])
                timeout = f" or ran past {option('batch_timeout', f'{self.timeout:g}')}s" if self.timeout else ""
                raise ParseError(f"parser {self.parser_name!r}: a Dask worker died{timeout} on {what} each time "
                                 "the scheduler tried it", [] if len(texts) > 1 else list(texts)) from None
            except (OSError, CancelledError) as exc:  # Dask's FutureCancelledError too
                first = str(exc).partition("\n")[0]
                raise PluginError(f"lost the Dask cluster while parsing: {type(exc).__name__}: {first}") from None
        return result

    def imap(self, batches: Sequence[list[str]]) -> Iterator[tuple[int, Callable[[], Parsed]]]:
        """(index, outcome) of every batch, in the order they finish. At most two batches per
        worker thread are out at a time, so that a corpus of millions is not shipped to the
        scheduler at once while every worker has its next batch waiting."""
        pending = iter(enumerate(batches))
        index: dict[Any, int] = {}
        done = self._distributed.as_completed(loop=self.client.loop)

        def refill() -> None:
            limit = 2 * self.threads()
            while len(index) < limit and not self.cancelled:
                item = next(pending, None)
                if item is None:
                    return
                k, batch = item
                future = self._submit(batch)
                index[future] = k
                done.add(future)
        refill()
        for future in done:
            k = index.pop(future)
            yield k, self._outcome(batches[k], future)
            if self.cancelled:  # an error about the run: the pool cancels the rest on leaving
                return
            refill()

    def run(self, texts: list[str]) -> Parsed:
        """One batch on the cluster, waiting for it (sentence-by-sentence retries)."""
        return self._outcome(texts, self._submit(texts))()


def open_executor(spec: ExecutorSpec, *, jobs: int, timeout: float | None, parser_name: str, model: str | None,
                  key: str, batches: int) -> Executor:
    """The executor ``spec`` names, for ``batches`` batches: Dask when asked for, worker
    processes for ``jobs`` > 1 and more than one batch, else this process."""
    if spec.distributed and batches:
        return Dask(parser_name, model, key, spec, jobs, timeout)
    if jobs > 1 and batches > 1:
        return Processes(parser_name, model, key, jobs)
    return Serial(parser_name, model, key)
