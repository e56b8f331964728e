"""The meta-evaluation against people (``semsim.app.metaeval``, ``semsim meta-eval``): its
numbers against scipy on tiny hand-made tables, its bootstrap over sources, the three table
formats and the tables it refuses, and the anchors on the pinned MiniLM."""

from __future__ import annotations

import json
import math
import shlex
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from support import run_cli as run

import semsim.kernel.stats
from semsim.app import metaeval
from semsim.app.metaeval import Judgment, anchor, changed, correlate, meta_evaluate, read_judgments
from semsim.app.metaeval import tables as metaeval_tables
from semsim.kernel.errors import InputError, SettingsError
from semsim.kernel.stats import compare_correlations

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"

#: source, output, human: six changed pairs of four sources (the first source twice, the
#: third twice), and one unchanged pair (whitespace aside) that changed() drops
TSV = [("He go home .", "He goes home .", "4\t3"), ("She like cats .", "She likes dogs .", "1\t2"),
       ("The Big dog ran .", "The big dog ran .", "3"), ("I has a car .", "I have a car .", "4"),
       ("We is here .", "We are there now .", "2"), ("He go home .", "He went to school .", "0"),
       ("I has a car .", "I has  a car .", "4"), ("The Big dog ran .", "The dog ran far away .", "1")]


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def tsv_table(tmp_path: Path, header: bool = True) -> Path:
    rows = [f"{s}\t{o}\t{h}" for s, o, h in TSV]
    return write(tmp_path / "ratings.tsv", "\n".join((["source\toutput\tscore"] if header else []) + rows) + "\n")


# -- correlations ---------------------------------------------------------------------------------
SCORES = [0.9, 0.2, 0.7, 0.8, 0.4, 0.1, 0.5, 0.65]
HUMAN = [3.5, 1.5, 3.0, 4.0, 2.0, 0.0, 3.0, 1.0]


def test_correlations_equal_scipy():
    got = correlate(SCORES, HUMAN, n_bootstrap=0)
    assert got["pearson"].value == pytest.approx(stats.pearsonr(SCORES, HUMAN).statistic, abs=1e-12)
    assert got["spearman"].value == pytest.approx(stats.spearmanr(SCORES, HUMAN).statistic, abs=1e-12)
    assert got["kendall"].value == pytest.approx(stats.kendalltau(SCORES, HUMAN).statistic, abs=1e-12)
    assert all(math.isnan(c.low) and math.isnan(c.high) for c in got.values())


def test_bootstrap_resamples_groups_and_equals_scipy_on_each_resample(monkeypatch):
    """The interval is the percentile interval of scipy's coefficients on resamples that draw
    whole groups, as the docstring says they are drawn; the same seed gives the same interval."""
    groups = ["a", "b", "a", "c", "d", "e", "c", "f"]
    got = correlate(SCORES, HUMAN, groups, n_bootstrap=200, seed=7)
    assert got == correlate(SCORES, HUMAN, groups, n_bootstrap=200, seed=7)
    assert got != correlate(SCORES, HUMAN, groups, n_bootstrap=200, seed=8)
    members = {}
    for i, g in enumerate(groups):
        members.setdefault(g, []).append(i)
    order = list(members.values())
    draws = np.random.default_rng(7).integers(0, len(order), (200, len(order)))
    x, y = np.array(SCORES), np.array(HUMAN)
    for name, function in (("pearson", stats.pearsonr), ("spearman", stats.spearmanr),
                           ("kendall", stats.kendalltau)):
        samples = []
        for row in draws:
            idx = [i for g in row for i in order[g]]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a constant resample: scipy warns and gives nan
                samples.append(function(x[idx], y[idx]).statistic)
        samples = np.array(samples)
        lo, hi = np.quantile(samples[np.isfinite(samples)], [0.025, 0.975])
        assert (got[name].low, got[name].high) == pytest.approx((lo, hi), abs=1e-9), name
    # a large table's Kendall resamples, one by one through scipy, are the same
    monkeypatch.setattr(semsim.kernel.stats, "_KENDALL_MATRIX_MAX", 0)  # the correlations are the kernel's
    one_by_one = correlate(SCORES, HUMAN, groups, n_bootstrap=200, seed=7)["kendall"]
    assert (one_by_one.low, one_by_one.high) == pytest.approx((got["kendall"].low, got["kendall"].high), abs=1e-12)
    # pairs resampled one by one give another interval than their sources resampled together
    assert correlate(SCORES, HUMAN, None, n_bootstrap=200, seed=7) != got


def test_paired_differences_resample_both_measures_together():
    """compare_correlations: a's coefficient minus b's, on correlate()'s own resamples for the
    same seed (so each resample's difference is that of the two intervals' samples), with the
    share of resamples on which a is the higher. A measure that is b plus noise is below b on
    nearly every resample although their intervals side by side overlap."""
    rng = np.random.default_rng(0)
    human = rng.normal(size=300)
    groups = [k // 3 for k in range(300)]
    good = human + rng.normal(scale=1.0, size=300)
    worse = good + rng.normal(scale=0.6, size=300)
    d = compare_correlations(worse, good, human, groups, n_bootstrap=300, seed=3)
    a, b = (correlate(x, human, groups, n_bootstrap=300, seed=3) for x in (worse, good))
    for name in ("pearson", "spearman", "kendall"):
        assert d[name].value == pytest.approx(a[name].value - b[name].value)
        assert d[name].high < 0 and d[name].above < 0.05, name
        assert a[name].high > b[name].low  # the two intervals overlap: only the paired one tells
    # each resample's difference is the difference of correlate's samples on that resample
    w = semsim.kernel.stats._group_resamples(300, groups, 300, 3)
    sa = semsim.kernel.stats._resampled(np.asarray(worse), human, w)["spearman"]
    sb = semsim.kernel.stats._resampled(np.asarray(good), human, w)["spearman"]
    lo, hi = np.quantile(sa - sb, [0.025, 0.975])
    assert (d["spearman"].low, d["spearman"].high) == pytest.approx((lo, hi))
    assert (a["spearman"].low, a["spearman"].high) == pytest.approx(tuple(np.quantile(sa, [0.025, 0.975])))
    same = compare_correlations(good, good, human, groups, n_bootstrap=50)
    assert all(x.value == x.low == x.high == 0 and x.above == 0 for x in same.values())
    assert compare_correlations(good, worse, human, groups, n_bootstrap=300, seed=3)["pearson"].above > 0.95
    assert math.isnan(compare_correlations(good, worse, human, n_bootstrap=0)["kendall"].low)
    with pytest.raises(metaeval.SemsimError, match="300 and 2 scores"):
        compare_correlations(good, good[:2], human)


def test_a_constant_column_gives_nan_not_a_crash():
    got = correlate([0.5] * 5, [1, 2, 3, 4, 5], n_bootstrap=50)
    assert all(math.isnan(c.value) and math.isnan(c.low) for c in got.values())
    assert got["pearson"].as_dict() == {"value": None, "low": None, "high": None}
    assert math.isnan(correlate([1.0], [2.0])["pearson"].value)


# -- tables ---------------------------------------------------------------------------------------
def test_tsv_with_and_without_header(tmp_path):
    js = read_judgments(tsv_table(tmp_path))
    assert len(js) == len(TSV) and js[0] == Judgment("He go home .", "He goes home .", 3.5, (4.0, 3.0), 2)
    (tmp_path / "bare").mkdir()
    headerless = read_judgments(tsv_table(tmp_path / "bare", header=False))
    assert [j.human for j in headerless] == [j.human for j in js] and headerless[0].row == 1
    assert [(j.source, j.output) for j in changed(js)] == [(s, o) for s, o, _ in TSV if s.split() != o.split()]


def test_tmu_gfm_csv(tmp_path):
    table = write(tmp_path / "t.csv", 'source,output,grammer,fluency,meaning,system,ave_g,ave_f,ave_m\n'
                  'He go home.,"He goes home, now.","3,4","3,4","4,3","lstm,cnn",3.5,3.5,3.5\n'
                  'She like cats.,She like cats.,"4,4","4,4","4,4",smt,4.0,4.0,4.0\n')
    a, b = read_judgments(table)
    assert a == Judgment("He go home.", "He goes home, now.", 3.5, (4.0, 3.0), 2, "lstm,cnn")
    assert b.row == 3 and changed([a, b]) == [a]
    assert read_judgments(table, "tmu-gfm") == [a, b]


def test_asset_csv_keeps_meaning_and_averages_per_pair(tmp_path):
    table = write(tmp_path / "asset.csv", "original,simplification,original_sentence_id,aspect,worker_id,rating\n"
                  '"A long, hard sentence.",A short one.,7,meaning,1,60\n'
                  '"A long, hard sentence.",A short one.,7,fluency,1,10\n'
                  "Another one.,Another.,8,meaning,2,90\n"
                  '"A long, hard sentence.",A short one.,7,meaning,3,80\n')
    a, b = read_judgments(table)
    assert a == Judgment("A long, hard sentence.", "A short one.", 70.0, (60.0, 80.0), 2)
    assert b == Judgment("Another one.", "Another.", 90.0, (90.0,), 4)


@pytest.mark.parametrize(("name", "text", "fmt", "error"), [
    ("t.csv", "source,output,meaning,system\nA.,B.,\"1,2\",x\n", "auto",
     "t.csv:1: no column ave_m in the header of this tmu-gfm table (expected source,output,meaning,ave_m)"),
    ("t.csv", "source,output,meaning,ave_m\nA.,B.,\"1,2\",1.5\nA.,B.,\"1,2\"\n", "auto",
     "t.csv:3: too few fields: 3, but the header has 4"),
    ("t.csv", "source,output,meaning,ave_m\nA.,B.,\"1,2\",1.5\n\nA.,C.,\"1,x\",1.5\n", "auto",
     "t.csv:4: meaning rating 'x' is not a number"),
    ("a.csv", "original,simplification,aspect,rating\nA.,B.,meaning,50\nA.,B.,meaning,high\n", "auto",
     "a.csv:3: rating 'high' is not a number"),
    ("a.csv", "original,simplification,aspect\nA.,B.,meaning\n", "asset",
     "a.csv:1: no column rating in the header of this asset table (expected original,simplification,aspect,rating)"),
    ("r.tsv", "A .\tB .\t3\nA .\tC .\n", "auto",
     "r.tsv:2: too few fields: 2; expected source<TAB>output<TAB>score[<TAB>score...]"),
    ("r.tsv", "A .\tB .\t3\nA .\tC .\tnan\n", "auto", "r.tsv:2: score 'nan' is not a finite number"),
    ("r.tsv", "A .\tB .\tinf\n", "tsv", "r.tsv:1: score 'inf' is not a finite number"),
    ("r.tsv", "source\toutput\tscore\n", "auto", "r.tsv: no judgments in this tsv table"),
    ("t.csv", "", "auto", "t.csv:1: empty table"),
    ("t.txt", "a,b,c\n1,2,3\n", "auto", "t.txt:1: cannot tell the table's format"),
    # round five (#45): columns given twice, numbers float() takes that no table writes
    ("t.csv", "source,output,meaning,ave_m,source\nA.,B.,\"1,2\",1.5,C.\n", "auto",
     "t.csv:1: column 'source' appears 2 times in the header: keep one"),
    ("t.csv", "source,output,meaning,ave_m,ave_m\nA.,B.,\"1,2\",1.5,1\n", "auto",
     "t.csv:1: column 'ave_m' appears 2 times in the header: keep one"),
    ("r.tsv", "A .\tB .\t1_0\n", "tsv", "r.tsv:1: score '1_0' is not a number (plain digits, a point, an exponent)"),
    ("r.tsv", "A .\tB .\t3\nA .\tC .\t\u0663\n", "tsv", "r.tsv:2: score '\u0663' is not a number"),
])
def test_bad_tables_are_one_line_naming_file_and_row(tmp_path, name, text, fmt, error):
    table = write(tmp_path / name, text)
    with pytest.raises(InputError) as info:
        read_judgments(table, fmt)
    assert str(info.value).startswith(str(tmp_path / error.split(":")[0]) + error[len(error.split(":")[0]):])
    r = run("meta-eval", table, "--table-format", fmt, "--measure", "levenshtein", "-q")
    assert r.exit_code == 1 and "Traceback" not in r.output
    (line,) = r.stderr.splitlines()
    assert line == f"Error: {info.value}"


# -- measures -------------------------------------------------------------------------------------
def test_measure_specs():
    from semsim.app.commands.metaeval import measure_spec
    assert measure_spec("paper") == ("paper", {}) and measure_spec("legacy") == ("legacy", {"variant": "legacy"})
    assert measure_spec("chrf") == ("chrf", None)
    assert measure_spec("para:tokens=paraphrase,leaves=2") == ("para", {"tokens": "paraphrase", "leaves": 2})
    assert measure_spec("p:align=passage,tie-break=all,remote=no") == (
        "p", {"by_sentence": False, "tie_break": "all", "remote": False})
    for bad in ("nope", "x:", "x:leaves", ":leaves=2", "x:leaves=1,leaves=2",
                "chrf:tokens=ordered", "paper:leaves=2", "Levenshtein:leaves=2"):  # a measure's name taken
        with pytest.raises(SettingsError):
            measure_spec(bad)


@pytest.mark.parametrize("spec,says", [
    ("x:cache=5", "cache=5: expected True"), ("x:cache=1.5", "cache=1.5"), ("x:model=1", "model=1: expected a path"),
    ("x:use_cache=maybe", "use_cache='maybe': expected True or False"),
    ("x:preset=meaning,tokens=edit", "preset 'meaning' sets tokens='contextual'"),  # restating the default
])
def test_measure_settings_of_the_wrong_type_are_one_line(toy_env, tmp_path, spec, says):
    r = run("meta-eval", tsv_table(tmp_path), "--parser", "toy-parser", "--measure", spec, "-q")
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    (line,) = r.stderr.splitlines()
    assert says in line, line


@pytest.mark.slow  # a property test (hypothesis: a hundred examples)
def test_table_scores_are_plain_numbers_or_refused():
    """Hypothesis: whatever text a score cell holds, it is read as float() reads it when it
    is a plain ASCII number, and refused in one InputError otherwise (never another error)."""
    from hypothesis import given
    from hypothesis import strategies as st

    @given(st.one_of(st.text(max_size=12), st.from_regex(r"[+-]?[0-9_]{0,4}\.?[0-9]{0,3}(e[+-]?[0-9]{1,2})?",
                                                         fullmatch=True),
                     # no subnormals: a worker that loaded DyNet (TUPA's tests) before semsim_ucca.tupa
                     # put IEEE 754 back had them flushed to zero, and Hypothesis refuses to draw them there
                     st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=False).map(repr)))
    def check(text):
        try:
            value = metaeval_tables._number("t.tsv", 1, "score", text)
        except InputError:
            assert not (text.strip().isascii() and "_" not in text and _plain(text.strip()))
            return
        assert text.strip().isascii() and "_" not in text and value == float(text)

    check()


def _plain(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def test_unknown_or_invalid_usim_settings_are_refused_before_parsing(toy_env, tmp_path):
    table = tsv_table(tmp_path)
    r = run("meta-eval", table, "--parser", "toy-parser", "--measure", "x:colour=red", "-q")
    assert r.exit_code == 1 and r.stderr.startswith("Error: unknown USim setting colour: choose from")
    r = run("meta-eval", table, "--parser", "toy-parser", "--measure", "x:variant=legacy,tokens=lexical", "-q")
    assert r.exit_code == 1 and len(r.stderr.splitlines()) == 1 and "Traceback" not in r.output
    r = run("meta-eval", table, "--measure", "levenshtein", "-o", table)
    assert r.exit_code == 1 and "is an input of this run" in r.stderr and table.read_text().startswith("source")


def test_levenshtein_and_chrf_anchors():
    pairs = [("He go home .", "He go home ."), ("He go home .", "He goes home ."), ("a b", "c d e f")]
    assert anchor("levenshtein")(pairs) == [1.0, 0.75, 0.0]
    chrf = anchor("chrf")(pairs)
    assert chrf[0] == 1.0 and chrf[0] > chrf[1] > chrf[2]
    assert str(anchor("levenshtein").signature).startswith("levenshtein|unit:token|")
    assert "|sacrebleu:" in str(anchor("chrf").signature)


@pytest.mark.slow
def test_encoder_anchors_on_the_pinned_minilm():
    """minilm-cosine and bertscore run offline on the pinned all-MiniLM-L6-v2."""
    pairs = [("The cat sat on the mat.", "The cat sat on the mat."),
             ("The cat sat on the mat.", "The cat sat on a mat."),
             ("The cat sat on the mat.", "Interest rates rose sharply in March.")]
    for name in ("minilm-cosine", "bertscore"):
        same, near, unrelated = anchor(name)(pairs)
        assert same == pytest.approx(1.0, abs=1e-4) and same >= near > unrelated, name
        assert "model:all-MiniLM-L6-v2@53aa51172d14" in str(anchor(name).signature)
    assert str(anchor("bertscore").signature).startswith("bertscore|model:all-MiniLM-L6-v2@53aa51172d14|layers:6|")


def test_meta_evaluate_with_any_callable():
    js = [Judgment(s, o, float(np.mean([float(x) for x in h.split("\t")])), (), n) for n, (s, o, h) in
          enumerate(TSV, 1)]
    report = meta_evaluate(js, {"length": lambda pairs: [len(o) for _, o in pairs]}, n_bootstrap=20)
    (result,) = report.results
    assert result.signature == "" and result.correlations["pearson"].value == pytest.approx(
        stats.pearsonr([len(o) for _, o, _ in TSV], [j.human for j in js]).statistic)
    with pytest.raises(metaeval.SemsimError, match="measure bad gave nan for row 1"):
        meta_evaluate(js, {"bad": lambda pairs: [math.nan] * len(pairs)})


def test_meta_evaluate_versus_one_measure():
    js = [Judgment(s, o, float(np.mean([float(x) for x in h.split("\t")])), (), n) for n, (s, o, h) in
          enumerate(TSV, 1)]
    measures = {"length": lambda pairs: [len(o) for _, o in pairs],
                "words": lambda pairs: [len(o.split()) for _, o in pairs]}
    report = meta_evaluate(js, measures, n_bootstrap=50, versus="words")
    length, words = report.results
    assert not words.differences and set(length.differences) == {"pearson", "spearman", "kendall"}
    human = [j.human for j in js]
    assert length.differences == compare_correlations(length.scores, words.scores, human, [j.source for j in js],
                                                      n_bootstrap=50)
    assert report.as_dict()["versus"] == "words" and "minus_versus" in report.as_dict()["measures"][0]
    text = report.render("text")
    assert "minus words, pair by pair" in text and f"{length.differences['pearson'].value:+.3f} [" in text
    tsv = report.render("tsv").splitlines()
    assert "pearson_minus_versus_above" in tsv[0].split("\t")
    with pytest.raises(metaeval.SettingsError, match="versus 'chars' is none of the measures"):
        meta_evaluate(js, measures, versus="chars")


# -- the command ----------------------------------------------------------------------------------
def test_cli_end_to_end_against_scipy(toy_env, tmp_path):
    table = tsv_table(tmp_path)
    out, sentences = tmp_path / "table.json", tmp_path / "pairs.jsonl"
    r = run("meta-eval", table, "--parser", "toy-parser", "--measure", "paper", "--measure", "levenshtein",
            "--format", "json", "-o", out, "--per-sentence", sentences, "--bootstrap", "100", "-q")
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    rows = [json.loads(line) for line in sentences.read_text().splitlines()]
    kept = [(s, o, h) for s, o, h in TSV if s.split() != o.split()]
    assert doc["n"] == len(rows) == len(kept) == 7 and doc["read"] == 8 and doc["sources"] == 5
    human = [float(np.mean([float(x) for x in h.split("\t")])) for _, _, h in kept]
    assert [r["human"] for r in rows] == human
    from rapidfuzz.distance import Levenshtein
    lev = [Levenshtein.normalized_similarity(s.split(), o.split()) for s, o, _ in kept]
    assert [r["scores"]["levenshtein"] for r in rows] == pytest.approx(lev)
    by_name = {m["measure"]: m for m in doc["measures"]}
    for name in ("paper", "levenshtein"):
        scores = [r["scores"][name] for r in rows]
        m = by_name[name]
        assert m["n"] == 7
        assert m["pearson"]["value"] == pytest.approx(stats.pearsonr(scores, human).statistic)
        assert m["spearman"]["value"] == pytest.approx(stats.spearmanr(scores, human).statistic)
        assert m["kendall"]["value"] == pytest.approx(stats.kendalltau(scores, human).statistic)
        assert m["pearson"]["low"] <= m["pearson"]["value"] <= m["pearson"]["high"]
        errors = stats.rankdata(scores) - stats.rankdata(human)
        assert [r["rank_errors"][name] for r in rows] == pytest.approx(list(errors))
    assert by_name["paper"]["signature"].startswith("usim|variant:paper|") and "parser:toy-parser" in \
        by_name["paper"]["signature"]
    explain = rows[0]["explain"]
    assert explain[0] == "printf '%s\\n' 'He go home .' | semsim parse - -q -o row2.src.mrp --parser toy-parser"
    assert explain[-1] == "semsim explain row2.src.mrp row2.out.mrp --html row2.paper.html"
    text = run("meta-eval", table, "--parser", "toy-parser", "--measure", "levenshtein", "--bootstrap", "0")
    assert text.exit_code == 0 and text.stdout.startswith("measure      n  Pearson [no CI]")
    assert "levenshtein: levenshtein|unit:token|" in text.stdout
    assert "looks untokenized" not in text.stderr
    kept_all = run("meta-eval", table, "--measure", "levenshtein", "--keep-unchanged", "--format", "tsv", "-q")
    assert kept_all.stdout.splitlines()[1].split("\t")[:2] == ["levenshtein", "8"]
    versus = run("meta-eval", table, "--parser", "toy-parser", "--measure", "paper", "--measure", "levenshtein",
                 "--versus", "levenshtein", "--bootstrap", "100", "--format", "json", "-q")
    assert versus.exit_code == 0, versus.output
    paper = json.loads(versus.stdout)["measures"][0]
    assert paper["measure"] == "paper" and paper["pearson"] == by_name["paper"]["pearson"]
    assert paper["minus_versus"]["pearson"]["value"] == pytest.approx(
        by_name["paper"]["pearson"]["value"] - by_name["levenshtein"]["pearson"]["value"])
    unknown = run("meta-eval", table, "--measure", "levenshtein", "--versus", "chrf", "-q")
    assert unknown.exit_code != 0 and "--versus chrf: no such measure" in unknown.output


def test_untokenized_table_is_noted(toy_env, tmp_path):
    table = write(tmp_path / "r.tsv", "He go home.\tHe goes home, now.\t3\nShe like cats, dogs.\tShe likes cats.\t2\n")
    r = run("meta-eval", table, "--measure", "levenshtein", "--bootstrap", "0")
    assert r.exit_code == 0 and r.stderr.count("looks untokenized") == 1 and "use --tokenize spacy" in r.stderr


@pytest.mark.needs_shared
def test_shared_tables_read():
    tmu = read_judgments(SHARED / "tmu-gfm-dev" / "tmu-gfm-dev.csv")
    assert len(tmu) == 1464 and len(changed(tmu)) == 1109 and all(len(j.ratings) == 5 for j in tmu)
    asset = read_judgments(SHARED / "asset-ratings" / "human_ratings.csv")
    assert len(asset) == 100 and all(len(j.ratings) == 15 for j in asset)


@pytest.mark.slow
def test_per_sentence_explain_commands_reproduce_each_measures_f(toy_env, tmp_path):
    """Issue #46: every printed command that shows why carries what changed the number. The
    `explain` commands of --per-sentence, run as printed (in a shell), explain the F the
    meta-evaluation scored, for the paper setting and for a preset with another setting,
    on untokenized text tokenized by spaCy."""
    import subprocess
    import sys
    table = write(tmp_path / "r.tsv", "He go home, now.\tHe goes home, now!\t3\nShe like cats.\tShe likes dogs.\t1\n")
    sentences = tmp_path / "pairs.jsonl"
    r = run("meta-eval", table, "--parser", "toy-parser", "--tokenize", "spacy", "--measure", "paper",
            "--measure", "m:preset=meaning,direction=s->r", "--per-sentence", sentences, "--bootstrap", "0", "-q")
    assert r.exit_code == 0, r.output
    semsim_cli = f"{shlex.quote(sys.executable)} -m semsim"
    for row in [json.loads(line) for line in sentences.read_text().splitlines()][:1]:  # one row: 4 processes
        assert any("--tokenize spacy" in c for c in row["explain"]) and any("--preset meaning" in c
                                                                           for c in row["explain"])
        for command in row["explain"]:
            command = command.replace("semsim ", f"{semsim_cli} ", 1).replace("| semsim ", f"| {semsim_cli} ")
            done = subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, text=True)
            assert done.returncode == 0, (command, done.stderr)
        for name in ("paper", "m"):
            page = (tmp_path / f"row{row['row']}.{name}.html").read_text(encoding="utf-8")
            doc = json.loads(page.split('id="semsim-data">')[1].split("</script>")[0])
            assert doc["score"]["f"] == pytest.approx(row["scores"][name], abs=1e-12), (name, row)


def test_the_explain_recipe_keeps_a_sentence_with_a_newline_on_one_line():
    """A quoted CSV field may hold a newline: the recipe's printf gives the parser one line,
    the sentence as it was parsed (whitespace runs are one space), not two sentences."""
    from semsim.app.commands.metaeval import explain_commands
    commands = explain_commands("He go\nhome .", "He goes home .", "row1", {"paper": {}}, {"parser": "toy-parser"})
    assert commands[0] == "printf '%s\\n' 'He go home .' | semsim parse - -q -o row1.src.mrp --parser toy-parser"


@pytest.mark.parametrize("versus", [[], ["--versus", "levenshtein"]])
def test_a_row_a_parse_refuses_is_named_by_file_and_line(toy_env, tmp_path, versus):
    """#56: a 1,201-token row refused by the span parser said nothing of where it was; the
    toy parser's refusal of one output stands in for it (the same ParseError naming it)."""
    table = tsv_table(tmp_path)
    r = run("meta-eval", table, "--parser", "toy-parser", "--measure", "paper", "--measure", "levenshtein",
            *versus, "--no-cache", "-q", env={"TOY_FAIL_AT": "We are there now ."})
    assert r.exit_code == 1, r.output
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith(f"Error: {table}:6: parser 'toy-parser' failed on 'We are there now .'"), line
