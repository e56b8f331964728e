"""``semsim explain``: the explanation must count exactly what the metric counts, and the
page must render and react in a real (headless) browser."""

from __future__ import annotations

import itertools
import json
import random
import struct
from pathlib import Path

import pytest
from click.testing import CliRunner

import semsim
from semsim.api import USim
from semsim.cli import cli
from semsim.explain import explain, render_html, summary
from semsim.stats import Counts

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FIG1 = [("fig1-source.xml", "fig1-correction.xml"), ("fig1-source.amr", "fig1-correction.amr")]
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
    assert doc["signature"] == score.signature and doc["score"]["f"] == score.f
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


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


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
    assert r.exit_code == 0 and "legacy: P" in r.output and "per-edge detail is for the paper variant" in r.output
    r = CliRunner().invoke(cli, ["explain", str(src), str(cor), "--html", str(tmp_path / "no" / "x.html")])
    assert r.exit_code == 1 and "cannot write" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(cli, ["explain", str(src), str(cor), "--pair", "2"])
    assert r.exit_code == 1 and "--pair 2: the inputs hold 1 pairs" in r.output


def test_cli_chooses_a_pair_among_several(tmp_path):
    both = tmp_path / "s.amr", tmp_path / "c.amr"
    order = ("fig1-source.amr", "fig1-correction.amr")
    for path, names in zip(both, (order, order[::-1])):
        path.write_text("\n\n".join((EXAMPLES / n).read_text(encoding="utf-8").strip() for n in names) + "\n",
                        encoding="utf-8")
    r = CliRunner().invoke(cli, ["explain", *map(str, both)])
    assert r.exit_code == 1 and "hold 2 pairs" in r.output
    r = run("explain", *both, "--pair", "2", "--json", tmp_path / "p.json")
    doc = json.loads((tmp_path / "p.json").read_text(encoding="utf-8"))
    assert doc["graphs"]["source"]["id"] == "fig1-correction" and doc["graphs"]["correction"]["id"] == "fig1-source"
    r = run("explain", *both, "--pair", "fig1-source~fig1-correction", "--json", tmp_path / "q.json")
    assert json.loads((tmp_path / "q.json").read_text(encoding="utf-8"))["graphs"]["source"]["id"] == "fig1-source"


# -- real data ---------------------------------------------------------------------------------
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


# -- the page in a browser ---------------------------------------------------------------------
def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])


@pytest.fixture(scope="module")
def browser():
    import shutil

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1100,1000", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    yield driver
    driver.quit()


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
