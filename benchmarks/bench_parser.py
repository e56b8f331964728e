"""UCCA parsers' speed on one CPU core (prints figures; not a test).

    python benchmarks/bench_parser.py [--parser ucca-span[=MODEL]] [--parser tupa=PREFIX] [--limit N]

Each parser runs in a fresh process with ``OMP_NUM_THREADS=1`` (and torch limited to one
thread) on the JFLEG dev sources (754 tokenised sentences, ``../shared/data/jfleg``), in
batches as ``semsim score`` sends them, without the parse cache. Reported per parser: model
load time (the first one-sentence parse, spaCy included), sentences/s over the corpus
(spaCy features included), peak RSS of the process, and the model file's size; for
semsim's span parser also its training time per epoch, from the model's work directory
when it is beside the model.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def child(name: str, model: str | None, lines: list[str], batch_size: int) -> dict:
    import torch
    torch.set_num_threads(1)
    from semsim.pipeline import find_parser
    parser = find_parser(name, "ucca")
    t = time.perf_counter()
    parser.parse(lines[:1], model)
    load = time.perf_counter() - t
    t = time.perf_counter()
    for k in range(0, len(lines), batch_size):
        parser.parse(lines[k:k + batch_size], model)
    seconds = time.perf_counter() - t
    return {"parser": name, "load_s": round(load, 2), "sentences": len(lines), "parse_s": round(seconds, 1),
            "sent_per_s": round(len(lines) / seconds, 1),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def model_size(name: str, model: str | None) -> tuple[float, str]:
    if name == "tupa":
        from semsim_ucca.tupa import model_files, resolve_model
        files = model_files(resolve_model(model))
        return sum(f.stat().st_size for f in files) / 2**20, str(resolve_model(model))
    from semsim_ucca.span import resolve_model
    path = resolve_model(model)
    return path.stat().st_size / 2**20, str(path)


def epoch_seconds(model: str) -> str:
    history = Path(model + ".work") / "history.jsonl"
    if not history.is_file():
        return "n/a"
    seconds = [json.loads(line)["seconds"] for line in history.read_text().splitlines()]
    return f"{sum(seconds) / len(seconds):.0f} s/epoch ({len(seconds)} epochs)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parser", action="append", default=None, help="NAME[=MODEL] (repeatable)")
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    ap.add_argument("--limit", type=int, default=None, help="Only the first N sentences.")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    lines = [x for x in (args.shared / "data/jfleg/dev/dev.src").read_text(encoding="utf-8").splitlines() if x.strip()]
    lines = lines[: args.limit] if args.limit else lines
    if args.child:
        name, model = args.child
        print(json.dumps(child(name, model or None, lines, args.batch_size)))
        return
    rows = []
    for spec in args.parser or ["ucca-span"]:
        name, _, model = spec.partition("=")
        limit = ["--limit", str(args.limit)] if args.limit else []
        r = subprocess.run([sys.executable, __file__, "--child", name, model, "--shared", str(args.shared),
                            "--batch-size", str(args.batch_size), *limit],
                           capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "1",
                                                                "MKL_NUM_THREADS": "1"})
        if r.returncode:
            sys.exit(f"{spec}: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}")
        row = json.loads(r.stdout.strip().splitlines()[-1])
        size, path = model_size(name, model or None)
        row.update(model=path, model_mb=round(size, 1),
                   training=epoch_seconds(path) if name != "tupa" else "see docs/parser.md")
        rows.append(row)
    print("| parser | load (s) | sentences/s | peak RSS (MB) | model (MB) | training |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['parser']} | {r['load_s']} | {r['sent_per_s']} ({r['sentences']} in {r['parse_s']} s) | "
              f"{r['peak_rss_mb']} | {r['model_mb']} | {r['training']} |")
    if len(rows) > 1:
        print(f"\nspeed ratio {rows[0]['parser']} / {rows[1]['parser']}: "
              f"{rows[0]['sent_per_s'] / rows[1]['sent_per_s']:.1f}x")


if __name__ == "__main__":
    main()
