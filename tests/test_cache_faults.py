"""The parse cache under faults (#45): a row whose graph is not its key's sentence is parsed
again, never scored; a damaged row (nested past Python's stack) likewise; a database of
another layout, a lock held too long, a full disk or a read-only file is one line saying
which, never a traceback or a hang."""

from __future__ import annotations

import json
import sqlite3

import pytest
from support import run_cli

import semsim.app.cache as cache_module
from semsim.app.cache import ParseCache
from semsim.kernel.errors import SemsimError


def _score(d, cache, log=None, monkeypatch=None):
    src, hyp = d / "src.txt", d / "hyp.txt"
    src.write_text("Big dogs bark .\nsmall cats sleep .\n")
    hyp.write_text("Big dogs sleep .\nsmall cats bark .\n")
    if log is not None:
        monkeypatch.setenv("TOY_PARSE_LOG", str(log))
    return run_cli("score", "--source", src, "--hyp", hyp, "--parser", "toy-parser", "--cache", cache, "-q",
                   "--bootstrap", "0", "--format", "json")


def test_rows_whose_graphs_were_swapped_are_parsed_again_not_scored(toy_env, monkeypatch):
    """Two rows' graphs exchanged, their ``sentence`` fields dropped (as a hand edit or a
    tool copying rows would): no row that does not name its sentence serves a graph."""
    d = toy_env
    cache = d / "c.sqlite3"
    clean = _score(d, cache)
    assert clean.exit_code == 0, clean.output
    db = sqlite3.connect(cache)
    rows = dict(db.execute("SELECT text, graph FROM parses"))
    a, b = "Big dogs bark .", "small cats sleep ."
    for text, other in ((a, b), (b, a)):
        graph = json.loads(rows[other])
        del graph["sentence"]
        db.execute("UPDATE parses SET graph = ? WHERE text = ?", (json.dumps(graph), text))
    db.commit()
    db.close()
    log = d / "parsed.log"
    again = _score(d, cache, log, monkeypatch)
    assert again.exit_code == 0, again.output
    assert json.loads(again.output) == json.loads(clean.output)
    assert sorted(log.read_text().splitlines()) == sorted([a, b])  # those two parsed again, the others served


def test_a_row_nested_past_the_stack_is_parsed_again(toy_env, monkeypatch):
    d = toy_env
    cache = d / "c.sqlite3"
    clean = _score(d, cache)
    db = sqlite3.connect(cache)
    db.execute("UPDATE parses SET graph = ? WHERE text = ?", ("[" * 200_000 + "]" * 200_000, "Big dogs bark ."))
    db.commit()
    db.close()
    log = d / "parsed.log"
    again = _score(d, cache, log, monkeypatch)
    assert again.exit_code == 0 and json.loads(again.output) == json.loads(clean.output), again.output
    assert log.read_text().splitlines() == ["Big dogs bark ."]


def test_a_database_of_another_layout_is_one_line(toy_env):
    other = toy_env / "other.sqlite3"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    db.execute("INSERT INTO meta VALUES ('schema', '1')")
    db.execute("CREATE TABLE parses (key TEXT PRIMARY KEY, value TEXT)")
    db.commit()
    db.close()
    r = _score(toy_env, other)
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert r.output.strip() == (f"Error: {other}: not a semsim parse cache (its table 'parses' has no column "
                                "created, graph, hits, model, native, parser, representation, text); choose "
                                "another file with --cache")


def test_a_lock_held_past_the_bound_is_one_line_not_a_hang(toy_env, monkeypatch):
    cache = toy_env / "c.sqlite3"
    ParseCache(cache).close()
    monkeypatch.setattr(cache_module, "LOCK_TIMEOUT", 0.3)
    holder = sqlite3.connect(cache, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process's write, held
    try:
        r = _score(toy_env, cache)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert "the parse cache stayed locked by another process for more than 0.3 s" in r.output


def test_a_disk_that_fills_mid_write_is_one_line_and_keeps_what_was_stored(toy_env, monkeypatch):
    """SQLite's own "database or disk is full" (its page limit reached, as a full disk ends a
    write), not a simulation of the error: the batch is rolled back, the run ends in one line."""
    cache = toy_env / "c.sqlite3"
    ParseCache(cache).close()
    real = sqlite3.connect

    def connect(*args, **kwargs):
        db = real(*args, **kwargs)
        db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")
        return db

    monkeypatch.setattr(cache_module.sqlite3, "connect", connect)
    (toy_env / "long.txt").write_text("".join(f"Word{i} " * 300 + ".\n" for i in range(40)))
    r = run_cli("parse", toy_env / "long.txt", "--parser", "toy-parser", "--cache", cache, "-q")
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert "cannot store parses (database or disk is full)" in r.output


@pytest.mark.parametrize("message,says", [
    ("attempt to write a readonly database", "is read-only"),
    ("database is locked", "stayed locked"),
    ("database or disk is full", "free space"),
    ("file is not a database", "not a usable semsim cache"),
])
def test_each_database_error_gets_the_advice_that_fits_it(tmp_path, message, says):
    """A read-only cache is not to be removed (root cannot make one here: it writes anyway)."""
    store = ParseCache(tmp_path / "c.sqlite3")
    error = store._unusable(sqlite3.OperationalError(message))
    store.close()
    assert isinstance(error, SemsimError) and says in str(error)
    assert ("remove it" in str(error)) == (says == "not a usable semsim cache")


def test_a_lock_is_said_at_once_and_waited_for_visibly(toy_env, monkeypatch):
    """A lock released within the bound (#56): the run says at once that it waits, and for how
    long, then goes on and uses the cache; nothing advises removing it."""
    import threading
    cache = toy_env / "c.sqlite3"
    ParseCache(cache).close()
    monkeypatch.setattr(cache_module, "LOCK_NOTICE", 0.1)
    monkeypatch.setattr(cache_module, "LOCK_TIMEOUT", 30.0)
    holder = sqlite3.connect(cache, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.6, lambda: holder.execute("ROLLBACK"))
    release.start()
    try:
        r = _score(toy_env, cache)
    finally:
        release.join()
        holder.close()
    assert r.exit_code == 0, r.output
    assert (f"semsim: {cache}: the parse cache is locked by another process; waiting up to 30 s for it "
            "(--no-cache runs without it)") in r.stderr
    assert "remove" not in r.stderr
    with ParseCache(cache) as c:
        assert c.stats()["entries"] == 4  # stored once the lock was released


def _read_only_cache(toy_env, monkeypatch):
    """A complete cache that SQLite cannot open for writing, as on a read-only file system:
    every connection that is not ``?mode=ro`` / ``?immutable=1`` fails as SQLite fails there
    (root writes through file modes, so a real read-only mount is tried by the next test)."""
    cache = toy_env / "c.sqlite3"
    clean = _score(toy_env, cache)
    assert clean.exit_code == 0, clean.output
    real = sqlite3.connect

    def connect(database, *args, **kwargs):
        if not str(database).startswith("file:"):
            raise sqlite3.OperationalError("unable to open database file")
        return real(database, *args, **kwargs)

    monkeypatch.setattr(cache_module.sqlite3, "connect", connect)
    return cache, clean


def test_a_complete_cache_that_cannot_be_written_is_read(toy_env, monkeypatch):
    cache, clean = _read_only_cache(toy_env, monkeypatch)
    log = toy_env / "parsed.log"
    r = _score(toy_env, cache, log, monkeypatch)
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == json.loads(clean.stdout)
    assert not log.exists()  # every parse served from the cache
    assert "cannot be written (unable to open database file); reading its parses, storing no new ones" in r.stderr
    assert "remove" not in r.stderr
    assert "nothing was removed" in run_cli("cache", "clear", "--cache", cache).output


def test_a_complete_cache_on_a_read_only_mount_is_read(toy_env, tmp_path):
    """The real thing where this process may bind-mount (root in a container); skipped elsewhere."""
    import os
    import subprocess
    cache = toy_env / "c.sqlite3"
    clean = _score(toy_env, cache)
    mount = tmp_path / "ro"
    mount.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "--bind", "-o", "ro", str(toy_env), str(mount)],
                                           capture_output=True).returncode:
        pytest.skip("no read-only bind mount here")
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(mount)], check=True)
        r = _score(toy_env, mount / "c.sqlite3")
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=True)  # lazily: a connection may still be open
    assert r.exit_code == 0 and json.loads(r.stdout) == json.loads(clean.stdout), r.output
    assert "remove" not in r.stderr and "reading its parses" in r.stderr


def test_clear_with_an_empty_parser_name_deletes_nothing(toy_env):
    """``--parser ''`` once read as "every parser" (#56: data loss)."""
    cache = toy_env / "c.sqlite3"
    assert _score(toy_env, cache).exit_code == 0
    r = run_cli("cache", "clear", "--cache", cache, "--parser", "")
    assert r.exit_code == 1 and r.output.strip() == ("Error: --parser '': an empty parser name; leave --parser out "
                                                     "to clear every parser's parses")
    with ParseCache(cache) as c:
        assert c.stats()["entries"] == 4
