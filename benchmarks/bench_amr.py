"""Speed of USim and Smatch on AMR pairs (prints figures; not a test).

    OMP_NUM_THREADS=1 python benchmarks/bench_amr.py [--shared ../shared] [--repeat 3]

Pairs: the 100 AMRs of the MRP sample's PENMAN file (``data/mrp-sample/amr/wsj.amr``),
each paired with the next one (99 pairs of different graphs) and with itself (100).
Measured in the same run, on the same pairs:

1. USim (paper variant) on pre-read graphs;
2. semsim's deterministic Smatch (``semsim_amr.smatch``);
3. the ``smatch`` package's own ``get_amr_match`` as its command line calls it (its own
   RNG, cache cleared per pair as ``smatch.py`` does), for reference.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import penman

import semsim
from semsim_amr.reader import blocks
from semsim_amr.smatch import _one_line, smatch_counts

ROOT = Path(__file__).resolve().parents[1]


def per_second(fn, pairs, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        for a, b in pairs:
            fn(a, b)
        times.append(time.perf_counter() - t)
    return len(pairs) / statistics.median(times)


def package_smatch(a: str, b: str) -> None:
    import smatch
    smatch.match_triple_dict.clear()
    smatch.get_amr_match(a, b)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    path = args.shared / "data/mrp-sample/amr/wsj.amr"
    graphs = semsim.read_all(path)
    text = path.read_text(encoding="utf-8")
    amrs = [penman.decode(b) for _, b in blocks(text) if not all(x.startswith("#") for x in b.splitlines())]
    lines = [_one_line(a) for a in amrs]
    n_triples = statistics.mean(len(a.triples) for a in amrs)
    print(f"## {len(graphs)} AMRs of the MRP sample ({n_triples:.1f} triples on average), median of {args.repeat}")
    for what, k in (("next graph", 1), ("itself", 0)):
        g_pairs = list(zip(graphs, graphs[k:]))
        a_pairs = list(zip(amrs, amrs[k:]))
        l_pairs = list(zip(lines, lines[k:]))
        for g, h in g_pairs:  # build each graph's derived structures once, as a corpus run does
            semsim.usim(g, h)
        usim = per_second(lambda g, h: semsim.usim(g, h), g_pairs, args.repeat)
        ours = per_second(smatch_counts, a_pairs, args.repeat)
        theirs = per_second(package_smatch, l_pairs, args.repeat)
        print(f"  pairs with {what:10} ({len(g_pairs):3}):  USim {usim:7.0f} pairs/s   "
              f"semsim Smatch {ours:6.0f} pairs/s   smatch package {theirs:6.0f} pairs/s")


if __name__ == "__main__":
    main()
