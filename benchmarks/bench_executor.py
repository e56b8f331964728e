"""Parsing speed by executor: ``--jobs 1``, ``--jobs 2`` and a local Dask cluster of 2 workers,
in one run (prints figures; not a test; needs the ``distributed`` extra).

    OMP_NUM_THREADS=1 python benchmarks/bench_executor.py [--lines 754] [--batch-size 32] [--shared ../shared]

Runs ``semsim score`` with the default parser (the span UCCA parser and its shipped model) on
the first LINES lines of JFLEG dev, source vs. ref0..ref3, on a cold cache (``--no-cache``),
end to end: process start, workers' start and model loading included, as a user waits for
them. Every executor's per-sentence output must be byte-identical to ``--jobs 1``'s.

Then the steady state of a long run: the same sentences parsed on a 2-worker cluster that is
already running, its workers' model loaded (given by address, as a real cluster is). Then the
overhead per batch, without the parser: empty batches sent through a pool of 2
worker processes (``--jobs 2``'s ProcessPoolExecutor) and through the 2-worker Dask cluster
(model already loaded), one at a time (round trip) and all at once (throughput).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def score(args: list[str]) -> float:
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "semsim.app.cli", "score", *args], capture_output=True, text=True)
    if r.returncode:
        sys.exit(r.stderr)
    return time.perf_counter() - t


def warm_cluster(texts: list[str], batch_size: int) -> tuple[float, float]:
    """Seconds to parse ``texts`` on an already running 2-worker cluster whose workers have
    loaded the model (a long run's steady state), given by address; and its start time."""
    from distributed import LocalCluster

    from semsim.app.parsing import ParseSettings, parse_texts
    t = time.perf_counter()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None, silence_logs=50) as cluster:
        address = cluster.scheduler_address.replace("tcp://", "dask://")
        settings = ParseSettings(representation="ucca", cache=False, executor=address)
        parse_texts(["warm up .", "load the model ."], replace(settings, batch_size=1), keep_going=False)
        started = time.perf_counter() - t
        t = time.perf_counter()
        parse_texts(texts, replace(settings, batch_size=batch_size), keep_going=False)
        return time.perf_counter() - t, started


def overhead(n: int) -> dict[str, tuple[float, float]]:
    """Seconds per empty batch (round trip one at a time, and at full throughput), per pool."""
    from semsim.app.cache import model_key
    from semsim.app.executors import Dask, executor_spec, parse_batch
    from semsim.app.parsing import find_parser
    parser = find_parser(None, "ucca")
    key = model_key(parser, None)
    out = {}
    with ProcessPoolExecutor(2, mp_context=get_context("spawn")) as pool:
        for f in [pool.submit(parse_batch, parser.name, None, []) for _ in range(2)]:
            f.result()  # workers started, model loaded
        t = time.perf_counter()
        for _ in range(n):
            pool.submit(parse_batch, parser.name, None, []).result()
        one = (time.perf_counter() - t) / n
        t = time.perf_counter()
        for f in [pool.submit(parse_batch, parser.name, None, []) for _ in range(n)]:
            f.result()
        out["--jobs 2 (processes)"] = (one, (time.perf_counter() - t) / n)
    t = time.perf_counter()
    with Dask(parser.name, None, key, executor_spec("dask"), 2, None) as dask:
        started = time.perf_counter() - t
        for _ in range(4):
            dask.run([])
        t = time.perf_counter()
        for _ in range(n):
            dask.run([])
        one = (time.perf_counter() - t) / n
        t = time.perf_counter()
        for _ in dask.imap([[] for _ in range(n)]):
            pass
        out["dask, 2 workers"] = (one, (time.perf_counter() - t) / n)
    print(f"local Dask cluster start (2 workers): {started:.2f} s")
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=754)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--batches", type=int, default=200, help="Empty batches for the overhead figures.")
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    dev = args.shared / "data/jfleg/dev"
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for name in ("dev.src", "dev.ref0", "dev.ref1", "dev.ref2", "dev.ref3"):
            lines = (dev / name).read_text(encoding="utf-8").splitlines()[:args.lines]
            (Path(tmp) / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
            files.append(lines)
        unique = len({" ".join(t.split()) for lines in files for t in lines if t.strip()})
        common = ["--source", f"{tmp}/dev.src", *(x for k in range(4) for x in ("--hyp", f"{tmp}/dev.ref{k}")),
                  "--no-cache", "--bootstrap", "0", "--paired", "none", "-q", "--batch-size", str(args.batch_size)]
        print(f"JFLEG dev, {args.lines} lines x 5 files: {unique} unique sentences, batches of {args.batch_size} "
              f"({-(-unique // args.batch_size)} batches); {os.cpu_count()} CPUs")
        outputs = {}
        for name, opts in (("--jobs 1", ["--jobs", "1"]), ("--jobs 2", ["--jobs", "2"]),
                           ("--executor dask --jobs 2", ["--executor", "dask", "--jobs", "2"])):
            out = Path(tmp) / f"out{len(outputs)}.jsonl"
            wall = score([*common, *opts, "-o", str(out)])
            outputs[name] = out.read_bytes()
            print(f"{name:28} {wall:7.1f} s  {unique / wall:7.1f} sentences/s")
        same = len(set(outputs.values())) == 1
        wall, started = warm_cluster([t for lines in files for t in lines], args.batch_size)
        print(f"{'dask, running cluster (2 w.)':28} {wall:7.1f} s  {unique / wall:7.1f} sentences/s  "
              f"(parsing only; its start and model loading took {started:.1f} s before)")
        print(f"per-sentence output identical across executors: {same}")
    for name, (one, many) in overhead(args.batches).items():
        print(f"overhead per empty batch, {name:22}: {one * 1e3:6.2f} ms round trip, "
              f"{many * 1e3:6.2f} ms at full throughput")
    if not same:
        sys.exit("outputs differ")


if __name__ == "__main__":
    main()
