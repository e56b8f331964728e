"""Faithfulness benchmark (issue #20): valid corrections against meaning-changing edits (prints figures; not a test).

    python benchmarks/bench_faithfulness.py [--limit 100] [--seed 0] [--parser NAME]
        [--model M] [--cache PATH] [--data PAIRS.jsonl] [--jfleg DIR] [--bootstrap 1000]

Pairs (source, JFLEG reference) against (source, that reference with one meaning-changing
edit), per edit kind (:mod:`semsim.gec.faithfulness`), generated here from JFLEG dev with
``--seed`` and ``--limit`` or read from ``scripts/make_faithfulness_data.py``'s output
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

from semsim import USim
from semsim.cache import ParseCache, normalise
from semsim.gec import faithfulness as fa
from semsim.pipeline import find_parser, parse_sentences, parser_signature

ROOT = Path(__file__).resolve().parents[1]
MEASURES = ("paper", "legacy", "lexical")
#: USim paper §4.5: the source, the reference (paper USim 0.71) and a corrector's output (0.33)
EXAMPLE = ("the good student must know how to understand and work hard to get the iede .",
           "A good student must be able to understand and work hard to get the idea .",
           "The good student must know how to understand and work hard to get on .")


@dataclass
class Scored:
    """Each measure's score of each (source, text) item, and what the parsing cost."""

    scores: dict[str, list[float]]
    sentences: int  # distinct sentences parsed or read from the cache
    parse_s: float
    score_s: float
    parsed_by: str


def score_items(items: Sequence[tuple[str, str]], parser: str | None = None, model: str | None = None,
                cache: str | None = None, progress: bool = False) -> Scored:
    """USim paper, USim legacy and the lexical similarity of every (source, text) item.

    Every distinct sentence is parsed once (through the parse cache at ``cache``, default
    location if None) and both USim variants read the same graphs, so the two variants and
    the baseline are measured on identical pairs in one run. An empty side scores 1 if both
    are empty, else 0 (``semsim score``'s convention)."""
    p = find_parser(parser, None)
    texts = [t for pair in items for t in pair]
    t0 = time.perf_counter()
    with ParseCache(cache) as c:
        graphs = parse_sentences(texts, p, model, c, progress=progress)
    t1 = time.perf_counter()
    usims = {"paper": USim(variant="paper"), "legacy": USim(variant="legacy")}
    scores: dict[str, list[float]] = {m: [] for m in MEASURES}
    for src, text in items:
        a, b = normalise(src), normalise(text)
        for name, usim in usims.items():
            scores[name].append(usim.sentence_score(graphs[a], graphs[b]).f if a and b else float(a == b))
        scores["lexical"].append(fa.lexical_similarity(src, text))
    return Scored(scores, len(graphs), t1 - t0, time.perf_counter() - t1, parser_signature(p, model))


def _fmt(w: fa.WinRate) -> str:
    return f"{w.rate:.3f} [{w.low:.2f}, {w.high:.2f}]"


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
    lines = [f"Parsed by `{scored.parsed_by}`; {len(pairs)} pairs, {scored.sentences} distinct sentences.", "",
             "| edit kind | n | USim paper | USim legacy | lexical | ties (paper / legacy / lexical) |",
             "|---|---:|---|---|---|---|"]
    rates = {m: fa.win_rates(pairs, [sc[m][i] for i in faithful], [sc[m][i] for i in edited], n_bootstrap,
                             seed=seed) for m in MEASURES}
    for k, w in enumerate(rates["paper"]):
        ties = []
        for m in MEASURES:
            idx = [(f, e) for p, f, e in zip(pairs, faithful, edited) if p.kind == w.kind]
            ties.append(f"{sum(sc[m][f] == sc[m][e] for f, e in idx) / len(idx):.2f}")
        lines.append(f"| {w.kind} | {w.n} | " + " | ".join(_fmt(rates[m][k]) for m in MEASURES)
                     + f" | {' / '.join(ties)} |")
    if rates["paper"]:
        means = [statistics.mean(w.rate for w in rates[m]) for m in MEASURES]
        lines.append(f"| mean of kinds | {len(pairs)} | " + " | ".join(f"{x:.3f}" for x in means) + " | |")
    lines += ["", "USim paper §4.5 (paper: reference 0.71, corrector 0.33):", "",
              "| output | USim paper | USim legacy | lexical |", "|---|---|---|---|"]
    for name, i in (("reference", example[0]), ("corrector", example[1])):
        lines.append(f"| {name} | " + " | ".join(f"{sc[m][i]:.3f}" for m in MEASURES) + " |")
    if spelling:
        n_fixes = sum(len(s.fixes) for s in spelling)
        lines += ["", f"Spelling-fix pairs: {len(spelling)} (line, reference) pairs, {n_fixes} fixes "
                  "(mean score against the source):", "",
                  "| output | USim paper | USim legacy | lexical |", "|---|---|---|---|"]
        for name, idx in (("source with only the fixes", fixed), ("reference", refs),
                          ("reference with the fixes undone", unfixed)):
            lines.append(f"| {name} | " + " | ".join(f"{statistics.mean(sc[m][i] for i in idx):.3f}"
                                                      for m in MEASURES) + " |")
    lines += ["", f"Parsing {scored.parse_s:.1f} s ({scored.sentences / max(scored.parse_s, 1e-9):.1f} "
              f"sentences/s, cache hits included), scoring {scored.score_s:.1f} s."]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=100, help="the first N source lines of JFLEG dev")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--parser", help="a registered parser (default: the default parser)")
    ap.add_argument("--model")
    ap.add_argument("--cache", help="parse cache file (default: $SEMSIM_CACHE_DIR/parses.sqlite3)")
    ap.add_argument("--data", type=Path, help="pairs from scripts/make_faithfulness_data.py instead of generating")
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
    generated = time.perf_counter() - t
    print(f"## Faithfulness: {source}\n")
    print(report(pairs, spelling, args.parser, args.model, args.cache, args.bootstrap, args.seed,
                 progress=not args.quiet))
    print(f"Pairs generated or read in {generated:.1f} s; wall time {time.perf_counter() - t:.1f} s.")


if __name__ == "__main__":
    main()
