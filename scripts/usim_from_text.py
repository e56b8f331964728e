"""USim from raw text vs. USim from the gold annotations, on the paper's own essays.

    python scripts/usim_from_text.py [DATA_DIR] [--parser NAME] [--model MODEL] [--markdown]

For every passage of ``../shared/data/usim-annotations`` used by the paper's Same and
Different pairs (scripts/reproduce_paper.py), the annotated tokens are taken as text, one
sentence per line (the sentence ends semsim's UCCA reader finds), parsed with the parser
(through the parse cache), the sentence parses joined into one passage graph, and USim
(paper variant) computed for the 15 pairs. The same pairs scored on the gold annotations are
the target: the script prints per-pair numbers, Pearson and Spearman correlations, the mean
absolute difference and the group means. ``docs/parser.md`` quotes its output.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from scipy import stats

import semsim
from semsim.app.parsing import ParseSettings, parse_texts
from semsim.kernel.graph import concat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reproduce_paper import DIFFERENT, SAME


def sentences(graph: semsim.Graph) -> list[str]:
    ends = list(graph.sentence_ends) or [len(graph.tokens)]
    out, start = [], 0
    for end in ends:
        out.append(" ".join(t.text for t in graph.tokens[start:end]))
        start = end
    return [s for s in out if s.strip()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", nargs="?", default=str(Path(__file__).resolve().parents[1].parent
                                                   / "shared/data/usim-annotations"))
    ap.add_argument("--parser", default=None)
    ap.add_argument("--model", default=None)
    ap.add_argument("--trust-model", action="store_true", help="load a model whose format runs code (TUPA)")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    pairs = [("Same", a, b) for a, b in SAME] + [("Different", a, b) for a, b in DIFFERENT]
    names = sorted({n for _, a, b in pairs for n in (a, b)})
    gold = {n: semsim.read(Path(args.data) / f"{n}.xml") for n in names}
    texts = {n: sentences(g) for n, g in gold.items()}
    t0 = time.perf_counter()
    parsed = parse_texts([s for ss in texts.values() for s in ss],
                         ParseSettings(args.parser, "ucca", args.model, trust_model=args.trust_model),
                         keep_going=False)
    seconds = time.perf_counter() - t0
    auto = {n: concat([parsed.get(s) for s in texts[n]], n) for n in names}
    metric = semsim.USim()
    rows = [(group, a, b, metric.sentence_score(gold[a], gold[b]).f, metric.sentence_score(auto[a], auto[b]).f)
            for group, a, b in pairs]
    g_scores, a_scores = [r[3] for r in rows], [r[4] for r in rows]
    sep = " | " if args.markdown else "\t"
    print(f"parser: {parsed.signature}; {sum(map(len, texts.values()))} sentences "
          f"parsed (or read from the cache) in {seconds:.1f}s")
    print(sep.join(["group", "source", "reference", "USim gold", "USim auto"]))
    for group, a, b, g, s in rows:
        print(sep.join([group, a, b, f"{g:.4f}", f"{s:.4f}"]))
    print(f"Pearson {stats.pearsonr(g_scores, a_scores)[0]:.3f}  Spearman {stats.spearmanr(g_scores, a_scores)[0]:.3f}"
          f"  mean |auto - gold| {statistics.mean(abs(x - y) for x, y in zip(g_scores, a_scores)):.4f}")
    for group in ("Same", "Different"):
        gs = [r for r in rows if r[0] == group]
        print(f"{group}: gold mean {statistics.mean(r[3] for r in gs):.4f}, "
              f"auto mean {statistics.mean(r[4] for r in gs):.4f} ({len(gs)} pairs)")


if __name__ == "__main__":
    main()
