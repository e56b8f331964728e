"""semsim inside another program (#55.2): importing it and scoring text change nothing the
program owns: its environment variables, its OpenMP/BLAS pools, torch's threads, its home and
temporary directories. semsim's own worker processes may set what they like."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.needs_ucca, pytest.mark.slow]

#: a host program: numpy and torch loaded, a snapshot, then semsim imported and scoring text
HOST = r"""
import json, os, sys
import numpy, torch

def snapshot():
    # the environment first: threadpoolctl, the host's own tool for the pools, sets
    # KMP_DUPLICATE_LIB_OK as it loads; it is then unloaded and that undone, so that semsim
    # loading it again would set it again, and be seen doing so
    env = dict(os.environ)
    from threadpoolctl import threadpool_info
    pools = sorted((p["internal_api"], p["num_threads"]) for p in threadpool_info())
    del sys.modules["threadpoolctl"]
    os.environ.clear()
    os.environ.update(env)
    return {"env": env, "torch": torch.get_num_threads(), "pools": pools}

before = snapshot()
import semsim
from semsim.api import ParseSettings
imported = snapshot()
scores = semsim.USim().text_scores(["He gave an apple .", "A cat sat ."], ["He gave apple .", "A cat sits ."],
                                   ParseSettings(cache=False, jobs=int(sys.argv[1])))
written = [os.path.relpath(os.path.join(r, f), d) for d in (os.environ["HOME"], os.environ["TMPDIR"])
           for r, _, fs in os.walk(d) for f in fs]
print(json.dumps({"before": before, "imported": imported, "scored": snapshot(), "written": written,
                  "f": [s.f for s in scores]}))
"""


@pytest.mark.parametrize("jobs", [1, 2])
def test_import_and_scoring_leave_the_host_process_as_it_was(tmp_path, jobs):
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir(), tmp.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "RAYON_NUM_THREADS",
                        "TOKENIZERS_PARALLELISM", "KMP_DUPLICATE_LIB_OK", "SEMSIM_THREADS")}
    env.update(HOME=str(home), TMPDIR=str(tmp))
    out = subprocess.run([sys.executable, "-c", HOST, str(jobs)], env=env, capture_output=True, text=True,
                         check=False, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    seen = json.loads(out.stdout.splitlines()[-1])
    assert len(seen["f"]) == 2
    for moment in ("imported", "scored"):
        changed = {k for k in {*seen["before"]["env"], *seen[moment]["env"]}
                   if seen["before"]["env"].get(k) != seen[moment]["env"].get(k)}
        assert changed == set(), f"after {moment}: variables changed: {sorted(changed)}"
        assert seen[moment]["pools"] == seen["before"]["pools"], moment
        assert seen[moment]["torch"] == seen["before"]["torch"], moment
    assert seen["written"] == []  # onnxruntime's telemetry files (~/.cache/Microsoft, $TMPDIR/.ses) among them


def test_trust_model_is_not_set_in_the_callers_environment_but_reaches_the_workers(monkeypatch):
    """``trust_model=True`` holds for semsim's own context and its worker processes, and the
    caller's ``os.environ`` never holds ``SEMSIM_TRUST_MODELS`` (another thread would be trusting too)."""
    from semsim.app.executors import Processes
    from semsim.kernel.models import TRUST_ENV, trusted_by_user, trusting
    monkeypatch.delenv(TRUST_ENV, raising=False)
    with trusting(True):
        assert trusted_by_user() and TRUST_ENV not in os.environ
        with Processes("any", None, "key", 1) as pool:
            assert pool.pool.submit(os.getenv, TRUST_ENV).result(timeout=120) == "1"
    assert not trusted_by_user()
    with Processes("any", None, "key", 1) as pool:
        assert pool.pool.submit(os.getenv, TRUST_ENV).result(timeout=120) is None
