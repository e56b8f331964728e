"""docs/reference/plugin-api.md, the plugin API as plain Markdown (readable without building the
site, issue #33), is what the code says: regenerate it with `python scripts/api_reference.py`."""

from __future__ import annotations

import api_reference  # scripts/ is on the tests' path (pyproject.toml)


def test_the_plain_markdown_plugin_reference_is_up_to_date():
    current = api_reference.TARGET.read_text(encoding="utf-8")
    assert current == api_reference.render(), "stale: run python scripts/api_reference.py"
    for hook in ("register_readers", "register_parsers", "register_writers", "to_graph"):
        assert f"### `{hook}(" in current
    assert "### `semsim.kernel.records.Parser`" in current and "| `default` |" in current
    # what a plugin author also uses (issue #58.8): scores, signatures by their methods, helpers, the kit's options
    for heading in ("### `semsim.kernel.stats.Score`", "### `semsim.kernel.stats.Counts`",
                    "### `semsim.kernel.signature.Signature`", "### `semsim.kernel.models.hash_files(",
                    "### `semsim.app.reading.read_all(", "### `semsim.app.parsing.ParseSettings`",
                    "### `semsim.app.testing.conformance_tests("):
        assert heading in current, heading
    assert "- `format(self) -> 'str'`: The signature as scores, reports and papers carry it" in current
