"""The code base is ruff-clean and mypy-clean (part of the test command, so CI checks it)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_clean():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.fail("ruff is not installed: pip install -e '.[test]'")
    result = subprocess.run([ruff, "check", "--no-cache", str(ROOT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow  # a cold mypy run checks ~150 modules against torch's and numpy's stubs: minutes, not seconds
def test_mypy_clean():
    """mypy on the core and the plugins, as pyproject.toml's [tool.mypy] configures it, against
    the libraries of this interpreter (a cold run takes minutes; .mypy_cache keeps the next short)."""
    mypy = shutil.which("mypy", path=str(Path(sys.executable).parent)) or shutil.which("mypy")
    if mypy is None:
        pytest.fail("mypy is not installed: pip install -e '.[test]'")
    config = ["--config-file", str(ROOT / "pyproject.toml"), "--python-executable", sys.executable]
    result = subprocess.run([mypy, *config], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
