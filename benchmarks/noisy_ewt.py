"""UCCA EWT with learner errors (issue #44): a parser on learner-like input (prints figures; not a test).

    python benchmarks/noisy_ewt.py [--split dev|test] [--seed 7] [--model M ...] [-o DIR]

Injects learner errors into the EWT split's sentences as the parser's noisy training does
(:mod:`semsim_ucca.span.training.noise`: JFLEG's error kinds at their rates, the gold graph carried
over to the noisy words; a seed of its own, 7, so never the training's draws), writes the
noisy gold passages as UCCA XML to ``DIR`` (default: a temporary directory) and scores each
``--model`` on them and on the clean split with ``semsim ucca evaluate``: official labelled
primary and remote F1 (``ucca.evaluation``). A parser robust to learner language loses less
between the clean and the noisy rows.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
EWT = ROOT.parent / "shared/data/ucca-ewt"
CONLLU = ROOT.parent / "shared/data/ud-ewt-reviews/conllu"


def write_noisy(split: str, seed: int, out: Path) -> int:
    """The split's sentences with learner errors, one UCCA XML passage per sentence in ``out``."""
    from ucca.convert import passage2file

    from semsim_ucca.span.inference.features import featurize
    from semsim_ucca.span.inference.tree import tree_from_passage, tree_to_passage
    from semsim_ucca.span.training import data, noise
    sentences = data.sentences([EWT / "xml"], data.read_ids(EWT / f"{split}.txt"), CONLLU)
    trees = [tree_from_passage(p) for p in sentences]
    tags = [f.strings["tag"] for f in featurize([t.tokens for t in trees], spacy_vectors=False, fields=("word", "tag"))]
    probabilities = noise.calibrate(trees, tags)
    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    changed = 0
    for p, tree, tag in zip(sentences, trees, tags):
        noisy = noise.inject(tree, tag, rng, probabilities)
        changed += noisy.tokens != tree.tokens
        passage2file(tree_to_passage(noisy, str(p.ID)), str(out / f"{p.ID}.xml"))
    return changed


def evaluate(gold: list[str], model: str | None) -> dict[str, float]:
    cmd = [sys.executable, "-m", "semsim", "ucca", "evaluate", *gold, "--format", "json", "-q", "--no-cache"]
    cmd += ["--model", model] if model else []
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=("dev", "test"), default="dev")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--model", action="append", help="a model (repeatable; default: the default model)")
    ap.add_argument("-o", "--output", type=Path, help="where the noisy passages go (default: a temporary directory)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = args.output or Path(tmp) / "noisy"
        changed = write_noisy(args.split, args.seed, out)
        n = len(list(out.glob("*.xml")))
        print(f"EWT {args.split}: {n} sentences, {changed} with learner errors (seed {args.seed})\n")
        print("| model | clean primary / remote | noisy primary / remote | loss (primary) |")
        print("|---|---|---|---|")
        clean_gold = [str(EWT / "xml"), "--ids", str(EWT / f"{args.split}.txt"), "--sentences", str(CONLLU)]
        for model in args.model or [None]:
            clean, noisy = evaluate(clean_gold, model), evaluate([str(out)], model)
            print(f"| {model or 'default'} | {clean['labeled_primary']:.4f} / {clean['labeled_remote']:.4f} | "
                  f"{noisy['labeled_primary']:.4f} / {noisy['labeled_remote']:.4f} | "
                  f"{clean['labeled_primary'] - noisy['labeled_primary']:.4f} |", flush=True)


if __name__ == "__main__":
    main()
