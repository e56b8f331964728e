"""``semsim parse``, writers, plugin commands, the default parser and parser signatures,
through the toy plugin (no representation plugin needed)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from figure1 import correction, source
from support import run_semsim as run

import semsim
from semsim.app.parsing import find_parser, parser_fields
from semsim.kernel.errors import PluginError
from semsim.kernel.formats.mrp import MrpGraph, graph_to_mrp, mrp_to_graph
from semsim.kernel.graph import concat


def test_default_parser_is_chosen_when_none_is_named(toy_plugin):
    assert find_parser(None, "toy").name == "toy-parser"
    assert find_parser("toy-lower", None).name == "toy-lower"
    assert parser_fields(find_parser(None, "toy"), None).format() == "parser:toy-parser|model:rules@rules-v1"
    assert parser_fields(find_parser("toy-lower", None), None).format() == "parser:toy-lower|model:default"


def test_several_parsers_without_a_default_must_be_chosen(toy_plugin, monkeypatch):
    from dataclasses import replace
    parsers = {n: replace(p, default=False) for n, p in semsim.app.plugins.parsers().items()}
    monkeypatch.setattr("semsim.app.parsing.parsers", lambda: parsers)
    with pytest.raises(PluginError, match=r"choose a parser for representation 'toy' with parser=NAME"):
        find_parser(None, "toy")


def _parsers(*specs):
    from semsim.kernel.records import Parser
    return {name: Parser(name, rep, lambda texts, model: [], default=default) for name, rep, default in specs}


def test_another_representation_s_default_parser_never_takes_plain_text(monkeypatch):
    """A third-party plugin registering its parser with default=True (issue #33.1): plain text
    still goes to the UCCA parser; the plugin's default chooses within its representation."""
    monkeypatch.delenv("SEMSIM_REPRESENTATION", raising=False)
    installed = _parsers(("ucca-span", "ucca", True), ("tupa", "ucca", False), ("amrlib", "amr", False),
                         ("spacy-ud", "ud", True), ("other-ud", "ud", False))
    monkeypatch.setattr("semsim.app.parsing.parsers", lambda: installed)
    assert find_parser(None, None).name == "ucca-span"
    assert find_parser(None, "ud").name == "spacy-ud" and find_parser(None, "amr").name == "amrlib"
    monkeypatch.setenv("SEMSIM_REPRESENTATION", "ud")  # a user's (or a site's) own choice
    assert find_parser(None, None).name == "spacy-ud"


def test_default_conflicts_concern_only_their_representation(monkeypatch):
    monkeypatch.delenv("SEMSIM_REPRESENTATION", raising=False)
    installed = _parsers(("ucca-span", "ucca", True), ("a-ud", "ud", True), ("b-ud", "ud", True))
    monkeypatch.setattr("semsim.app.parsing.parsers", lambda: installed)
    assert find_parser(None, None).name == "ucca-span"
    with pytest.raises(PluginError, match="parsers a-ud, b-ud are each registered as the default for 'ud': "
                                          "choose one with parser=NAME"):
        find_parser(None, "ud")


def test_without_a_ucca_parser_plain_text_goes_to_the_only_representation_or_asks(monkeypatch):
    monkeypatch.delenv("SEMSIM_REPRESENTATION", raising=False)
    monkeypatch.setattr("semsim.app.parsing.parsers", lambda: _parsers(("a-ud", "ud", False)))
    assert find_parser(None, None).name == "a-ud"
    monkeypatch.setattr("semsim.app.parsing.parsers", lambda: _parsers(("a-ud", "ud", True), ("amrlib", "amr", False)))
    with pytest.raises(PluginError, match=r"no parser for representation 'ucca' \(plain text goes to 'ucca': choose "
                                          r"another with representation=NAME\); parsers are installed for: amr, ud"):
        find_parser(None, None)


@pytest.mark.slow
def test_scores_from_text_are_signed_with_parser_and_model(toy_env):
    (toy_env / "s.txt").write_text("He gva an apple .\n")
    (toy_env / "h.txt").write_text("He gave John an apple .\n")
    r = run("score", "--source", toy_env / "s.txt", "--hyp", toy_env / "h.txt", "-q", "-o", toy_env / "o.jsonl")
    assert r.returncode == 0, r.stderr
    record = json.loads((toy_env / "o.jsonl").read_text().splitlines()[0])
    tail = (f"|scheme:toy@2f0b9db02a52|plugin:toy_plugin.py|version:{semsim.__version__}|parser:toy-parser"
            "|model:rules@rules-v1")
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
def test_parse_with_a_writer_of_many_graphs_per_file(toy_env):
    """A writer of treebanks (``write_all``, issue #33.3) gets every graph, in order, in one
    file, which reads back graph for graph; a failed line is left out and reported."""
    a, b = toy_env / "a.txt", toy_env / "b.txt"
    a.write_text("Dogs run .\n\nCats Sleep\n")
    b.write_text("Birds fly\n")
    out = toy_env / "out.toy"
    r = run("parse", a, b, "--format", "toy-many", "-o", out, "-q")
    assert r.returncode == 0, r.stderr
    assert [g.text for g in semsim.read_all(out)] == ["Dogs run .", "Cats Sleep", "Birds fly"]
    assert [p.name for p in toy_env.iterdir() if "partial" in p.name] == []
    r = run("parse", a, "--format", "toy-many", "--passage", "-o", out, "-q")
    assert r.returncode == 0, r.stderr
    assert [g.text for g in semsim.read_all(out)] == ["Dogs run . Cats Sleep"]
    r = run("parse", a, "--format", "toy-many", "-o", out, "-q", "--no-cache", env={"TOY_FAIL_AT": "Dogs run ."})
    assert r.returncode == 1 and "a.txt:1" in r.stderr
    assert [g.text for g in semsim.read_all(out)] == ["Cats Sleep"]


@pytest.mark.slow
def test_a_writer_of_both_kinds_goes_by_the_output(toy_env, monkeypatch):
    """With ``write`` and ``write_all``, ``-o DIR/`` (or an existing directory) takes a file per
    graph, any other path one file."""
    both = toy_env / "both_plugin.py"
    both.write_text("from semsim.kernel.hookspecs import hookimpl\nfrom semsim.kernel.records import Writer\n"
                    "from toy_plugin import write_toy, write_toys\n\n\n@hookimpl\n"
                    "def register_writers(register):\n"
                    "    register(Writer('toy-both', 'toy', '.toy', write_toy, write_all=write_toys))\n")
    monkeypatch.setenv("SEMSIM_PLUGINS", f"{os.environ['SEMSIM_PLUGINS']},{both}")
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parent))  # toy_plugin, for the file above
    (toy_env / "t.txt").write_text("Dogs run .\nCats sleep\n")
    r = run("parse", toy_env / "t.txt", "--format", "toy-both", "-o", f"{toy_env / 'dir'}/", "-q")
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in (toy_env / "dir").iterdir()) == ["t.1.toy", "t.2.toy"]
    r = run("parse", toy_env / "t.txt", "--format", "toy-both", "-o", toy_env / "all.toy", "-q")
    assert r.returncode == 0, r.stderr
    assert len(semsim.read_all(toy_env / "all.toy")) == 2


@pytest.mark.slow
@pytest.mark.parametrize(("args", "message"), [
    (["--format", "nope"], "no writer 'nope' (available: mrp, toy, toy-many)"),
    (["--format", "toy"], "--format toy writes one file per graph: give a directory with -o"),
    (["--format", "toy", "-o", "{t}"], "t.txt: not a directory (--format toy writes one file per graph into -o DIR)"),
    (["--format", "toy-many"], "--format toy-many writes every graph into one file: give it with -o FILE"),
    (["--format", "toy-many", "-o", "{dir}"], "a directory (--format toy-many writes every graph into one file: "
                                              "give -o FILE)"),
    (["--format", "toy-many", "-o", "{t}"], "is an input of this run"),
    (["--format", "toy-many", "-o", "{dir}/no/such.toy"], "cannot write: no directory"),
])
def test_parse_errors_are_one_line(toy_env, args, message):
    (toy_env / "t.txt").write_text("Dogs run .\n")
    args = [a.format(t=toy_env / "t.txt", dir=toy_env) for a in args]
    r = run("parse", toy_env / "t.txt", *args, "-q")
    assert r.returncode == 1 and message in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "Dogs run" in (toy_env / "t.txt").read_text()


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


def test_mrp_written_by_parse_reads_back_with_the_plugin_s_scheme(toy_env):
    """`semsim parse -o x.mrp` then `semsim usim x.mrp y.mrp`: the graphs come back with the
    scheme their plugin registered (its equivalences and ignored labels), not as 'plain'
    (issue #33.2), with no MRP code in the plugin."""
    import semsim as api
    text = toy_env / "t.txt"
    text.write_text("Big dog\n", encoding="utf-8")
    out = toy_env / "t.mrp"
    r = run("parse", text, "--parser", "toy-parser", "--no-cache", "-q", "-o", out)
    assert r.returncode == 0, r.stderr
    (g,) = api.read_all(out)
    assert g.scheme.name == "toy" and frozenset({"Big", "Large"}) in g.scheme.equivalences
