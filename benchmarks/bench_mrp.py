"""Speed of USim and each framework's own metric on the MRP sample (prints figures; not a test).

    OMP_NUM_THREADS=1 python benchmarks/bench_mrp.py [--shared ../shared] [--repeat 3]

Pairs: the sample's 89 graphs (87 for UCCA and AMR) of each framework, each paired with
the next one. Graphs are read and converted once (conversion is timed separately, as
graphs/s); both metrics then keep what they derive from a graph (USim its yields, SDP and
EDM the parsed MRP) for later pairs, so the median of the repeats is the steady rate.
Frameworks whose plugin is not installed are skipped.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time
from pathlib import Path

import semsim
from semsim.app.plugins import metrics

ROOT = Path(__file__).resolve().parents[1]
OWN = {"dm": "sdp-dm", "psd": "sdp-psd", "eds": "edm", "amr": "smatch", "ucca": None}


def per_second(fn, items, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        for x in items:
            fn(*x)
        times.append(time.perf_counter() - t)
    return len(items) / statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    registered = metrics()
    print(f"## MRP sample, each graph vs the next, median of {args.repeat}")
    print(f"{'framework':<10} {'pairs':>5} {'read graphs/s':>14} {'USim pairs/s':>13} {'own metric':>11} "
          f"{'pairs/s':>9}")
    for fw, own in OWN.items():
        path = args.shared / f"data/mrp-sample/{fw}.mrp"
        t = time.perf_counter()
        try:
            graphs = semsim.read_all(path)
        except semsim.SemsimError as exc:
            print(f"{fw:<10} skipped: {exc}")
            continue
        read_rate = len(graphs) / (time.perf_counter() - t)
        pairs = list(itertools.pairwise(graphs))
        usim = per_second(semsim.usim, pairs, args.repeat)
        metric = registered.get(own) if own else None
        rate = f"{per_second(metric.score, pairs, args.repeat):9.0f}" if metric else f"{'-':>9}"
        print(f"{fw:<10} {len(pairs):>5} {read_rate:>14.0f} {usim:>13.0f} {own or '-':>11} {rate}")


if __name__ == "__main__":
    main()
