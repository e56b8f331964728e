"""The DM/PSD/EDS plugin: adapters, SDP labelled F1, EDM, bad input, and the MRP sample.

The expected metric values were worked out by hand from the definitions, and agree with
MTool's reference scorers (``score/sdp.py``, ``score/edm.py`` of cfmrp/mtool at 4cee3a2)
run on the same graphs (see docs/mrp.md)."""

from __future__ import annotations

import itertools
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from sdp_data import CAT, DM_GOLD, DM_SYS, EDS_GOLD, EDS_SYS, SAT, THE, edge, mrp, node
from semsim_sdp.adapter import segment
from semsim_sdp.metrics import edm_score, sdp_score

import semsim
from semsim.app.plugins import metrics, to_graph
from semsim.kernel.formats.mrp import MrpGraph
from semsim.kernel.hookspecs import hookimpl
from semsim.kernel.records import ParaphraseJudge


def graph(d: dict, line: int = 1):
    return to_graph(MrpGraph(d["framework"], d["id"], d, "t.mrp", line))


# -- metrics on hand-made pairs with known answers -----------------------------------------------------
def test_sdp_labelled_and_unlabelled_f1():
    s = sdp_score(DM_SYS, DM_GOLD)
    # items: gold {top(sat), the->cat BV, sat->cat ARG1}; system adds sat->the and relabels sat->cat
    assert (s["labeled"].matched1, s["labeled"].total1, s["labeled"].total2) == (2, 4, 3)
    assert s.f == pytest.approx(2 * (2 / 4) * (2 / 3) / (2 / 4 + 2 / 3))
    assert s["unlabeled"].f == pytest.approx(2 * 0.75 * 1 / 1.75)
    assert sdp_score(DM_GOLD, DM_GOLD).f == 1.0


def test_sdp_tops_count_as_virtual_edges():
    other_top = dict(DM_GOLD, tops=[1])
    s = sdp_score(other_top, DM_GOLD)
    assert (s["labeled"].matched1, s["labeled"].total1) == (2, 3)


def test_edm_parts_and_pooled_score():
    s = edm_score(EDS_SYS, EDS_GOLD)
    # spans are trimmed of punctuation: gold _sit_v_1 at 8:13 ("sat .") is the characters of "sat"
    assert (s["names"].matched1, s["names"].total1, s["names"].total2) == (2, 4, 3)  # _the_q, _sit_v_1
    assert (s["arguments"].matched1, s["arguments"].total1, s["arguments"].total2) == (1, 2, 2)  # BV
    assert (s["tops"].matched1, s["properties"].total1, s["properties"].total2) == (1, 1, 0)
    assert (s["all"].matched1, s["all"].total1, s["all"].total2) == (4, 8, 6)
    assert s.f == pytest.approx(2 * (4 / 8) * (4 / 6) / (4 / 8 + 4 / 6))
    assert edm_score(EDS_GOLD, EDS_GOLD).f == 1.0


def test_metrics_are_registered_per_scheme():
    found = {m.name: m.representation for m in metrics().values()}
    assert (found["sdp-dm"], found["sdp-psd"], found["edm"]) == ("dm", "psd", "eds")
    assert metrics()["sdp-dm"].score(graph(DM_SYS), graph(DM_GOLD)).f == sdp_score(DM_SYS, DM_GOLD).f


# -- adapters --------------------------------------------------------------------------------------
def test_tokens_split_at_whitespace_and_anchor_boundaries():
    assert segment("Vinken, 61", [0, 6]) == [(0, 6), (6, 7), (8, 10)]
    g = graph(DM_GOLD)
    assert [t.text for t in g.tokens] == ["The", "cat", "sat", "."] and g.tokens[3].punct
    assert g.scheme.name == "dm" and g.units[0].kind == "ROOT"
    assert {(g.units[e.parent].id, e.labels, g.units[e.child].id, e.remote) for e in g.edges} == {
        ("ROOT", ("TOP",), "2", False), ("0", ("BV",), "1", True), ("2", ("ARG1",), "1", False)}


def test_cyclic_and_multi_parent_graphs_are_accepted():
    # PSD-style cycle: sat -> cat -> sat, nothing else enters; plus a second top
    cyclic = mrp("psd", [THE, CAT, SAT], [edge(2, 1, "ACT-arg"), edge(1, 2, "RSTR"), edge(1, 0, "RSTR")], [])
    g = graph(cyclic)
    assert semsim.usim(g, g).f == 1.0 and semsim.dag_f(g, g).f == 1.0
    assert sum(not e.remote for e in g.edges) == 2  # a spanning tree of 3 nodes
    assert metrics()["sdp-psd"].score(g, g).f == 1.0


def test_primary_edges_do_not_depend_on_file_order():
    shuffled = dict(DM_SYS, nodes=DM_SYS["nodes"][::-1], edges=DM_SYS["edges"][::-1])
    assert graph(shuffled).edges == graph(DM_SYS).edges


def test_eds_predicates_are_compared():
    g, h = graph(EDS_GOLD), graph(dict(EDS_GOLD, nodes=[dict(n, label="_dog_n_1") if n["id"] == 1 else n
                                                         for n in EDS_GOLD["nodes"]]))
    assert [u.kind for u in g.units] == ["ROOT", "surface", "surface", "surface"]
    assert "pred:_cat_n_1" in {lab for e in g.edges for lab in e.labels}
    assert semsim.usim(g, g).f == 1.0 and semsim.usim(g, h).f < 1.0
    named = graph(EDS_SYS)
    assert "pred:named(Cat)" in {lab for e in named.edges for lab in e.labels}


# -- bad input --------------------------------------------------------------------------------------
def _write(tmp_path: Path, name: str, graphs: list[dict]) -> Path:
    p = tmp_path / name
    p.write_text("".join(json.dumps(d) + "\n" for d in graphs), encoding="utf-8")
    return p


@pytest.mark.slow
@pytest.mark.parametrize("fw", ["dm", "psd", "eds"])
def test_bad_graphs_cost_only_their_own_line(tmp_path, fw):
    ok = dict(EDS_GOLD if fw == "eds" else DM_GOLD, framework=fw)
    no_anchor = dict(ok, nodes=[{"id": 0, "label": "x"}, *ok["nodes"][1:]])
    out_of_range = dict(ok, nodes=[node(0, "x", 0, 99), *ok["nodes"][1:]])
    foreign = dict(ok, framework="psd" if fw != "psd" else "dm")
    src = _write(tmp_path, "src.mrp", [ok] * 5)
    cor = _write(tmp_path, "cor.mrp", [ok, no_anchor, out_of_range, foreign, ok])
    r = subprocess.run([sys.executable, "-m", "semsim", "usim", str(src), str(cor), "--format", "jsonl"],
                       capture_output=True, text=True)
    assert r.returncode == 1
    rows = [json.loads(x) for x in r.stdout.splitlines() if '"corpus"' not in x]
    assert [row["f"] for row in rows] == [1.0, 1.0]
    lines = [x for x in r.stderr.splitlines() if x.startswith("Error: ") and x.endswith("not scored)")]
    assert len(lines) == 3 and r.stderr.splitlines()[-1] == "Error: 3 of 5 pairs not scored (see above)"
    assert f"{cor}:2: graph 1: node 0 has no anchors" in lines[0]
    assert f"{cor}:3: graph 1: node 0: anchor 0:99 ends beyond the input" in lines[1]
    assert f"{cor}:4: graph 1 is {foreign['framework']!r}" in lines[2]


# -- the MRP sample ------------------------------------------------------------------------------------
FRAMEWORKS = {"dm": "sdp-dm", "psd": "sdp-psd", "eds": "edm"}


@pytest.mark.needs_shared
@pytest.mark.parametrize("fw", list(FRAMEWORKS))
def test_sample_self_pairs_score_exactly_one(shared, fw):
    graphs = semsim.read_all(shared / f"data/mrp-sample/{fw}.mrp")
    assert len(graphs) == 89
    metric = metrics()[FRAMEWORKS[fw]]
    assert all(semsim.usim(g, g).f == 1.0 for g in graphs)
    assert all(semsim.dag_f(g, g).f == 1.0 for g in graphs)
    assert all(metric.score(g, g).f == 1.0 for g in graphs)


_SCRIPT = """
import itertools, sys, semsim
from semsim.app.plugins import metrics
for fw, m in (("dm", "sdp-dm"), ("psd", "sdp-psd"), ("eds", "edm")):
    gs = semsim.read_all(sys.argv[1] + f"/{fw}.mrp")[:30]
    for a, b in itertools.pairwise(gs):
        print(fw, repr(semsim.usim(a, b).f), repr(metrics()[m].score(a, b).f))
"""


@pytest.mark.slow
@pytest.mark.needs_shared
def test_sample_scores_do_not_depend_on_hash_seed(shared):
    outs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "OMP_NUM_THREADS": "1"}
        r = subprocess.run([sys.executable, "-c", _SCRIPT, str(shared / "data/mrp-sample")], env=env,
                           capture_output=True, text=True, check=True)
        outs.add(r.stdout)
    assert len(outs) == 1 and len(next(iter(outs)).splitlines()) == 3 * 29


def test_random_graphs_with_cycles_are_never_refused():
    rng = random.Random(4)
    words = ["a", "b", "c", "d", "e", "f", "g", "h"]
    text = " ".join(words)
    for k in range(200):
        n = rng.randint(1, 8)
        nodes = [node(i, words[i], 2 * i, 2 * i + 1) for i in range(n)]
        edges = [edge(rng.randrange(n), rng.randrange(n), rng.choice("XYZ")) for _ in range(rng.randint(0, 3 * n))]
        tops = rng.sample(range(n), rng.randint(0, min(n, 2)))
        d = mrp(rng.choice(["dm", "psd", "eds"]), nodes, edges, tops, text, id=str(k))
        g = graph(d)
        assert semsim.usim(g, g).f == 1.0
        rev = graph(dict(d, nodes=nodes[::-1], edges=edges[::-1], tops=tops[::-1]))
        assert rev.edges == g.edges and rev.units == g.units


@pytest.mark.needs_shared
@pytest.mark.parametrize("fw", list(FRAMEWORKS))
def test_sample_pairs_in_two_file_orders_score_the_same(shared, fw):
    # each graph against the next, and the same pairs with every graph's nodes and edges reversed
    text = (shared / f"data/mrp-sample/{fw}.mrp").read_text(encoding="utf-8").splitlines()[:20]
    ds = [json.loads(x) for x in text]
    rev = [dict(d, nodes=d["nodes"][::-1], edges=d.get("edges", [])[::-1]) for d in ds]
    for a, b in itertools.pairwise(range(len(ds))):
        assert semsim.usim(graph(ds[a]), graph(ds[b])).f == semsim.usim(graph(rev[a]), graph(rev[b])).f


@pytest.mark.parametrize("gold,system", [(DM_GOLD, DM_SYS), (EDS_GOLD, EDS_SYS)])
def test_usim_remedies_work_on_sdp_graphs(gold, system):
    """USim's lexical alignment and weighted edges use only what the DM/PSD/EDS scheme declares."""
    g, s = graph(gold), graph(system)
    assert g.scheme.label_weights  # arguments weigh more than other edges
    for settings in ({"tokens": "lexical", "edge_weights": "scheme"}, {"tokens": "ordered", "edge_weights": "height"}):
        assert semsim.usim(g, g, **settings).f == 1.0
        assert 0.0 <= semsim.usim(g, s, **settings).f < 1.0


class _Judge:
    """A paraphrase judge of this test's own (a plugin's tests never lean on another plugin's)."""

    @staticmethod
    def judge(queries):
        from semsim.kernel.align.paraphrase import Verdict
        return [Verdict(True, None, "anything goes") for _ in queries]

    @hookimpl
    def register_paraphrase_judges(self, register):
        register(ParaphraseJudge("any", lambda: self.judge, lambda: "any@1"))


@pytest.mark.parametrize("gold,system", [(DM_GOLD, DM_SYS), (EDS_GOLD, EDS_SYS)])
def test_the_paraphrase_alignment_works_on_sdp_graphs(gold, system, monkeypatch):
    from semsim.app.plugins import get_plugin_manager
    monkeypatch.setenv("SEMSIM_PARAPHRASE_JUDGE", "any")
    judge = _Judge()
    get_plugin_manager().register(judge, name="test-judge")
    try:
        g, s = graph(gold), graph(system)
        settings = {"tokens": "paraphrase", "leaves": 2, "edge_weights": "scheme"}
        assert semsim.usim(g, g, **settings).f == 1.0
        assert 0.0 <= semsim.usim(g, s, **settings).f < 1.0
        assert "para:any@1" in semsim.usim(g, s, **settings).signature.format()
    finally:
        get_plugin_manager().unregister(name="test-judge")
