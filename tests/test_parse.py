"""``semsim parse``, writers, plugin commands, the default parser and parser signatures,
through the toy plugin (no representation plugin needed)."""

from __future__ import annotations

import json

import pytest
from figure1 import correction, source
from support import run_semsim as run

import semsim
from semsim.errors import PluginError
from semsim.formats.mrp import MrpGraph, graph_to_mrp, mrp_to_graph
from semsim.graph import concat
from semsim.parsing import find_parser, parser_signature


def test_default_parser_is_chosen_when_none_is_named(toy_plugin):
    assert find_parser(None, "toy").name == "toy-parser"
    assert find_parser("toy-lower", None).name == "toy-lower"
    assert parser_signature(find_parser(None, "toy"), None) == "parser:toy-parser|model:rules@rules-v1"
    assert parser_signature(find_parser("toy-lower", None), None) == "parser:toy-lower|model:default"


def test_several_parsers_without_a_default_must_be_chosen(toy_plugin, monkeypatch):
    from dataclasses import replace
    parsers = {n: replace(p, default=False) for n, p in semsim.plugins.parsers().items()}
    monkeypatch.setattr("semsim.parsing.parsers", lambda: parsers)
    with pytest.raises(PluginError, match="choose a parser for representation 'toy' with --parser"):
        find_parser(None, "toy")


@pytest.mark.slow
def test_scores_from_text_are_signed_with_parser_and_model(toy_env):
    (toy_env / "s.txt").write_text("He gva an apple .\n")
    (toy_env / "h.txt").write_text("He gave John an apple .\n")
    r = run("score", "--source", toy_env / "s.txt", "--hyp", toy_env / "h.txt", "-q", "-o", toy_env / "o.jsonl")
    assert r.returncode == 0, r.stderr
    record = json.loads((toy_env / "o.jsonl").read_text().splitlines()[0])
    tail = f"|scheme:toy|version:{semsim.__version__}|parser:toy-parser|model:rules@rules-v1"
    assert record["signature"].endswith(tail)


@pytest.mark.slow
def test_parse_writes_mrp_lines_named_by_file_and_line(toy_env):
    text = toy_env / "doc.txt"
    text.write_text("Dogs run .\n\nThe Cat sat .\n", encoding="utf-8")
    r = run("parse", text, "-q", "-o", toy_env / "doc.mrp")
    assert r.returncode == 0, r.stderr
    graphs = [json.loads(line) for line in (toy_env / "doc.mrp").read_text().splitlines()]
    assert [g["id"] for g in graphs] == ["doc.1", "doc.3"] and {g["framework"] for g in graphs} == {"toy"}
    back = semsim.read_all(toy_env / "doc.mrp")
    assert [g.text for g in back] == ["Dogs run .", "The Cat sat ."]
    assert sorted(lab for e in back[1].edges for lab in e.labels) == ["Big", "Big", "Punct", "Small"]


@pytest.mark.slow
def test_parse_with_a_plugin_writer_and_passages(toy_env):
    a, b = toy_env / "a.txt", toy_env / "b.txt"
    a.write_text("Dogs run .\nCats sleep .\n")
    b.write_text("Birds Fly\n")
    r = run("parse", a, b, "--format", "toy", "-o", toy_env / "out", "-q")
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in (toy_env / "out").iterdir()) == ["a.1.toy", "a.2.toy", "b.1.toy"]
    r = run("parse", a, "--format", "toy", "--passage", "-o", toy_env / "passages", "-q")
    assert r.returncode == 0, r.stderr
    (g,) = semsim.read_all(toy_env / "passages" / "a.toy")
    assert g.text == "Dogs run . Cats sleep ."


@pytest.mark.slow
@pytest.mark.parametrize(("args", "message"), [
    (["--format", "nope"], "no writer 'nope' (available: mrp, toy)"),
    (["--format", "toy"], "--format toy writes one file per graph: give a directory with -o"),
])
def test_parse_errors_are_one_line(toy_env, args, message):
    (toy_env / "t.txt").write_text("Dogs run .\n")
    r = run("parse", toy_env / "t.txt", *args, "-q")
    assert r.returncode == 1 and message in r.stderr and len(r.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_plugins_add_commands(toy_env):
    r = run("toy-count", "one two three")
    assert r.returncode == 0 and r.stdout.strip() == "3"
    assert "toy-count" in run("--help").stdout


def test_concat_joins_sentences_into_one_passage():
    g1, g2 = source(), correction()
    joined = concat([g1, g2], "doc")
    assert joined.text == f"{g1.text} {g2.text}" and joined.sentence_ends == (6, 11) and joined.id == "doc"
    assert len(joined.units) == len(g1.units) + len(g2.units) - 1
    root_children = [e.child for e in joined.edges if e.parent == joined.root]
    assert len(root_children) == 2  # each sentence's scene, under one root
    assert joined.yields[joined.root] == frozenset(range(11))
    assert semsim.usim(joined, joined).f == 1.0


def test_graph_to_mrp_round_trip():
    g = source()
    back = mrp_to_graph(MrpGraph("toy", g.id, graph_to_mrp(g, "toy")))
    assert back.text == g.text
    key = lambda graph: sorted((sorted(graph.yields[e.parent]), sorted(graph.yields[e.child]), e.labels,  # noqa: E731
                                e.remote) for e in graph.edges)
    assert key(back) == key(g)
