"""``semsim cache``: inspect or clear the parse cache."""

from __future__ import annotations

import json

import click

from ..cli import quiet_option


@click.group()
def cache() -> None:
    """Inspect or clear the parse cache."""


@cache.command("info")
@click.option("--cache", "cache_path", type=click.Path(dir_okay=False), default=None)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@quiet_option
def cache_info(cache_path: str | None, fmt: str, quiet: bool) -> None:
    """Where the cache is, its size, and entries and hits per parser and model."""
    from ..cache import ParseCache
    with ParseCache(cache_path) as c:
        st = c.stats()
    if fmt == "json":
        click.echo(json.dumps(st, indent=2))
        return
    click.echo(f"{st['path']}: {st['entries']} parses, {st['hits']} hits, {st['bytes'] / 1e6:.1f} MB")
    for g in st["groups"]:
        click.echo(f"  {g['representation']}/{g['parser']} model {g['model'][:12]}: "
                   f"{g['entries']} parses, {g['hits']} hits")


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

