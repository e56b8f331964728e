"""The systems table at the scale of a GEC shared task (prints figures; not a test).

    python benchmarks/bench_systems.py [--systems 15] [--sentences 1312]

CoNLL-2014 had 13 teams on 1,312 test sentences. This times what `semsim score` does after
scoring: each system's corpus score with a 1,000-resample bootstrap interval, and paired
tests between all pairs of systems (10,000 trials each, approximate randomization and paired
bootstrap). Sentence scores are synthetic (random counts): the statistics cost the same
whatever produced them.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from semsim.app.systems import compare_systems
from semsim.kernel.stats import Counts, Score


def synthetic(n_systems: int, n: int, seed: int = 0) -> dict[str, list[Score]]:
    rng = np.random.default_rng(seed)
    total = rng.integers(3, 40, size=(n, 2))
    out = {}
    for k in range(n_systems):
        keep = np.clip(rng.normal(0.8 + 0.005 * k, 0.1, size=(n, 2)), 0, 1)
        matched = np.minimum(total, np.round(total * keep)).astype(int)
        out[f"system{k:02d}"] = [Score({"s->r": Counts(int(m[0]), int(t[0]), int(m[1]), int(t[1])),
                                        "r->s": Counts(int(m[1]), int(t[1]), int(m[0]), int(t[0]))}, "bench")
                                 for m, t in zip(matched, total)]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--systems", type=int, default=15)
    ap.add_argument("--sentences", type=int, default=1312)
    args = ap.parse_args()
    data = synthetic(args.systems, args.sentences)
    pairs = args.systems * (args.systems - 1) // 2
    print(f"{args.systems} systems x {args.sentences} sentences, {pairs} pairs")
    for paired in (None, "ar", "bs"):
        t = time.perf_counter()
        report = compare_systems(data, n_bootstrap=1000, paired=paired, trials=10000)
        elapsed = time.perf_counter() - t
        significant = sum(x.q < 0.05 for x in report.tests)
        label = paired or "CIs only"
        print(f"  {label:>8}: {elapsed:6.2f} s  ({significant} of {len(report.tests)} pairs significant at q<0.05)")
    print(f"  peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
