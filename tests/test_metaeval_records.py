"""What a meta-evaluation's per-sentence records say of each pair (issue #58): a TSV table
may name ``id`` and ``system`` columns, the records carry them, and ``row`` is the file's
line (a header is line 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import run_cli as run

from semsim.app.metaeval import read_judgments
from semsim.kernel.errors import InputError

NAMED = ("id\tsource\toutput\tsystem\tscore\tscore\n"
         "s1\tHe go home .\tHe goes home .\tBART\t4\t3\n"
         "s2\tShe like cats .\tShe likes dogs .\tT5\t1\t2\n"
         "s3\tI has a car .\tI have a car .\tBART\t5\t5\n")


def _table(tmp_path: Path, text: str = NAMED) -> Path:
    path = tmp_path / "ratings.tsv"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_tsv_header_names_id_and_system_columns(tmp_path):
    js = read_judgments(_table(tmp_path))
    assert [(j.id, j.system, j.source, j.output, j.ratings, j.human, j.row) for j in js] == [
        ("s1", "BART", "He go home .", "He goes home .", (4.0, 3.0), 3.5, 2),
        ("s2", "T5", "She like cats .", "She likes dogs .", (1.0, 2.0), 1.5, 3),
        ("s3", "BART", "I has a car .", "I have a car .", (5.0, 5.0), 5.0, 4)]
    plain = read_judgments(_table(tmp_path, "source\toutput\tscore\nA .\tB .\t3\n"))
    assert [(j.id, j.system, j.row) for j in plain] == [("", "", 2)]


@pytest.mark.parametrize(("text", "message"), [
    ("system\tsource\toutput\tsystem\tscore\nA\tB\tC\tD\t3\n", "ratings.tsv:1: column 'system' appears 2 times"),
    ("id\tsource\toutput\tscore\ns1\tA .\tB .\n", "ratings.tsv:2: too few fields: 3, but the header has 4"),
    ("id\tsource\toutput\tscore\ns1\tA .\tB .\t3\t4\n", "ratings.tsv:2: too many fields: 5, but the header has 4"),
])
def test_a_named_tsv_refuses_what_it_cannot_read(tmp_path, text, message):
    with pytest.raises(InputError, match=message.replace(".", r"\.")):
        read_judgments(_table(tmp_path, text))


@pytest.mark.slow
def test_per_sentence_records_carry_id_system_and_the_files_line(tmp_path):
    pairs = tmp_path / "pairs.jsonl"
    r = run("meta-eval", _table(tmp_path), "--measure", "levenshtein", "--bootstrap", "0", "-q",
            "--per-sentence", pairs)
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in pairs.read_text(encoding="utf-8").splitlines()]
    assert [(x["row"], x["id"], x["system"]) for x in rows] == [(2, "s1", "BART"), (3, "s2", "T5"), (4, "s3", "BART")]
    lines = _table(tmp_path).read_text(encoding="utf-8").splitlines()
    assert all(lines[x["row"] - 1].split("\t")[1:3] == [x["source"], x["output"]] for x in rows)
