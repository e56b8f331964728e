"""``semsim models``: list, download and remove parser models."""

from __future__ import annotations

import click

from ...kernel.errors import SemsimError
from ..cli import format_option, quiet_option
from ..report import Report, write


@click.group()
def models() -> None:
    """List, download and remove parser models (kept in a per-user directory)."""


@models.command("list")
@format_option(["text", "json"])
@quiet_option
def models_list(fmt: str, quiet: bool) -> None:
    """Known models and whether each is installed.

    \b
    semsim models list
    semsim models list --format json | jq '.models[] | select(.installed) | .name'
    """
    from ...kernel.models import installed, model_path, models_dir
    from ..downloads import known as known_downloads
    from ..plugins import parsers
    known = known_downloads()
    # the models plugins install with themselves (the default parser's among them): nothing to download
    shipped = {name: (p.name, path) for p in parsers().values() if p.shipped for name, path in p.shipped().items()}

    def document(_: object) -> dict[str, object]:
        return {"directory": str(models_dir()), "models": [
            {"name": name, "parser": spec.parser, "installed": bool(installed(name)),
             "path": str(model_path(name)) if installed(name) else None, "url": spec.url, "sha256": spec.sha256,
             "description": spec.description} for name, spec in sorted(known.items())],
            "shipped": [{"name": name, "parser": parser, "path": path}
                        for name, (parser, path) in sorted(shipped.items())]}

    def lines(_: object, __: bool) -> list[str]:
        return [f"models directory: {models_dir()}",
                *(f"  {name} [{spec.parser}] {'installed' if installed(name) else 'not installed'}: {spec.description}"
                  for name, spec in sorted(known.items())),
                *([] if known else ["  no plugin declares downloadable models"]),
                *(["shipped with their plugins (model=NAME, or NAME@HASH to pin the content):"] if shipped else []),
                *(f"  {name} [{parser}] {path}" for name, (parser, path) in sorted(shipped.items()))]

    write(Report(document=document, parts=lines, formats=("text", "json")), fmt)


@models.command("download")
@click.argument("name")
@click.option("--url", default=None, help="Download from here instead (e.g. a mirror or a file:// URL).")
@click.option("--sha256", default=None, help="Expected SHA-256 of the archive (overrides the known one).")
@quiet_option
def models_download(name: str, url: str | None, sha256: str | None, quiet: bool) -> None:
    """Download, verify and unpack model NAME."""
    from ...kernel.models import model_path
    from ..downloads import download
    from ..downloads import known as known_downloads
    known = known_downloads()
    if name not in known:
        raise SemsimError(f"unknown model {name!r} (known: {', '.join(sorted(known)) or 'none'})")
    download(known[name], url=url, sha256=sha256, progress=not quiet)
    click.echo(model_path(name))


@models.command("path")
@click.argument("name")
@quiet_option
def models_path(name: str, quiet: bool) -> None:
    """Print what to pass as --model for an installed model."""
    from ...kernel.models import model_path
    click.echo(model_path(name))


@models.command("remove")
@click.argument("name")
@quiet_option
def models_remove(name: str, quiet: bool) -> None:
    """Delete an installed model."""
    from ..downloads import remove
    click.echo(f"removed {name}" if remove(name) else f"{name} is not installed")

