"""UCCA parsing speed as a user meets it (prints figures; not a test).

    python benchmarks/bench_parser.py [--model FILE] [--parser NAME] [--trust-model] [--limit N]
        [--skip-busy] [--skip-jobs]

Every figure times the real command, ``semsim parse FILE -o /dev/null --no-cache -q``, in a
fresh process, with the environment as the user has it (``OMP_NUM_THREADS`` unset; semsim
chooses its threads itself, ``semsim/kernel/threads.py``), on two corpora from ``../shared/data``:
the JFLEG dev sources (754 sentences, 18.6 tokens on average) and the CoNLL-2014 test sources
(SEEDA's ``INPUT.txt``, 1,312 sentences, 23.0 tokens on average, up to 227). Reported:

* **load**: wall time of a one-sentence parse (interpreter, imports, model, encoder, spaCy);
* **alone**: sentences/s of the parse itself (wall time minus the one-sentence run), one job;
* **beside a second job**: the same while a second ``semsim parse`` of the same file runs
  beside it, and the slowdown (the issue's target: at most 1.5×);
* **--jobs 1 / --jobs 2**: wall time of the CoNLL-2014 corpus with one and two worker
  processes, and the speed-up (target: at least 1.6× on 2 cores);
* **peak RSS** of the parsing process (with ``--jobs 2``: of the largest worker);
* **first results**: ``semsim score`` of two lines from text, cold (a fresh process, no
  cache): wall time and peak RSS; and the first 300 CoNLL-2014 sentences parsed, start
  included, alone and beside a second ``semsim parse`` of the same file.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def start(args: list[str]) -> tuple[subprocess.Popen, float]:
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}  # as a user runs it
    cmd = [sys.executable, "-m", "semsim.app.cli", "parse", *args, "-o", os.devnull, "--no-cache", "-q"]
    return subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, text=True), time.perf_counter()


def wait(job: tuple[subprocess.Popen, float]) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB of the process or its largest child)."""
    proc, t0 = job
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        sys.exit(f"semsim {proc.args[3]} failed: {proc.stderr.read().strip()}")
    # wait4's usage covers the process and the workers it reaped: the largest peak of them
    return seconds, usage.ru_maxrss / 1024


def run(args: list[str]) -> tuple[float, float]:
    return wait(start(args))


def first_results(common: list[str], conll: Path, tmp: Path) -> None:
    """The rows a user meets first: two lines scored cold, and 300 sentences start included."""
    src, hyp = tmp / "src.txt", tmp / "hyp.txt"
    src.write_text("He go to school yesterday .\nShe have two cat .\n", encoding="utf-8")
    hyp.write_text("He went to school yesterday .\nShe has two cats .\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    cmd = [sys.executable, "-m", "semsim.app.cli", "score", "--source", str(src), "--hyp", str(hyp), "--no-cache", "-q",
           *common]
    proc, t0 = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True), \
        time.perf_counter()
    seconds, rss = wait((proc, t0))
    print(f"\n`semsim score` of 2 lines, cold, no cache: {seconds:.1f} s, peak RSS {rss:.0f} MB")
    first = tmp / "conll300.txt"
    first.write_text("".join(conll.open(encoding="utf-8").readlines()[:300]), encoding="utf-8")
    alone, _ = run([str(first), *common])
    one, two = start([str(first), *common]), start([str(first), *common])
    together, _ = wait(one)
    wait(two)
    print(f"300 CoNLL-2014 sentences, start included: {alone:.1f} s ({300 / alone:.0f} sentences/s); "
          f"beside a second `semsim parse`: {together:.1f} s (×{together / alone:.2f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parser", default="ucca-span", help="UCCA parser (default: semsim's span parser)")
    ap.add_argument("--model", default=None, help="its model (default: the parser's own)")
    ap.add_argument("--trust-model", action="store_true", help="load a model whose format runs code (TUPA)")
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    ap.add_argument("--limit", type=int, default=None, help="only the first N sentences of each corpus")
    ap.add_argument("--skip-busy", action="store_true", help="no run beside a second job")
    ap.add_argument("--skip-jobs", action="store_true", help="no --jobs 1 / --jobs 2 comparison")
    args = ap.parse_args()
    corpora = {"JFLEG dev": args.shared / "data/jfleg/dev/dev.src",
               "CoNLL-2014": args.shared / "data/seeda/outputs/all/INPUT.txt"}
    common = ["--parser", args.parser, *(["--model", args.model] if args.model else []),
              *(["--trust-model"] if args.trust_model else [])]
    tmp = Path(tempfile.mkdtemp(prefix="bench-parser-"))
    files = {}
    for name, path in corpora.items():
        lines = [x for x in path.read_text(encoding="utf-8").splitlines() if x.strip()][: args.limit]
        files[name] = tmp / f"{name.replace(' ', '_')}.txt"
        files[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    one = tmp / "one.txt"
    one.write_text("He gave John an apple .\n", encoding="utf-8")
    load, load_rss = run([str(one), *common])
    print(f"parser {args.parser}, model {args.model or 'default'}; {os.cpu_count()} cores; "
          f"OMP_NUM_THREADS {'unset' if 'OMP_NUM_THREADS' not in os.environ else 'ignored (unset for the runs)'}")
    print(f"load (one-sentence parse, fresh process): {load:.1f} s, peak RSS {load_rss:.0f} MB\n")
    print("| corpus | sentences | alone: sent/s | peak RSS (MB) | beside a 2nd job: sent/s | slowdown |")
    print("|---|---|---|---|---|---|")
    for name, f in files.items():
        n = sum(1 for _ in f.open(encoding="utf-8"))
        alone, rss = run([str(f), *common])
        rate = n / max(alone - load, 1e-9)
        busy = "skipped"
        slowdown = ""
        if not args.skip_busy:
            first, second = start([str(f), *common]), start([str(f), *common])
            together, _ = wait(first)
            wait(second)
            busy = f"{n / max(together - load, 1e-9):.1f}"
            slowdown = f"{(together - load) / max(alone - load, 1e-9):.2f}×"
        print(f"| {name} | {n} | {rate:.1f} | {rss:.0f} | {busy} | {slowdown} |")
    first_results(common, files["CoNLL-2014"], tmp)
    if not args.skip_jobs:
        f = files["CoNLL-2014"]
        n = sum(1 for _ in f.open(encoding="utf-8"))
        t1, _ = run([str(f), *common, "--jobs", "1"])
        t2, _ = run([str(f), *common, "--jobs", "2"])
        print(f"\nCoNLL-2014, {n} sentences, wall time: --jobs 1 {t1:.1f} s, --jobs 2 {t2:.1f} s: "
              f"speed-up {t1 / t2:.2f}×")


if __name__ == "__main__":
    main()
