"""Issue #48: a parser returns graphs, each built once, and what its adapter put in a graph
reaches the caller on every route: parsed in this process, in worker processes, on a Dask
worker (its task, run here), and served by the parse cache. A parser that returns MRP, as
parsers did before, still works."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import semsim.app.plugins as plugins
from semsim.app.parsing import ParseSettings, parse_texts
from semsim.kernel.graph import Graph
from semsim.kernel.graph_json import graph_to_dict

PLUGIN = str(Path(__file__).with_name("graph_plugin.py"))
TEXTS = ["a ~b c", "~d e f g h", "one", "i ~j k l m n o", "p q"]


@pytest.fixture
def graph_env(monkeypatch, tmp_path):
    """The graph plugin, inline (as worker processes see it), and a cache in ``tmp_path``."""
    monkeypatch.setenv("SEMSIM_LOAD_PLUGINS", "")
    monkeypatch.setenv("SEMSIM_PLUGINS", PLUGIN)
    monkeypatch.setenv("SEMSIM_CACHE_DIR", str(tmp_path / "cache"))
    plugins.reset_plugin_manager()
    yield tmp_path
    plugins.reset_plugin_manager()


def expected(text: str) -> dict:
    """What the adapter built, as graph JSON (its form between processes and in the cache)."""
    from graph_plugin import direct_graph
    return graph_to_dict(direct_graph(text))


@pytest.mark.parametrize("jobs", [1, 2])
def test_what_the_adapter_put_in_survives_parse_cache_and_workers(graph_env, jobs):
    """Punctuation by the plugin's own rule, paragraphs, unit ids, kinds and labels, the
    scheme and scalar metadata: the same from the parse (here or in workers) and from the
    cache; the cache's native column holds the parser's ``serialize`` of the graph."""
    cache = graph_env / f"jobs{jobs}.sqlite3"
    settings = ParseSettings(parser="direct-graphs", cache=cache, jobs=jobs, batch_size=2)
    for run in ("parsed", "cached"):
        parses = parse_texts(TEXTS, settings)
        for text in TEXTS:
            assert graph_to_dict(parses.get(text)) == expected(text), (run, text)
    got = parses.get("a ~b c")
    assert [t.punct for t in got.tokens] == [False, True, False] and got.units[1].kind == "even"
    with sqlite3.connect(cache) as db:
        natives = dict(db.execute("SELECT text, native FROM parses").fetchall())
    assert natives["a ~b c"] == '["a", "~b", "c"]' and len(natives) == len(TEXTS)


def test_a_dask_worker_s_task_sends_graph_json_and_the_driver_reads_it_back(graph_env):
    """The task every Dask batch runs (here, without a cluster): graph JSON goes back, the one
    form between processes, and reads back to what the adapter built."""
    from semsim.app.cache import model_key
    from semsim.app.executors import parse_on_worker, received
    from semsim.app.parsing import find_parser
    key = model_key(find_parser("direct-graphs", None), None)
    shipped = parse_on_worker("direct-graphs", None, key, TEXTS[:2], None)
    assert [g for _, g in shipped] == [expected(t) for t in TEXTS[:2]]
    assert [graph_to_dict(g) for _, g in received(shipped)] == [expected(t) for t in TEXTS[:2]]


def test_one_in_process_parse_builds_each_graph_once(graph_env, monkeypatch):
    """A graph the parser returns is the graph the caller gets (the same object), built once
    and never copied; the cache stores it without building another, and a hit reads each
    graph back once."""
    built: list[str] = []
    init = Graph.__post_init__
    monkeypatch.setattr(Graph, "__post_init__", lambda self: (built.append(self.id), init(self))[1])
    monkeypatch.setattr(Graph, "with_", lambda self, **kw: pytest.fail(f"graph {self.id} copied"))
    for cache in (False, graph_env / "once.sqlite3", graph_env / "once.sqlite3"):
        built.clear()
        parses = parse_texts(TEXTS, ParseSettings(parser="direct-graphs", cache=cache))
        assert len(built) == len(TEXTS) == len(parses.graphs), (cache, built)
        assert sorted(built) == sorted(g.id for g in parses.graphs.values())


def test_the_returned_graph_is_the_parser_s_object_with_all_its_metadata(graph_env, monkeypatch):
    """In this process nothing is serialised: even metadata graph JSON cannot hold (a list)
    reaches the caller. Between processes and in the cache only graph JSON's scalars travel."""
    parses = parse_texts(TEXTS[:1], ParseSettings(parser="direct-graphs", cache=False))
    assert parses.get(TEXTS[0]).meta["list"] == [1, 2]
    cached = parse_texts(TEXTS[:1], ParseSettings(parser="direct-graphs", cache=graph_env / "m.sqlite3"))
    again = parse_texts(TEXTS[:1], ParseSettings(parser="direct-graphs", cache=graph_env / "m.sqlite3"))
    assert "list" in cached.get(TEXTS[0]).meta and "list" not in again.get(TEXTS[0]).meta
    assert dict(again.get(TEXTS[0]).meta) == {"origin": "direct", "words": 3, "exact": True}


def test_a_parser_that_returns_mrp_still_parses(graph_env):
    """A parser of before (MRP, converted by ``to_graph``) still works, with the scheme its
    plugin registers; MRP cannot say what the adapter's own graphs keep (unit kinds, ids,
    punctuation by the plugin's rule), which is why a parser should return graphs."""
    parses = parse_texts(TEXTS, ParseSettings(parser="direct-mrp", cache=False))
    for text in TEXTS:
        got, want = parses.get(text), expected(text)
        assert got.scheme.name == "direct" and [t.text for t in got.tokens] == text.split()
        assert [len(e.labels) for e in got.edges] == [len(e[2]) for e in want["edges"]]
    assert {u.kind for g in parses.graphs.values() for u in g.units} == {""}


@pytest.mark.parametrize("cache", [False, "cache"])
def test_a_graph_graph_json_would_refuse_is_refused_in_process_too(graph_env, cache):
    """Anchors of numpy's int64 compare as integers but are no graph JSON: the parse is
    refused in one line naming the sentence, with the cache or without (every sentence
    failing: the parser's fault, so the run stops), never a traceback from the cache's writer
    nor a score that depends on where the graph came from."""
    from semsim.kernel.errors import ParseError
    with pytest.raises(ParseError, match=r"numpy-graphs' gave .* an anchor that is not a token index"):
        parse_texts(TEXTS, ParseSettings(parser="numpy-graphs", cache=graph_env / "n.sqlite3" if cache else False))
