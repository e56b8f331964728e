"""semsim.app.scoring.score_texts, the one route from text to scores (issue #48): `semsim score`,
USim.text_scores, USimMetric (gec-metrics, the Hugging Face module, the meta-evaluation) take it,
and give the same score for every line: empty lines, the fallback, a line left unparsed."""

from __future__ import annotations

import json

import pytest
from support import run_cli

import semsim.app.scoring
from semsim import USim
from semsim.app.metric import USimMetric
from semsim.app.parsing import ParseSettings
from semsim.app.scoring import Files, score_texts
from semsim.kernel.errors import ParseError, SemsimError

TOY = ["--parser", "toy-parser", "--no-cache", "-q", "--bootstrap", "0", "--paired", "none"]
#: both sides empty (1 by convention), the output empty (0), the source empty (0)
SOURCE = ["the Cat sat .", "", "a b c .", "X y z .", ""]
OUTPUT = ["the Dog sat .", "", "", "X y w .", "q ."]


def _cli(toy_env, source, output, *args):
    src, hyp, out = toy_env / "src.txt", toy_env / "hyp.txt", toy_env / "lines.jsonl"
    src.write_text("".join(f"{line}\n" for line in source), encoding="utf-8")
    hyp.write_text("".join(f"{line}\n" for line in output), encoding="utf-8")
    r = run_cli("score", "--source", src, "--hyp", hyp, *TOY, "-o", out, *args)
    records = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()] if out.exists() else []
    return r, records


def _as_record(score):
    return {"f": score.f, "precision": score.precision, "recall": score.recall, "signature": score.signature.format(),
            "detail": {k: c.as_dict() for k, c in score.parts.items()}, "empty": score.convention is not None}


def _surfaces(source, output):
    parsing = ParseSettings(parser="toy-parser", cache=False)
    api = USim().text_scores(source, output, parsing)
    (suite,) = USimMetric(USimMetric.Config(parser="toy-parser", use_cache=False)).sentence_scores(source, [output])
    return api, suite


@pytest.mark.parametrize("source,output,conventions", [(SOURCE, OUTPUT, {2: 1.0, 3: 0.0, 5: 0.0}),
                                                       (["", "a ."], ["", ""], {1: 1.0, 2: 0.0})],
                         ids=["empty-lines", "fallback-only"])
def test_score_the_python_api_and_usimmetric_give_the_same_lines(toy_env, source, output, conventions):
    r, records = _cli(toy_env, source, output)
    assert r.exit_code == 0, r.output
    api, suite = _surfaces(source, output)
    assert api == suite
    assert [{k: rec[k] for k in ("f", "precision", "recall", "signature", "detail", "empty")} for rec in records] \
        == [_as_record(s) for s in api]
    assert {k: s.f for k, s in enumerate(api, 1) if s.convention is not None} == conventions
    # the fallback and the conventions sign as a parsed score does: the metric, then the parser
    signed = USim().text_scores(["a ."], ["a ."], ParseSettings(parser="toy-parser", cache=False))[0].signature
    assert {s.signature for s in api} == {signed}


def test_an_unparsed_line_is_left_out_by_the_command_and_raised_by_the_python_surfaces(toy_env, monkeypatch):
    monkeypatch.setenv("TOY_FAIL_AT", "X y w .")
    r, records = _cli(toy_env, SOURCE, OUTPUT)
    assert r.exit_code == 1 and "hyp.txt:4: " in r.output and "toy parser cannot parse this" in r.output
    assert [rec["line"] for rec in records] == [1, 2, 3, 5]
    with pytest.raises(ParseError, match="X y w"):
        USim().text_scores(SOURCE, OUTPUT, ParseSettings(parser="toy-parser", cache=False))
    with pytest.raises(ParseError, match="X y w"):
        USimMetric(USimMetric.Config(parser="toy-parser", use_cache=False)).sentence_scores(SOURCE, [OUTPUT])
    monkeypatch.delenv("TOY_FAIL_AT")
    api, _ = _surfaces(SOURCE, OUTPUT)
    assert [rec["f"] for rec in records] == [s.f for k, s in enumerate(api, 1) if k != 4]


def test_the_route_names_what_it_leaves_out_and_refuses_a_run_of_conventions_only(toy_env, monkeypatch):
    monkeypatch.setenv("TOY_FAIL_AT", "X y w .")
    scored = score_texts(USim(), SOURCE, {"A": OUTPUT, "B": SOURCE}, ParseSettings(parser="toy-parser", cache=False),
                         keep_going=True, files=Files("src.txt", {"A": "a.txt", "B": "b.txt"}))
    assert [str(e).split(": ")[0] for e in scored.skipped] == ["a.txt:4"] and scored.skip == {4}
    assert [(r.system, r.line) for r in scored.lines] == [(s, k) for s in "AB" for k in (1, 2, 3, 5)]
    assert scored.signature == scored.lines[0].score.signature
    assert scored.by_system()["B"][0].f == 1.0
    unnamed = score_texts(USim(), SOURCE, {"A": OUTPUT}, ParseSettings(parser="toy-parser", cache=False),
                          keep_going=True)
    assert str(unnamed.skipped[0]).startswith("A:4: ")
    with pytest.raises(SemsimError, match="no line could be scored"):
        score_texts(USim(), ["X y w .", ""], {"A": ["X y w .", "q ."]}, ParseSettings(parser="toy-parser", cache=False),
                    keep_going=True)


def test_every_surface_from_text_takes_the_route(toy_env, monkeypatch):
    """The command, the Python API, USimMetric and through it the Hugging Face module:
    each scores through score_texts, none through a copy of its own."""
    calls = []

    def spy(*args, **kwargs):
        calls.append(args[0])
        return score_texts(*args, **kwargs)

    monkeypatch.setattr(semsim.app.scoring, "score_texts", spy)
    r, _ = _cli(toy_env, SOURCE, OUTPUT)
    assert r.exit_code == 0, r.output
    _surfaces(SOURCE, OUTPUT)
    from semsim.app.hf import compute
    compute(["a ."], ["a b ."], {"parser": "toy-parser", "use_cache": False})
    assert len(calls) == 4 and all(isinstance(m, USim) for m in calls)


def test_pairs_parsed_from_text_are_one_step(toy_env, monkeypatch):
    """The step from two line-parallel texts to graph pairs (semsim compare's, per parser):
    every distinct sentence parsed once, the lines to score, and the lines left out by file
    and line, with what signs the scores (the parser's fields after the measure's)."""
    from semsim.app.scoring import parse_pairs
    monkeypatch.setenv("TOY_FAIL_AT", "Cats fly .")
    source, output = ["the Cat sat .", "", "Cats fly .", "X y z ."], ["the Dog sat .", "a .", "Cats ran .", "X y w ."]
    pairs = parse_pairs(source, output, ParseSettings(parser="toy-parser", cache=False), Files("s.txt", {"": "h.txt"}))
    assert pairs.lines == [1, 4] and [str(e) for e in pairs.skipped] == [
        "s.txt:3: parser 'toy-parser' failed on 'Cats fly .': RuntimeError: toy parser cannot parse this"]
    g1, g2 = pairs.graphs(4)
    assert [t.text for t in g1.tokens] == ["X", "y", "z", "."] and [t.text for t in g2.tokens] == ["X", "y", "w", "."]
    signed = pairs.parses.sign(USim().signature("toy"))
    assert str(signed).endswith("|parser:toy-parser|model:rules@rules-v1")
