"""UCCA's grammar in parses (issue #44): how often graphs break two rules the gold keeps (prints figures; not a test)

    python benchmarks/ucca_grammar.py [--model M] [--cache PATH] [--limit N] [--shared ../shared]

Two rules hold in the gold graphs of UCCA EWT: a **scene** (a unit entered by an ``H``
edge) has no child entered by an ``H`` or ``L`` edge (parallel scenes and their linkers sit
beside a scene, never inside it), and the **root**'s children are entered by ``H``, ``L``
or ``U`` edges only. A parse that breaks them has left a scene unmade (its participants and
process hang from the root) or made one scene of two; a learner's sentence and its
correction parsed one each way differ in structure where their meaning does not. This
counts, primary edges only, the graphs that break each rule: the gold EWT passages, then the
parser's graphs of JFLEG dev's source sentences (the first ``--limit``), TMU-GFM dev's
changed outputs and their sources, and ASSET's outputs and sources (both spaCy-tokenized).
docs/parser.md (decoding under UCCA's grammar) reads its figures.
"""

from __future__ import annotations

import argparse
import glob
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from semsim import Graph, read
from semsim.app.metaeval import changed, read_judgments
from semsim.app.parsing import ParseSettings, parse_texts

ROOT = Path(__file__).resolve().parents[1]
SCENE, LINKED, AT_ROOT = "H", {"H", "L"}, {"H", "L", "U"}


def broken(g: Graph) -> tuple[bool, bool]:
    """Whether ``g`` has a scene with a scene or linker child, and a root child other than
    a scene, a linker or punctuation."""
    into: dict[int, set[str]] = {}
    for e in g.edges:
        if not e.remote:
            into.setdefault(e.child, set()).update(e.labels)
    primary = [e for e in g.edges if not e.remote]
    in_scene = any(SCENE in into.get(e.parent, ()) and LINKED & set(e.labels) for e in primary)
    at_root = any(e.parent == g.root and not set(e.labels) <= AT_ROOT for e in primary)
    return in_scene, at_root


def row(name: str, graphs: Iterable[Graph]) -> str:
    counts, n = Counter[str](), 0
    for g in graphs:
        n += 1
        scene, root = broken(g)
        counts.update({"scene": scene, "root": root, "either": scene or root})
    share = {k: f"{counts[k]} ({100 * counts[k] / max(n, 1):.0f} %)" for k in ("scene", "root", "either")}
    return f"| {name} | {n} | {share['scene']} | {share['root']} | {share['either']} |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", help="the parser's model (default: its own)")
    ap.add_argument("--cache", help="parse cache file (default: the default one)")
    ap.add_argument("--limit", type=int, default=400, help="the first N source lines of JFLEG dev")
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    args = ap.parse_args()
    data = args.shared / "data"
    print("| graphs | n | a scene holds a scene or linker | the root holds something else | either |")
    print("|---|---|---|---|---|")
    print(row("gold: UCCA EWT, every passage", (read(f) for f in sorted(glob.glob(str(data / "ucca-ewt/xml/*.xml"))))),
          flush=True)
    how = dict(model=args.model, cache=args.cache or True)
    jfleg = [line for line in (data / "jfleg/dev/dev.src").read_text(encoding="utf-8").splitlines()
             if line.strip()][:args.limit]
    parses = parse_texts(jfleg, ParseSettings(**how), keep_going=False)
    print(row(f"parsed: JFLEG dev sources, first {len(jfleg)}", parses.graphs.values()))
    for name, table in (("TMU-GFM dev", "tmu-gfm-dev/tmu-gfm-dev.csv"), ("ASSET", "asset-ratings/human_ratings.csv")):
        texts = sorted({t for j in changed(read_judgments(data / table)) for t in (j.source, j.output)})
        parses = parse_texts(texts, ParseSettings(**how, tokenize="spacy"), keep_going=False)
        print(row(f"parsed: {name}, sources and changed outputs", parses.graphs.values()), flush=True)
    print(f"\nparser: `{parses.signature}`")


if __name__ == "__main__":
    main()
