"""semsim in a metric suite (#55.3-5): one bad line costs only itself, an open scorer keeps
the parser and the cache across calls, raw text scores a corpus in one call, the signature is
known before scoring, and wrong arguments say what is wanted."""

from __future__ import annotations

import sqlite3

import pytest

import semsim
from semsim import LimitError, ParseError, ParseSettings, Scorer, SettingsError, USim
from semsim.kernel.errors import InputError

TOY = ParseSettings(parser="toy-parser", cache=False)
SOURCE = ["the Cat sat .", "a b c .", "X y z .", "", "q r ."]
OUTPUT = ["the Dog sat .", "a b d .", "X y w .", "", "q r s ."]


def test_errors_are_importable_from_semsim():
    assert {ParseError, LimitError, SettingsError, InputError} <= {getattr(semsim, n) for n in semsim.__all__}


def test_a_bad_line_raises_with_its_index(toy_env, monkeypatch):
    monkeypatch.setenv("TOY_FAIL_AT", "X y w .")
    with pytest.raises(ParseError, match=r"^pair 2 \(correction\): .*toy parser cannot parse this") as caught:
        USim().text_scores(SOURCE, OUTPUT, TOY)
    assert caught.value.index == 2


def test_a_bad_line_costs_only_itself_with_the_fallback(toy_env, monkeypatch):
    clean = USim().text_scores(SOURCE, OUTPUT, TOY)
    monkeypatch.setenv("TOY_FAIL_AT", "X y w .")
    scores = USim().text_scores(SOURCE, OUTPUT, TOY, errors="fallback")
    assert [s.f for k, s in enumerate(scores) if k != 2] == [s.f for k, s in enumerate(clean) if k != 2]
    failed = scores[2]
    assert failed.f == 0.0 and failed.convention == 0.0 and failed.extra["index"] == 2
    assert "correction" in failed.extra["error"] and "toy parser cannot parse this" in failed.extra["error"]
    assert failed.signature == clean[2].signature  # signed as every score of the run
    # every pair failing is still one result per pair, not an error
    every = USim().text_scores(["X y w ."], ["X y w ."], TOY, errors="fallback")
    assert len(every) == 1 and every[0].extra["index"] == 0
    with pytest.raises(SettingsError, match="errors='skip'"):
        USim().text_scores(SOURCE, OUTPUT, TOY, errors="skip")


def test_a_pair_too_large_to_align_raises_a_limit_error_with_its_index(toy_env, monkeypatch):
    monkeypatch.setenv("SEMSIM_MAX_ALIGN_CELLS", "4")
    with pytest.raises(LimitError, match=r"^pair 0 \(correction\): too large") as caught:
        USim().text_scores(["a b c ."], ["a b d ."], TOY)
    assert caught.value.index == 0


@pytest.mark.parametrize(("sources", "corrections", "message"), [
    ([None], ["a ."], r"text_scores: sources\[0\] is NoneType, expected a string"),
    (["a ."], ["b .", 3], r"text_scores: corrections\[1\] is int, expected a string"),
    ("a", "b", r"text_scores: sources must be a list of strings .* got one str; wrap a single pair"),
    (["a ."], ["b .", "c ."], "1 sources but 2 corrections"),
])
def test_text_scores_name_the_position_and_the_type(sources, corrections, message):
    with pytest.raises(InputError, match=message):
        USim().text_scores(sources, corrections, TOY)


def test_corpus_score_given_sentences_says_what_it_wants():
    with pytest.raises(InputError, match=r"is no file: this takes graphs or their paths; to score sentences of "
                                         r"text, call text_scores"):
        USim().corpus_score(["He gave an apple ."], ["He gave apple ."])


def test_the_open_scorer_scores_as_text_scores_and_signs_before_scoring(toy_env):
    parsing = ParseSettings(parser="toy-parser", cache=toy_env / "parses.sqlite3")
    expected = USim().text_scores(SOURCE, OUTPUT, parsing)
    seen = []
    with USim().scorer(parsing, progress=lambda done, total: seen.append((done, total))) as scorer:
        assert isinstance(scorer, Scorer)
        signature = scorer.get_signature()
        assert "parser:toy-parser" in signature and signature.startswith("usim|")
        one_by_one = [scorer.score(s, o) for s, o in zip(SOURCE, OUTPUT)]
        assert [s.f for s in one_by_one] == [s.f for s in expected]
        assert {s.signature.format() for s in one_by_one} == {signature} == {s.signature.format() for s in expected}
        corpus = scorer.corpus_score(SOURCE, OUTPUT)
        assert corpus.macro == pytest.approx(sum(s.f for s in expected) / len(expected))
        # score() took each pair's graphs from the open cache (text_scores above filled it), with
        # no parse to report; corpus_score's call tells of its 8 distinct sentences, all cached
        assert seen == [(8, 8)]
        cache = scorer._store
    assert scorer.closed and cache is not None
    with pytest.raises(sqlite3.ProgrammingError):  # closed
        cache._db.execute("SELECT 1")
    with pytest.raises(semsim.SemsimError, match="closed"):
        scorer.score("a .", "b .")
    assert USim().text_corpus_score(SOURCE, OUTPUT, parsing).macro == corpus.macro


def test_the_open_scorer_keeps_one_cache_connection(toy_env, monkeypatch):
    """The cache is opened once for all calls, not once a call (12-29 ms a call before)."""
    import semsim.app.cache as cache
    opened = []
    original = cache.ParseCache.__init__
    monkeypatch.setattr(cache.ParseCache, "__init__", lambda self, *a: (opened.append(a), original(self, *a))[1])
    with USim().scorer(ParseSettings(parser="toy-parser", cache=toy_env / "p.sqlite3")) as scorer:
        for s, o in zip(SOURCE, OUTPUT):
            scorer.score(s, o)
    assert len(opened) == 1


@pytest.mark.parametrize("word", ["no", "False", "yes", "0", ""])
def test_a_cache_given_a_flag_word_is_refused_and_no_file_made(word, tmp_path, monkeypatch):
    """``cache="no"`` meant False: it is refused when the settings are made, not a file named ``no``."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SettingsError, match=rf"cache='{word}': expected True \(the default file\), False"):
        ParseSettings(cache=word)
    assert list(tmp_path.iterdir()) == []


def test_api_errors_name_keywords_and_the_command_line_its_options(toy_env):
    """A caller of the API is told ``batch_timeout=``, never ``--batch-timeout``, which it cannot pass."""
    from support import run_cli
    with pytest.raises(SettingsError) as caught:
        ParseSettings(parser="toy-parser", batch_timeout=9)
    assert str(caught.value).startswith("batch_timeout=... needs executor dask") and "--" not in str(caught.value)
    (toy_env / "s.txt").write_text("a .\n", encoding="utf-8")
    r = run_cli("score", "--source", toy_env / "s.txt", "--hyp", toy_env / "s.txt", "--parser", "toy-parser",
                "--batch-timeout", "9")
    assert r.exit_code != 0 and "--batch-timeout needs executor dask" in r.output
    with pytest.raises(SettingsError, match=r"^batch_timeout=\.\.\."):  # the command line's context has ended
        ParseSettings(parser="toy-parser", batch_timeout=9)


def test_reading_amr_without_its_plugin_says_which_to_install(isolated_plugins):
    from pathlib import Path
    amr = Path(__file__).resolve().parent.parent / "examples" / "fig1-source.amr"
    with pytest.raises(InputError, match=r"no installed plugin reads \.amr files .*pip install -e plugins/amr"):
        semsim.read(amr)


def test_the_usim_docstring_lists_every_setting():
    from semsim.kernel.metrics.settings import SETTINGS
    assert all(f"- ``{s.name}`` = ``{s.default!r}``" in USim.__doc__ for s in SETTINGS)


@pytest.mark.slow
def test_the_docs_integration_example_runs_on_the_shipped_parser(tmp_path):
    """docs/api/semsim.md's 40-line metric-suite integration, run as written: it scores text
    with the pinned shipped model, survives a line over the token limit, and signs."""
    import os
    import re
    import subprocess
    import sys
    from pathlib import Path
    page = (Path(__file__).resolve().parent.parent / "docs" / "api" / "semsim.md").read_text(encoding="utf-8")
    (code,) = [b for b in re.findall(r"```python\n(.*?)```", page, re.S) if "USim in a metric suite" in b]
    assert len(code.strip().splitlines()) <= 45
    env = {**os.environ, "SEMSIM_CACHE_DIR": str(tmp_path / "cache")}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env,
                       timeout=300, check=False)
    assert r.returncode == 0, r.stderr[-3000:]
    signature, result = r.stdout.splitlines()[:2]
    assert "parser:ucca-span|model:ucca-span-ewt-minilm-l2@ff0cf8e76f1d" in signature
    assert "'failed': [{'error': 'source: " in result and signature in result


def test_text_scores_tell_a_progress_callback(toy_env):
    seen = []
    USim().text_scores(SOURCE, OUTPUT, ParseSettings(parser="toy-parser", cache=False, batch_size=2),
                       progress=lambda done, total: seen.append((done, total)))
    total = len({t for t in [*SOURCE, *OUTPUT] if t.strip()})
    assert len(seen) > 1 and seen[-1] == (total, total) and [d for d, _ in seen] == sorted(d for d, _ in seen)
    with pytest.raises(InputError, match="progress=3: expected a callable"):
        USim().text_scores(SOURCE, OUTPUT, TOY, progress=3)
