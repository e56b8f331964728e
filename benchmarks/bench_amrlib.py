"""Speed of the ``amrlib`` parser's machinery on the tests' tiny model (prints figures; not a test).

    OMP_NUM_THREADS=1 python benchmarks/bench_amrlib.py [--sentences 96] [--repeat 3]

The model is the tests' one-layer T5 (d_model 16, ByT5 bytes) whose generation config forces
a 52-byte serialized AMR for every sentence (``plugins/amr/tests/tiny_amrlib.py``), run
through ``semsim_amr.amrlib_parser.parse`` with amrlib's defaults (4 beams, batches of 12).
It measures what semsim and amrlib add around the network — tokenizing, beam search
bookkeeping, deserializing, PENMAN decoding — and the load time; a released model is
~10^4 times larger and its speed is the network's (amrlib reports 11-31 sentences/s for its
models on a GPU).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "plugins" / "amr" / "tests"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sentences", type=int, default=96)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    from tiny_amrlib import WANT_GO, build_tiny_model

    from semsim_amr import amrlib_parser
    sentences = [f"Sentence number {i} says that the boy wants to go ." for i in range(args.sentences)]
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        model = str(build_tiny_model(Path(tmp) / "tiny", forced=WANT_GO))
        built = time.perf_counter() - t
        t = time.perf_counter()
        amrlib_parser.parse(sentences[:1], model)  # imports torch/transformers/amrlib and loads the model
        loaded = time.perf_counter() - t
        times = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            graphs = amrlib_parser.parse(sentences, model)
            times.append(time.perf_counter() - t)
        assert len(graphs) == len(sentences)
        t = time.perf_counter()
        amrlib_parser.model_identity(model)
        identity = time.perf_counter() - t
        size = sum(f.stat().st_size for f in Path(model).iterdir())
    print(f"build tiny model (incl. torch import): {built:.2f} s; first parse (imports + load): {loaded:.2f} s")
    print(f"parse: {len(sentences) / statistics.median(times):.1f} sentences/s "
          f"(median of {args.repeat} runs of {len(sentences)} sentences)")
    print(f"model_identity ({size / 1024:.0f} KiB model): {identity * 1000:.1f} ms")


if __name__ == "__main__":
    main()
