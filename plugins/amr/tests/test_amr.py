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
    g = semsim.plugins.to_graph(amr)
    edges = {(g.units[e.parent].id, e.labels[0], g.units[e.child].id): e.remote for e in g.edges}
    assert edges[("h", "ARG1", "b")] is True   # b already hangs from the root: reentrancy
    assert edges[("h", "ARG2", "b")] is True
    assert edges[("ROOT", "TOP", "b")] is False


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
    assert s.f == pytest.approx(2 * 9 / 22) and s.signature.startswith("smatch|impl:smatch-1.0.4")


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
