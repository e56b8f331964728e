"""Faithfulness benchmark (issue #20): valid corrections against meaning-changing edits (prints figures; not a test).

    python benchmarks/bench_faithfulness.py [--limit 100] [--skip 0] [--seed 0] [--parser NAME]
        [--model M] [--cache PATH] [--data PAIRS.jsonl] [--jfleg DIR] [--bootstrap 1000]

Pairs (source, JFLEG reference) against (source, that reference with one meaning-changing
edit), per edit kind (``faithfulness_data.py``), generated here from JFLEG dev with
``--seed`` and ``--limit`` (``--skip N`` leaves out the pairs of the first N lines, e.g. the
lines a setting was chosen on) or read from ``benchmarks/make_faithfulness_data.py``'s output
(``--data``). Both sides are scored in the same run by USim (paper and legacy variants,
from text: each distinct sentence parsed once, with the default parser unless ``--parser``)
and by the lexical baseline (token Levenshtein similarity to the source). Prints, in
Markdown: the paired win rate per kind (faithful higher; ties ½) with a 95% bootstrap
interval over source lines, the share of ties, the §4.5 example of the USim paper, the
spelling-fix pairs' mean scores, and the timing. docs/faithfulness.md quotes a run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import faithfulness_data as fa  # beside this file: on the path when run as a script

from semsim import Graph, USim
from semsim.app.cache import normalise
from semsim.app.parsing import ParseSettings, parse_texts
from semsim.app.plugins import paraphrase_judges, word_encoders
from semsim.kernel.align.tokens import paper_token_pairs
from semsim.kernel.metrics.usim import leaf_counts

ROOT = Path(__file__).resolve().parents[1]
#: the measures compared: USim's variants, the §4.4 remedies and the leaf edges alone and
#: combined; then the leaves alone (no graph: what the parse adds is the difference) and the baseline
USIMS = {
    "paper": USim(),
    "legacy": USim(variant="legacy"),
    "tokens=lexical": USim(tokens="lexical"),
    "tokens=ordered": USim(tokens="ordered"),
    "weights=height": USim(edge_weights="height"),
    "weights=scheme": USim(edge_weights="scheme"),
    "lexical+scheme": USim(tokens="lexical", edge_weights="scheme"),
    "ordered+scheme": USim(tokens="ordered", edge_weights="scheme"),
    "ordered+height": USim(tokens="ordered", edge_weights="height"),
    "leaves=2": USim(leaves=2),
    "ordered+leaves=1": USim(tokens="ordered", leaves=1),
    "ordered+leaves=2": USim(tokens="ordered", leaves=2),
    "ordered+scheme+leaves=2": USim(tokens="ordered", edge_weights="scheme", leaves=2),
    "tokens=paraphrase": USim(tokens="paraphrase"),
    "paraphrase+leaves=2": USim(tokens="paraphrase", leaves=2),
    "paraphrase+scheme+leaves=2": USim(tokens="paraphrase", edge_weights="scheme", leaves=2),
    "preset=meaning": USim(preset="meaning"),
    "meaning+order=splits": USim(preset="meaning", order="splits"),
}
MEASURES = (*USIMS, "leaves only", "lexical")
#: USim paper §4.5: the source, the reference (paper USim 0.71) and a corrector's output (0.33)
EXAMPLE = ("the good student must know how to understand and work hard to get the iede .",
           "A good student must be able to understand and work hard to get the idea .",
           "The good student must know how to understand and work hard to get on .")


def leaf_f(source: Graph, text: Graph) -> float:
    """F of the leaf edges alone under the ordered alignment (what ``--tokens ordered
    --leaves K`` tends to as K grows): a lexical measure on the parser's tokens."""
    return leaf_counts(source, text, paper_token_pairs(source, text, how="ordered"), 1).f


@dataclass
class Scored:
    """Each measure's score of each (source, text) item, and what the parsing cost."""

    scores: dict[str, list[float]]
    sentences: int  # distinct sentences parsed or read from the cache
    parse_s: float
    score_s: float
    parsed_by: str
    seconds: dict[str, float]


def score_items(items: Sequence[tuple[str, str]], parser: str | None = None, model: str | None = None,
                cache: str | None = None, progress: bool = False) -> Scored:
    """Every USim of :data:`USIMS` and the lexical similarity of every (source, text) item.

    Every distinct sentence is parsed once (through the parse cache at ``cache``, default
    location if None) and every USim reads the same graphs, so all measures are compared on
    identical pairs in one run. An empty side scores 1 if both are empty, else 0 (``semsim
    score``'s convention). ``Scored.seconds`` holds each measure's scoring time."""
    texts = [t for pair in items for t in pair]
    t0 = time.perf_counter()
    parses = parse_texts(texts, ParseSettings(parser, model=model, cache=cache or True, progress=progress),
                         keep_going=False)
    graphs = parses.graphs
    t1 = time.perf_counter()
    scores: dict[str, list[float]] = {}
    seconds: dict[str, float] = {}
    keys = [(normalise(src), normalise(text)) for src, text in items]
    weighted = all(g.scheme.label_weights for g in graphs.values())  # else edge_weights="scheme" is refused
    judged = bool(paraphrase_judges())  # else tokens="paraphrase" is refused
    encoded = bool(word_encoders())  # else tokens="contextual" is refused
    usims = {name: u for name, u in USIMS.items()
             if (weighted or u.edge_weights != "scheme") and (judged or u.tokens != "paraphrase")
             and (encoded or u.tokens != "contextual")}
    for a, b in keys:  # the graphs' derived data (yields, masks) is built once, outside every timing
        if a and b:
            USim().sentence_score(graphs[a], graphs[b])
    for name, usim in usims.items():
        t = time.perf_counter()
        scores[name] = [usim.sentence_score(graphs[a], graphs[b]).f if a and b else float(a == b) for a, b in keys]
        seconds[name] = time.perf_counter() - t
    t = time.perf_counter()  # the ordered leaf alignment's F alone: the graph's units left out
    scores["leaves only"] = [leaf_f(graphs[a], graphs[b]) if a and b else float(a == b) for a, b in keys]
    seconds["leaves only"] = time.perf_counter() - t
    t = time.perf_counter()
    scores["lexical"] = [fa.lexical_similarity(src, text) for src, text in items]
    seconds["lexical"] = time.perf_counter() - t
    return Scored(scores, len(graphs), t1 - t0, time.perf_counter() - t1, parses.signature, seconds)


def report(pairs: Sequence[fa.Pair], spelling: Sequence[fa.SpellingPair], parser: str | None = None,
           model: str | None = None, cache: str | None = None, n_bootstrap: int = 1000, seed: int = 0,
           progress: bool = False) -> str:
    """The benchmark's Markdown: win rates per kind, the §4.5 example, the spelling-fix pairs."""
    items: dict[tuple[str, str], int] = {}

    def want(src: str, text: str) -> int:
        return items.setdefault((src, text), len(items))

    faithful = [want(p.source, p.faithful) for p in pairs]
    edited = [want(p.source, p.edited) for p in pairs]
    example = [want(EXAMPLE[0], EXAMPLE[1]), want(EXAMPLE[0], EXAMPLE[2])]
    fixed = [want(s.source, s.fixed) for s in spelling]
    refs = [want(s.source, s.reference) for s in spelling]
    unfixed = [want(s.source, s.unfixed) for s in spelling]
    scored = score_items(list(items), parser, model, cache, progress)
    sc = scored.scores
    measures = list(sc)  # those the representation allows (scheme weights need the scheme's)
    rates = {m: fa.win_rates(pairs, [sc[m][i] for i in faithful], [sc[m][i] for i in edited], n_bootstrap,
                             seed=seed) for m in measures}
    kinds = [w.kind for w in rates["paper"]]
    counts = {w.kind: w.n for w in rates["paper"]}
    lines = [f"Parsed by `{scored.parsed_by}`; {len(pairs)} pairs, {scored.sentences} distinct sentences.", "",
             "Paired win rate (the faithful correction scored higher; ties ½), per edit kind (n), with the "
             "mean of kinds; then the mean score of the valid references against their sources:", "",
             "| measure | " + " | ".join(f"{k} ({counts[k]})" for k in kinds) + " | mean | valid refs |",
             "|---|" + "---|" * (len(kinds) + 2)]
    for m in measures:
        mean = statistics.mean(w.rate for w in rates[m]) if rates[m] else float("nan")
        lines.append(f"| {m} | " + " | ".join(f"{w.rate:.3f}" for w in rates[m]) + f" | **{mean:.3f}** | "
                     f"{statistics.mean(sc[m][i] for i in faithful):.3f} |" if faithful else f"| {m} | |")
    lines += ["", "95% bootstrap intervals over source lines, and ties:", "",
              "| measure | " + " | ".join(kinds) + " |", "|---|" + "---|" * len(kinds)]
    for m in measures:
        cells = []
        for w in rates[m]:
            idx = [(f, e) for p, f, e in zip(pairs, faithful, edited) if p.kind == w.kind]
            tie = sum(sc[m][f] == sc[m][e] for f, e in idx) / len(idx)
            cells.append(f"[{w.low:.2f}, {w.high:.2f}] ties {tie:.2f}")
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    lines += ["", "USim paper §4.5 (paper: reference 0.71, corrector 0.33), and the spelling-fix pairs "
              "(mean score against the source):", "",
              "| measure | §4.5 reference | §4.5 corrector | only the fixes | reference | fixes undone |",
              "|---|---|---|---|---|---|"]
    for m in measures:
        spell = [f"{statistics.mean(sc[m][i] for i in idx):.3f}" if idx else "" for idx in (fixed, refs, unfixed)]
        lines.append(f"| {m} | {sc[m][example[0]]:.3f} | {sc[m][example[1]]:.3f} | " + " | ".join(spell) + " |")
    n_fixes = sum(len(s.fixes) for s in spelling)
    lines += ["", f"{len(spelling)} spelling-fix (line, reference) pairs, {n_fixes} fixes.", "",
              f"Parsing {scored.parse_s:.1f} s ({scored.sentences / max(scored.parse_s, 1e-9):.1f} sentences/s, "
              f"cache hits included), scoring {scored.score_s:.1f} s for {len(items)} pairs per measure:",
              "", "| measure | pairs/s |", "|---|---|"]
    lines += [f"| {m} | {len(items) / max(t, 1e-9):,.0f} |" for m, t in scored.seconds.items()]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=100, help="the first N source lines of JFLEG dev")
    ap.add_argument("--skip", type=int, default=0,
                    help="leave out the pairs of the first N source lines (those settings were chosen on)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--parser", help="a registered parser (default: the default parser)")
    ap.add_argument("--model")
    ap.add_argument("--cache", help="parse cache file (default: $SEMSIM_CACHE_DIR/parses.sqlite3)")
    ap.add_argument("--data", type=Path, help="pairs from benchmarks/make_faithfulness_data.py instead of generating")
    ap.add_argument("--jfleg", type=Path, default=ROOT.parent / "shared/data/jfleg/dev")
    ap.add_argument("--kinds", default=",".join(fa.KINDS))
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args()
    t = time.perf_counter()
    if args.data:
        pairs, spelling = fa.read_records(args.data.read_text(encoding="utf-8").splitlines())
        source = f"`{args.data}`"
    else:
        sys.path.insert(0, str(ROOT / "scripts"))
        from make_faithfulness_data import build
        pairs, spelling = build(args.jfleg, args.limit, args.seed, args.kinds.split(","))
        source = f"JFLEG dev, first {args.limit} lines, seed {args.seed}"
    if args.skip:
        pairs = [p for p in pairs if p.line > args.skip]
        spelling = [s for s in spelling if s.line > args.skip]
        source += f", lines 1-{args.skip} left out"
    generated = time.perf_counter() - t
    print(f"## Faithfulness: {source}\n")
    print(report(pairs, spelling, args.parser, args.model, args.cache, args.bootstrap, args.seed,
                 progress=not args.quiet))
    print(f"Pairs generated or read in {generated:.1f} s; wall time {time.perf_counter() - t:.1f} s.")


if __name__ == "__main__":
    main()
