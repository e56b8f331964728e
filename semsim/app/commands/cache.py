"""``semsim cache``: inspect or clear the parse cache."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ...kernel.signature import escape
from ..cli import format_option, quiet_option
from ..report import Report, write


@click.group()
def cache() -> None:
    """Inspect or clear the parse cache."""


@cache.command("info")
@click.option("--cache", "cache_path", type=click.Path(dir_okay=False), default=None)
@format_option(["text", "json"])
@quiet_option
def cache_info(cache_path: str | None, fmt: str, quiet: bool) -> None:
    """Where the cache is, its size, and entries and hits per parser and model key.

    A model key names the model's content, then the plugin's code (its version, and for an
    editable or inline plugin a hash of its sources: ``+src.HASH``), then the graph form: two
    keys that differ only there are two lines, each saying which code made its entries."""
    from ..cache import ParseCache, default_path
    path = Path(cache_path) if cache_path is not None else default_path()
    if not path.exists():  # asked about, not made: opening would create the file (and its directory)
        st: dict[str, Any] = {"path": str(path), "bytes": 0, "entries": 0, "hits": 0, "groups": []}
    else:
        with ParseCache(path) as c:
            st = c.stats()
    lines = [f"{st['path']}: " + (f"{st['entries']} parses, {st['hits']} hits, {st['bytes'] / 1e6:.1f} MB"
                                  if path.exists() else "no cache yet (the first parse makes it)"),
             *(f"  {g['representation']}/{g['parser']} model {_model(g['model'])}: {g['entries']} parses, "
               f"{g['hits']} hits" for g in st["groups"])]
    write(Report(document=lambda _: st, parts=lambda _, __: lines, formats=("text", "json")), fmt)


@cache.command("clear")
@click.option("--cache", "cache_path", type=click.Path(dir_okay=False), default=None)
@click.option("--parser", default=None, help="Only this parser's entries.")
@quiet_option
def cache_clear(cache_path: str | None, parser: str | None, quiet: bool) -> None:
    """Delete cached parses."""
    from ..cache import ParseCache
    with ParseCache(cache_path) as c:
        n = c.clear(parser)
    click.echo(f"removed {n} parses")



def _model(key: str) -> str:
    """A model key for people: the model's identity shortened to 12 characters (a content
    hash), then the plugin's code and the graph form whole (``semsim.app.cache.model_key``: the
    last two ``|``-separated parts are semsim's, the identity, a plugin's, may hold anything,
    which is escaped as a signature escapes it)."""
    parts = key.rsplit("|", 2)
    identity = escape(parts[0][:12])
    return f"{identity} ({', '.join(map(escape, parts[1:]))})" if len(parts) == 3 else identity
