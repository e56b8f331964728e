"""semsim called as a library, as a metric suite calls it (#55; prints figures, not a test).

    python benchmarks/bench_library.py [--pairs 1000] [--shared ../shared]

On the first PAIRS pairs of JFLEG dev (source against ref0, then ref1...), with the default
parser and a parse cache in a temporary directory:

1. the parser's own rate: ``semsim.parse`` of every distinct sentence, no cache;
2. one ``USim.text_scores`` call on the pairs, no cache (parse and score);
3. an open scorer (``USim().scorer()``), the parse cache warm, one ``score`` call per pair:
   first the pairs it has not seen (graphs from the open cache, scored), then the same pairs
   again (scores it remembers).

Import time and the first score of a fresh process are timed apart, with farm-bench, against
the main checkout (docs/benchmarks.md has the commands).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def pairs(shared: Path, n: int) -> tuple[list[str], list[str]]:
    """The first ``n`` (source, reference) pairs of JFLEG dev, reference by reference."""
    dev = shared / "data/jfleg/dev"
    src = dev.joinpath("dev.src").read_text(encoding="utf-8").splitlines()
    sources, corrections = [], []
    for k in range(4):
        for s, r in zip(src, dev.joinpath(f"dev.ref{k}").read_text(encoding="utf-8").splitlines()):
            if len(sources) < n:
                sources.append(s)
                corrections.append(r)
    return sources, corrections


class clock:
    """Wall and this process's CPU seconds of a block: on a loaded machine the CPU figure is
    the steadier one (the wall figure counts the time other programs had the cores)."""

    def __enter__(self) -> clock:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *_: object) -> None:
        self.wall, self.cpu = time.perf_counter() - self.wall, time.process_time() - self.cpu


def rate(what: str, n: int, c: clock, unit: str = "pairs") -> None:
    print(f"{what}: {n:,} {unit}, wall {c.wall:.2f} s = {n / c.wall:,.0f} {unit}/s; "
          f"CPU {c.cpu:.2f} s = {n / max(c.cpu, 1e-9):,.0f} {unit}/s ({c.cpu / n * 1000:.3f} ms each)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    args = ap.parse_args()
    import semsim
    from semsim import ParseSettings
    sources, corrections = pairs(args.shared, args.pairs)
    distinct = list(dict.fromkeys(s for s in [*sources, *corrections] if s.strip()))
    metric = semsim.USim()
    metric.text_scores(["a ."], ["a ."], ParseSettings(cache=False))  # the model loaded once, outside the clocks

    with clock() as parsed:
        semsim.api.parse(distinct, cache=False)
    rate("1. the parser alone, no cache", len(distinct), parsed, "sentences")
    with clock() as scored:
        scores = metric.text_scores(sources, corrections, ParseSettings(cache=False), errors="fallback")
    rate("2. one text_scores call, no cache", len(scores), scored)
    print(f"   = {len(distinct) / scored.cpu:,.0f} distinct sentences per CPU second, against the parser's "
          f"{len(distinct) / parsed.cpu:,.0f}")

    with tempfile.TemporaryDirectory() as tmp:
        parsing = ParseSettings(cache=Path(tmp) / "parses.sqlite3")
        metric.text_scores(sources, corrections, parsing, errors="fallback")  # the parse cache warm
        with metric.scorer(parsing, errors="fallback") as scorer:
            for label in ("3a. open scorer, warm parse cache, pairs new to it",
                          "3b. open scorer, the same pairs again"):
                with clock() as c:
                    one_by_one = [scorer.score(s, r) for s, r in zip(sources, corrections)]
                rate(label, len(one_by_one), c)
        assert [s.f for s in one_by_one] == [s.f for s in scores], "the open scorer disagrees with text_scores"
    print(f"python {sys.version.split()[0]}, semsim {semsim.__version__}")


if __name__ == "__main__":
    main()
