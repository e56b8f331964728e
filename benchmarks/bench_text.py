"""Text in, scores out, with TUPA (prints figures; not a test).

    python benchmarks/bench_text.py [--lines 200] [--shared ../shared]

Trains the tiny sparse TUPA model on the shipped bracket fixtures, then runs
``semsim score`` on the first LINES lines of JFLEG dev (source vs. ref0..ref3):
parsing speed on a cold cache, the re-run from the cache, and ``--jobs 2`` vs ``--jobs 1``.
The tiny model's parses are poor: these are speed figures, not quality figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "plugins/ucca/tests"))
from brackets import TRAINING, to_xml  # noqa: E402


def run(args: list[str], env: dict[str, str]) -> tuple[float, dict]:
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "semsim.app.cli", *args], capture_output=True, text=True,
                       env={**os.environ, **env})
    if r.returncode:
        sys.exit(r.stderr)
    return time.perf_counter() - t, json.loads(r.stdout)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=200)
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    args = ap.parse_args()
    from semsim_ucca import tupa
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        files = []
        for i, b in enumerate(TRAINING):
            files.append(d / f"t{i}.xml")
            files[-1].write_text(to_xml(b, f"t{i}"), encoding="utf-8")
        t = time.perf_counter()
        model = tupa.train(files, d / "model" / "tiny")
        print(f"tiny sparse model: {len(files)} sentences x 2 epochs in {time.perf_counter() - t:.1f} s, "
              f"{sum(f.stat().st_size for f in model.parent.iterdir()) / 1e6:.2f} MB")
        jfleg = args.shared / "data/jfleg/dev"
        names = ["dev.src", "dev.ref0", "dev.ref1", "dev.ref2", "dev.ref3"]
        for n in names:
            lines = (jfleg / n).read_text(encoding="utf-8").splitlines()[: args.lines]
            (d / n).write_text("\n".join(lines) + "\n", encoding="utf-8")
        texts = {" ".join(x.split()) for n in names for x in (d / n).read_text().splitlines() if x.strip()}
        base = ["score", "--source", str(d / "dev.src"), *[a for n in names[1:] for a in ("--ref", str(d / n))],
                "--representation", "ucca", "--model", str(model), "--format", "json", "-q", "--bootstrap", "200"]
        env = {"SEMSIM_CACHE_DIR": str(d / "cache")}
        print(f"JFLEG dev, first {args.lines} lines: source + 4 references = {len(texts)} distinct sentences")
        cold, summary = run(base, env)
        warm, again = run(base, env)
        assert again == summary
        print(f"  cold cache, --jobs 1: {cold:6.1f} s  ({len(texts) / cold:.1f} sentences/s, process start included)")
        print(f"  re-run from cache:    {warm:6.1f} s  (x{cold / warm:.0f} faster)")
        jobs2, summary2 = run([*base, "--jobs", "2"], {"SEMSIM_CACHE_DIR": str(d / "cache2")})
        assert summary2 == summary, "--jobs 2 changed the numbers"
        print(f"  cold cache, --jobs 2: {jobs2:6.1f} s  (x{cold / jobs2:.2f} vs --jobs 1; same numbers)")
        for s in summary["systems"]:
            lo, hi = s["macro_ci"]
            print(f"  {s['system']:14} mean USim {s['macro_f']:.3f} [{lo:.3f}, {hi:.3f}]  micro {s['micro_f']:.3f}")


if __name__ == "__main__":
    main()
