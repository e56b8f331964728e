"""Inputs nobody had tried (issue #23), each kind held by a test: valid input in unusual
encodings and line ends is read as its plain UTF-8 twin; huge tokens and deep graphs are
refused by a bound, in bounded time and memory; a mixed pair, a bound hit by `compare`
or `explain`, and a run where nothing could be scored each give one line naming the file,
and leave no output or partial file behind. The malformed files themselves (lone
surrogates, pretty-printed MRP, tokenless graphs, UTF-16 without a mark, structurally
invalid UCCA) are in ``tests/malformed/``."""

from __future__ import annotations

import codecs
import json
import pickle
import re
from pathlib import Path

import pytest

from semsim.app.reading import read, read_all
from semsim.app.testing import bounded, check_command
from semsim.app.textfiles import read_lines
from semsim.kernel.formats.mrp import graph_to_mrp

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SOURCE_XML, CORRECTION_XML = EXAMPLES / "fig1-source.xml", EXAMPLES / "fig1-correction.xml"
AMR = EXAMPLES / "fig1-source.amr"

#: the same text, encoded as editors and old systems write it
ENCODINGS = {
    "utf-8 with a byte-order mark": lambda t: codecs.BOM_UTF8 + t.encode("utf-8"),
    "utf-16 (little-endian mark)": lambda t: t.encode("utf-16"),
    "utf-16-be with its mark": lambda t: codecs.BOM_UTF16_BE + t.encode("utf-16-be"),
    "utf-32 with its mark": lambda t: t.encode("utf-32"),
    "CRLF line ends": lambda t: t.replace("\n", "\r\n").encode("utf-8"),
    "CR line ends (old Mac)": lambda t: t.replace("\n", "\r").encode("utf-8"),
}


def _mrp_text() -> str:
    return "".join(json.dumps(graph_to_mrp(read(p)), ensure_ascii=False) + "\n" for p in (SOURCE_XML, CORRECTION_XML))


@pytest.mark.parametrize("encode", ENCODINGS.values(), ids=list(ENCODINGS))
@pytest.mark.parametrize("suffix", [".amr", ".mrp", ".txt"])
def test_valid_text_in_any_declared_encoding_reads_as_utf8(tmp_path, suffix, encode):
    """A byte-order mark (UTF-8, UTF-16, UTF-32) and CRLF or CR line ends are accepted by
    every text format, and give what the plain UTF-8 file gives (issue #23, kinds 4 and 7)."""
    text = {".amr": AMR.read_text(encoding="utf-8"), ".mrp": _mrp_text(),
            ".txt": (EXAMPLES / "source.txt").read_text(encoding="utf-8")}[suffix]
    plain, odd = tmp_path / f"plain{suffix}", tmp_path / f"odd{suffix}"
    plain.write_text(text, encoding="utf-8")
    odd.write_bytes(encode(text))
    if suffix == ".txt":
        assert read_lines(odd) == read_lines(plain) and len(read_lines(odd)) == text.count("\n")
    else:
        assert [g.with_(meta={}) for g in read_all(odd)] == [g.with_(meta={}) for g in read_all(plain)]


def test_ucca_xml_in_utf16_reads_as_utf8(tmp_path):
    xml = SOURCE_XML.read_text(encoding="utf-8").replace('encoding="utf-8"', 'encoding="utf-16"')
    (tmp_path / "a.xml").write_bytes(xml.encode("utf-16"))
    assert read(tmp_path / "a.xml").with_(meta={}) == read(SOURCE_XML).with_(meta={})


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085"])
def test_unicode_line_separators_inside_an_mrp_string_are_characters(tmp_path, separator):
    """JSON allows U+2028, U+2029 and U+0085 raw inside a string: the line is one graph."""
    g = graph_to_mrp(read(SOURCE_XML))
    g["input"] = g["input"].replace(" ", separator, 1)
    f = tmp_path / "sep.mrp"
    f.write_text(json.dumps(g, ensure_ascii=False) + "\n" + json.dumps(g, ensure_ascii=False) + "\n", encoding="utf-8")
    graphs = read_all(f)
    assert len(graphs) == 2 and separator in graphs[0].meta["input"]


@pytest.mark.slow  # five commands, each parsing twice (1-2 s)
def test_cr_only_lines_are_lines_for_every_text_command(toy_env):
    """An old-Mac text file (CR only) has as many lines as its LF twin, for score, parse
    and conservatism alike (kind 7)."""
    src = toy_env / "src.txt"
    src.write_text("a b .\nc d .\ne f .\ng h .\ni j .\n", encoding="utf-8")
    hyp = toy_env / "hyp.txt"
    hyp.write_bytes(b"a b .\rc x .\re f .\rg h .\ri j .\r")
    out = toy_env / "out.jsonl"
    r = check_command(["score", "--source", str(src), "--hyp", str(hyp), "--parser", "toy-parser", "-o", str(out),
                       "-q", "--bootstrap", "0"])
    assert r.exit_code == 0 and len(out.read_text(encoding="utf-8").splitlines()) == 5
    r = check_command(["parse", str(hyp), "--parser", "toy-parser", "-q"])
    assert r.exit_code == 0 and len(r.stdout.splitlines()) == 5
    r = check_command(["conservatism", "--source", str(src), "--hyp", str(hyp), "--format", "jsonl"])
    assert r.exit_code == 0 and sum('"line"' in x for x in r.stdout.splitlines()) == 5


@pytest.mark.parametrize(("content", "error"), [(b"", "empty file"), (b"\n \n\n", "no sentences: every line is blank")])
def test_parse_refuses_a_file_without_sentences(toy_env, content, error):
    """`semsim parse` on an empty file is an error, as for every other command (kind 8)."""
    f = toy_env / "empty.txt"
    f.write_bytes(content)
    r = check_command(["parse", str(f), "--parser", "toy-parser", "-q", "-o", str(toy_env / "out.mrp")])
    assert r.exit_code == 1 and r.stderr.splitlines() == [f"Error: {f}: {error}"]
    assert not list(toy_env.glob("out.mrp*"))


def _huge_token_files(tmp_path: Path, size: int) -> dict[str, Path]:
    word = "w" * size
    xml = tmp_path / "huge.xml"
    xml.write_text(SOURCE_XML.read_text(encoding="utf-8").replace('text="He"', f'text="{word}"'), encoding="utf-8")
    amr = tmp_path / "huge.amr"
    amr.write_text(AMR.read_text(encoding="utf-8").replace("(a / apple)", f"(a / {word})"), encoding="utf-8")
    g = graph_to_mrp(read(SOURCE_XML))
    g["input"] = word + g["input"][2:]
    g["nodes"] = [dict(n, anchors=[{"from": 0, "to": size}]) if n.get("anchors") == [{"from": 0, "to": 2}] else
                  {**n, "anchors": [{"from": a["from"] + size - 2, "to": a["to"] + size - 2} for a in n["anchors"]]}
                  if n.get("anchors") else n for n in g["nodes"]]
    mrp = tmp_path / "huge.mrp"
    mrp.write_text(json.dumps(g) + "\n", encoding="utf-8")
    return {"xml": xml, "amr": amr, "mrp": mrp}


@pytest.mark.parametrize("fmt", [pytest.param("xml", marks=pytest.mark.slow), "amr", "mrp"])
def test_a_huge_token_is_refused_by_the_edit_distance_bound(tmp_path, fmt):
    """A 1 MB token against itself would be 10^12 character comparisons (34 s at 1 MB, no
    end at 2 MB): every command that aligns refuses it up front, naming the file (kind 2)."""
    f = _huge_token_files(tmp_path, 1_000_000)[fmt]
    for command in (["usim", str(f), str(f)], ["usim", "--variant", "legacy", str(f), str(f)],
                    ["explain", str(f), str(f)], ["compare", "--pairs", "x", str(f), str(f), "-q", "--bootstrap", "0"]):
        r = check_command(command)  # within the fuzz bounds: 10 s of CPU, 1 GB
        assert r.exit_code == 1, (command, r.output)
        first = r.stderr.splitlines()[0]
        if fmt == "xml":  # the UCCA reader's own token bound refuses it first (SEMSIM_MAX_TOKEN_CHARS)
            assert str(f) in first and "a token of 1,000,000 characters" in first, (command, first)
            continue
        assert str(f) in first and "too large for the token alignment's edit distances" in first, (command, first)
        assert "SEMSIM_MAX_ALIGN_CHARS" in first


def test_a_huge_token_in_text_is_left_out_of_every_system(toy_env):
    src = toy_env / "src.txt"
    src.write_text("a b .\n" + "w" * 1_000_000 + " c .\n", encoding="utf-8")
    out = toy_env / "out.jsonl"
    r = check_command(["score", "--source", str(src), "--hyp", str(src), "--parser", "toy-parser", "-q",
                       "--bootstrap", "0", "-o", str(out)])
    assert r.exit_code == 1 and f"{src}:2: too large for the token alignment's edit distances" in r.stderr
    assert len(out.read_text(encoding="utf-8").splitlines()) == 1  # the other line is scored


def _chain(path: Path, depth: int) -> Path:
    """A UCCA passage whose units form a chain ``depth`` deep, each adding a terminal: its
    yields hold depth²/2 tokens in all."""
    terminals = "".join(f'<node ID="0.{i}" type="Word"><attributes paragraph="1" paragraph_position="{i}" '
                        f'text="w{i}" /></node>\n' for i in range(1, depth + 1))
    units = "".join(f'<node ID="1.{i}" type="FN"><attributes /><edge toID="0.{i}" type="Terminal"><attributes />'
                    "</edge>" + (f'<edge toID="1.{i + 1}" type="A"><attributes /></edge>' if i < depth else "")
                    + "</node>\n" for i in range(1, depth + 1))
    path.write_text(f'<root annotationID="0" passageID="deep">\n<attributes />\n<layer layerID="0">\n<attributes />\n'
                    f'{terminals}</layer>\n<layer layerID="1">\n<attributes />\n{units}</layer>\n</root>\n',
                    encoding="utf-8")
    return path


@pytest.mark.slow
def test_a_deep_graph_is_refused_in_bounded_memory(tmp_path):
    """A chain 10,000 deep made `semsim dagf` peak at 2.4 GB; its yields are now bounded
    (SEMSIM_MAX_YIELDS), so every command refuses it within the fuzz bounds (kind 3)."""
    f = _chain(tmp_path / "deep.xml", 10_000)
    out = tmp_path / "out.jsonl"
    for command in (["dagf", str(f), str(f), "-o", str(out)], ["usim", str(f), str(f)],
                    ["distsim", str(f), str(f)], ["explain", str(f), str(f)]):
        r = check_command(command)
        assert r.exit_code == 1, (command, r.output)
        assert r.stderr.startswith(f"Error: {f}: "), (command, r.stderr)
    assert not list(tmp_path.glob("out.jsonl*"))
    r = check_command(["dagf", str(_chain(tmp_path / "shallow.xml", 300)), str(tmp_path / "shallow.xml"), "-b"])
    assert r.exit_code == 0 and r.stdout.strip() == "1.000000"


def test_a_pair_of_two_representations_names_both_files(tmp_path):
    """Kind 9: the error names the files, and nothing (not even an empty partial) is left."""
    g = graph_to_mrp(read(SOURCE_XML), framework="toyframe")
    mrp = tmp_path / "other.mrp"
    mrp.write_text(json.dumps(g) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    for name in ("usim", "dagf"):
        command = [name, str(SOURCE_XML), str(mrp), "-o", str(out)]
        r = check_command(command)
        assert r.exit_code == 1, command
        assert r.stderr.splitlines() == [
            f"Error: {mrp}: graph {g['id']} is 'plain' but its pair, graph {read(SOURCE_XML).id} of {SOURCE_XML}, "
            "is 'ucca': two representations cannot be compared"]
        assert not list(tmp_path.glob("out.jsonl*"))


def test_a_pair_dagf_cannot_compare_leaves_no_partial_file(tmp_path):
    """dagf of two different texts is an error for that pair; no empty `.partial` is left."""
    out = tmp_path / "out.jsonl"
    r = check_command(["dagf", str(SOURCE_XML), str(CORRECTION_XML), "-o", str(out)])
    assert r.exit_code == 1 and r.stderr.startswith(f"Error: {SOURCE_XML}: ")
    assert not list(tmp_path.glob("out.jsonl*"))


def test_limit_errors_of_compare_and_explain_name_the_file(monkeypatch):
    """Kind 10: as `usim` does, `compare` and `explain` say which file was too large."""
    monkeypatch.setenv("SEMSIM_MAX_ALIGN_CELLS", "10")
    r = check_command(["explain", str(SOURCE_XML), str(CORRECTION_XML)])
    assert r.exit_code == 1 and r.stderr.startswith(f"Error: {SOURCE_XML}: too large for the token alignment")
    r = check_command(["compare", "--pairs", "ucca", str(SOURCE_XML), str(CORRECTION_XML), "-q", "--bootstrap", "0"])
    assert r.exit_code == 1 and r.stderr.startswith(f"Error: {CORRECTION_XML}: too large for the token alignment")


def test_nothing_scored_means_no_output_file(tmp_path):
    """Kind 12: when no pair could be scored, no (empty) results file is written."""
    bad = tmp_path / "bad.xml"
    bad.write_text("<root passageID='x'>", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    for fmt in ("jsonl", "tsv", "text", "json"):
        r = check_command(["usim", str(bad), str(bad), "--format", fmt, "-o", str(out)])
        assert r.exit_code == 1 and not list(tmp_path.glob("out.jsonl*")), fmt


def _spin() -> None:
    while True:
        pass


def _hog() -> int:
    return len(bytearray(4 * 2**30))


@pytest.mark.slow
def test_bounded_fails_a_hang_or_a_blow_up_and_passes_results_back():
    """The fuzz checks' limits: CPU time and memory of a forked child, not wall time."""
    with pytest.raises(AssertionError, match=r"more than 1 s of CPU time"):
        bounded(_spin, seconds=1)
    with pytest.raises(AssertionError, match=r"more than 200 MB of memory"):
        bounded(_hog, megabytes=200)
    g = bounded(read, SOURCE_XML)
    assert g == read(SOURCE_XML) and pickle.loads(pickle.dumps(g)) == g



@pytest.mark.slow
def test_bounded_children_live_under_a_hard_memory_limit():
    """#56: under ``ulimit -v`` (a hard RLIMIT_AS) every child died setting its own limit with a
    hard limit of infinity, which only root may raise to; now it lowers soft limits only, and
    its memory bound still holds."""
    import resource
    import subprocess
    import sys
    script = ("from semsim.app.testing import bounded\n"
              "assert bounded(len, 'abc') == 3\n"
              "try:\n    bounded(bytearray, 2**31, megabytes=200)\n"
              "except AssertionError as exc:\n    print(exc)\n")
    limit = 16 * 2**30

    def hard_limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                       preexec_fn=hard_limit)
    assert r.returncode == 0 and r.stdout.endswith("more than 200 MB of memory\n"), (r.stdout, r.stderr)


def _imported(name: str) -> bool:
    import sys
    return name in sys.modules


def _import(name: str) -> int:
    return __import__(name).VALUE


def _context(name: str) -> tuple[str | None, str, bool]:
    import os
    import sys
    return os.environ.get("SEMSIM_PROBE"), os.getcwd(), name in sys.modules


def test_bounded_children_take_this_process_s_context_and_leave_their_imports(tmp_path, monkeypatch):
    """A check runs in a child of a lean fork server: with this process's environment,
    directory and sys.path, without what this process loaded (a parser's gigabytes); and
    what one child imports, the next one has (semsim's lazy imports: scipy, a plugin's
    library), paid once."""
    import importlib
    import sys
    import uuid
    name, here = f"probe_{uuid.uuid4().hex}", f"probe_{uuid.uuid4().hex}"
    for module in (name, here):
        (tmp_path / f"{module}.py").write_text("VALUE = 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert bounded(_imported, name) is False
    assert bounded(_import, name) == 7
    assert bounded(_imported, name) is True and name not in sys.modules
    monkeypatch.setenv("SEMSIM_PROBE", "here")
    monkeypatch.chdir(tmp_path)
    importlib.import_module(here)
    assert bounded(_context, here) == ("here", str(tmp_path), False)

def test_sensitivity_names_the_m2_line_beyond_a_bound(toy_env, monkeypatch):
    """Kind 10 for M2: a sentence too large to align is left out, named by file and line."""
    monkeypatch.setenv("SEMSIM_MAX_ALIGN_CELLS", "4")
    m2 = EXAMPLES / "sensitivity.m2"
    r = check_command(["sensitivity", str(m2), "--parser", "toy-parser", "-q", "--bootstrap", "0"])
    assert r.exit_code == 1
    assert re.match(rf"(semsim|Error): ({re.escape(str(m2))}|no sentence could be scored: {re.escape(str(m2))}):\d+: "
                    "too large for the token alignment", r.stderr.splitlines()[0]), r.stderr


def test_bounded_starts_a_new_fork_server_when_its_server_has_died():
    from semsim.app import _forkserver
    assert bounded(_imported, "json") is True  # this process's server runs
    server = _forkserver.server()
    server.process.kill()
    server.process.wait()
    assert bounded(_imported, "json") is True and _forkserver.server() is not server
