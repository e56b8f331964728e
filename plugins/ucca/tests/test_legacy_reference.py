"""The legacy variant reproduces the authors' released code, pair by pair.

``data/original_code_usim.tsv`` holds what the original code (GitHub borgr/ucca, branch
``distances``, commit f7935af, ``scripts/distances/align.py:fully_aligned_distance``, run
unmodified with munkres 3.0.0 on Python 3.11) printed for the 22 annotation pairs of the
paper; see ``docs/reproducing.md`` for how it was run. The expected values are that
program's output, not semsim's.
"""

from __future__ import annotations

import csv
import statistics
from pathlib import Path

import pytest

import semsim

REFERENCE = Path(__file__).parent / "data" / "original_code_usim.tsv"


def _rows():
    with open(REFERENCE, encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


@pytest.mark.needs_shared
@pytest.mark.parametrize("row", _rows(), ids=lambda r: f"{r['first']}~{r['second']}")
def test_legacy_matches_original_code(annotations, row):
    s = semsim.usim(annotations / f"{row['first']}.xml", annotations / f"{row['second']}.xml", variant="legacy")
    c = s.parts["legacy"]
    assert (c.total1, c.total2) == (int(row["n_units_first"]), int(row["n_units_second"]))
    assert s.f == pytest.approx(float(row["usim"]), abs=1e-12)


@pytest.mark.needs_shared
def test_group_means_match_original_code(annotations):
    by_group: dict[str, list[float]] = {}
    for row in _rows():
        by_group.setdefault(row["group"], []).append(float(row["usim"]))
    assert set(by_group) == {"Same", "Different", "IAA"}
    assert round(statistics.mean(by_group["Different"]), 3) == 0.827
    assert round(statistics.mean(by_group["Same"]), 3) == 0.880
    assert round(statistics.mean(by_group["IAA"]), 3) == 0.882
