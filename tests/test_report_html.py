"""``score --html`` and ``meta-eval --html`` (issue #58): self-contained pages (inline SVG, no
script, no external asset, the same bytes for the same input) whose numbers are the TSV
rendering's, opened in headless Chromium without a console error; the worst lines' links open
their explanation pages."""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
from pathlib import Path

import pytest
from support import chromium, run_cli

TOY = ["--parser", "toy-parser", "--no-cache", "-q", "--bootstrap", "200", "--paired-trials", "200"]
SYSTEMS = {"A": "the cat sat .\nd e f .\nx y w .\nq r s t .\n",
           "B": "the dog sat .\na b c .\nx y z .\nq s .\n",
           "C": "the cat sat .\nd e f .\nx y z .\nq r .\n"}


@pytest.fixture
def systems(toy_env):
    src = toy_env / "src.txt"
    src.write_text("the cat sat .\na b c .\nx y z .\nq r s .\n", encoding="utf-8")
    hyps = []
    for name, text in SYSTEMS.items():
        (toy_env / f"{name}.txt").write_text(text, encoding="utf-8")
        hyps += ["--hyp", f"{name}={toy_env / f'{name}.txt'}"]
    return ["--source", src, *hyps]


def _tsv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text), delimiter="\t"))


def _self_contained(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page
    assert not re.search(r"<script|<link|<img|<iframe|\bsrc=|url\(|@import|https?://", page)


@pytest.mark.slow
def test_score_html_is_self_contained_and_deterministic(systems, toy_env):
    page = toy_env / "report.html"
    assert run_cli("score", *systems, *TOY, "--html", page).exit_code == 0
    first = page.read_text(encoding="utf-8")
    _self_contained(first)
    assert run_cli("score", *systems, *TOY, "--html", page).exit_code == 0
    assert page.read_text(encoding="utf-8") == first
    worst = sorted(toy_env.glob("report.worst*.html"))
    assert len(worst) == 10 and all(f'href="{w.name}"' in first for w in worst)
    assert run_cli("score", *systems, *TOY, "--html", toy_env / "src.txt").exit_code == 1  # never over an input


def test_meta_eval_html_is_self_contained():
    from semsim.app.metaeval import Judgment, meta_evaluate
    from semsim.app.metaeval.page import render_metaeval
    pairs = [("He go home .", "He goes home .", 4.0), ("She like cats .", "She likes dogs .", 1.0),
             ("I has a car .", "I have a car .", 5.0), ("We is here .", "We are there now .", 2.0)]
    js = [Judgment(s, o, h, (h,), n, "sys") for n, (s, o, h) in enumerate(pairs, 2)]
    report = meta_evaluate(js, {"length": lambda ps: [float(len(o)) for _, o in ps]}, n_bootstrap=20)
    page = render_metaeval(report)
    _self_contained(page)
    assert page == render_metaeval(report) and page.count('class="dot"') == 4 and "row 2 (sys)" in page


@pytest.fixture(scope="module")
def browser():
    driver = chromium((1100, 1400))
    yield driver
    driver.quit()


def _errors(browser) -> list[dict]:
    return [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def _cells(browser, table: str) -> list[dict[str, str]]:
    from selenium.webdriver.common.by import By
    rows = browser.find_elements(By.CSS_SELECTOR, f"#{table} tr")[1:]
    return [{td.get_attribute("data-col"): td.text for td in row.find_elements(By.TAG_NAME, "td")} for row in rows]


@pytest.mark.slow
@pytest.mark.needs_browser
def test_score_html_in_headless_chromium(browser, systems, toy_env):
    from selenium.webdriver.common.by import By
    page = toy_env / "report.html"
    assert run_cli("score", *systems, *TOY, "--html", page).exit_code == 0
    tsv = _tsv(run_cli("score", *systems, *TOY, "--format", "tsv").output)
    browser.get(page.as_uri())
    shown = _cells(browser, "systems")
    assert [row["system"] for row in shown] == sorted((r["system"] for r in tsv), key=lambda s: -float(
        next(r["macro_f"] for r in tsv if r["system"] == s)))  # ranked
    by_name = {r["system"]: r for r in tsv}
    for row in shown:
        assert {k: v for k, v in row.items() if k != "#"} == {k: v for k, v in by_name[row["system"]].items()
                                                              if k != "signature"}
    css = browser.find_elements
    assert len(css(By.CSS_SELECTOR, "#intervals circle.mean")) == len(css(By.CSS_SELECTOR, "#intervals line.ci")) == 3
    assert len(css(By.CSS_SELECTOR, "#paired g.pair")) == 6  # every ordered pair of 3 systems
    assert [g.get_attribute("data-n") for g in css(By.CSS_SELECTOR, "#distributions g.dist")] == ["4"] * 3
    worst = _cells(browser, "worst")
    assert len(worst) == 10 and worst[0]["f"] == "0.000000"
    assert _errors(browser) == []
    if os.environ.get("SEMSIM_DOCS_IMG"):  # how docs/img/score-report.png is made
        shutil.copy(_shot(browser, toy_env / "score-report.png"), Path(os.environ["SEMSIM_DOCS_IMG"]))
    link = browser.find_element(By.CSS_SELECTOR, "#worst a")
    link.click()
    assert browser.current_url.endswith("report.worst1.html") and css(By.CSS_SELECTOR, "svg .graph")
    assert _errors(browser) == []


def _shot(browser, path: Path) -> Path:
    assert browser.save_screenshot(str(path))
    return path


@pytest.mark.slow
@pytest.mark.needs_browser
def test_meta_eval_html_in_headless_chromium(browser, toy_env):
    from selenium.webdriver.common.by import By
    table = toy_env / "r.tsv"
    table.write_text("source\toutput\tscore\nHe go home .\tHe goes home .\t4\nShe like cats .\tShe likes dogs .\t1\n"
                     "I has a car .\tI have a car .\t5\nWe is here .\tWe are there now .\t2\n"
                     "The Big dog ran .\tThe dog ran far away .\t1\n", encoding="utf-8")
    args = [table, "--parser", "toy-parser", "--no-cache", "--measure", "paper", "--measure", "levenshtein",
            "--bootstrap", "50", "-q"]
    page = toy_env / "m.html"
    assert run_cli("meta-eval", *args, "--html", page).exit_code == 0
    tsv = _tsv(run_cli("meta-eval", *args, "--format", "tsv").output)
    browser.get(page.as_uri())
    assert _cells(browser, "correlations") == [{k: v for k, v in r.items() if k != "signature"} for r in tsv]
    for name in ("paper", "levenshtein"):
        assert len(browser.find_elements(By.CSS_SELECTOR, f"#scatter-{name} circle.dot")) == 5
    assert _errors(browser) == []


def test_score_html_never_writes_an_explanation_page_over_an_input(systems, toy_env):
    """The report's pages beside it (REPORT.worstK.html) are outputs as the report is: a run
    whose input has such a name is refused before anything is parsed, and the input is kept."""
    hyp = toy_env / "rep.worst2.html"
    hyp.write_text(SYSTEMS["B"], encoding="utf-8")
    result = run_cli("score", *systems, "--hyp", f"D={hyp}", *TOY, "--html", toy_env / "rep.html")
    assert result.exit_code == 1 and "rep.worst2.html" in result.output
    assert hyp.read_text(encoding="utf-8") == SYSTEMS["B"] and not (toy_env / "rep.html").exists()
