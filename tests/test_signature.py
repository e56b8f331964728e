"""semsim.kernel.signature.Signature: ordered fields rendered to the strings scores have always
carried (issue #48: nobody joins or splits a signature string but this class)."""

from __future__ import annotations

from pathlib import Path

import pytest

import semsim
from semsim.app.parsing import parser_fields, parser_signature
from semsim.kernel.records import Parser
from semsim.kernel.signature import Signature
from semsim.kernel.stats import signature

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

#: signatures as semsim 0.1 wrote them before Signature existed (captured from `semsim score`
#: on the README's examples: the paper's default, the meaning preset, legacy, a tokenizer)
RENDERED = [
    "usim|variant:paper|dir:both|tie:coverage|labels:labeled|remote:yes|denom:yield|align:sentence|"
    "scheme:ucca@32e175b60e13|plugin:semsim-ucca-0.2.0|version:0.1.0|parser:ucca-span|"
    "model:ucca-span-ewt-minilm-l2@ff0cf8e76f1d|encoder:all-MiniLM-L6-v2@53aa51172d14|decoder:cky-2|"
    "bootstrap:100|conf:0.95|seed:12345|paired:ar|trials:100",
    "usim|variant:paper|preset:meaning|dir:both|tie:all|labels:unlabeled|remote:yes|denom:aligned|align:sentence|"
    "tokens:contextual|ctx:minilm-l6@53aa51172d14,layer4|leaves:8|scheme:ucca@32e175b60e13|",
    "usim|variant:legacy|single_token_units:yes|scheme:ucca@32e175b60e13|plugin:semsim-ucca-0.2.0|version:0.1.0",
    "parser:toy-parser|model:rules@rules-v1|tok:spacy-3.8",
    "bertscore|model:all-MiniLM-L6-v2@53aa51172d14|layers:6|f1|idf:no|rescale:no|bert-score:0.3.13",
    "", "a", "a||b:", "k:v:w|:x",  # odd ones: empty fields, colons in values
]


def test_fields_keep_their_order_and_render_as_scores_carry_them():
    sig = Signature.of("usim", {"variant": "paper", "remote": True, "by_sentence": False, "leaves": 2})
    assert sig.format() == str(sig) == "usim|variant:paper|remote:yes|by_sentence:no|leaves:2"
    assert sig.name == "usim" and sig.info == {"variant": "paper", "remote": "yes", "by_sentence": "no", "leaves": "2"}
    more = sig.add("f1").add("version", "0.1.0") + Signature.of(None, {"parser": "p"})
    assert more.format() == "usim|variant:paper|remote:yes|by_sentence:no|leaves:2|f1|version:0.1.0|parser:p"
    assert Signature.of(None, {"z": 1, "a": 2}).format() == "z:1|a:2"  # never sorted
    assert not Signature() and Signature().format() == "" and (Signature() + sig) == sig
    assert Signature.parse("x|version:2|y").renamed("version", "lib").format() == "x|lib:2|y"
    assert Signature.parse("stem|encoder:e@1").head().format() == "stem"
    assert Signature.parse("stem|encoder:e@1").tail().format() == "encoder:e@1"


@pytest.mark.parametrize("text", RENDERED)
def test_parse_then_format_gives_back_every_string(text):
    assert Signature.parse(text).format() == text


def test_stats_signature_renders_as_before():
    rendered = signature("dagf", {"labels": "labeled", "remote": True}, "9.9")
    assert rendered == "dagf|labels:labeled|remote:yes|version:9.9"


@pytest.mark.parametrize("settings", [{}, {"variant": "legacy"}, {"labels": "weak", "tie_break": "all"},
                                      {"preset": "meaning"}],
                         ids=["paper", "legacy", "remedies", "preset"])
def test_a_metrics_signature_is_its_fields_rendered(settings):
    metric = semsim.USim(**settings)
    fields = metric.signature("ucca")
    assert fields.name == "usim" and fields.format() == metric.get_signature("ucca")
    assert Signature.parse(metric.get_signature("ucca")) == fields
    assert list(fields.info)[-3:] == ["scheme", "plugin", "version"]


def _parser(model_name):
    return Parser("p", "toy", lambda texts, model: [], model_identity=lambda model: "0123456789abcdef",
                  model_name=model_name)


def test_a_parsers_fields_follow_the_model_whether_a_plugin_gives_a_signature_or_an_old_string():
    """The UCCA parser names its encoder and decoder after the model; a plugin written before
    Signature gives ``NAME|key:value`` as a string, which still signs the same."""
    new = _parser(lambda model: Signature.of("stem").add("encoder", "e@1").add("decoder", "cky-2"))
    old = _parser(lambda model: "stem|encoder:e@1|decoder:cky-2")
    expected = "parser:p|model:stem@0123456789ab|encoder:e@1|decoder:cky-2"
    assert parser_signature(new, None) == parser_signature(old, None) == expected
    assert parser_fields(new, None) == parser_fields(old, None)
    assert parser_fields(new, None).info["model"] == "stem@0123456789ab"
    plain = _parser(lambda model: model or "rules")
    assert parser_signature(plain, None) == "parser:p|model:rules@0123456789ab"
    assert parser_signature(_parser(None), "dir/m.bin") == "parser:p|model:m.bin@0123456789ab"


def test_the_shipped_parser_names_its_model_with_fields():
    from semsim_ucca import span
    name = span.model_name(None)
    assert isinstance(name, Signature) and list(name.info) == ["encoder", "decoder"]
    assert name.head().format() == "ucca-span-ewt-minilm-l2"


def test_the_parse_caches_model_key_is_rendered_as_before(toy_env):
    """The cache's key of a model (its content, the plugin's code, the graph form) and how
    `semsim cache` shows it to people: as the strings they were."""
    from semsim.app.cache import model_key
    from semsim.app.commands.cache import _model
    from semsim.app.parsing import find_parser
    from semsim.app.plugins import plugin_code_version
    from semsim.kernel.graph_json import GRAPH_FORMAT
    parser = find_parser("toy-parser", None)
    code = f"{parser.plugin}-{plugin_code_version(parser.plugin)}"
    assert model_key(parser, None) == f"rules-v1|{code}|graph-{GRAPH_FORMAT}"
    assert _model(model_key(parser, None)) == f"rules-v1 ({code}, graph-{GRAPH_FORMAT})"
    assert _model("0123456789abcdef0123") == "0123456789ab"
    assert Signature.parse("k:v|b").parts() == ["k:v", "b"]


def test_what_semsim_writes_is_pinned():
    """The strings themselves, not their round trip: what the README's example scores carry,
    written out literally, so that a change of field, order or spelling fails here."""
    src, cor = (semsim.read(EXAMPLES / f"fig1-{x}.xml") for x in ("source", "correction"))
    assert semsim.usim(src, cor).signature == (
        "usim|variant:paper|dir:both|tie:coverage|labels:labeled|remote:yes|denom:yield|align:sentence|"
        "scheme:ucca@32e175b60e13|plugin:semsim-ucca-0.2.0|version:0.1.0")
    assert semsim.usim(src, cor, variant="legacy").signature == (
        "usim|variant:legacy|single_token_units:yes|scheme:ucca@32e175b60e13|plugin:semsim-ucca-0.2.0|version:0.1.0")
    assert semsim.usim(src, cor, tokens="lexical", leaves=2, edge_weights="none").signature == (
        "usim|variant:paper|dir:both|tie:coverage|labels:labeled|remote:yes|denom:yield|align:sentence|"
        "tokens:lexical|weights:none|leaves:2|scheme:ucca@32e175b60e13|plugin:semsim-ucca-0.2.0|version:0.1.0")


def test_strings_are_still_taken_where_signatures_were_strings():
    """with_tokenizer and sign took strings before Signature: a caller that still passes one
    gets what it got then (a string back from with_tokenizer)."""
    from semsim.app.parsing import sign
    from semsim.app.tokenization import with_tokenizer
    assert with_tokenizer("levenshtein|unit:token", "none") == "levenshtein|unit:token"
    assert with_tokenizer("levenshtein|unit:token", "spacy").startswith("levenshtein|unit:token|tok:spacy-")
    assert isinstance(with_tokenizer(Signature.parse("a|b:c"), "none"), Signature)
    src = semsim.read(EXAMPLES / "fig1-source.xml")
    score = semsim.usim(src, src)
    assert sign(score, "parser:x|model:y").signature == score.signature + "|parser:x|model:y"
    assert sign(score, Signature.parse("parser:x|model:y")) == sign(score, "parser:x|model:y")
