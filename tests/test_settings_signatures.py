"""Settings a variant would ignore are errors (API and CLI alike), and one signature scheme
names every number: a score's, the metric's, the CLI record's, the corpus record's (with
its bootstrap), DistSim's, conservatism's, the systems table's and the gec-metrics adapter's."""

from __future__ import annotations

import dataclasses
import json
import typing
from pathlib import Path

import pytest
from support import run_cli as run

import semsim
from semsim.app.metric import USimMetric
from semsim.kernel.errors import SettingsError
from semsim.kernel.metrics.settings import SETTINGS, Settings

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SRC, COR = EXAMPLES / "fig1-source.xml", EXAMPLES / "fig1-correction.xml"


@pytest.mark.parametrize(("cls", "before"), [
    (Settings, 0), (semsim.USim, 0), (USimMetric.Config, len(dataclasses.fields(USimMetric._Parsing)))],
    ids=["Settings", "USim", "USimMetric.Config"])
def test_the_dataclasses_fields_are_the_table_rows(cls, before):
    """Settings writes its fields out (type checkers cannot see fields generated from the table)
    and USimMetric.Config is made from them; the table stays the source: the same names, in its
    order, with its defaults and the types of its defaults. USimMetric.Config's parsing fields
    come first."""
    fields = dataclasses.fields(cls)
    hints = typing.get_type_hints(cls)
    assert len(fields) == before + len(SETTINGS)
    assert [(f.name, f.default, hints[f.name]) for f in fields[before:]] == [
        (s.name, s.default, type(s.default)) for s in SETTINGS]
    made = cls()
    assert all(type(getattr(made, s.name)) is type(s.default) for s in SETTINGS)  # 0 is not False


@pytest.mark.parametrize(("settings", "named"), [
    ({"variant": "legacy", "labels": "weak"}, "labels='weak'"),
    ({"variant": "legacy", "direction": "r->s", "remote": False}, "direction='r->s', remote=False"),
    ({"variant": "legacy", "by_sentence": False}, "by_sentence=False"),
    ({"variant": "legacy", "denominator": "aligned", "tie_break": "all"}, "tie_break='all', denominator='aligned'"),
    ({"variant": "paper", "single_token_units": False}, "single_token_units=False"),
])
def test_api_refuses_what_the_variant_ignores(settings, named):
    with pytest.raises(SettingsError, match=f"^{named.replace('(', '[(]')}: the {settings['variant']} variant"):
        semsim.USim(**settings)
    with pytest.raises(SettingsError):
        semsim.usim(SRC, COR, **settings)


def test_restating_a_default_is_not_an_error():
    legacy = semsim.USim(variant="legacy", labels="labeled", direction="both", remote=True)
    assert legacy.sentence_score(SRC, COR).f == semsim.USim(variant="legacy").sentence_score(SRC, COR).f
    with pytest.raises(SettingsError, match="unknown labels 'x'"):
        semsim.USim(labels="x")


def test_cli_refuses_what_the_variant_ignores():
    r = run("usim", SRC, COR, "--variant", "legacy", "--labels", "weak", "--no-remote")
    assert r.exit_code == 1
    assert r.stderr.strip() == "Error: --labels weak --no-remote: --variant legacy ignores them (only --variant " \
                               "paper uses them)"
    r = run("usim", SRC, COR, "--no-single-token-units")
    assert r.exit_code == 1 and r.stderr.strip().startswith("Error: --no-single-token-units: --variant paper ignores")
    r = run("explain", SRC, COR, "--variant", "legacy", "--align", "passage")
    assert r.exit_code == 1 and "--align passage: --variant legacy ignores it" in r.stderr
    assert run("usim", SRC, COR, "--variant", "legacy", "--labels", "labeled").exit_code == 0


#: How every score of the UCCA plugin's graphs names them: the scheme and a hash of what in it can change
#: a number, and the plugin's distribution and version (issue #47.2)
UCCA = "scheme:ucca@32e175b60e13|plugin:semsim-ucca-0.2.0"


def test_the_signature_names_the_plugin_that_made_the_graphs():
    """The paper default's signature, whole: a scheme edited in an editable install (whose version
    does not change) changes the hash; a new release of the plugin changes its version."""
    import dataclasses

    from semsim.kernel.scheme import scheme_digest, scheme_fields
    g = semsim.read(SRC)
    assert semsim.usim(g, g).signature.format() == (
        "usim|variant:paper|dir:both|tie:coverage|labels:labeled|remote:yes|denom:yield|align:sentence|"
        f"{UCCA}|version:{semsim.__version__}")
    assert scheme_digest(g.scheme) == "32e175b60e13"
    edited = dataclasses.replace(g.scheme, ignored_labels=g.scheme.ignored_labels | {"D"})
    assert scheme_fields(edited)["scheme"] == f"ucca@{scheme_digest(edited)}" != "ucca@32e175b60e13"
    named = dataclasses.replace(g.scheme, label_names={"A": "Someone"})  # for people: no number changes
    assert scheme_digest(named) == "32e175b60e13"
    for score in (semsim.dag_f(g, g), semsim.USim(variant="legacy").sentence_score(g, g)):
        assert f"|{UCCA}|" in score.signature.format()
    assert f"|{UCCA}|" in semsim.distsim([(g, g)]).signature.format()


@pytest.mark.parametrize("variant", ["paper", "legacy"])
def test_one_signature_for_score_metric_and_cli(variant):
    metric = semsim.USim(variant=variant)
    score = metric.sentence_score(SRC, COR)
    assert score.signature.format() == metric.get_signature("ucca")
    assert metric.get_signature() == score.signature.format().replace(f"|{UCCA}", "")
    r = run("usim", SRC, COR, "--variant", variant, "--format", "jsonl")
    assert json.loads(r.stdout)["signature"] == score.signature.format()
    tsv = run("usim", SRC, COR, "--variant", variant, "--format", "tsv").stdout.splitlines()
    assert tsv[1].split("\t")[tsv[0].split("\t").index("signature")] == score.signature.format()


def test_corpus_records_name_their_bootstrap(tmp_path):
    (tmp_path / "a").write_text(f"{SRC}\n{SRC}\n")
    (tmp_path / "b").write_text(f"{COR}\n{SRC}\n")
    records = [json.loads(x) for x in run("usim", f"@{tmp_path / 'a'}", f"@{tmp_path / 'b'}", "--format",
                                          "jsonl", "--bootstrap", "50", "--seed", "7").stdout.splitlines()]
    base = semsim.USim().get_signature("ucca")
    assert [r["signature"] for r in records[:2]] == [base, base]
    assert records[2]["signature"] == f"{base}|bootstrap:50|conf:0.95|seed:7"
    corpus = semsim.USim().corpus_score([SRC, SRC], [COR, SRC], n_bootstrap=50, seed=7)
    assert corpus.signature.format() == records[2]["signature"] and corpus.macro == records[2]["macro_f"]
    assert semsim.USim().corpus_score([SRC], [COR]).signature.format() == base  # no bootstrap, nothing to name


def test_distsim_and_conservatism_carry_signatures(tmp_path):
    text = run("distsim", SRC, COR).stdout.splitlines()
    assert text[-1] == f"signature: distsim|by_sentence:no|labels:all|{UCCA}|version:{semsim.__version__}"
    doc = json.loads(run("distsim", SRC, COR, "--by-sentence", "--label", "A", "--format", "json").stdout)
    assert doc["signature"] == f"distsim|by_sentence:yes|labels:A|{UCCA}|version:{semsim.__version__}"
    src = tmp_path / "s.txt"
    src.write_text("He sleeps .\n")
    tsv = run("conservatism", "--source", src, "--hyp", src, "--ignore-case", "--format", "tsv").stdout.splitlines()
    assert tsv[0].split("\t")[-1] == "signature"
    assert tsv[1].split("\t")[-1] == f"conservatism|case:ignored|version:{semsim.__version__}"
    assert run("conservatism", "--source", src, "--hyp", src).stdout.rstrip().endswith(
        f"signature: conservatism|case:mixed|version:{semsim.__version__}")


def test_systems_table_and_adapter_signatures(toy_env):
    from semsim.app.metric import USimMetric
    src, hyp = toy_env / "s.txt", toy_env / "h.txt"
    src.write_text("He sleeps .\nShe reads .\n")
    hyp.write_text("He sleep .\nShe reads .\n")
    r = run("score", "--source", src, "--hyp", hyp, "--hyp", src, "--parser", "toy-parser", "-q", "--format", "tsv",
            "--bootstrap", "20", "--paired-trials", "99", "-o", toy_env / "s.jsonl")
    rows = [line.split("\t") for line in r.stdout.splitlines()]
    scorer = USimMetric(USimMetric.Config(parser="toy-parser"))
    per_sentence = {json.loads(x)["signature"] for x in (toy_env / "s.jsonl").read_text().splitlines()}
    assert per_sentence == {scorer.get_signature()}
    assert {row[-1] for row in rows[1:]} == {f"{scorer.get_signature()}|bootstrap:20|conf:0.95|seed:12345"
                                             "|paired:ar|trials:99"}
