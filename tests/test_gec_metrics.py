"""USimMetric through gec-metrics itself (issue #11, point 6): its real base classes, its
registry, its config path (flat settings from YAML) and its system ranking."""

from __future__ import annotations

import dataclasses
import sys

import pytest

pytestmark = pytest.mark.needs_gec_metrics

SOURCE = ["He gva an apple .", "The cat sat .", "Dogs run fast .", "", "I like Tea ."]
HYP1 = ["He gave John an apple .", "The cat sat .", "Dogs ran fast .", "", "I like tea ."]
HYP2 = ["He gave an apple .", "the Cat sat down .", "Dogs run .", "x", "We like Tea ."]


@pytest.fixture
def registered(toy_env):
    """gec-metrics' registry with USimMetric as ``usim``, restored afterwards."""
    from gec_metrics.metrics import METRIC_ID2CLS

    from semsim.gec.metric import register
    saved = dict(METRIC_ID2CLS)
    register()
    yield toy_env
    METRIC_ID2CLS.clear()
    METRIC_ID2CLS.update(saved)


def test_usim_metric_is_a_gec_metrics_metric():
    from gec_metrics.metrics import MetricBase, MetricBaseForReferenceFree

    from semsim.gec.metric import USimMetric
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


def test_gec_metrics_command_line_with_a_yaml_config(registered, monkeypatch, capsys):
    """gecmetrics-eval's own code: YAML settings -> ``cls(cls.Config(**settings))`` -> score_corpus."""
    from gec_metrics.cli import evaluate

    from semsim.gec.metric import USimMetric
    files = {}
    for name, lines in (("src", SOURCE), ("hyp", HYP1)):
        files[name] = registered / f"{name}.txt"
        files[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    config = registered / "config.yaml"
    config.write_text("usim:\n  parser: toy-parser\n  variant: paper\n  use_cache: false\n", encoding="utf-8")
    monkeypatch.setattr(sys, "argv", ["gecmetrics-eval", "--src", str(files["src"]), "--hyps", str(files["hyp"]),
                                      "--metric", "usim", "--config", str(config)])
    evaluate.main()
    # gecmetrics-eval strips the last line break, so the empty fourth line is kept
    expected = USimMetric(USimMetric.Config(parser="toy-parser")).score_corpus(SOURCE, HYP1)
    assert capsys.readouterr().out.startswith(f"Score={expected} | Metric=usim")
