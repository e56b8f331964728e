"""semsim.kernel.signature.Signature: ordered fields a score carries as an object and renders
where output is written, in the strings scores have always carried; what a plugin or a file
says in one is data, never structure (escaped, or refused where it repeats a key)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import run_cli

import semsim
from semsim.app.parsing import parser_fields
from semsim.kernel.errors import PluginError
from semsim.kernel.records import Parser
from semsim.kernel.signature import Signature, SignatureClash, signature

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_fields_keep_their_order_and_render_as_scores_carry_them():
    sig = Signature.of("usim", {"variant": "paper", "remote": True, "by_sentence": False, "leaves": 2})
    assert sig.format() == str(sig) == "usim|variant:paper|remote:yes|by_sentence:no|leaves:2"
    assert sig.name == "usim" and sig.info == {"variant": "paper", "remote": "yes", "by_sentence": "no", "leaves": "2"}
    more = sig.add("f1").add("version", "0.1.0") + Signature.of(None, {"parser": "p"})
    assert more.format() == "usim|variant:paper|remote:yes|by_sentence:no|leaves:2|f1|version:0.1.0|parser:p"
    assert Signature.of(None, {"z": 1, "a": 2}).format() == "z:1|a:2"  # never sorted
    assert not Signature() and Signature().format() == "" and (Signature() + sig) == sig
    assert Signature.of("x", {"version": 2}).add("y").renamed("version", "lib").format() == "x|lib:2|y"
    assert repr(sig) == "Signature('usim|variant:paper|remote:yes|by_sentence:no|leaves:2')"


def test_the_kernel_fills_in_semsims_version_and_the_graphs_scheme():
    """No caller passes semsim's version: the one function every measure signs with adds it,
    after the graphs' scheme and the plugin that made them."""
    assert signature("dagf", {"labels": "labeled", "remote": True}).format() == \
        f"dagf|labels:labeled|remote:yes|version:{semsim.__version__}"
    g = semsim.read(EXAMPLES / "fig1-source.xml")
    assert list(signature("x", {}, g.scheme).info) == ["scheme", "plugin", "version"]


@pytest.mark.parametrize("settings", [{}, {"variant": "legacy"}, {"labels": "weak", "tie_break": "all"},
                                      {"preset": "meaning"}],
                         ids=["paper", "legacy", "remedies", "preset"])
def test_a_metrics_signature_is_its_fields_rendered(settings):
    metric = semsim.USim(**settings)
    fields = metric.signature("ucca")
    assert fields.name == "usim" and fields.format() == metric.get_signature("ucca")
    assert list(fields.info)[-3:] == ["scheme", "plugin", "version"]


def test_a_plugin_metrics_signature_names_scheme_plugin_and_version():
    """Smatch (the AMR plugin's measure) signs as USim does: its settings, then the graphs'
    scheme, the plugin that made them and semsim's version (before: no scheme, no plugin)."""
    from semsim.app.plugins import metrics
    src, cor = (semsim.read(EXAMPLES / f"fig1-{x}.amr") for x in ("source", "correction"))
    smatch = metrics()["smatch"].score(src, cor).signature
    assert smatch.name == "smatch" and list(smatch.info)[-3:] == ["scheme", "plugin", "version"]
    assert smatch.info["plugin"].startswith("semsim-amr-")
    assert list(smatch.info)[-3:] == list(semsim.usim(src, cor).signature.info)[-3:]


def _parser(model_name):
    return Parser("p", "toy", lambda texts, model: [], model_identity=lambda model: "0123456789abcdef",
                  model_name=model_name)


def test_a_parsers_fields_follow_the_model():
    """The UCCA parser names its encoder and decoder after the model; a plain string is the
    model's name, whatever it holds."""
    new = _parser(lambda model: Signature.of("stem").add("encoder", "e@1").add("decoder", "cky-2"))
    assert parser_fields(new, None).format() == "parser:p|model:stem@0123456789ab|encoder:e@1|decoder:cky-2"
    assert parser_fields(new, None).info["model"] == "stem@0123456789ab"
    plain = _parser(lambda model: model or "rules")
    assert parser_fields(plain, None).format() == "parser:p|model:rules@0123456789ab"
    assert parser_fields(_parser(None), "dir/m.bin").format() == "parser:p|model:m.bin@0123456789ab"


FORGED = ["m|version:9", "m|parser:x|model:y", "m||b:", "m\nsignature: forged", "m\tcolumn", "m\x1b[31mred\x00",
          "m\x9b2J", "m\u2028line", "back\\slash|", "m\r\n"]


@pytest.mark.parametrize("name", FORGED, ids=range(len(FORGED)))
def test_what_a_plugin_names_its_model_cannot_forge_fields_or_lines(name):
    """A ``|`` in a model's name once gave a field with no key (or a second ``version:``), a
    newline a second ``signature:`` line, ESC and NUL reached the terminal, a tab a TSV column:
    the name is one value, escaped as it is rendered, and the rendering reads back unambiguously."""
    fields = parser_fields(_parser(lambda model: name), None)
    assert fields.info["model"] == f"{name}@0123456789ab"  # the value kept as given
    rendered = fields.format()
    assert rendered.count("|") - rendered.count("\\|") == 1 and rendered.isprintable()
    assert [p.split(":")[0] for p in rendered.replace("\\\\", "").replace("\\|", "").split("|")] == \
        ["parser", "model"]
    assert json.loads(json.dumps(rendered)) == rendered and "\n" not in rendered and "\t" not in rendered


@pytest.mark.parametrize("key", ["version", "parser", "model", "tok", "seed", "bootstrap"])
def test_a_plugins_fields_may_not_repeat_a_key_semsim_writes(key, toy_env):
    """A plugin's own fields after its model's name (as the UCCA parser names its encoder) may
    not be keys semsim writes: two ``version:`` fields could not be told apart. One line, the
    plugin named."""
    bad = _parser(lambda model: Signature.of("stem").add(key, "9"))
    with pytest.raises(PluginError, match=rf"plugin .* its model_name gives signature field '{key}' already"):
        parser_fields(bad, None)
    with pytest.raises(SignatureClash):
        Signature.of("a", {key: 1}).extended(Signature.of(None, {key: 2}))


def test_a_parsers_fields_may_not_repeat_the_measures_keys(toy_env):
    """Where a measure's signature meets a parser's (the one place: ``signed_with``), a key of
    the measure's (a setting, the scheme) given by the parser is refused too."""
    from semsim.app.parsing import signed_with
    with pytest.raises(PluginError, match="'labels'"):
        signed_with(semsim.USim().signature("toy"), Signature.of(None, {"labels": "x"}), "toy-parser")


def test_a_newline_in_a_model_name_forges_no_signature_line_on_stdout(toy_env):
    """`semsim score` and `semsim explain --line` print one ``signature:`` line whatever the
    parser's model is named (the toy parser names its model by ``--model``)."""
    (toy_env / "s.txt").write_text("He gva an apple .\n")
    (toy_env / "h.txt").write_text("He gave John an apple .\n")
    model = "rules|version:9\nsignature: forged\x1b[31m"
    for args in (("score",), ("explain", "--line", "1")):
        r = run_cli(*args, "--source", toy_env / "s.txt", "--hyp", toy_env / "h.txt", "--model", model, "-q")
        assert r.exit_code == 0, r.output
        assert not [line for line in r.stdout.splitlines() if line.lstrip().startswith("signature: forged")]
        assert "\x1b" not in r.stdout, r.stdout
        assert "model:rules\\|version:9\\nsignature:forged\\x1b[31m@rules-v1" in "".join(r.stdout.split())


def test_the_shipped_parser_names_its_model_with_fields():
    from semsim_ucca import span
    name = span.model_name(None)
    assert isinstance(name, Signature) and list(name.info) == ["encoder", "decoder"]
    assert name.name == "ucca-span-ewt-minilm-l2-consistency"


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
    assert _model("a|b\nc|d|e") == "a\\|b\\nc (d, e)"  # a plugin's identity may hold anything


def test_what_semsim_writes_is_pinned():
    """The strings themselves, not their round trip: what the README's example scores carry,
    written out literally, so that a change of field, order or spelling fails here."""
    src, cor = (semsim.read(EXAMPLES / f"fig1-{x}.xml") for x in ("source", "correction"))
    assert semsim.usim(src, cor).signature.format() == (
        "usim|variant:paper|dir:both|tie:coverage|labels:labeled|remote:yes|denom:yield|align:sentence|"
        "scheme:ucca@32e175b60e13|plugin:semsim-ucca-0.2.0|version:0.1.0")
    assert semsim.usim(src, cor, variant="legacy").signature.format() == (
        "usim|variant:legacy|single_token_units:yes|scheme:ucca@32e175b60e13|plugin:semsim-ucca-0.2.0|version:0.1.0")
    assert semsim.usim(src, cor, tokens="lexical", leaves=2, edge_weights="none").signature.format() == (
        "usim|variant:paper|dir:both|tie:coverage|labels:labeled|remote:yes|denom:yield|align:sentence|"
        "tokens:lexical|weights:none|leaves:2|scheme:ucca@32e175b60e13|plugin:semsim-ucca-0.2.0|version:0.1.0")


def test_a_records_fault_is_named_by_its_fields_not_its_words():
    """The kernel says which kind of record failed (a paraphrase judge, a word encoder) as a
    field, which the application turns into the plugin's name; it read it from the message."""
    import pickle

    from semsim.kernel.errors import PluginError, RecordFault
    fault = RecordFault("word encoder", "gave vectors of 3 and 4 dimensions")
    assert isinstance(fault, PluginError) and str(fault) == "word encoder gave vectors of 3 and 4 dimensions"
    back = pickle.loads(pickle.dumps(fault))  # crosses processes whole
    assert (back.record, back.detail) == (fault.record, fault.detail)
