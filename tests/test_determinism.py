"""Same input, same numbers, whatever the hash seed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

# figure1 is found on PYTHONPATH (this directory), as pytest finds it
SCRIPT = """
import semsim
from figure1 import correction, source
for settings in ({}, {"tie_break": "all"}, {"labels": "unlabeled"}, {"variant": "legacy"}):
    s = semsim.usim(source(), correction(), **settings)
    print(repr(s.f), [(c.matched1, c.total1, c.matched2, c.total2) for c in s.parts.values()], s.signature)
"""


def test_scores_identical_across_hash_seeds():
    tests = str(Path(__file__).parent)
    outputs = {subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True,
                              env={"PYTHONHASHSEED": seed, "SEMSIM_LOAD_PLUGINS": "", "PYTHONPATH": tests}).stdout
               for seed in ("0", "1", "12345", "random")}
    assert len(outputs) == 1 and outputs.pop().count("\n") == 4
