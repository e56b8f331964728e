from __future__ import annotations

from pathlib import Path

import pytest

import semsim.app.plugins as plugins

TOY = str(Path(__file__).with_name("toy_plugin.py"))


@pytest.fixture
def isolated_plugins(monkeypatch):
    """A plugin manager with no installed plugins (as llm's tests do), reset afterwards."""
    monkeypatch.setenv("SEMSIM_LOAD_PLUGINS", "")
    plugins.reset_plugin_manager()
    yield plugins.get_plugin_manager()
    plugins.reset_plugin_manager()


@pytest.fixture
def toy_plugin(isolated_plugins):
    import toy_plugin
    isolated_plugins.register(toy_plugin, name="toy")
    return toy_plugin


@pytest.fixture
def toy_env(monkeypatch, tmp_path):
    """The toy plugin loaded as an inline plugin (``SEMSIM_PLUGINS``, as worker processes and
    subprocesses see it) and a parse cache in ``tmp_path``, which the fixture returns."""
    monkeypatch.setenv("SEMSIM_LOAD_PLUGINS", "")
    monkeypatch.setenv("SEMSIM_PLUGINS", TOY)
    monkeypatch.setenv("SEMSIM_CACHE_DIR", str(tmp_path / "cache"))
    plugins.reset_plugin_manager()
    yield tmp_path
    plugins.reset_plugin_manager()
