"""Fuzzing helpers for readers, semsim's own and plugins' (needs ``hypothesis``, in the
``test`` extra).

semsim's promise on bad input is that every reader either returns graphs or refuses with
a :class:`~semsim.errors.SemsimError` naming the file and line; never another exception
and never a crash. :func:`check_reader` states that as a property; the strategies feed it
arbitrary bytes (:func:`any_bytes`) and mutations of valid files (:func:`mutated`,
:func:`json_mutated`), so that a plugin's tests can fuzz its reader in three lines::

    from hypothesis import given
    from semsim.testing import check_reader, fuzz_settings, mutated

    @fuzz_settings()
    @given(data=mutated([VALID_FILE.read_bytes()]))
    def test_reader_never_crashes(tmp_path_factory, data):
        check_reader(tmp_path_factory.mktemp("fuzz") / "x.amr", data, "penman")

and :func:`check_command` runs a ``semsim`` command on such input the same way.

The number of examples comes from ``SEMSIM_FUZZ_EXAMPLES`` (CI runs a fixed, derandomised
budget; ``benchmarks/fuzz.py`` runs long, random ones).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from .errors import SemsimError
from .graph import Graph
from .io import iter_graphs

#: Fragments that break formats in interesting ways: brackets and quotes of PENMAN, JSON
#: and XML, numbers at the edges, control and non-UTF-8 bytes, line breaks, and the
#: markers of PENMAN metadata, M2 lines and UCCA XML elements.
FRAGMENTS = (
    b"(", b")", b'"', b"\\", b"{", b"}", b"[", b"]", b",", b":", b"/", b"~e.1", b"-1", b"0", b"99999999",
    b"1e308", b"null", b"true", b"\x00", b"\x0c", b"\xff", b"\xc3", b"\r\n", b"\n", b"\n\n", b"# ::id ",
    b"# ::snt ", b":ARG0", b":ARG0-of", b"<", b">", b"/>", b"</node>", b'<edge toID="1.1" type="A">', b"&",
    b"S ", b"A 0 1|||R:OTHER|||x|||REQUIRED|||-NONE-|||0", b"|||", b'"from": 5', b'"to": 0', b'"anchors"',
)


def fuzz_settings(examples: int = 100) -> Callable[[Any], Any]:
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


@st.composite
def mutated(draw: st.DrawFn, seeds: Sequence[bytes], max_edits: int = 4) -> bytes:
    """A valid file (one of ``seeds``) with 1 to ``max_edits`` byte-level edits: a span
    deleted, duplicated or replaced by a fragment, a fragment inserted, the file cut short,
    or a word (an id, a number, a label) replaced by another word of the file, which keeps
    the syntax and changes what refers to what (the edits that make cycles, self-loops and
    spans out of range)."""
    data = bytearray(draw(st.sampled_from(list(seeds))))
    for _ in range(draw(st.integers(1, max_edits))):
        i = draw(st.integers(0, len(data)))
        j = draw(st.integers(i, min(len(data), i + 40)))
        op = draw(st.sampled_from(("delete", "duplicate", "replace", "insert", "truncate", "reuse", "reuse")))
        piece = draw(st.sampled_from(FRAGMENTS) | st.binary(min_size=1, max_size=3))
        if op == "reuse":
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


# No subnormal floats: a library loaded earlier in the process (torch) may have set
# flush-to-zero, under which Hypothesis cannot draw them.
_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 10**9) | st.floats(allow_nan=False, allow_subnormal=False)
    | st.text(max_size=5),
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
    return "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines).encode("utf-8")


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
        out = list(obj)
        action = draw(st.integers(0, 5))
        if action == 0:
            out.insert(i, obj[i])
        elif action == 1:
            del out[i]
        else:
            out[i] = _mutate_json(draw, obj[i])
        return out
    return draw(_JSON_VALUES)


def check_reader(path: Path, data: bytes, format: str | None = None) -> list[Graph | SemsimError]:
    """Write ``data`` to ``path`` and read every graph in it through the registered reader
    (``format``, else by suffix) as the CLI does: the outcome must be graphs, per-graph
    errors, or a :class:`SemsimError` about the file; anything else propagates (a bug).
    Returns what was read, so that a test can check more."""
    path.write_bytes(data)
    try:
        out: list[Graph | SemsimError] = list(iter_graphs(path, format, errors="yield"))
    except SemsimError as exc:
        return [exc]
    for g in out:
        assert isinstance(g, Graph | SemsimError), f"reader yielded {type(g).__name__}"
    return out


def check_command(args: Sequence[str]) -> Any:
    """Run ``semsim ARGS`` in this process (click's test runner) and check the CLI's side of
    the promise: exit 0, or exit 1 with click's one-line error; any other exception (a
    traceback) propagates as a test failure. Returns click's ``Result``."""
    from click.testing import CliRunner

    from .cli import cli
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        f"{list(args)}: {type(result.exception).__name__}: {result.exception}"
    assert result.exit_code in (0, 1), (list(args), result.exit_code, result.output)
    assert "Traceback" not in result.output
    return result
