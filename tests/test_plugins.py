"""The plugin system: discovery, environment controls, tracing, every hook documented and used."""

from __future__ import annotations

import inspect
import json
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

import semsim
import semsim.plugins as plugins
from semsim import hookspecs


def test_toy_plugin_scores_without_core_changes(toy_plugin, tmp_path):
    # reader hook
    f1, f2 = tmp_path / "a.toy", tmp_path / "b.toy"
    f1.write_text(json.dumps({"words": ["He", "gva", "an", "apple"], "labels": ["Big", "Small", "Small", "Small"]}))
    f2.write_text(json.dumps({"words": ["He", "gave", "an", "apple"], "labels": ["Large", "Small", "Small", "Small"]}))
    g1, g2 = semsim.read(f1), semsim.read(f2)
    assert g1.scheme.name == "toy"
    assert semsim.usim(g1, g2).f < 1.0
    assert semsim.usim(g1, g2, labels="weak").f == 1.0  # the toy scheme's Big~Large
    # parser hook + adapter hook
    parser = plugins.parsers()["toy-parser"]
    assert parser.plugin == "toy" and parser.representation == "toy"
    src, cor = parser.parse(["He gva an apple .", "He gave an apple ."])
    assert semsim.usim(src, cor).f == 1.0  # native objects are converted through to_graph
    assert semsim.distsim([(src, cor)])["Any"] == 0.0


def test_reader_errors_name_file_and_line(toy_plugin, tmp_path):
    f = tmp_path / "bad.toy"
    f.write_text('{"words": [], "labels": []}\n{oops\n')
    with pytest.raises(semsim.InputError) as e:
        semsim.read_all(f)
    assert str(e.value).startswith(f"{f}:2: bad toy graph")


def test_unknown_suffix_and_object(isolated_plugins, tmp_path):
    f = tmp_path / "x.unknown"
    f.write_text("x")
    with pytest.raises(semsim.InputError, match=r"no installed plugin reads \.unknown files"):
        semsim.read(f)
    with pytest.raises(semsim.PluginError, match="no installed plugin converts"):
        semsim.usim(object(), object())


def _fake_entry_points(monkeypatch, names):
    eps = [EntryPoint(name=n, value="toy_plugin", group="semsim") for n in names]
    monkeypatch.setattr(plugins, "entry_points", lambda group: eps if group == "semsim" else [])


@pytest.mark.parametrize("load, disable, expected", [
    (None, None, ["toyA", "toyB"]), ("toyB", None, ["toyB"]), ("", None, []), (None, "toyA", ["toyB"]),
])
def test_entry_point_discovery_and_env_controls(monkeypatch, load, disable, expected):
    _fake_entry_points(monkeypatch, ["toyA", "toyB"])
    for var, value in (("SEMSIM_LOAD_PLUGINS", load), ("SEMSIM_DISABLE_PLUGINS", disable)):
        if value is None:
            monkeypatch.delenv(var, raising=False)
        else:
            monkeypatch.setenv(var, value)
    plugins.reset_plugin_manager()
    try:
        # the same module under two names registers once (pluggy refuses a duplicate object)
        names = [p["name"] for p in plugins.plugin_info() if p["name"] not in plugins.BUILTIN]
        assert names == expected[:1]
    finally:
        plugins.reset_plugin_manager()


def test_duplicate_reader_names_are_an_error(toy_plugin, isolated_plugins):
    class Again:
        register_readers = staticmethod(hookspecs.hookimpl(toy_plugin.register_readers))
    isolated_plugins.register(Again(), name="again")
    with pytest.raises(semsim.PluginError, match="two plugins register a reader named 'toy'"):
        plugins.readers()


def test_trace_prints_hook_calls(monkeypatch, capsys):
    import toy_plugin
    monkeypatch.setenv("SEMSIM_LOAD_PLUGINS", "")
    monkeypatch.setenv("SEMSIM_TRACE_PLUGINS", "1")
    plugins.reset_plugin_manager()
    try:
        plugins.get_plugin_manager().register(toy_plugin, name="toy")
        plugins.readers()
        plugins.to_graph(toy_plugin.toy_parse(["a b"])[0])
    finally:
        plugins.reset_plugin_manager()
    err = capsys.readouterr().err
    assert "semsim trace: register_readers in plugin 'toy' registered ['toy']" in err
    assert "semsim trace: to_graph(obj) -> 2 plugin(s)" in err  # the toy plugin and the built-in MRP fallback


def test_every_hook_is_documented_with_its_signature():
    text = (Path(__file__).resolve().parents[1] / "docs" / "plugins.md").read_text(encoding="utf-8")
    for name, fn in inspect.getmembers(hookspecs, inspect.isfunction):
        if not hasattr(fn, "semsim_spec"):
            continue
        assert fn.__doc__ and len(fn.__doc__) > 40, name
        params = ", ".join(inspect.signature(fn).parameters)
        assert f"{name}({params})" in text, f"docs/plugins.md does not document {name}({params})"


def test_every_hook_is_exercised_by_the_toy_plugin():
    import toy_plugin
    specs = {n for n, f in inspect.getmembers(hookspecs, inspect.isfunction) if hasattr(f, "semsim_spec")}
    impls = {n for n, f in inspect.getmembers(toy_plugin, inspect.isfunction) if hasattr(f, "semsim_impl")}
    assert specs == impls == {"register_readers", "register_parsers", "register_downloads", "register_metrics",
                              "register_writers", "register_commands", "register_paraphrase_judges",
                              "register_word_encoders", "to_graph"}
