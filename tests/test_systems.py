"""Comparing systems: paired significance tests, the systems table, the gec-metrics-shaped adapter."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from semsim.app.cli import cli
from semsim.app.systems import compare_systems
from semsim.kernel.errors import SemsimError
from semsim.kernel.signature import Signature
from semsim.kernel.significance import p_values, paired_tests
from semsim.kernel.stats import Counts, Score


def exact_permutation_p(diff: np.ndarray) -> float:
    """The exact two-sided sign-flip p-value, by enumerating all 2^n flips."""
    observed = abs(diff.mean())
    flips = [abs((np.array(signs) * diff).mean()) >= observed - 1e-12
             for signs in itertools.product((-1, 1), repeat=len(diff))]
    return sum(flips) / len(flips)


def test_randomization_approaches_the_exact_permutation_test():
    diff = np.array([0.3, 0.1, -0.05, 0.2, 0.0, 0.15, 0.25, -0.1, 0.05, 0.12])
    exact = exact_permutation_p(diff)
    approx = p_values(diff[:, None], "ar", trials=20000, seed=1)[0]
    assert approx == pytest.approx(exact, abs=0.01)


def test_identical_systems_are_not_different_and_clear_differences_are():
    rng = np.random.default_rng(0)
    base = rng.random(300)
    better = np.clip(base + 0.1 + rng.normal(0, 0.02, 300), 0, 1)
    for method in ("ar", "bs"):
        same, diff = paired_tests({"a": base, "b": base.copy(), "c": better}, method, trials=2000)[:2]
        assert same.p == 1.0 and same.delta == 0.0
        assert diff.delta > 0.09 and diff.p == pytest.approx(1 / 2001)  # no trial is as extreme


def test_tests_are_seeded_shared_and_corrected():
    rng = np.random.default_rng(3)
    systems = {f"s{i}": rng.random(50) + 0.02 * i for i in range(4)}
    t1 = paired_tests(systems, "bs", trials=500, seed=7)
    t2 = paired_tests(dict(reversed(list(systems.items()))), "bs", trials=500, seed=7)
    assert [(t.a, t.b) for t in t1] == [("s0", "s1"), ("s0", "s2"), ("s0", "s3"), ("s1", "s2"), ("s1", "s3"),
                                        ("s2", "s3")]
    by_pair = {frozenset((t.a, t.b)): t.p for t in t2}
    assert all(by_pair[frozenset((t.a, t.b))] == t.p for t in t1)  # same draws whatever the order
    ps = np.array([t.p for t in t1])
    order = np.argsort(ps)  # Benjamini–Hochberg by hand
    q = np.minimum.accumulate((ps[order] * len(ps) / np.arange(1, len(ps) + 1))[::-1])[::-1]
    assert [t.q for t in np.array(t1)[order]] == pytest.approx(np.minimum(q, 1))


def test_mismatched_systems_are_an_error():
    with pytest.raises(ValueError, match="same sentences"):
        paired_tests({"a": [0.1, 0.2], "b": [0.3]})
    with pytest.raises(ValueError, match="unknown test"):
        p_values(np.zeros((3, 1)), "t-test")


def _scores(fs):
    return [Score({"x": Counts(round(f * 10), 10, round(f * 10), 10)}, Signature.of("usim").add("test")) for f in fs]


def test_report_ranks_systems_and_renders_every_format():
    report = compare_systems({"weak": _scores([0.1, 0.2, 0.3] * 10), "strong": _scores([0.9, 0.8, 1.0] * 10),
                              "strong2": _scores([0.9, 0.8, 1.0] * 10)}, n_bootstrap=200, trials=999)
    assert [r["system"] for r in report.ranked] == ["strong", "strong2", "weak"]
    assert report.versus_best("weak").q < 0.05 and report.versus_best("strong2").p == 1.0
    md = report.render("markdown")
    assert "| 1 | strong | 30 | 0.9000 |" in md and "| 3 | weak | 30 | 0.2000 |" in md
    assert "| 1 | 1.0000 | 0.0010* |" in md  # strong vs strong2, strong vs weak
    tsv = report.render("tsv").splitlines()
    assert tsv[0].split("\t")[-3:] == ["p_vs_best", "q_vs_best", "signature"] and len(tsv) == 4
    sig = "usim|test|bootstrap:200|conf:0.95|seed:12345|paired:ar|trials:999"  # scores, CI and tests
    assert {row.split("\t")[-1] for row in tsv[1:]} == {sig}
    doc = json.loads(report.render("json"))
    assert len(doc["paired_tests"]) == 3 and doc["systems"][0]["system"] == "weak" and doc["signature"] == sig
    assert report.render("text").rstrip().endswith(f"signature: {sig}")
    assert "yes (p=0.0010" in report.render("text")


SOURCE = ["He gva an apple .", "The cat sat .", "Dogs run fast .", "", "I like Tea ."]
HYP1 = ["He gave John an apple .", "The cat sat .", "Dogs ran fast .", "", "I like tea ."]
HYP2 = ["He gave an apple .", "the Cat sat down .", "Dogs run .", "x", "We like Tea ."]


def test_score_command_prints_the_systems_table(toy_env):
    for name, lines in (("src", SOURCE), ("a", HYP1), ("b", HYP2)):
        (toy_env / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["score", "--source", str(toy_env / "src"), "--hyp", str(toy_env / "a"), "--hyp",
            str(toy_env / "b"), "--parser", "toy-parser", "-q", "--paired-trials", "999"]
    r = CliRunner().invoke(cli, [*args, "--format", "json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    (test,) = doc["paired_tests"]
    assert (test["a"], test["b"], test["method"], test["n"]) == ("a", "b", "ar", 5)
    macro = {s["system"]: s["macro_f"] for s in doc["systems"]}
    assert test["delta"] == pytest.approx(macro["b"] - macro["a"])
    bs = CliRunner().invoke(cli, [*args, "--format", "markdown", "--paired", "bs"])
    assert bs.stdout.startswith("| # | system |") and "Paired bootstrap (999 trials)" in bs.stdout
    assert "the paired bootstrap understates p-values on few sentences" in bs.stderr  # 5 sentences
    none = CliRunner().invoke(cli, [*args, "--paired", "none"]).output
    assert "differs from #1" not in none and "Paired" not in none
    # how much each system changed, beside its USim, and what the order does not mean
    changes = {s["system"]: (s["changed"], s["word_change"]) for s in doc["systems"]}
    assert changes["a"] == (pytest.approx(3 / 5), pytest.approx(4 / 5))  # John; ran; tea (case counts)
    assert changes["b"][0] == pytest.approx(5 / 5)
    assert "USim is faithfulness to the source: an output that changes nothing scores 1" in none
    assert "changed  WordChange" in none and "60.0%" in none


def test_gec_metrics_shaped_adapter(toy_env):
    from semsim.app.metric import USimMetric
    scorer = USimMetric(USimMetric.Config(parser="toy-parser"))
    sentence = scorer.score_sentence(SOURCE, HYP1)
    assert len(sentence) == 5 and sentence[1] == 1.0 and sentence[3] == 1.0  # both empty: 1 by convention
    assert scorer.score_corpus(SOURCE, HYP1) == pytest.approx(sum(sentence) / 5)
    both = scorer.score_systems(SOURCE, [HYP1, HYP2])
    assert both[0] == sentence and both[1][3] == 0.0  # empty source, non-empty output: 0
    # the same numbers as the command line
    for name, lines in (("src", SOURCE), ("a", HYP1)):
        (toy_env / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = CliRunner().invoke(cli, ["score", "--source", str(toy_env / "src"), "--hyp", str(toy_env / "a"),
                                 "--parser", "toy-parser", "-q", "--format", "json", "-o", str(toy_env / "s.jsonl")])
    assert r.exit_code == 0, r.output
    assert [json.loads(x)["f"] for x in (toy_env / "s.jsonl").read_text().splitlines()] == sentence
    with pytest.raises(SemsimError, match="system 0 has 4 sentences but there are 5 sources"):
        scorer.score_sentence(SOURCE, HYP1[:4])
    assert USimMetric().config.usim.variant == "paper" and "usim|variant:paper" in scorer.get_signature()


def test_the_ranked_table_names_the_setting_closest_to_people(toy_env):
    """Issue #46: under the ranked table of the paper's setting, one line names the setting
    that agrees best with people and where the evidence is; not with -q, not in TSV or JSON,
    not under the preset itself. Its numbers are docs/validity.md's."""
    from semsim.app.systems import PRESET_NOTE, SPEARMAN_TMU_GFM
    for name, lines in (("src", ["a b c .", "the cat sat ."]), ("a", ["a b d .", "the cat sat ."])):
        (toy_env / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["score", "--source", str(toy_env / "src"), "--hyp", str(toy_env / "a"), "--parser", "toy-parser",
            "--bootstrap", "0"]
    for fmt in ("text", "markdown"):
        out = CliRunner().invoke(cli, [*args, "--format", fmt]).stdout
        table_end = out.index("a  " if fmt == "text" else "| 1 | a |")
        assert out[table_end:].splitlines()[1 if fmt == "text" else 2] == PRESET_NOTE, out
    for extra in (["-q"], ["--format", "tsv"], ["--format", "json"], ["--preset", "meaning"],
                  ["--tokens", "contextual", "--labels", "unlabeled", "--leaves", "8", "--denominator", "aligned",
                   "--tie-break", "all", "--units", "dice", "--edge-weights", "capped"]):
        r = CliRunner().invoke(cli, [*args, *extra])
        assert r.exit_code == 0 and "--preset meaning" not in r.stdout, (extra, r.output)
    assert "--preset meaning" in PRESET_NOTE and "docs/validity.md" in PRESET_NOTE
    validity = (Path(__file__).resolve().parents[1] / "docs" / "validity.md").read_text(encoding="utf-8")
    tmu = validity.split("**GEC: TMU-GFM, development part**")[1].split("**Simplification")[0]
    for measure, rho in SPEARMAN_TMU_GFM.items():
        row = next(line for line in tmu.splitlines() if line.startswith(f"| {measure} |"))
        assert row.split(" | ")[3].split()[0] == f"{rho:.3f}", row
        assert f"{rho:.3f}" in PRESET_NOTE


def test_scoring_while_parsing_leaves_refusals_for_later_and_lets_bugs_out():
    """Pairs scored as workers parse: a pair a measure refuses (a SemsimError) is left for
    score_lines, which skips or raises it in file order; any other exception is a bug and
    comes out at once (it was swallowed, and a flaky bug then passed unseen)."""
    from semsim.app.scoring import ScoresWhileParsing
    from semsim.kernel.graph import Unit, build_graph

    class Parsed:  # what ScoresWhileParsing asks of Parses
        def __init__(self, graphs):
            self.graphs = graphs

        def key(self, text):
            return text

        def signed(self, score):
            return score

    g = build_graph(["a"], [Unit("root"), Unit("w", anchors=(0,))], [(0, 1, "A")])
    parses = Parsed({"a": g, "b": g})

    def refuses(a, b):
        raise SemsimError("too large")

    early = ScoresWhileParsing(["a"], [["b"]], refuses)
    early({"a": g, "b": g}, parses)
    assert early.scored == {}

    def bug(a, b):
        raise ZeroDivisionError("a bug")

    with pytest.raises(ZeroDivisionError):
        ScoresWhileParsing(["a"], [["b"]], bug)({"a": g, "b": g}, parses)
