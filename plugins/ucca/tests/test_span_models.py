"""The span parser's shipped models as a caller names them (#55.5): listed by `semsim models
list`, and pinned to their content as signatures name them (``NAME@HASH``)."""

from __future__ import annotations

import json

import pytest

from semsim.kernel.errors import SemsimError
from semsim.kernel.models import sha256_once
from semsim_ucca import span

NAME = "ucca-span-ewt-minilm-l2"


def test_a_model_pinned_by_its_hash_is_taken_and_checked():
    path = span.resolve_model(NAME)
    digest = sha256_once(path)[:12]
    assert span.resolve_model(f"{NAME}@{digest}") == path
    assert span.model_identity(f"{NAME}@{digest}") == span.model_identity(NAME)
    assert span.model_name(f"{NAME}@{digest}").format() == span.model_name(NAME).format()
    with pytest.raises(SemsimError, match=rf"has SHA-256 {digest}\.\.\., not the 000000000000 it is pinned to"):
        span.resolve_model(f"{NAME}@000000000000")


def test_models_list_shows_the_shipped_models():
    from click.testing import CliRunner

    from semsim.app.cli import cli
    r = CliRunner().invoke(cli, ["models", "list", "--format", "json"])
    assert r.exit_code == 0, r.output
    shipped = {m["name"]: m for m in json.loads(r.output)["shipped"]}
    assert NAME in shipped and shipped[NAME]["parser"] == span.NAME
    assert shipped[NAME]["path"] == str(span.resolve_model(NAME))
    text = CliRunner().invoke(cli, ["models", "list"]).output
    assert f"  {NAME} [{span.NAME}] " in text
