"""Where a parse with semsim's UCCA parser spends its time (prints a profile; not a test).

    python benchmarks/profile_parser.py [--model NAME] [--corpus FILE] [--limit N]

Two parts, both on one thread as semsim runs a parse (``semsim/kernel/threads.py``):

* **start**: a fresh interpreter times, in order, each step before the first parse: the
  CLI's imports, the span parser's model file, the encoder, spaCy and its pipeline,
  and the first one-sentence parse (and it fails if the parse imported torch);
* **steady state**: the real route (:func:`semsim.app.parsing.parse_texts`, no cache) over a
  corpus (default: the JFLEG dev sources), with each stage's functions timed where they are
  called: spaCy's features, the encoder, the network (BiLSTM and span labels), the CKY
  decoder, remote edges and tree to graph (each graph built once: issue #48 removed the
  MRP, its conversion and the JSON round trip that followed).
"""

from __future__ import annotations

import argparse
import functools
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

START = r"""
import sys, time
t = time.perf_counter(); marks = []
def mark(name):
    global t
    now = time.perf_counter(); marks.append((name, now - t)); t = now
import semsim.app.cli; mark("semsim's CLI imports")
from semsim.kernel import threads; threads.limit()
from semsim_ucca import span
parser = span.load(sys.argv[1] or None); mark("span parser model file")
parser.encoder(); mark("encoder (ONNX Runtime session, weights, tokenizer)")
from semsim.kernel.imports import import_spacy
from semsim_ucca.span.inference.features import load_spacy
import_spacy(); mark("import spacy (without torch and its CLI)")
load_spacy(parser.info.get("spacy_model"), "ent" in parser.net.config.fields()); mark("spaCy pipeline (no tokenizer)")
from semsim.app.parsing import ParseSettings, parse_texts
parse_texts(["He gave John an apple ."], ParseSettings(model=sys.argv[1] or None, cache=False, progress=False))
mark("first parse, one sentence")
for name, s in marks: print(f"{name}\t{s:.3f}")
assert "torch" not in sys.modules, "a parse imported torch"
"""


def start(model: str | None) -> list[tuple[str, float]]:
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", START, model or ""], env=env, capture_output=True, text=True,
                         check=True).stdout
    total = time.perf_counter() - t0
    rows = [(name, float(s)) for name, s in (line.split("\t") for line in out.splitlines())]
    return [("interpreter start", total - sum(s for _, s in rows)), *rows]


def timed(stages: dict[str, float], name: str, owner: object, attr: str) -> None:
    """Time every call of ``owner.attr`` under ``name`` (wrapped where the route looks it up)."""
    fn = getattr(owner, attr)

    @functools.wraps(fn)
    def wrapper(*args: object, **kwargs: object) -> object:
        t = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            stages[name] += time.perf_counter() - t
    setattr(owner, attr, wrapper)


def steady(model: str | None, texts: list[str]) -> tuple[dict[str, float], float]:
    from semsim.app import parsing
    from semsim.kernel import threads
    from semsim_ucca import span
    from semsim_ucca.span.inference import decoder, encoder, features, parser, tree
    threads.limit()
    loaded = span.load(model)
    loaded.encoder()
    features.load_spacy(loaded.info.get("spacy_model"), "ent" in loaded.net.config.fields())
    stages: dict[str, float] = defaultdict(float)
    timed(stages, "spaCy features", features, "_spacy_features")
    timed(stages, "encoder", encoder.Encoder, "__call__")
    timed(stages, "network: embeddings, characters, BiLSTM", type(loaded.net), "encode")
    timed(stages, "network: span labels", type(loaded.net), "label_logits")
    timed(stages, "CKY decoder", decoder, "cky")
    timed(stages, "remote edges", parser.SpanParser, "_remotes")
    timed(stages, "spans to tree", parser, "spans_to_tree")
    timed(stages, "tree to graph", tree, "tree_to_graph")
    t0 = time.perf_counter()
    parsing.parse_texts(texts, parsing.ParseSettings(model=model, cache=False, progress=False))
    return stages, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None, help="a span parser model (default: the shipped default)")
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared/data/jfleg/dev/dev.src")
    ap.add_argument("--limit", type=int, default=None)
    args = ap.parse_args()
    texts = [x for x in args.corpus.read_text(encoding="utf-8").splitlines() if x.strip()][: args.limit]
    rows = start(args.model)
    print(f"start (fresh process, {os.cpu_count()} cores): {sum(s for _, s in rows):.2f} s\n")
    print("| step | seconds |\n|---|---|")
    for name, s in rows:
        print(f"| {name} | {s:.2f} |")
    stages, total = steady(args.model, texts)
    n = len(texts)
    print(f"\nsteady state: {n} sentences of {args.corpus.name} in {total:.2f} s ({n / total:.1f} sentences/s)\n")
    print("| stage | seconds | ms/sentence | share |\n|---|---|---|---|")
    for name, s in [*stages.items(), ("everything else (tokens, batching, cache keys)", total - sum(stages.values()))]:
        print(f"| {name} | {s:.2f} | {1000 * s / n:.2f} | {s / total:.0%} |")


if __name__ == "__main__":
    main()
