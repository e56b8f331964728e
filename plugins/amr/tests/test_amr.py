"""The AMR plugin: PENMAN reading, the AMR-to-graph mapping, USim on AMR, deterministic Smatch."""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
from pathlib import Path

import penman
import pytest

import semsim
from semsim import InputError
from semsim_amr.reader import blocks
from semsim_amr.smatch import smatch_counts, smatch_score

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
SRC, COR = EXAMPLES / "fig1-source.amr", EXAMPLES / "fig1-correction.amr"


def test_read_figure1_as_amr():
    g = semsim.read(SRC)
    assert g.id == "fig1-source" and g.meta["snt"] == "He gva an apple for john"
    assert [t.text for t in g.tokens] == ["gva", "he", "apple", "person", "name", '"John"']
    assert sorted((g.units[e.parent].id, e.labels[0], g.units[e.child].label) for e in g.edges)[:2] == [
        ("ROOT", "TOP", "gva"), ("g", "ARG0", "he")]
    assert g.yields[g.root] == frozenset(range(6))


def test_usim_on_figure1_amrs():
    s = semsim.usim(SRC, COR)
    c = s.parts["s->r"]
    # every relation matches but :beneficiary vs :ARG2 ("for john" vs "gave John")
    assert (c.matched1, c.total1, c.matched2, c.total2) == (5, 6, 5, 6)
    assert semsim.usim(SRC, SRC).f == 1.0


def test_reentrancy_is_remote_and_inverse_roles_are_canonical():
    amr = penman.decode("(b / board :ARG1-of (h / have-org-role-91 :ARG0 (p / person) :ARG2 b))")
    g = semsim.app.plugins.to_graph(amr)
    edges = {(g.units[e.parent].id, e.labels[0], g.units[e.child].id): e.remote for e in g.edges}
    assert edges[("h", "ARG1", "b")] is True   # b already hangs from the root: reentrancy
    assert edges[("h", "ARG2", "b")] is True
    assert edges[("ROOT", "TOP", "b")] is False


@pytest.mark.slow
@pytest.mark.needs_shared
def test_mrp_sample_penman_identity_and_determinism(shared):
    graphs = semsim.read_all(shared / "data/mrp-sample/amr/wsj.amr")
    assert len(graphs) == 100
    assert all(semsim.usim(g, g).f == 1.0 for g in graphs)
    text = (shared / "data/mrp-sample/amr/wsj.amr").read_text(encoding="utf-8")
    amrs = [penman.decode(b) for _, b in blocks(text) if not all(x.startswith("#") for x in b.splitlines())]
    assert all(smatch_counts(a, a).f == 1.0 for a in amrs)
    pairs = list(itertools.pairwise(amrs[:21]))
    first = [smatch_counts(a, b) for a, b in pairs]
    random.seed(7)
    assert [smatch_counts(a, b) for a, b in pairs] == first


def test_smatch_matches_the_package_where_hill_climbing_is_exact():
    import smatch
    pairs = [(SRC.read_text(), COR.read_text()),
             ("(w / want-01 :ARG0 (b / boy) :ARG1 (g / go-02 :ARG0 b))", "(w / want-01 :ARG0 (b / boy))"),
             ("(d / dog)", "(c / cat)")]
    for a, b in pairs:
        ours = smatch_counts(a, b)
        one = lambda x: " ".join(" ".join(ln for ln in x.splitlines() if not ln.startswith("#")).split())  # noqa: E731
        theirs = {smatch.get_amr_match(one(a), one(b)) for _ in range(5)}  # the package, its own RNG
        smatch.match_triple_dict.clear()
        assert theirs == {(ours.matched1, ours.total1, ours.total2)}


def test_smatch_score_is_a_score_and_leaves_the_global_rng_alone():
    state = random.getstate()
    s = smatch_score(SRC.read_text(), COR.read_text())
    assert random.getstate() == state
    assert s.f == pytest.approx(2 * 9 / 22) and s.signature.format().startswith("smatch|impl:smatch-1.0.4")


@pytest.mark.slow
def test_same_numbers_whatever_the_hash_seed():
    code = ("from semsim_amr.smatch import smatch_counts; import semsim; "
            f"print(smatch_counts(open({str(SRC)!r}).read(), open({str(COR)!r}).read()), "
            f"semsim.usim({str(SRC)!r}, {str(COR)!r}).f)")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": seed}).stdout for seed in ("0", "1", "99")}
    assert len(outs) == 1


def test_bad_penman_names_graph_and_line(tmp_path):
    f = tmp_path / "bad.amr"
    f.write_text("# ::id ok\n(a / apple)\n\n# ::id broken-1\n(b / boy :ARG0 (c / cat\n")
    with pytest.raises(InputError, match=r"bad\.amr:\d+: graph broken-1: malformed PENMAN"):
        semsim.read_all(f)
    f.write_text("# only a comment\n")
    with pytest.raises(InputError, match="no AMR graphs"):
        semsim.read_all(f)



@pytest.mark.slow
def test_nesting_bound_moves_with_the_environment(tmp_path, monkeypatch):
    """penman recurses per level of nesting: beyond SEMSIM_MAX_DEPTH a graph is one error
    naming the bound; raised, the same graph reads (Python's recursion limit follows)."""
    depth = 1200  # deeper than Python's default recursion limit allows penman to go
    f = tmp_path / "deep.amr"
    f.write_text("# ::id deep\n(n0 / x" + "".join(f" :ARG0 (n{i} / x" for i in range(1, depth)) + ")" * depth + "\n")
    with pytest.raises(InputError, match=r"deep\.amr:2: graph deep: PENMAN graph nested 201 levels deep, over the "
                                         r"limit of 200 \(raise it with SEMSIM_MAX_DEPTH=N\)"):
        semsim.read_all(f)
    monkeypatch.setenv("SEMSIM_MAX_DEPTH", str(depth))
    (g,) = semsim.read_all(f)
    assert len(g.units) == depth + 1 and semsim.usim(g, g).f == 1.0

@pytest.mark.slow
def test_cli_pairs_multi_graph_files_by_position(tmp_path):
    two = tmp_path / "two.amr"
    two.write_text("# ::id s1\n(a / apple)\n\n# ::id s2\n(b / boy :ARG0-of (r / run-01))\n")
    one = tmp_path / "one.amr"
    one.write_text("# ::id s1\n(a / apple)\n")
    cmd = [sys.executable, "-m", "semsim", "usim", str(two), str(two), "--format", "jsonl"]
    lines = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()
    assert [json.loads(x).get("name") for x in lines[:2]] == ["s1", "s2"] and json.loads(lines[2])["corpus"]
    r = subprocess.run([*cmd[:4], str(two), str(one)], capture_output=True, text=True)
    assert r.returncode == 1 and "holds 2 graphs but" in r.stderr and "paired by position" in r.stderr


@pytest.mark.needs_shared
def test_amr_from_mrp(shared):
    graphs = semsim.read_all(shared / "data/mrp-sample/amr.mrp")
    assert len(graphs) == 87 and {g.scheme.name for g in graphs} == {"amr"}
    assert all(semsim.usim(g, g).f == 1.0 for g in graphs)
    g = graphs[0]  # "Pierre Vinken ...": constants get their quotes back, -of roles are read backwards
    assert '"Pierre"' in [t.text for t in g.tokens]
    labels = {(g.units[e.parent].label, e.labels[0], g.units[e.child].label) for e in g.edges}
    assert ("have-org-role-91", "ARG1", "board") in labels


def _relayouts(amr, n, seed=0):
    """``n`` other PENMAN layouts of the same graph (other reentrancies, other inversions)."""
    rng = random.Random(seed)
    for _ in range(n):  # with no layout data, penman lays triples out in the order given
        triples = sorted(amr.triples, key=lambda _: rng.random())
        yield penman.decode(penman.encode(penman.Graph(triples, top=amr.top)))


LAYOUT_SENSITIVE = [  # each has a node with several parents, so the old "first edge wins" rule varied
    "(w / want-01 :ARG0 (b / boy) :ARG1 (g / go-02 :ARG0 b :ARG1 (c / city :name (n / name :op1 \"Paris\"))))",
    "(j / join-01 :ARG0 (p / person :name (n / name :op1 \"Pierre\")) :ARG1 (b / board :ARG1-of "
    "(h / have-org-role-91 :ARG0 p :ARG2 (d / director))))",
    "(a / and :op1 (f / fall-01 :ARG1 (y / yield :mod (s / simple))) :op2 (s2 / slide-02 :ARG1 (y2 / yield "
    ":mod (c / compound)) :ARG4 (a2 / average-01 :ARG1 y2)) :op3 (a3 / average-01 :ARG1 y))",
]


@pytest.mark.parametrize("text", LAYOUT_SENSITIVE)
def test_usim_on_amr_does_not_depend_on_the_penman_layout(text):
    amr = penman.decode(text)
    g = semsim.app.plugins.to_graph(amr)
    layouts = {penman.encode(x) for x in _relayouts(amr, 8)}
    assert len(layouts) > 1  # the test really sees other layouts
    for other in layouts:
        h = semsim.app.plugins.to_graph(penman.decode(other))
        assert semsim.usim(g, h).f == 1.0
        assert [t.text for t in h.tokens] == [t.text for t in g.tokens]


@pytest.mark.needs_shared
def test_mrp_and_penman_renderings_of_the_sample_agree(shared):
    """The MRP sample drops :wiki; without it the two renderings give the same AMR graphs."""
    from semsim_amr.adapter import amr_to_graph
    text = (shared / "data/mrp-sample/amr/wsj.amr").read_text(encoding="utf-8")
    norm = lambda s: "".join(s.split())  # noqa: E731  (the MRP text is detokenised)
    pen = {}
    for _, block in blocks(text):
        if not all(x.startswith("#") for x in block.splitlines()):
            a = penman.decode(block)
            pen[norm(a.metadata["snt"])] = amr_to_graph(penman.Graph(
                [t for t in a.triples if t[1] != ":wiki"], top=a.top, metadata=a.metadata))
    mrp = {norm(g.meta["snt"]): g for g in semsim.read_all(shared / "data/mrp-sample/amr.mrp")}
    common = sorted(pen.keys() & mrp.keys())
    assert len(common) == 78
    assert all(semsim.usim(pen[k], mrp[k]).f == 1.0 for k in common)


@pytest.mark.slow
def test_one_bad_graph_costs_only_its_own_pair(tmp_path):
    text = ("# ::id s1\n(a / apple)\n\n# ::id s2\n(b / boy :ARG0 (c / cat\n\n"
            "# ::id s3\n(b / boy :ARG0-of (r / run-01))\n")
    for name in ("a.amr", "b.amr"):
        (tmp_path / name).write_text(text, encoding="utf-8")
    out = tmp_path / "out.jsonl"
    r = subprocess.run([sys.executable, "-m", "semsim", "usim", str(tmp_path / "a.amr"), str(tmp_path / "b.amr"),
                        "--format", "jsonl", "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 1
    assert f"{tmp_path / 'a.amr'}:5: graph s2: malformed PENMAN" in r.stderr and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith("Error: 1 of 3 pairs not scored")
    records = [json.loads(x) for x in out.read_text().splitlines()]  # the others are kept, complete
    assert [x.get("name") for x in records[:2]] == ["s1", "s3"] and records[2]["corpus"]
    with pytest.raises(InputError, match=r"a\.amr:5: graph s2"):
        semsim.read_all(tmp_path / "a.amr")
    kept = list(semsim.app.reading.iter_graphs(tmp_path / "a.amr", errors="yield"))
    assert [type(x).__name__ for x in kept] == ["Graph", "InputError", "Graph"]


def test_token_anchored_usim_through_alignments(tmp_path):
    src = tmp_path / "src.amr"
    src.write_text("# ::id s\n# ::tok He gva an apple for john\n(g / gva~e.1 :ARG0 (h / he~e.0) :ARG1 "
                   "(a / apple~e.3) :beneficiary~e.4 (p / person :name (n / name :op1 \"John\"~e.5)))\n")
    cor = tmp_path / "cor.amr"
    cor.write_text("# ::id s\n# ::snt He gave John an apple\n(g / give-01~e.1 :ARG0 (h / he~e.0) :ARG1 "
                   "(a / apple~e.4) :ARG2 (p / person :name (n / name :op1 \"John\"~e.2)))\n")
    g = semsim.read(src, "penman-aligned")
    assert [t.text for t in g.tokens] == ["He", "gva", "an", "apple", "for", "john"]
    anchors = {u.label: u.anchors for u in g.units}
    assert anchors["gva"] == (1,) and anchors['"John"'] == (5,) and anchors["person"] == ()
    assert g.yields[g.root] == frozenset({0, 1, 3, 5})  # "an" and "for" are aligned to no concept
    s = semsim.usim(g, semsim.read(cor, "penman-aligned"))
    c = s.parts["s->r"]
    assert (c.matched1, c.total1, c.matched2, c.total2) == (5, 6, 5, 6)
    assert semsim.read(src).tokens[0].text == "gva"  # the default reader still anchors to concepts


def test_smatch_score_takes_semsim_graphs_or_says_what_it_takes():
    """#55.5: semsim's own graphs are the first thing a caller has in hand."""
    import semsim
    from semsim.kernel.errors import SemsimError
    as_graphs = smatch_score(semsim.read(SRC), semsim.read(COR))
    assert as_graphs.f == smatch_score(SRC.read_text(), COR.read_text()).f
    ucca = Path(__file__).resolve().parents[3] / "examples" / "fig1-source.xml"
    with pytest.raises(SemsimError, match="test is a ucca graph not read by the AMR plugin"):
        smatch_score(semsim.read(ucca), SRC.read_text())
    with pytest.raises(SemsimError, match="gold is a int; expected a PENMAN string"):
        smatch_score(SRC.read_text(), 3)
