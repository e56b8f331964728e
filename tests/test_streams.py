"""Inputs that can be read only once: a pipe given as a path (``<(cat a.xml)``, a FIFO) and
standard input are read once, within the input bound, and then found their reader and read
from the same bytes; a device that never ends stops at the bound."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from support import run_cli

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def fifo(tmp_path: Path, name: str, content: bytes) -> Path:
    """A named pipe that gives ``content`` to its first reader (a writer thread feeds it)."""
    path = tmp_path / name
    os.mkfifo(path)

    def feed() -> None:
        with open(path, "wb") as f:
            f.write(content)
    threading.Thread(target=feed, daemon=True).start()
    return path


@pytest.mark.parametrize("source,correction", [("fig1-source.xml", "fig1-correction.xml"),
                                               ("fig1-source.amr", "fig1-correction.amr")])
def test_a_pipe_given_as_a_path_is_read_like_the_file(tmp_path, source, correction):
    """Neither refused as empty (its size is 0) nor half-read (its head read to find the
    reader, then the rest to parse it): the same scores as from the files."""
    files = run_cli("usim", EXAMPLES / source, EXAMPLES / correction, "--format", "json")
    pipe = fifo(tmp_path, "src", (EXAMPLES / source).read_bytes())
    piped = run_cli("usim", pipe, EXAMPLES / correction, "--format", "json")
    assert files.exit_code == 0 and piped.exit_code == 0, piped.output
    drop = ("name", "source")  # the pair is named after its files
    assert [{k: v for k, v in r.items() if k not in drop} for r in json.loads(piped.output)["pairs"]] \
        == [{k: v for k, v in r.items() if k not in drop} for r in json.loads(files.output)["pairs"]]


def test_an_empty_pipe_is_an_empty_file(tmp_path):
    pipe = fifo(tmp_path, "empty", b"")
    r = run_cli("usim", pipe, EXAMPLES / "fig1-correction.xml")
    assert r.exit_code == 1 and f"{pipe}: empty file" in r.output and "Traceback" not in r.output


def test_an_endless_device_stops_at_the_input_bound(monkeypatch):
    monkeypatch.setenv("SEMSIM_MAX_INPUT_BYTES", "100000")
    r = run_cli("usim", "/dev/zero", EXAMPLES / "fig1-correction.xml")
    assert r.exit_code == 1 and "/dev/zero: the file is larger than 100,000 bytes" in r.output, r.output


def test_standard_input_needs_exactly_one_reader_to_recognise_it():
    """No suffix to go by (issue #33.6): the one sniffing reader that recognises the stream reads
    it; none is an error naming the readers and --read-format, never a silent guess."""
    r = run_cli("usim", "-", EXAMPLES / "fig1-correction.xml", input=(EXAMPLES / "fig1-source.xml").read_text())
    assert r.exit_code == 0, r.output
    r = run_cli("usim", "-", EXAMPLES / "fig1-correction.xml", input="garbage\n")
    assert r.exit_code == 1 and "<stdin>: no reader recognises it (" in r.output and "--read-format" in r.output


def test_an_error_in_standard_input_names_it_and_the_reader_that_took_it():
    conllu = "# sent_id = 1\n1\tHe\the\tPRON\t_\t_\t2\tnsubj\t_\t_\n"  # PENMAN comments start with '#' too
    r = run_cli("usim", "-", EXAMPLES / "fig1-correction.amr", input=conllu)
    assert r.exit_code == 1 and r.output.startswith("Error: <stdin>:"), r.output
    assert "(read as penman: another with --read-format)" in r.output


@pytest.mark.slow
def test_a_named_pipe_with_no_writer_yet_is_waited_for_as_cat_waits(tmp_path):
    """Decided (#45): a named pipe is read as Unix reads one, so opening it waits for its
    writer (as `cat FIFO` does; refusing a pipe not yet written to would refuse `<(cmd)` whose
    command is slow to start). semsim waits, and scores once the writer comes: not refused,
    not hung after it."""
    import subprocess
    import sys
    import time
    path = tmp_path / "later"
    os.mkfifo(path)
    proc = subprocess.Popen([sys.executable, "-m", "semsim.app.cli", "usim", str(path),
                             str(EXAMPLES / "fig1-source.xml"), "-b"], stdout=subprocess.PIPE, text=True)
    try:
        time.sleep(1.5)
        assert proc.poll() is None  # waiting for a writer, as Unix readers do
        with open(path, "wb") as f:
            f.write((EXAMPLES / "fig1-source.xml").read_bytes())
        out, _ = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0 and out.strip() == "1.000000"
