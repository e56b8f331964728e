"""Conservatism measures (Choshen & Abend 2018, §2) and `semsim conservatism`.

Expected values are worked out by hand in the comments: WordChange = changed aligned words
+ unaligned source words + unaligned correction words, over alphanumeric characters only.
"""

from __future__ import annotations

import json
import sys

import pytest
from support import run_cli as run

from semsim.app.gec.conservatism import (
    conservatism,
    count_sentences,
    sentence_conservatism,
    spearman_order,
    summarise,
    words,
)
from semsim.kernel.errors import InputError


# -- per-sentence measures ------------------------------------------------------------------------
def test_non_alphanumeric_characters_are_removed_within_and_as_tokens():
    assert words("He said , \" do n't ! \" -- e-mail U.S.") == ["He", "said", "do", "nt", "email", "US"]


def test_identical_sentences_change_nothing():
    r = sentence_conservatism("He goes home .", "He goes home .")
    assert (r.word_change, r.aligned, r.rho, r.split, r.concatenated) == (0, 3, 1.0, False, False)


def test_punctuation_changes_are_not_word_changes():
    r = sentence_conservatism("However he goes home", "However , he goes home .")
    assert r.word_change == 0


def test_word_change_counts_altered_and_added_words():
    # He-He, go-goes (altered), to-to, school-school; "the" added: 1 + 1
    r = sentence_conservatism("He go to school .", "He goes to the school .")
    assert (r.changed, r.deleted, r.added, r.word_change) == (1, 0, 1, 2)
    assert r.rho == 1.0  # aligned positions (0,0) (1,1) (2,2) (3,4) keep their order


def test_unrelated_substitution_is_a_deletion_and_an_addition():
    # "the"/"a" share no character, so USim's partial alignment leaves both unaligned
    r = sentence_conservatism("the cat", "a cat")
    assert (r.changed, r.deleted, r.added, r.word_change) == (0, 1, 1, 2)
    assert r.rho is None  # one aligned word: no order to compare


def test_case_counts_as_a_change_unless_ignored():
    assert sentence_conservatism("i think so", "I think so").word_change == 1
    assert sentence_conservatism("i think so", "I think so", ignore_case=True).word_change == 0


def test_reordering_lowers_rho():
    # source ranks 1 2 3 4 -> correction ranks 4 1 2 3: d = 3,-1,-1,-1, Σd² = 12,
    # ρ = 1 - 6·12 / (4·15) = -0.2; all words aligned and unchanged
    r = sentence_conservatism("yesterday I went home", "I went home yesterday")
    assert r.word_change == 0
    assert r.rho == pytest.approx(-0.2)


def test_spearman_order():
    assert spearman_order([(0, 1), (1, 0)]) == pytest.approx(-1.0)
    assert spearman_order([(2, 5), (0, 0), (1, 3)]) == 1.0  # unsorted input, same order
    assert spearman_order([(0, 0)]) is None
    assert spearman_order([]) is None
    # ranks (1..5) vs (2,1,3,5,4): Σd² = 1+1+0+1+1 = 4, ρ = 1 - 24/120 = 0.8
    assert spearman_order([(0, 1), (1, 0), (2, 2), (3, 4), (4, 3)]) == pytest.approx(0.8)


@pytest.mark.parametrize(("text", "n"), [
    ("", 0), (". .", 0), ("Learn", 1), ("I go .", 1), ("I go . He comes", 2), ("I go . He comes .", 2),
    ("it 's legal ! ! ! ! )", 1), ("sleep ! .", 1), ("Apples , pears etc. and Mr. Smith .", 1),
    ('He said " go . " and left ?', 2), ("Really ?! Yes .", 2), ("She asked : \" why ? \"", 1),
])
def test_count_sentences(text, n):
    assert count_sentences(text) == n


def test_split():
    # 1 -> 2 sentences; "and" deleted
    r = sentence_conservatism("I came home and I slept .", "I came home . I slept .")
    assert (r.source_sentences, r.output_sentences, r.split, r.concatenated) == (1, 2, True, False)
    assert r.word_change == 1


def test_concatenation():
    # 2 -> 1 sentences; the second "I" (deleted) and "and" (added) share no character
    r = sentence_conservatism("I came home . I slept .", "I came home and slept .")
    assert (r.source_sentences, r.output_sentences, r.split, r.concatenated) == (2, 1, False, True)
    assert (r.deleted, r.added, r.word_change) == (1, 1, 2)


def test_empty_lines_count_their_words_and_are_neither_split_nor_concatenated():
    added = sentence_conservatism("", "Hello there .")
    assert (added.word_change, added.added, added.rho, added.split) == (2, 2, None, False)
    deleted = sentence_conservatism("Hi . Bye .", "")
    assert (deleted.word_change, deleted.deleted, deleted.concatenated) == (2, 2, False)
    both = sentence_conservatism("", "")
    assert (both.word_change, both.rho, both.source_sentences, both.output_sentences) == (0, None, 0, 0)


def test_conservatism_numbers_lines_and_needs_parallel_input():
    rs = conservatism(["a b", "c d"], ["a b", "c e d"])
    assert [r.line for r in rs] == [1, 2]
    assert [r.word_change for r in rs] == [0, 1]
    with pytest.raises(InputError, match="2 corrections for 3 source lines"):
        conservatism(["a", "b", "c"], ["a", "b"])


def test_summarise():
    rs = conservatism(["He go to school .", "yesterday I went home", "the cat", "I came home and I slept .", "ok"],
                      ["He goes to the school .", "I went home yesterday", "a cat", "I came home . I slept .", "ok"])
    # WordChange 2, 0, 2, 1, 0; ρ 1, -0.2, None, 1, None
    s = summarise(rs, "sys")
    assert (s.system, s.n, s.word_change_total, s.unchanged) == ("sys", 5, 5, 2)
    assert s.word_change_mean == pytest.approx(1.0)
    assert s.unchanged_share == pytest.approx(0.4)
    assert s.word_change_counts == (2, 1, 2)
    assert (s.rho_n, s.rho_undefined, s.reordered) == (3, 2, 1)
    assert s.rho_mean == pytest.approx((1 - 0.2 + 1) / 3)
    assert s.rho_median == 1.0
    assert s.rho_cdf["0"] == pytest.approx(1 / 3)
    assert s.rho_cdf["0.99"] == pytest.approx(1 / 3)
    assert (s.splits, s.concatenations, s.split_share) == (1, 0, pytest.approx(0.2))
    assert (s.source_sentences, s.output_sentences) == (5, 6)
    assert json.dumps(s.as_dict())  # JSON-able


# -- CLI -------------------------------------------------------------------------------------------
SRC = ["He go to school .", "yesterday I went home", "the cat sat .", "I came home and I slept ."]
SYS = ["He goes to the school .", "yesterday I went home", "the cat sat .", "I came home and I slept ."]
REF = ["He goes to school .", "I went home yesterday", "a cat sat .", "I came home . I slept ."]


@pytest.fixture
def files(tmp_path):
    out = {}
    for name, lines in (("src.txt", SRC), ("sys.txt", SYS), ("ref.txt", REF)):
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        out[name] = tmp_path / name
    return out


def test_cli_json_matches_the_api(files):
    r = run("conservatism", "--source", files["src.txt"], "--hyp", files["sys.txt"], "--ref", files["ref.txt"],
            "--format", "json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert [s["system"] for s in doc["systems"]] == ["sys.txt", "ref:ref.txt"]
    assert doc["systems"][0] == summarise(conservatism(SRC, SYS), "sys.txt").as_dict()
    ref = doc["systems"][1]
    assert ref["word_change_counts"] == [1, 2, 1]  # WordChange 1 (go->goes), 0, 2 (the/a), 1 (and)
    assert (ref["splits"], ref["reordered"]) == (1, 1)
    assert len(doc["sentences"]) == 8
    sig = "conservatism|case:mixed|version:0.1.0"
    assert doc["sentences"][5] == {"system": "ref:ref.txt", **conservatism(SRC, REF)[1].as_dict(), "signature": sig}
    assert doc["signature"] == sig


def test_cli_text_table(files):
    r = run("conservatism", "--source", files["src.txt"], "--hyp", files["sys.txt"], "--ref", files["ref.txt"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0].split()[:4] == ["system", "n", "mean", "WC"]
    sys_row = next(line for line in lines if line.startswith("sys.txt ")).split()
    assert sys_row[:4] == ["sys.txt", "4", "0.500", "75.0%"]  # WordChange 2,0,0,0
    assert any(line.split() == ["ref:ref.txt", "1", "2", "1", *["0"] * 8] for line in lines)


def test_cli_jsonl_tsv_and_output_file(files, tmp_path):
    base = ["conservatism", "--source", files["src.txt"], "--hyp", files["sys.txt"]]
    r = run(*base, "--format", "jsonl")
    records = [json.loads(line) for line in r.output.splitlines()]
    assert [r.get("summary", False) for r in records] == [False] * 4 + [True]
    assert [r["word_change"] for r in records[:4]] == [2, 0, 0, 0]
    out = tmp_path / "out.tsv"
    r = run(*base, "--format", "tsv", "-o", out)
    assert r.exit_code == 0, r.output
    rows = out.read_text(encoding="utf-8").splitlines()
    header = rows[0].split("\t")
    assert header[:3] == ["system", "line", "source_words"]
    assert [row.split("\t")[header.index("word_change")] for row in rows[1:]] == ["2", "0", "0", "0"]
    assert not (tmp_path / "out.tsv.partial").exists()


@pytest.mark.slow
@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_cli_plot_is_written_and_deterministic(files, tmp_path, suffix):
    paths = [tmp_path / f"a.{suffix}", tmp_path / f"b.{suffix}"]
    for p in paths:
        r = run("conservatism", "--source", files["src.txt"], "--hyp", files["sys.txt"], "--ref", files["ref.txt"],
                "--plot", p, "-o", tmp_path / "table.txt")
        assert r.exit_code == 0, r.output
    data = paths[0].read_bytes()
    assert len(data) > 1000
    assert data.startswith(b"\x89PNG") if suffix == "png" else b"<svg" in data[:1000]
    assert data == paths[1].read_bytes()
    assert not list(tmp_path.glob("*.partial"))


def test_cli_plot_needs_a_known_suffix_and_matplotlib(files, tmp_path, monkeypatch):
    r = run("conservatism", "--source", files["src.txt"], "--hyp", files["sys.txt"], "--plot", tmp_path / "fig.gif")
    assert r.exit_code == 1
    assert "fig.gif: cannot tell the plot format" in r.output
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # find_spec reports it missing
    r = run("conservatism", "--source", files["src.txt"], "--hyp", files["sys.txt"], "--plot", tmp_path / "fig.png")
    assert r.exit_code == 1
    assert "plotting needs matplotlib: pip install 'semsim[plot]'" in r.output
    assert not (tmp_path / "fig.png").exists()


def _error(r):
    assert r.exit_code == 1
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), r.output
    return lines[0]


def test_cli_errors_name_file_and_line(files, tmp_path):
    src = files["src.txt"]
    assert f"{tmp_path / 'nope.txt'}: no such file" in _error(run("conservatism", "--source", src, "--hyp",
                                                                  tmp_path / "nope.txt"))
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("ok\ncaf\xe9\n".encode("latin-1"))
    assert f"{bad}:2: not UTF-8" in _error(run("conservatism", "--source", src, "--hyp", bad))
    short = tmp_path / "short.txt"
    short.write_text("a\nb\n", encoding="utf-8")
    assert f"{short}:3: ends after line 2 but the source {src} has 4 lines" in _error(
        run("conservatism", "--source", src, "--hyp", short))
    long = tmp_path / "long.txt"
    long.write_text("a\nb\nc\nd\ne\n", encoding="utf-8")
    assert f"{long}:5: no source line" in _error(run("conservatism", "--source", src, "--ref", long))
    empty = tmp_path / "empty.txt"
    empty.write_text("", encoding="utf-8")
    assert f"{empty}: no sentences" in _error(run("conservatism", "--source", empty, "--hyp", src))
    assert "at least one --hyp" in _error(run("conservatism", "--source", src))


# -- JFLEG dev -------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.needs_shared
def test_jfleg_dev_references(shared):
    """References against their sources: properties any sane run must have, not its numbers."""
    from semsim.app.textfiles import read_lines
    d = shared / "data/jfleg/dev"
    src = read_lines(d / "dev.src")
    identity = summarise(conservatism(src, src), "source")
    assert (identity.word_change_total, identity.reordered, identity.splits, identity.concatenations) == (0, 0, 0, 0)
    for k in range(4):
        rs = conservatism(src, read_lines(d / f"dev.ref{k}"))
        s = summarise(rs, f"ref{k}")
        assert s.n == len(src) == 754
        assert sum(s.word_change_counts) == s.n
        assert all(r.word_change == r.changed + r.deleted + r.added for r in rs)
        assert all(r.word_change >= abs(r.source_words - r.output_words) for r in rs)
        # JFLEG's fluency references change most sentences, a few words each, keeping word order
        assert 0.05 < s.unchanged_share < 0.5
        assert 1 < s.word_change_mean < 10
        assert s.rho_median == 1.0 and 0.9 < s.rho_mean < 1.0
        assert 0 < s.reordered < s.rho_n / 2
        assert s.rho_undefined < 0.01 * s.n
        # one sentence per line on both sides: splits and concatenations are rare
        assert s.source_sentences >= s.n - 1
        assert s.splits + s.concatenations < 0.02 * s.n


def test_words_keep_exactly_the_alphanumeric_characters_of_each_token():
    """§2's words: each token without its non-alphanumeric characters (``str.isalnum``), empty
    ones dropped; the regular expression that does it agrees on every code point."""
    from semsim.app.gec.conservatism import words
    assert words("It 's a well-known fact_1 , isn't it ?") == ["It", "s", "a", "wellknown", "fact1", "isnt", "it"]
    every = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    kept = ["".join(c for c in token if c.isalnum()) for token in every.split()]
    assert words(every) == [w for w in kept if w] and len(words(every)) > 1
