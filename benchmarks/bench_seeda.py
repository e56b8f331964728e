"""SEEDA from text, as a GEC researcher scores it (prints figures; not a test).

    python benchmarks/bench_seeda.py [--jobs 1 2] [--limit N] [--shared DIR]

Times ``semsim score --source INPUT.txt --hyp SYSTEM.txt ...`` with all 14 systems of
``../shared/data/seeda/outputs/all`` (CoNLL-2014 test, 1,312 source sentences; 8,163 distinct
sentences to parse), from text with no cache, in a fresh process per run, ``OMP_NUM_THREADS``
unset as a user runs it. Prints, per ``--jobs``: wall time, sentences parsed per second,
peak RSS of the command and of its largest worker, and the speed-up over the first
``--jobs`` value.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_parser import wait  # wall time and the largest process's peak RSS

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--limit", type=int, default=None, help="only the first N lines of every file")
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    args = ap.parse_args()
    seeda = args.shared / "data" / "seeda" / "outputs" / "all"
    systems = sorted(p for p in seeda.glob("*.txt") if p.stem != "INPUT")
    tmp = Path(tempfile.mkdtemp(prefix="bench-seeda-"))
    files = []
    for path in [seeda / "INPUT.txt", *systems]:
        lines = path.read_text(encoding="utf-8").splitlines()[: args.limit]
        files.append(tmp / path.name)
        files[-1].write_text("\n".join(lines) + "\n", encoding="utf-8")
    distinct = len({" ".join(x.split()) for f in files for x in f.read_text(encoding="utf-8").splitlines()
                    if x.strip()})
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    print(f"SEEDA: {len(systems)} systems × {len(files[0].read_text().splitlines())} sentences, "
          f"{distinct} distinct sentences; {os.cpu_count()} cores; OMP_NUM_THREADS unset\n")
    print("| --jobs | wall (s) | sentences/s | peak RSS, largest process (MB) | speed-up |")
    print("|---|---|---|---|---|")
    first = None
    for jobs in args.jobs:
        hyps = [str(x) for f in files[1:] for x in ("--hyp", f"{f.stem}={f}")]
        cmd = [sys.executable, "-m", "semsim.app.cli", "score", "--source", str(files[0]), *hyps, "--no-cache", "-q",
               "--jobs", str(jobs), "--format", "tsv", "-o", str(tmp / f"jobs{jobs}.jsonl")]
        with open(tmp / f"jobs{jobs}.tsv", "w", encoding="utf-8") as out:
            wall, rss = wait((subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.PIPE, text=True),
                              time.perf_counter()))
        first = first or wall
        print(f"| {jobs} | {wall:.1f} | {distinct / wall:.0f} | {rss:.0f} | {first / wall:.2f}× |")
    outputs = {(tmp / f"jobs{j}.tsv").read_bytes() + (tmp / f"jobs{j}.jsonl").read_bytes() for j in args.jobs}
    print(f"\ntables and sentence records identical across --jobs: {'yes' if len(outputs) == 1 else 'NO'}")


if __name__ == "__main__":
    main()
