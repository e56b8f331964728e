"""USimMetric through gec-metrics itself (issue #11, point 6): its real base classes, its
registry, its config path (flat settings from YAML) and its system ranking."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.needs_gec_metrics
ROOT = Path(__file__).resolve().parents[1]

SOURCE = ["He gva an apple .", "The cat sat .", "Dogs run fast .", "", "I like Tea ."]
HYP1 = ["He gave John an apple .", "The cat sat .", "Dogs ran fast .", "", "I like tea ."]
HYP2 = ["He gave an apple .", "the Cat sat down .", "Dogs run .", "x", "We like Tea ."]


@pytest.fixture
def registered(toy_env):
    """gec-metrics' registry with USimMetric as ``usim``, restored afterwards."""
    from gec_metrics.metrics import METRIC_ID2CLS

    from semsim.app.metric import register
    saved = dict(METRIC_ID2CLS)
    register()
    yield toy_env
    METRIC_ID2CLS.clear()
    METRIC_ID2CLS.update(saved)


def test_usim_metric_is_a_gec_metrics_metric():
    from gec_metrics.metrics import MetricBase, MetricBaseForReferenceFree

    from semsim.app.metric import USimMetric
    assert issubclass(USimMetric, MetricBaseForReferenceFree)
    assert issubclass(USimMetric.Config, MetricBaseForReferenceFree.Config)
    scorer = USimMetric()
    assert scorer.config == USimMetric.Config() and scorer.apply_edits is not None  # MetricBase.__init__ ran
    assert isinstance(scorer, MetricBase)
    # settings are flat plain values, as gecmetrics-gen-config prints them and YAML gives them
    assert all(v is None or isinstance(v, (str, int, bool)) for v in vars(scorer.config).values())
    assert {f.name for f in dataclasses.fields(USimMetric.Config)} >= {"parser", "model", "variant", "labels"}


def test_built_through_gec_metrics_config_path(registered):
    import gec_metrics
    from gec_metrics.metrics import inputs_handler

    from semsim import USim
    cls = gec_metrics.get_metric("usim")
    scorer = cls(cls.Config(**{"parser": "toy-parser", "labels": "weak", "tie_break": "all"}))
    assert scorer.config.usim == USim(labels="weak", tie_break="all")
    assert "labels:weak" in scorer.get_signature()
    inputs = inputs_handler(scorer, SOURCE, HYP1, [HYP1])
    assert set(inputs) == {"sources", "hypotheses"}  # gec-metrics sees a reference-free metric
    sentence = scorer.score_sentence(**inputs)
    assert len(sentence) == 5 and sentence[3] == 1.0  # both sides empty: 1 by convention
    assert scorer.score_corpus(**inputs) == pytest.approx(sum(sentence) / 5)
    default = scorer.rank_systems(SOURCE, [HYP1, HYP2])
    assert default == pytest.approx([scorer.score_corpus(SOURCE, h) for h in (HYP1, HYP2)])
    trueskill = scorer.rank_systems(SOURCE, [HYP1, HYP2], aggregation="trueskill")
    assert len(trueskill) == 2
    with pytest.raises(ValueError, match="unknown variant"):
        cls.Config(variant="nonsense")


def _gecmetrics_eval(folder, monkeypatch, sources, hypotheses, yaml: str) -> None:
    """Run gecmetrics-eval's own ``main`` on two line files and a YAML config in ``folder``."""
    from gec_metrics.cli import evaluate
    files = {}
    for name, lines in (("src", sources), ("hyp", hypotheses)):
        files[name] = folder / f"{name}.txt"
        files[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    config = folder / "config.yaml"
    config.write_text(yaml, encoding="utf-8")
    monkeypatch.setattr(sys, "argv", ["gecmetrics-eval", "--src", str(files["src"]), "--hyps", str(files["hyp"]),
                                      "--metric", "usim", "--config", str(config)])
    evaluate.main()


def test_gec_metrics_command_line_with_a_yaml_config(registered, monkeypatch, capsys):
    """gecmetrics-eval's own code: YAML settings -> ``cls(cls.Config(**settings))`` -> score_corpus."""
    from semsim.app.metric import USimMetric
    _gecmetrics_eval(registered, monkeypatch, SOURCE, HYP1,
                     "usim:\n  parser: toy-parser\n  variant: paper\n  use_cache: false\n")
    # gecmetrics-eval strips the last line break, so the empty fourth line is kept
    expected = USimMetric(USimMetric.Config(parser="toy-parser")).score_corpus(SOURCE, HYP1)
    assert capsys.readouterr().out.startswith(f"Score={expected} | Metric=usim")


def test_gec_metrics_yaml_config_takes_tokenize(registered, monkeypatch, capsys):
    """``tokenize: spacy`` in gecmetrics-eval's YAML: untokenized outputs score as their
    tokenized text does (issue #31)."""
    from semsim.app.metric import USimMetric
    _gecmetrics_eval(registered, monkeypatch, ["He gva an apple, John said.", "Dogs run fast!"],
                     ["He gave an apple, John said.", "Dogs ran!"], "usim:\n  parser: toy-parser\n  tokenize: spacy\n")
    expected = USimMetric(USimMetric.Config(parser="toy-parser")).score_corpus(
        ["He gva an apple , John said .", "Dogs run fast !"], ["He gave an apple , John said .", "Dogs ran !"])
    assert capsys.readouterr().out.startswith(f"Score={expected} | Metric=usim")


def test_gecmetrics_eval_reaches_usim_through_semsims_wrapper(toy_env, monkeypatch, capsys):
    """`semsim-gecmetrics-eval` is gec-metrics' own command with `usim` among its choices."""
    from gec_metrics.metrics import METRIC_ID2CLS

    from semsim.app.gec.cli import gecmetrics_eval
    from semsim.app.metric import USimMetric
    saved = dict(METRIC_ID2CLS)
    src, hyp = toy_env / "src.txt", toy_env / "hyp.txt"
    src.write_text("\n".join(SOURCE) + "\n", encoding="utf-8")
    hyp.write_text("\n".join(HYP2) + "\n", encoding="utf-8")
    config = toy_env / "usim.yaml"
    config.write_text("usim:\n  parser: toy-parser\n  labels: weak\n", encoding="utf-8")
    monkeypatch.setattr(sys, "argv", ["semsim-gecmetrics-eval", "--src", str(src), "--hyps", str(hyp),
                                      "--metric", "usim", "--config", str(config)])
    try:
        gecmetrics_eval()
    finally:
        METRIC_ID2CLS.clear()
        METRIC_ID2CLS.update(saved)
    expected = USimMetric(USimMetric.Config(parser="toy-parser", labels="weak")).score_corpus(SOURCE, HYP2)
    assert capsys.readouterr().out == f"Score={expected} | Metric=usim | hyp_file={hyp}\n"


def test_rank_systems_and_score_pairwise_parse_once(toy_env, monkeypatch):
    """gec-metrics calls a metric once per system; USimMetric's own rank_systems and
    score_pairwise parse all systems' sentences in one pass, with the same results."""
    from gec_metrics.metrics import MetricBaseForReferenceFree

    import semsim.app.parsing
    from semsim.app.metric import USimMetric
    calls = []
    parse = semsim.app.parsing.parse_sentences
    monkeypatch.setattr(semsim.app.parsing, "parse_sentences", lambda texts, *a, **k: calls.append(len(texts))
                        or parse(texts, *a, **k))
    scorer = USimMetric(USimMetric.Config(parser="toy-parser"))
    systems = [HYP1, HYP2, SOURCE]
    assert scorer.rank_systems(SOURCE, systems) == pytest.approx(
        MetricBaseForReferenceFree.rank_systems(scorer, SOURCE, systems))
    assert scorer.score_pairwise(SOURCE, systems) == MetricBaseForReferenceFree.score_pairwise(scorer, SOURCE, systems)
    calls.clear()
    scorer.rank_systems(SOURCE, systems)
    scorer.score_pairwise(SOURCE, systems)
    assert calls == [13, 13]  # one pass each over the distinct texts of 5 sources + 3 systems x 5 lines
    assert scorer.rank_systems(SOURCE, systems)[2] == 1.0  # an unchanged "system" is perfectly faithful
    with pytest.raises(ValueError, match="aggregation must be"):
        scorer.rank_systems(SOURCE, systems, aggregation="median")


@pytest.mark.needs_shared
def test_meta_eval_seeda_runs_offline_on_the_shared_data(shared):
    """benchmarks/meta_eval_seeda.py's harness: gec-metrics' own MetaEvalSEEDA finds the
    shared SEEDA data through the directory it builds (no download, stand-in references),
    here with the measure that needs no parser (the share of changed lines)."""
    import meta_eval_seeda as bench  # benchmarks/ is on the tests' path (pyproject.toml)
    from gec_metrics.meta_eval import MetaEvalSEEDA
    with bench.seeda_tree(shared):
        changed = bench.metrics("toy-parser", None, "unused")["changed share"]
        out = MetaEvalSEEDA(MetaEvalSEEDA.Config(system="base")).corr_system(changed)
        assert len(out.ew_sent.metric_scores) == 12  # SEEDA's base set
        assert out.ew_sent.spearman == pytest.approx(0.818, abs=1e-3)  # docs/systems.md's table


@pytest.mark.parametrize("case,message", [
    ("missing", "no-such.txt: no such file"),
    ("fewer", "hyp.txt:3: 2 lines but the source"),
    ("binary", "hyp.txt:1: control character U+0000"),
    ("empty", "src.txt: no sentences"),
    ("unknown key", "usim.yaml: unknown usim setting parsr: choose from"),
    ("bad yaml", "usim.yaml:3: not valid YAML"),
    ("alias bomb", "usim.yaml:4: not valid YAML: an alias (*name): a config takes none"),
    ("nested", "usim.yaml: not a config: nested too deep"),
])
def test_gecmetrics_eval_refuses_bad_inputs_in_one_line(registered, monkeypatch, capsys, case, message):
    """What gec-metrics' own main would meet as a traceback (or, for empty files, score 1.0)."""
    from semsim.app.gec.cli import gecmetrics_eval
    src, hyp, config = registered / "src.txt", registered / "hyp.txt", registered / "usim.yaml"
    src.write_text("\n".join(SOURCE[:3]) + "\n", encoding="utf-8")
    hyp.write_text("\n".join(HYP1[:3]) + "\n", encoding="utf-8")
    config.write_text("usim:\n  parser: toy-parser\n", encoding="utf-8")
    if case == "fewer":
        hyp.write_text("\n".join(HYP1[:2]) + "\n", encoding="utf-8")
    elif case == "binary":
        hyp.write_bytes(b"\x00\x01\x02 binary\n" * 3)
    elif case == "empty":
        src.write_text("\n\n", encoding="utf-8")
    elif case == "unknown key":
        config.write_text("usim:\n  parsr: toy-parser\n", encoding="utf-8")
    elif case == "bad yaml":
        config.write_text("usim:\n  parser: [toy\n", encoding="utf-8")
    elif case == "alias bomb":  # #56: nine levels of aliases ran gec-metrics out of memory
        levels = ["l0: &l0 [lol]", *(f"l{k}: &l{k} [{', '.join([f'*l{k - 1}'] * 9)}]" for k in range(1, 10))]
        config.write_text("usim:\n  parser: toy-parser\n" + "\n".join(levels) + "\n", encoding="utf-8")
    elif case == "nested":
        config.write_text("usim:\n  parser: toy-parser\nx: " + "[" * 10_000 + "]" * 10_000 + "\n",
                          encoding="utf-8")
    hyps = [str(registered / "no-such.txt")] if case == "missing" else [str(hyp)]
    monkeypatch.setattr(sys, "argv", ["semsim-gecmetrics-eval", "--src", str(src), "--hyps", *hyps,
                                      "--metric", "usim", "--config", str(config)])
    with pytest.raises(SystemExit) as exit_:
        gecmetrics_eval()
    err = capsys.readouterr().err
    assert exit_.value.code == 1 and len(err.splitlines()) == 1 and message in err, err


@pytest.mark.parametrize("sources,hypotheses,message", [
    (["a b ."], [[None]], r"^hypotheses\[0\]\[0\]: None is not a string \(a sentence\)$"),
    ([None], [["a b ."]], r"^sources\[0\]: None is not a string"),
    (["a b .", "c d ."], [["a b .", "c \udc80 ."]], r"^hypotheses\[0\]\[1\]: lone surrogate U\+DC80 at column 3"),
])
def test_usim_metric_names_a_bad_sentence_by_argument_and_position(registered, sources, hypotheses, message):
    """#56: a None entry gave "AttributeError: 'NoneType' object has no attribute 'strip'"."""
    from semsim.app.metric import USimMetric
    from semsim.kernel.errors import InputError
    metric = USimMetric(USimMetric.Config(parser="toy-parser"))
    with pytest.raises(InputError, match=message):
        metric.score_systems(sources, hypotheses)
