"""What `semsim score` gives a GEC researcher to read (issue #35): per-line records with their
texts, the least faithful lines, systems named on the command line, no silently merged
systems, and scores over the changed lines only."""

from __future__ import annotations

import json

import pytest
from support import run_cli

TOY = ["--parser", "toy-parser", "--no-cache", "-q", "--bootstrap", "0"]


@pytest.fixture
def texts(toy_env):
    src, a, b = toy_env / "src.txt", toy_env / "a.txt", toy_env / "b.txt"
    src.write_text("the cat sat .\na b c .\nx y z .\n", encoding="utf-8")
    a.write_text("the cat sat .\nd e f .\nx y w .\n", encoding="utf-8")
    b.write_text("the dog sat .\na b c .\nx y z .\n", encoding="utf-8")
    return src, a, b


def test_per_line_records_carry_the_texts_as_parsed(texts, toy_env):
    src, a, _ = texts
    out = toy_env / "lines.jsonl"
    r = run_cli("score", "--source", src, "--hyp", a, *TOY, "-o", out)
    assert r.exit_code == 0, r.output
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [(x["line"], x["source"], x["output"]) for x in rows] == [
        (1, "the cat sat .", "the cat sat ."), (2, "a b c .", "d e f ."), (3, "x y z .", "x y w .")]
    assert list(rows[0])[:5] == ["system", "line", "source", "output", "f"]


def test_worst_lists_the_least_faithful_lines_in_text_and_json(texts):
    src, a, b = texts
    r = run_cli("score", "--source", src, "--hyp", a, "--hyp", b, *TOY, "--worst", "2", "--paired", "none")
    assert r.exit_code == 0, r.output
    assert "The 2 least faithful lines (lowest F first" in r.output
    listed = r.output.split("least faithful lines")[1]
    assert "a b c . → d e f ." in listed and listed.index("a b c . → d e f .") < listed.index("signature:")
    doc = json.loads(run_cli("score", "--source", src, "--hyp", a, "--hyp", b, *TOY, "--worst", "2",
                             "--format", "json").output)
    worst = doc["worst"]
    assert len(worst) == 2 and worst[0]["f"] <= worst[1]["f"]
    assert worst[0] == {"system": "a.txt", "line": 2, "f": worst[0]["f"], "source": "a b c .", "output": "d e f .",
                        "explain": f"semsim explain --source {src} --hyp {a} --line 2 --parser toy-parser "
                                   "--no-cache"}
    r = run_cli("score", "--source", src, "--hyp", a, *TOY, "--worst", "2", "--format", "tsv")
    assert r.exit_code == 1 and "--worst lists lines beside the table" in r.output


@pytest.mark.parametrize("settings", [
    [],
    ["--preset", "meaning", "--direction", "s->r", "--no-remote", "--tokenize", "spacy"],
    ["--labels", "weak", "--tie-break", "all", "--align", "passage", "--edge-weights", "height", "--leaves", "2"],
], ids=["default", "preset", "remedies"])
def test_the_worst_lines_commands_reproduce_their_f(toy_env, settings):
    """Issue #46: the hint printed `semsim explain --source ... --hyp ... --line N` without the
    run's --tokenize, --preset and other settings, parser or model, so the page showed
    another F. Each listed line now comes with its command, every such option in it; run
    as printed, it explains the very F the table lists."""
    import shlex
    src, a = toy_env / "s r c.txt", toy_env / "Big.txt"  # a space in a path: the commands quote it
    src.write_text("He gave an apple, John said.\nThe cat sat.\nDogs run fast.\n", encoding="utf-8")
    a.write_text("He gave John an apple.\nThe dog sat.\nDogs ran fast!\n", encoding="utf-8")
    args = ["score", "--source", src, "--hyp", f"Alpha={a}", "--parser", "toy-parser", "--cache",
            toy_env / "c.sqlite", "-q", "--bootstrap", "0", *settings, "--worst", "2"]
    r = run_cli(*args, "--format", "json")
    assert r.exit_code == 0, r.output
    worst = json.loads(r.output)["worst"]
    text = run_cli(*args).output
    for k, line in enumerate(worst):
        command = shlex.split(line["explain"])
        assert command[:2] == ["semsim", "explain"] and line["explain"] in text
        for option in ("--parser", *(o for o in settings if o.startswith("--"))):
            assert option in command, option
        json_path = toy_env / f"why{k}.json"
        why = run_cli(*command[1:], "--json", json_path, "-q")
        assert why.exit_code == 0, why.output
        doc = json.loads(json_path.read_text(encoding="utf-8"))
        assert doc["score"]["f"] == pytest.approx(line["f"], abs=1e-12), line
        assert doc["signature"].split("|parser:")[0] in json.loads(r.output)["systems"][0]["signature"]


def test_systems_are_named_on_the_command_line(texts):
    src, a, b = texts
    r = run_cli("score", "--source", src, "--hyp", f"Alpha={a}", "--ref", f"Gold={b}", *TOY, "-b")
    assert r.exit_code == 0, r.output
    assert [line.split("\t")[0] for line in r.output.splitlines()] == ["Alpha", "Gold"]


@pytest.mark.parametrize("twice,message", [
    (["--hyp", "{a}", "--hyp", "{a}"], "--hyp {a} given twice: each file is one system"),
    (["--hyp", "X={a}", "--hyp", "X={b}"], "two systems named 'X': name them apart with NAME=FILE"),
])
def test_a_system_given_twice_is_refused_not_merged(texts, twice, message):
    src, a, b = texts
    args = [x.format(a=a, b=b) for x in twice]
    r = run_cli("score", "--source", src, *args, *TOY)
    assert r.exit_code == 1 and message.format(a=a) in r.output, r.output


def test_changed_only_scores_each_system_on_the_lines_it_changed(texts):
    src, a, b = texts
    everything = json.loads(run_cli("score", "--source", src, "--hyp", a, "--hyp", b, *TOY, "--format",
                                    "json").output)
    changed = json.loads(run_cli("score", "--source", src, "--hyp", a, "--hyp", b, *TOY, "--format", "json",
                                 "--changed-only").output)
    n = {s["system"]: s["n"] for s in changed["systems"]}
    assert n == {"a.txt": 2, "b.txt": 1} and changed["paired_tests"] == []
    mean = {s["system"]: s["macro_f"] for s in changed["systems"]}
    assert mean["b.txt"] < {s["system"]: s["macro_f"] for s in everything["systems"]}["b.txt"]
    unchanged = run_cli("score", "--source", src, "--hyp", f"Copy={src}", *TOY, "--changed-only")
    assert unchanged.exit_code == 1 and "--changed-only: Copy changed no line" in unchanged.output


def test_one_definition_of_changed_in_score_and_meta_eval(toy_env):
    """Issue #58: a line that differs from its source only by tokenization (``Islam's`` →
    ``Islam 's``) is unchanged for score's column and --changed-only and for meta-eval alike."""
    from semsim.app.metaeval import Judgment, changed
    lines = [("Islam's rise was fast.", "Islam 's rise was fast ."), ("the cat sat .", "the dog sat ."),
             ("we do n't go .", "we don't go."), ("every day .", "everyday .")]
    src, hyp = toy_env / "src.txt", toy_env / "hyp.txt"
    src.write_text("".join(s + "\n" for s, _ in lines), encoding="utf-8")
    hyp.write_text("".join(o + "\n" for _, o in lines), encoding="utf-8")
    table = json.loads(run_cli("score", "--source", src, "--hyp", hyp, *TOY, "--format", "json").output)
    assert table["systems"][0]["changed"] == 0.5
    only = json.loads(run_cli("score", "--source", src, "--hyp", hyp, *TOY, "--format", "json",
                              "--changed-only").output)
    assert only["systems"][0]["n"] == 2
    kept = changed([Judgment(s, o, 3.0, (), n) for n, (s, o) in enumerate(lines, 1)])
    assert [j.row for j in kept] == [2, 4]


def test_scoring_shows_progress_as_parsing_does(texts, toy_env):
    """Issue #58: on a warm cache a score printed nothing while it scored. In a log (stderr
    not a terminal) progress is whole status lines, each ``SEMSIM_PROGRESS_INTERVAL`` s."""
    src, a, b = texts
    quick = [x for x in TOY if x != "-q"]
    r = run_cli("score", "--source", src, "--hyp", a, "--hyp", b, *quick, env={"SEMSIM_PROGRESS_INTERVAL": "0"})
    assert r.exit_code == 0 and "\r" not in r.stderr
    assert "scoring: 6/6 line (100%)" in r.stderr
    assert "scoring:" not in run_cli("score", "--source", src, "--hyp", a, *TOY).stderr
