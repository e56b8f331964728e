"""Helpers and data shared by the test modules of the core and of the plugins (not a test module).

Test modules import it by name, ``from support import run_cli``: pytest puts ``tests/`` on
``sys.path`` (``pythonpath`` in pyproject.toml), also when only a plugin's tests are run.

``run_cli``: the ``semsim`` command in this process (click's ``CliRunner``).
``refusal``: the one error line of a ``semsim`` command that refuses its input, in this process.
``run_semsim``: the ``semsim`` command in a fresh Python process (``python -m semsim.app.cli``).
``interruptible``: a ``preexec_fn`` giving a child SIGINT's default back.
``interrupt_second_start``: a ``Process.start`` that raises KeyboardInterrupt once the second process started.
``chromium``: headless Chromium under selenium, its console logged (tests marked ``needs_browser``).
``MRP_SEEDS``: valid hand-made MRP files (bytes).
``SOURCE``, ``SYS1``, ``SYS2`` and ``files``: a source and two systems' outputs as text files.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result


def run_cli(*args: object, input: str | bytes | None = None, env: dict[str, str] | None = None,
            catch_exceptions: bool = True) -> Result:
    """``semsim *args`` through click's ``CliRunner`` (each argument passed through ``str``)."""
    from semsim.app.cli import cli  # here: the data below needs no command line

    return CliRunner().invoke(cli, [str(a) for a in args], input=input, env=env, catch_exceptions=catch_exceptions)


def refusal(*args: object, env: dict[str, str] | None = None) -> str:
    """The one stderr line of ``semsim *args`` refusing its input, run in this process: exit
    status 1, and any exception that is not semsim's one-line error fails the test (click's
    runner would otherwise turn it into exit status 1 too). A test that needs a fresh process
    (imports, threads, the exit itself) uses :func:`run_semsim`; one that only checks the
    message saves an interpreter start and torch's import (2 s)."""
    r = run_cli(*args, env=env, catch_exceptions=False)
    assert r.exit_code == 1, (r.exit_code, r.output)
    (line,) = r.stderr.strip().splitlines()
    return line


def chromium(size: tuple[int, int] = (1100, 1000)) -> Any:
    """Headless Chromium (Debian's, with its chromedriver) driven by selenium, one device pixel
    a CSS pixel, the browser's console kept (``get_log("browser")``): the HTML pages' tests."""
    import shutil

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                f"--window-size={size[0]},{size[1]}", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)


def interruptible() -> None:
    """A ``preexec_fn`` for a child a test will interrupt: SIGINT back at its default. A test
    run started with SIGINT ignored (in the background of a non-interactive shell, under nohup)
    passes that on, and Python then never raises KeyboardInterrupt: as POSIX asks, semsim keeps
    a SIGINT it was started with ignored, so the test would see a run that ignores it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupt_second_start(started: list[Any], record: Callable[[Any], None] | None = None) -> Callable[[Any], None]:
    """A ``multiprocessing`` ``BaseProcess.start`` that starts the process, adds it to ``started``
    (and gives it to ``record``), and raises KeyboardInterrupt once the second has started: a
    Ctrl-C landing after a pool's worker started and before the pool recorded it, raised there
    deterministically (no race to win). Used in a test's process and in a child ``semsim``."""
    import multiprocessing.process
    real = multiprocessing.process.BaseProcess.start

    def start(process: Any) -> None:
        real(process)
        started.append(process)
        if record is not None:
            record(process)
        if len(started) == 2:
            raise KeyboardInterrupt
    return start


def run_semsim(*args: object, env: dict[str, str] | None = None, **kwargs) -> subprocess.CompletedProcess[str]:
    """``python -m semsim.app.cli *args`` in a subprocess, its output captured as text; ``env`` is
    added to this process's environment, ``kwargs`` (``check``, ``timeout``...) go to ``subprocess.run``."""
    return subprocess.run([sys.executable, "-m", "semsim.app.cli", *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, **kwargs)


#: Valid MRP graphs (hand-made): an anchored tree with a remote edge and parallel labels,
#: an unanchored concept graph, and one whose nodes share and nest character spans (as EDS).
MRP_SEEDS = [
    "".join(json.dumps(g) + "\n" for g in graphs).encode("utf-8") for graphs in [
        [{"id": "a", "framework": "toyframe", "input": "Kim sleeps.", "tops": [3],
          "nodes": [{"id": 0, "anchors": [{"from": 0, "to": 3}], "label": "kim"},
                    {"id": 1, "anchors": [{"from": 4, "to": 10}]}, {"id": 2, "anchors": [{"from": 10, "to": 11}]},
                    {"id": 3}],
          "edges": [{"source": 3, "target": 0, "label": "A"}, {"source": 3, "target": 0, "label": "B"},
                    {"source": 3, "target": 1, "label": "P"}, {"source": 3, "target": 2, "label": "U"},
                    {"source": 1, "target": 0, "label": "A", "properties": ["remote"], "values": [True]}]},
         {"id": "b", "framework": "toyframe", "input": "Dogs bark", "tops": [0],
          "nodes": [{"id": 0, "label": "bark", "anchors": [{"from": 5, "to": 9}]},
                    {"id": 1, "label": "dog", "anchors": [{"from": 0, "to": 4}],
                     "properties": ["num"], "values": ["pl"]}],
          "edges": [{"source": 0, "target": 1, "label": "ARG1"}]}],
        [{"id": "c", "framework": "nested", "input": "the old cat", "tops": [0],
          "nodes": [{"id": 0, "label": "q", "anchors": [{"from": 0, "to": 11}]},
                    {"id": 1, "label": "old", "anchors": [{"from": 4, "to": 7}]},
                    {"id": 2, "label": "cat", "anchors": [{"from": 8, "to": 11}]}],
          "edges": [{"source": 0, "target": 2, "label": "BV"}, {"source": 1, "target": 2, "label": "ARG1"}]}],
    ]
]

#: A source with a typo and an empty line, and two systems' corrections of it (line for line).
SOURCE = ["He gva an apple .", "The cat sat .", "", "Dogs run fast .", "A b c ."]
SYS1 = ["He gave John an apple .", "The cat sat .", "", "Dogs ran fast .", "A B c ."]
SYS2 = ["He gave an apple .", "the cat sat down .", "x", "Dogs run .", "A b c ."]


def files(tmp_path: Path) -> dict[str, Path]:
    """``SOURCE``, ``SYS1`` and ``SYS2`` written to ``src.txt``, ``sys1.txt`` and ``sys2.txt`` in ``tmp_path``."""
    paths = {}
    for name, lines in (("src.txt", SOURCE), ("sys1.txt", SYS1), ("sys2.txt", SYS2)):
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths[name] = tmp_path / name
    return paths
