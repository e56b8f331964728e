"""``semsim plugins``: what is loaded, and what each plugin registered."""

from __future__ import annotations

import json

import click

from ..cli import quiet_option


@click.command()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@quiet_option
def plugins(fmt: str, quiet: bool) -> None:
    """List loaded plugins, their hooks, readers, parsers, metrics and paraphrase judges."""
    from ..plugins import metrics, paraphrase_judges, parsers, plugin_info, readers
    info = plugin_info()
    rs, ps, ms, js = readers(), parsers(), metrics(), paraphrase_judges()
    if fmt == "json":
        click.echo(json.dumps({"plugins": info,
                               "readers": {n: {"plugin": r.plugin, "suffixes": list(r.suffixes),
                                               "description": r.description} for n, r in rs.items()},
                               "parsers": {n: {"plugin": p.plugin, "representation": p.representation,
                                               "default": p.default, "description": p.description}
                                           for n, p in ps.items()},
                               "metrics": {n: {"plugin": m.plugin, "scheme": m.representation,
                                               "description": m.description} for n, m in ms.items()},
                               "paraphrase_judges": {n: {"plugin": j.plugin, "language": j.language,
                                                         "description": j.description} for n, j in js.items()}},
                              indent=2))
        return
    if not info:
        click.echo("no plugins loaded (install one, e.g. `pip install -e plugins/ucca`)")
    for p in info:
        click.echo(f"{p['name']} {p['version'] or ''}: hooks {', '.join(p['hooks'])}")
    for n, r in sorted(rs.items()):
        click.echo(f"  reader {n} ({', '.join(r.suffixes)}) from {r.plugin}: {r.description}")
    for n, p in sorted(ps.items()):
        default = ", default" if p.default else ""
        click.echo(f"  parser {n} [{p.representation}{default}] from {p.plugin}: {p.description}")
    for n, m in sorted(ms.items()):
        click.echo(f"  metric {n} [{m.representation}] from {m.plugin}: {m.description}")
    for n, j in sorted(js.items()):
        click.echo(f"  paraphrase judge {n} [{j.language}] from {j.plugin}: {j.description}")

