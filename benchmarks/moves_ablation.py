"""Does the graph decide what may move, or would a string do? (#54; prints figures, not a test)

    python benchmarks/moves_ablation.py [--table ../shared/data/simplification-sulem2018-dev/structural_simplicity.csv]

``--order splits`` (semsim/kernel/align/moves.py) lets a *scene* that the order-keeping alignment
left out match a scene of the other text wherever it stands, and excuses a *unit hanging from a
scene* that only restates aligned words. This ablation runs the same two steps over surface
segments instead, the runs of consecutive left-out words (punctuation ends a run), and prints
Spearman with people for ``meaning``, ``meaning-splits`` and the surface version, with and
without the unit edges, on the changed and the split outputs (more sentence ends than the
source), and the paired differences over 1,000 resamples of the sources (seed 0). docs/validity.md
quotes a run.
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from pathlib import Path
from unittest import mock

import numpy as np
from scipy.stats import spearmanr

from semsim import USim
from semsim.api import parse
from semsim.app.metaeval import read_judgments
from semsim.kernel.align import moves
from semsim.kernel.align.tokens import heaviest_monotone
from semsim.kernel.graph import Graph
from semsim.kernel.metrics import usim as usim_module

ROOT = Path(__file__).resolve().parents[1]
END = re.compile(r"[.!?](\s|$)")


def runs(g: Graph, left: set[int]) -> list[list[int]]:
    """The runs of consecutive left-out content words of ``g``."""
    out: list[list[int]] = []
    cur: list[int] = []
    for i, t in enumerate(g.tokens):
        if i in left and not t.punct:
            cur.append(i)
            continue
        if cur:
            out.append(cur)
        cur = []
    return [*out, cur] if cur else out


def moved_runs(g1: Graph, g2: Graph, pairs: list[tuple[int, int]], credit: np.ndarray) -> list[tuple[int, int]]:
    """:func:`semsim.kernel.align.moves.moved_scenes` with runs of left-out words for scenes."""
    out = set(pairs)
    while True:
        left1 = set(range(len(g1.tokens))) - {x for x, _ in out}
        left2 = set(range(len(g2.tokens))) - {y for _, y in out}
        best = None
        for r1 in runs(g1, left1):
            for r2 in runs(g2, left2):
                if min(len(r1), len(r2)) < moves.MIN_WORDS:
                    continue
                w = np.rint(credit[np.ix_(r1, r2)] * 10**moves.DECIMALS).astype(np.int64)
                found = heaviest_monotone(w, w > 0)
                total = int(sum(w[a, b] for a, b in found))
                enough = 2 * total >= moves.MIN_DICE * 10**moves.DECIMALS * (len(r1) + len(r2))
                if len(found) < moves.MIN_WORDS or not enough:
                    continue
                key = (-total, r1[0], r2[0], [(r1[a], r2[b]) for a, b in found])
                if best is None or key[:3] < best[:3]:
                    best = key
        if best is None:
            return sorted(out)
        out.update(best[3])


def restated_runs(g1: Graph, g2: Graph, pairs: list[tuple[int, int]],
                  credit: np.ndarray) -> tuple[frozenset[int], frozenset[int]]:
    """:func:`semsim.kernel.align.moves.restated` with runs of left-out words for units."""
    a1, a2 = sorted({x for x, _ in pairs}), sorted({y for _, y in pairs})

    def side(g: Graph, aligned: set[int], taken: np.ndarray) -> frozenset[int]:
        if not taken.size:
            return frozenset()
        left = set(range(len(g.tokens))) - aligned
        return frozenset(i for r in runs(g, left) if float(np.mean(taken[r].max(axis=1))) >= moves.MIN_RESTATED
                         for i in r)
    return side(g1, set(a1), credit[:, a2]), side(g2, set(a2), credit[a1, :].T)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", type=Path,
                    default=ROOT.parent / "shared/data/simplification-sulem2018-dev/structural_simplicity.csv")
    args = ap.parse_args()
    rows = [j for j in read_judgments(args.table) if " ".join(j.source.split()) != " ".join(j.output.split())]
    parses = parse(sorted({t for j in rows for t in (j.source, j.output)}), tokenize="spacy", progress=False)
    rows = [j for j in rows if parses.key(j.source) in parses.graphs and parses.key(j.output) in parses.graphs]
    graphs = [(parses.graphs[parses.key(j.source)], parses.graphs[parses.key(j.output)]) for j in rows]
    human = np.array([j.human for j in rows])
    split = [i for i, j in enumerate(rows) if len(END.findall(j.output)) > len(END.findall(j.source))]
    measures = {"meaning": USim(preset="meaning"), "meaning-splits": USim(preset="meaning-splits"),
                "its leaves alone": USim(tokens="contextual", labels="unlabeled", leaves=8, denominator="aligned",
                                         tie_break="all", units="dice", edge_weights="none", order="splits")}
    scores = {name: np.array([m.sentence_score(a, b).f for a, b in graphs]) for name, m in measures.items()}
    with mock.patch.object(usim_module, "moved_scenes", moved_runs), \
            mock.patch.object(usim_module, "restated", restated_runs):
        scores["surface"] = np.array([measures["meaning-splits"].sentence_score(a, b).f for a, b in graphs])
        scores["surface, leaves alone"] = np.array([measures["its leaves alone"].sentence_score(a, b).f
                                                    for a, b in graphs])
    by_source: dict[str, list[int]] = defaultdict(list)
    for i, j in enumerate(rows):
        by_source[j.id or j.source].append(i)
    sources = sorted(by_source)
    rng = np.random.default_rng(0)
    draws = [[i for s in rng.choice(len(sources), len(sources)) for i in by_source[sources[s]]] for _ in range(1000)]

    def rho(x: np.ndarray, idx: list[int]) -> float:
        return float(spearmanr(x[idx], human[idx])[0])

    print(f"{len(rows)} changed outputs, {len(split)} split; Spearman with people\n")
    print("| measure | changed | split |\n|---|---|---|")
    for name, x in scores.items():
        print(f"| {name} | {rho(x, list(range(len(rows)))):.3f} | {rho(x, split):.3f} |")
    print("\n| paired (1,000 resamples of the sources) | changed | split |\n|---|---|---|")
    for a, b in (("meaning-splits", "surface"), ("its leaves alone", "surface, leaves alone"),
                 ("meaning-splits", "meaning"), ("meaning-splits", "its leaves alone")):
        cells = []
        for subset in (list(range(len(rows))), split):
            keep = set(subset)
            d = np.array([rho(scores[a], [i for i in idx if i in keep]) - rho(scores[b], [i for i in idx if i in keep])
                          for idx in draws])
            cells.append(f"{rho(scores[a], subset) - rho(scores[b], subset):+.3f} "
                         f"[{np.percentile(d, 2.5):+.3f}, {np.percentile(d, 97.5):+.3f}] ({np.mean(d > 0):.2f})")
        print(f"| {a} − {b} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
