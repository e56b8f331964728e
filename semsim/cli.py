"""The command line: the ``semsim`` group and the options several commands share.

Each command lives in its own module under :mod:`semsim.commands`, imported only when it
is run (or listed by ``--help``). Every error a user can cause (missing file, malformed
input, mismatched batches) ends as one line on stderr and exit status 1; inputs are all
read before anything is written, and ``-o FILE`` is written through ``FILE.partial``,
renamed only when complete.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from . import __version__
from .api import USim
from .errors import SemsimError, SettingsError

FORMATS = ("text", "json", "jsonl", "tsv")


#: Every command: ``semsim NAME`` is ``semsim.commands.NAME:NAME``, imported when it is run (or
#: listed by --help), so that plotting, HTML or parser code costs nothing to the others.
COMMANDS = ("cache", "compare", "conservatism", "dagf", "distsim", "explain", "models", "parse", "plugins",
            "score", "sensitivity", "usim")


class _Group(click.Group):
    """Turns semsim's own errors, raised anywhere below a command, into click's one-line
    ``Error: ...`` and exit status 1 (no traceback), and loads :data:`COMMANDS` on use
    (click's documented lazy-group pattern)."""

    _plugin_commands_added = False

    def _add_plugin_commands(self) -> None:
        if not self._plugin_commands_added:
            self._plugin_commands_added = True
            from .plugins import add_plugin_commands
            add_plugin_commands(self)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._add_plugin_commands()
        return sorted([*super().list_commands(ctx), *COMMANDS])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMANDS:
            import importlib
            return getattr(importlib.import_module(f"semsim.commands.{cmd_name}"), cmd_name)
        if cmd_name not in self.commands:
            self._add_plugin_commands()
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except SemsimError as exc:
            raise click.ClickException(str(exc)) from None


def _version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``--version``: semsim's, then every loaded plugin's and the parsers they provide, since
    a score depends on all of them (signatures name them too)."""
    if not value or ctx.resilient_parsing:
        return
    import platform

    from .plugins import BUILTIN, parsers, plugin_info
    click.echo(f"semsim, version {__version__} (Python {platform.python_version()})")
    for p in plugin_info():
        click.echo(f"plugin {p['name']} {'(built in)' if p['name'] in BUILTIN else p['version'] or 'unknown'}")
    for name, parser in sorted(parsers().items()):
        default = ", default" if parser.default else ""
        click.echo(f"parser {name} [{parser.representation}{default}] from {parser.plugin}")
    ctx.exit()


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-V", "--version", is_flag=True, expose_value=False, is_eager=True, callback=_version,
              help="Show the versions of semsim, its plugins and parsers, and exit.")
@click.option("--allow-pickle", is_flag=True,
              help="Let readers unpickle files (unpickling runs code: trusted files only).")
@click.option("-v", "--verbose", is_flag=True,
              help="Show what parsers and their libraries report (TUPA, DyNet, spaCy); hidden by default.")
def cli(allow_pickle: bool, verbose: bool) -> None:
    """Semantic faithfulness of a text to another by comparing meaning-representation graphs."""
    if allow_pickle:
        os.environ["SEMSIM_ALLOW_PICKLE"] = "1"
    if verbose:
        os.environ["SEMSIM_VERBOSE"] = "1"  # worker processes inherit it


# -- options shared by several commands ----------------------------------------------------------
def output_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Where and how ``usim`` and ``dagf`` write their records, and their corpus bootstrap."""
    for opt in reversed([
        click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
                     help="Output format (json/jsonl/tsv carry the signature on every record)."),
        click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write here instead of stdout."),
        click.option("--read-format", help="Reader to use (see `semsim plugins`); default: by suffix."),
        click.option("--bootstrap", "n_bootstrap", type=click.IntRange(0), default=0, show_default=True,
                     help="Bootstrap resamples for the corpus confidence interval."),
        click.option("--seed", type=click.IntRange(0), default=12345, show_default=True, help="Bootstrap seed."),
        click.option("-b", "--score-only", is_flag=True,
                     help="Print only the score (the pair's F, or the corpus macro F of several pairs).")
    ]):
        f = opt(f)
    return quiet_option(f)


def quiet_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``-q``: every command takes it, so that scripts can pass it everywhere; where a command
    writes nothing on stderr but its errors, it changes nothing."""
    return click.option("-q", "--quiet", is_flag=True, help="No progress bars or notes on stderr.")(f)


def parsing_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """How the commands that parse text parse it (:func:`semsim.pipeline.parse_sentences`):
    ``--jobs``, ``--executor`` and ``--batch-timeout`` (where; docs/scale.md),
    ``--batch-size``, and the parse cache (``--cache``, ``--no-cache``)."""
    def check(_ctx: click.Context, _param: click.Parameter, value: str) -> str:
        from .executors import executor_spec
        try:
            executor_spec(value)
        except SettingsError as exc:
            raise click.BadParameter(str(exc).partition(": ")[2]) from None
        return value
    for opt in reversed([
        click.option("--jobs", type=click.IntRange(1), default=1, show_default=True,
                     help="Parsing processes (with --executor dask: local Dask workers)."),
        click.option("--executor", default="local", show_default=True, envvar="SEMSIM_EXECUTOR", callback=check,
                     help="Where to parse: local (--jobs processes), dask (a Dask cluster of --jobs workers on "
                          "this machine) or dask://HOST:PORT (a running Dask scheduler); see docs/scale.md."),
        click.option("--batch-timeout", type=click.FloatRange(0, min_open=True), default=None,
                     envvar="SEMSIM_BATCH_TIMEOUT",
                     help="With --executor dask: seconds a batch may take on a worker (model loading included) "
                          "before the worker is restarted and the batch retried elsewhere."),
        click.option("--batch-size", type=click.IntRange(1), default=32, show_default=True),
        click.option("--cache", "cache_path", type=click.Path(dir_okay=False), default=None,
                     help="Parse cache file (default: $SEMSIM_CACHE_DIR/parses.sqlite3)."),
        click.option("--no-cache", is_flag=True, help="Parse everything, store nothing."),
    ]):
        f = opt(f)
    return f


def usim_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """The USim settings, shared by ``usim`` (graphs in) and ``score`` (text in)."""
    for opt in reversed([
        click.option("--variant", type=click.Choice(["paper", "legacy"]), default="paper", show_default=True,
                     help="paper: §3 of the paper; legacy: what the authors' released code computes."),
        click.option("--direction", type=click.Choice(["both", "s->r", "r->s"]), default="both", show_default=True),
        click.option("--tie-break", type=click.Choice(["coverage", "all", "first"]), default="coverage",
                     show_default=True, help="How ties of the node weight w(v,u) are resolved (paper variant)."),
        click.option("--labels", type=click.Choice(["labeled", "weak", "unlabeled"]), default="labeled",
                     show_default=True, help="Edge label matching (weak: the scheme's equivalences)."),
        click.option("--remote/--no-remote", default=True, show_default=True, help="Count remote edges."),
        click.option("--align", "align", type=click.Choice(["sentence", "passage"]), default="sentence",
                     show_default=True, help="Align tokens sentence by sentence or over the whole text."),
        click.option("--denominator", type=click.Choice(["yield", "aligned"]), default="yield", show_default=True,
                     help="|yield(u)| in w(v,u): all tokens, or only aligned ones."),
        click.option("--single-token-units/--no-single-token-units", default=True, show_default=True,
                     help="Legacy variant: keep units of one token (the 2018 revision drops them)."),
    ]):
        f = opt(f)
    return f


def usim_metric(variant: str, direction: str, tie_break: str, labels: str, remote: bool, align: str,
                denominator: str, single_token_units: bool) -> USim:
    """The metric :func:`usim_options` describe; an option the variant would ignore is an error
    (one restating its default is not)."""
    try:
        return USim(variant=variant, direction=direction, tie_break=tie_break, labels=labels, remote=remote,
                    by_sentence=align == "sentence", denominator=denominator,
                    single_token_units=single_token_units)
    except SettingsError as exc:
        if not exc.settings:
            raise
        flags = {"direction": f"--direction {direction}", "tie_break": f"--tie-break {tie_break}",
                 "labels": f"--labels {labels}", "remote": "--no-remote", "by_sentence": f"--align {align}",
                 "denominator": f"--denominator {denominator}", "single_token_units": "--no-single-token-units"}
        given = " ".join(flags[k] for k in exc.settings)
        other = "legacy" if variant == "paper" else "paper"
        raise SettingsError(f"{given}: --variant {variant} ignores {'it' if len(exc.settings) == 1 else 'them'} "
                            f"(only --variant {other} uses {'it' if len(exc.settings) == 1 else 'them'})") from None


def systems_inputs(verb: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--source`` and the line-parallel ``--hyp`` / ``--ref`` files of commands that
    treat references as systems (``verb``: how a reference is treated, e.g. "scored")."""
    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        for opt in reversed([
            click.option("--source", "source_path", required=True, type=click.Path(dir_okay=False, path_type=Path),
                         help="Source sentences, tokenized, one per line (UTF-8)."),
            click.option("--hyp", "hyps", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
                         help="A system's output, line-parallel to the source (repeatable)."),
            click.option("--ref", "refs", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
                         help=f"A reference correction, {verb} like a system (repeatable)."),
        ]):
            f = opt(f)
        return f
    return decorate



def main() -> None:
    cli(prog_name="semsim")


if __name__ == "__main__":
    main()
