"""The plugin author's kit (issue #58.6-7): its extra and the message naming it, `semsim plugins
new` (a plugin that installs, registers and passes the kit as written), `semsim plugins check`,
the plugin API version semsim checks, and the kit's pytest fixtures."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import run_cli

import semsim.app.plugins as plugins
from semsim.kernel.errors import PluginError
from semsim.kernel.hookspecs import PLUGIN_API

ROOT = Path(__file__).resolve().parents[1]
TOY = str(Path(__file__).with_name("toy_plugin.py"))


@pytest.mark.parametrize("missing", ["hypothesis", "pytest"])
def test_the_kit_names_its_extra_when_a_library_is_missing(monkeypatch, missing):
    monkeypatch.delitem(sys.modules, "semsim.app.testing", raising=False)
    monkeypatch.setitem(sys.modules, missing, None)  # import hypothesis: ModuleNotFoundError
    with pytest.raises(ModuleNotFoundError) as raised:
        importlib.import_module("semsim.app.testing")
    message = str(raised.value)
    assert "\n" not in message and 'pip install "semsim[kit]"' in message and repr(missing) in message


def test_the_kit_extra_is_pytest_and_hypothesis_alone():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert sorted(r.split(">")[0] for r in extras["kit"]) == ["hypothesis", "pytest"]
    assert "semsim[kit]" in (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")


def test_plugins_new_writes_a_new_directory_and_refuses_an_existing_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run_cli("plugins", "new", "demo")
    assert r.exit_code == 0, r.output
    files = sorted(p.relative_to(tmp_path / "demo").as_posix() for p in (tmp_path / "demo").rglob("*") if p.is_file())
    assert files == ["README.md", "pyproject.toml", "semsim_demo/__init__.py", "semsim_demo/examples/tiny.demo",
                     "semsim_demo/graphs.py", "semsim_demo/metric.py", "semsim_demo/parser.py", "tests/conftest.py",
                     "tests/test_conformance.py", "tests/test_demo.py"]
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((tmp_path / "demo" / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["entry-points"]["semsim"] == {"demo": "semsim_demo"}
    assert f'SEMSIM_PLUGIN_API = "{PLUGIN_API}"' in (tmp_path / "demo" / "semsim_demo" / "__init__.py").read_text()
    before = (tmp_path / "demo" / "README.md").read_text()
    (tmp_path / "demo" / "README.md").write_text("mine")
    r = run_cli("plugins", "new", "demo")
    assert r.exit_code == 1 and r.stderr.strip() == (
        "Error: demo: already exists; semsim plugins new writes a new directory (choose another with -o)")
    assert (tmp_path / "demo" / "README.md").read_text() == "mine" and before != "mine"
    assert [p.name for p in tmp_path.iterdir()] == ["demo"]  # nothing left behind
    assert run_cli("plugins", "new", "Two words").stderr.startswith("Error: plugin name 'Two words': lower-case")
    assert run_cli("plugins", "new", "x", "-o", tmp_path / "deep" / "x").exit_code == 0


def test_plugins_new_refuses_the_name_of_a_loaded_plugin(toy_env):
    r = run_cli("plugins", "new", "toy")
    assert r.exit_code == 1 and "named 'toy' is loaded already" in r.stderr


def test_plugins_lists_as_before_and_the_subcommands_are_listed(toy_env):
    r = run_cli("plugins")
    assert r.exit_code == 0 and "reader toy (.toy) from " in r.stdout
    assert run_cli("plugins", "--format", "json").stdout.startswith("{")
    help_text = run_cli("plugins", "--help").stdout
    assert "  new " in help_text and "  check " in help_text


def _write(path: Path, api: object) -> str:
    path.write_text(f"from semsim.kernel.hookspecs import hookimpl\nSEMSIM_PLUGIN_API = {api!r}\n\n"
                    "@hookimpl\ndef register_schemes(register):\n    pass\n", encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("api", ["1.0", "1.7", "1", 1])
def test_a_plugin_for_this_major_plugin_api_is_loaded(isolated_plugins, monkeypatch, tmp_path, api):
    monkeypatch.setenv("SEMSIM_PLUGINS", _write(tmp_path / "p.py", api))
    plugins.reset_plugin_manager()
    assert str(tmp_path / "p.py") in [p["name"] for p in plugins.plugin_info()]


def test_a_plugin_for_another_major_plugin_api_is_refused_in_one_line(isolated_plugins, monkeypatch, tmp_path,
                                                                      capsys):
    path = _write(tmp_path / "p.py", "2.0")
    monkeypatch.setenv("SEMSIM_PLUGINS", path)
    plugins.reset_plugin_manager()
    with pytest.raises(PluginError) as raised:
        plugins.get_plugin_manager()
    assert str(raised.value) == (f"plugin {path!r} is written for semsim's plugin API 2.0, and semsim 0.1.0 has "
                                 f"plugin API {PLUGIN_API}: not loaded (install a version of the plugin written "
                                 "for this one)")
    monkeypatch.setenv("SEMSIM_PLUGINS", _write(tmp_path / "q.py", "one"))
    plugins.reset_plugin_manager()
    with pytest.raises(PluginError, match=r"declares SEMSIM_PLUGIN_API = 'one', not a version such as"):
        plugins.get_plugin_manager()
    # an installed one is named on stderr and left out, as a plugin that fails at import is
    module = importlib.import_module("semsim.kernel.formats.mrp")

    class Old:
        name, dist, value = "old", None, "old_plugin"

        def load(self):
            return type("OldPlugin", (), {"SEMSIM_PLUGIN_API": "0.9"})

    monkeypatch.delenv("SEMSIM_PLUGINS")
    monkeypatch.delenv("SEMSIM_LOAD_PLUGINS")
    monkeypatch.setattr(plugins, "entry_points", lambda group: [Old()])
    plugins.reset_plugin_manager()
    assert [p["name"] for p in plugins.plugin_info()] == ["mrp"] and module is not None
    assert capsys.readouterr().err == (f"semsim: plugin 'old' is written for semsim's plugin API 0.9, and semsim "
                                       f"0.1.0 has plugin API {PLUGIN_API}: not loaded (install a version of the "
                                       "plugin written for this one)\n")


@pytest.mark.slow
def test_the_determinism_message_names_the_batch_sizes(monkeypatch, tmp_path):
    """A parser whose graphs depend on the batch: the kit's message says which batches differ,
    not that a graph was "read back" (issue #58.8)."""
    from semsim.app.testing import conformance_tests
    plugin = tmp_path / "batchy.py"
    plugin.write_text(
        "from semsim.kernel.hookspecs import hookimpl\nfrom semsim.kernel.records import Parser\n"
        "from semsim.kernel.graph import Unit, build_graph\n\n"
        "def parse(texts, model):\n"
        "    return [build_graph(t.split(), [Unit('0'), Unit('1', anchors=(0,))], [(0, 1, 'L' * len(texts))])"
        " for t in texts]\n\n"
        "@hookimpl\ndef register_parsers(register):\n"
        "    register(Parser('batchy', 'plain', parse, model_identity=lambda m: 'rules-1'))\n", encoding="utf-8")
    example = tmp_path / "x.mrp"
    from support import MRP_SEEDS
    example.write_bytes(MRP_SEEDS[0])
    kit = conformance_tests(str(plugin), [example], ["a b", "c d"], inline=True)
    monkeypatch.setenv("SEMSIM_LOAD_PLUGINS", "")
    monkeypatch.setenv("SEMSIM_PLUGINS", str(plugin))
    plugins.reset_plugin_manager()
    try:
        with pytest.raises(AssertionError) as raised:
            kit().test_parser_is_deterministic()
    finally:
        plugins.reset_plugin_manager()
    message = str(raised.value)
    assert message.startswith("parsed one sentence a batch (against 32 a batch): graph 1 (unnamed) differs:")
    assert "edges: [[0, 1, ['LL'], False]], one a batch [[0, 1, ['L'], False]]" in message
    assert "read back" not in message


def test_plugins_check_refuses_what_it_cannot_check(toy_env):
    r = run_cli("plugins", "check", "nothing")
    assert r.exit_code == 1 and r.stderr.startswith("Error: plugin 'nothing' is not loaded (loaded: ")
    r = run_cli("plugins", "check", TOY)
    assert r.exit_code == 1 and r.stderr.strip() == (
        f"Error: plugin {TOY!r} declares no SEMSIM_CONFORMANCE examples: name files its reader reads "
        f"(semsim plugins check {TOY} FILE...)")


def _env(site: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEMSIM_")}
    env.update(PYTHONPATH=os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])),
               PYTHONDONTWRITEBYTECODE="1", SEMSIM_CACHE_DIR=str(site.parent / "cache"))
    return env


@pytest.mark.slow
def test_a_new_plugin_installs_registers_and_passes_the_kit(tmp_path):
    """The path docs/plugins.md shows: `semsim plugins new demo`, `pip install demo` (here into a
    directory of its own, as tests/test_plugin_tutorial.py installs the tutorial's plugin), then
    `semsim plugins check demo` and the plugin's own tests (the kit, the fixtures) green."""
    semsim = [sys.executable, "-m", "semsim.app.cli"]
    site = tmp_path / "site"
    env = _env(site)
    run = {"cwd": tmp_path, "env": env, "stdout": subprocess.PIPE, "stderr": subprocess.STDOUT, "text": True,
           "timeout": 600}
    r = subprocess.run([*semsim, "plugins", "new", "demo"], **run)
    assert r.returncode == 0 and r.stdout == "wrote 10 files to demo: pip install -e demo, then semsim plugins " \
                                             "check demo\n", r.stdout
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                    "--target", str(site), str(tmp_path / "demo")], check=True, timeout=600)
    r = subprocess.run([*semsim, "plugins"], **run)
    assert "demo 0.1.0: hooks register_metrics, register_parsers, register_readers, register_schemes, " \
           "register_writers" in r.stdout, r.stdout
    r = subprocess.run([*semsim, "plugins", "check", "demo"], **run)
    assert r.returncode == 0 and "9 passed" in r.stdout and "skipped" not in r.stdout, r.stdout
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                       **{**run, "cwd": tmp_path / "demo"})
    assert r.returncode == 0 and "11 passed" in r.stdout and "skipped" not in r.stdout, r.stdout


@pytest.mark.slow
def test_plugins_check_fails_a_plugin_the_kit_fails(tmp_path):
    """The template with its writer broken (a label lost): `semsim plugins check` runs the kit
    and exits 1, naming what differs."""
    env = _env(tmp_path / "site")
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path / "demo"), env["PYTHONPATH"]])
    run = {"cwd": tmp_path, "env": env, "stdout": subprocess.PIPE, "stderr": subprocess.STDOUT, "text": True,
           "timeout": 600}
    semsim = [sys.executable, "-m", "semsim.app.cli"]
    assert subprocess.run([*semsim, "plugins", "new", "demo"], **run).returncode == 0
    env["SEMSIM_PLUGINS"] = "semsim_demo"  # inline, from its directory: no install needed
    graphs = tmp_path / "demo" / "semsim_demo" / "graphs.py"
    graphs.write_text(graphs.read_text().replace('f"{t.text}/{label[i]}"', 'f"{t.text}/WORD"'))
    r = subprocess.run([*semsim, "plugins", "check", "semsim_demo", "--fast"], **run)
    assert r.returncode == 1, r.stdout
    assert "through writer 'demo': graph 1 (1) differs" in r.stdout
    assert r.stdout.rstrip().endswith("Error: plugin 'semsim_demo' fails semsim's conformance kit (pytest exit "
                                      "status 1)")


@pytest.mark.slow
def test_the_kit_fixtures_as_a_pytest_plugin(tmp_path):
    """`pytest_plugins = ["semsim.app.testing"]`: semsim_plugins loads an inline plugin for one
    test, semsim_run runs a command with the test's own parse cache."""
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["semsim.app.testing"]\n')
    (tmp_path / "test_it.py").write_text(f"""
import os

def test_plugins_and_run(semsim_plugins, semsim_run, semsim_cache, tmp_path):
    assert {TOY!r} in semsim_plugins({TOY!r}, only=True)
    assert os.environ["SEMSIM_CACHE_DIR"] == str(semsim_cache)
    text = tmp_path / "t.txt"
    text.write_text("a b .\\n")
    r = semsim_run("score", "--source", text, "--hyp", text, "--parser", "toy-parser", "-b", "--bootstrap", "0", "-q")
    assert r.exit_code == 0 and r.stdout == "1.000000\\n", r.output
    assert list(semsim_cache.iterdir())  # the parse landed in the test's own cache
    assert semsim_run("usim", tmp_path / "none.mrp", tmp_path / "none.mrp").exit_code == 1

def test_the_plugin_is_gone_after_the_test(semsim_run):
    assert "toy" not in semsim_run("plugins").stdout
""")
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    env = _env(tmp_path / "site")
    env["SEMSIM_LOAD_PLUGINS"] = ""
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_it.py"], cwd=tmp_path,
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    assert r.returncode == 0 and "2 passed" in r.stdout, r.stdout


def test_parse_with_a_writer_parses_into_the_writer_s_representation(monkeypatch, tmp_path):
    """`semsim parse --format clf` with no --representation: the DRS writer's representation,
    not UCCA's (which is not installed here), and the others refuse as before (issue #58.8)."""
    monkeypatch.setenv("SEMSIM_LOAD_PLUGINS", "")
    monkeypatch.setenv("SEMSIM_PLUGINS", ",".join([TOY, str(Path(__file__).with_name("drs_plugin.py"))]))
    monkeypatch.setenv("SEMSIM_CACHE_DIR", str(tmp_path / "cache"))
    plugins.reset_plugin_manager()
    text = tmp_path / "t.txt"
    text.write_text("Tom sleeps .\n", encoding="utf-8")
    try:
        r = run_cli("parse", "--format", "clf", "-o", tmp_path / "t.clf", "-q", text)
        assert r.exit_code == 0, r.output
        assert run_cli("usim", tmp_path / "t.clf", tmp_path / "t.clf", "-b").stdout == "1.000000\n"
        r = run_cli("parse", "--format", "clf", "--representation", "toy", "-o", tmp_path / "u.clf", "-q", text)
        assert r.exit_code == 1 and r.stderr.strip() == (
            "Error: writer 'clf' writes drs graphs; parser 'toy-parser' parses into toy")
        r = run_cli("parse", "--format", "clf", "--parser", "toy-parser", "-o", tmp_path / "u.clf", "-q", text)
        assert r.exit_code == 1 and "writer 'clf' writes drs graphs" in r.stderr
    finally:
        plugins.reset_plugin_manager()


#: a reader of "HEAD word word ..." lines (HEAD: the word the root points at, 1-based) that forgets to
#: check HEAD's bounds (a crash), and one that leaves the check to Graph (an error naming no line)
POINTER_PLUGIN = '''
from semsim.kernel.errors import InputError
from semsim.kernel.files import read_text
from semsim.kernel.graph import Graph, Token, Unit, Edge
from semsim.kernel.hookspecs import hookimpl
from semsim.kernel.records import Reader

class Native:
    def __init__(self, head, words):
        self.head, self.words = head, words

def read_crash(path):
    for n, line in enumerate(read_text(path).splitlines(), 1):
        head, *words = line.split()
        if not head.isdigit():
            yield InputError("expected HEAD first", path, n)
            continue
        words[int(head) - 1]  # no bounds check: IndexError
        units = (Unit("0"), Unit("1", anchors=(int(head) - 1,)))
        yield Graph(tuple(Token(w) for w in words), units, (Edge(0, 1, "L"),))

def read_native(path):
    for n, line in enumerate(read_text(path).splitlines(), 1):
        head, *words = line.split()
        yield Native(int(head), words) if head.isdigit() else InputError("expected HEAD first", path, n)

@hookimpl
def register_readers(register):
    register(Reader("crash", (".crash",), read_crash))
    register(Reader("native", (".native",), read_native))

@hookimpl
def to_graph(obj):
    if isinstance(obj, Native):  # Graph refuses an anchor out of range: a GraphError, no line
        return Graph(tuple(Token(w) for w in obj.words), (Unit("0"), Unit("1", anchors=(obj.head - 1,))),
                     (Edge(0, 1, "L"),))
'''


@pytest.fixture
def pointer_plugin(monkeypatch, tmp_path):
    path = tmp_path / "pointer_plugin.py"
    path.write_text(POINTER_PLUGIN, encoding="utf-8")
    monkeypatch.setenv("SEMSIM_LOAD_PLUGINS", "")
    monkeypatch.setenv("SEMSIM_PLUGINS", str(path))
    plugins.reset_plugin_manager()
    yield tmp_path
    plugins.reset_plugin_manager()


@pytest.mark.slow
def test_the_reader_check_fails_a_crash_and_an_error_naming_no_line(pointer_plugin):
    """A reader that crashes was taken for one that refused (semsim names the plugin at fault, a
    SemsimError), and an error naming no line passed too (issue #58.8): both fail now."""
    from semsim.app.testing import check_reader
    assert len(check_reader(pointer_plugin / "ok.crash", b"1 a b\n2 a b\n")) == 2
    with pytest.raises(AssertionError, match=r"failed in reader 'crash'.*IndexError: list index out of range"):
        check_reader(pointer_plugin / "x.crash", b"1 a b\n3 a b\n")
    with pytest.raises(AssertionError, match=r"the reader yielded an error naming no line: .*x.native: graph 2: "):
        check_reader(pointer_plugin / "x.native", b"1 a b\n3 a b\n")
    r = run_cli("usim", pointer_plugin / "x.native", pointer_plugin / "x.native")
    assert r.exit_code == 1 and "x.native: graph 2: " in r.stderr  # which graph, where the reader gave no line


@pytest.mark.slow
def test_check_numbers_finds_a_missing_bounds_check_whatever_the_seed(pointer_plugin):
    """Every number of the example moved just out of place: the missing check is found, and the
    failure names the line the edit changed (the kit's test_reader_checks_its_numbers)."""
    from semsim.app.testing import bounded, check_numbers
    example = pointer_plugin / "a.crash"
    example.write_bytes(b"1 a b\n2 a b\n")
    with pytest.raises(AssertionError, match=r"^a.crash:1: 1 changed to 3: plugin .* IndexError"):
        bounded(check_numbers, example, pointer_plugin / "edited.crash")
    example.write_bytes(b"1 a b\n")
    good = pointer_plugin / "good.native"
    good.write_bytes(b"1 a b\n")
    with pytest.raises(AssertionError, match=r"^good.native:1: 1 changed to 3: the reader yielded an error naming"):
        bounded(check_numbers, good, pointer_plugin / "edited.native")
