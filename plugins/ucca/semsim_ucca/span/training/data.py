"""Training and evaluation data: directories of UCCA XML passages, split into sentences.

UCCA corpora (English Web Treebank, 20K Leagues, Wiki...) ship one XML passage per file
without sentence ends. They are split as the UCCA tools split them,
``ucca.convert.split2sentences``: a sentence ends at a mark (``.``, ``?``, ``!``...) that
closes a top-level scene or hangs after one (``ucca.textutil.break2sentences``), so
sentences follow the annotation, not a tokenizer. An optional ID file keeps some passages
only: one ID per line, a passage ID or a sentence ID ``PASSAGE-NNNN`` (as the EWT's
``train.txt`` / ``dev.txt`` / ``test.txt``), whose passage is kept whole.

A corpus with an official sentence split is split by it instead (:func:`split_official`):
UCCA EWT's sentences are those of the UD English Web Treebank, one CoNLL-U file per
passage, so ``train.txt`` / ``dev.txt`` / ``test.txt`` then name sentences, not passages
(2,724 / 554 / 535), and the numbers are comparable with published ones.
"""

from __future__ import annotations

import itertools
import os
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from semsim.kernel.errors import InputError, SemsimError


def xml_files(paths: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """The UCCA XML files named or under the directories named, in a stable order."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(f for f in p.rglob("*.xml") if f.is_file()))
        elif p.is_file():
            out.append(p)
        else:
            raise SemsimError(f"{p}: no such file or directory")
    if not out:
        raise SemsimError(f"no UCCA XML files in {', '.join(map(str, paths))}")
    return out


def read_ids(path: str | os.PathLike[str] | None) -> set[str] | None:
    """The IDs of an ID file, one a line (passage IDs, or sentence IDs ``PASSAGE-NNNN``)."""
    if path is None:
        return None
    from semsim.kernel.files import read_text
    ids = {line.strip() for line in read_text(path).splitlines() if line.strip()}
    if not ids:
        raise InputError("no IDs in the file", Path(path))
    return ids


def passage_ids(ids: set[str] | None) -> set[str] | None:
    """The passages of IDs (a sentence ID ``PASSAGE-NNNN`` names its passage)."""
    return None if ids is None else {i.rsplit("-", 1)[0] if "-" in i else i for i in ids}


def _declared_id(path: Path) -> str | None:
    """The ``passageID`` an XML file declares in its first kilobyte (None if not there)."""
    with open(path, "rb") as f:
        found = re.search(rb'passageID="([^"]*)"', f.read(1024))
    return found.group(1).decode("utf-8", "replace") if found else None


def read_passage(path: Path) -> Any:
    """A ``ucca.core.Passage`` from an XML file, with a one-line error naming the file."""
    from ucca.convert import file2passage
    try:
        return file2passage(str(path))
    except Exception as exc:  # ucca raises whatever ElementTree or its own code raises
        raise InputError(f"not a readable UCCA XML passage: {type(exc).__name__}: {exc}", path) from None


def passages(paths: Sequence[str | os.PathLike[str]], ids: set[str] | None = None) -> Iterator[Any]:
    """The passages under ``paths`` whose ID (or file stem) is in ``ids`` (all when None;
    a sentence ID selects its passage)."""
    ids = passage_ids(ids)
    for f in xml_files(paths):
        if ids is not None and f.stem not in ids and _declared_id(f) not in (None, *ids):
            continue  # reading a passage takes ucca ~0.1 s: skip those not asked for
        passage = read_passage(f)
        if ids is None or f.stem in ids or str(passage.ID) in ids:
            yield passage


def sentences(paths: Sequence[str | os.PathLike[str]], ids: set[str] | None = None,
              conllu: str | os.PathLike[str] | None = None) -> list[Any]:
    """Sentence passages in file order: split at the sentences of the CoNLL-U files in
    ``conllu`` (then ``ids`` may name sentences, and each one named must be found) or with
    ``ucca.convert.split2sentences``."""
    from ucca.convert import split2sentences
    out: list[Any] = []
    unmatched: list[str] = []
    for p in passages(paths, ids):
        if conllu is None:
            out.extend(s for s in split2sentences(p) if len(s.layer("0").all))
        else:
            split, empty = split_official(p, Path(conllu))
            unmatched.extend(empty)
            out.extend(s for s in split if ids is None or str(s.ID) in ids or str(p.ID) in ids)
    if ids is not None:
        unmatched = [i for i in unmatched if i in ids]
    if conllu is not None and ids is not None:
        missing = sorted(i for i in ids if "-" in i and i not in {str(s.ID) for s in out} and i not in unmatched)
        if missing:
            raise SemsimError(f"{len(missing)} sentence(s) of the ID file not found under {', '.join(map(str, paths))} "
                              f"split by {conllu}: {', '.join(missing[:5])}" + (" ..." if len(missing) > 5 else ""))
    if unmatched:  # sentences the UCCA passage has no text for (EWT train has one): said, never silently dropped
        print(f"semsim: {len(unmatched)} CoNLL-U sentence(s) have no text in their UCCA passage and are left out: "
              f"{', '.join(unmatched[:5])}" + (" ..." if len(unmatched) > 5 else ""), file=sys.stderr)
    if not out:
        raise SemsimError(f"no sentences in {', '.join(map(str, paths))}" + (" with the given IDs" if ids else ""))
    return out


# -- the official sentence split (UD English-EWT for UCCA EWT) --------------------------------------
def read_conllu(path: Path, rows: list[list[tuple[str, int, str]]] | None = None) -> list[tuple[str, list[str]]]:
    """(sentence ID, word forms) of each sentence of a CoNLL-U file. Multi-word token lines
    and empty nodes are left out: UCCA terminals are UD's syntactic words. With ``rows``,
    each sentence's (UPOS, head, relation) per word is appended there (head 0: the root,
    -2: none given)."""
    from semsim.kernel.files import read_text
    out: list[tuple[str, list[str]]] = []
    seen: dict[str, int] = {}  # sent_id -> its line
    words: list[str]
    syntax: list[tuple[str, int, str]]
    lines: list[int]
    sent_id, words, syntax, lines = None, [], [], []
    for number, line in enumerate([*read_text(path).splitlines(), ""], start=1):
        if line.startswith("# sent_id"):
            key, eq, value = line.partition("=")
            if not eq or key.strip() != "# sent_id" or not value.strip():
                raise InputError("expected '# sent_id = ID'", path, number)
            sent_id = value.strip()
            if sent_id in seen:  # two sentences of one name: the split would give both one ID
                raise InputError(f"sent_id {sent_id!r} again (first at line {seen[sent_id]})", path, number)
            seen[sent_id] = number
        elif not line.strip():
            if words:
                if sent_id is None:
                    raise InputError("a sentence without '# sent_id'", path, number)
                bad = next((k for k, (_, head, _) in enumerate(syntax) if head > len(words)), None)
                if bad is not None:  # it would name a word of another sentence
                    raise InputError(f"head {syntax[bad][1]} of word {bad + 1}: the sentence has {len(words)} words",
                                     path, lines[bad])
                out.append((sent_id, words))
                if rows is not None:
                    rows.append(syntax)
            sent_id, words, syntax, lines = None, [], [], []
        elif not line.startswith("#"):
            cols = line.split("\t")
            if len(cols) != 10:
                raise InputError(f"expected 10 tab-separated columns, found {len(cols)}", path, number)
            if cols[0].isdigit():
                words.append(cols[1])
                syntax.append((cols[3], int(cols[6]) if cols[6].isdigit() else -2, cols[7].split(":")[0]))
                lines.append(number)
    return out


def word_positions(terminals: Sequence[str], words: Sequence[str]) -> list[int | None]:
    """The terminal each word is the same token as (None where a later UD release changed it)."""
    if list(words) == list(terminals):
        return list(range(len(words)))
    import difflib
    out: list[int | None] = [None] * len(words)
    for block in difflib.SequenceMatcher(None, list(words), list(terminals), autojunk=False).get_matching_blocks():
        for k in range(block.size):
            out[block.a + k] = block.b + k
    return out


def sentence_starts(terminals: Sequence[str], sentences: Sequence[Sequence[str]]) -> list[int]:
    """Where each sentence starts among a passage's terminals.

    Where the tokens agree (706 of UCCA EWT's 723 passages) this is a running count. Where
    a later UD release changed a few tokens, the words are aligned to the terminals
    (:func:`word_positions`) and a sentence starts as far before its first aligned word as
    that word is into the sentence; a sentence with no aligned word starts (and so ends)
    after the last aligned one: it has no text in the passage.
    """
    words = [w for s in sentences for w in s]
    firsts = list(itertools.accumulate([0, *map(len, sentences[:-1])]))
    position = word_positions(terminals, words)
    starts: list[int] = []
    after = 0  # the terminal after the last aligned word so far
    for first, sentence in zip(firsts, sentences):
        aligned = next(((k, position[first + k]) for k in range(len(sentence)) if position[first + k] is not None),
                       None)
        start = after if aligned is None else aligned[1] - aligned[0]  # type: ignore[operator]
        starts.append(min(max(start, starts[-1] if starts else 0, 0), len(terminals)))
        after = max([after, *(q + 1 for q in position[first:first + len(sentence)] if q is not None)])
    if starts:
        starts[0] = 0  # words before the first terminal still belong to the first sentence
    return starts


def split_official(passage: Any, conllu_dir: Path) -> tuple[list[Any], list[str]]:
    """A passage split into the sentences of its CoNLL-U file (``PASSAGE.xml.conllu`` or
    ``PASSAGE.conllu``), each named ``PASSAGE-NNNN`` from UD's ``sent_id``; and the IDs of
    the CoNLL-U sentences aligned to no terminal (text the UCCA passage does not have)."""
    from ucca.convert import split_passage
    pid = str(passage.ID)
    path = next((p for p in (conllu_dir / f"{pid}.xml.conllu", conllu_dir / f"{pid}.conllu") if p.is_file()), None)
    if path is None:
        raise SemsimError(f"{conllu_dir}: no CoNLL-U file for passage {pid} ({pid}.xml.conllu or {pid}.conllu)")
    rows: list[list[tuple[str, int, str]]] = []
    ud = read_conllu(path, rows)
    terminals = [t.text for t in sorted(passage.layer("0").all, key=lambda t: t.position)]
    position = word_positions(terminals, [w for _, ws in ud for w in ws])
    if terminals and all(p is None for p in position):
        raise InputError(f"no word of it is a word of passage {pid}: the CoNLL-U of another text?", path)
    starts = sentence_starts(terminals, [w for _, w in ud])
    ends = [*starts[1:], len(terminals)]
    ids = [sid.split("-", 1)[1] if sid.count("-") >= 2 else sid for sid, _ in ud]  # reviews-P-NNNN -> P-NNNN
    kept = [(i, s, e) for i, s, e in zip(ids, starts, ends) if e > s]
    empty = [i for i, s, e in zip(ids, starts, ends) if e <= s]
    split = split_passage(passage, [e for _, _, e in kept], ids=[i for i, _, _ in kept])
    # gold UD syntax per terminal, for the parser's auxiliary task: (UPOS, head terminal, relation)
    offsets = list(itertools.accumulate([0, *(len(ws) for _, ws in ud)]))
    syntax: list[tuple[str, int, str] | None] = [None] * len(terminals)
    for first, row in zip(offsets, rows):
        for k, (upos, head, rel) in enumerate(row):
            at = position[first + k]
            target = position[first + head - 1] if head > 0 else -1  # -1: the root, -2: none given
            if at is not None and head > -2 and target is not None:  # (head 0 or -1: target -1)
                syntax[at] = (upos, target, rel)
    by_id = {i: (s, e) for i, s, e in kept}
    for sentence_passage in split:
        s, e = by_id[str(sentence_passage.ID)]
        sentence_passage.extra["ud"] = [None if x is None else (x[0], x[1] - s if x[1] >= 0 else -1, x[2])
                                        for x in syntax[s:e]]
    return split, empty
