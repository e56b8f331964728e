"""``semsim cache``: inspect or clear the parse cache."""

from __future__ import annotations

import click

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
    """Where the cache is, its size, and entries and hits per parser and model."""
    from ..cache import ParseCache
    with ParseCache(cache_path) as c:
        st = c.stats()
    lines = [f"{st['path']}: {st['entries']} parses, {st['hits']} hits, {st['bytes'] / 1e6:.1f} MB",
             *(f"  {g['representation']}/{g['parser']} model {g['model'][:12]}: {g['entries']} parses, {g['hits']} hits"
               for g in st["groups"])]
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

