"""Text in, scores out: the parse cache, resuming after kill -9, jobs, bad text input."""

from __future__ import annotations

import functools
import json
import sqlite3
import subprocess
import sys

import pytest
from support import SOURCE, SYS1, SYS2, files, run_cli, run_semsim

import semsim.app.plugins as plugins
from semsim.app.cache import ParseCache
from semsim.app.parsing import ParseSettings, parse_sentences, parse_texts
from semsim.app.textfiles import read_lines
from semsim.kernel.errors import InputError, ParseError, SemsimError

score = functools.partial(run_semsim, "score")


@pytest.mark.slow
def test_score_writes_sentences_and_summary_and_caches(toy_env):
    f = files(toy_env)
    log = toy_env / "parsed.log"
    out = toy_env / "sent.jsonl"
    r = score("--source", f["src.txt"], "--hyp", f["sys1.txt"], "--hyp", f["sys2.txt"], "--parser", "toy-parser",
              "-o", out, "--format", "json", "-q", env={"TOY_PARSE_LOG": str(log)})
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)["systems"]
    assert [s["system"] for s in summary] == ["sys1.txt", "sys2.txt"] and summary[0]["n"] == 5
    records = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(records) == 10
    empty = [(x["system"], x["line"], x["f"]) for x in records if x["empty"]]
    assert empty == [("sys1.txt", 3, 1.0), ("sys2.txt", 3, 0.0)]  # both empty: 1; else 0
    unique = {" ".join(t.split()) for t in SOURCE + SYS1 + SYS2 if t.strip()}
    parsed = log.read_text().splitlines()
    assert sorted(parsed) == sorted(unique)  # every unique sentence parsed exactly once
    # second run: everything from the cache, same numbers
    log.unlink()
    r2 = score("--source", f["src.txt"], "--hyp", f["sys1.txt"], "--hyp", f["sys2.txt"], "--parser", "toy-parser",
               "--format", "json", "-q", env={"TOY_PARSE_LOG": str(log)})
    assert not log.exists() and json.loads(r2.stdout) == json.loads(r.stdout)
    info = json.loads(run_semsim("cache", "info", "--format", "json", check=True).stdout)
    assert info["entries"] == len(unique) and info["hits"] == len(unique)


@pytest.mark.slow
def test_killed_run_leaves_a_usable_cache_and_resumes(toy_env):
    f = files(toy_env)
    log = toy_env / "parsed.log"
    args = ["--source", f["src.txt"], "--hyp", f["sys1.txt"], "--parser", "toy-parser", "--batch-size", "2", "-q"]
    r = score(*args, env={"TOY_KILL_AT": "Dogs ran fast .", "TOY_PARSE_LOG": str(log)})
    assert r.returncode == -9
    db = toy_env / "cache" / "parses.sqlite3"
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        done = {t for (t,) in con.execute("SELECT text FROM parses")}
    assert done and "Dogs ran fast ." not in done
    log.unlink()
    r = score(*args, env={"TOY_PARSE_LOG": str(log)})
    assert r.returncode == 0, r.stderr
    assert done.isdisjoint(log.read_text().splitlines())  # nothing parsed twice


@pytest.mark.slow
def test_jobs_do_not_change_results(toy_env):
    f = files(toy_env)
    outs = []
    for jobs in ("1", "2"):
        out = toy_env / f"out{jobs}.jsonl"
        r = score("--source", f["src.txt"], "--hyp", f["sys1.txt"], "--hyp", f["sys2.txt"], "--parser", "toy-parser",
                  "--jobs", jobs, "--batch-size", "2", "--no-cache", "-o", out, "-q")
        assert r.returncode == 0, r.stderr
        outs.append(out.read_text())
    assert outs[0] == outs[1]


@pytest.mark.slow
def test_mismatched_lines_and_bad_encoding(toy_env):
    f = files(toy_env)
    short = toy_env / "short.txt"
    short.write_text("one line\n")
    r = score("--source", f["src.txt"], "--hyp", short, "--parser", "toy-parser")
    assert r.returncode == 1
    assert r.stderr.strip() == f"Error: {short}:2: ends after line 1 but the source {f['src.txt']} has 5 lines; " \
                               "files must be line-parallel"
    bad = toy_env / "latin.txt"
    bad.write_bytes("ok\nnaïve\n".encode("latin-1"))
    with pytest.raises(InputError, match=r"latin\.txt:2: not UTF-8"):
        read_lines(bad)


def test_parse_sentences_in_process(toy_env):
    parser = plugins.parsers()["toy-parser"]
    with ParseCache(toy_env / "c.sqlite3") as cache:
        graphs = parse_sentences(["a  b", "a b", "", "C"], parser, cache=cache)
        assert set(graphs) == {"a b", "C"}
        assert cache.stats()["entries"] == 2
        (group,) = cache.stats()["groups"]
        assert group["model"].startswith("rules-v1|")  # the model, the plugin's version, the graph format
        assert cache.get_many("toy", "toy-parser", group["model"], ["a b"])["a b"].native == '["Small", "Small"]'


def test_corrupt_cache_file_is_a_clear_error(toy_env):
    bad = toy_env / "bad.sqlite3"
    bad.write_bytes(b"this is not a database" * 100)
    r = run_cli("cache", "info", "--cache", bad)
    assert r.exit_code == 1 and "not a usable semsim cache" in r.output


def test_cache_info_creates_no_cache_it_is_asked_about(toy_env):
    """#56: ``cache info`` made the file (and its directory) it was asked about."""
    named, default = toy_env / "none" / "c.sqlite3", toy_env / "cache" / "parses.sqlite3"
    r = run_cli("cache", "info", "--cache", named, catch_exceptions=False)
    assert r.exit_code == 0 and r.stdout == f"{named}: no cache yet (the first parse makes it)\n"
    r = run_cli("cache", "info", "--format", "json", catch_exceptions=False)
    assert json.loads(r.stdout) == {"path": str(default), "bytes": 0, "entries": 0, "hits": 0, "groups": []}
    assert not named.parent.exists() and not default.parent.exists()


def test_cache_clear(toy_env):
    with ParseCache() as cache:
        parse_sentences(["a b"], plugins.parsers()["toy-parser"], cache=cache)
    r = run_cli("cache", "clear")
    assert r.exit_code == 0 and "removed 1 parses" in r.output


@pytest.mark.slow
def test_concurrent_processes_share_one_cache(toy_env):
    f = files(toy_env)
    cmd = [sys.executable, "-m", "semsim.app.cli", "score", "--source", str(f["src.txt"]), "--hyp", str(f["sys1.txt"]),
           "--hyp", str(f["sys2.txt"]), "--parser", "toy-parser", "--batch-size", "1", "--format", "json", "-q"]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    outs = [p.communicate() for p in procs]
    assert all(p.returncode == 0 for p in procs), [e for _, e in outs]
    assert len({o for o, _ in outs}) == 1  # the same numbers from every process
    with sqlite3.connect(toy_env / "cache" / "parses.sqlite3") as con:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        unique = {" ".join(t.split()) for t in SOURCE + SYS1 + SYS2 if t.strip()}
        assert con.execute("SELECT COUNT(*), COUNT(DISTINCT text) FROM parses").fetchone() == (len(unique),) * 2


def test_pairs_are_scored_while_the_rest_is_parsed(toy_env, monkeypatch):
    """``semsim score`` with workers scores each pair once its two sides are parsed
    (:class:`semsim.app.scoring.ScoresWhileParsing`): batch by batch, each distinct pair once, the
    scores :func:`score_lines` computes itself, the cache's hits first; a pair too large to
    align, or that a measure refuses (a SemsimError), is left to :func:`score_lines`."""
    import semsim.app.scoring as scoring
    from semsim import USim
    from semsim.kernel.errors import SemsimError
    from semsim.kernel.limits import LimitError
    metric, texts = USim(), [*SOURCE, *SYS1, *SYS2]
    calls = []

    def watched(early):
        return lambda new, parses: (calls.append(len(new)), early(new, parses))

    settings = ParseSettings(parser="toy-parser", batch_size=2, cache=toy_env / "c.sqlite3")
    early = scoring.ScoresWhileParsing(SOURCE, [SYS1, SYS2], metric.sentence_score)
    parses = parse_texts(texts, settings, on_parsed=watched(early))
    assert len(calls) > 3 and sum(calls) == len(parses.graphs)  # batch by batch: no hits in a new cache
    pairs = {(parses.key(a), parses.key(b)) for lines in (SYS1, SYS2) for a, b in zip(SOURCE, lines)
             if a.strip() and b.strip()}
    assert set(early.scored) == pairs
    direct = parses.signed(metric.sentence_score)
    assert all(early.scored[a, b] == direct(parses.graphs[a], parses.graphs[b]) for a, b in pairs)
    results = list(scoring.score_lines(SOURCE, {"1": SYS1, "2": SYS2}, parses.graphs, direct, None, (),
                                       early.scored))
    assert [r.score for r in results] == [r.score for r in scoring.score_lines(
        SOURCE, {"1": SYS1, "2": SYS2}, parses.graphs, direct, None)]
    # a second run: every graph is a cache hit, handed over at once
    calls.clear()
    big, failing = sorted(pairs)[:2]

    def limited(a, b):
        if (a.text, b.text) == big:
            raise LimitError("too large to align")

    def score(a, b):
        if (a.text, b.text) == failing:  # a measure refusing the pair; a bug would end the run
            raise SemsimError("the measure cannot read this pair")
        return metric.sentence_score(a, b)

    monkeypatch.setattr(scoring, "check_pair", limited)
    again = scoring.ScoresWhileParsing(SOURCE, [SYS1, SYS2], score)
    parse_texts(texts, settings, on_parsed=watched(again))
    assert calls == [len(parses.graphs)] and set(again.scored) == pairs - {big, failing}


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_sentence_the_parser_fails_on_costs_only_its_line(toy_env, jobs):
    f = files(toy_env)
    out = toy_env / "sent.jsonl"
    args = ["--source", f["src.txt"], "--hyp", f["sys1.txt"], "--hyp", f["sys2.txt"], "--parser", "toy-parser",
            "--batch-size", "2", "--jobs", jobs, "--format", "json", "-q"]
    r = score(*args, "-o", out, env={"TOY_FAIL_AT": "Dogs ran fast ."})  # sys1, line 4
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines() == [
        f"Error: {f['sys1.txt']}:4: parser 'toy-parser' failed on 'Dogs ran fast .': RuntimeError: toy parser "
        "cannot parse this (line 4 not scored)",
        "Error: 1 line(s) not scored (see above)"]
    records = [json.loads(x) for x in out.read_text().splitlines()]
    assert sorted({(x["system"], x["line"]) for x in records}) == [(s, n) for s in ("sys1.txt", "sys2.txt")
                                                                   for n in (1, 2, 3, 5)]
    assert [s["n"] for s in json.loads(r.stdout)["systems"]] == [4, 4]  # every system on the same lines
    with sqlite3.connect(toy_env / "cache" / "parses.sqlite3") as con:
        done = {t for (t,) in con.execute("SELECT text FROM parses")}
    unique = {" ".join(t.split()) for t in SOURCE + SYS1 + SYS2 if t.strip()}
    assert done == unique - {"Dogs ran fast ."}  # the rest of its batch was parsed and kept
    # the same lines scored the same way without the failure
    clean = score(*args, "-o", toy_env / "clean.jsonl")
    assert clean.returncode == 0
    kept = [json.loads(x) for x in (toy_env / "clean.jsonl").read_text().splitlines()]
    assert [x for x in kept if x["line"] != 4] == records


def test_parse_errors_cross_process_boundaries():
    import pickle

    class PluginFailure(ParseError):  # a plugin's own error, with its own constructor
        def __init__(self, sentences, total):
            super().__init__(f"{len(sentences)} of {total} failed", sentences)

    back = pickle.loads(pickle.dumps(PluginFailure(["a b"], 3)))
    assert isinstance(back, ParseError) and str(back) == "1 of 3 failed" and back.sentences == ["a b"]


def test_parse_errors_raise_without_a_failure_record(toy_env, monkeypatch):
    monkeypatch.setenv("TOY_FAIL_AT", "b c")
    parser = plugins.parsers()["toy-parser"]
    with ParseCache(toy_env / "c.sqlite3") as cache:
        with pytest.raises(ParseError, match="failed on 'b c': RuntimeError"):
            parse_sentences(["a", "b c", "d"], parser, cache=cache)
        assert cache.stats()["entries"] == 2  # "a" and "d" were stored before the error
        failed: dict[str, str] = {}
        graphs = parse_sentences(["a", "b  c", "e"], parser, cache=cache, failed=failed)
    assert set(graphs) == {"a", "e"} and list(failed) == ["b c"]


@pytest.mark.slow
def test_bom_crlf_and_empty_lines(toy_env):
    bom = toy_env / "bom.txt"
    bom.write_bytes(b"\xef\xbb\xbfHe ate apples .\r\n\r\nThe cat .\r\n")
    plain = toy_env / "plain.txt"
    plain.write_text("He ate apples .\n\nThe cat .\n")
    r = score("--source", bom, "--hyp", plain, "--parser", "toy-parser", "--format", "json", "-q", "--no-cache")
    (summary,) = json.loads(r.stdout)["systems"]
    assert summary["macro_f"] == 1.0 and summary["micro_f"] == 1.0 and summary["n"] == 3


@pytest.mark.slow
def test_empty_pairs_are_conventions_not_counts(toy_env):
    src, hyp = toy_env / "s.txt", toy_env / "h.txt"
    src.write_text("a B c\n\n\n")
    hyp.write_text("a B c\n\nx\n")
    r = score("--source", src, "--hyp", hyp, "--parser", "toy-parser", "--format", "json", "-q", "--no-cache")
    (summary,) = json.loads(r.stdout)["systems"]
    assert summary["macro_f"] == pytest.approx(2 / 3)  # 1, 1 (both empty), 0 (empty source)
    assert summary["micro_f"] == 1.0  # only the real pair has counts
    src.write_text("\n\n")
    hyp.write_text("\nx\n")
    r = score("--source", src, "--hyp", hyp, "--parser", "toy-parser", "--format", "json", "-q", "--no-cache")
    assert r.returncode == 0 and json.loads(r.stdout)["systems"][0]["macro_f"] == 0.5


@pytest.mark.slow
def test_damaged_cache_rows_are_parsed_again(toy_env):
    f = files(toy_env)
    args = ["--source", f["src.txt"], "--hyp", f["sys1.txt"], "--parser", "toy-parser", "--format", "json", "-q"]
    first = score(*args)
    db = toy_env / "cache" / "parses.sqlite3"
    with sqlite3.connect(db) as con:
        con.execute("UPDATE parses SET graph = '{damaged'")
    second = score(*args)
    assert second.returncode == 0 and second.stdout == first.stdout
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*) FROM parses WHERE graph = '{damaged'").fetchone() == (0,)


@pytest.mark.slow
@pytest.mark.parametrize("swap", ["graph", "key", "text"])
def test_cache_rows_swapped_serve_no_other_sentence_s_graph(toy_env, swap):
    """Two rows' graphs (or keys, or texts) exchanged by hand or by a faulty copy: each cached
    graph must belong to its sentence, so the two are parsed again and the scores stay right."""
    f = files(toy_env)
    args = ["--source", f["src.txt"], "--hyp", f["sys1.txt"], "--parser", "toy-parser", "--format", "json", "-q"]
    first = score(*args)
    db = toy_env / "cache" / "parses.sqlite3"
    with sqlite3.connect(db) as con:
        (id1, v1), (id2, v2) = con.execute(f"SELECT rowid, {swap} FROM parses ORDER BY rowid LIMIT 2").fetchall()
        con.execute(f"UPDATE parses SET {swap} = ? WHERE rowid = ?", (f"{v1}-moving", id1))  # keys stay unique
        con.execute(f"UPDATE parses SET {swap} = ? WHERE rowid = ?", (v1, id2))
        con.execute(f"UPDATE parses SET {swap} = ? WHERE rowid = ?", (v2, id1))
    log = toy_env / "parsed.log"
    second = score(*args, env={"TOY_PARSE_LOG": str(log)})
    assert second.returncode == 0 and second.stdout == first.stdout
    assert len(log.read_text(encoding="utf-8").splitlines()) == 2  # the two swapped rows, parsed again


def test_a_parser_that_fails_on_everything_is_one_error(toy_plugin, monkeypatch):
    """Nothing parses and a whole batch fails sentence by sentence: the parser is broken (a missing
    resource, say), which is one error, not one failure per sentence."""
    monkeypatch.setattr(toy_plugin, "toy_parse", lambda texts, model=None: 1 / 0)
    failed: dict[str, str] = {}
    with pytest.raises(ParseError, match="failed on 'a': ZeroDivisionError"):
        parse_sentences(["a", "b", "c"], plugins.parsers()["toy-parser"], failed=failed)
    assert failed == {}


def test_only_the_sentences_a_parser_names_are_parsed_again(toy_plugin, monkeypatch):
    calls = []
    real = toy_plugin.toy_parse

    def naming(texts, model=None):
        calls.append(list(texts))
        bad = [t for t in texts if t.startswith("bad")]
        if bad:
            raise ParseError(f"cannot parse {bad}", bad)
        return real(texts, model)

    monkeypatch.setattr(toy_plugin, "toy_parse", naming)
    failed: dict[str, str] = {}
    graphs = parse_sentences(["a", "bad one", "b", "c"], plugins.parsers()["toy-parser"], failed=failed)
    assert calls == [["bad one", "a", "b", "c"], ["a", "b", "c"], ["bad one"]]  # longest first
    assert set(graphs) == {"a", "b", "c"} and failed == {"bad one": "cannot parse ['bad one']"}


def test_batches_hold_sentences_of_one_length_longest_first(toy_plugin, monkeypatch):
    """A batch pads to its longest sentence: batching by length (ties in text order) is what
    makes a neural parser fast, and the order never depends on anything but the texts."""
    calls = []
    real = toy_plugin.toy_parse
    monkeypatch.setattr(toy_plugin, "toy_parse", lambda texts, model=None: calls.append(list(texts)) or real(texts))
    texts = ["a b", "c", "d e f", "g h", "i", "j k l"]
    parse_sentences(texts, plugins.parsers()["toy-parser"], ParseSettings(batch_size=2))
    assert calls == [["d e f", "j k l"], ["a b", "g h"], ["c", "i"]]


@pytest.mark.slow
def test_no_table_of_conventions_alone_when_every_real_line_failed(toy_env):
    src = toy_env / "s.txt"
    src.write_text("a B\n\n", encoding="utf-8")
    r = score("--source", src, "--hyp", src, "--parser", "toy-parser", "-q", env={"TOY_FAIL_AT": "a B"})
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.strip().splitlines()[-1].startswith(f"Error: no line could be scored: {src}:1: parser")


def test_a_full_disk_while_storing_parses_is_one_error_and_keeps_what_was_stored(toy_env):
    """SQLite answers "database or disk is full" (here: a page limit) mid-run: one line naming the
    cache, the batch rolled back (the file stays a usable cache), the batches before it kept."""
    parser = plugins.parsers()["toy-parser"]
    path = toy_env / "full.sqlite3"
    with ParseCache(path) as cache:
        parse_sentences(["a b"], parser, cache=cache)
        pages = cache._db.execute("PRAGMA page_count").fetchone()[0]
        cache._db.execute(f"PRAGMA max_page_count = {pages}")
        with pytest.raises(SemsimError, match=r"full\.sqlite3: cannot store parses \(database or disk is full\)"):
            parse_sentences([" ".join(["word"] * 2000)], parser, cache=cache)
    with ParseCache(path) as cache:
        assert cache.stats()["entries"] == 1
