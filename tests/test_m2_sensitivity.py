"""M2 reading, edit application, and the §4.4 error-type sensitivity study (``semsim sensitivity``).

End-to-end checks use the toy parser (capitalised words Big, others Small; punctuation
Punct, ignored), under which USim is simple enough to compute by hand: with tokens aligned
one to one, a root edge matches when its word keeps its label, so for n1 and n2 words and m
matching labels P = m/n1, R = m/n2.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from support import run_cli

import semsim.app.plugins as plugins
from semsim.api import USim
from semsim.app.gec.m2 import Edit, apply_edits, overlap, parse_m2, read_m2, resolve_overlaps
from semsim.app.gec.sensitivity import EditDelta, build_chains, by_type, chain_texts, edit_deltas
from semsim.app.parsing import find_parser, parse_sentences
from semsim.kernel.errors import InputError

TOY = str(Path(__file__).with_name("toy_plugin.py"))
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "sensitivity.m2"

MULTI = """S The cat sit on mat .
A 2 3|||SVA|||sits|||REQUIRED|||-NONE-|||0
A 4 4|||ArtOrDet|||the|||REQUIRED|||-NONE-|||0
A 3 4|||Prep|||on||at|||REQUIRED|||-NONE-|||0
A 2 3|||Vt|||sat|||REQUIRED|||-NONE-|||1
A 4 4|||ArtOrDet|||a|||REQUIRED|||-NONE-|||1

S Nothing wrong here .
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0
A 1 2|||Wci|||-NONE-|||REQUIRED|||-NONE-|||1
"""


def edit(start: int, end: int, correction: str = "", etype: str = "X") -> Edit:
    return Edit(start, end, etype, (correction,))


# -- reading -------------------------------------------------------------------------------------------
def test_annotators_noop_and_alternatives():
    s1, s2 = parse_m2(MULTI)
    assert s1.tokens == ("The", "cat", "sit", "on", "mat", ".") and s1.annotators == (0, 1) and s1.line == 1
    assert [(e.start, e.end, e.type, e.correction) for e in s1.edits_of(0)] == [
        (2, 3, "SVA", "sits"), (4, 4, "ArtOrDet", "the"), (3, 4, "Prep", "on")]
    assert s1.edits_of(0)[2].corrections == ("on", "at")  # '||' separates alternatives; the first is applied
    assert [e.correction for e in s1.edits_of(1)] == ["sat", "a"]
    assert s1.edits_of(0)[1].kind == "insertion" and s1.edits_of(0)[1].line == 3
    # the noop is no edit, but annotator 0 did annotate the sentence; -NONE- as correction is a deletion
    assert s2.annotators == (0, 1) and s2.edits_of(0) == () and s2.index == 1 and s2.line == 8
    assert s2.edits_of(1)[0].kind == "deletion" and s2.edits_of(1)[0].tokens == []


def test_empty_alternative_next_to_the_field_separator():
    (s,) = parse_m2("S a b c\nA 1 2|||Prep|||on|||||REQUIRED|||-NONE-|||3\n")
    e = s.edits[0]
    assert e.corrections == ("on", "") and e.required == "REQUIRED" and e.annotator == 3


@pytest.mark.parametrize(("text", "line", "message"), [
    ("A 0 1|||Nn|||x|||REQUIRED|||-NONE-|||0\n", 1, "outside a sentence"),
    ("S a b\nA 0 x|||Nn|||y|||REQUIRED|||-NONE-|||0\n", 2, "malformed edit span '0 x'"),
    ("S a b\n\nS c\nA 0 1|||Nn|||y|||REQUIRED|||0\n", 4, "6 fields"),
    ("S a b\nA 0 3|||Nn|||y|||REQUIRED|||-NONE-|||0\n", 2, "outside the sentence's 2 tokens"),
    ("S a b\nA 2 1|||Nn|||y|||REQUIRED|||-NONE-|||0\n", 2, "outside the sentence"),
    ("S a b\nA 0 1|||Nn|||y|||REQUIRED|||-NONE-|||one\n", 2, "annotator id 'one'"),
    ("S a b\nA 0 1||||||y|||REQUIRED|||-NONE-|||0\n", 2, "without an error type"),
    ("S a b\n\nT what\n", 3, "expected an 'S' line"),
])
def test_malformed_lines_name_file_and_line(tmp_path, text, line, message):
    path = tmp_path / "bad.m2"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_m2(path)
    assert info.value.line == line and message in info.value.message
    assert str(info.value).startswith(f"{path}:{line}: ")


def test_encoding_errors_and_accepted_variants(tmp_path):
    bad = tmp_path / "latin1.m2"
    bad.write_bytes("S a b\n\nS caf\u00e9 ok\n".encode("latin-1"))
    with pytest.raises(InputError) as info:
        read_m2(bad)
    assert info.value.line == 3 and "not UTF-8" in str(info.value)
    good = tmp_path / "bom.m2"  # byte-order mark, CRLF, no final newline, S lines not separated
    good.write_bytes("\ufeffS caf\u00e9 x\r\nA 1 2|||Nn|||y|||REQUIRED|||-NONE-|||0\r\nS z".encode())
    s1, s2 = read_m2(good)
    assert s1.tokens == ("caf\u00e9", "x") and s1.edits[0].correction == "y" and s2.tokens == ("z",)
    (tmp_path / "empty.m2").write_text("\n\n", encoding="utf-8")
    with pytest.raises(InputError, match="no sentences"):
        read_m2(tmp_path / "empty.m2")
    with pytest.raises(InputError, match="no such file"):
        read_m2(tmp_path / "missing.m2")


# -- overlaps and application ------------------------------------------------------------------------------
def test_overlap_rules():
    assert overlap(edit(1, 3), edit(2, 4))  # share token 2
    assert overlap(edit(1, 3), edit(2, 2))  # insertion strictly inside a span
    assert not overlap(edit(2, 2, "a"), edit(2, 2, "b"))  # two insertions at one point: in file order
    assert not overlap(edit(1, 3), edit(3, 4))  # adjacent
    assert not overlap(edit(1, 3), edit(1, 1))  # insertion just before the span
    assert not overlap(edit(1, 3), edit(3, 3))  # insertion just after it


def test_errant_s_insertions_at_one_offset_are_applied_in_file_order():
    """ERRANT writes "his or her" as three insertions at one offset: none is skipped, and every
    chain (any order, any subset) puts them in file order (issue #35)."""
    (s,) = parse_m2("S everyone loves mother .\nA 2 2|||M:DET|||his|||REQUIRED|||-NONE-|||0\n"
                    "A 2 2|||M:CONJ|||or|||REQUIRED|||-NONE-|||0\nA 2 2|||M:DET|||her|||REQUIRED|||-NONE-|||0\n")
    kept, skipped = resolve_overlaps(s.edits_of(0))
    assert len(kept) == 3 and skipped == []
    assert apply_edits(s.tokens, kept[::-1]) == ["everyone", "loves", "his", "or", "her", "mother", "."]
    assert apply_edits(s.tokens, [kept[2], kept[0]]) == ["everyone", "loves", "his", "her", "mother", "."]
    for seed in range(5):
        (chain,) = build_chains([s], annotator=0, seed=seed)
        assert chain.versions[-1] == "everyone loves his or her mother ." and chain.skipped == ()


def test_overlapping_edits_keep_the_earlier_in_file_order():
    (s,) = parse_m2("S a b c d e\nA 1 3|||Wci|||x|||REQUIRED|||-NONE-|||0\nA 2 4|||Wci|||y|||REQUIRED|||-NONE-|||0\n"
                    "A 2 3|||Nn|||z|||REQUIRED|||-NONE-|||1\nA 4 5|||Nn|||w|||REQUIRED|||-NONE-|||0\n")
    kept, skipped = resolve_overlaps(s.edits_of(0))
    assert [e.line for e in kept] == [2, 5] and [(c.skipped.line, c.kept.line) for c in skipped] == [(3, 2)]
    assert resolve_overlaps(s.edits_of(1)) == (list(s.edits_of(1)), [])  # other annotators are separate
    (chain,) = build_chains([s], annotator=0)
    assert [c.skipped.line for c in chain.skipped] == [3] and chain.versions[-1] == "a x d w"


def test_apply_edits_offsets():
    tokens = ["a", "b", "c", "d", "e"]
    assert apply_edits(tokens, [edit(0, 0, "X")]) == ["X", "a", "b", "c", "d", "e"]
    assert apply_edits(tokens, [edit(5, 5, "Y Z")]) == ["a", "b", "c", "d", "e", "Y", "Z"]
    assert apply_edits(tokens, [edit(1, 3)]) == ["a", "d", "e"]
    assert apply_edits(tokens, [edit(2, 3, "C1 C2 C3")]) == ["a", "b", "C1", "C2", "C3", "d", "e"]
    several = [edit(4, 5, "E"), edit(0, 1), edit(2, 2, "ins"), edit(2, 4, "CD"), edit(5, 5, "end")]
    expected = ["b", "ins", "CD", "E", "end"]
    assert apply_edits(tokens, several) == expected
    assert apply_edits(tokens, several[::-1]) == expected  # source offsets: order does not matter
    assert apply_edits(tokens, [several[1], several[3]]) == ["b", "CD", "e"]  # any subset
    assert apply_edits(tokens, []) == tokens and tokens == ["a", "b", "c", "d", "e"]  # input not modified
    with pytest.raises(ValueError, match="overlapping"):
        apply_edits(tokens, [edit(1, 3), edit(2, 2, "x")])


# -- chains ------------------------------------------------------------------------------------------
def long_sentence(n: int = 8) -> str:
    words = [f"w{i}" for i in range(n)]
    return "S " + " ".join(words) + "\n" + "".join(f"A {i} {i + 1}|||T{i}|||W{i}|||REQUIRED|||-NONE-|||0\n"
                                                  for i in range(n))


def test_seeded_order_is_deterministic_and_per_chain():
    sentences = parse_m2(long_sentence() + "\n" + MULTI)
    one = build_chains(sentences, seed=7)
    assert one == build_chains(sentences, seed=7)
    assert [e.type for e in one[0].edits] != [e.type for e in build_chains(sentences, seed=8)[0].edits]
    assert sorted(e.type for e in one[0].edits) == [f"T{i}" for i in range(8)]  # a permutation
    assert one[0].versions[0] == " ".join(f"w{i}" for i in range(8))
    assert one[0].versions[-1] == " ".join(f"W{i}" for i in range(8))  # every order ends at the correction
    for k, version in enumerate(one[0].versions):  # version k = exactly the first k edits applied
        assert sum(w.startswith("W") for w in version.split()) == k
    # a chain's draws depend only on (seed, sentence, annotator): not on the other sentences or annotators
    assert build_chains(sentences[1:], seed=7) == [c for c in one if c.sentence.index in (1, 2)]
    assert build_chains(sentences, annotator=1, seed=7) == [c for c in one if c.annotator == 1]
    original = build_chains(sentences, seed=7, anchor="original")
    assert [c.edits for c in original] == [c.edits for c in one] and all(c.anchor == 0 for c in original)


@pytest.mark.slow
def test_order_does_not_depend_on_the_hash_seed():
    code = ("from semsim.app.gec.m2 import parse_m2; from semsim.app.gec.sensitivity import build_chains; "
            f"c = build_chains(parse_m2({long_sentence()!r}), seed=5)[0]; print([e.type for e in c.edits], c.anchor)")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": h}).stdout for h in ("1", "2")}
    assert len(outs) == 1


# -- deltas by hand (toy parser) -------------------------------------------------------------------------------
HAND = "S the cat sat\nA 1 2|||Nn|||Cat|||REQUIRED|||-NONE-|||0\nA 3 3|||Prep|||down|||REQUIRED|||-NONE-|||0\n"
# USim under the toy parser (symmetric here), worked out by hand from P = m/n1, R = m/n2:
A, B, C, D = "the cat sat", "the Cat sat", "the cat sat down", "the Cat sat down"
BY_HAND = {frozenset({A, B}): 2 / 3,   # 3 words each, 'cat' changed label: m=2
           frozenset({A, C}): 6 / 7,   # m=3, P=1, R=3/4
           frozenset({A, D}): 4 / 7,   # m=2, P=2/3, R=1/2
           frozenset({B, C}): 4 / 7,
           frozenset({B, D}): 6 / 7,
           frozenset({C, D}): 3 / 4}   # 4 words each, m=3


def hand_usim(a: str, b: str) -> float:
    return 1.0 if a == b else BY_HAND[frozenset({a, b})]


def toy_deltas(toy_plugin, text: str, **kw):
    chains = build_chains(parse_m2(text), **kw)
    graphs = parse_sentences(chain_texts(chains), find_parser("toy-parser", None))
    return chains, edit_deltas(chains, graphs, USim().sentence_score)


def test_original_anchor_deltas_by_hand(toy_plugin):
    for seed in range(6):  # both orders occur among these seeds
        _, deltas = toy_deltas(toy_plugin, HAND, seed=seed, anchor="original")
        order = [d.type for d in deltas]
        got = {d.type: d.delta for d in deltas}
        if order == ["Nn", "Prep"]:  # A -> B -> D
            assert got == pytest.approx({"Nn": 2 / 3 - 1, "Prep": 4 / 7 - 2 / 3})
        else:  # A -> C -> D
            assert order == ["Prep", "Nn"] and got == pytest.approx({"Prep": 6 / 7 - 1, "Nn": 4 / 7 - 6 / 7})
        assert deltas[0].usim_before == 1.0 and deltas[-1].after == D and deltas[0].before == A
    orders = {tuple(d.type for d in toy_deltas(toy_plugin, HAND, seed=s, anchor="original")[1]) for s in range(6)}
    assert orders == {("Nn", "Prep"), ("Prep", "Nn")}


def test_random_anchor_deltas_by_hand(toy_plugin):
    anchors = set()
    for seed in range(12):
        (chain,), deltas = toy_deltas(toy_plugin, HAND, seed=seed)
        anchor = chain.versions[chain.anchor]
        anchors.add(chain.anchor)
        for d in deltas:
            assert d.anchor == chain.anchor
            assert d.usim_before == pytest.approx(hand_usim(anchor, d.before))
            assert d.usim_after == pytest.approx(hand_usim(anchor, d.after))
            assert d.delta == pytest.approx(hand_usim(anchor, d.after) - hand_usim(anchor, d.before))
    assert anchors == {0, 1, 2}  # the "source" is drawn from all three sentences of the chain


def test_each_distinct_sentence_parsed_once(toy_plugin, tmp_path, monkeypatch):
    log = tmp_path / "parsed.log"
    monkeypatch.setenv("TOY_PARSE_LOG", str(log))
    chains, _ = toy_deltas(toy_plugin, HAND + "\n" + HAND, seed=1)  # the same sentence twice
    texts = chain_texts(chains)
    assert len(texts) == 6 and texts.count(A) == 2 and texts.count(D) == 2
    parsed = log.read_text(encoding="utf-8").splitlines()
    assert sorted(parsed) == sorted(set(texts))  # each distinct version parsed exactly once


def test_by_type_mean_se_ci_and_order():
    def d(t: str, x: float) -> EditDelta:
        return EditDelta(1, 1, 0, 1, 1, t, 0, 1, "a", "b", 0, "a", "b", 1.0, 1.0 + x, x)
    rows = by_type([d("X", 0.1), d("X", 0.3), d("Y", -0.5), d("Z", 0.4), d("W", 0.0), d("W", 0.0)], seed=1)
    assert [r.type for r in rows] == ["Z", "X", "W", "Y"]  # most rewarded first
    x = rows[1]
    assert (x.n, x.mean, x.se) == (2, pytest.approx(0.2), pytest.approx(0.1))  # sd 0.1414 / sqrt(2)
    assert 0.1 <= x.ci_low < x.ci_high <= 0.3
    assert rows[0].se is None and rows[0].ci_low is None  # one edit: no spread to speak of
    assert (rows[2].se, rows[2].ci_low, rows[2].ci_high) == (0.0, 0.0, 0.0)
    again = by_type([d("X", 0.1), d("X", 0.3)], seed=1)  # a type's CI does not depend on the other types
    assert (again[0].ci_low, again[0].ci_high) == (x.ci_low, x.ci_high)
    assert np.isclose(by_type([d("X", 0.1), d("X", 0.3)], n_bootstrap=0)[0].se, 0.1)


# -- CLI -----------------------------------------------------------------------------------------------
run = functools.partial(run_cli, "sensitivity")


def test_cli_json_and_per_edit_records(toy_plugin, tmp_path):
    m2 = tmp_path / "hand.m2"
    m2.write_text(HAND + "\nS Nothing here\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n", encoding="utf-8")
    common = ["--parser", "toy-parser", "--cache", tmp_path / "c.sqlite", "--anchor", "original", "-q"]
    r = run(m2, *common, "--format", "json", "-o", tmp_path / "edits.jsonl", "--seed", "0")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    records = [json.loads(x) for x in (tmp_path / "edits.jsonl").read_text().splitlines()]
    assert len(records) == 2 and {x["type"] for x in records} == {"Nn", "Prep"}
    expected = ({"Nn": 2 / 3 - 1, "Prep": 4 / 7 - 2 / 3} if records[0]["type"] == "Nn"
                else {"Prep": 6 / 7 - 1, "Nn": 4 / 7 - 6 / 7})
    assert {t["type"]: t["mean"] for t in doc["types"]} == pytest.approx(expected)
    assert [t["type"] for t in doc["types"]] == sorted(expected, key=lambda t: -expected[t])  # most rewarded first
    assert doc["summary"]["edits"] == 2 and doc["summary"]["chains"] == 2 and doc["summary"]["sentences"] == 2
    assert records[0]["signature"].startswith("usim|variant:paper") and records[0]["step"] == 1
    assert "|scheme:toy@" in records[0]["signature"] and "|plugin:toy|" in records[0]["signature"]
    assert records[0]["before"] == A and records[1]["after"] == D
    # the same run again (from the cache) gives the same table; tsv and text carry the same numbers
    assert json.loads(run(m2, *common, "--format", "json", "--seed", "0").stdout) == doc
    tsv = run(m2, *common, "--format", "tsv", "--seed", "0").stdout.splitlines()
    assert tsv[0] == "type\tn\tmean_delta\tse\tci_low\tci_high" and len(tsv) == 3
    assert float(tsv[1].split("\t")[2]) == pytest.approx(max(expected.values()), abs=1e-6)
    text = run(m2, *common, "--seed", "0").stdout
    assert "mean ΔUSim" in text and "signature: usim|" in text and "n=2" in text


def test_cli_errors_are_one_line(toy_plugin, tmp_path):
    bad = tmp_path / "bad.m2"
    bad.write_text("S a b\nA 0 1|||Nn|||x|||REQUIRED|||-NONE-|||0\nA 0 9|||Nn|||x|||REQUIRED|||-NONE-|||0\n")
    r = run(bad, "--parser", "toy-parser", "--no-cache")
    assert r.exit_code == 1 and f"{bad}:3: edit span 0 9" in r.output and "Traceback" not in r.output
    m2 = tmp_path / "ok.m2"
    m2.write_text(HAND, encoding="utf-8")
    r = run(m2, "--parser", "toy-parser", "--no-cache", "--annotator", "4")
    assert r.exit_code == 1 and "annotator 4 annotates no sentence (annotators: 0)" in r.output
    noop = tmp_path / "noop.m2"
    noop.write_text("S a b\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n", encoding="utf-8")
    r = run(noop, "--parser", "toy-parser", "--no-cache")
    assert r.exit_code == 1 and "no edits to apply" in r.output


def test_cli_a_version_that_cannot_be_parsed_costs_only_its_chain(toy_plugin, tmp_path, monkeypatch):
    base = [EXAMPLE, "--parser", "toy-parser", "--format", "json", "--no-cache", "-q"]
    clean = json.loads(run(*base).stdout)
    first = read_m2(EXAMPLE)[0]
    monkeypatch.setenv("TOY_FAIL_AT", first.text)  # the source sentence of the first chain
    r = run(*base, "-o", tmp_path / "edits.jsonl")
    assert r.exit_code == 1
    n = len(resolve_overlaps(first.edits_of(0))[0])
    assert r.stderr.splitlines() == [
        f"Error: {EXAMPLE}:{first.line}: parser 'toy-parser' failed on '{first.text}': RuntimeError: toy parser "
        f"cannot parse this (annotator 0's {n} edit(s) of this sentence not counted)",
        "Error: 1 sentence(s) not scored: a version could not be parsed (see above)"]
    doc = json.loads(r.stdout)
    assert doc["summary"]["edits"] == clean["summary"]["edits"] - n == sum(t["n"] for t in doc["types"])
    assert doc["summary"]["not_scored"][0]["line"] == first.line
    records = [json.loads(x) for x in (tmp_path / "edits.jsonl").read_text().splitlines()]
    assert len(records) == doc["summary"]["edits"] and all(x["sentence"] != 1 for x in records)


@pytest.mark.slow
def test_cli_example_file_annotators_overlap_and_jobs(tmp_path, monkeypatch):
    """The shipped example: an overlapping edit is reported, annotator 1's chain counted only with
    'all', and two parsing processes give the same numbers as one."""
    monkeypatch.setenv("SEMSIM_LOAD_PLUGINS", "")
    monkeypatch.setenv("SEMSIM_PLUGINS", TOY)  # worker processes load the toy plugin from here
    plugins.reset_plugin_manager()
    try:
        base = [EXAMPLE, "--parser", "toy-parser", "--format", "json", "--bootstrap", "200"]
        one = run(*base, "--cache", tmp_path / "1.sqlite")
        assert one.exit_code == 0, one.output
        assert "1 overlapping edit(s) skipped" in one.stderr and "sensitivity.m2:57 overlaps" in one.stderr
        doc = json.loads(one.stdout)
        sentences = read_m2(EXAMPLE)
        n_edits = sum(len(resolve_overlaps(s.edits_of(a))[0]) for s in sentences for a in s.annotators)
        assert doc["summary"]["edits"] == n_edits == sum(t["n"] for t in doc["types"])
        assert doc["summary"]["skipped_overlapping"] == [{"line": 57, "overlaps_line": 56, "annotator": 0}]
        two = run(*base, "--cache", tmp_path / "2.sqlite", "--jobs", "2", "--batch-size", "8", "-q")
        assert two.exit_code == 0, two.output
        assert json.loads(two.stdout) == doc
        only0 = json.loads(run(*base, "--annotator", "0", "--no-cache", "-q").stdout)
        assert only0["summary"]["chains"] == doc["summary"]["chains"] - 1
    finally:
        plugins.reset_plugin_manager()


def test_a_sentence_over_the_token_bound_is_refused_naming_file_and_line(tmp_path, monkeypatch):
    """Every version over SEMSIM_MAX_SENTENCE_TOKENS: the span parser refuses them all (a
    run-level failure), and the message names the M2 file and the sentence's line (#45)."""
    pytest.importorskip("semsim_ucca")
    monkeypatch.setenv("SEMSIM_MAX_SENTENCE_TOKENS", "10")
    m2 = tmp_path / "long.m2"
    m2.write_text("S " + " ".join(["w"] * 30) + "\nA 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n\n")
    r = run(m2, "--no-cache", "-q")
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert r.stderr.strip() == (f"Error: {m2}:1: sentence too long for the span parser: 30 tokens, over the limit "
                                "of 10 (raise it with SEMSIM_MAX_SENTENCE_TOKENS=N if the memory is there)")
