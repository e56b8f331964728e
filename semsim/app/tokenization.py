"""Text as users have it: optional tokenization of input lines before parsing.

Every text command reads a line's whitespace tokens, so ``all,`` is one token; most system
outputs (LLM corrections and simplifications, TMU-GFM) are untokenized. ``how="spacy"``
splits them with spaCy's rule-based English tokenizer (a blank pipeline: no model download);
``how="none"``, the default, hands the lines back untouched so scores and signatures stay
byte-identical. A heuristic notices untokenized input and says so once on stderr.
"""

from __future__ import annotations

import functools
import os
import re
import warnings
from collections.abc import Callable, Iterable, Sequence

import click

from ..kernel.errors import SettingsError, option
from ..kernel.imports import import_spacy
from ..kernel.signature import Signature

#: The tokenizers a user may choose; ``none`` (whitespace tokens) is the default.
TOKENIZERS = ("none", "spacy")


def check(how: str) -> str:
    """``how`` if it names a tokenizer, else a one-line :class:`~semsim.kernel.errors.SettingsError`."""
    if how not in TOKENIZERS:
        raise SettingsError(f"unknown tokenizer {how!r}: choose one of {', '.join(TOKENIZERS)}", ["tokenize"])
    return how


@functools.lru_cache(maxsize=1)
def _spacy_tokenizer() -> Callable[[str], Iterable[object]]:
    """spaCy's rule-based English tokenizer, loaded once per process (a blank pipeline has
    only the tokenizer, so nothing is downloaded)."""
    try:
        spacy = import_spacy()  # without torch and spaCy's command line: 2.5 s of a start
    except ImportError as exc:  # the tokenize extra (the UCCA parser's installation has it)
        raise SettingsError(f"{option('tokenize', 'spacy')} needs spaCy: pip install 'semsim[tokenize]'",
                            ["tokenize"]) from exc
    return spacy.blank("en").tokenizer


def tokenize(lines: Sequence[str], how: str = "none") -> list[str]:
    """Each line's tokens joined by single spaces. ``none`` returns the very same strings;
    empty and whitespace-only lines are kept as they are (scored specially downstream)."""
    check(how)
    if how == "none":
        return list(lines)
    tok = _spacy_tokenizer()
    out = []
    for line in lines:
        if not line.strip():
            out.append(line)
            continue
        out.append(" ".join(t.text for t in tok(line) if not t.is_space))  # type: ignore[attr-defined]
    return out


def tokenizer_fields(how: str) -> Signature:
    """The signature field of a tokenizer: none for ``none`` (default signatures stay as
    they were), else ``tok:spacy-X.Y``; spaCy's rules may change between minor versions."""
    check(how)
    if how == "none":
        return Signature()
    from importlib.metadata import version

    major_minor = ".".join(version("spacy").split(".")[:2])
    return Signature.of(None, {"tok": f"{how}-{major_minor}"})


# Whitespace a tokenizer adds or removes: next to a character that is neither a letter, a digit
# nor a space (``Islam 's``, ``end .``, ``well - known``), and before the clitic ``n't`` (``do n't``)
_TOKENIZATION_SPACE = re.compile(r"\s+(?=[^\w\s]|n[’']t\b)|(?<=[^\w\s])\s+")


def changed(source: str, output: str) -> bool:
    """Whether ``output`` changed ``source`` beyond tokenization: the one definition of a
    changed line, for ``score``'s ``changed`` column and ``--changed-only`` and for
    ``meta-eval``'s ``--changed-only`` (docs/usage.md, *Which lines changed*). A tokenizer
    moves whitespace only next to punctuation and before ``n't`` (``Islam's`` → ``Islam 's``,
    ``don't`` → ``do n't``), so two lines that differ only there (or in the amount of
    whitespace) are the same line: every measure gives such a pair full marks while
    people judge the meaning kept, or not, as for a copy (issue #58: 15 of 1,750 such
    pairs, on which every measure gave 1.0 and people 5). Whitespace between two letters or
    digits is a word boundary, so ``every day`` → ``everyday`` is a change. No tokenizer
    runs, so the answer depends on no installation and no ``--tokenize``."""
    return _untokenized(source) != _untokenized(output)


def _untokenized(text: str) -> str:
    return _TOKENIZATION_SPACE.sub("", " ".join(text.split()))


def with_tokenizer(signature: Signature, how: str) -> Signature:
    """``signature`` with ``tok:...`` added when text was tokenized (unchanged otherwise)."""
    return signature + tokenizer_fields(how)


# Punctuation glued to the end of a word (``all,`` ``said:`` ``end)``), or an opening bracket
# or quote glued to its start (``(see`` ``"word``). Tokenized text has tokens that look alike
# but are not glued: ``U.S.`` ``e.g.`` ``3.5`` ``...`` ``n't`` ``'s``, so a period counts only
# after a word of two or more letters with no other period in it.
_GLUED_END = re.compile(r"[^\W_][,;:!?)\]}\"”’]+$|^[^\W\d_.]*[^\W\d_]{2}\.[,;:!?)\]}\"”’]*$")
_GLUED_START = re.compile(r"^[(\[{\"“‘][^\W_]")


#: Abbreviations that keep their period in tokenized text too.
_ABBREVIATIONS = frozenset({"mr.", "mrs.", "ms.", "dr.", "st.", "jr.", "sr.", "prof.", "vs.", "etc.", "inc.", "ltd.",
                            "co.", "no.", "mt.", "ft."})


def _glued(line: str) -> bool:
    return any((_GLUED_END.search(t) and t.lower() not in _ABBREVIATIONS) or _GLUED_START.search(t)
               for t in line.split())


def untokenized_lines(lines: Sequence[str]) -> tuple[int, int]:
    """(lines with punctuation glued to a word, non-empty lines)."""
    text = [line for line in lines if line.strip()]
    return sum(map(_glued, text)), len(text)


def looks_untokenized(lines: Sequence[str]) -> bool:
    """Whether punctuation is glued to words on at least a fifth of the non-empty lines (and
    on two or more): tokenized corpora (JFLEG) have it on under 1% of lines, LLM and
    TMU-GFM outputs on nearly all."""
    return _flagged(*untokenized_lines(lines))


def _flagged(glued: int, total: int) -> bool:
    return glued >= 2 and glued >= 0.2 * total


def untokenized_note(what: str, lines: Sequence[str], option: str = "--tokenize spacy") -> str | None:
    """The note for ``lines`` (from ``what``, a file's name) if they look untokenized, else None."""
    glued, total = untokenized_lines(lines)
    if not _flagged(glued, total):
        return None
    return f"{what} looks untokenized (punctuation joined to words on {glued} of {total} lines): use {option}"


def _first_note(texts: Iterable[tuple[str | os.PathLike[str], Sequence[str]]], how: str, option: str) -> str | None:
    """The note for the first of ``texts`` that looks untokenized, when read as given (``none``)."""
    if how != "none":
        return None
    return next((n for what, lines in texts if (n := untokenized_note(os.fspath(what), lines, option))), None)


def warn_untokenized(files: Iterable[tuple[str | os.PathLike[str], Sequence[str]]], how: str = "none") -> bool:
    """Say once on stderr, naming the first file that looks untokenized, which option to use;
    only with ``how="none"`` (the lines as read). Returns whether it said so."""
    note = _first_note(files, how, "--tokenize spacy")
    if note:
        click.echo(f"semsim: {note}", err=True)
    return note is not None


def warn_untokenized_python(texts: Iterable[tuple[str, Sequence[str]]], how: str = "none") -> bool:
    """:func:`warn_untokenized` for the Python API: a :class:`UserWarning` suggesting
    ``tokenize="spacy"`` (Python's default filter shows each distinct one once)."""
    note = _first_note(texts, how, 'tokenize="spacy"')
    if note:
        warnings.warn(note, UserWarning, stacklevel=3)
    return note is not None
