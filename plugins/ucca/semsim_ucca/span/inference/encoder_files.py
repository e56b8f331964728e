"""An encoder directory's files, checked where they are read: ``config.json`` and
``tokenizer.json`` (a module of its own so that :mod:`.encoder`, which loads an encoder, and
:mod:`.bert`, which runs one, both read them without importing each other)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from semsim.kernel.errors import SemsimError

#: the configuration's sizes this package reads, and their types
CONFIG_NUMBERS = {"num_hidden_layers": int, "hidden_size": int, "num_attention_heads": int,
                  "layer_norm_eps": float, "pad_token_id": int}


def check_files(directory: Path, tokenizer_needed: bool) -> None:
    """The encoder directory's ``config.json`` and ``tokenizer.json`` read and checked where
    the directory is resolved, the one way in to them: a missing, truncated or mistyped file
    is one line naming it (the libraries said "os error 2", "EOF" or IndexError, naming none).
    A local directory may do without ``tokenizer.json`` (``transformers`` builds a fast
    tokenizer from its other tokenizer files); a pinned package ships one and is read through
    it. Checked once per file version."""
    from semsim.kernel.models import file_version
    config = directory / "config.json"
    if not config.is_file():
        raise SemsimError(f"{config}: no such file (the encoder's configuration)")
    _check_config(*file_version(config))
    tokenizer = directory / "tokenizer.json"
    if tokenizer.is_file():
        _check_tokenizer(*file_version(tokenizer))
    elif tokenizer_needed:
        raise SemsimError(f"{tokenizer}: no such file (the encoder's tokenizer)")


def encoder_config(directory: Path) -> dict[str, Any]:
    """The checked ``config.json`` of an encoder directory (see :func:`check_files`)."""
    from semsim.kernel.models import file_version
    return _check_config(*file_version(directory / "config.json"))


def _json_object(path: str, what: str) -> dict[str, Any]:
    """The JSON object in ``path``, else one line naming the file as not a readable ``what``."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        raise SemsimError(f"{path}: not a readable {what} ({type(exc).__name__}: {exc})") from None
    if not isinstance(data, dict):
        raise SemsimError(f"{path}: not a readable {what} (a JSON {type(data).__name__}, not an object)")
    return data


@functools.cache
def _check_config(path: str, size: int, mtime_ns: int) -> dict[str, Any]:
    config = _json_object(path, "encoder configuration")
    for key, kind in CONFIG_NUMBERS.items():
        value = config.get(key)
        whole = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 1 << 20
        if value is not None and not (whole or (kind is float and isinstance(value, float))):
            raise SemsimError(f"{path}: {key} {value!r} is not a {'whole ' if kind is int else ''}number in range")
    return config


@functools.cache
def _check_tokenizer(path: str, size: int, mtime_ns: int) -> None:
    """A JSON object, read as JSON only (building the tokenizer here would cost a second
    build of it, 0.07 s a process): what ``tokenizers`` then refuses is named where it
    builds it (:func:`tokenizer`)."""
    _json_object(path, "tokenizer")


def tokenizer(directory: Path) -> Any:
    """The ``tokenizers`` tokenizer of an encoder directory; what that library refuses is one
    line naming the file, not its serde message alone."""
    from tokenizers import Tokenizer
    path = directory / "tokenizer.json"
    try:
        return Tokenizer.from_file(str(path))
    except Exception as exc:  # tokenizers raises its own Exception subclass
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise SemsimError(f"{path}: not a readable tokenizer ({first})") from None
