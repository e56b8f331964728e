"""Meta-evaluation as simplification studies read it (``semsim.app.metaeval.levels``): the
system level against scipy on hand-made tables and its bootstrap over sources, the split and
changed subsets, Sulem et al.'s table and named columns, and the releasers' published scores."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from support import run_cli as run

from semsim.app.metaeval.levels import is_split, published_measure, published_spec, sentence_ends
from semsim.app.metaeval.tables import SULEM2018, changed, parse_columns, read_judgments
from semsim.kernel.errors import InputError, SettingsError
from semsim.kernel.stats import _group_resamples, compare_system_correlations, system_correlate

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "simplification-sulem2018-dev"

#: sent_id, sys_name, source, output, meaning: 3 sources x 3 systems; B copies source 3,
#: C splits sources 1 and 2 into two sentences
ROWS = [("1", "A", "He left, and she stayed.", "He left and she stayed.", 4.5),
        ("1", "B", "He left, and she stayed.", "He went.", 2.0),
        ("1", "C", "He left, and she stayed.", "He left. She stayed.", 5.0),
        ("2", "A", "The cat, which was old, slept.", "The old cat slept.", 4.0),
        ("2", "B", "The cat, which was old, slept.", "A cat slept.", 2.5),
        ("2", "C", "The cat, which was old, slept.", "The cat was old. It slept.", 4.5),
        ("3", "A", "Rain fell all day.", "Rain fell.", 3.0),
        ("3", "B", "Rain fell all day.", "Rain fell all day.", 5.0),
        ("3", "C", "Rain fell all day.", "It rained all day!", 4.0)]


def sulem_table(tmp_path: Path) -> Path:
    lines = ["sent_id,sys_name,sys_type,orig_sent,simp_sent,grammaticality,meaning,simplicity,structural_simplicity"]
    lines += [f'{i},{s},x,"{src}","{out}",5,{m},0,0' for i, s, src, out, m in ROWS]
    path = tmp_path / "structural_simplicity.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def metrics_table(tmp_path: Path, conflict: bool = False) -> Path:
    """Two reference sets a row each: ``samsa`` equal on both, ``bleu`` not (unless ``conflict``
    makes samsa differ on the last row too)."""
    lines = ["sent_id,sys_name,test_set,bleu,samsa"]
    for n, (i, s, _, out, _) in enumerate(ROWS):
        samsa = len(out)
        lines += [f"{i},{s},asset,{n},{samsa}", f"{i},{s},turk,{n + 100},{samsa + (conflict and n == 8)}"]
    path = tmp_path / "metrics.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# -- the system level -----------------------------------------------------------------------------
SCORES = [0.9, 0.2, 0.8, 0.7, 0.4, 0.75, 0.5, 1.0, 0.6]
HUMAN = [r[4] for r in ROWS]
SYSTEMS = [r[1] for r in ROWS]
SOURCES = [r[0] for r in ROWS]


def _means(values, systems, weights):
    out = {}
    for v, s, w in zip(values, systems, weights):
        total, count = out.get(s, (0.0, 0.0))
        out[s] = (total + w * v, count + w)
    return [t / c for t, c in out.values() if c]


def test_system_level_is_scipy_on_the_systems_means():
    got = system_correlate(SCORES, HUMAN, SYSTEMS, SOURCES, n_bootstrap=0)
    assert got.systems == ["A", "B", "C"]
    assert got.scores == pytest.approx([np.mean(SCORES[0::3]), np.mean(SCORES[1::3]), np.mean(SCORES[2::3])])
    assert got.human == pytest.approx([np.mean(HUMAN[0::3]), np.mean(HUMAN[1::3]), np.mean(HUMAN[2::3])])
    for name, f in (("pearson", stats.pearsonr), ("spearman", stats.spearmanr), ("kendall", stats.kendalltau)):
        assert got.correlations[name].value == pytest.approx(f(got.scores, got.human).statistic)


def test_system_level_bootstrap_recomputes_the_means_on_resampled_sources():
    """The interval is the percentile interval of scipy's coefficient of the system means
    recomputed on resamples that draw whole sources, the draws of the sentence level's."""
    n = 200
    got = system_correlate(SCORES, HUMAN, SYSTEMS, SOURCES, n_bootstrap=n, seed=3)
    w = _group_resamples(len(SCORES), SOURCES, n, 3)
    assert set(np.flatnonzero(w[0])) <= set(range(9)) and all(  # a source's three outputs drawn together
        len(set(w[b, [3 * k, 3 * k + 1, 3 * k + 2]])) == 1 for b in range(n) for k in range(3))
    pearsons = []
    for row in w:
        mx, my = _means(SCORES, SYSTEMS, row), _means(HUMAN, SYSTEMS, row)
        with np.errstate(all="ignore"):
            r = stats.pearsonr(mx, my).statistic if np.ptp(mx) and np.ptp(my) else math.nan
        pearsons.append(r)
    finite = np.array([p for p in pearsons if math.isfinite(p)])
    assert got.correlations["pearson"].low == pytest.approx(np.percentile(finite, 2.5))
    assert got.correlations["pearson"].high == pytest.approx(np.percentile(finite, 97.5))


def test_system_level_differences_are_paired():
    other = [0.5] * 3 + [0.1, 0.9, 0.3] + [0.2, 0.6, 0.4]
    diff = compare_system_correlations(SCORES, other, HUMAN, SYSTEMS, SOURCES, n_bootstrap=100)
    a = system_correlate(SCORES, HUMAN, SYSTEMS, SOURCES, n_bootstrap=0).correlations
    b = system_correlate(other, HUMAN, SYSTEMS, SOURCES, n_bootstrap=0).correlations
    for name in ("pearson", "spearman", "kendall"):
        assert diff[name].value == pytest.approx(a[name].value - b[name].value)
        assert diff[name].low <= diff[name].high and 0 <= diff[name].above <= 1
    same = compare_system_correlations(SCORES, SCORES, HUMAN, SYSTEMS, SOURCES, n_bootstrap=50)
    assert all(d.value == d.low == d.high == 0 and d.above == 0 for d in same.values())


# -- subsets and tables ---------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "ends"), [
    ("He left. She stayed.", 2), ("He left.", 1), ("He left", 0), ("Is it? Yes! Go.", 3),
    ("Mr.Smith left 3.5 km.", 1), ("He said \"go.\" Then left", 0), ("A. B.  ", 2)])
def test_sentence_ends_on_raw_text(text, ends):
    assert sentence_ends(text) == ends


def test_sulem2018_table_and_named_columns(tmp_path):
    path = sulem_table(tmp_path)
    js = read_judgments(path)
    assert len(js) == 9 and js[0].id == "1" and js[0].system == "A" and js[0].row == 2
    assert js[2].output == "He left. She stayed." and js[2].human == 5.0 and js[2].ratings == (5.0,)
    assert read_judgments(path, "columns", SULEM2018) == js
    assert [j.row for j in changed(js)] == [2, 3, 4, 5, 6, 7, 8, 10]
    assert [(j.id, j.system) for j in js if is_split(j)] == [("1", "C"), ("2", "C")]
    plain = read_judgments(path, columns=parse_columns("source=orig_sent,output=simp_sent,score=grammaticality"))
    assert [j.human for j in plain] == [5.0] * 9 and plain[0].system == plain[0].id == ""


@pytest.mark.parametrize(("spec", "says"), [
    ("source=a,output=b", "no score column named"), ("source=a,output=b,score=c,who=d", "item 4: unknown role 'who'"),
    ("source=a,source=b,output=c,score=d", "item 2: source given twice"), ("source=a,output", "item 2: 'output'")])
def test_bad_column_specs_are_one_line(spec, says):
    with pytest.raises(SettingsError, match=says):
        parse_columns(spec)


def test_a_named_column_the_table_lacks_names_the_header(tmp_path):
    with pytest.raises(InputError, match=r"structural_simplicity.csv:1: no column nope"):
        read_judgments(sulem_table(tmp_path), columns=parse_columns("source=orig_sent,output=simp_sent,score=nope"))


# -- published scores -----------------------------------------------------------------------------
@pytest.mark.parametrize(("spec", "parsed"), [
    ("published:samsa", ("samsa", None)), ("published:bertscore_F1@asset", ("bertscore_F1", "asset")),
    ("published:leaves=2", None), ("paper", None), ("x:published=1", None)])
def test_published_specs(spec, parsed):
    assert published_spec(spec) == parsed


def test_published_scores_join_on_id_and_system(tmp_path):
    js = read_judgments(sulem_table(tmp_path))
    pairs = [(j.source, j.output) for j in js]
    samsa = published_measure(str(metrics_table(tmp_path)), "SAMSA", None, js)
    assert samsa(pairs) == [float(len(r[3])) for r in ROWS]
    assert samsa.signature == "published|column:SAMSA|file:metrics.csv"
    turk = published_measure(str(metrics_table(tmp_path)), "bleu", "turk", js)
    assert turk(pairs) == [float(n + 100) for n in range(9)]


def test_published_scores_that_disagree_or_lack_an_output_are_refused(tmp_path):
    js = read_judgments(sulem_table(tmp_path))
    with pytest.raises(InputError, match=r"metrics.csv:3: bleu of sent_id 1, A is 100.0 here but 0.0 on line 2: "
                                         r"name a test set \(published:bleu@SET; sets: asset, turk\)"):
        published_measure(str(metrics_table(tmp_path)), "bleu", None, js)
    with pytest.raises(InputError, match=r"metrics.csv:19: samsa of sent_id 3, C is 19.0"):
        published_measure(str(metrics_table(tmp_path, conflict=True)), "samsa", None, js)
    with pytest.raises(InputError, match="no row of test set 'hsplit'"):
        published_measure(str(metrics_table(tmp_path)), "samsa", "hsplit", js)
    short = tmp_path / "short.csv"
    short.write_text("\n".join(metrics_table(tmp_path).read_text().splitlines()[:-2]) + "\n")
    with pytest.raises(InputError, match=r"short.csv: no samsa for sent_id 3, sys_name C \(the table's line 10\)"):
        published_measure(str(short), "samsa", None, js)


# -- the command ----------------------------------------------------------------------------------
@pytest.mark.slow  # the command imports gec-metrics (8 s)
def test_cli_system_level_subsets_and_published_anchor(toy_env, tmp_path):
    table, metrics = sulem_table(tmp_path), metrics_table(tmp_path)
    r = run("meta-eval", table, "--measure", "levenshtein", "--measure", "published:samsa", "--published", metrics,
            "--subset", "split", "--versus", "levenshtein", "--bootstrap", "50", "--format", "json", "-q")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["n"] == 8 and [m["measure"] for m in doc["measures"]] == ["levenshtein", "published:samsa"]
    split, system = doc["levels"]
    assert split["level"] == "subset split" and split["outputs"] == 2 and split["sources"] == 2
    assert system["level"] == "system" and system["outputs"] == 9 and system["sources"] == 3
    samsa = system["measures"][1]
    means = [np.mean([len(o) for _, s, _, o, _ in ROWS if s == name]) for name in "ABC"]
    people = [np.mean([m for _, s, _, _, m in ROWS if s == name]) for name in "ABC"]
    assert samsa["n"] == 3 and samsa["spearman"]["value"] == pytest.approx(stats.spearmanr(means, people).statistic)
    from rapidfuzz.distance import Levenshtein
    lev = [np.mean([Levenshtein.normalized_similarity(src.split(), o.split()) for _, s, src, o, _ in ROWS
                    if s == name]) for name in "ABC"]
    assert samsa["minus_versus"]["pearson"]["value"] == pytest.approx(
        stats.pearsonr(means, people).statistic - stats.pearsonr(lev, people).statistic)
    text = run("meta-eval", table, "--measure", "levenshtein", "--subset", "split", "--bootstrap", "0", "-q")
    assert "subset split: 2 outputs of 2 sources" in text.stdout and "system: 3 systems of 3 sources" in text.stdout
    tsv = run("meta-eval", table, "--measure", "levenshtein", "--bootstrap", "0", "--format", "tsv", "-q")
    assert [line.split("\t")[:3] for line in tsv.stdout.splitlines()] == [
        ["level", "measure", "n"], ["sentence", "levenshtein", "8"], ["system", "levenshtein", "3"]]
    pairs = tmp_path / "pairs.jsonl"
    off = run("meta-eval", table, "--measure", "levenshtein", "--no-system-level", "--format", "tsv", "-q",
              "--per-sentence", pairs)
    assert [(r["id"], r["system"]) for r in map(json.loads, pairs.read_text().splitlines())][:2] == [("1", "A"),
                                                                                                    ("1", "B")]
    assert off.stdout.splitlines()[0].split("\t")[0] == "measure"
    tsv_table = tmp_path / "r.tsv"
    tsv_table.write_text("A .\tB .\t3\nC .\tD .\t2\n", encoding="utf-8")
    nameless = run("meta-eval", tsv_table, "--measure", "levenshtein", "--system-level", "-q")
    assert nameless.exit_code != 0 and "r.tsv:1: no system named: --system-level needs" in nameless.output
    missing = run("meta-eval", table, "--measure", "published:samsa", "-q")
    assert missing.exit_code != 0 and "--measure published:samsa: give the file with --published" in missing.output


@pytest.mark.needs_shared
@pytest.mark.slow  # reads the 600 KB metrics file three times
def test_sulem2018_dev_as_released():
    js = read_judgments(SHARED / "structural_simplicity.csv")
    assert len(js) == 575 and len(changed(js)) == 438 and len({j.system for j in js}) == 25
    assert len({j.id for j in js}) == 23 and sum(is_split(j) for j in changed(js)) == 101
    metrics = str(SHARED / "metrics_structural_simplicity.csv")
    samsa = published_measure(metrics, "samsa", None, js)  # the same on the three reference sets' rows
    assert len(samsa([(j.source, j.output) for j in js])) == 575
    with pytest.raises(InputError, match=r"metrics_structural_simplicity.csv:\d+: bertscore_F1 of sent_id"):
        published_measure(metrics, "bertscore_F1", None, js)
    asset = published_measure(metrics, "bertscore_F1", "asset", js)
    assert len(asset([(j.source, j.output) for j in js])) == 575 and len(asset.scores) < 575  # systems agree often


def test_system_coefficients_at_once_equal_scipy_with_ties_and_absent_systems():
    from semsim.kernel.stats import _coefficient, _system_coefficients
    rng = np.random.default_rng(1)
    a, h = np.round(rng.random((60, 6)) * 3), np.round(rng.random((60, 6)) * 3)
    a[5, 2] = h[7, 0] = math.nan  # a system none of whose sources was drawn
    a[9] = 1.0  # every system level: undefined
    got = _system_coefficients(a, h)
    for name in ("pearson", "spearman", "kendall"):
        want = []
        for x, y in zip(a, h):
            present = np.isfinite(x) & np.isfinite(y)
            want.append(_coefficient(name, x[present], y[present]))
        assert np.allclose(got[name], want, equal_nan=True, atol=1e-12)
