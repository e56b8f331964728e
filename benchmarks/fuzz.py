"""Long fuzzing campaigns over every reader and the commands that read them (prints
figures; not a test).

    python benchmarks/fuzz.py [--examples 5000] [--seed N] [-k EXPR]

Runs the property tests the suite runs with a small fixed budget (``tests/test_fuzz.py``,
``plugins/*/tests/test_fuzz_*.py``: arbitrary bytes, byte-level mutations and JSON-level
mutations of valid files, through the readers and the CLI) with EXAMPLES random examples
each, seeded (``--seed``, printed) so that a failure can be replayed, and prints per test
the examples run, their time, and what Hypothesis found. A failure prints the smallest
input it could shrink to; add it to ``tests/malformed/`` with the error it should give.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FILES = ["tests/test_fuzz.py", "plugins/ucca/tests/test_fuzz_xml.py", "plugins/amr/tests/test_fuzz_penman.py"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--examples", type=int, default=5000, help="Examples per property test.")
    ap.add_argument("--seed", type=int, default=None, help="Hypothesis seed (default: a random one, printed).")
    ap.add_argument("-k", default=None, help="Only the tests pytest's -k selects.")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    print(f"fuzz: {args.examples} examples per test, seed {seed} (replay: --seed {seed})", flush=True)
    env = {**os.environ, "SEMSIM_FUZZ_EXAMPLES": str(args.examples), "SEMSIM_FUZZ_RANDOM": "1"}
    cmd = [sys.executable, "-m", "pytest", *FILES, "-q", "-p", "no:cacheprovider", f"--hypothesis-seed={seed}",
           "--hypothesis-show-statistics", "--durations=0", *(["-k", args.k] if args.k else [])]
    started = time.perf_counter()
    code = subprocess.run(cmd, cwd=ROOT, env=env).returncode
    print(f"fuzz: {time.perf_counter() - started:.0f} s in all; {'no failure' if code == 0 else 'FAILURES above'}")
    return code


if __name__ == "__main__":
    sys.exit(main())
