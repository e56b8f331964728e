"""Re-run the long commands behind the docs' numbers and say where a doc and today's output differ.

    python scripts/check_docs_numbers.py [CHECK ...] [--shared ../shared] [--list]

The docs' numbers that a command prints in seconds are checked by the test suite
(``tests/test_docs_outputs.py``: every ``$ semsim ...`` transcript of the docs, and the
tables on ``../shared`` data that take under a minute). This script covers the rest, each a
run of minutes on the 2-core machine (``--list`` shows them, with their duration there):

* ``seeda-table``: docs/systems.md's SEEDA table, ``semsim score`` of the 14 corrections;
* ``seeda-meta-eval``: docs/systems.md's meta-evaluation, ``benchmarks/meta_eval_seeda.py``;
* ``faithfulness``, ``faithfulness-held-out``: docs/faithfulness.md's tables, JFLEG dev lines
  1-100 and 301-754, ``benchmarks/bench_faithfulness.py``;
* ``meta-eval-tmu-gfm``, ``meta-eval-asset``: docs/validity.md's Results, ``semsim meta-eval``;
* ``parser``: docs/parser.md's "the seed that ships" rows, ``semsim ucca evaluate`` of each
  shipped model on EWT test and the 20K out-of-domain set.

A Markdown table that a command prints is compared with the table of the doc's section
that has the same columns, row by row (a row is found by its first cells; U+2212 and ``-``
are one minus sign); a ``signature:`` line, where the section shows one, must be the
same. Timings are never compared. Exit status 1 when a number differs. Parses go to
``$SEMSIM_CACHE_DIR`` as usual: a warm cache shortens every check but the parser's.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEMSIM = [sys.executable, "-m", "semsim.app.cli"]
SEEDA = "data/seeda/outputs/subset"
SEEDA_SYSTEMS = ["BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "GPT-3.5", "LM-Critic", "PIE", "REF-F", "REF-M",
                 "Riken-Tohoku", "T5", "TemplateGEC", "TransGEC", "UEDIN-MS"]
META_EVAL_MEASURES = [
    "paper", "legacy", "lexical:tokens=lexical", "ordered:tokens=ordered", "paraphrase:tokens=paraphrase",
    "height:edge_weights=height", "scheme:edge_weights=scheme", "ordered+leaves2:tokens=ordered,leaves=2",
    "paraphrase+leaves2:tokens=paraphrase,leaves=2", "contextual:tokens=contextual", "meaning:preset=meaning",
    "levenshtein", "chrf", "minilm-cosine", "bertscore"]
_C = "tokens=contextual,labels=unlabeled,denominator=aligned,tie-break=all,units=dice"
#: #44's paired comparison: every measure minus the preset (docs/validity.md)
VERSUS_MEASURES = ["paper", "meaning:preset=meaning", f"meaning-edges:{_C},edge-weights=capped",
                   f"meaning-leaves:{_C},edge-weights=none,leaves=8", "chrf", "bertscore"]
PARSER_MODELS = ["ucca-span-ewt-minilm-l2", "ucca-span-ewt-minilm", "ucca-span-ewt-chars",
                 "ucca-span-ewt-minilm-l2-learner"]


@dataclass(frozen=True)
class Check:
    """A command, where to run it, and the doc section its output must agree with."""

    doc: str
    section: tuple[str, str | None]  # the section runs from the first text to the second (or the end)
    command: Callable[[Path], list[str]]  # ../shared -> argv
    cwd: Callable[[Path], Path] = lambda shared: ROOT
    minutes: str = ""


CHECKS = {
    "seeda-table": Check(
        "docs/systems.md", ("For example, SEEDA's 14", "## What is computed"),
        lambda s: [*SEMSIM, "score", "--source", "INPUT.txt",
                   *(x for n in SEEDA_SYSTEMS for x in ("--hyp", f"{n}.txt")), "--format", "markdown", "-q"],
        lambda s: s / SEEDA, "1-1.5 (cold cache)"),
    "seeda-meta-eval": Check(
        "docs/systems.md", ("## Meta-evaluation on SEEDA", None),
        lambda s: [sys.executable, str(ROOT / "benchmarks/meta_eval_seeda.py"), "--shared", str(s)], minutes="2-4"),
    "faithfulness": Check(
        "docs/faithfulness.md", ("## Results", "### Lines never used"),
        lambda s: [sys.executable, str(ROOT / "benchmarks/bench_faithfulness.py"), "--limit", "100", "--seed", "0",
                   "-q", "--jfleg", str(s / "data/jfleg/dev")], minutes="2-4"),
    "faithfulness-held-out": Check(
        "docs/faithfulness.md", ("### Lines never used", "### Reading the numbers"),
        lambda s: [sys.executable, str(ROOT / "benchmarks/bench_faithfulness.py"), "--limit", "754", "--skip", "300",
                   "--seed", "0", "-q", "--jfleg", str(s / "data/jfleg/dev")], minutes="5-15"),
    "meta-eval-tmu-gfm": Check(
        "docs/validity.md", ("**GEC: TMU-GFM", "**Simplification: ASSET"),
        lambda s: [*SEMSIM, "meta-eval", str(s / "data/tmu-gfm-dev/tmu-gfm-dev.csv"), "--tokenize", "spacy",
                   "--format", "markdown", "-q", *(x for m in META_EVAL_MEASURES for x in ("--measure", m))],
        minutes="6-10"),
    "meta-eval-asset": Check(
        "docs/validity.md", ("**Simplification: ASSET", "What they say"),
        lambda s: [*SEMSIM, "meta-eval", str(s / "data/asset-ratings/human_ratings.csv"), "--tokenize", "spacy",
                   "--format", "markdown", "-q", *(x for m in META_EVAL_MEASURES for x in ("--measure", m))],
        minutes="2-4"),
    **{f"meta-eval-versus-{name}": Check(
        "docs/validity.md", (f"{title}, minus `meaning`:", end),
        lambda s, table=table: [*SEMSIM, "meta-eval", str(s / "data" / table), "--tokenize", "spacy", "--format",
                                "markdown", "-q", *(x for m in VERSUS_MEASURES for x in ("--measure", m)),
                                "--versus", "meaning"], minutes=minutes)
       for name, title, table, end, minutes in (
           ("tmu-gfm", "TMU-GFM dev", "tmu-gfm-dev/tmu-gfm-dev.csv", "ASSET, minus `meaning`:", "2-6"),
           ("asset", "ASSET", "asset-ratings/human_ratings.csv", "The preset and its leaves alone", "1-2"))},
}


def section(text: str, start: str, end: str | None) -> str:
    i = text.index(start)
    j = text.index(end, i + len(start)) if end else len(text)
    return text[i:j]


def _cells(row: str) -> list[str]:
    return [c.strip().replace("\u2212", "-") for c in row.strip().strip("|").split("|")]


def tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """Every Markdown table of a text: its header's cells and its rows' cells."""
    out: list[tuple[list[str], list[list[str]]]] = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("|") and i + 1 < len(lines) and set(lines[i + 1].replace("|", "").strip()) <= set("-: ") \
                and lines[i + 1].startswith("|"):
            rows = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                rows.append(_cells(row))
            out.append((_cells(line), rows))
    return out


def compare(output: str, doc_section: str) -> tuple[int, list[str]]:
    """How many rows agree, and every disagreement, between the output's tables and the
    doc section's tables of the same columns (the first column's name aside)."""
    problems, agreed = [], 0
    doc_tables = {tuple(h[1:]): rows for h, rows in tables(doc_section)}
    for header, rows in tables(output):
        shown = doc_tables.get(tuple(header[1:]))
        if shown is None:
            continue  # a table the doc does not show (timings, the paired tests)
        k = next(k for k in range(1, len(header) + 1) if len({tuple(r[:k]) for r in shown}) == len(shown))
        by_key = {tuple(r[:k]): r for r in shown}
        printed = {tuple(r[:k]) for r in rows}
        for row in rows:
            doc_row = by_key.get(tuple(row[:k]))
            if doc_row == row:
                agreed += 1
            elif doc_row is not None:
                problems.append(f"  doc:    | {' | '.join(doc_row)} |\n  prints: | {' | '.join(row)} |")
        problems += [f"  doc shows a row the command no longer prints: | {' | '.join(r)} |"
                     for key, r in by_key.items() if key not in printed]
    signatures = [x for x in output.splitlines() if x.startswith("signature:")]
    if "signature:" in doc_section:
        problems += [f"  the doc's signature is not the command's: {s}" for s in signatures if s not in doc_section]
    return agreed, problems


def run(argv: list[str], cwd: Path) -> str:
    r = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({r.returncode}):\n{r.stderr}")
    return r.stdout


def check_parser(shared: Path) -> tuple[int, list[str]]:
    """docs/parser.md: each shipped model's "the seed that ships" row: EWT test labelled
    primary, remote, unlabelled primary; then the same on 20K."""
    lines = (ROOT / "docs/parser.md").read_text(encoding="utf-8").splitlines()
    ewt = ["--ids", str(shared / "data/ucca-ewt/test.txt"), "--sentences", str(shared / "data/ud-ewt-reviews/conllu")]
    agreed, problems = 0, []
    for model in PARSER_MODELS:
        i = next(i for i, x in enumerate(lines[:-1]) if x.startswith((f"| **`{model}`**", f"| `{model}`"))
                 and lines[i + 1].startswith("| … the seed that ships"))
        shown = _cells(lines[i + 1])
        printed = []
        for gold, extra in ((shared / "data/ucca-ewt/xml", ewt), (shared / "data/ucca-20k/xml", [])):
            r = json.loads(run([*SEMSIM, "ucca", "evaluate", str(gold), *extra, "--model", model, "--format", "json",
                                "-q"], ROOT))
            printed += [f"{r[k]:.3f}" for k in ("labeled_primary", "labeled_remote", "unlabeled_primary")]
        if shown[1:] == printed:
            agreed += 1
        else:
            problems.append(f"  {model}: doc {' / '.join(shown[1:])}, prints {' / '.join(printed)}")
    return agreed, problems


def main() -> None:
    names = [*CHECKS, "parser"]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checks", nargs="*", metavar="CHECK", help=f"some of {', '.join(names)} (default: all)")
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    ap.add_argument("--list", action="store_true", help="list the checks and exit")
    args = ap.parse_args()
    if args.list:
        for name, c in CHECKS.items():
            print(f"{name}: {c.doc}, {c.minutes} min")
        print("parser: docs/parser.md, 6 runs of 1.5-3 min")
        return
    unknown = sorted(set(args.checks) - set(names))
    if unknown:
        ap.error(f"no check {', '.join(unknown)}: choose from {', '.join(names)}")
    shared = args.shared.resolve()
    failed = []
    for name in args.checks or names:
        t = time.perf_counter()
        try:
            if name == "parser":
                agreed, problems = check_parser(shared)
            else:
                c = CHECKS[name]
                text = (ROOT / c.doc).read_text(encoding="utf-8")
                agreed, problems = compare(run(c.command(shared), c.cwd(shared)), section(text, *c.section))
        except RuntimeError as exc:
            agreed, problems = 0, [f"  {exc}"]
        if not agreed and not problems:
            problems.append("  no row of the output matched a table of the doc's section")
        print(f"{name}: {agreed} rows agree, {len(problems)} differ ({time.perf_counter() - t:.0f} s)", flush=True)
        for p in problems:
            print(p)
        if problems:
            failed.append(name)
    if failed:
        print(f"numbers differ: {', '.join(failed)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
