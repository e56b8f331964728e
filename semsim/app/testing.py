"""Fuzzing helpers for readers, semsim's own and plugins' (needs ``pytest`` and ``hypothesis``:
the ``kit`` extra, ``pip install "semsim[kit]"``).

semsim's promise on bad input is that every reader either returns graphs or refuses with
a :class:`~semsim.kernel.errors.SemsimError` naming the file and line; never another exception
and never a crash. :func:`check_reader` states that as a property; the strategies feed it
arbitrary bytes (:func:`any_bytes`) and mutations of valid files (:func:`mutated`,
:func:`json_mutated`), so that a plugin's tests can fuzz its reader in three lines::

    from hypothesis import given
    from semsim.app.testing import check_reader, fuzz_settings, mutated

    @fuzz_settings()
    @given(data=mutated([VALID_FILE.read_bytes()]))
    def test_reader_never_crashes(tmp_path_factory, data):
        check_reader(tmp_path_factory.mktemp("fuzz") / "x.amr", data, "penman")

and :func:`check_command` runs a ``semsim`` command on such input the same way.

The number of examples comes from ``SEMSIM_FUZZ_EXAMPLES`` (CI runs a fixed, derandomised
budget, 50 a test: the fuzz tests were a quarter of the suite's time at 100; ``benchmarks/fuzz.py``
runs long, random ones).

**The conformance kit.** :func:`conformance_tests` gives a plugin's test module, in one line,
the tests of what every plugin must hold (docs/plugins.md, "The conformance kit")::

    from semsim.app.testing import conformance_tests

    TestConformance = conformance_tests("deps", examples=["a.conllu", "b.conllu"],
                                        sentences=["He gave an apple to John ."])

``pytest`` then runs, against the plugin as installed (or named in ``SEMSIM_PLUGINS``, or
``inline=True``), the properties semsim's routes rely on:

* ``test_self_scores_one``: every graph of every example scores exactly 1.0 against itself,
  under USim, DAG F-score and each metric the plugin registers for its representation;
* ``test_mrp_round_trip``: MRP as ``semsim parse`` writes it gives every graph back, field
  for field (token punctuation, unit kinds, ids and labels, edges, the scheme);
* ``test_writer_round_trip``: each writer the plugin registers, read back by its reader,
  gives the graphs back, up to unit ids and order (``differences(..., ids=False)``);
* ``test_signature_names_the_plugin``: the plugin registered the scheme its graphs carry, and
  scores name it (``scheme:NAME@HASH|plugin:...``);
* ``test_reader_refuses_bad_bytes``: mutations of the example files are read, or refused with
  one semsim error naming the file (and, for one graph, the line), within time and memory
  bounds (:func:`check_reader`; marked ``slow``, as every fuzz test);
* ``test_reader_checks_its_numbers``: every number of each example moved just out of place
  (:func:`check_numbers`: one past, doubled, 0...) is read or refused so too (``slow``);
* with ``sentences``: ``test_parser_is_deterministic`` (the same graphs twice, and whatever
  the batch), ``test_parsed_graphs_survive_every_route`` (from ``semsim parse``'s MRP and the
  plugin's writers, and through the parse cache), and ``test_jobs_agree`` (worker processes
  give the same graphs; marked ``slow``: it starts two interpreters).

Each failure says what differs (:func:`differences`), e.g. ``token 3 '..n.01': punct True,
read back False``. ``semsim plugins check NAME`` runs the same tests from the command line.

**As a pytest plugin** (``pytest_plugins = ["semsim.app.testing"]`` in a ``conftest.py``): the
fixtures :func:`semsim_run` (a ``semsim`` command in the test's process), :func:`semsim_plugins`
(plugins loaded for one test) and :func:`semsim_cache` (a parse cache of the test's own).
"""

from __future__ import annotations

import json
import os
import pickle
import re
import signal
import sys
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

try:
    import pytest
    from hypothesis import HealthCheck, settings
    from hypothesis import strategies as st
except ModuleNotFoundError as exc:  # the kit's libraries are an extra, not semsim's dependencies
    raise ModuleNotFoundError(f"semsim's conformance kit (semsim.app.testing) needs pytest and hypothesis, and "
                              f"{exc.name!r} is not installed: pip install \"semsim[kit]\"", name=exc.name) from None

from ..kernel.errors import InputError, SemsimError
from ..kernel.files import checked_sentences
from ..kernel.graph import Graph
from ..kernel.graph_json import graph_to_dict
from . import _forkserver
from .reading import iter_graphs

T = TypeVar("T")

#: Fragments that break formats in interesting ways: brackets and quotes of PENMAN, JSON
#: and XML, numbers at the edges, control and non-UTF-8 bytes, line breaks, and the
#: markers of PENMAN metadata, M2 lines and UCCA XML elements; then what issue #23 found:
#: lone surrogates (JSON escapes, and their bytes), byte-order marks, every line separator
#: Unicode has, remote and terminal edges of UCCA XML, a huge token (300,000 characters,
#: beyond the edit-distance bound when a file is paired with itself) and deep nesting.
FRAGMENTS = (
    b"(", b")", b'"', b"\\", b"{", b"}", b"[", b"]", b",", b":", b"/", b"~e.1", b"-1", b"0", b"99999999",
    b"1e308", b"null", b"true", b"\x00", b"\x0c", b"\xff", b"\xc3", b"\r\n", b"\n", b"\n\n", b"# ::id ",
    b"# ::snt ", b":ARG0", b":ARG0-of", b"<", b">", b"/>", b"</node>", b'<edge toID="1.1" type="A">', b"&",
    b"S ", b"A 0 1|||R:OTHER|||x|||REQUIRED|||-NONE-|||0", b"|||", b'"from": 5', b'"to": 0', b'"anchors"',
    b'"\\ud800"', b"\\udfff", b"\xed\xa0\x80", b"\xef\xbb\xbf", b"\xff\xfe", b"\r", "\u2028".encode(),
    "\u2029".encode(), "\u0085".encode(), b"\x1c", b'<attributes remote="True"/>',
    b'<edge toID="0.1" type="Terminal"><attributes/></edge>', b"w" * 300_000, b"(a / b :r " * 250,
    b"<node><edge>" * 300,
)


def fuzz_settings(examples: int = 50) -> Callable[[Any], Any]:
    """Hypothesis settings for a fuzz test: ``SEMSIM_FUZZ_EXAMPLES`` examples (``examples``
    if unset), derandomised unless ``SEMSIM_FUZZ_RANDOM=1``, no deadline (a slow example is
    not a failure here; ``benchmarks/fuzz.py`` measures speed)."""
    n = int(os.environ.get("SEMSIM_FUZZ_EXAMPLES") or examples)
    return settings(max_examples=n, deadline=None, derandomize=os.environ.get("SEMSIM_FUZZ_RANDOM") != "1",
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture], database=None)


def any_bytes(max_size: int = 2000) -> st.SearchStrategy[bytes]:
    """Arbitrary bytes, half of them made of :data:`FRAGMENTS` (closer to real syntax)."""
    return st.one_of(st.binary(max_size=max_size),
                     st.lists(st.sampled_from(FRAGMENTS) | st.binary(max_size=3), max_size=60).map(b"".join))


_WORD = re.compile(rb"[\w.-]+")
_NUMBER = re.compile(rb"\d{1,9}")


@st.composite
def mutated(draw: st.DrawFn, seeds: Sequence[bytes], max_edits: int = 4) -> bytes:
    """A valid file (one of ``seeds``) with 1 to ``max_edits`` byte-level edits: a span
    deleted, duplicated or replaced by a fragment, a fragment inserted, the file cut short,
    or a word (an id, a number, a label) replaced by another word of the file, which keeps
    the syntax and changes what refers to what (the edits that make cycles, self-loops and
    spans out of range), or a number moved just past where it was (by one or two, doubled,
    to 0, or ten times and more): the edits that find a missing bounds check, an index or
    span end one past the last, at a few dozen examples."""
    data = bytearray(draw(st.sampled_from(list(seeds))))
    for _ in range(draw(st.integers(1, max_edits))):
        i = draw(st.integers(0, len(data)))
        j = draw(st.integers(i, min(len(data), i + 40)))
        op = draw(st.sampled_from(("delete", "duplicate", "replace", "insert", "truncate", "reuse", "reuse", "number",
                                   "number")))
        piece = draw(st.sampled_from(FRAGMENTS) | st.binary(min_size=1, max_size=3))
        if op == "number":
            numbers = list(_NUMBER.finditer(data))
            if numbers:
                n = draw(st.sampled_from(numbers))
                data[n.start():n.end()] = _moved(draw, int(n.group()))
        elif op == "reuse":
            words = list(_WORD.finditer(data))
            if words:
                a, b = draw(st.sampled_from(words)), draw(st.sampled_from(words))
                data[a.start():a.end()] = b.group()
        elif op == "delete":
            del data[i:j]
        elif op == "duplicate":
            data[j:j] = data[i:j]
        elif op == "replace":
            data[i:j] = piece
        elif op == "insert":
            data[i:i] = piece
        else:
            del data[i:]
    return bytes(data)


@st.composite
def renumbered(draw: st.DrawFn, seeds: Sequence[bytes]) -> bytes:
    """A valid file (one of ``seeds``) with one number moved just out of where it was (by one or
    two, doubled, to 0, or ten times and more) and nothing else changed: the file still parses,
    so only a reader's bounds checks (an index one past the last, a span that ends beyond its
    sentence) stand between the number and a crash. :func:`mutated` makes the same edit among
    others, which often break the syntax first."""
    data = bytearray(draw(st.sampled_from(list(seeds))))
    numbers = list(_NUMBER.finditer(data))
    if numbers:
        n = draw(st.sampled_from(numbers))
        data[n.start():n.end()] = _moved(draw, int(n.group()))
    return bytes(data)


def moves(value: int) -> list[int]:
    """Where :func:`renumbered` moves a number: one or two past it, one before, doubled, to 0,
    ten times and more (each once, never negative, never the number itself)."""
    return [v for v in dict.fromkeys([value + 1, value + 2, value - 1, 2 * value + 1, 0, 10 * value + 9])
            if v >= 0 and v != value]


def _moved(draw: st.DrawFn, value: int) -> bytes:
    return str(draw(st.sampled_from(moves(value)))).encode()


#: How many edited files :func:`check_numbers` reads of one example at most (spread evenly over its edits).
MAX_RENUMBERED = 300


def check_numbers(path: Path, target: Path, limit: int = MAX_RENUMBERED) -> int:
    """Read, as :func:`check_reader` does, every edit of the file ``path`` that moves one of its
    numbers as :func:`renumbered` would (each number, each move; at most ``limit`` edits, spread
    evenly), written to ``target``: the systematic twin of the random fuzzing, which finds a
    missing bounds check whatever the seed. The first edit read badly fails, naming the line it
    changed and how. Run it within :func:`bounded` (the kit does). Returns how many were read."""
    data = path.read_bytes()
    edits = [(m, v) for m in _NUMBER.finditer(data) for v in moves(int(m.group()))]
    chosen = edits[::max(1, -(-len(edits) // limit))]
    for m, v in chosen:
        target.write_bytes(data[:m.start()] + str(v).encode() + data[m.end():])
        try:
            _read_all(target, None)
        except AssertionError as exc:
            line = data.count(b"\n", 0, m.start()) + 1
            raise AssertionError(f"{path.name}:{line}: {m.group().decode()} changed to {v}: {exc}") from None
    return len(chosen)


# No subnormal floats: a library loaded earlier in the process (torch) may have set
# flush-to-zero, under which Hypothesis cannot draw them.
_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 10**9) | st.floats(allow_nan=False, allow_subnormal=False)
    | st.text(max_size=5) | st.sampled_from(["\ud800", "x\udfffy", "a\u2028b", "\ufeff"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(
        ["id", "from", "to", "label", "source", "target", "anchors", "nodes", "edges", "tops", "input",
         "properties", "values", "framework"]), inner, max_size=3),
    max_leaves=6)


@st.composite
def json_mutated(draw: st.DrawFn, seeds: Sequence[bytes], max_edits: int = 3) -> bytes:
    """A JSON Lines file (one of ``seeds``) whose objects are valid JSON but altered: a value
    anywhere replaced by another JSON value, a key deleted, a list emptied or an item
    duplicated; what a JSON parser accepts and only the reader's checks can refuse."""
    lines = [json.loads(line) for line in draw(st.sampled_from(list(seeds))).decode("utf-8").splitlines()
             if line.strip()]
    for _ in range(draw(st.integers(1, max_edits))):
        k = draw(st.integers(0, len(lines) - 1))
        lines[k] = _mutate_json(draw, lines[k])
    return b"".join(_json_line(x) for x in lines)


def _json_line(x: Any) -> bytes:
    """One JSON Lines line: UTF-8, or with ASCII escapes where a lone surrogate has no UTF-8."""
    try:
        return (json.dumps(x, ensure_ascii=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(x) + "\n").encode("ascii")


def _mutate_json(draw: st.DrawFn, obj: Any) -> Any:
    """One random edit somewhere inside ``obj`` (a copy is returned)."""
    if isinstance(obj, dict) and obj and draw(st.integers(0, 2)):
        key = draw(st.sampled_from(sorted(obj)))
        out = dict(obj)
        if draw(st.integers(0, 4)) == 0:
            del out[key]
        else:
            out[key] = _mutate_json(draw, obj[key])
        return out
    if isinstance(obj, list) and obj and draw(st.integers(0, 2)):
        i = draw(st.integers(0, len(obj) - 1))
        items = list(obj)
        action = draw(st.integers(0, 5))
        if action == 0:
            items.insert(i, obj[i])
        elif action == 1:
            del items[i]
        else:
            items[i] = _mutate_json(draw, obj[i])
        return items
    return draw(_JSON_VALUES)


def bounded(fn: Callable[..., T], *args: Any, seconds: float | None = None, megabytes: int | None = None) -> T:
    """``fn(*args)`` in a child process held to ``seconds`` of CPU time and ``megabytes`` of
    memory beyond what it starts with (``SEMSIM_FUZZ_SECONDS``, default 10, and
    ``SEMSIM_FUZZ_MEGABYTES``, default 1,000): what it returns or raises comes back here, and
    exceeding either limit is an ``AssertionError``. So a hang or a blow-up on some input
    fails a property like a traceback does, without a timed assertion: CPU time, not wall
    time, so a busy machine does not fail it.

    The child is forked from a lean server process (one per test process, started on first
    use), not from this one: a fork costs time in proportion to the memory of the process
    forked (0.055 ms a MB here), and a test process that has loaded parsers holds gigabytes
    (117 ms a fork at 2 GB; the fuzz tests fork thousands of times). The child gets this
    process's environment variables, working directory and ``sys.path``, so it sees the
    plugins they register (``SEMSIM_PLUGINS``), but not objects set in this process's
    memory; ``fn`` and ``args`` are pickled, so ``fn`` must be importable by name. The server
    then imports what each child imported (semsim imports scipy and plugins' libraries on
    first use: 1.5 s a ``compare`` child otherwise), so a check costs milliseconds, not an
    interpreter start."""
    seconds = seconds or float(os.environ.get("SEMSIM_FUZZ_SECONDS") or 10)
    megabytes = megabytes or int(os.environ.get("SEMSIM_FUZZ_MEGABYTES") or 1000)
    context = {"env": dict(os.environ), "cwd": os.getcwd(), "path": [str(p) for p in sys.path], "seconds": seconds,
               "megabytes": megabytes}
    wait_status, payload = _forkserver.server().run(json.dumps(context).encode(), pickle.dumps((fn, args)))
    what = f"{getattr(fn, '__name__', fn)}{tuple(args)!r:.200}"
    if os.WIFSIGNALED(wait_status):
        signal_number = os.WTERMSIG(wait_status)
        assert signal_number not in (signal.SIGXCPU, signal.SIGKILL), f"{what}: more than {seconds:g} s of CPU time"
        raise AssertionError(f"{what}: killed by signal {signal_number}")
    assert payload, f"{what}: the child exited with status {os.waitstatus_to_exitcode(wait_status)}"
    kind, value = pickle.loads(payload)
    assert kind != "memory", f"{what}: more than {megabytes:,} MB of memory"
    if kind == "raised":
        exc, trace = value
        if isinstance(exc, AssertionError | SemsimError):
            raise exc
        raise AssertionError(f"{what} raised in the child:\n{trace}")
    return value


def check_reader(path: Path, data: bytes, format: str | None = None) -> list[Graph | SemsimError]:
    """Write ``data`` to ``path`` and read every graph in it through the registered reader
    (``format``, else by suffix) as the CLI does, within :func:`bounded`'s time and memory:
    the outcome must be graphs, per-graph errors naming the file and line, or an error about
    the file naming it; anything else fails (a bug): an exception in the reader (which semsim
    reports as the plugin's fault), or an error that names no file or, for one graph, no line
    (a graph the reader built without checking it, refused by ``Graph`` itself). Returns what
    was read, so that a test can check more."""
    path.write_bytes(data)
    return bounded(_read_all, path, format)


def _read_all(path: Path, format: str | None) -> list[Graph | SemsimError]:
    from ..kernel.errors import InputError, PluginError
    try:
        out: list[Graph | SemsimError] = list(iter_graphs(path, format, errors="yield"))
    except PluginError as exc:  # the reader's own code raised: a crash, not a refusal
        raise AssertionError(f"{exc}\n{_cause(exc)}") from None
    except SemsimError as exc:
        assert isinstance(exc, InputError) and exc.path is not None, \
            f"the reader refused the file with an error naming no file: {type(exc).__name__}: {exc}"
        return [exc]
    for g in out:
        assert isinstance(g, Graph | InputError), f"reader yielded {type(g).__name__}"
        assert not isinstance(g, InputError) or (g.path is not None and g.line is not None), \
            f"the reader yielded an error naming no {'line' if g.path else 'file'}: {g} (check what the file " \
            "says before building a graph of it, and yield an InputError naming the file and line)"
    return out


def _cause(exc: BaseException) -> str:
    """The traceback of what caused ``exc`` (a plugin's exception), for the failure's message."""
    import traceback
    cause = exc.__cause__
    return "".join(traceback.format_exception(cause)) if cause is not None else ""


@dataclass(frozen=True)
class CommandResult:
    """What a ``semsim`` run gave: exit status and output (stdout, then stderr)."""

    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def check_command(args: Sequence[str]) -> CommandResult:
    """Run ``semsim ARGS`` (click's test runner, in a :func:`bounded` child) and check the
    CLI's side of the promise: exit 0, or exit 1 with click's one-line error, within the
    time and memory bounds; any other exception (a traceback) fails the test."""
    return bounded(_run_command, list(args))


def _run_command(args: list[str]) -> CommandResult:
    from click.testing import CliRunner

    from .cli import cli
    result = CliRunner().invoke(cli, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        f"{args}: {type(result.exception).__name__}: {result.exception}"
    assert result.exit_code in (0, 1), (args, result.exit_code, result.output)
    assert "Traceback" not in result.output
    return CommandResult(result.exit_code, result.stdout, result.stderr)


# -- the conformance kit ------------------------------------------------------------------------------
def differences(expected: Graph, actual: Graph, limit: int = 5, *, ids: bool = True,
                then: str = "read back") -> list[str]:
    """What differs between two graphs beyond their names and metadata (where they were read):
    at most ``limit`` lines, each naming the token, unit or field. Empty: the same graph.

    With ``ids=False``, units are compared by what they are, not by their ids or order (a
    native format may number its nodes its own way): each unit by its kind, label, whether it
    is implicit, its anchors and its yield, each edge by those of its ends. ``then`` says what
    ``actual`` is in the lines (``token 3 'x': punct True, read back False``)."""
    if not ids:
        return _structural_differences(expected, actual, limit, then)
    a, b = graph_to_dict(expected), graph_to_dict(actual)
    out: list[str] = []
    for key in ("tokens", "units"):
        if len(a[key]) != len(b[key]):
            out.append(f"{len(a[key])} {key}, {then} {len(b[key])}")
            continue
        fields = ("text", "punct", "paragraph", "para_pos") if key == "tokens" else \
            ("id", "kind", "anchors", "implicit", "label")
        for i, (x, y) in enumerate(zip(a[key], b[key])):
            out += [f"{key[:-1]} {i} {x[0]!r}: {f} {v!r}, {then} {w!r}"
                    for f, v, w in zip(fields, x, y) if v != w]
    for key in ("edges", "root", "sentence_ends", "scheme"):
        if a[key] != b[key]:
            shown = ([e for e in a[key] if e not in b[key]][:2], [e for e in b[key] if e not in a[key]][:2]) \
                if key == "edges" else (a[key], b[key])
            out.append(f"{key}: {shown[0]!r:.200}, {then} {shown[1]!r:.200}")
    return out[:limit]


def _structural_differences(expected: Graph, actual: Graph, limit: int, then: str) -> list[str]:
    """:func:`differences` up to unit ids and order."""
    from collections import Counter

    def form(g: Graph) -> dict[str, Any]:
        units = [(u.kind, u.label, u.implicit, tuple(sorted(u.anchors)), tuple(sorted(g.yields[i])))
                 for i, u in enumerate(g.units)]
        d = graph_to_dict(g)
        return {"tokens": d["tokens"], "units": Counter(units), "root": units[g.root] if units else None,
                "edges": Counter((units[e.parent], units[e.child], e.labels, e.remote) for e in g.edges),
                "sentence_ends": d["sentence_ends"], "scheme": d["scheme"]}

    a, b = form(expected), form(actual)
    out = [f"token {i} {x[0]!r}: {f} {v!r}, {then} {w!r}" for i, (x, y) in enumerate(zip(a["tokens"], b["tokens"]))
           for f, v, w in zip(("text", "punct", "paragraph", "para_pos"), x, y) if v != w]
    if len(a["tokens"]) != len(b["tokens"]):
        out.append(f"{len(a['tokens'])} tokens, {then} {len(b['tokens'])}")
    for key in ("units", "edges"):
        missing, extra = list((a[key] - b[key]).elements()), list((b[key] - a[key]).elements())
        if missing or extra:
            out.append(f"{key} (kind, label, implicit, anchors, yield): {missing[:2]!r:.200} not {then}; "
                       f"{then} instead {extra[:2]!r:.200}")
    out += [f"{key}: {a[key]!r:.200}, {then} {b[key]!r:.200}" for key in ("root", "sentence_ends", "scheme")
            if a[key] != b[key]]
    return out[:limit]


def _same(expected: Sequence[Graph], actual: Sequence[Graph], route: str, ids: bool = True,
          then: str = "read back") -> None:
    assert len(actual) == len(expected), f"{route}: {len(expected)} graphs, {then} {len(actual)}"
    for k, (g, h) in enumerate(zip(expected, actual)):
        diff = differences(g, h, ids=ids, then=then)
        assert not diff, f"{route}: graph {k + 1} ({g.id or 'unnamed'}) differs:\n  " + "\n  ".join(diff)


def _example_files(examples: Any) -> list[Path]:
    """The kit's example files, each an existing file, checked where they are given: one
    string is refused (its characters were taken for files: ``IsADirectoryError: '/'``),
    and a missing or unreadable file is named by its position."""
    if isinstance(examples, (str, bytes, os.PathLike)) or not isinstance(examples, Iterable):
        raise InputError(f"conformance_tests: examples: expected a list of files, not {examples!r:.60}")
    paths = []
    for k, p in enumerate(examples):
        if not isinstance(p, (str, os.PathLike)) or not Path(p).is_file():
            shown = os.fspath(p) if isinstance(p, (str, os.PathLike)) else f"{p!r:.60}"
            raise InputError(f"conformance_tests: examples[{k}]: {shown} is not a file")
        paths.append(Path(p).resolve())
    if not paths:
        raise InputError("conformance_tests: examples: at least one example file is needed")
    return paths


def conformance_tests(plugin: str, examples: Sequence[str | os.PathLike[str]], sentences: Sequence[str] = (), *,
                      parser: str | None = None, inline: bool = False, fuzz_examples: int = 20,
                      skip: Collection[str] | Mapping[str, str] = ()) -> type:
    """A pytest test class of the kit's tests (the module docstring) for ``plugin``: the name it
    is registered under (its entry point's name, or its ``SEMSIM_PLUGINS`` item: a module name
    or a path to a ``.py`` file).

    Args:
        examples: files the plugin's reader reads (relative paths are resolved against the
            working directory now): each graph in them is checked.
        sentences: tokenized sentences for the plugin's parser (none: the parser is not checked).
        parser: which of the plugin's parsers (default: its only one, or its default one).
        inline: load ``plugin`` (a module name or a ``.py`` path) through ``SEMSIM_PLUGINS`` for
            these tests: a plugin not installed (worker processes load it too).
        fuzz_examples: mutated files the reader is given per test run (CI's budget: each costs a fork).
        skip: names of tests to leave out (``"test_writer_round_trip"``...), for a property a
            plugin cannot keep or tests otherwise; a mapping gives each its reason.

    Assign the class to a name starting with ``Test`` in a test module.
    """
    from hypothesis import given

    name = str(Path(plugin).resolve()) if inline and plugin.endswith(".py") else plugin  # as SEMSIM_PLUGINS names it
    paths = _example_files(examples)
    sentences = checked_sentences("conformance_tests: sentences", sentences)
    seeds = [(p.suffix, p.read_bytes()) for p in paths]
    ids = [p.name for p in paths]

    def fuzzed() -> st.SearchStrategy[tuple[str, bytes]]:
        return st.sampled_from(seeds).flatmap(
            lambda seed: (mutated([seed[1]]) | renumbered([seed[1]]) | any_bytes(500)).map(
                lambda data: (seed[0], data)))

    class Conformance:
        """The conformance kit's tests for one plugin (:func:`conformance_tests`)."""

        @pytest.fixture(autouse=True, scope="class")
        @classmethod
        def _plugin_loaded(cls, tmp_path_factory: Any) -> Iterator[None]:
            """The plugin loaded (``inline``: through ``SEMSIM_PLUGINS``), a parse cache of its own."""
            from .plugins import plugin_info, reset_plugin_manager
            with pytest.MonkeyPatch.context() as mp:
                if inline:
                    mp.setenv("SEMSIM_PLUGINS", ",".join(filter(None, [os.environ.get("SEMSIM_PLUGINS"), name])))
                mp.setenv("SEMSIM_CACHE_DIR", str(tmp_path_factory.mktemp("semsim-cache")))
                reset_plugin_manager()
                loaded = [p["name"] for p in plugin_info()]
                if name not in loaded:
                    pytest.fail(f"plugin {plugin!r} is not loaded (loaded: {', '.join(loaded)}): install it "
                                "(pip install -e .), or name it with SEMSIM_PLUGINS or inline=")
                yield
            reset_plugin_manager()

        @pytest.mark.parametrize("path", paths, ids=ids)
        def test_self_scores_one(self, path: Path) -> None:
            from . import usim as api
            from .plugins import metrics
            for g in _graphs(path):
                measures = {"usim": api.usim, "dagf": api.dag_f,
                            **{m.name: m.score for m in metrics().values() if m.representation == g.scheme.name}}
                for name, score in measures.items():
                    f = score(g, g).f
                    assert f == 1.0, f"{path.name}: graph {g.id or '?'} against itself: {name} {f!r}, not 1.0"

        @pytest.mark.parametrize("path", paths, ids=ids)
        def test_mrp_round_trip(self, path: Path, tmp_path: Path) -> None:
            graphs = _graphs(path)
            _same(graphs, _through_mrp(graphs, tmp_path), f"{path.name} through MRP")

        @pytest.mark.parametrize("path", paths, ids=ids)
        def test_writer_round_trip(self, path: Path, tmp_path: Path) -> None:
            graphs = _graphs(path)
            checked = 0
            for representation in dict.fromkeys(g.scheme.name for g in graphs):
                some = [g for g in graphs if g.scheme.name == representation]
                for writer in _writers(representation):
                    route = f"{path.name} through writer {writer.name!r}"
                    _same(some, _through_writer(writer, some, tmp_path), route, ids=False)
                    checked += 1
            if not checked:
                pytest.skip(f"plugin {plugin!r} registers no writer of the examples' graphs")

        @pytest.mark.parametrize("path", paths, ids=ids)
        def test_signature_names_the_plugin(self, path: Path) -> None:
            from ..kernel.scheme import scheme_digest
            from . import usim as api
            from .plugins import plugin_label, schemes
            for g in {g.scheme.name: g for g in _graphs(path)}.values():  # one graph of each scheme
                registered = schemes().get(g.scheme.name)
                assert registered == g.scheme, (
                    f"the graphs' scheme {g.scheme.name!r} is not the one registered under that name "
                    f"({'none is' if registered is None else 'another is'}): register it with register_schemes")
                expected = {"scheme": f"{g.scheme.name}@{scheme_digest(g.scheme)}", "plugin": plugin_label(name)}
                signature = api.usim(g, g).signature
                fields = signature.info
                assert {k: fields.get(k) for k in expected} == expected, \
                    f"{expected!r} not in the signature {signature!r}"

        @pytest.mark.slow
        @fuzz_settings(fuzz_examples)
        @given(example=fuzzed())
        def test_reader_refuses_bad_bytes(self, tmp_path_factory: Any, example: tuple[str, bytes]) -> None:
            suffix, data = example
            check_reader(tmp_path_factory.mktemp("fuzz") / f"mutated{suffix}", data)

        @pytest.mark.slow
        @pytest.mark.parametrize("path", paths, ids=ids)
        def test_reader_checks_its_numbers(self, path: Path, tmp_path: Path) -> None:
            bounded(check_numbers, path, tmp_path / f"renumbered{path.suffix}", seconds=120)

        def test_parser_is_deterministic(self) -> None:
            first = _parsed(batch_size=32)
            _same(first, _parsed(batch_size=32), "parsed again", then="parsed again")
            _same(first, _parsed(batch_size=1), "parsed one sentence a batch (against 32 a batch)",
                  then="one a batch")

        def test_parsed_graphs_survive_every_route(self, tmp_path: Path) -> None:
            from . import usim as api
            from .cache import ParseCache
            from .cli import cli
            graphs = _parsed(batch_size=32)
            _same(graphs, _through_mrp(graphs, tmp_path), "parsed graphs through MRP")
            text = tmp_path / "sentences.txt"
            text.write_text("\n".join(sentences) + "\n", encoding="utf-8")
            found = _parser()
            written = _cli(cli, "parse", "--parser", found.name, "--no-cache", "-q", "-o", tmp_path / "p.mrp", text)
            _same(graphs, api.read_all(written), "semsim parse's MRP")
            for writer in _writers(found.representation):
                route = f"parsed graphs through writer {writer.name!r}"
                _same(graphs, _through_writer(writer, graphs, tmp_path), route, ids=False)
            cache = tmp_path / "cache.sqlite3"
            _same(graphs, _parsed(batch_size=32, cache=cache), "parsed into the cache")
            _same(graphs, _parsed(batch_size=32, cache=cache), "served by the cache")
            with ParseCache(cache) as c:
                assert c.stats()["hits"] >= len(set(sentences)), "the second parse was not served by the cache"

        @pytest.mark.slow
        def test_jobs_agree(self) -> None:
            _same(_parsed(batch_size=1), _parsed(batch_size=1, jobs=2), "parsed by two worker processes",
                  then="by two workers")

    def _graphs(path: Path) -> list[Graph]:
        from . import usim as api
        graphs = api.read_all(path)
        assert graphs, f"{path.name}: no graphs"
        return graphs

    def _through_mrp(graphs: Sequence[Graph], tmp_path: Path) -> list[Graph]:
        from ..kernel.formats.mrp import graph_to_mrp
        from . import usim as api
        out = tmp_path / "graphs.mrp"
        out.write_text("".join(json.dumps(graph_to_mrp(g, verbatim=True), ensure_ascii=False) + "\n" for g in graphs),
                       encoding="utf-8")
        return api.read_all(out)

    def _writers(representation: str) -> list[Any]:
        from .plugins import writers
        return [w for w in writers().values() if w.plugin == name and w.representation == representation]

    def _through_writer(writer: Any, graphs: Sequence[Graph], tmp_path: Path) -> list[Graph]:
        from . import usim as api
        if writer.write_all is not None:
            target = tmp_path / f"all{writer.suffix}"
            writer.write_all(list(graphs), target)
            return api.read_all(target)
        out = []
        for k, g in enumerate(graphs):
            target = tmp_path / f"graph{k}{writer.suffix}"
            writer.write(g, target)
            out += api.read_all(target)
        return out

    def _parser() -> Any:
        from .plugins import parsers
        if not sentences:
            pytest.skip("no sentences given: the parser is not checked")
        own = [p for p in parsers().values() if p.plugin == name and (parser is None or p.name == parser)]
        chosen = own if len(own) == 1 else [p for p in own if p.default]
        assert len(chosen) == 1, (f"plugin {plugin!r} registers {'no parser' if not own else 'several parsers'}"
                                  f"{' named ' + repr(parser) if parser else ''}: name one with parser=")
        return chosen[0]

    def _parsed(batch_size: int, jobs: int = 1, cache: Path | None = None) -> list[Graph]:
        from .parsing import ParseSettings, parse_texts
        found = _parser()
        parses = parse_texts(sentences, ParseSettings(parser=found.name, cache=cache or False, jobs=jobs,
                                                      batch_size=batch_size), keep_going=False)
        return [parses.graphs[parses.key(t)] for t in sentences]

    def _cli(cli: Any, *args: object) -> Path:
        from click.testing import CliRunner
        result = CliRunner().invoke(cli, [str(a) for a in args])
        assert result.exit_code == 0, f"semsim {' '.join(map(str, args))}: {result.output}"
        return Path(str(args[args.index("-o") + 1]))

    for test in skip:
        if not hasattr(Conformance, test):
            raise ValueError(f"skip={test!r}: the kit has no such test")
        why = skip[test] if isinstance(skip, Mapping) else "left out"
        left_out = pytest.mark.skip(reason=f"{why} (plugin {plugin})")
        setattr(Conformance, test, left_out(getattr(Conformance, test)))
    Conformance.__name__ = Conformance.__qualname__ = "Conformance_" + re.sub(r"\W", "_", plugin)
    return Conformance


# -- the kit as a pytest plugin: pytest_plugins = ["semsim.app.testing"] in a conftest.py, or -p semsim.app.testing --
@pytest.fixture
def semsim_cache(tmp_path_factory: Any, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A parse cache of the test's own (``SEMSIM_CACHE_DIR``, which worker processes and
    subprocesses inherit), so that no test is served parses another test made."""
    path = tmp_path_factory.mktemp("semsim-cache")
    monkeypatch.setenv("SEMSIM_CACHE_DIR", str(path))
    return Path(path)


@pytest.fixture
def semsim_plugins(monkeypatch: pytest.MonkeyPatch, semsim_cache: Path) -> Iterator[Callable[..., list[str]]]:
    """Load plugins for one test: ``semsim_plugins("my_plugin.py", "mypackage")`` registers
    modules or ``.py`` files as ``SEMSIM_PLUGINS`` does (so ``--jobs`` workers and
    subprocesses load them too) and returns the names of the plugins loaded; with
    ``only=True``, no installed plugin is loaded beside them. The plugin manager is read
    afresh, and again after the test."""
    from .plugins import plugin_info, reset_plugin_manager

    def load(*modules: str | os.PathLike[str], only: bool = False) -> list[str]:
        names = [str(Path(m).resolve()) if str(m).endswith(".py") else str(m) for m in modules]
        monkeypatch.setenv("SEMSIM_PLUGINS", ",".join(filter(None, [os.environ.get("SEMSIM_PLUGINS"), *names])))
        if only:
            monkeypatch.setenv("SEMSIM_LOAD_PLUGINS", "")
        reset_plugin_manager()
        return [p["name"] for p in plugin_info()]

    yield load
    reset_plugin_manager()


@pytest.fixture
def semsim_run(semsim_cache: Path) -> Callable[..., CommandResult]:
    """Run a ``semsim`` command in this process, with the test's own parse cache:
    ``semsim_run("usim", a, b, "-b")`` gives its :class:`CommandResult` (arguments pass
    through ``str``). A traceback, or an exit status other than 0 and 1, fails the test: a
    refusal is exit status 1 with one line."""
    return lambda *args: _run_command([str(a) for a in args])
