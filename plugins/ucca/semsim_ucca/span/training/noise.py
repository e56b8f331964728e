"""Learner errors injected into gold sentences: training data for a parser that keeps a
sentence's structure through a learner's mistakes.

A parser trained on edited web text meets a learner's sentence (``He gva an apple for
john``) as out-of-domain input, and structures it differently from its correction where
people see the same meaning: USim then charges the parser's instability to the correction
(docs/validity.md). So ``--set noise=P`` shows the parser, in each epoch, a share ``P`` of
its training sentences with learner errors injected, the gold graph carried over to the
noisy tokens: the same units over the changed words, and a deleted word's unit removed.

The errors are the commonest kinds ERRANT finds between JFLEG's learner sentences and their
corrections (``learner_errors.json``, made by ``scripts/learner_errors.py``), each injected at
the rate it has there, read backwards (ERRANT types the edit from the learner's sentence to
the correction, so its ``M:DET``, a determiner the learner left out, is injected by deleting
one):

==============  ==========================================================================
``R:SPELL``     a content word misspelt: one character deleted, doubled, replaced or two swapped
``R:ORTH``      a word's first letter's case flipped
``R:NOUN:NUM``  a noun's number changed (``skills`` → ``skill``, ``idea`` → ``ideas``)
``R:VERB:SVA``  a present-tense verb's agreement changed (``goes`` → ``go``, ``go`` → ``goes``)
``R:VERB:FORM`` a verb's form changed (``going`` → ``go``, ``to go`` → ``to going``)
``R:VERB:TENSE`` a past verb made present (``walked`` → ``walk``)
``R:DET``       an article replaced by another (``a``/``an``/``the``)
``R:PREP``      a preposition replaced by another common one
``M:DET``       an article deleted
``M:PREP``      a preposition that is a unit of its own (UCCA's Relator) deleted
``M:PUNCT``     a comma deleted
==============  ==========================================================================

Insertions (``U:DET``: an article the correction removed) and word-order errors (``R:WO``)
are left out: the gold graph has no unit the inserted word would belong to for certain.
Every choice is drawn from one ``numpy`` generator, so a seed gives the same noisy corpus.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..inference.tree import Node, Tree, prune_empty

RATES_FILE = Path(__file__).with_name("learner_errors.json")

ARTICLES = ("a", "an", "the")
PREPOSITIONS = ("in", "on", "at", "for", "to", "of", "with", "about", "from", "by", "into")
_VOWELS = "aeiou"
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


@lru_cache(maxsize=1)
def rates() -> tuple[dict[str, float], str]:
    """The per-token rate of each error kind, and the SHA-256 of the file they come from
    (named in the training key and the model's metadata)."""
    raw = RATES_FILE.read_bytes()
    table = json.loads(raw)
    return {k: float(v) for k, v in table["rates"].items()}, hashlib.sha256(raw).hexdigest()


def _case(word: str, like: str) -> str:
    return word.capitalize() if like[:1].isupper() else word


def _misspell(word: str, rng: np.random.Generator) -> str:
    k = int(rng.integers(len(word)))
    how = int(rng.integers(4))
    if how == 0 and len(word) > 3:  # a letter dropped
        return word[:k] + word[k + 1:]
    if how == 1:  # a letter doubled
        return word[:k + 1] + word[k:]
    if how == 2 and k + 1 < len(word):  # two letters swapped
        return word[:k] + word[k + 1] + word[k] + word[k + 2:]
    return word[:k] + _LETTERS[int(rng.integers(26))] + word[k + 1:]  # a letter replaced


def _noun_number(word: str, tag: str) -> str | None:
    w = word.lower()
    if tag == "NNS" and len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        return word[:-2] if w.endswith(("ches", "shes", "sses", "xes")) else word[:-1]
    if tag == "NN" and w.isalpha() and not w.endswith("s"):
        return word + ("es" if w.endswith(("ch", "sh", "x")) else "s")
    return None


def _verb_form(word: str, tag: str, kind: str) -> str | None:
    w = word.lower()
    if not w.isalpha() or len(w) < 3 or w in ("is", "are", "was", "were", "has", "have", "had", "does", "did"):
        return None
    if kind == "R:VERB:SVA":
        if tag == "VBZ" and w.endswith("s"):
            return word[:-2] if w.endswith(("ches", "shes", "sses", "xes")) else word[:-1]
        if tag == "VBP":
            return word + ("es" if w.endswith(("ch", "sh", "ss", "x", "o")) else "s")
    if kind == "R:VERB:FORM":
        if tag == "VBG" and w.endswith("ing") and len(w) > 5:
            return word[:-3]
        if tag == "VB":
            return word + "ing" if not w.endswith("e") else word[:-1] + "ing"
    if kind == "R:VERB:TENSE" and tag == "VBD" and w.endswith("ed") and len(w) > 4:
        return word[:-1] if w.endswith("ed") and w[-3] == "e" else word[:-2]
    return None


def _substitute(kind: str, word: str, tag: str, rng: np.random.Generator) -> str | None:
    """The word with an error of ``kind``, or None where the kind does not apply to it."""
    w = word.lower()
    if kind == "R:SPELL":
        return _misspell(word, rng) if w.isalpha() and len(w) > 2 and tag[:2] in ("NN", "VB", "JJ", "RB") else None
    if kind == "R:ORTH":
        return (word[0].swapcase() + word[1:]) if word[:1].isalpha() else None
    if kind == "R:NOUN:NUM":
        return _noun_number(word, tag)
    if kind.startswith("R:VERB:"):
        return _verb_form(word, tag, kind)
    if kind == "R:DET" and w in ARTICLES:
        other = [a for a in ARTICLES if a != w]
        return _case(other[int(rng.integers(len(other)))], word)
    if kind == "R:PREP" and w in PREPOSITIONS and tag == "IN":
        other = [p for p in PREPOSITIONS if p != w]
        return _case(other[int(rng.integers(len(other)))], word)
    return None


def _deletable(kind: str, word: str, label: str) -> bool:
    w = word.lower()
    if kind == "M:DET":
        return w in ARTICLES
    if kind == "M:PREP":
        return w in PREPOSITIONS and label == "R"
    if kind == "M:PUNCT":
        return w == ","
    return False


def applies(kind: str, word: str, tag: str, label: str) -> bool:
    """Whether an error of ``kind`` can be injected at this token (a spelling error, at any
    content word of three letters or more; an article's replacement, at an article...)."""
    if kind.startswith("M:"):
        return _deletable(kind, word, label)
    probe = np.random.default_rng(0)  # the realisation's draws do not decide whether it applies
    changed = _substitute(kind, word, tag, probe)
    return bool(changed) and changed != word


def calibrate(trees: Sequence[Tree], tags: Sequence[Sequence[str]],
              table: Mapping[str, float] | None = None) -> dict[str, float]:
    """Per-kind probabilities at the tokens where each kind applies, such that the errors
    come at ``table``'s per-token rates (default: :func:`rates`) over ``trees``: an article
    is replaced at ``rate / share of articles`` (at most 0.5), not at the rate over all
    tokens, which would make article errors ten times rarer than learners make them."""
    table = rates()[0] if table is None else table
    counts = dict.fromkeys(table, 0)
    total = 0
    for tree, tag in zip(trees, tags):
        labels = _token_labels(tree)
        total += len(tree.tokens)
        for t, word in enumerate(tree.tokens):
            for kind in table:
                counts[kind] += applies(kind, word, tag[t] if t < len(tag) else "", labels[t])
    return {k: min(0.5, table[k] * total / counts[k]) if counts[k] else 0.0 for k in sorted(table)}


def inject(tree: Tree, tags: Sequence[str], rng: np.random.Generator, probabilities: Mapping[str, float]) -> Tree:
    """``tree`` with learner errors injected: at each token, each kind that applies to it
    (:func:`applies`), in name order, is drawn with its probability (:func:`calibrate`), and
    the first drawn is made; so a token gets at most one error. ``tags`` are the tokens'
    fine POS tags (spaCy's, from the clean sentence's features)."""
    label_of = _token_labels(tree)
    words = list(tree.tokens)
    deleted: set[int] = set()
    for t, word in enumerate(tree.tokens):
        tag = tags[t] if t < len(tags) else ""
        for kind in sorted(probabilities):
            if not applies(kind, word, tag, label_of[t]) or rng.random() >= probabilities[kind]:
                continue
            if kind.startswith("M:"):
                deleted.add(t)
            else:
                words[t] = _substitute(kind, word, tag, rng) or word
            break
    if len(deleted) == len(words):  # never a sentence without tokens
        deleted.clear()
    return _delete(Tree(words, tree.nodes, tree.remotes, tree.id), deleted)


def _token_labels(tree: Tree) -> list[str]:
    """The label of the unit each token sits directly under (its innermost label of a chain)."""
    out = [""] * len(tree.tokens)
    for node in tree.nodes:
        for t in node.terminals:
            out[t] = node.label.split("/")[-1]
    return out


def _delete(tree: Tree, gone: set[int]) -> Tree:
    """``tree`` without the tokens ``gone``: later tokens renumbered, units left without
    tokens removed (with their remote edges)."""
    if not gone:
        return tree
    new: dict[int, int] = {}
    for t in range(len(tree.tokens)):
        if t not in gone:
            new[t] = len(new)
    nodes = [Node(nd.label, list(nd.children), [new[t] for t in nd.terminals if t in new]) for nd in tree.nodes]
    words = [w for t, w in enumerate(tree.tokens) if t not in gone]
    return prune_empty(Tree(words, nodes, list(tree.remotes), tree.id))
