"""The faithfulness benchmark's logic (issue #20): edit generators, pairs, the lexical baseline,
win rates, spelling-fix pairs, and a small end-to-end run with the toy parser.

The sentences carry hand-written analyses (what spaCy gives them), so no spaCy is needed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from semsim.app.gec import faithfulness as fa

ROOT = Path(__file__).resolve().parent.parent


def tagged(spec: str) -> fa.Tagged:
    """``word/POS/TAG/lemma/dep/head`` (head 0-based; ``-`` for self) or with ``/ENT`` appended."""
    rows = [w.split("/") for w in spec.split()]
    return fa.Tagged(tuple(r[0] for r in rows), tuple(r[1] for r in rows), tuple(r[2] for r in rows),
                     tuple(r[3] for r in rows), tuple(r[4] for r in rows),
                     tuple(i if r[5] == "-" else int(r[5]) for i, r in enumerate(rows)),
                     tuple(r[6] if len(r) > 6 else "" for r in rows))


#: spaCy's analyses (en_core_web_sm) of the test sentences
DOG = tagged("The/DET/DT/the/det/1 dog/NOUN/NN/dog/nsubj/2 bit/VERB/VBD/bite/ROOT/- the/DET/DT/the/det/4 "
             "man/NOUN/NN/man/dobj/2 ./PUNCT/././punct/2")
STUDENT = tagged("the/DET/DT/the/det/2 good/ADJ/JJ/good/amod/2 student/NOUN/NN/student/nsubj/4 "
                 "must/AUX/MD/must/aux/4 know/VERB/VB/know/ROOT/- how/SCONJ/WRB/how/advmod/7 "
                 "to/PART/TO/to/aux/7 understand/VERB/VB/understand/xcomp/4 and/CCONJ/CC/and/cc/7 "
                 "work/VERB/VB/work/conj/7 hard/ADV/RB/hard/advmod/9 to/PART/TO/to/aux/12 get/VERB/VB/get/advcl/9 "
                 "the/DET/DT/the/det/14 idea/NOUN/NN/idea/dobj/12 ./PUNCT/././punct/4")
JOHN = tagged("John/PROPN/NNP/John/nsubj/1/B-PERSON gave/VERB/VBD/give/ROOT/- Mary/PROPN/NNP/Mary/dative/1/B-PERSON "
              "3/NUM/CD/3/nummod/4 books/NOUN/NNS/book/dobj/1 in/ADP/IN/in/prep/1 "
              "London/PROPN/NNP/London/pobj/5/B-GPE ./PUNCT/././punct/1")
WENT = tagged("He/PRON/PRP/he/nsubj/1 went/VERB/VBD/go/ROOT/- home/ADV/RB/home/advmod/1 ./PUNCT/././punct/1")
SAW = tagged("I/PRON/PRP/I/nsubj/1 saw/VERB/VBD/see/ROOT/- him/PRON/PRP/he/dobj/1 "
             "yesterday/NOUN/NN/yesterday/npadvmod/1 ./PUNCT/././punct/1")
SENTENCES = [DOG, STUDENT, JOHN, WENT, SAW]


def run(kind: str, sent: fa.Tagged, seed: int = 0) -> str | None:
    out = fa.GENERATORS[kind](sent, fa.record_rng(seed, 1, 0, kind))
    return None if out is None else " ".join(out)


@pytest.mark.parametrize("kind", fa.KINDS)
def test_each_generator_changes_the_sentence_and_is_deterministic(kind):
    applied = 0
    for sent in SENTENCES:
        for seed in range(5):
            out = run(kind, sent, seed)
            assert out == run(kind, sent, seed)
            if out is not None:
                applied += 1
                assert out.split() != list(sent.tokens) and out.strip()
    assert applied, f"{kind} applied to none of the test sentences"


def test_what_each_generator_does():
    assert run("swap_arguments", DOG) == "The man bit the dog ."
    assert run("swap_arguments", SAW) == "He saw me yesterday ."
    assert run("insert_negation", STUDENT).startswith("the good student must not know")
    assert run("insert_negation", WENT) == "He did not go home ."
    assert run("insert_negation", DOG) == "The dog did not bite the man ."
    out = run("replace_content_word", DOG).split()
    assert sum(a != b for a, b in zip(out, DOG.tokens)) == 1 and len(out) == len(DOG.tokens)
    changed = next(w for w, old in zip(out, DOG.tokens) if w != old)
    assert changed.lower() in fa.UNRELATED["NN"] + fa.UNRELATED["VBD"]
    trunc = run("truncate", STUDENT).split()
    assert trunc[-1] == "." and 0.5 * 15 <= len(trunc) - 1 <= 0.7 * 15
    number = run("change_number_or_entity", JOHN).split()
    assert len(number) == len(JOHN.tokens) and sum(a != b for a, b in zip(number, JOHN.tokens)) == 1
    deleted = run("delete_phrase", STUDENT).split()
    assert len(deleted) < len(STUDENT.tokens) and deleted[-1] == "."


def test_kinds_that_do_not_apply_return_none():
    assert run("swap_arguments", WENT) is None  # no direct object
    assert run("change_number_or_entity", DOG) is None  # no number, no entity
    assert run("truncate", WENT) is None  # too short to cut
    already = tagged("He/PRON/PRP/he/nsubj/2 does/AUX/VBZ/do/aux/2 not/PART/RB/not/neg/2 "
                     "know/VERB/VB/know/ROOT/- ./PUNCT/././punct/2")
    assert run("insert_negation", already) is None  # nothing left to negate
    plain = fa.Tagged.plain(DOG.tokens)
    assert all(run(k, plain) is None for k in fa.NEEDS_TAGS)  # no analysis, no tag-based edits


def test_make_pairs_is_seeded_and_needs_a_tagger_for_tagged_kinds():
    lookup = {s.tokens: s for s in SENTENCES}

    def tagger(sentences):
        return [lookup[tuple(s)] for s in sentences]

    sources = ["the dog bit a man .", "he go home .", "I see him yesterday ."]
    refs = [[" ".join(DOG.tokens), " ".join(WENT.tokens), " ".join(SAW.tokens)], ["", " ".join(WENT.tokens), ""]]
    a = fa.make_pairs(sources, refs, seed=3, tagger=tagger)
    assert a == fa.make_pairs(sources, refs, seed=3, tagger=tagger)
    assert {(p.line, p.ref) for p in a} == {(1, 0), (2, 0), (3, 0), (2, 1)}  # empty references skipped
    assert all(p.faithful != p.edited for p in a)
    cut = fa.make_pairs(sources, refs, kinds=["truncate"], seed=0)  # no tagger needed
    assert [(p.line, p.edited) for p in cut] == [(1, "The dog bit ."), (3, "I saw .")]  # "He went home" is too short
    with pytest.raises(ValueError, match="need a tagger"):
        fa.make_pairs(sources, refs, kinds=["swap_arguments"])
    # a record depends on its own coordinates only, not on which kinds run beside it
    only = fa.make_pairs(sources, refs, kinds=["replace_content_word"], seed=3, tagger=tagger)
    assert only == [p for p in a if p.kind == "replace_content_word"]


@pytest.mark.slow
def test_pairs_do_not_depend_on_the_hash_seed():
    code = ("from semsim.app.gec import faithfulness as fa\n"
            "src = ['a b c d e f g h .'] * 3\n"
            "print([p.edited for p in fa.make_pairs(src, [src], kinds=['truncate'], seed=7)])\n")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": h}).stdout for h in ("0", "1", "77")}
    assert len(outs) == 1


def test_lexical_similarity():
    assert fa.lexical_similarity("a b c", "a b c") == 1.0
    assert fa.lexical_similarity("a b c", "a x c") == pytest.approx(2 / 3)
    assert fa.lexical_similarity("a b", "a b c d") == 0.5
    assert fa.lexical_similarity("", "") == 1.0
    assert fa.lexical_similarity("a b", "") == 0.0
    assert fa.lexical_similarity("gva it", "gave it") == 0.5  # a spelling fix costs a whole token


def test_win_rates_with_ties_and_interval():
    recs = [fa.Pair(line, 0, kind, "s", "f", "e") for line, kind in
            [(1, "truncate"), (2, "truncate"), (3, "truncate"), (4, "truncate"), (1, "swap_arguments")]]
    faithful = [0.9, 0.5, 0.7, 0.2, 0.8]
    edited = [0.1, 0.5, 0.9, 0.2, 0.8]
    out = {w.kind: w for w in fa.win_rates(recs, faithful, edited, n_bootstrap=200)}
    assert list(out) == ["truncate", "swap_arguments"]  # KINDS order
    assert out["truncate"].n == 4 and out["truncate"].rate == pytest.approx((1 + 0.5 + 0 + 0.5) / 4)
    assert out["truncate"].low <= out["truncate"].rate <= out["truncate"].high
    assert out["swap_arguments"].rate == 0.5  # a tie is half a win
    assert fa.win_rates(recs, faithful, edited, n_bootstrap=0)[0].low == 0.5
    with pytest.raises(ValueError):
        fa.win_rates(recs, faithful, edited[:2])


REFERENCE = "A good student must be able to understand and work hard to get the idea ."


def test_spelling_fixes():
    assert fa.near_miss("iede", "idea") and fa.near_miss("gva", "gave") and fa.near_miss("siences", "sciences")
    assert not fa.near_miss("many", "may", lexicon={"many"})  # a real word is no misspelling
    assert not fa.near_miss("For", "Car")  # first letters differ
    assert not fa.near_miss("idea", "idea") and not fa.near_miss("3", "4")
    src = [*STUDENT.tokens[:-2], "iede", "."]
    ref = REFERENCE.split()
    fixed, unfixed, fixes = fa.spelling_fix(src, ref)
    assert fixes == [("iede", "idea")]
    assert fixed == [*src[:-2], "idea", "."] and unfixed == [*ref[:-2], "iede", "."]
    assert fa.spelling_fix(src, src) is None
    pairs = fa.spelling_pairs([" ".join(src)], [[" ".join(ref)], [" ".join(src)]])
    assert [(p.line, p.ref, p.fixes) for p in pairs] == [(1, 0, (("iede", "idea"),))]


def test_records_round_trip_through_json():
    pair = fa.Pair(3, 1, "truncate", "s t", "a b", "a")
    spell = fa.SpellingPair(1, 0, "gva it", "gave it", "gave it", "gva it", (("gva", "gave"),))
    assert fa.read_records([fa.to_json(pair), "", fa.to_json(spell)]) == ([pair], [spell])


def _bench():
    import bench_faithfulness  # benchmarks/ is on the tests' path (pyproject.toml)
    return bench_faithfulness


def test_benchmark_end_to_end_with_the_toy_parser(toy_env):
    bench = _bench()
    sources = ["the dog bit a man .", "the good student must know how to understand and work hard to get the iede ."]
    refs = [[" ".join(DOG.tokens), " ".join(STUDENT.tokens)]]
    lookup = {s.tokens: s for s in SENTENCES}
    pairs = fa.make_pairs(sources, refs, seed=0, tagger=lambda ss: [lookup[tuple(s)] for s in ss])
    spelling = fa.spelling_pairs(sources, refs)
    scored = bench.score_items([(p.source, p.faithful) for p in pairs] + [("", ""), ("a", "")], parser="toy-parser")
    # the toy scheme declares no label weights: the measures that need them are left out
    assert set(scored.scores) == {m for m in bench.MEASURES if "scheme" not in m}
    assert scored.scores["paper"][-2:] == [1.0, 0.0]  # the empty-side convention
    assert all(0 <= x <= 1 for m in scored.scores.values() for x in m)
    text = bench.report(pairs, spelling, parser="toy-parser", n_bootstrap=50)
    for kind in {p.kind for p in pairs}:
        assert f"| {kind} (" in text
    for m in scored.scores:
        assert f"| {m} |" in text
    assert "| mean | valid refs |" in text and "§4.5 reference" in text and "only the fixes" in text
    again = bench.report(pairs, spelling, parser="toy-parser", n_bootstrap=50)
    untimed = text.split("\nParsing ")[0]
    assert untimed == again.split("\nParsing ")[0] and len(untimed) < len(text)  # the same numbers


@pytest.mark.needs_shared
def test_jfleg_pairs(shared):
    """The truncation pairs of JFLEG's first lines (the one kind that needs no spaCy), and the
    spelling-fix pairs, which find the §4.5 example's ``iede`` → ``idea``."""
    src, refs = fa.load_jfleg(shared / "data/jfleg/dev")
    assert len(src) == 754 and all(len(r) == 754 for r in refs)
    pairs = fa.make_pairs(src[:20], [r[:20] for r in refs], kinds=["truncate"], seed=0)
    assert len(pairs) > 40 and all(p.edited.split()[-1] in ".!?" or p.faithful.split()[-1] not in ".!?"
                                   for p in pairs)
    spelling = fa.spelling_pairs(src, refs, fa.reference_lexicon(refs))
    assert any(("iede", "idea") in s.fixes for s in spelling)
    assert np.mean([len(s.fixes) for s in spelling]) >= 1
