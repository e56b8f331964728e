from __future__ import annotations

import pytest

import semsim.plugins as plugins


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
