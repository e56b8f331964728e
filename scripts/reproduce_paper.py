"""Reproduce Table 1 and the IAA DAG F-score of Choshen & Abend (2018) on the authors'
annotations (``../shared/data/usim-annotations``), under semsim's variants.

    python scripts/reproduce_paper.py [DATA_DIR] [--markdown]

Prints per-pair legacy/paper numbers, group means for each setting, and DAG F on the IAA
passages. ``docs/reproducing.md`` is written from this output.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import semsim
from semsim.kernel.metrics.dagf import dag_f
from semsim.kernel.stats import Counts
from semsim_ucca.normalize import evaluation_normalize

SAME = [("tree1297", "tree1197"), ("tree1298", "tree1198"), ("tree1300", "tree1200"), ("tree1302", "tree1202"),
        ("amittaic1297", "amittaic1197"), ("amittaic1298", "amittaic1198"), ("amittaic1300", "amittaic1200"),
        ("amittaic1303", "amittaic1203"), ("amittaic1305", "amittaic1205")]
DIFFERENT = [(f"{a}{s}", f"{b}{r}") for s, r in (("1297", "1197"), ("1298", "1198"), ("1300", "1200"))
             for a, b in (("amittaic", "tree"), ("tree", "amittaic"))]
IAA = [(f"amittaic{n}", f"tree{n}") for n in ("1197", "1198", "1200", "1297", "1298", "1300", "1301")]
GROUPS = {"Different": DIFFERENT, "Same": SAME, "IAA": IAA}
PAPER = {"Different": (0.85, 0.83, 0.84), "Same": (0.92, 0.91, 0.92), "IAA": (0.85, 0.81, 0.83)}

SETTINGS = {
    "paper (default: coverage tie-break, sentence alignment)": {},
    "paper, aligned-token denominator": {"denominator": "aligned"},
    "paper, weak labels": {"labels": "weak"},
    "paper, aligned-token denominator + weak labels": {"denominator": "aligned", "labels": "weak"},
    "paper, tie-break all": {"tie_break": "all"},
    "paper, tie-break first": {"tie_break": "first"},
    "paper, passage-level alignment": {"by_sentence": False},
    "paper, primary edges only": {"remote": False},
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", nargs="?", default=str(Path(__file__).resolve().parents[1].parent
                                                   / "shared/data/usim-annotations"))
    args = ap.parse_args()
    data = Path(args.data)
    names = sorted({n for pairs in GROUPS.values() for pair in pairs for n in pair})
    t0 = time.perf_counter()
    graphs = {n: semsim.read(data / f"{n}.xml") for n in names}
    print(f"read {len(graphs)} passages in {time.perf_counter() - t0:.2f}s", file=sys.stderr)

    original = {}
    reference = Path(__file__).resolve().parents[1] / "plugins/ucca/tests/data/original_code_usim.tsv"
    for line in reference.read_text(encoding="utf-8").splitlines()[1:]:
        group, a, b, value, *_ = line.split("\t")
        original[(group, a, b)] = float(value)
    print("## Legacy variant, per pair, against the authors' original code\n")
    print("| group | source | reference | original code | semsim legacy | difference | units | "
          "2018 option (no single-token units) |")
    print("|---|---|---|---|---|---|---|---|")
    legacy_means = {}
    for group, pairs in GROUPS.items():
        fs = []
        for a, b in pairs:
            s = semsim.usim(graphs[a], graphs[b], variant="legacy")
            s18 = semsim.usim(graphs[a], graphs[b], variant="legacy", single_token_units=False)
            c = s.parts["legacy"]
            fs.append(s.f)
            orig = original.get((group, a, b))
            diff = f"{abs(orig - s.f):.1e}" if orig is not None else "not run"
            orig_s = f"{orig:.6f}" if orig is not None else "—"
            print(f"| {group} | {a} | {b} | {orig_s} | {s.f:.6f} | {diff} | {c.total1}/{c.total2} | {s18.f:.6f} |")
        legacy_means[group] = statistics.mean(fs)
    print()
    print("| group | legacy mean |")
    print("|---|---|")
    for g, m in legacy_means.items():
        print(f"| {g} | {m:.3f} |")

    print("\n## Paper variant: Table 1 (s→r / r→s / avg), mean over pairs\n")
    print("| setting | " + " | ".join(f"{g} s→r | {g} r→s | {g} avg" for g in GROUPS) + " |")
    print("|---|" + "---|" * (3 * len(GROUPS)))
    print("| **published** | " + " | ".join(" | ".join(f"{x:.2f}" for x in PAPER[g]) for g in GROUPS) + " |")
    for name, settings in SETTINGS.items():
        cells = []
        for pairs in GROUPS.values():
            scores = [semsim.usim(graphs[a], graphs[b], **settings) for a, b in pairs]
            sr = statistics.mean(s.parts["s->r"].f for s in scores)
            rs = statistics.mean(s.parts["r->s"].f for s in scores)
            cells.append(f"{sr:.3f} | {rs:.3f} | {statistics.mean(s.f for s in scores):.3f}")
        print(f"| {name} | " + " | ".join(cells) + " |")

    print("\n## DAG F-score on the IAA passages (amittaic guessed, tree reference), micro-averaged\n")
    print("| passages | normalisation | labels | count | P | R | F |")
    print("|---|---|---|---|---|---|---|")
    sources = [p for p in IAA if p[0].endswith(("1297", "1298", "1300", "1301"))]
    for label, pairs in (("all 7", IAA), ("sources only (12xx, 4)", sources)):
        for norm in ("none", "ucca 1.0.50"):
            for labels in ("weak", "labeled"):
                for count in ("yields", "edges"):
                    total = Counts(0, 0, 0, 0)
                    for a, b in pairs:
                        g1, g2 = graphs[a], graphs[b]
                        if norm != "none":
                            g1, g2 = evaluation_normalize(g1, g2)
                        total = total + dag_f(g1, g2, labels=labels, count=count).parts["primary"]
                    print(f"| {label} | {norm} | {labels} | {count} | {total.precision:.3f} | "
                          f"{total.recall:.3f} | {total.f:.3f} |")
    print("| **published** | | | | 0.834 | 0.857 | 0.845 |")

    print("\n## DistSim (mean |c_i - d_i| over synchronised sentence pairs; lower = more similar)\n")
    print("| group | A+D | Scene | A | D | P | S |")
    print("|---|---|---|---|---|---|---|")
    for group in ("Different", "Same"):
        d = semsim.distsim([(graphs[a], graphs[b]) for a, b in GROUPS[group]], by_sentence=True)
        print(f"| {group} | " + " | ".join(f"{d.get(k, 0.0):.3f}" for k in ("A+D", "Scene", "A", "D", "P", "S")) + " |")
    print("| **published** (Different / Same) | 0.96 / 0.97 | 0.93 / 0.96 | | | | |")


if __name__ == "__main__":
    main()
