"""Parse consistency (issue #44): structure kept under edits that keep the meaning? (prints figures; not a test)

    python benchmarks/bench_parse_consistency.py [--limit 100] [--model M] [--parser NAME]
        [--cache PATH] [--jfleg DIR] [--tmu-gfm CSV] [--seed 0]

A graph measure is worth what its graphs carry. Before any correlation with people, this
asks the parser and the measure directly, on pairs whose meaning is known:

* **kept**: a learner's sentence and its correction: JFLEG dev's first ``--limit`` source
  lines against each of their four references, and TMU-GFM dev's changed outputs that its
  raters gave a meaning score of 3.5 or more (of 4; untokenized, so spaCy tokenizes them);
* **changed**: the same sources against a reference with one meaning-changing edit of the
  faithfulness benchmark (``faithfulness_data.py``: a phrase deleted, a negation, an
  unrelated content word, a truncation, swapped arguments, a changed number or entity).

For each measure it prints the mean score of each group, the **AUC** (the probability that a
kept pair scores above a changed one; 0.5: the measure cannot tell them apart), and the
**paired win rate** on JFLEG (the reference above its own edited copy; ties ½). The
structure-only rows (unit edges, no leaves) are the parse's share: a parser that structures a
learner's sentence and its correction alike raises the kept means without raising the
changed ones. Run it with each ``--model`` to compare parsers on the same pairs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import faithfulness_data as fa  # beside this file: on the path when run as a script
import numpy as np
from scipy.stats import rankdata

from semsim import USim
from semsim.app.metaeval import changed, read_judgments
from semsim.app.parsing import Parses, ParseSettings, parse_texts

ROOT = Path(__file__).resolve().parents[1]
#: structure alone (unit edges; the leaves left out), then the measures users report
MEASURES = {
    "edges: paper (labelled, edit alignment)": USim(),
    "edges: ordered alignment, labelled": USim(tokens="ordered"),
    "edges: ordered alignment, unlabelled": USim(tokens="ordered", labels="unlabeled"),
    "edges: the preset's before #44 (contextual, unlabelled)": USim(tokens="contextual", labels="unlabeled"),
    "edges: #44's first round (contextual, unlabelled, aligned, tie all)": USim(
        tokens="contextual", labels="unlabeled", denominator="aligned", tie_break="all"),
    "edges: the preset's (the same, units dice, edge weights capped)": USim(
        tokens="contextual", labels="unlabeled", denominator="aligned", tie_break="all", units="dice",
        edge_weights="capped"),
    "preset=meaning": USim(preset="meaning"),
}


def auc(kept: list[float], changed_: list[float]) -> float:
    """P(a kept pair scores above a changed one), ties ½ (the Mann–Whitney U over n·m)."""
    ranks = rankdata(np.r_[kept, changed_])
    return float((ranks[: len(kept)].sum() - len(kept) * (len(kept) + 1) / 2) / (len(kept) * len(changed_)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=100, help="the first N source lines of JFLEG dev")
    ap.add_argument("--seed", type=int, default=0, help="the edits' seed")
    ap.add_argument("--parser")
    ap.add_argument("--model")
    ap.add_argument("--cache", help="parse cache file (default: the default one)")
    ap.add_argument("--jfleg", type=Path, default=ROOT.parent / "shared/data/jfleg/dev")
    ap.add_argument("--tmu-gfm", type=Path, default=ROOT.parent / "shared/data/tmu-gfm-dev/tmu-gfm-dev.csv")
    args = ap.parse_args()
    t0 = time.perf_counter()
    sys.path.insert(0, str(ROOT / "scripts"))
    from make_faithfulness_data import build
    pairs, _ = build(args.jfleg, args.limit, args.seed, list(fa.KINDS))
    sources, references = fa.load_jfleg(args.jfleg, args.limit)
    jfleg_kept = [(s, refs[i]) for refs in references for i, s in enumerate(sources) if refs[i].split()]
    tmu = [(j.source, j.output) for j in changed(read_judgments(args.tmu_gfm)) if j.human >= 3.5]
    how = dict(parser=args.parser, model=args.model, cache=args.cache or True)
    plain = parse_texts([t for p in jfleg_kept for t in p] + [t for p in pairs for t in (p.faithful, p.edited)],
                        ParseSettings(**how), keep_going=False)
    spacy = parse_texts([t for p in tmu for t in p], ParseSettings(**how, tokenize="spacy"), keep_going=False)
    t1 = time.perf_counter()

    def scores(usim: USim, items: list[tuple[str, str]], parses: Parses) -> list[float]:
        return [usim.sentence_score(parses.graphs[parses.key(a)], parses.graphs[parses.key(b)]).f for a, b in items]

    print(f"Parsed by `{plain.signature}`: {len(jfleg_kept)} JFLEG (source, reference) pairs and {len(tmu)} "
          f"TMU-GFM outputs rated >= 3.5 kept the meaning; {len(pairs)} edited references changed it.\n")
    print("| measure | kept: JFLEG | kept: TMU-GFM | changed | AUC kept/changed | paired win rate |")
    print("|---|---|---|---|---|---|")
    for name, usim in MEASURES.items():
        kept_j = scores(usim, jfleg_kept, plain)
        kept_t = scores(usim, tmu, spacy)
        faithful = scores(usim, [(p.source, p.faithful) for p in pairs], plain)
        edited = scores(usim, [(p.source, p.edited) for p in pairs], plain)
        wins = statistics.mean(1.0 if f > e else 0.5 if f == e else 0.0 for f, e in zip(faithful, edited))
        print(f"| {name} | {statistics.mean(kept_j):.3f} | {statistics.mean(kept_t):.3f} | "
              f"{statistics.mean(edited):.3f} | {auc(kept_j + kept_t, edited):.3f} | {wins:.3f} |", flush=True)
    print(f"\nParsing {t1 - t0:.0f} s, scoring {time.perf_counter() - t1:.0f} s.")


if __name__ == "__main__":
    main()
