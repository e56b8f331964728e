"""`semsim compare`: several representations (and their plugin metrics) side by side."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import run_cli as run

from semsim.app.comparison import correlations
from semsim.kernel.signature import Signature

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def toy(path, rows):
    path.write_text("".join(json.dumps({"words": w, "labels": lab}) + "\n" for w, lab in rows), encoding="utf-8")
    return path


@pytest.fixture
def toy_pairs(toy_plugin, tmp_path):
    src = toy(tmp_path / "src.toy", [(["He", "ran"], ["Big", "Small"]), (["a", "b", "c"], ["Small"] * 3),
                                     (["X", "y"], ["Big", "Small"])])
    cor = toy(tmp_path / "cor.toy", [(["He", "runs"], ["Big", "Small"]), (["a", "B", "c"], ["Small", "Big", "Small"]),
                                     (["x", "Y"], ["Small", "Big"])])
    return src, cor


def test_columns_are_usim_and_the_schemes_plugin_metrics(toy_pairs):
    r = run("compare", "--pairs", "one", *toy_pairs, "--pairs", "two", *toy_pairs, "--format", "json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert list(doc["signatures"]) == ["one:usim", "one:toy-labels", "two:usim", "two:toy-labels"]
    assert [p["one:toy-labels"] for p in doc["pairs"]] == pytest.approx([1.0, 2 / 3, 1.0])
    assert doc["pairs"][0]["one:usim"] == doc["pairs"][0]["two:usim"]
    same = next(c for c in doc["correlations"] if c["a"] == "one:usim" and c["b"] == "two:usim")
    assert same["pearson"] == pytest.approx(1.0) and same["spearman"] == pytest.approx(1.0) and same["n"] == 3


def test_correlation_is_none_when_a_column_is_constant():
    from semsim.app.comparison import Column
    from semsim.kernel.stats import Score
    ones = Column("a", [Score.fixed(1.0, ["x"], Signature.of("s"))] * 4)
    varied = Column("b", [Score.fixed(v, ["x"], Signature.of("s")) for v in (0.1, 0.5, 0.2, 0.9)])
    (row,) = correlations([ones, varied])
    assert row["pearson"] is None and row["spearman"] is None and row["n"] == 4


def test_mismatched_pair_counts_and_bad_usage_are_one_line_errors(toy_pairs, tmp_path):
    short = toy(tmp_path / "short.toy", [(["He"], ["Big"])])
    r = run("compare", "--pairs", "one", *toy_pairs, "--pairs", "two", short, short)
    assert r.exit_code == 1 and "different numbers of pairs (one: 3, two: 1)" in r.output
    r = run("compare")
    assert r.exit_code == 1 and "give --pairs" in r.output and "Traceback" not in r.output


def test_text_route_parses_once_per_parser(toy_plugin, tmp_path):
    (tmp_path / "s.txt").write_text("He ran\n\nX y\n", encoding="utf-8")
    (tmp_path / "h.txt").write_text("He runs\nextra\nx Y\n", encoding="utf-8")
    r = run("compare", "--source", tmp_path / "s.txt", "--hyp", tmp_path / "h.txt", "--parser", "toy-parser",
            "--no-cache", "--format", "jsonl", "-q")
    assert r.exit_code == 0, r.output
    rows = [json.loads(x) for x in r.output.splitlines()]
    assert [x.get("name") for x in rows[:-1]] == ["line 1", "line 3"]  # the empty source line is left out
    assert set(rows[0]) == {"name", "toy:usim", "toy:toy-labels"}


def test_text_route_signs_as_score_does(toy_plugin, tmp_path):
    """Scores of parsed text name the parser and model (and the tokenizer), in `compare` as in
    `score`: the same pair under the same settings carries the same signature."""
    (tmp_path / "s.txt").write_text("He ran\nX y\n", encoding="utf-8")
    (tmp_path / "h.txt").write_text("He runs\nx Y\n", encoding="utf-8")
    r = run("compare", "--source", tmp_path / "s.txt", "--hyp", tmp_path / "h.txt", "--parser", "toy-parser",
            "--no-cache", "--format", "json", "--bootstrap", "0", "-q")
    assert r.exit_code == 0, r.output
    signatures = json.loads(r.output)["signatures"]
    assert all(s.endswith("|parser:toy-parser|model:rules@rules-v1") for s in signatures.values()), signatures
    s = run("score", "--source", tmp_path / "s.txt", "--hyp", tmp_path / "h.txt", "--parser", "toy-parser",
            "--no-cache", "--format", "json", "--bootstrap", "0", "--paired", "none", "-q")
    assert s.exit_code == 0, s.output
    assert json.loads(s.output)["systems"][0]["signature"] == signatures["toy:usim"]


def test_text_route_leaves_out_lines_a_parser_fails_on(toy_plugin, tmp_path, monkeypatch):
    monkeypatch.setenv("TOY_FAIL_AT", "x Y")
    (tmp_path / "s.txt").write_text("He ran\nA b\nX y\n", encoding="utf-8")
    (tmp_path / "h.txt").write_text("He runs\nA B\nx Y\n", encoding="utf-8")
    r = run("compare", "--source", tmp_path / "s.txt", "--hyp", tmp_path / "h.txt", "--parser", "toy-parser",
            "--no-cache", "--format", "jsonl", "-q")
    assert r.exit_code == 1
    assert [json.loads(x).get("name") for x in r.stdout.splitlines()[:-1]] == ["line 1", "line 2"]
    assert r.stderr.splitlines() == [
        f"Error: {tmp_path / 'h.txt'}:3: parser 'toy-parser' failed on 'x Y': RuntimeError: toy parser cannot "
        "parse this (line 3 not scored)",
        "Error: 1 line(s) not scored (see above)"]


def test_ucca_and_amr_side_by_side_on_figure1():
    r = run("compare", "--pairs", "ucca", EXAMPLES / "fig1-source.xml", EXAMPLES / "fig1-correction.xml",
            "--pairs", "amr", EXAMPLES / "fig1-source.amr", EXAMPLES / "fig1-correction.amr", "--format", "json")
    assert r.exit_code == 0, r.output
    (row,) = json.loads(r.output)["pairs"]
    assert row["ucca:usim"] == pytest.approx(0.75) and row["amr:usim"] == pytest.approx(5 / 6)
    assert row["amr:smatch"] == pytest.approx(9 / 11)
    assert "ucca:smatch" not in row  # Smatch is registered for AMR graphs only


@pytest.mark.slow
@pytest.mark.needs_shared
def test_ucca_vs_amr_on_the_mrp_sample(shared, tmp_path):
    """Consecutive sentences of the sample as pairs: both representations rank them alike."""
    for fw in ("ucca", "amr"):
        lines = (shared / f"data/mrp-sample/{fw}.mrp").read_text(encoding="utf-8").splitlines()
        (tmp_path / f"{fw}-src.mrp").write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
        (tmp_path / f"{fw}-cor.mrp").write_text("\n".join(lines[1:]) + "\n", encoding="utf-8")
    r = run("compare", *(x for fw in ("ucca", "amr") for x in ("--pairs", fw, tmp_path / f"{fw}-src.mrp",
                                                              tmp_path / f"{fw}-cor.mrp")),
            "--format", "json", "--bootstrap", "0", "-q")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert len(doc["pairs"]) == 86
    corr = {(c["a"], c["b"]): c for c in doc["correlations"]}
    assert corr[("ucca:usim", "amr:usim")]["spearman"] > 0.4
    assert corr[("amr:usim", "amr:smatch")]["pearson"] > 0.6


def test_python_compare_is_the_command_on_figure1():
    """semsim.compare (#55.6): graphs (or paths) in, the command's table and correlations out."""
    import semsim
    ucca = [(semsim.read(EXAMPLES / "fig1-source.xml"), semsim.read(EXAMPLES / "fig1-correction.xml"))]
    amr = [(EXAMPLES / "fig1-source.amr", EXAMPLES / "fig1-correction.amr")]
    result = semsim.compare({"ucca": ucca, "amr": amr}, n_bootstrap=0)
    assert result.columns["ucca:usim"][0].f == pytest.approx(0.75)
    assert result.columns["amr:usim"][0].f == pytest.approx(5 / 6)
    assert result.columns["amr:smatch"][0].f == pytest.approx(9 / 11)
    r = run("compare", "--pairs", "ucca", EXAMPLES / "fig1-source.xml", EXAMPLES / "fig1-correction.xml",
            "--pairs", "amr", EXAMPLES / "fig1-source.amr", EXAMPLES / "fig1-correction.amr", "--format", "json",
            "--bootstrap", "0")
    command = json.loads(r.output)
    python = json.loads(result.table("json"))
    assert python["signatures"] == command["signatures"] and python["corpus"] == command["corpus"]
    assert [{k: v for k, v in p.items() if k != "name"} for p in python["pairs"]] \
        == [{k: v for k, v in p.items() if k != "name"} for p in command["pairs"]]
    assert "ucca:usim" in str(result)


def test_python_compare_of_text_leaves_out_a_bad_line_and_says_what_it_wants(toy_plugin, monkeypatch):
    import semsim
    from semsim import InputError, ParseSettings
    monkeypatch.setenv("TOY_FAIL_AT", "x Y")
    result = semsim.compare(sources=["He ran", "A b", "X y"], corrections=["He runs", "A B", "x Y"],
                            parsers=["toy-parser"], parsing=ParseSettings(cache=False), n_bootstrap=0)
    assert result.names == ["line 1", "line 2"] and set(result.columns) == {"toy:usim", "toy:toy-labels"}
    assert "toy parser cannot parse this" in result.not_compared["line 3"]
    assert all(s.endswith("|parser:toy-parser|model:rules@rules-v1") for s in result.signatures.values())
    with pytest.raises(InputError, match="give pairs="):
        semsim.compare()
    with pytest.raises(InputError, match="parsers must be a list"):
        semsim.compare(sources=["a"], corrections=["b"], parsers="toy-parser")
