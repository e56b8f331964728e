"""The command line: the ``semsim`` group and the options several commands share.

Each command lives in its own module under :mod:`semsim.app.commands`, imported only when it
is run (or listed by ``--help``). Every error a user can cause (missing file, malformed
input, mismatched batches) ends as one line on stderr and exit status 1; inputs are all
read before anything is written, and ``-o FILE`` is written through ``FILE.partial``,
renamed only when complete.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import math
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

import click
from click.core import ParameterSource

from ..kernel.errors import SemsimError, SettingsError
from ..kernel.files import one_line
from ..kernel.limits import MAX_BOOTSTRAP, MAX_JOBS
from ..kernel.metrics.settings import BY_NAME, SETTINGS, Setting, flag, variant_ignores
from ..kernel.version import __version__
from .report import FORMATS
from .tokenization import TOKENIZERS
from .usim import USim

#: Every command: ``semsim NAME`` is ``semsim.app.commands.NAME:NAME`` (:func:`command_location`: a
#: hyphen is dropped from the module's name and is ``_`` in the function's), imported when it is
#: run (or listed by --help), so that plotting, HTML or parser code costs nothing to the others.
COMMANDS = ("cache", "compare", "conservatism", "dagf", "distsim", "explain", "meta-eval", "models", "parse",
            "plugins", "score", "sensitivity", "usim")


def command_location(name: str) -> tuple[str, str]:
    """The module and function of command ``name``: ``meta-eval`` is
    ``semsim.app.commands.metaeval:meta_eval``."""
    return f"semsim.app.commands.{name.replace('-', '')}", name.replace("-", "_")


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
            module, function = command_location(cmd_name)
            return getattr(importlib.import_module(module), function)
        if cmd_name not in self.commands:
            self._add_plugin_commands()
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        from ..kernel.errors import COMMAND_LINE
        running = COMMAND_LINE.set(True)  # errors name the options (--model), not the Python keywords
        try:
            return super().invoke(ctx)
        except SemsimError as exc:
            _debug(exc)
            raise click.ClickException(one_line(str(exc))) from None  # what a plugin or file said in it too
        finally:
            COMMAND_LINE.reset(running)  # a program that ran the CLI in-process (tests) calls the API after

    def main(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().main(*args, **kwargs)
        except SemsimError as exc:  # before any command ran: --version, --help listing a faulty plugin's commands
            _debug(exc)
            click.echo(f"Error: {one_line(str(exc))}", err=True)
            sys.exit(1)


def _debug(exc: BaseException) -> None:
    """With ``SEMSIM_DEBUG`` set: the traceback (a failing plugin's own), before the one line."""
    if os.environ.get("SEMSIM_DEBUG"):
        import traceback
        traceback.print_exception(exc, file=sys.stderr)


def _version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``--version``: semsim's, then every loaded plugin's and the parsers they provide, since
    a score depends on all of them (signatures name them too)."""
    if not value or ctx.resilient_parsing:
        return
    import platform

    from .plugins import BUILTIN, parsers, plugin_info
    from .report import text
    click.echo(text([f"semsim, version {__version__} (Python {platform.python_version()})",
                     *(f"plugin {p['name']} {'(built in)' if p['name'] in BUILTIN else p['version'] or 'unknown'}"
                       for p in plugin_info()),
                     *(f"parser {name} [{parser.representation}{', default' if parser.default else ''}] "
                       f"from {parser.plugin}" for name, parser in sorted(parsers().items()))]), nl=False)
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
    from ..kernel.files import allow_pickle as allowing_pickle
    from ..kernel.progress import set_verbose
    if allow_pickle:  # passed to what reads it, not through the environment
        allowing_pickle(True)
    if verbose:
        set_verbose(True)  # local worker processes are handed it as they start (executors)


# -- options shared by several commands ----------------------------------------------------------
def format_option(choices: Sequence[str] = FORMATS, default: str = "text",
                  help: str | None = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--format``, handed to the command as ``fmt``: which of ``choices`` (the renderings
    :func:`semsim.app.report.write` gives the command's report) it writes. One option for every
    command, so that the name, the default shown and the keyword agree."""
    return click.option("--format", "fmt", type=click.Choice(list(choices)), default=default, show_default=True,
                        help=help)


def output_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Where and how ``usim`` and ``dagf`` write their records, and their corpus bootstrap."""
    for opt in reversed([
        format_option(help="Output format (json/jsonl/tsv carry the signature on every record)."),
        click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write here instead of stdout."),
        click.option("--read-format", help="Reader to use (see `semsim plugins`); default: by suffix."),
        click.option("--bootstrap", "n_bootstrap", type=click.IntRange(0, MAX_BOOTSTRAP), default=0, show_default=True,
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


#: seconds: a batch cannot even start a model in less, so a shorter timeout would retry forever
MIN_BATCH_TIMEOUT = 1.0


def finite(_ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """Refuse ``nan`` (which passes every range check) for a float option."""
    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"{value} is not a number of seconds", param=param)
    return value


#: what each option of :func:`parsing_options` sets in :class:`~semsim.app.parsing.ParseSettings`
_PARSING = ("representation", "parser_name", "model", "tokenize", "jobs", "executor", "batch_timeout", "batch_size",
            "cache_path", "no_cache", "trust_model")


def parsing_options(f: Callable[..., Any] | None = None, *, parser: bool = True, representation: str | None = None,
                    tokenize: bool = True) -> Any:
    """How the commands that parse text parse it, handed to the command as one ``parsing``: a
    :class:`~semsim.app.parsing.ParseSettings` (``--representation`` unless the command fixes
    ``representation``; ``--parser`` and ``--model`` unless ``parser=False``; ``--tokenize``
    unless ``tokenize=False``; where batches run: ``--jobs``, ``--executor``,
    ``--batch-timeout``, docs/scale.md; ``--batch-size``; the parse cache, ``--cache`` and
    ``--no-cache``). Progress bars follow the command's ``-q``. A plugin's command takes
    them too (``semsim ucca evaluate``: ``@parsing_options(representation="ucca", tokenize=False)``)."""
    if f is None:
        return functools.partial(parsing_options, parser=parser, representation=representation, tokenize=tokenize)
    from .parsing import ParseSettings

    def check(_ctx: click.Context, _param: click.Parameter, value: str) -> str:
        from .executors import executor_spec
        try:
            executor_spec(value)
        except SettingsError as exc:
            raise click.BadParameter(str(exc).partition(": ")[2]) from None
        return value

    @functools.wraps(f)
    def command(*args: Any, **kwargs: Any) -> Any:
        given = {n: kwargs.pop(n, None) for n in _PARSING}
        cache = False if given["no_cache"] else (given["cache_path"] or True)
        settings = ParseSettings(given["parser_name"], representation or given["representation"], given["model"],
                                 cache, given["batch_size"], given["jobs"], given["executor"], given["batch_timeout"],
                                 given["tokenize"] or "none", progress=not kwargs.get("quiet", False),
                                 trust_model=bool(given["trust_model"]))
        if cache is True or cache is False:
            return f(*args, parsing=settings, **kwargs)
        from .commands.inputs import run_state
        with run_state(cache, "the parse cache"):  # no output of the command may overwrite it
            return f(*args, parsing=settings, **kwargs)

    options: list[Callable[[Callable[..., Any]], Callable[..., Any]]] = [] if representation else [
        click.option("--representation", default=None, help="Representation to parse into (e.g. ucca).")]
    options += [
        click.option("--parser", "parser_name", default=None,
                     help="Parser to use (default: the representation's default; see `semsim plugins`)."),
        click.option("--model", default=None, help="Parser model (path or name; default: the parser's own)."),
    ] if parser else []
    options += [click.option("--trust-model", is_flag=True, envvar="SEMSIM_TRUST_MODELS",
                             help="Load a model whose format runs code (TUPA, amrlib) though semsim did not "
                                  "download it (trusted models only; docs/install.md).")]
    options += [tokenize_option] if tokenize else []
    options += [
        click.option("--jobs", type=click.IntRange(1, MAX_JOBS), default=1, show_default=True,
                     help="Parsing processes (with --executor dask: local Dask workers); at most 4 per core."),
        click.option("--executor", default="local", show_default=True, envvar="SEMSIM_EXECUTOR", callback=check,
                     help="Where to parse: local (--jobs processes), dask (a Dask cluster of --jobs workers on "
                          "this machine) or dask://HOST:PORT (a running Dask scheduler); see docs/scale.md."),
        click.option("--batch-timeout", type=click.FloatRange(MIN_BATCH_TIMEOUT, 7 * 24 * 3600), default=None,
                     callback=finite,
                     envvar="SEMSIM_BATCH_TIMEOUT",
                     help="With --executor dask: seconds a batch may take on a worker (model loading included) "
                          "before the worker is restarted and the batch retried elsewhere."),
        click.option("--batch-size", type=click.IntRange(1), default=32, show_default=True),
        click.option("--cache", "cache_path", type=click.Path(dir_okay=False), default=None,
                     help="Parse cache file (default: $SEMSIM_CACHE_DIR/parses.sqlite3)."),
        click.option("--no-cache", is_flag=True, help="Parse everything, store nothing."),
    ]
    decorated: Callable[..., Any] = command
    for opt in reversed(options):
        decorated = opt(decorated)
    return decorated


def tokenize_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--tokenize``: how the commands that read text split its lines into tokens
    (:mod:`semsim.app.tokenization`); ``none`` keeps today's whitespace tokens, byte for byte."""
    return click.option("--tokenize", "tokenize", type=click.Choice(TOKENIZERS), default="none", show_default=True,
                        help="Tokenize each line first: none (whitespace tokens, as given) or spacy (spaCy's "
                             "rule-based English tokenizer, for untokenized text such as LLM outputs).")(f)


def _usim_option(setting: Setting) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The click option of one row of :data:`semsim.kernel.metrics.settings.SETTINGS`."""
    shown = setting.shown(setting.default)
    if setting.cli_words:
        return click.option(setting.option, setting.name, type=click.Choice(list(setting.cli_words)),
                            default=shown, show_default=True, help=setting.help or None)
    return click.option(f"{setting.option}/--no-{setting.option[2:]}", setting.name, default=setting.default,
                        show_default=True, help=setting.help or None)


def usim_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """The USim settings as options (one per row of the settings table), handed to the
    command as one ``metric``: a :class:`USim`. An option the variant would ignore is an
    error naming the options (one restating its default is not)."""
    names = [s.name for s in SETTINGS]

    # functools.wraps also copies f.__dict__, so the wrapper carries the click options that
    # decorate f already (__click_params__); the table's are added to them below
    @functools.wraps(f)
    def command(*args: Any, **kwargs: Any) -> Any:
        given = {n: kwargs.pop(n) for n in names}
        given = {n: BY_NAME[n].words.get(v, v) if BY_NAME[n].words else v for n, v in given.items()}
        # what the user typed (or set in the environment), not click's defaults: a preset meets
        # only those, so `--preset meaning --tokens edit` is refused though edit is the default
        ctx = click.get_current_context()
        typed = {n for n in names if ctx.get_parameter_source(n) not in (ParameterSource.DEFAULT,
                                                                          ParameterSource.DEFAULT_MAP, None)}
        try:
            metric = USim(**{n: v for n, v in given.items() if n in typed})
        except SettingsError as exc:
            if not exc.settings:
                raise
            # name what the user gave: the preset that set them, not settings never typed
            named = list(dict.fromkeys(flag(k, given[k]) if k in typed else flag("preset", given["preset"])
                                       for k in exc.settings))
            raise variant_ignores(given["variant"], named, (), flags=True) from None
        return f(*args, metric=metric, **kwargs)

    decorated: Callable[..., Any] = command
    for setting in reversed(SETTINGS):
        decorated = _usim_option(setting)(decorated)
    return decorated


class NamedFile(click.ParamType):
    """``FILE`` or ``NAME=FILE``: a system's output and the name its rows carry (``None``: the
    file's name). A path that exists is a path, ``=`` or not."""

    name = "[NAME=]FILE"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> tuple[str | None, Path]:
        if isinstance(value, tuple):
            return value
        name, eq, path = str(value).partition("=")
        if eq and name and path and "/" not in name and not Path(value).exists():
            if bad_name(name):
                self.fail(f"system name {name!r} holds {bad_name(name)}, which would break the tab-separated, "
                          "Markdown and -b outputs: choose another name", param, ctx)
            return name, Path(path)
        return None, Path(value)


def bad_name(name: str) -> str:
    """What in a system's name no output format can carry (a control character such as a tab
    or a newline, or ``|``, Markdown's cell separator), described; "" if nothing."""
    import unicodedata
    char = next((c for c in name if c == "|" or unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp", "Cs")), None)
    return "" if char is None else f"the character {char!r}"


def systems_inputs(verb: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--source`` and the line-parallel ``--hyp`` / ``--ref`` files of commands that
    treat references as systems (``verb``: how a reference is treated, e.g. "scored"); each
    ``--hyp``/``--ref`` a ``(name or None, path)`` (:class:`NamedFile`)."""
    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        for opt in reversed([
            click.option("--source", "source_path", required=True, type=click.Path(dir_okay=False, path_type=Path),
                         help="Source sentences, one per line (UTF-8), tokenized (else: --tokenize spacy)."),
            click.option("--hyp", "hyps", multiple=True, type=NamedFile(),
                         help="A system's output, line-parallel to the source, as FILE or NAME=FILE (the name "
                              "its rows carry; default: the file's name). Repeatable."),
            click.option("--ref", "refs", multiple=True, type=NamedFile(),
                         help=f"A reference correction, {verb} like a system (FILE or NAME=FILE; repeatable)."),
        ]):
            f = opt(f)
        return f
    return decorate



def _terminated(_signum: int, _frame: Any) -> None:
    """SIGTERM (a process manager, `kill`, a job scheduler's limit) ends a run as Ctrl-C
    does: the records written are complete, the worker processes are ended, the output is
    left as FILE.partial; without this Python would die at once, leaving workers behind."""
    raise KeyboardInterrupt


def main() -> None:
    import signal
    if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _terminated)
    cli(prog_name="semsim")


def run() -> NoReturn:
    """The ``semsim`` command: :func:`main`, then an exit that skips tearing the interpreter
    down. With torch, spaCy and a model loaded, Python's own exit (clearing every module,
    collecting millions of objects) took 1.4–1.8 s of each command's wall time on this
    project's machine, after the last result was written. Nothing is lost by skipping it:
    every file semsim writes is complete and closed when its command returns, and the exit
    handlers (``atexit``: worker pools, Dask, logging, temporary directories) and standard
    streams are run and flushed here first, as mypy does for the same reason."""
    code: int | str | None = 0
    try:
        main()
    except SystemExit as exc:  # click's standalone mode ends every command with one
        code = exc.code
    if isinstance(code, str):  # sys.exit("message"), as Python reports it
        print(code, file=sys.stderr)
        code = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed pipe (`semsim ... | head`) has nothing to flush into
            stream.flush()
    os._exit(code or 0)


if __name__ == "__main__":
    run()
