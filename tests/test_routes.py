"""One graph from every route (issue #47.1): what an adapter put in a graph comes back the same
from MRP that `semsim parse` wrote, from the plugin's own writer, from the parse cache and
from worker processes; and so the scores do.

The plugin under test (``drs_plugin.py``) judges punctuation its own way (a concept's sense
token ``..n.02`` is punctuation, which ``semsim.kernel.adapt.is_punct`` would not say), leaves a
kind of unit out of comparison (``ignored_kinds``) and orders pseudo-tokens that are not
words: everything a reconversion from MRP used to recompute or drop.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import run_cli

import semsim
import semsim.app.plugins as plugins
from semsim.app.parsing import ParseSettings, parse_texts
from semsim.kernel.graph_json import graph_to_dict

DRS = str(Path(__file__).with_name("drs_plugin.py"))
DATA = Path(__file__).parent / "data" / "drs"
SOURCES = ["Tom sleeps .", "A dog barks loudly ."]
HYPOTHESES = ["Tom slept .", "The dog barked ."]


@pytest.fixture
def drs_env(monkeypatch, tmp_path):
    """The DRS plugin as an inline plugin (subprocesses and workers load it too), alone, with a
    parse cache in ``tmp_path``."""
    monkeypatch.setenv("SEMSIM_LOAD_PLUGINS", "")
    monkeypatch.setenv("SEMSIM_PLUGINS", DRS)
    monkeypatch.setenv("SEMSIM_CACHE_DIR", str(tmp_path / "cache"))
    plugins.reset_plugin_manager()
    (tmp_path / "src.txt").write_text("\n".join(SOURCES) + "\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("\n".join(HYPOTHESES) + "\n", encoding="utf-8")
    yield tmp_path
    plugins.reset_plugin_manager()


def form(g: semsim.Graph) -> dict:
    """A graph as its JSON form, without its name and where it was read: what must survive."""
    return {k: v for k, v in graph_to_dict(g).items() if k not in ("id", "meta")}


def parsed(texts: list[str], **settings) -> list[semsim.Graph]:
    parses = parse_texts(texts, ParseSettings(representation="drs", **settings))
    return [parses.get(t) for t in texts]


def test_the_plugin_judges_punctuation_and_kinds_its_own_way(drs_env):
    from semsim.kernel.adapt import is_punct
    (g,) = parsed(["Tom sleeps ."], cache=False)
    senses = [t for t in g.tokens if t.text.startswith("..")]
    assert senses and all(t.punct and not is_punct(t.text) for t in senses)
    assert {u.kind for u in g.units} == {"box", "ref", "time"} and "time" in g.scheme.ignored_kinds


def test_mrp_written_by_parse_reads_back_as_the_graphs_scored(drs_env):
    """`semsim parse` + `semsim usim` on its MRP scores what `semsim score` scores: the same
    graphs, token punctuation, unit kinds and ids included (before: 0.7436 against 0.8831,
    the MRP reader recomputing punctuation with is_punct and dropping kinds and ids)."""
    for name in ("src", "hyp"):
        r = run_cli("parse", "--representation", "drs", "-q", "-o", drs_env / f"{name}.mrp", drs_env / f"{name}.txt")
        assert r.exit_code == 0, r.output
    back = semsim.read_all(drs_env / "src.mrp") + semsim.read_all(drs_env / "hyp.mrp")
    assert [form(g) for g in back] == [form(g) for g in parsed(SOURCES + HYPOTHESES)]
    assert [(u.id, u.kind) for u in back[0].units] == [("b0", "box"), ("x1", "ref"), ("e2", "ref"), ("t2", "time")]
    usim = run_cli("usim", drs_env / "src.mrp", drs_env / "hyp.mrp", "--format", "json")
    score = run_cli("score", "--representation", "drs", "--source", drs_env / "src.txt", "--hyp",
                    drs_env / "hyp.txt", "--bootstrap", "0", "--format", "json")
    macro = json.loads(usim.stdout)["corpus"]["macro_f"]
    assert macro == json.loads(score.stdout)["systems"][0]["macro_f"] == pytest.approx(0.8831, abs=1e-4)


def test_the_plugin_s_writer_gives_the_graphs_back(drs_env):
    r = run_cli("parse", "--representation", "drs", "--format", "clf", "-q", "-o", drs_env / "src.clf",
                drs_env / "src.txt")
    assert r.exit_code == 0, r.output
    assert [form(g) for g in semsim.read_all(drs_env / "src.clf")] == [form(g) for g in parsed(SOURCES)]


def test_the_parse_cache_gives_the_graphs_back(drs_env):
    fresh = parsed(SOURCES)  # parsed, and stored
    log = drs_env / "cache" / "parses.sqlite3"
    assert log.exists()
    again = parsed(SOURCES)  # served by the cache
    assert [form(g) for g in again] == [form(g) for g in fresh] == [form(g) for g in parsed(SOURCES, cache=False)]


@pytest.mark.slow
def test_worker_processes_give_the_graphs_back(drs_env):
    assert [form(g) for g in parsed(SOURCES, cache=False, jobs=2, batch_size=1)] == \
        [form(g) for g in parsed(SOURCES, cache=False)]


def test_mrp_without_semsim_s_member_is_converted_as_before(drs_env):
    """MRP from another tool carries no graph of semsim's: the plugin (here, none: the generic
    conversion) converts it, punctuation by is_punct."""
    r = run_cli("parse", "--representation", "drs", "-q", "-o", drs_env / "src.mrp", drs_env / "src.txt")
    assert r.exit_code == 0, r.output
    lines = [json.loads(line) for line in (drs_env / "src.mrp").read_text().splitlines()]
    (drs_env / "plain.mrp").write_text("".join(json.dumps({k: v for k, v in d.items() if k != "semsim"}) + "\n"
                                               for d in lines))
    g = semsim.read_all(drs_env / "plain.mrp")[0]
    assert g.scheme.name == "drs" and not any(t.punct for t in g.tokens)  # is_punct's judgement


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d["edges"].pop(), "its edges differ from the semsim graph it was written with"),
    (lambda d: d.update(input=d["input"].upper()), "its input differs"),
    (lambda d: d["semsim"]["units"][1].__setitem__(1, ["ref"]), "its 'semsim' member is not a semsim graph"),
    (lambda d: d["semsim"].pop("tokens"), "its 'semsim' member is not a semsim graph"),
])
def test_an_edited_line_is_refused_in_one_line(drs_env, edit, message):
    r = run_cli("parse", "--representation", "drs", "-q", "-o", drs_env / "src.mrp", drs_env / "src.txt")
    assert r.exit_code == 0, r.output
    first, *rest = (drs_env / "src.mrp").read_text().splitlines(keepends=True)
    d = json.loads(first)
    edit(d)
    (drs_env / "edited.mrp").write_text(json.dumps(d) + "\n" + "".join(rest))
    r = run_cli("usim", drs_env / "edited.mrp", drs_env / "src.mrp")
    errors = [line for line in r.stderr.splitlines() if "edited.mrp:1:" in line]
    assert r.exit_code == 1 and len(errors) == 1 and message in errors[0], r.stderr
    assert "Traceback" not in r.output and "src.2 " in r.stdout  # the other pair is scored


def test_the_signature_names_the_plugin_and_changes_with_its_scheme(drs_env, monkeypatch):
    """Issue #47.2: adding ``ignored_labels`` to an inline plugin's scheme (no version to change)
    moved a score with the signature unchanged. Now the signature names the plugin and hashes
    its scheme, so the two scores are told apart."""
    def barks() -> semsim.Score:  # "A dog barks loudly ." against "The dog barked ."
        return semsim.usim(semsim.read_all(DATA / "tom-sleeps.clf")[1], semsim.read_all(DATA / "tom-slept.clf")[1])

    before = barks()
    assert "|scheme:drs@dbd5e037f8c2|plugin:drs_plugin.py|" in before.signature.format()
    edited = drs_env / "drs_plugin.py"
    edited.write_text(Path(DRS).read_text().replace(
        'ignored_kinds=frozenset({"time", "box"}),', 'ignored_kinds=frozenset({"time", "box"}), '
                                                     'ignored_labels=frozenset({"Manner"}),'), encoding="utf-8")
    monkeypatch.setenv("SEMSIM_PLUGINS", str(edited))
    plugins.reset_plugin_manager()
    after = barks()
    assert (round(before.f, 4), round(after.f, 4)) == (0.75, 0.8571)
    assert "|plugin:drs_plugin.py|" in str(after.signature) and "|scheme:drs@dbd5e037f8c2|" not in str(after.signature)
    assert after.signature.format().split("|scheme:")[0] == before.signature.format().split("|scheme:")[0]
