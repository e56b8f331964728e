"""Training and evaluation data: directories of UCCA XML passages, split into sentences.

UCCA corpora (English Web Treebank, 20K Leagues, Wiki...) ship one XML passage per file
without sentence ends. They are split as the UCCA tools split them,
``ucca.convert.split2sentences``: a sentence ends at a mark (``.``, ``?``, ``!``...) that
closes a top-level scene or hangs after one (``ucca.textutil.break2sentences``), so
sentences follow the annotation, not a tokenizer. An optional ID file keeps some passages
only: one ID per line, a passage ID or a sentence ID ``PASSAGE-NNNN`` (as the EWT's
``train.txt`` / ``dev.txt`` / ``test.txt``), whose passage is kept whole.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from semsim.errors import InputError, SemsimError


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
    """Passage IDs of an ID file (``PASSAGE-NNNN`` lines name their passage)."""
    if path is None:
        return None
    from semsim.io import read_text
    ids = {line.strip().rsplit("-", 1)[0] if "-" in line else line.strip()
           for line in read_text(path).splitlines() if line.strip()}
    if not ids:
        raise InputError("no IDs in the file", Path(path))
    return ids


def read_passage(path: Path) -> Any:
    """A ``ucca.core.Passage`` from an XML file, with a one-line error naming the file."""
    from ucca.convert import file2passage
    try:
        return file2passage(str(path))
    except Exception as exc:  # ucca raises whatever ElementTree or its own code raises
        raise InputError(f"not a readable UCCA XML passage: {type(exc).__name__}: {exc}", path) from None


def passages(paths: Sequence[str | os.PathLike[str]], ids: set[str] | None = None) -> Iterator[Any]:
    """The passages under ``paths`` whose ID (or file stem) is in ``ids`` (all when None)."""
    for f in xml_files(paths):
        passage = read_passage(f)
        if ids is None or f.stem in ids or str(passage.ID) in ids:
            yield passage


def sentences(paths: Sequence[str | os.PathLike[str]], ids: set[str] | None = None) -> list[Any]:
    """Sentence passages, split with ``ucca.convert.split2sentences``, in file order."""
    from ucca.convert import split2sentences
    out = []
    for p in passages(paths, ids):
        out.extend(s for s in split2sentences(p) if len(s.layer("0").all))
    if not out:
        raise SemsimError(f"no sentences in {', '.join(map(str, paths))}" + (" with the given IDs" if ids else ""))
    return out
