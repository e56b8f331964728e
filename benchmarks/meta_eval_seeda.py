"""USim meta-evaluated on SEEDA through gec-metrics' own ``MetaEvalSEEDA`` (prints figures).

    python benchmarks/meta_eval_seeda.py [--shared ../shared] [--parser NAME] [--model M] [--cache FILE]

SEEDA (Kobayashi et al., TACL 2024) has human rankings of 15 GEC systems' outputs on 391
CoNLL-2014 sentences. gec-metrics' ``MetaEvalSEEDA`` correlates a metric's system scores
with the human ones (Pearson and Spearman, Expected Wins and TrueSkill, edit- and
sentence-based judgments; system sets ``base``, ``+INPUT``, ``all``) and its sentence-level
pairwise preferences with the judges' (accuracy and Kendall's tau). It is run here as a
researcher runs it, offline: it looks for a ``SEEDA/`` directory under the working
directory, so a temporary one is made of links to ``../shared/data/seeda``, plus stand-ins
for the two CoNLL-2014 reference files it opens (copies of the sources: a reference-free
metric never receives them, gec-metrics' ``inputs_handler`` drops them).

Measured, every one through the same harness:

* **USim paper** and **USim legacy** (semsim's :class:`~semsim.app.metric.USimMetric`, the
  default parser unless ``--parser``);
* **USim on changed lines**: a system's mean USim over the lines it changed only (an
  unchanged line is trivially faithful);
* **changed share**: the share of lines a system changed (sentence level: changed or not);
* **length floor**: the output's length in tokens, a metric with no idea of quality, which
  any metric should beat.

Wall time of the whole meta-evaluation is reported with the parse cache cold (a fresh
cache file) and warm (the same file again), and the time of gec-metrics' ``rank_systems``
on SEEDA's 15 systems before (gec-metrics' default: one ``score_corpus`` per system) and
after (USimMetric's one pass), both on a warm cache.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETS = ("base", "+INPUT", "all")


@contextlib.contextmanager
def seeda_tree(shared: Path) -> Iterator[Path]:
    """A working directory holding the ``SEEDA/`` layout MetaEvalSEEDA globs for."""
    seeda = shared / "data" / "seeda"
    if not (seeda / "outputs" / "subset").is_dir():
        sys.exit(f"{seeda}: no SEEDA data (see ../shared/data/seeda/README.md)")
    with tempfile.TemporaryDirectory(prefix="semsim-seeda-") as tmp:
        subset = Path(tmp, "SEEDA", "outputs", "subset")
        subset.mkdir(parents=True)
        for f in (seeda / "outputs" / "subset").glob("*.txt"):
            (subset / f.name).symlink_to(f.resolve())
        for ref in ("REF0.txt", "REF1.txt"):  # stand-ins: never passed to a reference-free metric
            shutil.copyfile(seeda / "outputs" / "subset" / "INPUT.txt", subset / ref)
        for d in ("scores", "data"):
            Path(tmp, "SEEDA", d).symlink_to((seeda / d).resolve())
        old = Path.cwd()
        os.chdir(tmp)
        try:
            yield Path(tmp)
        finally:
            os.chdir(old)


def metrics(parser: str | None, model: str | None, cache: str) -> dict[str, object]:
    """The measures compared, each a gec-metrics reference-free metric."""
    from gec_metrics.metrics import MetricBaseForReferenceFree

    from semsim.app.metric import USimMetric

    def usim(variant: str) -> USimMetric:
        return USimMetric(USimMetric.Config(parser=parser, model=model, cache=cache, variant=variant))

    class ChangedShare(MetricBaseForReferenceFree):
        """1 for a line the system changed, 0 for one it left as it was."""

        def score_sentence(self, sources: Sequence[str], hypotheses: Sequence[str]) -> list[float]:
            return [float(s.split() != h.split()) for s, h in zip(sources, hypotheses)]

    class LengthFloor(MetricBaseForReferenceFree):
        """The output's length in tokens: no notion of quality at all."""

        def score_sentence(self, sources: Sequence[str], hypotheses: Sequence[str]) -> list[float]:
            return [float(len(h.split())) for h in hypotheses]

    class USimChanged(USimMetric):
        """USim over the lines a system changed only (system level); per sentence, USim."""

        def score_corpus(self, sources: Sequence[str], hypotheses: Sequence[str]) -> float:
            scores = [f for f, s, h in zip(self.score_sentence(sources, hypotheses), sources, hypotheses)
                      if s.split() != h.split()]
            return sum(scores) / len(scores) if scores else 1.0

        def rank_systems(self, sources: Sequence[str], hypotheses: Sequence[Sequence[str]],
                         aggregation: str = "default") -> list[float]:
            if aggregation != "default":
                return super().rank_systems(sources, hypotheses, aggregation)
            out = []
            for hyps, scores in zip(hypotheses, self.score_systems(sources, hypotheses)):
                kept = [f for f, s, h in zip(scores, sources, hyps) if s.split() != h.split()]
                out.append(sum(kept) / len(kept) if kept else 1.0)
            return out

    changed = USimChanged(USimChanged.Config(parser=parser, model=model, cache=cache))
    return {"USim paper": usim("paper"), "USim legacy": usim("legacy"), "USim on changed lines": changed,
            "changed share": ChangedShare(), "length floor": LengthFloor()}


@dataclass
class Row:
    metric: str
    system_set: str
    values: dict[str, tuple[float, float]]  # score id -> (Pearson, Spearman)


def evaluate(measures: dict[str, object]) -> tuple[list[Row], dict[str, dict[str, tuple[float, float]]]]:
    from gec_metrics.meta_eval import MetaEvalSEEDA
    rows = []
    sentence: dict[str, dict[str, tuple[float, float]]] = {}
    for system_set in SETS:
        meta = MetaEvalSEEDA(MetaEvalSEEDA.Config(system=system_set))
        for name, metric in measures.items():
            out = meta.corr_system(metric)
            rows.append(Row(name, system_set, {k: (getattr(out, k).pearson, getattr(out, k).spearman)
                                               for k in ("ew_edit", "ew_sent", "ts_edit", "ts_sent")}))
            if system_set == "base" and name != "USim on changed lines":  # the same sentences as USim
                s = meta.corr_sentence(metric)
                sentence[name] = {k: (getattr(s, k).accuracy, getattr(s, k).kendall) for k in ("edit", "sent")}
    return rows, sentence


def print_tables(rows: list[Row], sentence: dict[str, dict[str, tuple[float, float]]]) -> None:
    print("System level, Pearson / Spearman with the human scores (SEEDA subset, 391 sentences)\n")
    print("| metric | systems | EW edit | EW sent | TS edit | TS sent |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        cells = [f"{p:+.3f} / {s:+.3f}" for p, s in r.values.values()]
        print(f"| {r.metric} | {r.system_set} | " + " | ".join(cells) + " |")
    print("\nSentence level (base systems), pairwise accuracy / Kendall's tau against the judges\n")
    print("| metric | edit-based | sentence-based |")
    print("|---|---|---|")
    for name, v in sentence.items():
        print(f"| {name} | {v['edit'][0]:.3f} / {v['edit'][1]:+.3f} | {v['sent'][0]:.3f} / {v['sent'][1]:+.3f} |")


def rank_systems_times(metric: object) -> tuple[float, float]:
    """gec-metrics' rank_systems on all 15 systems: its default (a score_corpus per system)
    and USimMetric's one pass, on a warm cache."""
    from gec_metrics.meta_eval import MetaEvalSEEDA
    from gec_metrics.metrics import MetricBaseForReferenceFree
    data = MetaEvalSEEDA(MetaEvalSEEDA.Config(system="all")).system_data
    t0 = time.perf_counter()
    before = MetricBaseForReferenceFree.rank_systems(metric, data["sources"], data["hypotheses"])
    t1 = time.perf_counter()
    after = metric.rank_systems(data["sources"], data["hypotheses"])
    t2 = time.perf_counter()
    assert [round(x, 12) for x in before] == [round(x, 12) for x in after]
    return t1 - t0, t2 - t1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    ap.add_argument("--parser", default=None, help="parser (default: the default UCCA parser)")
    ap.add_argument("--model", default=None)
    ap.add_argument("--cache", default=None, help="parse cache file (default: a fresh one, so the first run is cold)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="semsim-cache-") as cache_dir:
        cache = args.cache or str(Path(cache_dir, "parses.sqlite3"))
        with seeda_tree(args.shared.resolve()):
            timings = {}
            for run in ("cold", "warm"):
                t0 = time.perf_counter()
                rows, sentence = evaluate(metrics(args.parser, args.model, cache))
                timings[run] = time.perf_counter() - t0
            print_tables(rows, sentence)
            before, after = rank_systems_times(metrics(args.parser, args.model, cache)["USim paper"])
    print(f"\nwhole meta-evaluation (3 system sets x 5 measures, sentence level): {timings['cold']:.1f} s with "
          f"a cold parse cache, {timings['warm']:.1f} s warm")
    print(f"rank_systems on 15 systems, warm cache: gec-metrics' default {before:.2f} s, USimMetric's one "
          f"pass {after:.2f} s")


if __name__ == "__main__":
    main()
