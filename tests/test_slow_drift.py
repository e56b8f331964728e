"""The `slow` marker held (the root conftest's SlowDrift): unmarked tests over the limit are
listed in a summary section, marked ones never; the run fails only when asked to."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT_CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"
spec = importlib.util.spec_from_file_location("semsim_root_conftest", ROOT_CONFTEST)
root_conftest = importlib.util.module_from_spec(spec)
spec.loader.exec_module(root_conftest)

SUITE = """
import time
import pytest

@pytest.fixture(scope="module")
def heavy():
    time.sleep(0.15)

def test_quick():
    pass

def test_sleeps():
    time.sleep(0.15)

def test_heavy_set_up(heavy):
    pass

@pytest.mark.slow
def test_marked():
    time.sleep(0.15)
"""


@pytest.fixture
def pytester(pytester, monkeypatch):
    """pytester without the installed plugins (hypothesis, xdist...): a tenth of the time."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    return pytester


def run(pytester: pytest.Pytester, strict: bool) -> pytest.RunResult:
    pytester.makeini("[pytest]\nmarkers =\n    slow: slow\n")
    pytester.makepyfile(test_suite=SUITE)
    return pytester.runpytest(plugins=[root_conftest.SlowDrift(0.1, strict)])


def test_unmarked_slow_tests_are_reported_not_failed(pytester):
    result = run(pytester, strict=False)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*unmarked tests slower than 0.1 s*",
                                 "2 test(s) not marked slow took longer than 0.1 s*set SEMSIM_STRICT_SLOW=1 to fail*"])
    listed = [line for line in result.stdout.lines if line.strip().endswith(("test_sleeps", "test_heavy_set_up",
                                                                            "test_marked", "test_quick"))]
    assert sorted(line.split("::")[-1] for line in listed) == ["test_heavy_set_up", "test_sleeps"]


def test_strict_fails_the_run(pytester):
    result = run(pytester, strict=True)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*failing the run (SEMSIM_STRICT_SLOW=1)*"])


def test_nothing_said_when_nothing_drifted(pytester):
    pytester.makepyfile(test_suite="def test_quick():\n    pass\n")
    result = pytester.runpytest(plugins=[root_conftest.SlowDrift(5.0, strict=True)])
    assert result.ret == pytest.ExitCode.OK
    assert "slower than" not in result.stdout.str()
