"""A parse cache: every unique sentence is parsed once, across runs, systems and processes.

An SQLite database (standard library) keyed by representation, parser, model identity (a
content hash of the model) and whitespace-normalised text; it stores the parser's native
output (when the parser can serialise it) and the generic graph as JSON. WAL mode lets
several processes read and write at once; every batch is one transaction, so a run killed
mid-way (even ``kill -9``) leaves a consistent database and the next run resumes, parsing
only what is missing.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager, closing, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ..kernel.errors import SemsimError, option
from ..kernel.files import cache_dir
from ..kernel.graph import Graph
from ..kernel.graph_json import GRAPH_FORMAT, graph_from_dict, graph_to_dict
from ..kernel.records import Parser
from .plugins import parser_answer, plugin_code_version

T = TypeVar("T")
SCHEMA = 1
#: the columns of the ``parses`` table this code reads and writes
COLUMNS = ("key", "representation", "parser", "model", "text", "native", "graph", "created", "hits")
#: seconds to wait for another process's write lock before giving up (one line, not a hang)
LOCK_TIMEOUT = 60.0
#: seconds a lock may hold a run up before semsim says that it waits, and for how long
LOCK_NOTICE = 1.0


def model_key(parser: Parser, model: str | None) -> str:
    """The cache's model key: the model's content and the code that turned its output into
    graphs (a Dask worker checks that its own is the driver's)."""
    identity = parser_answer(parser, "model_identity", model, (str,)) if parser.model_identity else model
    return f"{identity}|{parser.plugin}-{plugin_code_version(parser.plugin)}|graph-{GRAPH_FORMAT}"


def _locked(exc: sqlite3.DatabaseError) -> bool:
    return "locked" in str(exc) or "busy" in str(exc)


def _other_cache() -> str:
    """Another cache, or none, as the user says it where the error is read."""
    return f"{option('cache', 'PATH')} (or {'--no-cache' if option('cache').startswith('--') else 'cache=False'})"


def normalise(text: str) -> str:
    """The cache's view of a sentence: whitespace runs collapsed, ends stripped."""
    return " ".join(text.split())


def default_path() -> Path:
    """The cache file when none is named: ``parses.sqlite3`` in :func:`~semsim.kernel.files.cache_dir`."""
    return cache_dir() / "parses.sqlite3"


@dataclass(frozen=True)
class Entry:
    native: str | None
    graph: Graph


class ParseCache:
    """Parses by (representation, parser, model, text). Safe for concurrent processes."""

    def __init__(self, path: str | os.PathLike[str] | None = None):
        self.path = Path(path) if path is not None else default_path()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SemsimError(f"{self.path.parent}: cannot create the cache directory ({exc.strerror or exc}); "
                              "set SEMSIM_CACHE_DIR or --cache to another place") from None
        self.read_only = False
        try:
            self._db = sqlite3.connect(self.path, timeout=min(LOCK_NOTICE, LOCK_TIMEOUT), isolation_level=None)
            schema = self._patiently(self._set_up)
        except sqlite3.DatabaseError as exc:
            schema = self._open_read_only(exc)
        self._refuse_other_columns()
        if schema != str(SCHEMA):
            raise SemsimError(f"{self.path}: cache schema {schema}, this semsim uses {SCHEMA}; "
                              "clear it with `semsim cache clear`")

    def _set_up(self) -> str:
        """Open for writing: refuse another program's database, switch to WAL, create the
        tables if new; the schema version."""
        self._refuse_foreign()
        self._wal()
        self._db.execute("PRAGMA synchronous=NORMAL")
        with self._transaction() as db:
            db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA),))
            db.execute("""CREATE TABLE IF NOT EXISTS parses (
                key TEXT PRIMARY KEY, representation TEXT, parser TEXT, model TEXT, text TEXT,
                native TEXT, graph TEXT, created REAL, hits INTEGER DEFAULT 0)""")
        (schema,) = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        return str(schema)

    def _open_read_only(self, exc: sqlite3.DatabaseError) -> str:
        """A cache that cannot be opened for writing (a read-only file, or a read-only file
        system, where SQLite cannot even make the WAL's shared-memory file) is still read:
        its parses serve, new ones are not stored, and it is never called unusable. Only a
        file that exists is opened so; ``immutable`` only where ``mode=ro`` cannot open it
        (nothing can write on a read-only file system)."""
        why = str(exc)
        if hasattr(self, "_db"):  # connected, then refused at the first statement
            self._db.close()
        if not self.path.is_file() or not ("unable to open" in why or "readonly" in why or "read-only" in why):
            raise self._unusable(exc) from None
        from urllib.parse import quote
        for mode in ("mode=ro", "immutable=1"):
            self._db = sqlite3.connect(f"file:{quote(str(self.path.resolve()))}?{mode}", uri=True,
                                       timeout=LOCK_TIMEOUT, isolation_level=None)
            try:
                self._refuse_foreign()
                (schema,) = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
                break
            except (sqlite3.DatabaseError, TypeError):  # TypeError: no schema row
                self._db.close()
        else:
            raise self._unusable(exc) from None
        self.read_only = True
        print(f"semsim: {self.path}: the parse cache cannot be written ({why}); reading its parses, storing no new "
              "ones", file=sys.stderr)
        return str(schema)

    def _patiently(self, action: Callable[[], T]) -> T:
        """``action``, waiting for another process's write lock: said at once on stderr
        (after :data:`LOCK_NOTICE` s), then waited for up to :data:`LOCK_TIMEOUT` s in all,
        then one line. A lock is never a reason to remove a cache."""
        try:
            return action()
        except sqlite3.OperationalError as exc:
            if not _locked(exc) or LOCK_TIMEOUT <= LOCK_NOTICE:
                raise
        print(f"semsim: {self.path}: the parse cache is locked by another process; waiting up to {LOCK_TIMEOUT:g} s "
              "for it (--no-cache runs without it)", file=sys.stderr, flush=True)
        self._db.execute(f"PRAGMA busy_timeout = {round((LOCK_TIMEOUT - LOCK_NOTICE) * 1000)}")
        try:
            return action()
        finally:
            with suppress(sqlite3.ProgrammingError):  # closed by a refusal
                self._db.execute(f"PRAGMA busy_timeout = {round(LOCK_NOTICE * 1000)}")

    def _refuse_foreign(self) -> None:
        """Refuse a database that is not a semsim cache before anything is written to it:
        ``semsim cache clear --cache other.sqlite`` must not delete another program's rows,
        nor ``cache info`` add tables to its file."""
        tables = {name for (name,) in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if tables and not (tables <= {"meta", "parses"} and "meta" in tables):
            self._db.close()
            raise SemsimError(f"{self.path}: not a semsim parse cache (its tables: {', '.join(sorted(tables))}); "
                              "refusing to change it: choose another file with --cache")

    def _unusable(self, exc: sqlite3.DatabaseError) -> SemsimError:
        """What to tell the user about a database error, by its cause: a lock held too long,
        a read-only file, a full disk, or a file that is no semsim cache."""
        why = str(exc)
        if _locked(exc):
            return SemsimError(f"{self.path}: the parse cache stayed locked by another process for more than "
                               f"{LOCK_TIMEOUT:g} s; run again when it is done, or use another {_other_cache()}")
        if "readonly" in why or "read-only" in why:
            return SemsimError(f"{self.path}: the parse cache is read-only ({why}); make it writable, or use "
                               f"another {_other_cache()}")
        if "full" in why:
            return SemsimError(f"{self.path}: cannot write the parse cache ({why}); free space, or use another "
                               f"{_other_cache()}")
        return SemsimError(f"{self.path}: not a usable semsim cache ({why}); remove it or choose another with "
                           f"{option('cache', 'PATH')}")

    def _refuse_other_columns(self) -> None:
        """A ``parses`` table of another program's (or an older layout's) columns is not ours:
        one line, rather than "no such column" at the first lookup."""
        have = {row[1] for row in self._db.execute("PRAGMA table_info(parses)")}
        missing = sorted(set(COLUMNS) - have)
        if missing:
            self._db.close()
            raise SemsimError(f"{self.path}: not a semsim parse cache (its table 'parses' has no column "
                              f"{', '.join(missing)}); choose another file with --cache")

    def _wal(self, patience: float = 60.0) -> None:
        """Switch to WAL mode. Processes that create the file at the same time can deadlock on
        the switch, and SQLite then answers "database is locked" at once, without waiting for
        the busy timeout: wait and try again (WAL mode persists, so later opens are no-ops)."""
        deadline = time.monotonic() + patience
        while True:
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def _transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        db, patiently = self._db, self._patiently

        class _Tx:
            def __enter__(self) -> sqlite3.Connection:
                patiently(lambda: db.execute("BEGIN IMMEDIATE"))
                return db

            def __exit__(self, exc_type: type[BaseException] | None, *_: object) -> None:
                if not exc_type:
                    try:
                        db.execute("COMMIT")
                        return
                    except sqlite3.DatabaseError:  # a full disk at the commit: nothing of it is kept
                        if db.in_transaction:
                            db.execute("ROLLBACK")
                        raise
                if db.in_transaction:  # SQLite rolls back by itself on some errors (a full disk)
                    db.execute("ROLLBACK")
        return _Tx()

    @staticmethod
    def key(representation: str, parser: str, model: str, text: str) -> str:
        raw = "\x1f".join((representation, parser, model, normalise(text)))
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()

    def get_many(self, representation: str, parser: str, model: str, texts: Iterable[str]) -> dict[str, Entry]:
        """Cached entries for those of ``texts`` that are cached (counting a hit for each)."""
        keys = {self.key(representation, parser, model, t): t for t in texts}
        found: dict[str, Entry] = {}
        items = list(keys)
        for i in range(0, len(items), 500):
            chunk = items[i:i + 500]
            marks = ",".join("?" * len(chunk))
            try:
                rows = self._db.execute(f"SELECT key, text, native, graph FROM parses WHERE key IN ({marks})",
                                        chunk).fetchall()
            except sqlite3.DatabaseError as exc:
                raise self._unusable(exc) from None
            for key, text, native, graph in rows:
                try:
                    stored = json.loads(graph)
                    # a row moved or edited (its key, text or graph another sentence's) serves no graph;
                    # every row semsim writes names its sentence, so one that does not is not trusted
                    if normalise(keys[key]) != text or stored.get("sentence") != text:
                        continue
                    found[keys[key]] = Entry(native, graph_from_dict(stored))
                except (ValueError, KeyError, TypeError, AttributeError, RecursionError, SemsimError):
                    continue  # a damaged or foreign row (nested past Python's stack, no valid graph): parse again
        if found and not self.read_only:
            hit = [self.key(representation, parser, model, t) for t in found]
            try:
                with self._transaction() as db:
                    db.executemany("UPDATE parses SET hits = hits + 1 WHERE key = ?", [(k,) for k in hit])
            except sqlite3.DatabaseError:  # a count of hits is not worth failing a run over (locked, full)
                pass
        return found

    def put_many(self, representation: str, parser: str, model: str,
                 items: Sequence[tuple[str, str | None, Graph]]) -> None:
        """Store parses, all or none (one transaction), replacing any row of the same key
        (the same parse, or a damaged row being healed)."""
        if self.read_only:
            return
        now = time.time()
        # each graph names its sentence, so that a row whose graph is another's is found out
        rows = [(self.key(representation, parser, model, text), representation, parser, model, normalise(text),
                 native, json.dumps({**graph_to_dict(graph), "sentence": normalise(text)}, separators=(",", ":")), now)
                for text, native, graph in items]
        try:
            with self._transaction() as db:
                db.executemany("INSERT OR REPLACE INTO parses (key, representation, parser, model, text, native, "
                               "graph, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        except sqlite3.DatabaseError as exc:  # a full disk, a lost mount, a lock: this batch rolled back, the rest kept
            if _locked(exc):
                raise self._unusable(exc) from None
            raise SemsimError(f"{self.path}: cannot store parses ({exc}); the parses stored before are kept: free "
                              "space, or choose another cache with --cache or --no-cache") from None

    def stats(self) -> dict[str, Any]:
        groups = [{"representation": r, "parser": p, "model": m, "entries": n, "hits": h or 0}
                  for r, p, m, n, h in self._db.execute(
                      "SELECT representation, parser, model, COUNT(*), SUM(hits) FROM parses "
                      "GROUP BY representation, parser, model ORDER BY representation, parser, model")]
        size = sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file())
        return {"path": str(self.path), "bytes": size, "entries": sum(g["entries"] for g in groups),
                "hits": sum(g["hits"] for g in groups), "groups": groups}

    def clear(self, parser: str | None = None) -> int:
        """Delete every parse, or only ``parser``'s (``None``: all; an empty name is refused,
        where a truth test would have read it as "all" and deleted everything)."""
        if parser is not None and not parser.strip():
            raise SemsimError(f"--parser {parser!r}: an empty parser name; leave --parser out to clear every "
                              "parser's parses")
        if self.read_only:
            raise SemsimError(f"{self.path}: the parse cache cannot be written; nothing was removed")
        with self._transaction() as db:
            cur = db.execute("DELETE FROM parses" + (" WHERE parser = ?" if parser is not None else ""),
                             (parser,) if parser is not None else ())
            n = cur.rowcount
        with closing(self._db.cursor()) as c:
            c.execute("VACUUM")
        return n

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ParseCache:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
