"""The plugin manager: entry-point discovery, environment controls, tracing.

Environment variables:

``SEMSIM_LOAD_PLUGINS``
    Comma-separated entry-point names to load (``""``: none). Unset: all installed.
``SEMSIM_DISABLE_PLUGINS``
    Comma-separated entry-point names never to load.
``SEMSIM_PLUGINS``
    Comma-separated extra plugin modules to register without packaging them: importable
    module names or paths to ``.py`` files (like tox's inline ``toxfile.py``). Worker
    processes inherit it.
``SEMSIM_TRACE_PLUGINS``
    If set (non-empty), every hook call and result is printed to stderr.
``SEMSIM_VERBOSE``
    If set (non-empty; ``semsim -v`` sets it), plugins show what their libraries report
    while loading models and parsing (see :func:`semsim.kernel.progress.verbose`); worker processes inherit it.
``SEMSIM_DEBUG``
    If set (non-empty), an error is printed with its traceback (the plugin's own, when a
    plugin failed) before semsim's one line.

A plugin that raises or exits in a hook, or registers or returns what the hook does not
take, is one :class:`~semsim.kernel.errors.PluginError` naming the plugin and the hook
(:func:`plugin_fault`); what a ``register_*`` hook registers is type-checked as it registers it.
"""

from __future__ import annotations

import os
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pluggy

from ..kernel import hookspecs
from ..kernel.errors import PluginError, SemsimError
from ..kernel.records import Download, MetricSpec, ParaphraseJudge, Parser, Reader, WordEncoder, Writer
from ..kernel.scheme import Scheme, attribute_schemes

GROUP = "semsim"
BUILTIN = ("mrp",)  # plugins that ship with the core and are always registered


_pm: pluggy.PluginManager | None = None
_versions: dict[str, str | None] = {}
_distributions: dict[str, str] = {}  # entry point -> its distribution's name (semsim-ucca)
_owners: dict[str, str] | None = None  # scheme name -> the plugin that registered it (scheme_owners)
_sources: dict[str, Any] = {}  # editable plugins' modules, whose sources name their code (plugin_code_version)
_source_hashes: dict[str, str] = {}


def _names(var: str) -> set[str] | None:
    value = os.environ.get(var)
    if value is None:
        return None
    return {n.strip() for n in value.split(",") if n.strip()}


def get_plugin_manager() -> pluggy.PluginManager:
    """The process-wide plugin manager, loading installed plugins on first use."""
    global _pm
    if _pm is None:
        pm = pluggy.PluginManager(GROUP)
        pm.add_hookspecs(hookspecs)
        from ..kernel.formats import mrp  # built-in formats register like any plugin
        pm.register(mrp, name=BUILTIN[0])
        load, disabled = _names("SEMSIM_LOAD_PLUGINS"), _names("SEMSIM_DISABLE_PLUGINS") or set()
        for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name):
            if ep.name in disabled or (load is not None and ep.name not in load):
                continue
            if pm.get_plugin(ep.name) is not None:
                continue
            try:
                module = ep.load()
                check_plugin_api(ep.name, module)
                pm.register(module, name=ep.name)
                _versions[ep.name] = ep.dist.version if ep.dist is not None else None
                if ep.dist is not None:
                    _distributions[ep.name] = ep.dist.name
                if _editable(ep.dist):
                    _sources[ep.name] = module
            except PluginError as exc:  # one written for another plugin API: its own line
                print(f"semsim: {exc}", file=sys.stderr)
            except (Exception, SystemExit) as exc:  # a broken plugin must not break semsim
                print(f"semsim: could not load plugin {ep.name!r}: {_why(exc)}", file=sys.stderr)
        for spec in sorted(_names("SEMSIM_PLUGINS") or ()):
            module = _load_module(spec)
            check_plugin_api(spec, module)
            if pm.is_registered(module):  # installed too: one plugin, registered once
                if _tracing():
                    _trace(f"SEMSIM_PLUGINS: {spec!r} is the installed plugin {pm.get_name(module)!r}: registered once")
                continue
            pm.register(module, name=spec)
            _sources[spec] = module  # no version tells its code apart: its sources do (plugin_code_version)
        if _tracing():
            pm.add_hookcall_monitoring(
                lambda name, impls, kwargs: _trace(f"{name}({', '.join(kwargs)}) -> {len(impls)} plugin(s)"),
                lambda outcome, name, impls, kwargs: _trace(f"{name} returned {outcome.get_result()!r:.120}"))
        _pm = pm
    return _pm


def _load_module(spec: str) -> Any:
    """An inline plugin: a module name, or a path to a ``.py`` file."""
    import importlib
    import importlib.util
    try:
        if spec.endswith(".py"):
            path = Path(spec).resolve()
            module_spec = importlib.util.spec_from_file_location(f"semsim_inline_{path.stem}", path)
            if module_spec is None or module_spec.loader is None:
                raise ImportError(f"cannot load {path}")
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[module_spec.name] = module  # dataclasses and pickling look it up there
            module_spec.loader.exec_module(module)
            return module
        return importlib.import_module(spec)
    except SyntaxError as exc:  # the file's own line, not a traceback through importlib
        raise PluginError(f"{exc.filename or spec}:{exc.lineno}: SEMSIM_PLUGINS: {spec!r} is not valid Python: "
                          f"{exc.msg}") from None
    except (ImportError, OSError) as exc:
        raise PluginError(f"SEMSIM_PLUGINS: cannot load {spec!r}: {exc}") from exc
    except (Exception, SystemExit) as exc:  # the module's own code failed (or exited) as it was imported
        raise plugin_fault(spec, "its import", exc) from exc


def check_plugin_api(name: str, module: Any) -> None:
    """Refuse a plugin written for another major version of the plugin API
    (:data:`~semsim.kernel.hookspecs.PLUGIN_API`), before any of its hooks runs: its
    ``SEMSIM_PLUGIN_API`` names that version. A plugin that declares none is loaded."""
    declared = getattr(module, "SEMSIM_PLUGIN_API", None)
    if declared is None:
        return
    import re

    from ..kernel.version import __version__
    found = re.fullmatch(r"(\d+)(?:\.\d+)?", str(declared).strip())
    if found is None:
        raise PluginError(f"plugin {name!r} declares SEMSIM_PLUGIN_API = {declared!r:.40}, not a version such as "
                          f"{hookspecs.PLUGIN_API!r}: not loaded")
    if found.group(1) != hookspecs.PLUGIN_API.split(".")[0]:
        raise PluginError(f"plugin {name!r} is written for semsim's plugin API {declared}, and semsim {__version__} "
                          f"has plugin API {hookspecs.PLUGIN_API}: not loaded (install a version of the plugin "
                          "written for this one)")


def _why(exc: BaseException) -> str:
    """An exception in a few words, on one line: ``ValueError: bad`` (``exited with status 3``)."""
    if isinstance(exc, SystemExit):
        return f"exited (sys.exit({exc.code!r}))"
    first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def plugin_fault(plugin: str, hook: str, exc: BaseException | str) -> PluginError:
    """The one-line error for a plugin at fault: its name, the hook, and what went wrong (an
    exception it raised, or ``exc`` as words: what it returned); the plugin's traceback stays
    attached (``__cause__``), which the command line shows with ``SEMSIM_DEBUG=1``."""
    what = exc if isinstance(exc, str) else _why(exc)
    error = PluginError(f"plugin {plugin!r} failed in {hook}: {what} (SEMSIM_DEBUG=1 shows the traceback)"
                        if not isinstance(exc, str) else f"plugin {plugin!r} failed in {hook}: {what}")
    if isinstance(exc, BaseException):
        error.__cause__ = exc
    return error


def parser_answer(parser: Any, field: str, model: str | None, kinds: tuple[type, ...]) -> Any:
    """What the parser record's ``field`` (``model_identity``, ``model_name``) says about
    ``model``: the one way semsim asks, so that a plugin's answer is checked where it enters.
    A :class:`SemsimError` passes as it is (the documented way to refuse a model, with
    advice); anything else raised, or an answer not of ``kinds`` (an int for a name), is
    one line naming the plugin, where it was a traceback naming nobody."""
    try:
        value = getattr(parser, field)(model)
    except SemsimError:
        raise
    except (Exception, SystemExit) as exc:
        raise plugin_fault(parser.plugin or parser.name, f"{field} of parser {parser.name!r}", exc) from exc
    if not isinstance(value, kinds) or isinstance(value, bool):
        raise plugin_fault(parser.plugin or parser.name, f"{field} of parser {parser.name!r}",
                           f"it returned {value!r:.40}, not a {' or '.join(k.__name__ for k in kinds)}")
    return value


def _tracing() -> bool:
    return bool(os.environ.get("SEMSIM_TRACE_PLUGINS"))


def _trace(message: str) -> None:
    print(f"semsim trace: {message}", file=sys.stderr)


def reset_plugin_manager() -> None:
    """Forget loaded plugins (tests use this to re-read environment variables)."""
    global _pm, _owners
    _pm = None
    _owners = None
    _source_hashes.clear()


#: What each ``register_*`` hook registers: anything else is the plugin's fault, named at once
#: (a str registered as a reader would otherwise fail later, somewhere else, as a traceback).
REGISTERS: dict[str, type[Any]] = {"register_readers": Reader, "register_parsers": Parser, "register_writers": Writer,
                              "register_metrics": MetricSpec, "register_downloads": Download,
                              "register_paraphrase_judges": ParaphraseJudge, "register_word_encoders": WordEncoder,
                              "register_schemes": Scheme}


def _collect(hook: str) -> list[Any]:
    return [item for _, item in _collect_owned(hook)]


def _collect_owned(hook: str) -> list[tuple[str, Any]]:
    """What every plugin registers through ``hook``, each with the name of the plugin that
    registered it, type-checked as it is registered."""
    pm = get_plugin_manager()
    items: list[tuple[str, Any]] = []
    expected = REGISTERS[hook]
    for impl in getattr(pm.hook, hook).get_hookimpls():
        name = pm.get_name(impl.plugin) or ""

        def register(item: Any, _name: str = name) -> None:  # a record names its plugin; a scheme has no field for it
            if not isinstance(item, expected) or not isinstance(getattr(item, "name", None), str) or not item.name:
                raise plugin_fault(_name, hook, f"it registered {item!r:.80}, not a {expected.__name__} with a name")
            items.append((_name, _replace_plugin(item, _name) if getattr(item, "plugin", None) == "" else item))

        before = len(items)
        try:
            impl.function(register=register)
        except PluginError:
            raise
        except (Exception, SystemExit) as exc:
            raise plugin_fault(name, hook, exc) from exc
        if _tracing():
            _trace(f"{hook} in plugin {name!r} registered {[i.name for _, i in items[before:]]}")
    return items


def _replace_plugin(item: Any, name: str) -> Any:
    from dataclasses import replace
    return replace(item, plugin=name)


def readers() -> dict[str, Reader]:
    """Every registered reader by name (a later duplicate name is an error)."""
    return _unique(_collect("register_readers"), "reader")


def parsers() -> dict[str, Parser]:
    return _unique(_collect("register_parsers"), "parser")


def writers() -> dict[str, Writer]:
    """Every registered :class:`Writer` by name."""
    return _unique(_collect("register_writers"), "writer")


def add_plugin_commands(cli: Any) -> None:
    """Let plugins add their commands to the command line (``register_commands``), each in
    turn: one that fails, or adds what is not a click command, is named."""
    import click
    pm = get_plugin_manager()
    for impl in reversed(pm.hook.register_commands.get_hookimpls()):
        name = pm.get_name(impl.plugin) or ""
        before = dict(cli.commands)
        try:
            impl.function(cli=cli)
        except (Exception, SystemExit) as exc:
            raise plugin_fault(name, "register_commands", exc) from exc
        added = {k: v for k, v in cli.commands.items() if before.get(k) is not v}
        bad = next((k for k, v in added.items() if not isinstance(v, click.Command)), None)
        if bad is not None:
            for k in added:
                cli.commands.pop(k, None)
            raise plugin_fault(name, "register_commands", f"it added {added[bad]!r:.80} as command {bad!r}, not a "
                                                          "click command")


def metrics() -> dict[str, MetricSpec]:
    """Every registered :class:`~semsim.kernel.records.MetricSpec` by name."""
    return _unique(_collect("register_metrics"), "metric")


def downloads() -> dict[str, Download]:
    """Every registered :class:`~semsim.kernel.records.Download` by name."""
    return _unique(_collect("register_downloads"), "model")


def paraphrase_judges() -> dict[str, ParaphraseJudge]:
    """Every registered :class:`~semsim.kernel.records.ParaphraseJudge` by name."""
    return _unique(_collect("register_paraphrase_judges"), "paraphrase judge")


def paraphrase_judge() -> ParaphraseJudge:
    """The judge ``--tokens paraphrase`` uses: the one registered, or, where plugins register
    several, the one ``SEMSIM_PARAPHRASE_JUDGE`` names (never a silent pick: the judge
    decides the scores)."""
    return _chosen(paraphrase_judges(), "paraphrase judge", "SEMSIM_PARAPHRASE_JUDGE", "tokens='paraphrase'")


def word_encoders() -> dict[str, WordEncoder]:
    """Every registered :class:`~semsim.kernel.records.WordEncoder` by name."""
    return _unique(_collect("register_word_encoders"), "word encoder")


def word_encoder() -> WordEncoder:
    """The word vectors ``--tokens contextual`` uses: the one registered, or the one
    ``SEMSIM_WORD_ENCODER`` names where plugins register several."""
    return _chosen(word_encoders(), "word encoder", "SEMSIM_WORD_ENCODER", "tokens='contextual'")


def schemes() -> dict[str, Scheme]:
    """Every registered :class:`~semsim.kernel.scheme.Scheme` by name (one name registered twice
    alike is one scheme; differently, an error naming both plugins: :func:`_owned_schemes`)."""
    return {name: scheme for name, (_, scheme) in _owned_schemes().items()}


def _owned_schemes() -> dict[str, tuple[str, Scheme]]:
    """Each registered scheme's name -> the plugin that registered it first, and the scheme.
    Two different schemes under one name are refused, naming both plugins: graphs carry a
    scheme's name, and a signature names the plugin of that name, which would sign one
    plugin's graphs as the other's."""
    from ..kernel.scheme import scheme_digest
    out: dict[str, tuple[str, Scheme]] = {}
    for plugin, scheme in _collect_owned("register_schemes"):
        first, known = out.setdefault(scheme.name, (plugin, scheme))
        if known != scheme:
            raise PluginError(f"two plugins register different schemes named {scheme.name!r}: {first!r} "
                              f"({scheme.name}@{scheme_digest(known)}) and {plugin!r} "
                              f"({scheme.name}@{scheme_digest(scheme)}); load only one of them")
    return out


def scheme_plugin(name: str) -> str | None:
    """The plugin that made graphs of the scheme ``name``, as scores' signatures name it
    (``plugin:...``, :func:`semsim.kernel.scheme.scheme_fields`): the one that registered the scheme
    (``register_schemes``), as ``DISTRIBUTION-VERSION`` (``semsim-ucca-0.2.0``); an inline
    plugin (``SEMSIM_PLUGINS``) by its file or module name, the scheme's hash beside it
    telling its versions apart. None for a scheme no plugin registered."""
    owner = scheme_owners().get(name)
    return plugin_label(owner) if owner is not None else None


def scheme_owners() -> dict[str, str]:
    """Each registered scheme's name -> the name of the plugin that registered it."""
    global _owners
    if _owners is None:
        _owners = {name: plugin for name, (plugin, _) in _owned_schemes().items()}
    return _owners


attribute_schemes(scheme_plugin)  # every measure's signature names the plugin of its graphs' scheme


def plugin_label(name: str) -> str:
    """A plugin as signatures name it: ``DISTRIBUTION-VERSION`` for an installed one, the file
    (``drs_plugin.py``, not its directory: a signature is the same on every machine) or the
    module of an inline one."""
    if name in _distributions:
        return f"{_distributions[name]}-{_versions.get(name) or 'unknown'}"
    return Path(name).name if name.endswith(".py") else name


def _chosen(found: dict[str, Any], what: str, variable: str, needed_by: str) -> Any:
    """The only registered record of a kind, or the one an environment variable names;
    never a silent pick among several, since the record decides the scores."""
    wanted = os.environ.get(variable)
    if wanted:
        if wanted not in found:
            names = ", ".join(sorted(found)) or "none"
            raise PluginError(f"{variable}={wanted!r}: no such {what} (registered: {names})")
        return found[wanted]
    if len(found) == 1:
        return next(iter(found.values()))
    if not found:
        raise PluginError(f"{needed_by} needs a {what}, and no installed plugin registers one "
                          "(the UCCA plugin does: pip install plugins/ucca, or bash scripts/setup.sh)")
    raise PluginError(f"several {what}s are registered ({', '.join(sorted(found))}); name one in {variable}")


def _unique(items: list[Any], what: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        if item.name in out:
            raise PluginError(f"two plugins register a {what} named {item.name!r}: "
                              f"{out[item.name].plugin!r} and {item.plugin!r}")
        out[item.name] = item
    return out


def to_graph(obj: Any) -> Any:
    """Convert a native object through the first plugin that knows it."""
    from ..kernel.graph import Graph
    if type(obj) is Graph:  # a subclass, or an object whose __class__ says Graph, is no Graph of semsim's
        return obj
    try:
        result = get_plugin_manager().hook.to_graph(obj=obj)
    except SemsimError:
        raise
    except (Exception, SystemExit) as exc:
        raise plugin_fault(_converter(obj, failing=True), "to_graph", exc) from exc
    if result is not None and (why := _not_a_graph(result)):
        raise plugin_fault(_converter(obj), "to_graph", why)
    if result is None:
        raise PluginError(f"no installed plugin converts {type(obj).__module__}.{type(obj).__qualname__} "
                          "objects to semsim graphs (see `semsim plugins`)")
    # an MRP graph of a framework no plugin converts (one semsim parse wrote): the scheme a
    # plugin registered under the framework's name, not the plain one (issue #33.2)
    framework = result.meta.get("framework") if result.scheme.name == "plain" else None
    registered = schemes().get(framework) if isinstance(framework, str) else None
    return result.with_(scheme=registered) if registered is not None else result


def _not_a_graph(result: Any) -> str | None:
    """What is wrong with what a plugin's ``to_graph`` returned (None if nothing): a Graph
    itself, not a subclass or an object whose ``__class__`` says Graph (either may answer
    what a metric reads with anything), and one graph JSON would take (an object made
    without ``__init__`` has no fields: it failed later, blamed on the reader)."""
    from ..kernel.graph import Graph
    from ..kernel.graph_json import check_graph
    if type(result) is not Graph:
        return f"it returned a {type(result).__name__}, not a semsim Graph"
    try:
        check_graph(result)
    except Exception as exc:  # a Graph without its fields, or with fields of other types
        return f"it returned a Graph semsim cannot use ({type(exc).__name__}: {exc})"
    return None


def _converter(obj: Any, failing: bool = False) -> str:
    """Which plugin's ``to_graph`` answered for ``obj`` (or, ``failing``, raised on it): the
    hook's implementations again, in pluggy's order, on the failure path only."""
    pm = get_plugin_manager()
    for impl in reversed(pm.hook.to_graph.get_hookimpls()):
        try:
            if impl.function(obj=obj) is not None and not failing:
                return pm.get_name(impl.plugin) or "?"
        except (Exception, SystemExit):
            if failing:
                return pm.get_name(impl.plugin) or "?"
    return "?"


def plugin_version(name: str) -> str:
    """The installed version of a plugin's distribution (``unknown`` for inline plugins)."""
    get_plugin_manager()
    return _versions.get(name) or "unknown"


def plugin_code_version(name: str) -> str:
    """What identifies a plugin's code in the parse cache's keys: its version, and for an
    editable install or an inline plugin (one being developed, whose version does not change
    when its conversion code does) a hash of its Python sources (a package's files, or a
    module's one file), so an edit is never served parses its old code made."""
    version = plugin_version(name)
    module = _sources.get(name)
    if module is None or not getattr(module, "__file__", None):
        return version
    if name not in _source_hashes:
        import hashlib
        file = Path(module.__file__)
        root = file.parent
        h = hashlib.sha256()
        for f in sorted(root.rglob("*.py")) if file.name == "__init__.py" else [file]:
            h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
        _source_hashes[name] = h.hexdigest()[:12]
    return f"{version}+src.{_source_hashes[name]}"


def _editable(dist: Any) -> bool:
    """Whether a distribution is installed in editable (development) mode (PEP 610's direct_url.json)."""
    import json
    try:
        info = json.loads(dist.read_text("direct_url.json") or "{}") if dist is not None else {}
    except (ValueError, OSError):
        return False
    return bool(info.get("dir_info", {}).get("editable"))


def plugin_info() -> list[dict[str, Any]]:
    """Name, version and implemented hooks of every loaded plugin (for ``semsim plugins``)."""
    pm = get_plugin_manager()
    return [{"name": name, "version": _versions.get(name),
             "hooks": sorted(h.name for h in pm.get_hookcallers(plugin) or [])}
            for name, plugin in sorted(pm.list_name_plugin(), key=lambda p: p[0]) if plugin is not None]
