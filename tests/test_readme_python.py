"""The README's Python examples on text run as written (issue #35: one documented call from
Python text to scores and to an explanation)."""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _blocks() -> list[str]:
    """The README's Python blocks that start from text (they import semsim.api's parse)."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    return [b for b in blocks if "text_scores" in b]


def test_the_readme_has_a_python_example_on_text():
    assert len(_blocks()) == 1


@pytest.mark.slow
def test_the_readme_python_example_on_text_runs(tmp_path, monkeypatch):
    """With the shipped parser (no network, no ../shared), in a fresh parse cache."""
    monkeypatch.setenv("SEMSIM_CACHE_DIR", str(tmp_path))
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("error")  # its raw text is tokenized (tokenize="spacy"): nothing to warn of
        exec(compile(_blocks()[0], str(README), "exec"), {})  # the repository's own README
    printed = out.getvalue()
    assert printed.splitlines()[-1].split()[-1].startswith("tok:spacy-")
    scores = [float(x) for x in re.findall(r"\[([0-9., ]+)\]", printed.splitlines()[0])[0].split(",")]
    assert len(scores) == 2 and all(0 < s <= 1 for s in scores)
    assert "|parser:ucca-span|model:" in printed.splitlines()[0]
    assert "USim F" in printed and "source:" in printed
