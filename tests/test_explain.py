"""``semsim explain``: the explanation must count exactly what the metric counts, and the
page must render and react in a real (headless) browser."""

from __future__ import annotations

import functools
import html
import itertools
import json
import os
import random
import re
import shutil
import struct
import types
import typing
from pathlib import Path

import pytest
from support import chromium, run_cli

import semsim
from semsim.api import USim
from semsim.app.explain import ExplanationDoc, explain, render_html, summary
from semsim.kernel.graph import concat
from semsim.kernel.stats import Counts

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FIG1 = [("fig1-source.xml", "fig1-correction.xml"), ("fig1-source.amr", "fig1-correction.amr")]
SIDES = ("source", "correction")
#: A learner essay (576 tokens, 20 sentences) and its correction, from ../shared/data/usim-annotations.
ESSAY = ("tree1302.xml", "tree1202.xml")
SETTINGS = [
    {},
    {"direction": "r->s"},
    {"tie_break": "all", "labels": "weak"},
    {"tie_break": "first", "labels": "unlabeled", "remote": False},
    {"denominator": "aligned", "by_sentence": False},
]


def counts_of(doc: dict, direction: str) -> Counts:
    """Counts recomputed from the explanation's per-edge (or, legacy, per-unit) verdicts."""
    d = doc["directions"][direction]
    rows = d.get("edges") or d["units"]
    side = [[r for r in rows[s] if r["compared"]] for s in ("source", "correction")]
    return Counts(sum(r["matched"] for r in side[0]), len(side[0]), sum(r["matched"] for r in side[1]), len(side[1]))


def assert_explains(g1: semsim.Graph, g2: semsim.Graph, **settings) -> dict:
    metric = USim(**settings)
    doc = explain(g1, g2, metric)
    score = metric.sentence_score(g1, g2)
    assert doc["signature"] == score.signature.format() and doc["score"]["f"] == score.f
    assert list(doc["directions"]) == metric.part_names()
    for name in doc["directions"]:
        if score.convention is None:
            assert counts_of(doc, name) == score.parts[name], name
            assert doc["directions"][name]["counts"] == score.parts[name].as_dict()
    return doc


def fig1(kind: int = 0) -> tuple[semsim.Graph, semsim.Graph]:
    a, b = FIG1[kind]
    return semsim.read(EXAMPLES / a), semsim.read(EXAMPLES / b)


@pytest.mark.parametrize("kind", [0, 1], ids=["ucca", "amr"])
@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()) or "default")
def test_counts_equal_the_metric_on_figure1(kind, settings):
    assert_explains(*fig1(kind), **settings)


@pytest.mark.parametrize("kind", [0, 1], ids=["ucca", "amr"])
def test_legacy_counts_equal_the_metric(kind):
    doc = assert_explains(*fig1(kind), variant="legacy")
    assert doc["detail"] == "legacy" and "paper variant" in doc["note"]
    assert "edges" not in doc["directions"]["legacy"]


def test_figure1_says_why():
    """The paper's Figure 1: precision 7/9, recall 7/7, and the two misses are the edges
    into "for" (no token aligned) and into "john" (aligned to a unit entered by A, not C)."""
    g1, g2 = fig1()
    doc = explain(g1, g2)
    d = doc["directions"]["s->r"]
    c = d["counts"]
    assert (c["matched1"], c["total1"], c["matched2"], c["total2"]) == (7, 9, 7, 7)
    misses = {g1.unit_text(g1.edges[i].child): r["reason"]
              for i, r in enumerate(d["edges"]["source"]) if r["compared"] and not r["matched"]}
    assert misses == {"for": "child unaligned (no token of its yield is aligned)",
                      "john": "aligned child has no incoming edge labelled C"}
    punct = [r for r in d["edges"]["source"] if not r["compared"]]
    assert len(punct) == 1 and "not compared" in punct[0]["reason"]
    john = next(u for u, unit in enumerate(g2.units) if g2.unit_text(u) == "John")
    assert sorted(d["units"]["correction"][john]["aligned"]) == sorted(
        u for u in range(len(g1.units)) if g1.unit_text(u) in ("john", "for john"))
    assert all(p["w"] == 1.0 for p in d["unit_alignment"])  # Figure 1: every chosen w is 1
    words = [(g1.tokens[a].text, g2.tokens[b].text) for a, b in doc["token_alignment"]]
    assert words == [("He", "He"), ("gva", "gave"), ("an", "an"), ("apple", "apple"), ("john", "John")]


def test_matches_name_real_partner_edges():
    g1, g2 = fig1()
    d = explain(g1, g2)["directions"]["r->s"]
    for side, g, other in (("source", g1, g2), ("correction", g2, g1)):
        for i, row in enumerate(d["edges"][side]):
            for j in row.get("matches", []):
                assert set(g.edges[i].labels) & set(other.edges[j].labels)
                assert other.edges[j].child in d["units"][side][g.edges[i].child]["aligned"]


def conforms(value: object, tp: object, where: str = "doc") -> None:
    """Assert that ``value`` has the shape that ``tp``, a type of :mod:`semsim.app.explain.schema`, says."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if typing.is_typeddict(tp):
        assert isinstance(value, dict), where
        hints = typing.get_type_hints(tp)
        assert tp.__required_keys__ <= set(value) <= set(hints), f"{where}: keys {sorted(value)}"
        for key, v in value.items():
            conforms(v, hints[key], f"{where}.{key}")
    elif origin is list:
        assert isinstance(value, list), where
        for i, v in enumerate(value):
            conforms(v, args[0], f"{where}[{i}]")
    elif origin is dict:
        assert isinstance(value, dict), where
        for key, v in value.items():
            conforms(key, args[0], f"{where} key {key!r}")
            conforms(v, args[1], f"{where}.{key}")
    elif origin is typing.Literal:
        assert value in args, f"{where}: {value!r} not in {args}"
    elif origin in (typing.Union, types.UnionType):
        fits = []
        for alternative in args:
            try:
                conforms(value, alternative, where)
                fits.append(alternative)
            except AssertionError:
                pass
        assert fits, f"{where}: {value!r} is none of {args}"
    elif tp is typing.Any:
        pass
    elif tp is float:  # an int is a float here, a bool is not
        assert isinstance(value, (int, float)) and not isinstance(value, bool), f"{where}: {value!r}"
    elif tp is int:
        assert isinstance(value, int) and not isinstance(value, bool), f"{where}: {value!r}"
    elif tp is type(None):
        assert value is None, where
    else:
        assert isinstance(value, tp), f"{where}: {value!r} is not {tp}"


@pytest.mark.parametrize("kind", [0, 1], ids=["ucca", "amr"])
@pytest.mark.parametrize("settings", [{}, {"variant": "legacy"}, {"variant": "legacy", "single_token_units": False},
                                      {"tokens": "ordered", "edge_weights": "height"},
                                      {"tokens": "lexical", "edge_weights": "scheme", "direction": "r->s"},
                                      {"remote": False, "by_sentence": False}],
                         ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()) or "default")
def test_document_has_the_shape_of_its_schema(kind, settings):
    """The types of semsim/app/explain/schema.py, which the builder and the renderers are
    annotated with, say what the document really holds: every key, none missing."""
    doc = explain(*fig1(kind), USim(**settings))
    conforms(doc, ExplanationDoc)
    conforms(json.loads(json.dumps(doc)), ExplanationDoc)  # and so does what --json writes


def test_output_is_deterministic():
    g1, g2 = fig1()
    a, b = explain(g1, g2), explain(*fig1())
    assert json.dumps(a) == json.dumps(b)
    assert render_html(a) == render_html(b)


def test_html_is_self_contained_and_escapes_text():
    g = semsim.build_graph(["<script>", "a&b", "{{data}}", "</script>"],
                           [semsim.Unit("r"), semsim.Unit("x", anchors=(0, 1, 2, 3))], [(0, 1, "A")], id="{{svg}}")
    page = render_html(explain(g, g))
    assert "<script>" not in page.split("<body>")[1].split('<script type="application/json"')[0]
    assert page.count("</script>") == 2  # the data block and the code block, nothing from the text
    assert page.count("<svg") == 1 and page.count('"tokens":') == 2  # placeholder-like text is not expanded
    for attr in ("src=", "href=", "http://", "https://", "@import", "url("):
        assert attr not in page.replace('xmlns="http://www.w3.org/2000/svg"', ""), attr


def test_embedded_json_cannot_leave_its_script_block():
    """A token ``<!--`` and later ``<script`` would put the HTML parser in the script-data
    double-escaped state, where the data block's ``</script>`` no longer ends it (issue #32)."""
    tokens = ["<!--", "a", "<script>", "b", "</script>", "&amp;", "-->"]
    g = semsim.build_graph(tokens, [semsim.Unit("r"), semsim.Unit("x", anchors=tuple(range(len(tokens))))],
                           [(0, 1, "A")])
    doc = explain(g, g)
    page = render_html(doc)
    block = page.split('<script type="application/json" id="semsim-data">')[1].split("</script>")[0]
    assert not set("<>&") & set(block)
    assert json.loads(block) == json.loads(json.dumps(doc))


run = functools.partial(run_cli, catch_exceptions=False)


def test_cli_writes_both_files_atomically(tmp_path):
    src, cor = EXAMPLES / FIG1[0][0], EXAMPLES / FIG1[0][1]
    r = run("explain", src, cor, "--html", tmp_path / "x.html", "--json", tmp_path / "x.json", "--tie-break", "all")
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.html", "x.json"]  # no temporary left behind
    doc = json.loads((tmp_path / "x.json").read_text(encoding="utf-8"))
    assert doc == json.loads(json.dumps(explain(semsim.read(src), semsim.read(cor), USim(tie_break="all"))))
    assert doc["settings"]["tie_break"] == "all" and "tie:all" in doc["signature"]
    assert (tmp_path / "x.html").read_text(encoding="utf-8") == render_html(doc)


def test_cli_summary_and_errors(tmp_path):
    src, cor = EXAMPLES / FIG1[0][0], EXAMPLES / FIG1[0][1]
    r = run("explain", src, cor)
    assert r.exit_code == 0 and r.output.strip() == summary(explain(semsim.read(src), semsim.read(cor)))
    assert "s->r: P 0.7778 (7/9)" in r.output and 'unmatched source edge 1.8 -R-> 1.9 "for"' in r.output
    r = run("explain", src, cor, "--variant", "legacy")
    words = " ".join(r.output.split())  # wrapped to the terminal's width, whichever it is
    assert r.exit_code == 0 and "legacy: P" in words and "per-edge detail is for the paper variant" in words
    r = run_cli("explain", src, cor, "--html", tmp_path / "no" / "x.html")
    assert r.exit_code == 1 and "cannot write" in r.output and "Traceback" not in r.output
    r = run_cli("explain", src, cor, "--pair", "2")
    assert r.exit_code == 1 and "--pair 2: the inputs hold 1 pairs" in r.output


def test_cli_chooses_a_pair_among_several(tmp_path):
    both = tmp_path / "s.amr", tmp_path / "c.amr"
    order = ("fig1-source.amr", "fig1-correction.amr")
    for path, names in zip(both, (order, order[::-1])):
        path.write_text("\n\n".join((EXAMPLES / n).read_text(encoding="utf-8").strip() for n in names) + "\n",
                        encoding="utf-8")
    r = run_cli("explain", *both)
    assert r.exit_code == 1 and "hold 2 pairs" in r.output
    r = run("explain", *both, "--pair", "2", "--json", tmp_path / "p.json")
    doc = json.loads((tmp_path / "p.json").read_text(encoding="utf-8"))
    assert doc["graphs"]["source"]["id"] == "fig1-correction" and doc["graphs"]["correction"]["id"] == "fig1-source"
    r = run("explain", *both, "--pair", "fig1-source~fig1-correction", "--json", tmp_path / "q.json")
    assert json.loads((tmp_path / "q.json").read_text(encoding="utf-8"))["graphs"]["source"]["id"] == "fig1-source"


# -- essay size: sentences, the list of unmatched edges, wrapped text, pair names, -q ------------
def two_sentences() -> tuple[semsim.Graph, semsim.Graph]:
    """A two-sentence passage: Figure 1's correction, then Figure 1's source, against the
    correction twice (the first sentences' last words agree, so the sentences synchronise)."""
    s, c = fig1()
    return concat([c, s], id="two-source"), concat([c, c], id="two-correction")


def sections(page: str) -> list[str]:
    """The HTML of each sentence's section of a page, in order."""
    return re.findall(r'<section class="sentence[^"]*"[^>]*>.*?</section>', page, re.S)


def drawn(part: str, kind: str, side: str) -> list[int]:
    return [int(v) for v in re.findall(rf'data-side="{side}" data-{kind}="(\d+)"', part)]


def unmatched(doc: dict, direction: str, side: str) -> list[int]:
    return [i for i, r in enumerate(doc["directions"][direction]["edges"][side]) if r["compared"] and not r["matched"]]


def listed(page: str, direction: str, side: str, kind: str = "edge") -> list[tuple[int, int]]:
    """(index, sentence) of the items of the page's unmatched list for ``direction`` and ``side``."""
    part = page.split('<section id="unmatched">')[1].split("</section>")[0]
    block = re.search(rf'<div class="misses[^"]*" data-dir="{re.escape(html.escape(direction))}">(.*?)</div>',
                      part, re.S)[1]
    return [(int(i), int(k)) for i, k in re.findall(
        rf'<li class="miss" data-side="{side}" data-{kind}="(\d+)" data-sentence="(\d+)"', block)]


def test_page_draws_one_sentence_at_a_time():
    """Each synchronised sentence has its own drawing (a sentence's closing full stop kept with
    it); the passage root is drawn in both, over each sentence's part of its children; every
    unit, edge and token is drawn, the first sentence is shown and a menu leads to the others."""
    g1, g2 = two_sentences()
    doc = explain(g1, g2)
    assert doc["sentences"] == [{"source": [0, 5], "correction": [0, 5]}, {"source": [5, 13], "correction": [5, 12]}]
    page = render_html(doc)
    parts = sections(page)
    assert len(parts) == 2 and page.count("<svg") == 2 and '<div id="canvas" class="single">' in page
    assert 'class="sentence on" id="sentence-1"' in parts[0] and 'class="sentence" id="sentence-2"' in parts[1]
    for nav in ('id="sentence-nav"', 'id="prev-sentence"', 'id="next-sentence"', 'id="all-sentences"'):
        assert nav in page
    assert page.count('<option value="') == 2 and "— 2 unmatched edges</option>" in page  # s->r: "for", "john"
    expected = [(range(0, 6), range(0, 6)), (range(6, 13), range(6, 12))]
    for part, (src, cor) in zip(parts, expected):
        assert drawn(part, "token", "source") == list(src) and drawn(part, "token", "correction") == list(cor)
    for side, g in (("source", g1), ("correction", g2)):
        units = [drawn(part, "unit", side) for part in parts]
        assert sorted(itertools.chain(*units)) == sorted([0, *range(len(g.units))])  # the root twice, others once
        assert 0 in units[0] and 0 in units[1]
        edges = [set(drawn(part, "edge", side)) for part in parts]
        assert edges[0] | edges[1] == set(range(len(g.edges))) and not edges[0] & edges[1]
    one = render_html(explain(*fig1()))
    assert len(sections(one)) == 1 and 'id="sentence-nav"' not in one  # one sentence: no menu


@pytest.mark.parametrize("variant", ["paper", "legacy"])
def test_page_lists_every_unmatched_edge(variant):
    """Below the drawings, per direction and side, every compared edge without a match (legacy:
    unit), with the sentence it is drawn in and its reason."""
    g1, g2 = two_sentences()
    doc = explain(g1, g2, USim(variant=variant))
    page = render_html(doc)
    for name, d in doc["directions"].items():
        for side in SIDES:
            if variant == "legacy":
                expected = [u for u, r in enumerate(d["units"][side]) if r["compared"] and not r["matched"]]
                assert [i for i, _ in listed(page, name, side, "unit")] == expected
                continue
            items = listed(page, name, side)
            assert [i for i, _ in items] == unmatched(doc, name, side)
            assert all(k == 1 for _, k in items)  # Figure 1's pair is the second sentence
    if variant == "paper":
        assert len(listed(page, "s->r", "source")) == 2 and "child unaligned (no token of its yield is aligned)" in page
        assert "<h3>r-&gt;s: 2 of 14 correction edges unmatched</h3>" in page
    else:
        assert "<h2>Unmatched units</h2>" in page


@pytest.fixture
def toy_encoder(monkeypatch):
    """The installed plugins (UCCA's reader and scheme, with its function words at half
    weight) and the toy plugin's word vectors for ``--tokens contextual``: the preset's
    accounting on real graphs, without loading a model."""
    import semsim.app.plugins as plugins
    monkeypatch.setenv("SEMSIM_PLUGINS", str(Path(__file__).with_name("toy_plugin.py")))
    monkeypatch.setenv("SEMSIM_WORD_ENCODER", "toy-vectors")
    plugins.reset_plugin_manager()
    yield
    plugins.reset_plugin_manager()


def matched_rows(page: str) -> list[tuple[int, int, int, int]]:
    """Per direction, the panel's "edges matched" row: (source matched, of, correction matched, of)."""
    return [tuple(map(int, m)) for m in
            re.findall(r"<td>edges matched</td><td>(\d+) of (\d+)</td><td>(\d+) of (\d+)</td>", page)]


HEADING = re.compile(r"<h3>(\S+): (\d+) of (\d+) (source|correction) edges unmatched"
                     r"(?:; the \d+ edges earn ([\d.]+) of ([\d.]+) by (?:weight and )?credit)?</h3>")


@pytest.mark.parametrize("preset", ["none", "meaning"])
def test_unmatched_headings_agree_with_the_panel_and_the_counts(toy_encoder, preset):
    """Issue #46: under --preset meaning the headings read "3 of 2.0 source edges unmatched"
    (the leaf edges taken out of graded counts as if ungraded); now they count the edges the
    panel counts, for every setting, and a graded setting's credit, with the leaves' credit,
    adds up to the direction's counts. Numbers for people have 4 decimals at most."""
    from semsim.kernel.metrics.usim import leaf_shares
    g1, g2 = fig1()
    metric = USim(preset=preset)
    doc = explain(g1, g2, metric)  # raises if its counts differ from the score's
    page = render_html(doc)
    headings = HEADING.findall(page)
    assert [(h[0], h[3]) for h in headings] == [(html.escape(d), side) for d in doc["directions"] for side in SIDES]
    for (name, d), row in zip(doc["directions"].items(), matched_rows(page), strict=True):
        heads = [h for h in headings if h[0] == html.escape(name)]
        for k, (_, n, of, side, earned, total) in enumerate(heads):
            m, t = row[2 * k], row[2 * k + 1]
            assert (int(n), int(of)) == (t - m, t) == (len(unmatched(doc, name, side)), t), (name, side)
            if preset == "none":
                assert not earned
                continue
            rows = [r for r in d["edges"][side] if r["compared"]]
            weights = [r.get("weight", 1.0) for r in rows]  # the preset's capped weights: F and R half
            assert float(total) == pytest.approx(sum(weights), abs=5e-5) and 0 < float(earned) <= m
            # the edges' credit and the leaves' add up to the direction's exact counts (JSON)
            shares = leaf_shares((g1, g2)[k])
            leaves = metric.leaves * sum(c * shares[p[k]] for c, p in zip(doc["token_credits"], doc["token_alignment"]))
            counted = d["counts"]["matched1" if side == "source" else "matched2"]
            assert float(earned) == pytest.approx(counted - leaves, abs=5e-5)
            assert counted == pytest.approx(sum(w * r["credit"] for w, r in zip(weights, rows)) + leaves, abs=1e-9)
    long = re.compile(r"\d\.\d{5,}")  # more than 4 decimals
    assert not long.findall(summary(doc, width=200)) and not long.findall(page.split('id="semsim-data"')[0])


def legend_of(page: str) -> dict[str, str]:
    """The page's legend of labels: label -> name."""
    return {html.unescape(a): html.unescape(b) for a, b in re.findall(r'<li data-label="([^"]*)" data-name="([^"]*)">',
                                                                       page)}


def test_page_names_the_labels_of_both_graphs_in_a_legend():
    """Issue #35: the one-letter categories get a legend naming each label used on either graph,
    and only those (the UCCA plugin's scheme names them), and each edge a tooltip; the JSON
    (and so ``--json``) stays as it was: the names are in the page only."""
    g1, g2 = fig1()
    doc = explain(g1, g2)
    page = render_html(doc)
    used = {label for g in (g1, g2) for e in g.edges for label in e.labels}
    assert used == {"H", "A", "P", "E", "C", "R", "U"}
    legend = legend_of(page)
    assert set(legend) == used and legend["A"] == "Participant" and legend["H"] == "Parallel Scene"
    assert list(legend) == ["H", "P", "A", "C", "E", "R", "U"]  # the scheme's order: scenes and their parts first
    assert "<title>R Relator</title>" in page and "<title>U Punctuation</title>" in page
    assert "Participant" not in json.dumps(doc) and json.loads(json.dumps(doc)) == doc
    # names given by the caller win; labels no scheme names are listed bare
    assert legend_of(render_html(doc, {"A": "Actor"})) == {**dict.fromkeys(used, ""), "A": "Actor"}


def test_page_says_whether_misses_are_lost_content_or_structure():
    """Near the top, per direction: the words aligned beside the edges matched, and the misses
    by cause, so that a low score from a fluent rewrite (aligned words, other structure) reads
    differently from one that lost content. Figure 1 under s->r: "for" has no aligned word,
    "john" is aligned to a unit entered by A, not C."""
    g1, g2 = fig1()
    doc = explain(g1, g2)
    page = render_html(doc)
    why = page.split('<section id="why">')[1].split("</section>")[0]
    s2r = re.search(r'<div class="why on" data-dir="s-&gt;r">(.*?)</div>', why, re.S)[1]
    cells = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td>(.*?)</td>", s2r)]
    assert cells == ["words aligned", "5 of 6", "5 of 5", "edges matched", "7 of 9", "7 of 7",
                     "words not aligned", "1", "0", "grouped differently", "0", "0",
                     "labelled differently", "1", "0"]
    assert "1 of the 2 unmatched edges are over words aligned in both texts, 1 over words the token" in s2r
    items = re.findall(r'<li class="miss" data-side="source" data-edge="(\d+)" data-sentence="0" '
                       r'data-cause="(\w+)"', page.split('<section id="unmatched">')[1].split('data-dir="r-&gt;s"')[0])
    assert {g1.unit_text(g1.edges[int(i)].child): cause for i, cause in items} == {"for": "words", "john": "label"}
    assert 'data-list="misses-0-source" data-cause="words">1</button>' in s2r


def test_summary_wraps_to_the_width():
    """No line is longer than the width unless it is one unbreakable token (the signature),
    and wrapping loses nothing."""
    doc = explain(*two_sentences())
    for width in (40, 60, 100):
        for line in summary(doc, width=width).splitlines():
            assert len(line) <= width or " " not in line.strip(), (width, line)
    assert summary(doc, width=40).split() == summary(doc, width=10_000).split()
    assert max(map(len, summary(doc, width=10_000).splitlines())) > 100


def test_cli_summary_wraps_to_the_terminal():
    src, cor = EXAMPLES / FIG1[0][0], EXAMPLES / FIG1[0][1]
    r = run_cli("explain", src, cor, env={"COLUMNS": "50"})
    assert r.exit_code == 0
    long = [line for line in r.output.splitlines() if len(line) > 50]
    assert long == ["  [" + explain(semsim.read(src), semsim.read(cor))["signature"] + "]"]


def test_summary_names_sides_under_r_to_s():
    """Under r->s the correction's units choose: the text says so, a source edge whose child
    no correction unit chose says that, and the correction's misses are listed as correction
    edges even when the source's alone would fill the limit."""
    g1, g2 = fig1()
    doc = explain(g1, g2)
    text = summary(doc, limit=4, width=200)
    s2r, r2s = text.split("\nr->s: ")
    assert s2r.splitlines()[3] == "moved: 1 aligned pairs cross the others (kept aligned): john=John"  # for john
    assert s2r.splitlines()[4].endswith("(source units aligned onto correction units)")
    assert r2s.splitlines()[0].endswith("(correction units aligned onto source units)")
    assert 'unmatched source edge 1.1 -H-> 1.2 "He gva an apple for john": child unaligned (no correction unit ' \
           'chose it)' in r2s
    names = {side: {f'{g.units[e.parent].id} -{"/".join(e.labels)}-> {g.units[e.child].id} "{g.unit_text(e.child)}"'
                    for i, e in enumerate(g.edges) if i in unmatched(doc, "r->s", side)}
             for side, g in (("source", g1), ("correction", g2))}
    lines = re.findall(r"^  unmatched (source|correction) edge (.+?): ", r2s, re.M)
    assert [side for side, _ in lines] == ["source", "source", "correction", "correction"]
    assert all(name in names[side] for side, name in lines)
    assert "... and 2 more unmatched source edges (see --json or --html)" in r2s
    he = next(u for u in range(len(g1.units)) if g1.unit_text(u) == "He gva an apple for john")
    assert doc["directions"]["r->s"]["units"]["source"][he]["reason"] == "no correction unit chose it"


def test_cli_pair_names_as_documented(tmp_path):
    """--pair takes the name `semsim usim` prints, the same without file suffixes (as
    docs/explain.md writes it) and the graph ids joined by ~."""
    src, cor = EXAMPLES / FIG1[0][0], EXAMPLES / FIG1[0][1]
    for name in ("fig1-source~fig1-correction", "fig1-source.xml~fig1-correction.xml", "1"):
        r = run("explain", src, cor, "--pair", name)
        assert r.exit_code == 0 and "s->r: P 0.7778 (7/9)" in r.output, name
    a, b = tmp_path / "a", tmp_path / "b"
    for d, names in ((a, FIG1[0]), (b, FIG1[0][::-1])):
        d.mkdir()
        for target, name in zip(("one.xml", "two.xml"), names):
            shutil.copy(EXAMPLES / name, d / target)
    for name, source_id in (("two", "fig1-correction"), ("one.xml", "fig1-source"),
                            ("fig1-correction~fig1-source", "fig1-correction")):
        r = run("explain", a, b, "--pair", name, "--json", tmp_path / "p.json", "-q")
        assert r.exit_code == 0, r.output
        assert json.loads((tmp_path / "p.json").read_text(encoding="utf-8"))["graphs"]["source"]["id"] == source_id
    r = run_cli("explain", a, b, "--pair", "three")
    assert r.exit_code == 1 and "no pair of that name (names: one.xml, two.xml)" in r.output


def test_cli_quiet(tmp_path):
    """Notes (the pair chosen, the files written) go to stderr; -q silences them, not errors."""
    src, cor = EXAMPLES / FIG1[0][0], EXAMPLES / FIG1[0][1]
    out = tmp_path / "x.html"
    r = run_cli("explain", src, cor, "--html", out)
    assert r.exit_code == 0 and r.stdout == "" and r.stderr == f"semsim: wrote {out}\n"
    r = run_cli("explain", src, cor, "--html", out, "-q")
    assert r.exit_code == 0 and r.stdout == "" and r.stderr == ""
    r = run_cli("explain", src, cor, "--quiet")
    assert r.exit_code == 0 and r.stderr == "" and r.stdout.startswith("source:")
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        d.mkdir()
        for name in FIG1[0]:
            shutil.copy(EXAMPLES / name, d / name)
    r = run_cli("explain", a, b, "--pair", "2")
    assert r.exit_code == 0 and r.stderr.endswith("semsim: explaining pair 2 of 2: fig1-source.xml\n")  # after progress
    r = run_cli("explain", a, b, "--pair", "2", "-q")
    assert r.exit_code == 0 and r.stderr == ""
    r = run_cli("explain", a, b, "-q")
    assert r.exit_code == 1 and "hold 2 pairs" in r.stderr


# -- real data ---------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.needs_shared
def test_counts_equal_the_metric_on_annotated_passages(shared):
    """Whole passages (several sentences, remote edges, implicit units), source vs correction."""
    ann = shared / "data" / "usim-annotations"
    rng = random.Random(3)
    for a, b in (("amittaic1197", "amittaic1297"), ("borgr1198", "borgr1298"), ("tree1202", "tree1302")):
        g1, g2 = semsim.read(ann / f"{a}.xml"), semsim.read(ann / f"{b}.xml")
        assert any(e.remote for e in g1.edges)
        for settings in [{}, {"variant": "legacy"}, rng.choice(SETTINGS[1:])]:
            assert_explains(g1, g2, **settings)
        render_html(explain(g1, g2))  # lays out a 500-token passage


@pytest.mark.needs_shared
@pytest.mark.parametrize("framework", ["ucca", "amr"])
def test_counts_equal_the_metric_on_mrp_pairs(shared, framework):
    """Unrelated sentences paired at random (little overlap: many unaligned units), AMR
    reentrancies included."""
    graphs = semsim.read_all(shared / "data" / "mrp-sample" / f"{framework}.mrp")
    rng = random.Random(11)
    pairs = [tuple(rng.sample(graphs, 2)) for _ in range(6)] + list(itertools.pairwise(graphs[:4]))
    for g1, g2 in pairs:
        for settings in [{}, {"variant": "legacy"}, rng.choice(SETTINGS[1:])]:
            assert_explains(g1, g2, **settings)
    reentrant = next(g for g in graphs if any(e.remote for e in g.edges))
    assert_explains(reentrant, graphs[0])
    render_html(explain(reentrant, graphs[0]))


@pytest.mark.slow
@pytest.mark.needs_shared
def test_essay_text_is_wrapped_and_drawn_by_sentence(shared):
    """A 576-token essay: no summary line past 100 columns but the signature (the old one
    printed lines of 3,000-6,000 characters), and 20 drawings of a screen or two each where
    one row of the whole passage was about 31,000 pixels wide."""
    src, cor = (shared / "data" / "usim-annotations" / name for name in ESSAY)
    r = run_cli("explain", src, cor, "--direction", "r->s", env={"COLUMNS": "100"})
    assert r.exit_code == 0
    lines = r.output.splitlines()
    assert [line for line in lines if len(line) > 100] == [lines[-1]] and lines[-1].startswith("  [usim|")
    assert "unmatched correction edge" in r.output and "(sentence " in r.output
    doc = explain(semsim.read(src), semsim.read(cor))
    page = render_html(doc)
    widths = [float(w) for w in re.findall(r'<svg [^>]*class="drawing" width="([\d.]+)"', page)]
    assert len(widths) == len(doc["sentences"]) == 20 and max(widths) < 4000
    assert page.count('<line class="talign"') == len(doc["token_alignment"])  # within sentences: all drawn
    for name in doc["directions"]:
        for side in SIDES:
            items = listed(page, name, side)
            assert sorted(i for i, _ in items) == unmatched(doc, name, side)
            assert items == sorted(items, key=lambda item: (item[1], item[0]))  # in text order


# -- the page in a browser ---------------------------------------------------------------------
def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])


@pytest.fixture(scope="module")
def browser():
    driver = chromium()
    yield driver
    driver.quit()


@pytest.mark.slow
@pytest.mark.needs_browser
@pytest.mark.parametrize("kind", [0, 1], ids=["ucca", "amr"])
def test_page_in_headless_chromium(browser, tmp_path, kind):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    g1, g2 = fig1(kind)
    doc = explain(g1, g2)
    page = tmp_path / "fig1.html"
    page.write_text(render_html(doc), encoding="utf-8")
    browser.get(page.as_uri())

    shot = tmp_path / "fig1.png"
    assert browser.save_screenshot(str(shot))
    data = shot.read_bytes()
    width, height = png_size(data)
    assert width >= 800 and height >= 600 and len(data) > 20_000  # a drawing, not a blank page

    css = browser.find_elements
    assert len(css(By.CSS_SELECTOR, "svg .graph")) == 2
    for side, g in (("source", g1), ("correction", g2)):
        assert len(css(By.CSS_SELECTOR, f'.unit[data-side="{side}"] circle')) == len(g.units)
        assert len(css(By.CSS_SELECTOR, f'.token[data-side="{side}"]')) == len(g.tokens)
        assert len(css(By.CSS_SELECTOR, f'.edge[data-side="{side}"]')) == len(g.edges)
    assert len(css(By.CSS_SELECTOR, "line.talign")) == len(doc["token_alignment"]) > 0
    for name, d in doc["directions"].items():
        row = browser.find_element(By.CSS_SELECTOR, f'tr.dir-row[data-dir="{name}"]')
        for cell, key in (("p", "precision"), ("r", "recall"), ("f", "f")):
            assert row.find_element(By.CLASS_NAME, cell).text == f"{d['counts'][key]:.4f}"
    total = browser.find_element(By.CSS_SELECTOR, "tr.total .f").text
    assert total == f"{doc['score']['f']:.4f}"

    # colours: the matched/unmatched edges drawn are the explanation's (s->r shown first)
    unmatched = {int(e.get_attribute("data-edge")) for e in css(By.CSS_SELECTOR, '.edge.u[data-side="source"]')}
    assert unmatched == {i for i, r in enumerate(doc["directions"]["s->r"]["edges"]["source"])
                         if r["compared"] and not r["matched"]} != set()

    # hovering a unit highlights it and its counterpart(s) in the other graph
    d = doc["directions"]["s->r"]
    v = next(v for v, row in enumerate(d["units"]["source"]) if row["aligned"] and g1.units[v].anchors)
    unit = browser.find_element(By.CSS_SELECTOR, f'.unit[data-side="source"][data-unit="{v}"]')
    ActionChains(browser).move_to_element(unit.find_element(By.TAG_NAME, "circle")).perform()
    assert "hl" in unit.get_attribute("class").split()
    for u in d["units"]["source"][v]["aligned"]:
        other = browser.find_element(By.CSS_SELECTOR, f'.unit[data-side="correction"][data-unit="{u}"]')
        assert "cp" in other.get_attribute("class").split()
    assert "aligned with correction unit" in browser.find_element(By.ID, "info").text

    # clicking pins the highlight; switching direction recolours by the other alignment
    browser.find_element(By.CSS_SELECTOR, 'input[name="dir"][value="r->s"]').click()
    r2s = doc["directions"]["r->s"]["units"]["source"]
    for u, row in enumerate(r2s):
        el = browser.find_element(By.CSS_SELECTOR, f'.unit[data-side="source"][data-unit="{u}"]')
        expected = "n" if not g1.content_yields[u] else "a" if row["aligned"] else "x"
        assert expected in el.get_attribute("class").split(), u
    target = browser.find_element(By.CSS_SELECTOR, '.unit[data-side="correction"][data-unit="2"] circle')
    ActionChains(browser).click(target).perform()
    for v in doc["directions"]["r->s"]["units"]["correction"][2]["aligned"]:
        el = browser.find_element(By.CSS_SELECTOR, f'.unit[data-side="source"][data-unit="{v}"]')
        assert "cp" in el.get_attribute("class").split()

    # nothing was fetched: no resource but the page itself, no external reference, no JS error
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    refs = browser.execute_script(
        "return Array.from(document.querySelectorAll('[src],[href]')).map(e => e.getAttribute('src') || "
        "e.getAttribute('href'))")
    assert refs == []
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []


@pytest.mark.slow
@pytest.mark.needs_browser
def test_legacy_page_in_headless_chromium(browser, tmp_path):
    """The legacy page colours units by the legacy verdicts and runs without errors."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    g1, g2 = fig1()
    doc = explain(g1, g2, USim(variant="legacy"))
    page = tmp_path / "legacy.html"
    page.write_text(render_html(doc), encoding="utf-8")
    browser.get(page.as_uri())
    for side in ("source", "correction"):
        for u, row in enumerate(doc["directions"]["legacy"]["units"][side]):
            el = browser.find_element(By.CSS_SELECTOR, f'.unit[data-side="{side}"][data-unit="{u}"]')
            expected = "n" if not row["compared"] else "a" if row["matched"] else "x"
            assert expected in el.get_attribute("class").split(), (side, u)
    assert not browser.find_elements(By.CSS_SELECTOR, ".edge.m, .edge.u")  # no per-edge verdicts to show
    assert "paper variant" in browser.find_element(By.CLASS_NAME, "note").text
    x = next(u for u, row in enumerate(doc["directions"]["legacy"]["units"]["source"]) if row["aligned"])
    circle = browser.find_element(By.CSS_SELECTOR, f'.unit[data-side="source"][data-unit="{x}"] circle')
    ActionChains(browser).move_to_element(circle).perform()
    assert "similarity" in browser.find_element(By.ID, "info").text
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []


def shoot(browser, name: str, tmp_path: Path, size: tuple[int, int]) -> Path:
    """A screenshot of the window at ``size``; kept small enough for the docs, and copied to
    ``$SEMSIM_DOCS_IMG`` when set (how docs/img/explain-essay-*.png are made)."""
    browser.set_window_size(*size)
    inner = browser.execute_script("return [window.innerWidth, window.innerHeight]")
    browser.set_window_size(2 * size[0] - inner[0], 2 * size[1] - inner[1])  # the page's area, not the window's
    path = tmp_path / name
    assert browser.save_screenshot(str(path))
    data = path.read_bytes()
    assert png_size(data) == size and 20_000 < len(data) < 300_000
    if os.environ.get("SEMSIM_DOCS_IMG"):
        shutil.copy(path, Path(os.environ["SEMSIM_DOCS_IMG"]) / name)
    return path


@pytest.mark.slow
@pytest.mark.needs_browser
@pytest.mark.needs_shared
def test_essay_page_in_headless_chromium(browser, tmp_path, shared):
    """The essay's page shows one sentence at a time, the menu and buttons move between them,
    and an item of the unmatched list opens its sentence with the edge highlighted."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    src, cor = (shared / "data" / "usim-annotations" / name for name in ESSAY)
    doc = explain(semsim.read(src), semsim.read(cor))
    page = tmp_path / "essay.html"
    page.write_text(render_html(doc), encoding="utf-8")
    browser.set_window_size(1100, 1000)
    browser.get(page.as_uri())
    css = browser.find_elements

    def shown() -> list[int]:
        return [int(s.get_attribute("data-sentence")) for s in css(By.CSS_SELECTOR, ".sentence") if s.is_displayed()]

    assert len(css(By.CSS_SELECTOR, ".sentence")) == 20 and shown() == [0]
    browser.find_element(By.ID, "next-sentence").click()
    assert shown() == [1] and browser.find_element(By.ID, "sentence-count").text == "sentence 2 of 20"
    Select(browser.find_element(By.ID, "sentence-select")).select_by_value("5")
    assert shown() == [5]
    browser.find_element(By.ID, "prev-sentence").click()
    assert shown() == [4]
    browser.find_element(By.ID, "all-sentences").click()
    assert shown() == list(range(20))
    browser.find_element(By.ID, "all-sentences").click()

    # the menu counts each sentence's unmatched edges for the direction shown
    options = css(By.CSS_SELECTOR, "#sentence-select option")
    for direction in ("r->s", "s->r"):
        browser.find_element(By.CSS_SELECTOR, f'input[name="dir"][value="{direction}"]').click()
        counts = [0] * 20
        for _, k in listed(page.read_text(encoding="utf-8"), direction, "source") + \
                listed(page.read_text(encoding="utf-8"), direction, "correction"):
            counts[k] += 1
        assert sum(counts) == len(css(By.CSS_SELECTOR, ".misses.on .miss")) > 0
        assert [o.get_attribute("textContent") for o in options] == [
            o.get_attribute("data-label") + (f" — {n} unmatched edge{'' if n == 1 else 's'}" if n else "")
            for o, n in zip(options, counts)]

    # an unmatched source edge of sentence 2 (s->r): its item opens the sentence and pins the edge
    sentence = 1  # its shortest miss: the edge into "by" (Figure 1's "for", in an essay)
    g = doc["graphs"]["source"]
    i = min((i for i, k in listed(page.read_text(encoding="utf-8"), "s->r", "source") if k == sentence),
            key=lambda i: (len(g["units"][g["edges"][i]["child"]]["text"]), i))
    assert shown() == [4]  # elsewhere first
    item = browser.find_element(By.CSS_SELECTOR, f'.misses.on .miss[data-side="source"][data-edge="{i}"]')
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", item)
    item.click()
    assert shown() == [sentence] and "hl" in item.get_attribute("class").split()
    edge = browser.find_element(By.CSS_SELECTOR, f'#sentence-{sentence + 1} .edge[data-side="source"][data-edge="{i}"]')
    assert {"hl", "u"} <= set(edge.get_attribute("class").split()) and edge.is_displayed()
    info = browser.find_element(By.ID, "info").text
    assert info.startswith(f"source edge {i}: ") and "unmatched: " in info
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0

    # the two screenshots of docs/explain.md: the sentence with the edge pinned, and the list
    ActionChains(browser).move_to_element(browser.find_element(By.TAG_NAME, "h1")).perform()  # no stray :hover
    browser.execute_script("window.scrollTo(0, document.getElementById('bar').offsetTop)")
    shoot(browser, "explain-essay-sentence.png", tmp_path, (1200, 860))
    browser.execute_script("document.getElementById('unmatched').scrollIntoView()")  # the panel's own scroll
    shoot(browser, "explain-essay-unmatched.png", tmp_path, (1200, 700))
    browser.set_window_size(1100, 1000)


def fit_at(browser, size: tuple[int, int]) -> dict:
    """At a page area of ``size``: where the drawing shown, its two graphs and its box end, the
    window's size, and the legend's labels with where it ends."""
    browser.set_window_size(*size)
    inner = browser.execute_script("return [window.innerWidth, window.innerHeight]")
    browser.set_window_size(2 * size[0] - inner[0], 2 * size[1] - inner[1])
    return browser.execute_script("""
        var s = document.querySelector('.sentence.on'), box = s.querySelector('.scroll');
        function rect(el) { return el.getBoundingClientRect(); }
        return {width: innerWidth, height: innerHeight, svg: rect(s.querySelector('svg')).right,
                box: rect(box).bottom, inside: box.scrollHeight <= box.clientHeight + 1,
                source: rect(s.querySelector('.graph[data-side="source"]')).bottom,
                correction: rect(s.querySelector('.graph[data-side="correction"]')).bottom,
                legend: rect(document.getElementById('labels')).bottom,
                why: rect(document.getElementById('why')).bottom,
                labels: Array.from(document.querySelectorAll('#labels li')).map(
                    li => [li.dataset.label, li.textContent.trim()])};""")


@pytest.mark.slow
@pytest.mark.needs_browser
def test_page_at_1400x900_shows_legend_summary_and_both_graphs_whole(browser, tmp_path):
    """Issue #35 at 1400 x 900: the legend names the labels of both graphs, the summary of where
    the score was lost and both graphs are all in the window, without scrolling; a count of the
    summary leads to its misses in the list. The screenshot is docs/img/explain-fig1.png."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    g1, g2 = fig1()
    page = tmp_path / "fig1.html"
    page.write_text(render_html(explain(g1, g2)), encoding="utf-8")
    browser.get(page.as_uri())
    at = fit_at(browser, (1400, 900))
    used = {label for g in (g1, g2) for e in g.edges for label in e.labels}
    assert {label for label, _ in at["labels"]} == used
    assert ["A", "A Participant"] in at["labels"] and ["R", "R Relator"] in at["labels"]
    assert at["legend"] <= at["height"] and at["why"] <= at["height"]
    assert max(at["source"], at["correction"]) <= at["box"] <= at["height"] and at["svg"] <= at["width"]
    assert at["inside"]

    # an edge's description names its label; a count of the summary marks its misses in the list
    r = next(i for i, e in enumerate(g1.edges) if e.labels == ("R",))  # 1.8 -R-> 1.9 "for"
    edge = browser.find_element(By.CSS_SELECTOR, f'.edge[data-side="source"][data-edge="{r}"]')
    ActionChains(browser).move_to_element(edge.find_element(By.TAG_NAME, "text")).perform()
    assert "(R Relator)" in browser.find_element(By.ID, "info").text
    browser.find_element(By.CSS_SELECTOR, '.why.on .to-list[data-cause="words"]').click()
    flashed = browser.find_elements(By.CSS_SELECTOR, ".miss.flash")
    assert len(flashed) == 1 and flashed[0].is_displayed() and '"for"' in flashed[0].text
    browser.execute_script("document.querySelector('.miss.flash').classList.remove('flash')")
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []

    # the screenshot of docs/explain.md: source unit 7 ("for john") clicked, as the text says
    ActionChains(browser).click(browser.find_element(
        By.CSS_SELECTOR, '.unit[data-side="source"][data-unit="7"] circle')).perform()
    shoot(browser, "explain-fig1.png", tmp_path, (1400, 900))
    browser.set_window_size(1100, 1000)


@pytest.mark.slow
@pytest.mark.needs_browser
@pytest.mark.needs_shared
def test_a_tall_drawing_is_scaled_to_the_window(browser, tmp_path, shared):
    """The essay's first sentence is drawn 1,020 pixels high: at 1400 x 900 it is scaled until
    the bottom of the correction's graph is in the window (it was cut off), and fitted again
    when the window grows."""
    src, cor = (shared / "data" / "usim-annotations" / name for name in ESSAY)
    page = tmp_path / "essay.html"
    page.write_text(render_html(explain(semsim.read(src), semsim.read(cor))), encoding="utf-8")
    browser.get(page.as_uri())
    for size in ((1400, 900), (1600, 1200)):
        at = fit_at(browser, size)
        assert max(at["source"], at["correction"]) <= at["box"] <= at["height"] and at["inside"], size
        assert at["legend"] <= at["height"] and {"A", "H", "P", "C"} <= {label for label, _ in at["labels"]}
    browser.set_window_size(1100, 1000)


# -- from text (issue #35) ---------------------------------------------------------------------------
def test_explain_a_line_of_text_files_as_score_scores_it(toy_env):
    """--source/--hyp/--line: the line parsed through the cache as `score` parses it; the same F
    and the same signature (parser and model included), as text, JSON and HTML."""
    src, hyp = toy_env / "src.txt", toy_env / "hyp.txt"
    src.write_text("a b c\nHe ran home .\n", encoding="utf-8")
    hyp.write_text("a b c\nHe runs home .\n", encoding="utf-8")
    out = toy_env / "sentences.jsonl"
    scored = run_cli("score", "--source", src, "--hyp", hyp, "--parser", "toy-parser", "-q", "--bootstrap", "0",
                     "-o", out)
    assert scored.exit_code == 0, scored.output
    line2 = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()][1]
    args = ["explain", "--source", src, "--hyp", hyp, "--line", "2", "--parser", "toy-parser", "-q"]
    r = run_cli(*args, "--json", toy_env / "e.json", "--html", toy_env / "e.html")
    assert r.exit_code == 0, r.output
    doc = json.loads((toy_env / "e.json").read_text(encoding="utf-8"))
    assert doc["score"]["f"] == pytest.approx(line2["f"]) and doc["signature"] == line2["signature"]
    assert "parser:toy-parser|model:" in doc["signature"]
    assert "He runs home" in (toy_env / "e.html").read_text(encoding="utf-8")
    text = run_cli(*args)
    assert text.exit_code == 0 and f"USim F {line2['f']:.4f}" in text.output


@pytest.mark.parametrize("args,message", [
    (["--line", "3"], "src.txt: --line 3: the files have 2 lines"),
    (["--line", "1"], "src.txt:1: an empty line: nothing to explain"),
    ([], "explaining text needs --source, --hyp and --line"),
])
def test_explain_text_errors_are_one_line(toy_env, args, message):
    src, hyp = toy_env / "src.txt", toy_env / "hyp.txt"
    src.write_text("\nb\n", encoding="utf-8")
    hyp.write_text("a\nb\n", encoding="utf-8")
    r = run_cli("explain", "--source", src, "--hyp", hyp, "--parser", "toy-parser", *args)
    assert r.exit_code == 1 and message in r.output and "Traceback" not in r.output, r.output


def test_explain_on_text_files_given_as_graphs_says_how_to_explain_text(tmp_path):
    a, b = tmp_path / "s.txt", tmp_path / "h.txt"
    a.write_text("x\n")
    b.write_text("y\n")
    r = run_cli("explain", a, b)
    assert r.exit_code == 1 and f"explain one of its lines with --source {a} --hyp {b} --line N" in r.output
