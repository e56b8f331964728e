"""``semsim plugins new NAME``: a plugin package that installs, registers and passes the
conformance kit as written, for its author to change rather than to start from nothing.

The package has every part a representation's plugin has, each small enough to read at once
and each working on its tiny example: a reader and a writer of a one-line-a-sentence format
(``word/LABEL``), the scheme its graphs declare, a rule-based parser (no model to download),
a metric, the hooks with the plugin API version they are written for, and tests (the kit,
and the kit's pytest fixtures). The files are written into a temporary directory beside the
target and renamed into place, so a failure leaves nothing half written, and an existing
directory is never touched.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from ..kernel.errors import SemsimError
from ..kernel.hookspecs import PLUGIN_API
from ..kernel.version import __version__

#: A plugin's name: an entry point's, a representation's and (after ``semsim_``) a package's.
NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")

FILES: dict[str, str] = {
    "pyproject.toml": '''\
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "{distribution}"
version = "0.1.0"
description = "The {name} representation for semsim"
requires-python = ">=3.10"
dependencies = ["semsim>={semsim_version}"]

[project.optional-dependencies]
# the conformance kit (pytest and hypothesis): pip install -e ".[test]", then pytest tests/
test = ["semsim[kit]>={semsim_version}"]

# semsim finds the plugin through this entry point: its name is the plugin's
[project.entry-points.semsim]
{name} = "{package}"

[tool.setuptools]
packages = ["{package}"]

[tool.setuptools.package-data]
{package} = ["examples/*"]

[tool.pytest.ini_options]
markers = ["slow: the kit's fuzzing of the reader and its worker processes; -m 'not slow' leaves them out"]
''',
    "README.md": '''\
# {distribution}

A semsim plugin for the representation `{name}`, as `semsim plugins new {name}` wrote it:

    pip install -e {name}          # registers it: semsim plugins lists it
    semsim plugins check {name}    # semsim's conformance kit on it
    pip install -e "{name}[test]" && pytest {name}/tests

| file | what to change |
|---|---|
| `{package}/graphs.py` | the file format (reader, writer) and the scheme: what your graphs are |
| `{package}/parser.py` | text to graphs: your parser (here, four rules) |
| `{package}/metric.py` | a measure of your representation's own, reported beside USim |
| `{package}/__init__.py` | the hooks: what the plugin registers, and the kit's examples |
| `{package}/examples/` | files the kit reads: put your own there |

semsim's docs/plugins.md is the guide.
''',
    "{package}/__init__.py": '''\
"""{distribution}: the {name} representation for semsim (written by `semsim plugins new {name}`)."""

from pathlib import Path

from semsim.kernel.hookspecs import hookimpl
from semsim.kernel.records import MetricSpec, Parser, Reader, Writer

from . import graphs, metric, parser

#: The plugin API this plugin is written for: semsim refuses to load it under another major version.
SEMSIM_PLUGIN_API = "{api}"

#: What `semsim plugins check {name}` and tests/test_conformance.py give the conformance kit:
#: files the reader reads, and sentences for the parser.
SEMSIM_CONFORMANCE = {{
    "examples": [Path(__file__).parent / "examples" / "tiny.{name}"],
    "sentences": ["He gave 2 apples to John .", "Dogs bark ."],
}}


@hookimpl
def register_readers(register):
    register(Reader("{name}", (".{name}",), graphs.read, graphs.sniff, "{name} files: a sentence a line, word/LABEL"))


@hookimpl
def register_writers(register):
    register(Writer("{name}", "{name}", ".{name}", description="{name} files, every graph in one",
                    write_all=graphs.write))


@hookimpl
def register_parsers(register):
    register(Parser("{name}-rules", "{name}", parser.parse, "four rules: punctuation, numbers, capitals, words",
                    model_identity=parser.model_identity, default=True))


@hookimpl
def register_metrics(register):
    register(MetricSpec("{name}-labels", "{name}", metric.score, "F1 of the two graphs' labelled words"))


@hookimpl
def register_schemes(register):
    register(graphs.SCHEME)
''',
    "{package}/graphs.py": '''\
"""The {name} format, its graphs and their scheme.

A file holds one sentence a line, each token written WORD/LABEL and separated by spaces; a
line "# id = ID" names the next sentence. Its graph: a root unit, and a unit for each word,
anchored to it, under the root by an edge labelled with the word's label.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from semsim.kernel.adapt import is_punct
from semsim.kernel.errors import InputError
from semsim.kernel.files import read_text, shown
from semsim.kernel.graph import Edge, Graph, Token, Unit
from semsim.kernel.scheme import Scheme

SCHEME = Scheme(
    "{name}",
    equivalences=(frozenset({{"CAP", "WORD"}}),),  # weak matching takes a capital for a word
    ignored_labels=frozenset({{"PUNCT"}}),
    label_groups={{"content": ("CAP", "NUM", "WORD")}},
    label_names={{"CAP": "capitalised word", "NUM": "number", "PUNCT": "punctuation", "WORD": "word"}},
)


def build(id: str, tokens: Sequence[tuple[str, str]]) -> Graph:
    """The graph of (word, label) pairs."""
    units = (Unit("0"), *(Unit(str(i), kind="word", anchors=(i - 1,)) for i in range(1, len(tokens) + 1)))
    edges = tuple(Edge(0, i, label) for i, (_, label) in enumerate(tokens, 1))
    return Graph(tuple(Token(w, punct=is_punct(w)) for w, _ in tokens), units, edges, scheme=SCHEME, id=id)


def sniff(path: Path, head: bytes) -> bool:
    """The format's sign: its first sentence's tokens all have a /LABEL."""
    for line in head.decode("utf-8", "replace").splitlines():
        if line.strip() and not line.startswith("#"):
            return all(t.rpartition("/")[0] and t.rpartition("/")[2] for t in line.split())
    return False


def read(path: Path) -> Iterator[Graph | InputError]:
    """Every sentence of a file, in order; a bad one yields an InputError naming its line."""
    id, found = "", False
    for n, line in enumerate(read_text(path, "{name} files").splitlines(), 1):
        if line.startswith("# id ="):
            id = line.split("=", 1)[1].strip()
        elif line.strip() and not line.startswith("#"):
            found = True
            pairs = [t.rpartition("/") for t in line.split()]
            bad = next((k for k, (w, _, label) in enumerate(pairs, 1) if not w or not label), None)
            yield build(id, [(w, label) for w, _, label in pairs]) if bad is None else \\
                InputError(f"token {{bad}}: expected WORD/LABEL", shown(path), n)
            id = ""
    if not found:
        raise InputError("no sentences in file", shown(path))


def write(graphs: Sequence[Graph], path: Path) -> None:
    """Graphs of this plugin to one file: each word with the label of the edge into its unit."""
    out = []
    for g in graphs:
        label = {{g.units[e.child].anchors[0]: e.labels[0] for e in g.edges if g.units[e.child].anchors}}
        out += [f"# id = {{g.id}}"] if g.id else []
        out.append(" ".join(f"{{t.text}}/{{label[i]}}" for i, t in enumerate(g.tokens)))
    path.write_text("\\n".join(out) + "\\n", encoding="utf-8")
''',
    "{package}/parser.py": '''\
"""Text to graphs by four rules: no model to download, the same graph for the same text."""

from __future__ import annotations

from collections.abc import Sequence

from semsim.kernel.adapt import is_punct
from semsim.kernel.errors import SemsimError
from semsim.kernel.graph import Graph

from . import graphs

#: What decides the parses, in the parse cache's key: change it when the rules change.
RULES = "rules-1"


def label(word: str) -> str:
    if is_punct(word):
        return "PUNCT"
    if any(c.isdigit() for c in word):
        return "NUM"
    return "CAP" if word[:1].isupper() else "WORD"


def parse(texts: Sequence[str], model: str | None) -> list[Graph]:
    """One graph per text, in order; a text's tokens are its words, split on spaces."""
    model_identity(model)
    return [graphs.build("", [(w, label(w)) for w in text.split(" ")]) for text in texts]


def model_identity(model: str | None) -> str:
    if model is not None:
        raise SemsimError(f"the {name}-rules parser has no model: leave out --model {{model!r}}")
    return RULES
''',
    "{package}/metric.py": '''\
"""A measure of this representation's own: F1 of the two graphs' (word, label) pairs."""

from __future__ import annotations

from collections import Counter

from semsim.kernel.graph import Graph
from semsim.kernel.signature import signature
from semsim.kernel.stats import Counts, Score


def labelled_words(g: Graph) -> Counter[tuple[str, str]]:
    return Counter((g.tokens[g.units[e.child].anchors[0]].text.lower(), label)
                   for e in g.edges if g.units[e.child].anchors for label in e.labels)


def score(g1: Graph, g2: Graph) -> Score:
    """Matched and total pairs on each side; the signature names the measure and what it matches,
    then (semsim.kernel.signature.signature adds them) the graphs' scheme, plugin and semsim's version."""
    a, b = labelled_words(g1), labelled_words(g2)
    common = sum((a & b).values())
    signed = signature("{name}-labels", {{"match": "word+label"}}, g1.scheme)
    return Score({{"labels": Counts(common, sum(a.values()), common, sum(b.values()))}}, signed)
''',
    "{package}/examples/tiny.{name}": '''\
# id = 1
He/CAP gave/WORD 2/NUM apples/WORD to/WORD John/CAP ./PUNCT
# id = 2
Dogs/CAP bark/WORD ./PUNCT
''',
    "tests/conftest.py": '''\
# semsim's pytest fixtures (semsim_run, semsim_plugins, semsim_cache): docs/plugins.md
pytest_plugins = ["semsim.app.testing"]
''',
    "tests/test_conformance.py": '''\
"""semsim's conformance kit on this plugin: pytest tests/ (the plugin installed, pip install -e .)."""

from semsim.app.testing import conformance_tests

from {package} import SEMSIM_CONFORMANCE

TestConformance = conformance_tests("{name}", **SEMSIM_CONFORMANCE)
''',
    "tests/test_{name}.py": '''\
"""This plugin through semsim's command line, with the kit's fixtures (tests/conftest.py)."""

from {package} import SEMSIM_CONFORMANCE

EXAMPLE = SEMSIM_CONFORMANCE["examples"][0]


def test_a_file_scores_one_against_itself(semsim_run):
    r = semsim_run("usim", EXAMPLE, EXAMPLE, "-b")
    assert r.exit_code == 0 and r.stdout == "1.000000\\n", r.output


def test_the_parser_gives_the_example_its_labels(semsim_run, tmp_path):
    text = tmp_path / "text.txt"
    text.write_text("He gave 2 apples to John .\\nDogs bark .\\n", encoding="utf-8")
    parsed = tmp_path / "parsed.{name}"
    assert semsim_run("parse", "--representation", "{name}", "--format", "{name}", "-o", parsed, "-q",
                      text).exit_code == 0
    r = semsim_run("usim", EXAMPLE, parsed, "-b")
    assert r.exit_code == 0 and r.stdout == "1.000000\\n", r.output
''',
}


def write_plugin(name: str, target: Path) -> list[Path]:
    """Write the plugin ``name`` into the new directory ``target``; returns the files written."""
    if not NAME.fullmatch(name):
        raise SemsimError(f"plugin name {name!r}: lower-case letters, digits and _, starting with a letter "
                          "(it names the entry point, the representation and the package semsim_NAME)")
    if target.exists() or target.is_symlink():
        raise SemsimError(f"{target}: already exists; semsim plugins new writes a new directory (choose another "
                          "with -o)")
    fields = {"name": name, "package": f"semsim_{name}", "distribution": f"semsim-{name.replace('_', '-')}",
              "semsim_version": __version__, "api": PLUGIN_API}
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        written = []
        for path, text in FILES.items():
            file = staging / path.format(**fields)
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(text.format(**fields), encoding="utf-8")
            written.append(target / file.relative_to(staging))
        staging.rename(target)  # refuses a directory made meanwhile, where it is not empty
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return written
