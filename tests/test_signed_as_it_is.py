"""A score is signed with what it was computed from (#56): a graph whose scheme was edited in
its file is refused beside a graph of the registered scheme, not scored under that scheme's
name; two plugins that register different schemes under one name are refused, naming both."""

from __future__ import annotations

import json

import pytest
from support import refusal, run_cli

import semsim
import semsim.app.plugins as plugins
from semsim.kernel.formats.mrp import graph_to_mrp


def _mrp(g, scheme_edit=None) -> str:
    line = graph_to_mrp(g, "toy", verbatim=True)
    if scheme_edit:
        line["semsim"]["scheme"].update(scheme_edit)
    return json.dumps(line) + "\n"


def test_a_scheme_edited_in_its_mrp_member_is_refused_not_signed_as_registered(toy_env, tmp_path):
    import toy_plugin
    g1 = toy_plugin.tree_to_graph(toy_plugin.ToyTree(("the", "Big", "dog"), ("Small", "Big", "Small")), "s1")
    g2 = toy_plugin.tree_to_graph(toy_plugin.ToyTree(("the", "Large", "dog"), ("Small", "Large", "Small")), "c1")
    a, b = tmp_path / "a.mrp", tmp_path / "b.mrp"
    a.write_text(_mrp(g1), encoding="utf-8")
    b.write_text(_mrp(g2), encoding="utf-8")
    assert run_cli("usim", a, b, catch_exceptions=False).exit_code == 0  # as written: scored
    b.write_text(_mrp(g2, {"equivalences": []}), encoding="utf-8")  # Big = Large no more
    line = refusal("usim", a, b)
    assert line.startswith(f"Error: {b}:1: graph c1 and its pair, graph s1 of {a}, have two schemes named 'toy', "
                           "toy@"), line
    with pytest.raises(semsim.GraphError, match=r"s1 and c1: two schemes named 'toy', toy@\w{12} and toy@\w{12}"):
        semsim.usim(semsim.read(a), semsim.read(b))
    renamed = g2.with_(scheme=semsim.Scheme("toy", equivalences=toy_plugin.TOY.equivalences,
                                            ignored_labels=toy_plugin.TOY.ignored_labels,
                                            label_groups=toy_plugin.TOY.label_groups))
    assert semsim.usim(g1, renamed).f == semsim.usim(g1, g2).f  # label names alone change no number: scored


def test_two_schemes_under_one_name_are_refused_naming_both_plugins(toy_env, tmp_path, monkeypatch):
    other = tmp_path / "other_toy.py"
    other.write_text("from semsim.kernel.hookspecs import hookimpl\nfrom semsim.kernel.scheme import Scheme\n\n\n"
                     "@hookimpl\ndef register_schemes(register):\n    register(Scheme('toy'))\n", encoding="utf-8")
    import toy_plugin
    monkeypatch.setenv("SEMSIM_PLUGINS", f"{toy_plugin.__file__},{other}")
    plugins.reset_plugin_manager()
    (tmp_path / "src.txt").write_text("The Big dog\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("The Large dog\n", encoding="utf-8")
    line = refusal("score", "--source", tmp_path / "src.txt", "--hyp", tmp_path / "hyp.txt")
    assert "two plugins register different schemes named 'toy'" in line and repr(str(other)) in line, line
    assert repr(toy_plugin.__file__) in line, line
