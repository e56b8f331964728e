"""What a plugin author reads off semsim (issue #47.5): `semsim plugins` lists the schemes and how
scores sign them; `semsim cache info` tells apart entries that differ only by the plugin's
source hash; an inline plugin's edited code is not served its old parses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import run_cli

import semsim.app.plugins as plugins
from semsim.app.cache import ParseCache, model_key
from semsim.kernel.graph import build_graph

DRS = Path(__file__).with_name("drs_plugin.py")


@pytest.fixture
def inline_drs(monkeypatch, tmp_path):
    """A copy of the DRS test plugin, loaded alone as an inline plugin; returns its path."""
    copy = tmp_path / "drs_plugin.py"
    copy.write_text(DRS.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setenv("SEMSIM_LOAD_PLUGINS", "")
    monkeypatch.setenv("SEMSIM_PLUGINS", str(copy))
    monkeypatch.setenv("SEMSIM_CACHE_DIR", str(tmp_path / "cache"))
    plugins.reset_plugin_manager()
    yield copy
    plugins.reset_plugin_manager()


def test_plugins_lists_schemes_and_their_signature(inline_drs):
    r = run_cli("plugins")
    assert r.exit_code == 0, r.output
    (line,) = [x for x in r.stdout.splitlines() if x.startswith("  scheme ")]
    assert line == (f"  scheme drs from {inline_drs}: 1 equivalence(s); ignores kinds box, time  "
                    "(signed scheme:drs@dbd5e037f8c2|plugin:drs_plugin.py)")
    doc = json.loads(run_cli("plugins", "--format", "json").stdout)["schemes"]["drs"]
    assert doc["plugin"] == str(inline_drs) and doc["ignored_kinds"] == ["box", "time"]
    assert doc["signature"] == "scheme:drs@dbd5e037f8c2|plugin:drs_plugin.py"


def test_an_inline_plugin_s_edited_code_gets_a_new_cache_key(inline_drs):
    """An inline plugin has no version: its source hash keys its parses, as an editable install's does."""
    parser = plugins.parsers()["drs-rules"]
    before = model_key(parser, None)
    assert f"|{inline_drs}-unknown+src." in before
    inline_drs.write_text(inline_drs.read_text() + "\n# an edit\n", encoding="utf-8")
    plugins.reset_plugin_manager()
    assert model_key(plugins.parsers()["drs-rules"], None) != before


def test_cache_info_tells_apart_entries_of_two_versions_of_a_plugin_s_code(tmp_path):
    cache = tmp_path / "c.sqlite3"
    g = build_graph(["a"], [], [])
    with ParseCache(cache) as c:
        for source in ("1a2b3c4d5e6f", "f6e5d4c3b2a1"):
            c.put_many("toy", "toy-parser", f"rules-v1|toy-0.1.0+src.{source}|graph-2", [("a", None, g)])
    lines = run_cli("cache", "info", "--cache", cache).stdout.splitlines()[1:]
    assert lines == ["  toy/toy-parser model rules-v1 (toy-0.1.0+src.1a2b3c4d5e6f, graph-2): 1 parses, 0 hits",
                     "  toy/toy-parser model rules-v1 (toy-0.1.0+src.f6e5d4c3b2a1, graph-2): 1 parses, 0 hits"]
