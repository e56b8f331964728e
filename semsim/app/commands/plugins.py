"""``semsim plugins``: what is loaded, and what each plugin registered; ``semsim plugins new``
writes a plugin to start from, ``semsim plugins check`` runs the conformance kit on one."""

from __future__ import annotations

from pathlib import Path

import click

from ...kernel.scheme import Scheme
from ...kernel.signature import Signature
from ..cli import format_option, quiet_option
from ..plugins import scheme_plugin
from ..report import Report, write


@click.group(invoke_without_command=True)
@format_option(["text", "json"])
@quiet_option
@click.pass_context
def plugins(ctx: click.Context, fmt: str, quiet: bool) -> None:
    """List loaded plugins, their hooks, readers, writers, parsers, metrics, paraphrase judges and schemes.

    `semsim plugins new NAME` writes a plugin to start from; `semsim plugins check NAME` runs
    the conformance kit on an installed one."""
    if ctx.invoked_subcommand is not None:
        return
    from ...kernel.scheme import scheme_fields
    from ..plugins import metrics, paraphrase_judges, parsers, plugin_info, readers, scheme_owners, schemes, writers
    info = plugin_info()
    owners = scheme_owners()
    signed = {n: Signature.of(None, scheme_fields(s, scheme_plugin)).format() for n, s in schemes().items()}
    rs, ws, ps, ms, js = readers(), writers(), parsers(), metrics(), paraphrase_judges()
    document = {"plugins": info,
                "readers": {n: {"plugin": r.plugin, "suffixes": list(r.suffixes), "description": r.description}
                            for n, r in rs.items()},
                "writers": {n: {"plugin": w.plugin, "representation": w.representation, "suffix": w.suffix,
                                "one_file_per_graph": w.write is not None,
                                "many_graphs_per_file": w.write_all is not None, "description": w.description}
                            for n, w in ws.items()},
                "parsers": {n: {"plugin": p.plugin, "representation": p.representation, "default": p.default,
                                "description": p.description} for n, p in ps.items()},
                "metrics": {n: {"plugin": m.plugin, "scheme": m.representation, "description": m.description}
                            for n, m in ms.items()},
                "paraphrase_judges": {n: {"plugin": j.plugin, "language": j.language, "description": j.description}
                                      for n, j in js.items()},
                "schemes": {n: {"plugin": owners[n], "signature": signed[n],
                                **_scheme_document(s)} for n, s in schemes().items()}}
    lines = [*([] if info else ["no plugins loaded (install one, e.g. `pip install -e plugins/ucca`)"]),
             *(f"{p['name']} {p['version'] or ''}: hooks {', '.join(p['hooks'])}" for p in info),
             *(f"  reader {n} ({', '.join(r.suffixes)}) from {r.plugin}: {r.description}"
               for n, r in sorted(rs.items())),
             *(f"  writer {n} [{w.representation}] ({w.suffix}) from {w.plugin}: {w.description}  "
               f"(semsim parse --format {n}{' -o FILE' if w.write is None else ''})" for n, w in sorted(ws.items())),
             *(f"  parser {n} [{p.representation}{', default' if p.default else ''}] from {p.plugin}: {p.description}"
               for n, p in sorted(ps.items())),
             *(f"  metric {n} [{m.representation}] from {m.plugin}: {m.description}" for n, m in sorted(ms.items())),
             *(f"  paraphrase judge {n} [{j.language}] from {j.plugin}: {j.description}"
               for n, j in sorted(js.items())),
             *(f"  scheme {n} from {owners[n]}: {_scheme_summary(s)}  (signed "
               f"{signed[n]})" for n, s in sorted(schemes().items()))]
    write(Report(document=lambda _: document, parts=lambda _, __: lines, formats=("text", "json")), fmt)


def _scheme_document(s: Scheme) -> dict[str, object]:
    """What a scheme declares, as JSON (``semsim plugins --format json``)."""
    return {"equivalences": sorted(sorted(g) for g in s.equivalences), "ignored_labels": sorted(s.ignored_labels),
            "ignored_kinds": sorted(s.ignored_kinds), "label_groups": {k: list(v) for k, v in s.label_groups.items()},
            "label_weights": dict(s.label_weights)}


def _scheme_summary(s: Scheme) -> str:
    """What a scheme declares that changes numbers, in a few words."""
    parts = [f"{len(s.equivalences)} equivalence(s)" if s.equivalences else "",
             f"ignores labels {', '.join(sorted(s.ignored_labels))}" if s.ignored_labels else "",
             f"ignores kinds {', '.join(sorted(s.ignored_kinds))}" if s.ignored_kinds else "",
             f"{len(s.label_groups)} label group(s)" if s.label_groups else "",
             f"{len(s.label_weights)} label weight(s)" if s.label_weights else ""]
    return "; ".join(p for p in parts if p) or "declares nothing"


@plugins.command()
@click.argument("name")
@click.option("-o", "--output", type=click.Path(file_okay=False, path_type=Path),
              help="The directory to write (a new one). Default: NAME, in the current directory.")
@quiet_option
def new(name: str, output: Path | None, quiet: bool) -> None:
    """Write a new plugin NAME: a package with a reader, a writer, a scheme, a parser, a metric,
    an entry point and tests, which installs (pip install -e NAME), registers and passes the
    conformance kit (semsim plugins check NAME) as written."""
    from ..plugin_template import write_plugin
    from ..plugins import plugin_info, schemes
    if name in {p["name"] for p in plugin_info()} | set(schemes()):
        raise click.ClickException(f"a plugin or representation named {name!r} is loaded already: choose another name")
    target = output if output is not None else Path(name)
    written = write_plugin(name, target)
    click.echo(f"wrote {len(written)} files to {target}: pip install -e {target}, then semsim plugins check {name}")


@plugins.command()
@click.argument("name")
@click.argument("examples", nargs=-1, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--sentences", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Tokenized sentences for the plugin's parser, one a line (default: the plugin's own).")
@click.option("--parser", help="Which of the plugin's parsers (default: its only one, or its default).")
@click.option("--fast", is_flag=True, help="Leave out the slow tests (the reader's fuzzing, worker processes).")
@quiet_option
def check(name: str, examples: tuple[Path, ...], sentences: Path | None, parser: str | None, fast: bool,
          quiet: bool) -> None:
    """Run semsim's conformance kit (pytest) on plugin NAME, installed or named in SEMSIM_PLUGINS.

    EXAMPLES are files its reader reads; without them, and without --sentences, the kit takes
    what the plugin declares in SEMSIM_CONFORMANCE (semsim plugins new writes one). Exit
    status 0: every test passed."""
    import subprocess
    import sys
    import tempfile

    from ...kernel.files import read_text
    from ..plugins import get_plugin_manager, plugin_info
    try:
        from .. import testing  # noqa: F401  (pytest and hypothesis: the kit extra)
    except ModuleNotFoundError as exc:
        raise click.ClickException(str(exc)) from None
    module = get_plugin_manager().get_plugin(name)
    if module is None:
        loaded = ", ".join(p["name"] for p in plugin_info())
        raise click.ClickException(f"plugin {name!r} is not loaded (loaded: {loaded}): install it (pip install -e "
                                   "DIR), or name it in SEMSIM_PLUGINS")
    declared = getattr(module, "SEMSIM_CONFORMANCE", None) or {}
    if not isinstance(declared, dict) or set(declared) - {"examples", "sentences", "parser"}:
        raise click.ClickException(f"plugin {name!r}: SEMSIM_CONFORMANCE is not a dict of examples, sentences "
                                   "and parser")
    kit = {"examples": [str(Path(p).resolve()) for p in examples or declared.get("examples", ())],
           "sentences": read_text(sentences, "sentence files").splitlines() if sentences is not None else
           list(declared.get("sentences", ())) if not examples else [],
           "parser": parser or declared.get("parser")}
    if not kit["examples"]:
        raise click.ClickException(f"plugin {name!r} declares no SEMSIM_CONFORMANCE examples: name files its "
                                   f"reader reads (semsim plugins check {name} FILE...)")
    with tempfile.TemporaryDirectory(prefix="semsim-check-") as tmp:
        # the kit's test class in a module of its own, run by pytest with no project's configuration
        (Path(tmp) / "test_conformance.py").write_text(
            "from semsim.app.testing import conformance_tests\n\n"
            f"TestConformance = conformance_tests({name!r}, **{kit!r})\n", encoding="utf-8")
        (Path(tmp) / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: the kit's slow tests\n", encoding="utf-8")
        argv = [sys.executable, "-m", "pytest", "-qq" if quiet else "-q", "-p", "no:cacheprovider",
                "-c", str(Path(tmp) / "pytest.ini"),
                "--rootdir", tmp, *(["-m", "not slow"] if fast else []), str(Path(tmp) / "test_conformance.py")]
        code = subprocess.run(argv, cwd=tmp).returncode
    if code != 0:
        raise click.ClickException(f"plugin {name!r} fails semsim's conformance kit (pytest exit status {code})")
