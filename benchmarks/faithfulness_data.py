"""A faithfulness benchmark for GEC metrics: valid corrections against meaning-changing edits.

The data generator of ``bench_faithfulness.py`` and ``benchmarks/make_faithfulness_data.py``;
it lives beside them, not in the installed package, since no command needs it.

Issue #20, part 1. USim (Choshen & Abend, NAACL 2018) is meant to measure *semantic
faithfulness* of a correction to its source. The benchmark asks the plainest question about
that: given a source and two outputs, a valid correction (a JFLEG reference) and the same
reference with its meaning changed by one small edit, does the measure score the valid one
higher? Per edit kind it reports the *paired win rate*: the share of pairs in which the
faithful side scores higher, a tie counting ½ (0.5 is chance; 1.0 always right).

Everything here is pure logic, seeded and testable without a parser:

* the edit generators, one per kind (:data:`GENERATORS`), each ``(sent, rng) -> list[str] |
  None``: ``sent`` is the reference's tokens with spaCy's analysis (:class:`Tagged`), ``rng``
  a :class:`numpy.random.Generator`; ``None`` when the kind does not apply (no number, no
  subject-verb-object pattern, ...). Every generator returns a token list that differs from
  the input, or ``None``: an "edit" that changes nothing would be a tie by construction;
* :func:`make_pairs` (one record per source line, reference and kind), with one generator
  ``numpy.random.default_rng([seed, line, reference, kind])`` per record, so a record
  depends neither on ``PYTHONHASHSEED`` nor on which other lines or kinds are in the run;
* :func:`lexical_similarity`, the lexical baseline: 1 − token Levenshtein distance / the
  longer length;
* :func:`win_rates`: per kind n, win rate and a percentile bootstrap interval over source
  lines;
* :func:`spelling_fix` / :func:`spelling_pairs`: *valid-but-lexical* corrections (``gva`` →
  ``gave``, ``iede`` → ``idea``) taken from the references, which a faithful measure should
  keep scoring high whatever remedy the issue's part 2 adds.

spaCy is never imported here: :func:`spacy_tagger` takes a loaded pipeline (the benchmark
loads the model semsim's UCCA parser already uses), so the core keeps no spaCy dependency.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from rapidfuzz.distance import Levenshtein

from semsim.kernel.adapt import is_punct
from semsim.kernel.align.tokens import levenshtein_similarity, token_ids
from semsim.kernel.stats import bootstrap, percentile_interval

#: The edit kinds, in the order of the table. The position of a kind here is part of its
#: records' random seed, so new kinds go at the end.
KINDS = ("delete_phrase", "insert_negation", "replace_content_word", "truncate", "swap_arguments",
         "change_number_or_entity")


@dataclass(frozen=True)
class Tagged:
    """A tokenised sentence with the analysis the generators read (spaCy's, on the given tokens).

    ``pos`` is the universal tag, ``tag`` the Penn Treebank tag, ``head`` the 0-based index
    of the syntactic head (the root points at itself), ``ent`` the entity label with its IOB
    prefix (``B-PERSON``, ``I-PERSON``) or ``""``. Only :func:`truncate` works on bare
    tokens (:meth:`plain`).
    """

    tokens: tuple[str, ...]
    pos: tuple[str, ...] = ()
    tag: tuple[str, ...] = ()
    lemma: tuple[str, ...] = ()
    dep: tuple[str, ...] = ()
    head: tuple[int, ...] = ()
    ent: tuple[str, ...] = ()

    @classmethod
    def plain(cls, tokens: Sequence[str]) -> Tagged:
        """Tokens without analysis: every generator but :func:`truncate` returns ``None``."""
        return cls(tuple(tokens))

    @property
    def analysed(self) -> bool:
        return len(self.pos) == len(self.tokens) > 0 and len(self.dep) == len(self.head) == len(self.tokens)

    def children(self, i: int) -> list[int]:
        return [j for j, h in enumerate(self.head) if h == i and j != i]

    def subtree(self, i: int) -> list[int]:
        """Token indices of the subtree headed by ``i``, sorted."""
        out, todo = {i}, [i]
        while todo:
            for c in self.children(todo.pop()):
                if c not in out:
                    out.add(c)
                    todo.append(c)
        return sorted(out)


Generator = Callable[[Tagged, np.random.Generator], "list[str] | None"]


def _pick(rng: np.random.Generator, items: Sequence[Any]) -> Any:
    return items[int(rng.integers(len(items)))]


def _changed(sent: Tagged, out: list[str] | None) -> list[str] | None:
    """The contract of every generator: a non-empty token list that differs from the input."""
    return out if out and out != list(sent.tokens) else None


def _tidy(tokens: list[str]) -> list[str]:
    """Drop punctuation a deletion left dangling: a comma at the start, doubled commas, a comma
    right before the final punctuation or at the end."""
    out: list[str] = []
    for t in tokens:
        if t == "," and (not out or out[-1] in (",", ";", ":")):
            continue
        if t in (".", "!", "?") and out and out[-1] in (",", ";", ":"):
            out.pop()
        out.append(t)
    while out and out[-1] in (",", ";", ":"):
        out.pop()
    return out


def _recase_initial(sent: Tagged, new: list[str], moved: int | None = None) -> list[str]:
    """After words moved or went, keep the sentence's capitalisation pattern: if the original
    began with a capital, so does the new first word, and the old first word, now at
    ``moved``, loses its capital (unless it is a proper noun or ``I``)."""
    if not new or not sent.tokens or not sent.tokens[0][:1].isupper():
        return new
    out = list(new)
    proper = (bool(sent.pos) and sent.pos[0] == "PROPN") or sent.tokens[0] == "I"
    if moved is not None and not proper and out[moved] == sent.tokens[0]:
        out[moved] = out[moved][:1].lower() + out[moved][1:]
    out[0] = out[0][:1].upper() + out[0][1:]
    return out


# -- a phrase deleted ---------------------------------------------------------------------

#: dependency labels whose subtree is a phrase that can go without breaking the sentence's
#: skeleton (spaCy's English labels, ClearNLP style, and their UD names): modifiers,
#: adjuncts, objects and conjuncts. Subjects, the root, auxiliaries and determiners stay.
DELETABLE = frozenset({"prep", "advcl", "advmod", "npadvmod", "acl", "relcl", "conj", "xcomp", "ccomp", "dobj",
                       "obj", "obl", "nmod", "amod", "appos", "dative", "iobj", "pcomp", "acomp", "attr", "oprd"})


def delete_phrase(sent: Tagged, rng: np.random.Generator) -> list[str] | None:
    """Delete one phrase: the contiguous subtree of a modifier, adjunct, object or conjunct
    (:data:`DELETABLE`), 2 words up to half the sentence's words, chosen at random.

    Why subtrees: deleting a syntactic constituent keeps the rest readable, so the edit tests
    the loss of content rather than the parser's handling of broken text. A conjunct takes
    its coordinating conjunction (or comma) with it. Only when no such phrase exists is a
    single-word modifier (an adjective or adverb: ``good``, ``hard``) deleted instead.
    """
    if not sent.analysed:
        return None
    words = sum(not is_punct(t) for t in sent.tokens)
    multi, single = [], []
    for i, d in enumerate(sent.dep):
        if d not in DELETABLE or sent.head[i] == i:
            continue
        span = sent.subtree(i)
        if span[-1] - span[0] + 1 != len(span):
            continue  # not contiguous: deleting it would leave a gap
        lo, hi = span[0], span[-1] + 1
        if d == "conj" and lo > 0 and (sent.dep[lo - 1] == "cc" or sent.tokens[lo - 1] == ","):
            lo -= 1
        content = sum(not is_punct(t) for t in sent.tokens[lo:hi])
        if content == 0 or content >= words:
            continue
        if 2 <= content <= max(2, words // 2):
            multi.append((lo, hi))
        elif content == 1 and sent.pos[i] in ("ADJ", "ADV"):
            single.append((lo, hi))
    spans = multi or single
    if not spans:
        return None
    lo, hi = _pick(rng, spans)
    out = _tidy([*sent.tokens[:lo], *sent.tokens[hi:]])
    return _changed(sent, _recase_initial(sent, out) if lo == 0 else out)


# -- a negation inserted ------------------------------------------------------------------

NEGATIONS = frozenset({"not", "n't", "never", "no"})
_DO = {"VBZ": "does", "VBD": "did", "VBP": "do", "VB": "do"}


def insert_negation(sent: Tagged, rng: np.random.Generator) -> list[str] | None:
    """Negate the first verb group, left to right, that is not negated yet: ``not`` after an
    auxiliary, modal or form of *be* (``must know`` → ``must not know``, ``are`` → ``are
    not``); a finite main verb with no auxiliary gets ``do / does / did not`` and its lemma
    (``went`` → ``did not go``), so the output stays grammatical.

    Why the first: deterministic and usually the main clause. A verb with a negation next
    to it is skipped, so the edit always adds a negation. ``rng`` is unused: the place is
    fixed by the sentence.
    """
    del rng
    if not sent.analysed:
        return None
    toks = list(sent.tokens)

    def negated(i: int) -> bool:
        near = [toks[j].lower() for j in (i - 1, i + 1, i + 2) if 0 <= j < len(toks)]
        return any(w in NEGATIONS for w in near)

    for i, (p, t) in enumerate(zip(sent.pos, sent.tag)):
        if negated(i) or toks[i].lower() == "to":
            continue
        lemma = sent.lemma[i].lower() if sent.lemma else ""
        if p == "AUX" or t == "MD" or (lemma == "be" and p == "VERB"):
            return _changed(sent, [*toks[:i + 1], "not", *toks[i + 1:]])
        if p == "VERB" and t in _DO and t != "VB" and lemma and not any(
                sent.dep[c] in ("aux", "auxpass") for c in sent.children(i)):
            do = _DO[t].capitalize() if i == 0 and toks[0][:1].isupper() else _DO[t]
            return _changed(sent, [*toks[:i], do, "not", lemma, *toks[i + 1:]])
    return None


# -- a content word replaced by an unrelated one ------------------------------------------

#: Replacement words by Penn tag: concrete, out-of-domain words (animals, instruments,
#: landforms) that are neither synonyms nor near-synonyms of anything an essay on study,
#: work or technology says. A fixed list, not words from other sentences, so the edit does
#: not depend on the corpus or on ``--limit``; the verbs are inflected by hand per tag.
UNRELATED = {
    "NN": ("volcano", "umbrella", "giraffe", "saxophone", "glacier", "pineapple", "lighthouse", "cactus",
           "submarine", "kettle", "walrus", "trombone"),
    "NNS": ("volcanoes", "umbrellas", "giraffes", "saxophones", "glaciers", "pineapples", "lighthouses",
            "submarines", "kettles", "walruses"),
    "VB": ("swim", "paint", "whistle", "freeze", "juggle", "knit", "melt", "sneeze"),
    "VBP": ("swim", "paint", "whistle", "freeze", "juggle", "knit", "melt", "sneeze"),
    "VBZ": ("swims", "paints", "whistles", "freezes", "juggles", "knits", "melts", "sneezes"),
    "VBD": ("swam", "painted", "whistled", "froze", "juggled", "knitted", "melted", "sneezed"),
    "VBN": ("swum", "painted", "whistled", "frozen", "juggled", "knitted", "melted", "sneezed"),
    "VBG": ("swimming", "painting", "whistling", "freezing", "juggling", "knitting", "melting", "sneezing"),
    "JJ": ("purple", "wooden", "hairy", "salty", "metallic", "triangular", "noisy", "frozen"),
}
#: verbs too light to carry the content the edit should change
LIGHT_VERBS = frozenset({"be", "have", "do", "get", "make", "let", "go"})


def replace_content_word(sent: Tagged, rng: np.random.Generator) -> list[str] | None:
    """Replace one content word (a common noun, main verb or adjective, chosen at random) by
    an unrelated word of the same Penn tag from :data:`UNRELATED` (not already in the
    sentence), keeping its capitalisation.

    Why the same tag: the output stays grammatical (a plural noun for a plural noun, a past
    tense for a past tense), so the only change is what the word means. Light verbs
    (:data:`LIGHT_VERBS`) and auxiliaries are left alone.
    """
    if not sent.analysed or not sent.tag:
        return None
    present = {t.lower() for t in sent.tokens}
    cands = [i for i, (p, t) in enumerate(zip(sent.pos, sent.tag))
             if p in ("NOUN", "VERB", "ADJ") and t in UNRELATED and sent.tokens[i].isalpha()
             and not (p == "VERB" and sent.lemma and sent.lemma[i].lower() in LIGHT_VERBS)]
    if not cands:
        return None
    i = _pick(rng, cands)
    words = [w for w in UNRELATED[sent.tag[i]] if w not in present]
    new = _pick(rng, words)
    if sent.tokens[i][:1].isupper():
        new = new.capitalize()
    return _changed(sent, [*sent.tokens[:i], new, *sent.tokens[i + 1:]])


# -- truncated ----------------------------------------------------------------------------

#: function words a cut should not end on ("... in the ." reads as a broken sentence, not a
#: shorter one): conjunctions, determiners, common prepositions and possessives
DANGLING = frozenset({"and", "or", "but", "the", "a", "an", "of", "in", "on", "to", "with", "for", "at", "by",
                      "from", "as", "if", "that", "this", "these", "those", "our", "their", "my", "his", "her", "its",
                      "your", "than"})


def truncate(sent: Tagged, rng: np.random.Generator) -> list[str] | None:
    """Cut the sentence after 50–70% of its tokens (drawn uniformly), drop punctuation left at
    the cut (and a dangling function word, :data:`DANGLING`), and keep the final
    punctuation mark.

    Why 50–70%: enough is lost to change the meaning (the tail usually holds an object or a
    clause), enough is kept that the output is not trivially short. Needs at least four
    words, so that the cut removes a word."""
    toks = list(sent.tokens)
    final = toks[-1] if toks and is_punct(toks[-1]) else None
    body = toks[:-1] if final else toks
    if sum(not is_punct(t) for t in body) < 4:
        return None
    lo, hi = math.ceil(0.5 * len(body)), max(math.ceil(0.5 * len(body)), math.floor(0.7 * len(body)))
    keep = body[:int(rng.integers(lo, hi + 1))]
    while keep and (is_punct(keep[-1]) or keep[-1].lower() in DANGLING):
        keep.pop()
    if not keep or len(keep) == len(body):
        return None
    return _changed(sent, [*keep, *([final] if final else [])])


# -- two arguments swapped ----------------------------------------------------------------

_SUBJECT, _OBJECT = frozenset({"nsubj"}), frozenset({"dobj", "obj"})
#: pronoun case follows the position: "I saw him" → "he saw me"
_CASE = {"i": "me", "me": "I", "he": "him", "him": "he", "she": "her", "her": "she", "we": "us", "us": "we",
         "they": "them", "them": "they", "who": "whom", "whom": "who"}
_WH = frozenset({"WDT", "WP", "WP$", "EX"})


def _recase_pronoun(span: list[str]) -> list[str]:
    if len(span) == 1 and span[0].lower() in _CASE:
        return [_CASE[span[0].lower()]]
    return span


def swap_arguments(sent: Tagged, rng: np.random.Generator) -> list[str] | None:
    """Swap the subject and the direct object of one verb: ``the dog bit the man`` → ``the man
    bit the dog``.

    What it finds: a verb with an ``nsubj`` child and a ``dobj`` (UD: ``obj``) child in
    spaCy's parse, where each child's subtree is a contiguous span, the subject's entirely
    before the verb and the object's entirely after; relative and wh-pronouns and
    expletives are excluded (swapping ``which`` makes no sentence). Passive subjects
    (``nsubjpass``), indirect objects and clausal arguments are not used. Personal pronouns
    change case with their position (``I saw him`` → ``he saw me``); verb agreement is left
    as it was. With several such verbs, one is chosen at random.
    """
    if not sent.analysed or not sent.tag:
        return None
    found = []
    for v, p in enumerate(sent.pos):
        if p not in ("VERB", "AUX"):
            continue
        subj = [c for c in sent.children(v) if sent.dep[c] in _SUBJECT and sent.tag[c] not in _WH]
        obj = [c for c in sent.children(v) if sent.dep[c] in _OBJECT and sent.tag[c] not in _WH]
        if len(subj) != 1 or len(obj) != 1:
            continue
        s, o = sent.subtree(subj[0]), sent.subtree(obj[0])
        if s[-1] - s[0] + 1 != len(s) or o[-1] - o[0] + 1 != len(o) or not s[-1] < v < o[0]:
            continue
        if [sent.tokens[i].lower() for i in s] == [sent.tokens[i].lower() for i in o]:
            continue
        found.append((s[0], s[-1] + 1, o[0], o[-1] + 1))
    if not found:
        return None
    s0, s1, o0, o1 = _pick(rng, found)
    toks = list(sent.tokens)
    out = [*toks[:s0], *_recase_pronoun(toks[o0:o1]), *toks[s1:o0], *_recase_pronoun(toks[s0:s1]), *toks[o1:]]
    moved = s0 + (o1 - o0) + (o0 - s1)  # where the subject now starts
    return _changed(sent, _recase_initial(sent, out, moved) if s0 == 0 else out)


# -- a number or named entity changed -----------------------------------------------------

_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
#: number words; "one" is left out (mostly a pronoun: "no one", "one of")
NUMBER_WORDS = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twenty", "fifty")
#: replacements by entity type: well-known names of the same type, so the edit swaps a
#: referent and nothing else
ENTITIES = {
    "PERSON": ("Alice", "Boris", "Chen", "Fatima", "Gustav", "Priya"),
    "GPE": ("Peru", "Norway", "Kenya", "Vietnam", "Toronto", "Cairo"),
    "NORP": ("Peruvian", "Norwegian", "Kenyan", "Vietnamese", "Icelandic"),
    "ORG": ("UNESCO", "Toyota", "Oxfam", "NASA"),
}
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("January", "February", "March", "April", "June", "July", "August", "September", "October", "November",
          "December")  # "May" is left out: the modal


def _new_number(token: str, rng: np.random.Generator) -> str:
    """The same digit string with one digit changed (never to a leading zero)."""
    positions = [k for k, ch in enumerate(token) if ch.isdigit()]
    k = _pick(rng, positions)
    digits = [d for d in "0123456789" if d != token[k] and not (d == "0" and k == 0 and len(positions) > 1)]
    return token[:k] + _pick(rng, digits) + token[k + 1:]


def change_number_or_entity(sent: Tagged, rng: np.random.Generator) -> list[str] | None:
    """Change one number or named entity, chosen at random among those found:

    * a digit string (``3``, ``1990``, ``2.5``): one digit changed;
    * a number word (:data:`NUMBER_WORDS`, tagged ``CD``): another number word;
    * a named entity of type PERSON, GPE, NORP or ORG (spaCy's NER, the whole span): a
      name of the same type from :data:`ENTITIES`;
    * a capitalised weekday or month: another one.

    Why these: each is a referent or quantity that a faithful correction must keep, and the
    replacement has the same type, so only the referent changes. ``None`` when the sentence
    has none of them (most learner sentences).
    """
    toks = list(sent.tokens)
    cands: list[tuple[int, int, str]] = []  # (start, end, what)
    for i, t in enumerate(toks):
        if _NUMBER.fullmatch(t):
            cands.append((i, i + 1, "digits"))
        elif t.lower() in NUMBER_WORDS and sent.tag and sent.tag[i] == "CD":
            cands.append((i, i + 1, "number_word"))
        elif t in WEEKDAYS:
            cands.append((i, i + 1, "weekday"))
        elif t in MONTHS:
            cands.append((i, i + 1, "month"))
    if sent.ent:
        i = 0
        while i < len(toks):
            label = sent.ent[i][2:] if sent.ent[i].startswith("B-") else ""
            j = i + 1
            while j < len(toks) and sent.ent[j] == f"I-{label}":
                j += 1
            if label in ENTITIES and not any(_NUMBER.fullmatch(t) for t in toks[i:j]) \
                    and not any(s < j and i < e for s, e, _ in cands):
                cands.append((i, j, label))
            i = j
    if not cands:
        return None
    i, j, what = _pick(rng, sorted(cands))
    old = " ".join(toks[i:j])
    if what == "digits":
        new = [_new_number(toks[i], rng)]
    else:
        pool = {"number_word": NUMBER_WORDS, "weekday": WEEKDAYS, "month": MONTHS}.get(what) or ENTITIES[what]
        word = _pick(rng, [w for w in pool if w.lower() != old.lower() and w not in toks])
        new = [word.capitalize() if what == "number_word" and toks[i][:1].isupper() else word]
    return _changed(sent, [*toks[:i], *new, *toks[j:]])


GENERATORS: dict[str, Generator] = {
    "delete_phrase": delete_phrase,
    "insert_negation": insert_negation,
    "replace_content_word": replace_content_word,
    "truncate": truncate,
    "swap_arguments": swap_arguments,
    "change_number_or_entity": change_number_or_entity,
}
#: kinds that read spaCy's analysis (all but truncation)
NEEDS_TAGS = frozenset(KINDS) - {"truncate"}


# -- pairs --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Pair:
    """One benchmark item: the source, a valid correction of it (a reference), and that
    reference with its meaning changed by one edit of ``kind``. ``line`` is 1-based in the
    source file, ``ref`` the reference's index (0–3 in JFLEG)."""

    line: int
    ref: int
    kind: str
    source: str
    faithful: str
    edited: str


@dataclass(frozen=True)
class SpellingPair:
    """A valid-but-lexical correction taken from a reference: ``fixed`` is the source with only
    the reference's near-miss substitutions applied (``fixes``: source word → reference
    word); ``unfixed`` is the reference with those substitutions undone (the reference as it
    would be had the corrector left the misspellings)."""

    line: int
    ref: int
    source: str
    reference: str
    fixed: str
    unfixed: str
    fixes: tuple[tuple[str, str], ...] = field(default=())
    kind: str = "spelling"


Tagger = Callable[[Sequence[Sequence[str]]], list[Tagged]]


def record_rng(seed: int, line: int, ref: int, kind: str) -> np.random.Generator:
    """The generator of one record: a function of the seed and the record's own coordinates
    (the kind by its place in :data:`KINDS`), never of Python's string hash."""
    return np.random.default_rng([seed, line, ref, KINDS.index(kind)])


def make_pairs(sources: Sequence[str], references: Sequence[Sequence[str]], kinds: Sequence[str] = KINDS,
               seed: int = 0, tagger: Tagger | None = None) -> list[Pair]:
    """Every (source line, reference, kind) for which the kind applies, in that order.

    ``references[k][i]`` is reference ``k`` of source line ``i``; texts are whitespace
    tokenised (JFLEG is). Empty references are skipped. ``tagger`` analyses the references
    (:func:`spacy_tagger`); it is needed by every kind except ``truncate``.
    """
    unknown = [k for k in kinds if k not in GENERATORS]
    if unknown:
        raise ValueError(f"unknown edit kinds {unknown} (known: {', '.join(KINDS)})")
    if tagger is None and any(k in NEEDS_TAGS for k in kinds):
        raise ValueError(f"kinds {sorted(set(kinds) & NEEDS_TAGS)} need a tagger (make_pairs(..., tagger=...))")
    for k, refs in enumerate(references):
        if len(refs) != len(sources):
            raise ValueError(f"reference {k} has {len(refs)} lines but there are {len(sources)} sources")
    todo = [(i, k, refs[i].split()) for k, refs in enumerate(references) for i in range(len(sources))
            if refs[i].split()]
    todo.sort(key=lambda x: (x[0], x[1]))
    tagged = tagger([t for _, _, t in todo]) if tagger is not None else [Tagged.plain(t) for _, _, t in todo]
    out = []
    for (i, k, toks), sent in zip(todo, tagged):
        for kind in kinds:
            edited = GENERATORS[kind](sent, record_rng(seed, i + 1, k, kind))
            if edited is not None:
                out.append(Pair(i + 1, k, kind, " ".join(sources[i].split()), " ".join(toks), " ".join(edited)))
    return out


def spacy_tagger(nlp: Any, batch_size: int = 64) -> Tagger:
    """A :data:`Tagger` from a loaded spaCy pipeline (tagger, parser, lemmatizer, NER), run on
    the given tokens: spaCy never re-tokenises them, so indices match the text's words."""
    from spacy.tokens import Doc  # spaCy comes with the pipeline passed in

    def tag(sentences: Sequence[Sequence[str]]) -> list[Tagged]:
        docs = nlp.pipe((Doc(nlp.vocab, words=list(s)) for s in sentences), batch_size=batch_size)
        return [Tagged(tuple(t.text for t in d), tuple(t.pos_ for t in d), tuple(t.tag_ for t in d),
                       tuple(t.lemma_ for t in d), tuple(t.dep_ for t in d), tuple(t.head.i for t in d),
                       tuple(f"{t.ent_iob_}-{t.ent_type_}" if t.ent_type_ else "" for t in d)) for d in docs]
    return tag


# -- the lexical baseline -----------------------------------------------------------------

def lexical_similarity(source: str, text: str) -> float:
    """1 − (token-level Levenshtein distance) / (the longer sentence's length in tokens), on
    whitespace tokens: :func:`semsim.kernel.align.tokens.levenshtein_similarity`, the meta-evaluation's
    ``levenshtein`` anchor too.

    The baseline a semantic measure has to beat: it sees only which words changed, so it
    cannot tell a spelling fix from a replaced content word, and it scores every edit by
    its size alone. Two empty texts are identical (1.0)."""
    return levenshtein_similarity(source.split(), text.split())


# -- win rates ----------------------------------------------------------------------------

@dataclass(frozen=True)
class WinRate:
    """How often a measure scores the faithful side of a kind's pairs higher (ties ½), with a
    percentile bootstrap interval over source lines."""

    kind: str
    n: int
    rate: float
    low: float
    high: float


def win_rates(records: Sequence[Pair], scores_faithful: Sequence[float], scores_edited: Sequence[float],
              n_bootstrap: int = 1000, confidence: float = 0.95, seed: int = 0) -> list[WinRate]:
    """Per kind (in :data:`KINDS` order, kinds without records left out): n, the paired win
    rate and its interval.

    A win is 1, a tie ½, a loss 0. The interval resamples *source lines* (with all of a
    line's pairs of that kind), not pairs: the four references of one line share its source
    and are not independent. ``n_bootstrap=0`` gives the rate alone (low = high = rate).
    """
    if not len(records) == len(scores_faithful) == len(scores_edited):
        raise ValueError(f"{len(records)} records but {len(scores_faithful)} faithful and {len(scores_edited)} "
                         "edited scores")
    out = []
    for ki, kind in enumerate(KINDS):
        by_line: dict[int, list[float]] = {}
        for r, f, e in zip(records, scores_faithful, scores_edited):
            if r.kind == kind:
                by_line.setdefault(r.line, []).append(1.0 if f > e else 0.5 if f == e else 0.0)
        if not by_line:
            continue
        wins = np.array([sum(v) for v in by_line.values()])
        counts = np.array([len(v) for v in by_line.values()])
        rate = float(wins.sum() / counts.sum())
        low = high = rate
        if n_bootstrap > 0:
            rates = bootstrap(lambda idx, w=wins, c=counts: w[idx].sum(axis=1) / c[idx].sum(axis=1), len(wins),
                              n_bootstrap, [seed, ki])
            low, high = percentile_interval(rates, confidence)
        out.append(WinRate(kind, int(counts.sum()), rate, low, high))
    return out


# -- valid-but-lexical corrections --------------------------------------------------------

def near_miss(a: str, b: str, lexicon: Collection[str] | None = None) -> bool:
    """Whether ``b`` looks like ``a`` spelt right: both alphabetic and at least 3 letters, the
    same first letter, lengths within 1, 1 or 2 character edits apart (ignoring case), and
    ``a`` not a word of ``lexicon`` (lower-cased) when one is given.

    Why so narrow: it should catch misspellings (``gva``/``gave``, ``iede``/``idea``,
    ``tecnologies``/``technologies``) and not word choice. Edit distance alone also pairs
    real words (``many``/``may``, ``here``/``there``, ``old``/``our``): the lexicon (the
    words of the corrected references, :func:`reference_lexicon`) rules out a source word
    that is itself correct English, and learners rarely misspell a word's first letter."""
    if not (a.isalpha() and b.isalpha()) or min(len(a), len(b)) < 3 or abs(len(a) - len(b)) > 1:
        return False
    if a[0].lower() != b[0].lower() or (lexicon is not None and a.lower() in lexicon):
        return False
    return 1 <= Levenshtein.distance(a.lower(), b.lower()) <= 2


def reference_lexicon(references: Iterable[Iterable[str]]) -> frozenset[str]:
    """The lower-cased words of corrected text (every line of every reference): a word found
    there is English, so a source word found there is no misspelling."""
    return frozenset(w.lower() for refs in references for line in refs for w in line.split())


def spelling_fix(source: Sequence[str], reference: Sequence[str], lexicon: Collection[str] | None = None,
                 ) -> tuple[list[str], list[str], list[tuple[str, str]]] | None:
    """The source with only the reference's near-miss substitutions applied, the reference
    with them undone, and the substitutions; ``None`` if the reference makes none.

    The tokens are aligned by token-level Levenshtein (``rapidfuzz``'s opcodes); a
    replacement block of equal length on both sides pairs its tokens one to one, and a pair
    that is a :func:`near_miss` is a fix."""
    a, b = token_ids(source, reference)
    fixed, unfixed, fixes = list(source), list(reference), []
    for op in Levenshtein.opcodes(a, b):
        if op.tag != "replace" or op.src_end - op.src_start != op.dest_end - op.dest_start:
            continue
        for i, j in zip(range(op.src_start, op.src_end), range(op.dest_start, op.dest_end)):
            if near_miss(source[i], reference[j], lexicon):
                fixed[i], unfixed[j] = reference[j], source[i]
                fixes.append((source[i], reference[j]))
    return (fixed, unfixed, fixes) if fixes else None


def spelling_pairs(sources: Sequence[str], references: Sequence[Sequence[str]],
                   lexicon: Collection[str] | None = None) -> list[SpellingPair]:
    """Every (line, reference) whose reference fixes at least one near-miss of its source
    (:func:`spelling_fix`; ``lexicon``: :func:`near_miss`)."""
    out = []
    for i, src in enumerate(sources):
        for k, refs in enumerate(references):
            got = spelling_fix(src.split(), refs[i].split(), lexicon)
            if got:
                fixed, unfixed, fixes = got
                out.append(SpellingPair(i + 1, k, " ".join(src.split()), " ".join(refs[i].split()), " ".join(fixed),
                                        " ".join(unfixed), tuple(fixes)))
    return out


# -- the data: JFLEG in, JSON Lines out ---------------------------------------------------

def load_jfleg(directory: str | Path, limit: int | None = None) -> tuple[list[str], list[list[str]]]:
    """The first ``limit`` lines of ``dev.src`` and ``dev.ref0``..``dev.ref3`` in ``directory``."""
    d = Path(directory)
    src = (d / "dev.src").read_text(encoding="utf-8").splitlines()[:limit]
    refs = []
    for k in range(4):
        lines = (d / f"dev.ref{k}").read_text(encoding="utf-8").splitlines()[:limit]
        if len(lines) != len(src):
            raise ValueError(f"{d / f'dev.ref{k}'}: {len(lines)} lines, but dev.src has {len(src)}")
        refs.append(lines)
    return src, refs


def to_json(record: Pair | SpellingPair) -> str:
    return json.dumps(asdict(record), ensure_ascii=False)


def from_json(line: str) -> Pair | SpellingPair:
    """A record written by :func:`to_json` (the kind ``spelling`` is a :class:`SpellingPair`)."""
    data: Mapping[str, Any] = json.loads(line)
    if data.get("kind") == "spelling":
        return SpellingPair(**{**data, "fixes": tuple(tuple(f) for f in data.get("fixes", ()))})
    return Pair(**data)


def read_records(lines: Iterable[str]) -> tuple[list[Pair], list[SpellingPair]]:
    """The edit pairs and the spelling-fix pairs of a JSON Lines file's lines."""
    pairs: list[Pair] = []
    spelling: list[SpellingPair] = []
    for line in lines:
        if line.strip():
            r = from_json(line)
            if isinstance(r, SpellingPair):
                spelling.append(r)
            else:
                pairs.append(r)
    return pairs, spelling


def generate(directory: str | Path, tagger: Tagger, limit: int | None = None, seed: int = 0,
             kinds: Sequence[str] = KINDS) -> tuple[list[Pair], list[SpellingPair]]:
    """The benchmark's data from a JFLEG directory: the edit pairs of the first ``limit`` source
    lines and their spelling-fix pairs. The spelling lexicon is built from *every* reference
    line, whatever ``limit``, so a line's pairs do not depend on how many lines are used."""
    sources, references = load_jfleg(directory)
    lexicon = reference_lexicon(references)
    sources, references = sources[:limit], [refs[:limit] for refs in references]
    return (make_pairs(sources, references, kinds, seed, tagger),
            spelling_pairs(sources, references, lexicon))
