"""The numbers the docs show are what the commands print today (issue #35, point 5).

``docs/index.md`` ("Numbers in these docs") says which check covers which page.

* **Transcripts.** In a fenced block of README.md, docs/*.md or a plugin's README, a
  ``$ semsim ...`` (or ``$ semsim-gecmetrics-eval ...``) line followed by output lines is run,
  and what it prints (stdout and stderr, in order, as a terminal shows them) must be those
  lines. A line ``...`` stands for any number of lines (an abbreviated output); ``$ cd DIR``
  sets the directory of the commands after it in the block; ``NAME=value`` words before the
  command set its environment; lines that start with ``# `` are comments. Numbers printed
  with 10 or more decimals agree within 1e-9. Each runs in a scratch directory, in a fresh
  parse cache that this module's tests share (``SEMSIM_CACHE_DIR``), with ``COLUMNS`` unset
  (as in a pipe) and a progress interval no run reaches, so that a slow machine's progress
  lines never show. Its inputs must be the repository's files, ``../shared`` (then it is
  marked ``needs_shared``) or a model the tests build (``BUILT``: the tiny TUPA model of
  docs/sensitivity.md, conftest.py's ``tiny_tupa_model``, compared up to its hash, which
  covers the directory it was trained in). Any other transcript fails: show the output of
  a command only where a test runs it.
  (The plugin tutorial's, in docs/plugins.md, need its plugin installed: test_plugin_tutorial.py
  runs those.)
* **Tables and prose quoted from commands on ../shared**: the JFLEG dev table of
  docs/conservatism.md, the MRP sample tables of docs/mrp.md and docs/amr.md, the tables of
  docs/reproducing.md (``scripts/reproduce_paper.py``), BART's and T5's rows of
  docs/systems.md's SEEDA table, the essays' summary in docs/explain.md; and, from the
  shipped model alone, the result of docs/evaluate.md and docs/conservatism.md's example.
* What takes minutes (the whole SEEDA table, ``semsim ucca evaluate``, ``semsim meta-eval``,
  the faithfulness and SEEDA benchmarks) is ``scripts/check_docs_numbers.py``'s.
"""

from __future__ import annotations

import ast
import difflib
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from support import run_cli

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("SEMSIM_SHARED", ROOT.parent / "shared"))
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted(ROOT.glob("plugins/*/README.md"))]
#: the commands a transcript may run, and the module that is each
PROGRAMS = {"semsim": "semsim.app.cli", "semsim-gecmetrics-eval": "semsim.app.gec.cli"}
#: inputs the docs name that the tests build: path as written -> fixture (conftest.py)
BUILT = {"/tmp/sens/model/tiny": "tiny_tupa_model"}
NUMBER = re.compile(r"-?\d+\.\d+")


@dataclass(frozen=True)
class Transcript:
    """A command of a doc and the output the doc shows for it."""

    doc: str
    line: int
    cwd: str  # relative to the repository root
    env: tuple[tuple[str, str], ...]
    argv: tuple[str, ...]  # the program, then its arguments
    expected: tuple[str, ...]

    def inputs(self) -> list[str]:
        """The paths it reads: arguments and environment values with a '/'."""
        return [a for a in (*self.argv[1:], *(v for _, v in self.env)) if "/" in a and not a.startswith("-")]

    def shared(self) -> bool:
        return self.cwd.startswith("../shared") or any(os.path.normpath(os.path.join(self.cwd, p)).startswith(
            "../shared") for p in self.inputs() if p not in BUILT)

    def problem(self) -> str | None:
        """Why this module cannot run it, or None."""
        for p in self.inputs():
            rel = os.path.normpath(os.path.join(self.cwd, p))
            if p not in BUILT and not rel.startswith("../shared") and not (ROOT / rel).exists():
                return (f"{self.doc}:{self.line} shows the output of a command that reads {p}, which is neither "
                        "in the repository, nor in ../shared, nor built by this test (BUILT)")
        return None


def _dedent(raw: str, indent: int) -> str:
    return raw[indent:] if raw[:indent].isspace() or not raw[:indent] else raw.lstrip()


def transcripts(path: Path) -> list[Transcript]:
    """Every transcript of a Markdown file (see the module's docstring)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[Transcript] = []
    fence: int | None = None  # the open fence's indentation
    cwd, i = ".", 0
    while i < len(lines):
        raw = lines[i]
        if raw.strip().startswith("```"):
            fence, cwd, i = (len(raw) - len(raw.lstrip()) if fence is None else None), ".", i + 1
            continue
        if fence is None or not raw.strip().startswith("$ "):
            i += 1
            continue
        start, command = i + 1, raw.strip()[2:]
        while command.endswith("\\") and i + 1 < len(lines):
            i += 1
            command = command[:-1].rstrip() + " " + lines[i].strip()
        i += 1
        expected: list[str] = []
        while i < len(lines) and not lines[i].strip().startswith(("$ ", "```")):
            text = _dedent(lines[i], fence).rstrip()
            if not text.startswith("# "):
                expected.append(text)
            i += 1
        words = shlex.split(command, comments=True)
        env = tuple(tuple(w.split("=", 1)) for w in words if re.fullmatch(r"[A-Za-z_]\w*=.*", w))
        words = words[len(env):]
        if words[:1] == ["cd"]:
            cwd = os.path.normpath(os.path.join(cwd, words[1]))
        elif words and words[0] in PROGRAMS and any(x.strip() for x in expected):
            while expected and not expected[-1]:
                expected.pop()
            out.append(Transcript(str(path.relative_to(ROOT)), start, cwd, env, tuple(words), tuple(expected)))
    return out


def _marks(t: Transcript) -> list[pytest.MarkDecorator]:
    marks = [pytest.mark.slow]  # a Python process each, a second or more
    if t.shared():
        marks.append(pytest.mark.needs_shared)
    if any(p in BUILT for p in t.inputs()):
        marks.append(pytest.mark.needs_tupa)
    if t.argv[0] == "semsim-gecmetrics-eval":
        marks.append(pytest.mark.needs_gec_metrics)
    return marks


#: the plugin tutorial's commands (docs/plugins.md) need its plugin installed: test_plugin_tutorial.py runs them
TUTORIAL = "examples/plugin-tutorial"
TRANSCRIPTS = [t for doc in DOCS for t in transcripts(doc) if not t.cwd.startswith(TUTORIAL)]


def _same(expected: str, actual: str) -> bool:
    """Two lines agree: equal, or equal but for numbers of 10+ decimals within 1e-9."""
    if expected == actual:
        return True
    if NUMBER.split(expected) != NUMBER.split(actual):
        return False
    return all(e == a or (len(e.split(".")[1]) >= 10 and abs(float(e) - float(a)) <= 1e-9)
               for e, a in zip(NUMBER.findall(expected), NUMBER.findall(actual)))


def fits(expected: list[str], actual: list[str]) -> bool:
    """The output fits the doc's lines, where a line ``...`` stands for any number of lines."""
    reach = {0}  # how many actual lines the expected lines so far can account for
    for e in expected:
        if e.strip() in ("...", "…"):
            reach = set(range(min(reach), len(actual) + 1)) if reach else set()
        else:
            reach = {j + 1 for j in reach if j < len(actual) and _same(e, actual[j])}
    return len(actual) in reach


def _unhashed(lines: list[str] | tuple[str, ...]) -> list[str]:
    names = "|".join(re.escape(Path(p).name) for p in BUILT)
    return [re.sub(rf"\b({names})@[0-9a-f]{{12}}", r"\1@…", x) for x in lines]


@pytest.fixture(scope="module")
def docs_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("docs-cache")


def _environment(t: Transcript, cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEMSIM_") and k != "COLUMNS"}
    return {**env, "SEMSIM_CACHE_DIR": str(cache), "SEMSIM_PROGRESS_INTERVAL": "1000000", "PYTHONUNBUFFERED": "1",
            **dict(t.env)}


def test_the_docs_have_transcripts():
    found = {t.doc for t in TRANSCRIPTS}
    assert len(TRANSCRIPTS) >= 8 and {"README.md", "docs/explain.md", "docs/sensitivity.md", "docs/systems.md",
                                      "docs/amr.md"} <= found, found


def test_the_transcript_reader_and_matcher():
    doc = ROOT / "docs" / "sensitivity.md"
    (t,) = [t for t in transcripts(doc) if t.env]
    assert t.env == (("SEMSIM_PLUGINS", "tests/toy_plugin.py"),) and t.argv[:2] == ("semsim", "sensitivity")
    assert fits(["a", "...", "c"], ["a", "b", "b", "c"]) and fits(["...", "c"], ["c"])
    assert not fits(["a", "...", "c"], ["a", "b"]) and not fits(["a"], ["a", "b"])
    assert _same("x 0.12345678901", "x 0.12345678902") and not _same("x 0.1235", "x 0.1234")


@pytest.mark.parametrize("t", [pytest.param(t, id=f"{t.doc}:{t.line}", marks=_marks(t)) for t in TRANSCRIPTS])
def test_doc_transcript(t: Transcript, request, tmp_path, docs_cache):
    assert t.problem() is None, t.problem()
    repo = tmp_path / "repo"
    repo.mkdir()
    for top in {os.path.normpath(os.path.join(t.cwd, p)).split(os.sep)[0] for p in t.inputs() if p not in BUILT}:
        if not top.startswith("..") and (ROOT / top).exists():
            (repo / top).symlink_to(ROOT / top)
    if SHARED.is_dir():
        (tmp_path / "shared").symlink_to(SHARED)
    args = [str(request.getfixturevalue(BUILT[a])) if a in BUILT else a for a in t.argv[1:]]
    r = subprocess.run([sys.executable, "-m", PROGRAMS[t.argv[0]], *args], cwd=repo / t.cwd,
                       env=_environment(t, docs_cache), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=600)
    actual = [x.rstrip() for x in r.stdout.rstrip().splitlines()]
    expected, actual = _unhashed(t.expected), _unhashed(actual)
    assert fits(expected, actual), (f"{t.doc}:{t.line}: the command prints something else now; the doc's lines (-) "
                                    "against its output (+):\n" + "\n".join(difflib.unified_diff(
                                        expected, actual, lineterm="", n=1)))


# -- tables and prose quoted from commands on ../shared -------------------------------------------
def _doc(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


@pytest.mark.needs_shared
@pytest.mark.slow
def test_conservatism_jfleg_dev_table(shared):
    """docs/conservatism.md: the four JFLEG dev references' row and the prose under them."""
    d = shared / "data/jfleg/dev"
    r = run_cli("conservatism", "--source", d / "dev.src", *(x for k in range(4) for x in ("--ref", d / f"dev.ref{k}")),
                "--format", "json")
    assert r.exit_code == 0, r.output
    doc, systems = _doc("docs/conservatism.md"), json.loads(r.output)["systems"]
    for s in systems:
        row = (f"| {s['system'].removeprefix('ref:dev.')} | {s['word_change_mean']:.3f} "
               f"| {100 * s['unchanged_share']:.1f}% ({s['unchanged']}) | {s['rho_mean']:.4f} | {s['rho_median']} "
               f"| {100 * s['reordered'] / s['rho_n']:.1f}% ({s['reordered']}/{s['rho_n']}) | {s['rho_undefined']} "
               f"| {s['splits']} | {s['concatenations']} |")
        assert row in doc, row
    means = sorted(s["word_change_mean"] for s in systems)
    most = sorted(len(s["word_change_counts"]) - 1 for s in systems)
    rho = sorted(s["rho_mean"] for s in systems)
    assert f"{means[0]:.1f}–{means[-1]:.1f} words are changed per sentence" in doc
    assert f"at most {most[0]}–{most[-1]} in one sentence" in doc and f"mean {rho[0]:.2f}–{rho[-1]:.2f}" in doc
    assert all(s["unchanged_share"] < 0.25 for s in systems) and "fewer than a quarter" in doc


FRAMEWORKS = {"dm": "sdp-dm", "psd": "sdp-psd", "eds": "edm", "ucca": None, "amr": "smatch"}


def _rotated(graph: dict) -> dict:
    """docs/mrp.md's stand-in for parser errors: every third edge in (source, target, label)
    order, from the second, takes the label of the next such edge (the last the first's)."""
    edges = sorted((dict(e) for e in graph.get("edges", [])),
                   key=lambda e: (e["source"], e["target"], e.get("label", "")))
    chosen = edges[1::3]
    for e, label in zip(chosen, [e.get("label") for e in chosen[1:] + chosen[:1]]):
        e["label"] = label
    return {**graph, "edges": edges}


def _compare_sample(shared: Path, tmp: Path, perturbed: bool) -> dict:
    """`semsim compare` of the 87 sentences of the MRP sample in all five frameworks: each
    with the next (86 pairs), or each with its perturbed copy (87)."""
    d = shared / "data/mrp-sample"
    ids = [json.loads(x)["id"] for x in (d / "ucca.mrp").read_text(encoding="utf-8").splitlines()]
    args: list[object] = []
    for fw in FRAMEWORKS:
        graphs = {g["id"]: g for g in map(json.loads, (d / f"{fw}.mrp").read_text(encoding="utf-8").splitlines())}
        seq = [graphs[i] for i in ids]
        src, cor = (seq, [_rotated(g) for g in seq]) if perturbed else (seq[:-1], seq[1:])
        for side, graphs_ in (("src", src), ("cor", cor)):
            (tmp / f"{fw}.{side}.mrp").write_text("".join(json.dumps(g) + "\n" for g in graphs_), encoding="utf-8")
        args += ["--pairs", fw, tmp / f"{fw}.src.mrp", tmp / f"{fw}.cor.mrp"]
    r = run_cli("compare", *args, "--format", "json", "-q")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    out["corr"] = {(c["a"], c["b"]): c for c in out["correlations"]}
    out["corr"].update({(b, a): c for (a, b), c in list(out["corr"].items())})
    return out


def _framework_rows(out: dict) -> list[str]:
    rows = []
    for fw, own in FRAMEWORKS.items():
        u = out["corpus"][f"{fw}:usim"]
        row = f"| {fw.upper()} | {u['n']} | {u['macro_f']:.4f} | {u['micro_f']:.4f} |"
        if own is None:
            rows.append(row + " – | – | – | – | – |")
            continue
        o, c = out["corpus"][f"{fw}:{own}"], out["corr"][(f"{fw}:usim", f"{fw}:{own}")]
        rows.append(row + f" {own} | {o['macro_f']:.4f} | {o['micro_f']:.4f} | {c['pearson']:.3f} "
                          f"| {c['spearman']:.3f} |")
    return rows


@pytest.mark.needs_shared
@pytest.mark.slow
def test_mrp_sample_tables(shared, tmp_path):
    """docs/mrp.md's three tables on the MRP sample and docs/amr.md's UCCA-vs-AMR table."""
    mrp, amr = _doc("docs/mrp.md"), _doc("docs/amr.md")
    (tmp_path / "next").mkdir()
    (tmp_path / "perturbed").mkdir()
    nxt = _compare_sample(shared, tmp_path / "next", perturbed=False)
    for row in _framework_rows(nxt):
        assert row in mrp, row
    for a in FRAMEWORKS:
        cells = ["1" if a == b else "{pearson:.3f} ({spearman:.3f})".format(**nxt["corr"][(f"{a}:usim", f"{b}:usim")])
                 for b in FRAMEWORKS]
        row = f"| {a.upper()} USim | " + " | ".join(cells) + " |"
        assert row in mrp, row
    for col in ("ucca:usim", "amr:usim", "amr:smatch"):
        c = nxt["corpus"][col]
        row = f"| {col} | {c['macro_f']:.3f} | {c['macro_ci'][0]:.3f}–{c['macro_ci'][1]:.3f} |"
        assert row in amr, row
    for a, b, words in (("ucca:usim", "amr:usim", "UCCA-USim vs AMR-USim"),
                        ("amr:usim", "amr:smatch", "AMR-USim vs Smatch")):
        c = nxt["corr"][(a, b)]
        assert re.search(rf"{words}: Pearson\s+{c['pearson']:.2f}, Spearman {c['spearman']:.2f}", amr), (a, b, c)
    pert = _compare_sample(shared, tmp_path / "perturbed", perturbed=True)
    for row in _framework_rows(pert):
        assert row in mrp, row
    across = [abs(pert["corr"][(f"{a}:usim", f"{b}:usim")]["pearson"]) for a in FRAMEWORKS for b in FRAMEWORKS if a < b]
    assert max(across) <= 0.33 and "(|r| ≤ 0.33)" in mrp


@pytest.mark.needs_shared
@pytest.mark.slow
def test_mrp_sample_counts_against_mtool(shared, tmp_path):
    """docs/mrp.md: the summed counts of the 88 "each graph vs the next" pairs of DM, PSD, EDS."""
    mrp, args = _doc("docs/mrp.md"), []
    for fw in ("dm", "psd", "eds"):
        lines = (shared / f"data/mrp-sample/{fw}.mrp").read_text(encoding="utf-8").splitlines()
        (tmp_path / f"{fw}.src.mrp").write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
        (tmp_path / f"{fw}.cor.mrp").write_text("\n".join(lines[1:]) + "\n", encoding="utf-8")
        args += ["--pairs", fw, tmp_path / f"{fw}.src.mrp", tmp_path / f"{fw}.cor.mrp"]
    r = run_cli("compare", *args, "--format", "json", "--bootstrap", "0", "-q")
    assert r.exit_code == 0, r.output
    corpus = json.loads(r.output)["corpus"]
    for fw, metric, part, words in (("dm", "sdp-dm", "labeled", "DM labelled"), ("psd", "sdp-psd", "labeled", "PSD"),
                                    ("eds", "edm", "all", "EDS all")):
        c = corpus[f"{fw}:{metric}"]
        assert c["n"] == 88 and f"{words} {c[part]['matched1']}/{c[part]['total1']}/{c[part]['total2']}" in mrp


@pytest.mark.needs_shared
@pytest.mark.slow
def test_reproducing_tables_are_the_scripts_output(shared):
    """docs/reproducing.md: every row that scripts/reproduce_paper.py prints, and the summary."""
    r = subprocess.run([sys.executable, str(ROOT / "scripts/reproduce_paper.py"),
                        str(shared / "data/usim-annotations")], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    doc = _doc("docs/reproducing.md").splitlines()
    rows = [x for x in r.stdout.splitlines() if x.startswith("|") and not x.startswith("|---")]
    assert len(rows) > 50 and [x for x in rows if x not in doc] == []
    table = [[x.strip() for x in row.strip("|").split("|")] for row in rows]
    cells, legacy = {c[0]: c[1:] for c in table}, {c[0]: c[1] for c in table if len(c) == 2}  # legacy: group means
    summary = {"the authors' released code": [legacy[g] for g in ("Different", "Same", "IAA")],
               "semsim `paper` (default)": cells["paper (default: coverage tie-break, sentence alignment)"][2::3],
               "semsim `paper`, aligned-token": cells["paper, aligned-token denominator + weak labels"][2::3]}
    for start, numbers in summary.items():  # the Summary table: Different, Same, IAA
        (line,) = [x for x in doc if x.startswith(f"| {start}")]
        assert line.endswith(" | ".join(numbers) + " |"), (line, numbers)


@pytest.mark.needs_shared
@pytest.mark.slow
def test_systems_table_rows_of_bart_and_t5(shared, docs_cache, monkeypatch):
    """docs/systems.md: BART's and T5's rows of the SEEDA table and its signature. A row
    depends on its system alone (the bootstrap draws the same resamples for every system)
    but for its rank and its test against #1; the whole table is scripts/check_docs_numbers.py's."""
    monkeypatch.setenv("SEMSIM_CACHE_DIR", str(docs_cache))
    d = shared / "data/seeda/outputs/subset"
    monkeypatch.chdir(d)
    r = run_cli("score", "--source", "INPUT.txt", "--hyp", "BART.txt", "--hyp", "T5.txt", "--format", "markdown", "-q")
    assert r.exit_code == 0, r.output
    doc = _doc("docs/systems.md").splitlines()
    for name in ("BART.txt", "T5.txt"):
        (row,) = [x for x in r.output.splitlines() if x.startswith("| ") and f"| {name} |" in x]
        (line,) = [x for x in doc if x.startswith("| ") and f"| {name} |" in x]
        assert row.split(" | ")[1:-1] == line.split(" | ")[1:-1], (row, line)
    (signature,) = [x for x in r.output.splitlines() if x.startswith("signature:")]
    assert signature in doc


@pytest.mark.needs_shared
@pytest.mark.slow
def test_explain_summary_of_the_essays(shared):
    """docs/explain.md: how many misses the summary of the essays below leaves to the page."""
    d = shared / "data/usim-annotations"
    r = run_cli("explain", d / "tree1302.xml", d / "tree1202.xml", "-q")
    assert r.exit_code == 0, r.output
    (first, *_) = re.findall(r"\.\.\. and (\d+) more unmatched source edges", r.output)
    assert f"(`... and {first} more unmatched source edges, ...` for the essays" in _doc("docs/explain.md")


@pytest.mark.slow
def test_the_hugging_face_result(tmp_path, monkeypatch):
    """docs/evaluate.md: the result it shows is `semsim score`'s for the same two lines."""
    monkeypatch.setenv("SEMSIM_CACHE_DIR", str(tmp_path / "cache"))
    doc = _doc("docs/evaluate.md")
    call = re.search(r"usim\.compute\((.*?)\n\)", doc, re.S).group(1)
    given = {k: ast.literal_eval(v) for k, v in re.findall(r"(\w+)=(\[.*?\])", call, re.S)}
    shown = ast.literal_eval(re.search(r"```python\n(\{\"scores\".*?\})\n```", doc, re.S).group(1))
    (tmp_path / "src.txt").write_text("\n".join(given["sources"]) + "\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("\n".join(given["predictions"]) + "\n", encoding="utf-8")
    r = run_cli("score", "--source", tmp_path / "src.txt", "--hyp", tmp_path / "hyp.txt", "-q", "--format", "json",
                "-o", tmp_path / "lines.jsonl")
    assert r.exit_code == 0, r.output
    lines = [json.loads(x) for x in (tmp_path / "lines.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [x["f"] for x in lines] == pytest.approx(shown["scores"], abs=1e-9)
    assert json.loads(r.output)["systems"][0]["macro_f"] == pytest.approx(shown["usim"], abs=1e-9)
    assert {x["signature"] for x in lines} == {shown["signature"]}


def test_the_conservatism_example():
    """docs/conservatism.md's Python example prints what its comment says."""
    from semsim.app.gec.conservatism import sentence_conservatism
    line = next(x for x in _doc("docs/conservatism.md").splitlines() if x.startswith("rec.word_change, "))
    rec = sentence_conservatism("He go to school .", "He goes to the school .")
    assert ", ".join(map(str, (rec.word_change, rec.changed, rec.added, rec.rho))) == line.split("# ")[1]
