"""The learner-error rates the UCCA parser's noisy training injects (``--set noise=P``).

    python scripts/learner_errors.py [--jfleg DIR] [-o PATH]

Reads JFLEG dev (``dev.src`` and its four references ``dev.ref0``..``dev.ref3``; default
``../shared/data/jfleg/dev``), types every edit from a learner's sentence to each reference
with ERRANT (on the spaCy model the parser's features use), and writes, for each error kind
``semsim_ucca.span.training.noise`` can inject, its count per source token (summed over the four
references, divided by four times the source tokens) to
``plugins/ucca/semsim_ucca/span/training/learner_errors.json``: numbers only, no text of the corpus.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("R:SPELL", "R:ORTH", "R:NOUN:NUM", "R:VERB:SVA", "R:VERB:FORM", "R:VERB:TENSE", "R:DET", "R:PREP",
         "M:DET", "M:PREP", "M:PUNCT")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jfleg", type=Path, default=ROOT.parent / "shared/data/jfleg/dev")
    ap.add_argument("-o", "--output", type=Path,
                    default=ROOT / "plugins/ucca/semsim_ucca/span/training/learner_errors.json")
    args = ap.parse_args()
    from importlib.metadata import version

    import errant
    import spacy

    from semsim.kernel.files import atomic_write
    from semsim_ucca.span.inference.features import SPACY_MODEL
    annotator = errant.load("en", nlp=spacy.load(SPACY_MODEL, disable=["ner"]))
    sources = (args.jfleg / "dev.src").read_text(encoding="utf-8").splitlines()
    references = [(args.jfleg / f"dev.ref{k}").read_text(encoding="utf-8").splitlines() for k in range(4)]
    counts: Counter[str] = Counter()
    tokens = 0
    for i, source in enumerate(sources):
        parsed = annotator.parse(source)
        for refs in references:
            tokens += len(parsed)
            counts.update(e.type for e in annotator.annotate(parsed, annotator.parse(refs[i])))
    table = {"source": "JFLEG dev (dev.src against dev.ref0-3), ERRANT " + version("errant") + " on " + SPACY_MODEL,
             "tokens": tokens, "counts": {k: counts[k] for k in KINDS},
             "rates": {k: round(counts[k] / tokens, 6) for k in KINDS}}
    with atomic_write(args.output) as f:
        f.write(json.dumps(table, indent=1) + "\n")
    print(f"{args.output}: {sum(counts[k] for k in KINDS)} edits of {len(KINDS)} kinds over {tokens} tokens")


if __name__ == "__main__":
    main()
