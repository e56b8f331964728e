"""Text as users have it (issue #31): ``--tokenize spacy`` splits untokenized lines before
parsing and says so in the signature; ``none``, the default, changes nothing, byte for byte;
untokenized input is noticed once on stderr."""

from __future__ import annotations

import csv
import json
import warnings
from pathlib import Path

import pytest
from support import run_cli as run

from semsim.app.tokenization import TOKENIZERS, looks_untokenized, tokenize, tokenizer_fields, untokenized_lines
from semsim.kernel.errors import SettingsError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SHARED = ROOT.parent / "shared" / "data"

RAW_SOURCE = ["He gva an apple, John said.", "The cat (a tabby) sat.", "", "Dogs run fast!"]
RAW_HYP = ["He gave an apple, John said.", "The cat (a tabby) sat down.", "", "Dogs ran fast!"]
TOKENIZED_SOURCE = ["He gva an apple , John said .", "The cat ( a tabby ) sat .", "", "Dogs run fast !"]
TOKENIZED_HYP = ["He gave an apple , John said .", "The cat ( a tabby ) sat down .", "", "Dogs ran fast !"]


@pytest.fixture
def spacy():
    """spaCy (the ``tokenize`` extra; scripts/setup.sh installs it, so its absence fails).

    Every test using it is marked ``slow``: importing spaCy and loading its tokenizer take
    seconds, paid by whichever of them runs first (marking one would hand it to the next)."""
    import spacy
    return spacy


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# -- the module ---------------------------------------------------------------------------------
def test_none_returns_the_very_same_lines():
    lines = ["He said, all right.", "", "  x  y ", "a\tb"]
    out = tokenize(lines)
    assert out == lines and all(a is b for a, b in zip(out, lines))
    assert tokenize(lines, "none") == lines and tokenizer_fields("none").format() == ""
    assert TOKENIZERS == ("none", "spacy")


@pytest.mark.slow
def test_spacy_splits_punctuation_and_keeps_blank_lines(spacy):
    assert tokenize(RAW_SOURCE, "spacy") == TOKENIZED_SOURCE
    assert tokenize(['He said, "all right."', "  ", "I don't know."], "spacy") == [
        'He said , " all right . "', "  ", "I do n't know ."]
    assert tokenize(["a   b  c"], "spacy") == ["a b c"]  # whitespace tokens dropped
    assert tokenize(TOKENIZED_HYP, "spacy") == TOKENIZED_HYP  # tokenized text stays as it is


@pytest.mark.slow
def test_signature_names_spacy_and_its_version(spacy):
    assert tokenizer_fields("spacy").format() == "tok:spacy-" + ".".join(spacy.__version__.split(".")[:2])


def test_an_unknown_tokenizer_is_a_one_line_error_naming_the_choices():
    with pytest.raises(SettingsError, match="unknown tokenizer 'nltk': choose one of none, spacy"):
        tokenize(["a"], "nltk")
    with pytest.raises(SettingsError):
        tokenizer_fields("nltk")
    r = run("score", "--source", EXAMPLES / "source.txt", "--hyp", EXAMPLES / "system.txt", "--tokenize", "nltk")
    assert r.exit_code == 2 and "'nltk' is not one of 'none', 'spacy'" in r.output


def test_the_heuristic_tells_untokenized_from_tokenized_text():
    for path in EXAMPLES.glob("*.txt"):
        assert not looks_untokenized(path.read_text(encoding="utf-8").splitlines()), path
    assert looks_untokenized(RAW_SOURCE) and not looks_untokenized(TOKENIZED_SOURCE)
    # tokens of tokenized text that merely look glued
    tokenized = ["The U.S. , e.g. , grew 3.5 % ...", "It is n't John 's .", "Mr. Smith came ( late ) ."]
    assert untokenized_lines(tokenized) == (0, 3)
    assert not looks_untokenized(["He said, hi.", "", ""])  # one line is not enough
    assert looks_untokenized(["He said, hi.", "(see below)", "a b c", "d e f"])


# -- the commands ---------------------------------------------------------------------------------
def test_default_is_byte_identical_to_tokenize_none(toy_env):
    args = ["score", "--source", EXAMPLES / "source.txt", "--hyp", EXAMPLES / "system.txt", "--parser", "toy-parser",
            "--bootstrap", "100", "--paired-trials", "100"]
    outputs = []
    for extra in ([], ["--tokenize", "none"]):
        out = toy_env / f"out{len(extra)}.jsonl"
        r = run(*args, *extra, "-o", out)
        assert r.exit_code == 0, r.output
        outputs.append((r.stdout, r.stderr, out.read_bytes()))
    assert outputs[0] == outputs[1]
    assert "tok:" not in outputs[0][0] and b"tok:" not in outputs[0][2] and outputs[0][1] == ""


@pytest.mark.slow
def test_tokenize_spacy_splits_and_signs(toy_env, spacy):
    src, hyp = write(toy_env / "src.txt", RAW_SOURCE), write(toy_env / "hyp.txt", RAW_HYP)
    out = toy_env / "sent.jsonl"
    r = run("score", "--source", src, "--hyp", hyp, "--parser", "toy-parser", "--tokenize", "spacy",
            "--bootstrap", "0", "--paired", "none", "-o", out)
    assert r.exit_code == 0, r.output
    assert r.stderr == ""  # no note: the text was tokenized
    records = [json.loads(x) for x in out.read_text().splitlines()]
    sig = tokenizer_fields("spacy").format()
    assert all(x["signature"].endswith(f"|{sig}") for x in records)
    assert f"|{sig}" in r.stdout
    # the same numbers as the pre-tokenized text, whose signature has no tok: field
    src2, hyp2 = write(toy_env / "src2.txt", TOKENIZED_SOURCE), write(toy_env / "hyp2.txt", TOKENIZED_HYP)
    out2 = toy_env / "sent2.jsonl"
    r2 = run("score", "--source", src2, "--hyp", hyp2, "--parser", "toy-parser", "--bootstrap", "0",
             "--paired", "none", "-o", out2)
    assert r2.exit_code == 0 and r2.stderr == ""
    plain = [json.loads(x) for x in out2.read_text().splitlines()]
    assert [x["f"] for x in records] == [x["f"] for x in plain]
    assert [x["signature"] for x in records] == [f"{x['signature']}|{sig}" for x in plain]


@pytest.mark.slow
def test_parse_shows_the_tokenized_text(toy_env, spacy):
    src = write(toy_env / "src.txt", ["He said, all right."])
    r = run("parse", src, "--parser", "toy-parser", "--tokenize", "spacy", "-q")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["input"] == "He said , all right ."
    r = run("parse", src, "--parser", "toy-parser", "-q")
    assert json.loads(r.stdout)["input"] == "He said, all right."


def test_untokenized_input_is_noted_once_naming_the_file_and_the_option(toy_env):
    src, hyp = write(toy_env / "src.txt", RAW_SOURCE), write(toy_env / "hyp.txt", RAW_HYP)
    r = run("score", "--source", src, "--hyp", hyp, "--parser", "toy-parser", "--bootstrap", "0",
            "--paired", "none")
    assert r.exit_code == 0, r.output
    notes = r.stderr.splitlines()
    assert notes == [f"semsim: {src} looks untokenized (punctuation joined to words on 3 of 3 lines): "
                     "use --tokenize spacy"]
    assert run("score", "--source", src, "--hyp", hyp, "--parser", "toy-parser", "--bootstrap", "0",
               "--paired", "none", "-q").stderr == ""
    for command in (["parse", src, "--parser", "toy-parser"],
                    ["conservatism", "--source", src, "--hyp", hyp],
                    ["compare", "--source", src, "--hyp", hyp, "--parser", "toy-parser", "--bootstrap", "0"]):
        r = run(*command)
        assert r.exit_code == 0, r.output
        assert [line for line in r.stderr.splitlines() if "untokenized" in line] == [notes[0]], command
    # tokenized input: no note
    r = run("score", "--source", EXAMPLES / "source.txt", "--hyp", EXAMPLES / "system.txt", "--parser", "toy-parser",
            "--bootstrap", "0", "--paired", "none")
    assert r.exit_code == 0 and r.stderr == ""


@pytest.mark.slow
def test_conservatism_compare_and_sensitivity_sign_the_tokenizer(toy_env, spacy):
    sig = tokenizer_fields("spacy").format()
    src, hyp = write(toy_env / "src.txt", RAW_SOURCE), write(toy_env / "hyp.txt", RAW_HYP)
    r = run("conservatism", "--source", src, "--hyp", hyp, "--tokenize", "spacy", "--format", "json")
    assert r.exit_code == 0 and json.loads(r.stdout)["signature"].endswith(f"|{sig}")
    plain = run("conservatism", "--source", src, "--hyp", hyp, "--format", "json", "-q")
    assert "tok:" not in json.loads(plain.stdout)["signature"]
    r = run("compare", "--source", src, "--hyp", hyp, "--parser", "toy-parser", "--tokenize", "spacy",
            "--bootstrap", "0", "--format", "json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert all(s.endswith(f"|{sig}") for s in doc["signatures"].values())
    assert all(c["signature"].endswith(f"|{sig}") for c in doc["corpus"].values())
    r = run("compare", "--pairs", "toy", src, hyp, "--tokenize", "spacy")
    assert r.exit_code == 1 and "--tokenize applies to --source/--hyp text" in r.output
    r = run("sensitivity", EXAMPLES / "sensitivity.m2", "--parser", "toy-parser", "--tokenize", "spacy",
            "--bootstrap", "0", "--format", "json", "-q")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["summary"]["signature"].endswith(f"|{sig}")


# -- Python ---------------------------------------------------------------------------------------
@pytest.mark.slow
def test_usim_metric_tokenize_spacy_equals_pretokenized_text(toy_env, spacy):
    from semsim.app.metric import USimMetric
    raw = USimMetric(USimMetric.Config(parser="toy-parser", tokenize="spacy"))
    plain = USimMetric(USimMetric.Config(parser="toy-parser"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # tokenized text, or tokenize="spacy": no warning
        assert raw.score_sentence(RAW_SOURCE, RAW_HYP) == plain.score_sentence(TOKENIZED_SOURCE, TOKENIZED_HYP)
    assert raw.get_signature() == f"{plain.get_signature()}|{tokenizer_fields('spacy').format()}"
    assert "tok:" not in plain.get_signature()
    (scores,) = raw.sentence_scores(RAW_SOURCE, [RAW_HYP])
    assert all(s.signature.format() == raw.get_signature() for s in scores)
    with pytest.warns(UserWarning, match='looks untokenized .*tokenize="spacy"'):
        plain.score_sentence(RAW_SOURCE, RAW_HYP)
    with pytest.raises(SettingsError, match="unknown tokenizer"):
        USimMetric.Config(tokenize="nltk")


@pytest.mark.slow
def test_api_parse_takes_tokenize(toy_env, spacy):
    import semsim.api
    parses = semsim.api.parse(RAW_SOURCE, parser="toy-parser", tokenize="spacy")
    assert parses.signature.endswith(f"|{tokenizer_fields('spacy').format()}")
    graph = parses.get(RAW_SOURCE[0])  # looked up by the text as given
    assert graph is not None and [t.text for t in graph.tokens] == TOKENIZED_SOURCE[0].split()


@pytest.mark.slow
def test_text_scores_take_tokenize_and_warn_once_on_untokenized_text(toy_env, spacy):
    """Issue #46: the README's Python example took raw text silently (0.973 raw vs 0.853
    tokenized on one sentence); now ``tokenize="spacy"`` scores it as tokenized text, and
    without it a warning names the option, once per place it is called from."""
    import semsim
    usim = semsim.USim()
    parsing = semsim.api.ParseSettings(parser="toy-parser")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # tokenized text, or tokenize="spacy": no warning
        raw = usim.text_scores(RAW_SOURCE, RAW_HYP, parsing, tokenize="spacy")
        plain = usim.text_scores(TOKENIZED_SOURCE, TOKENIZED_HYP, parsing)
    assert [s.f for s in raw] == [s.f for s in plain]
    assert all(s.signature.format().endswith(f"|{tokenizer_fields('spacy').format()}") for s in raw)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")  # Python's own filter: each distinct warning once per place
        for _ in range(3):
            usim.text_scores(RAW_SOURCE, RAW_HYP, parsing)
    assert len(caught) == 1 and 'tokenize="spacy"' in str(caught[0].message), [str(w.message) for w in caught]
    assert caught[0].filename == __file__  # it points at the caller's line
    with pytest.warns(UserWarning, match='looks untokenized .*tokenize="spacy"'):  # one pair is enough
        usim.text_scores(["He gva an apple for John, I think."], ["He gave John an apple, I think."], parsing)
    with pytest.raises(SettingsError, match="give one of them"):
        usim.text_scores(RAW_SOURCE, RAW_HYP, semsim.api.ParseSettings(tokenize="spacy"), tokenize="none")


def test_api_parse_warns_naming_the_option(toy_env):
    import semsim.api
    with pytest.warns(UserWarning, match='looks untokenized .*tokenize="spacy"'):
        semsim.api.parse(RAW_SOURCE, parser="toy-parser")


@pytest.mark.slow  # semsim.app.hf imports USimMetric, and so gec-metrics and torch (seconds)
def test_hf_settings_include_tokenize():
    from semsim.app.hf import resolve_settings, setting_names
    assert "tokenize" in setting_names()
    assert resolve_settings(None, {"tokenize": "spacy"})["tokenize"] == "spacy"


# -- real data ------------------------------------------------------------------------------------
@pytest.mark.needs_shared
def test_jfleg_is_tokenized_and_tmu_gfm_is_not():
    jfleg = sorted((SHARED / "jfleg").glob("*/*"))
    tmu = SHARED / "tmu-gfm-dev" / "tmu-gfm-dev.csv"
    assert jfleg and tmu.exists()
    for path in jfleg:
        glued, total = untokenized_lines(path.read_text(encoding="utf-8").splitlines())
        assert glued < 0.02 * total, path
    with tmu.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    for column in ("source", "output"):
        assert looks_untokenized([r[column] for r in rows]), column


@pytest.mark.parametrize(("source", "output", "differs"), [
    ("Islam's rise .", "Islam 's rise .", False), ("don't go", "do n't go", False), ("a  b", " a b ", False),
    ("well-known", "well - known", False), ("end.", "end .", False), ("every day", "everyday", True),
    ("its", "it 's", True), ("Hello world", "Hello, world", True), ("He go .", "He goes .", True)])
def test_changed_means_beyond_tokenization(source, output, differs):
    from semsim.app.tokenization import changed
    assert changed(source, output) is differs and changed(output, source) is differs
