"""The plugin system: discovery, environment controls, tracing, every hook documented and used."""

from __future__ import annotations

import inspect
import json
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

import semsim
import semsim.app.plugins as plugins
from semsim.kernel import hookspecs


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


def test_schemes_are_found_by_name(toy_plugin, isolated_plugins):
    """What keeps only a scheme's name (an explanation document) finds the scheme, label names
    included; the same scheme registered twice is one, two different ones of a name an error."""
    assert plugins.schemes() == {"toy": toy_plugin.TOY}
    assert plugins.schemes()["toy"].label_names == {"Big": "Capitalised word"}

    class Same:
        register_schemes = staticmethod(hookspecs.hookimpl(toy_plugin.register_schemes))
    isolated_plugins.register(Same(), name="same")
    assert plugins.schemes() == {"toy": toy_plugin.TOY}

    class Other:
        @staticmethod
        @hookspecs.hookimpl
        def register_schemes(register):
            register(semsim.Scheme("toy"))
    isolated_plugins.register(Other(), name="other")
    with pytest.raises(semsim.PluginError, match="two plugins register different schemes named 'toy'"):
        plugins.schemes()


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
    assert "semsim trace: to_graph(obj) -> 3 plugin(s)" in err  # the toy plugin and the built-in MRP's two (#47)


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
                              "register_word_encoders", "register_schemes", "to_graph"}


def test_an_editable_plugin_s_cache_key_follows_its_code(tmp_path, monkeypatch):
    """A plugin under development (an editable install) keeps its version while its conversion
    code changes: the parse cache's key names a hash of its sources, so an edit is never
    served the parses of the old code (issue #33.8)."""
    import types

    from semsim.app import plugins
    package = tmp_path / "semsim_devplugin"
    package.mkdir()
    (package / "__init__.py").write_text("X = 1\n")
    module = types.SimpleNamespace(__file__=str(package / "__init__.py"))
    plugins.get_plugin_manager()
    monkeypatch.setitem(plugins._versions, "dev", "0.1.0")
    monkeypatch.setitem(plugins._sources, "dev", module)
    before = plugins.plugin_code_version("dev")
    assert before.startswith("0.1.0+src.") and plugins.plugin_code_version("dev") == before
    (package / "convert.py").write_text("def to_graph(x): ...\n")
    plugins._source_hashes.clear()  # a new process, as the next run is
    assert plugins.plugin_code_version("dev") != before
    monkeypatch.delitem(plugins._sources, "dev")
    assert plugins.plugin_code_version("dev") == "0.1.0"  # an installed release: its version


def test_editable_installs_are_recognised(monkeypatch):
    from semsim.app import plugins

    class Dist:
        def __init__(self, text):
            self.text = text

        def read_text(self, name):
            return self.text
    assert plugins._editable(Dist('{"url": "file:///x", "dir_info": {"editable": true}}'))
    assert not plugins._editable(Dist('{"url": "file:///x", "dir_info": {}}'))
    assert not plugins._editable(Dist(None)) and not plugins._editable(None)
