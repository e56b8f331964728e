"""How many threads a parsing process gives torch, OpenMP and BLAS: one, unless told.

torch and OpenMP start one busy-waiting thread per core by default. On a machine whose
cores are busy (a second job, another user, ``--jobs`` workers), those threads spin against
each other and a parse can run ten times slower: measured on 2 cores, 300 sentences took
4.7 s alone and 59 s beside a second ``semsim parse``, and ``--jobs 2`` was 4.3× slower than
``--jobs 1``. So every process that parses uses :func:`threads` threads, one by default:
parallelism comes from ``--jobs`` processes (or Dask workers), never from threads fighting
over cores. ``$SEMSIM_THREADS`` overrides it (``docs/parser.md`` has the measurements),
and ``jobs × threads`` is never more than the cores (:func:`check`).

semsim's own worker processes are held with :func:`limit`, which sets the runtimes' variables
for good; a parse in the caller's own process (a metric suite's) is held with :func:`scoped`,
which changes no variable and gives back the pools' sizes when it ends: a library must not
change the threads, or the environment, of the program that calls it.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

from .errors import SettingsError, option

ENV = "SEMSIM_THREADS"
#: what the OpenMP, BLAS and tokenizers runtimes read when they start
RUNTIME_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "RAYON_NUM_THREADS")


def cores() -> int:
    """The cores this process may run on (its affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def threads() -> int:
    """Threads per parsing process: ``$SEMSIM_THREADS``, else 1."""
    value = os.environ.get(ENV, "").strip()
    if not value:
        return 1
    if not value.isdigit() or int(value) < 1:
        raise SettingsError(f"${ENV}={value!r}: expected a whole number of threads, at least 1", [ENV])
    if int(value) > cores():  # more threads than cores only spin (and torch refuses absurd counts)
        raise SettingsError(f"${ENV}={value} is more than this machine's {cores()} cores: threads would spin "
                            "against each other", [ENV])
    return int(value)


def check(jobs: int) -> int:
    """Threads per process for ``jobs`` processes; refuses more threads than cores."""
    n = threads()
    if jobs * n > cores() and n > 1:
        raise SettingsError(f"{option('jobs', str(jobs))} × ${ENV}={n} threads is more than this machine's "
                            f"{cores()} cores: threads would spin against each other", [ENV])
    return n


def limit(n: int | None = None) -> int:
    """Hold this process to ``n`` threads (default :func:`threads`): torch's intra-op pool,
    OpenMP and BLAS pools already loaded (threadpoolctl), and the variables read by those
    that start later (a worker calls this before it imports a parser). Returns ``n``."""
    n = threads() if n is None else n
    for name in RUNTIME_VARIABLES:
        os.environ[name] = str(n)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != n:
        torch.set_num_threads(n)
    try:
        from threadpoolctl import threadpool_limits
        threadpool_limits(n)
    except ImportError:  # BLAS pools are then held only by the variables above
        pass
    return n


@contextlib.contextmanager
def environment_kept() -> Iterator[None]:
    """``os.environ`` as it was before the block, whatever the block set: for importing a
    library that sets variables as it loads (threadpoolctl sets ``KMP_DUPLICATE_LIB_OK``)."""
    before = dict(os.environ)
    try:
        yield
    finally:
        for name in [k for k in os.environ if k not in before]:
            del os.environ[name]
        for name, value in before.items():
            if os.environ.get(name) != value:
                os.environ[name] = value


@contextlib.contextmanager
def scoped(n: int | None = None) -> Iterator[int]:
    """Hold this process to ``n`` threads (default :func:`threads`) for the block and give
    the old sizes back after it: torch's intra-op pool (if torch is loaded) and the OpenMP and
    BLAS pools loaded (threadpoolctl's context). No environment variable changes: a parser
    in the caller's process passes its count to its runtime itself (ONNX Runtime's session
    options), and one that starts a runtime later is held by the pools' limits."""
    n = threads() if n is None else n
    torch = sys.modules.get("torch")
    before = torch.get_num_threads() if torch is not None else None
    with contextlib.ExitStack() as stack:
        try:
            with environment_kept():
                from threadpoolctl import threadpool_limits
            stack.enter_context(threadpool_limits(n))
        except ImportError:  # no BLAS pools to hold
            pass
        if torch is not None and before != n:
            torch.set_num_threads(n)
        try:
            yield n
        finally:
            if torch is not None and before is not None and torch.get_num_threads() != before:
                torch.set_num_threads(before)
