"""amrlib's sentence-to-graph models (``amrlib.load_stog_model``) as the semsim parser ``amrlib``.

A model is an amrlib model directory (``amrlib_meta.json``, ``config.json``, weights), given
with ``--model DIR``, ``$SEMSIM_AMRLIB_MODEL`` or as the name of a model installed with
``semsim models download``. torch, transformers and amrlib are imported on the first
parse, never at import or registration time (they take seconds to import).

Three things differ from calling amrlib directly:

* **No implicit downloads.** amrlib's released models name their tokenizer on the Hugging
  Face hub (``t5-base``, ``facebook/bart-large``), which transformers would fetch at load
  time. semsim downloads nothing implicitly, so the tokenizer is always loaded from a local
  directory: ``$SEMSIM_AMRLIB_TOKENIZER``, else the model directory when it holds tokenizer
  files, else transformers' local cache of the named tokenizer; if none has it, a
  :class:`~semsim.SemsimError` says how to provide one.
* **Failures are visible.** amrlib returns ``None`` (or a graph with no concept, ``()``) for
  a sentence whose generated text does not decode into an AMR, and its smatch helper then
  drops such pairs from the totals. Here such a batch raises :class:`ParseFailure`, which
  names the sentences, instead of scoring an empty graph.
* The native parse is a ``penman.Graph`` with ``# ::snt`` metadata, which the plugin's
  ``to_graph`` already converts; its PENMAN text is what the parse cache keeps.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from semsim.kernel.errors import ParseError, SemsimError, option

MODEL_ENV = "SEMSIM_AMRLIB_MODEL"
TOKENIZER_ENV = "SEMSIM_AMRLIB_TOKENIZER"
DEFAULT_MODEL = "amrlib-parse-xfm-bart-large-0.1.0"  # one of RELEASES
META = "amrlib_meta.json"
#: Files a saved transformers tokenizer consists of (any one of the first four suffices for
#: AutoTokenizer, given the model's config.json; BPE tokenizers need vocab.json + merges.txt).
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "spiece.model", "sentencepiece.bpe.model",
                   "vocab.json", "merges.txt", "vocab.txt", "special_tokens_map.json", "added_tokens.json")
#: amrlib's released parse models (scores and sizes as amrlib lists them): name, release tag, archive stem
#: (also the directory the archive unpacks into), description.
RELEASE_URL = "https://github.com/bjascob/amrlib-models/releases/download"
RELEASES = (
    ("amrlib-parse-xfm-bart-large-0.1.0", "parse_xfm_bart_large-v0_1_0", "model_parse_xfm_bart_large-v0_1_0",
     "amrlib's BART-large parser (83.7 Smatch on AMR 3.0, 1.4 GB; needs the facebook/bart-large tokenizer)"),
    ("amrlib-parse-xfm-bart-base-0.1.0", "parse_xfm_bart_base-v0_1_0", "model_parse_xfm_bart_base-v0_1_0",
     "amrlib's BART-base parser (82.3 Smatch on AMR 3.0, 492 MB; needs the facebook/bart-base tokenizer)"),
)
_loaded: dict[tuple[str, str], Any] = {}


class ParseFailure(ParseError):
    """amrlib produced no usable AMR for some sentences (``sentences``, in batch order)."""

    def __init__(self, sentences: Sequence[str], total: int):
        shown = ", ".join(repr(s) for s in sentences[:3]) + (", ..." if len(sentences) > 3 else "")
        super().__init__(f"amrlib could not parse {len(sentences)} of {total} sentence(s) of a batch into an "
                         f"AMR (no beam decoded to a graph): {shown}", sentences)


# -- the model -----------------------------------------------------------------------------------
def resolve_model(model: str | None) -> Path:
    """The model directory from ``--model`` (a directory or an installed model's name) or the environment."""
    from semsim.kernel.models import check_trusted, requested_model
    path = requested_model(model, MODEL_ENV, lambda p: (p / META).is_file(), runs_code="amrlib", missing=(
        f"no amrlib model: pass {option('model', 'DIR')} (an amrlib model directory, with the tokenizer it "
        f"names, e.g. facebook/bart-large, saved in it or in {TOKENIZER_ENV}), set {MODEL_ENV}, "
        f"or install one with `semsim models download {DEFAULT_MODEL}` (its tokenizer too: docs/amr.md)"))
    if not path.exists() and str(path) in {name for name, *_ in RELEASES}:
        raise SemsimError(f"amrlib model {str(path)!r} is not installed: `semsim models download {path}`")
    if not path.is_dir():
        raise SemsimError(f"not an amrlib model: {path} is not a directory (pass the directory holding "
                          f"{META}, config.json and the weights)")
    if not (path / META).is_file() or not (path / "config.json").is_file():
        raise SemsimError(f"not an amrlib model: {path} has no {META} or config.json (amrlib's parse models "
                          "are directories holding both, with the weights)")
    _check_meta(path / META)
    check_trusted(path, "amrlib", "its weights are torch pickles")
    return path


#: The inference classes amrlib ships for its parse models (module relative to ``amrlib.models``,
#: as ``amrlib_meta.json`` names them; ``.parse_t5`` is an old name amrlib maps to ``.parse_xfm``).
#: amrlib imports whatever module the file names (``torch.hub`` would import the directory's
#: ``hubconf.py``), so a file naming anything else is refused, trusted or not.
INFERENCE_CLASSES = frozenset((module, "Inference") for module in (
    ".parse_xfm.inference", ".parse_t5.inference", ".parse_gsii.inference", ".parse_spring.inference"))


def _check_meta(meta: Path) -> None:
    """``amrlib_meta.json`` is an object naming one of :data:`INFERENCE_CLASSES` and a model file name."""
    import json
    try:
        info = json.loads(meta.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SemsimError(f"{meta}: not a readable amrlib metadata file ({type(exc).__name__})") from None
    if not isinstance(info, dict):
        raise SemsimError(f"{meta}: not an amrlib metadata file (a JSON {type(info).__name__}, not an object)")
    named = (info.get("inference_module"), info.get("inference_class"))
    if named not in INFERENCE_CLASSES:
        raise SemsimError(f"{meta}: inference class {named[0]!r}.{named[1]!r} is not one amrlib ships for parsing "
                          f"({', '.join(sorted(m for m, _ in INFERENCE_CLASSES))} with class 'Inference'); "
                          "refusing to import it")
    fn = info.get("model_fn")
    if not isinstance(fn, str) or Path(fn).name != fn or fn in ("", ".", ".."):
        raise SemsimError(f"{meta}: model_fn {fn!r} is not a file name in the model's directory")
    if not isinstance(info.get("kwargs", {}), dict):
        raise SemsimError(f"{meta}: kwargs must be an object")


def _model_files(root: Path) -> list[Path]:
    """Every regular file under ``root`` except hidden ones (semsim's install marker, editor debris)."""
    return sorted(f for f in root.rglob("*")
                  if f.is_file() and not any(p.startswith(".") for p in f.relative_to(root).parts))


def model_identity(model: str | None) -> str:
    """SHA-256 over the model directory's files (names and contents), and over the tokenizer's
    files when they come from elsewhere: both decide what the parses are (once per version of
    the files: a released model takes seconds to hash)."""
    from semsim.kernel.models import hash_files
    root = resolve_model(model)
    entries: list[tuple[str, Path | None]] = [(f.relative_to(root).as_posix(), f) for f in _model_files(root)]
    tokenizer = _tokenizer_dir(root, required=False)
    if tokenizer is not None and tokenizer != root:
        entries += [("tokenizer", None), *((n, tokenizer / n) for n in TOKENIZER_FILES if (tokenizer / n).is_file())]
    return hash_files(entries)


# -- the tokenizer -------------------------------------------------------------------------------
def _has_tokenizer(d: Path) -> bool:
    return any((d / n).is_file() for n in TOKENIZER_FILES[:4]) or (
        (d / "vocab.json").is_file() and (d / "merges.txt").is_file())


def _named_tokenizer(model_dir: Path) -> str | None:
    """The tokenizer the model's config names (``tok_name_or_path``, else ``model_name_or_path``)."""
    import json
    try:
        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    params = (config.get("task_specific_params") or {})
    params = params.get("parse_amr") or params.get("translation_amr_to_text") or {}
    return params.get("tok_name_or_path") or params.get("model_name_or_path")


def _tokenizer_dir(model_dir: Path, required: bool = True) -> Path | None:
    """A local directory to load the tokenizer from, never the network (see the module docstring)."""
    env = os.environ.get(TOKENIZER_ENV)
    if env:
        if not _has_tokenizer(Path(env)):
            raise SemsimError(f"{TOKENIZER_ENV}={env} holds no tokenizer files ({', '.join(TOKENIZER_FILES[:4])}, "
                              "or vocab.json with merges.txt)")
        return Path(env)
    if _has_tokenizer(model_dir):
        return model_dir
    name = _named_tokenizer(model_dir)
    if name and Path(name).is_dir() and _has_tokenizer(Path(name)):
        return Path(name)
    if name:
        try:  # transformers' cache of a hub tokenizer fetched earlier; local_files_only: no network
            from huggingface_hub import snapshot_download
            cached = Path(snapshot_download(name, local_files_only=True))
            if _has_tokenizer(cached):
                return cached
        except Exception:  # not cached, huggingface_hub absent or a malformed name: no local copy
            pass
    if not required:
        return None
    raise SemsimError(
        f"amrlib model {model_dir} names the tokenizer {name or '(none)'!r}, which is not on this machine, and "
        "semsim does not download it implicitly: save it into the model directory (on a machine with access "
        f"to the Hugging Face hub: `AutoTokenizer.from_pretrained({name or 'NAME'!r}).save_pretrained(DIR)`, "
        f"then copy DIR's files into {model_dir}), or set {TOKENIZER_ENV} to a directory holding it")


# -- loading -------------------------------------------------------------------------------------
def _require_amrlib() -> None:
    import importlib.util
    for module in ("torch", "transformers", "amrlib"):
        if importlib.util.find_spec(module) is None:
            raise SemsimError(f"amrlib is not installed ({module} missing): run scripts/setup.sh, or "
                              "`pip install torch==2.13.0` then `pip install -e \"plugins/amr[amrlib]\"` "
                              "(see docs/amr.md)")


class _DropDeserializeErrors(logging.Filter):
    """amrlib logs every beam that does not decode; semsim reports failed sentences itself."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(("Failed to deserialize", "Deserializer exception"))


def _quiet_amrlib_logs() -> None:
    for name in ("amrlib.models.parse_xfm.inference", "amrlib.models.parse_xfm.penman_serializer"):
        log = logging.getLogger(name)
        if not any(isinstance(f, _DropDeserializeErrors) for f in log.filters):
            log.addFilter(_DropDeserializeErrors())


def _stog(model_dir: Path) -> Any:
    tokenizer = _tokenizer_dir(model_dir)
    assert tokenizer is not None  # required=True raises instead
    key = (str(model_dir), str(tokenizer))
    if key not in _loaded:
        _loaded.clear()  # one model at a time: released models take 0.5-1.5 GB of memory
        _require_amrlib()
        try:
            import amrlib
            from transformers.utils import logging as hf_logging
            hf_logging.disable_progress_bar()  # semsim shows its own progress, on batches
            _quiet_amrlib_logs()
            # tok_name_or_path overrides the hub name in the model's config (an amrlib kwarg)
            _loaded[key] = amrlib.load_stog_model(model_dir=str(model_dir), tok_name_or_path=str(tokenizer))
        except ImportError as exc:
            raise SemsimError(f"cannot load amrlib model {model_dir}: a module it needs is missing ({exc}); "
                              "install the AMR plugin's amrlib extra (docs/amr.md)") from None
        except Exception as exc:  # amrlib and transformers raise OSError, ValueError, KeyError... on a bad model
            raise SemsimError(f"cannot load amrlib model {model_dir}: {type(exc).__name__}: "
                              f"{str(exc).splitlines()[0] if str(exc) else ''} (is it an amrlib parse model "
                              f"directory: {META}, config.json with task_specific_params.parse_amr, weights?)"
                              ) from None
    return _loaded[key]


# -- the parser ----------------------------------------------------------------------------------
def _decode(text: str | None) -> Any:
    """The parse as a ``penman.Graph``, or None when it is not an AMR (amrlib's None or ``()``)."""
    import penman
    if text is None:
        return None
    try:
        graph = penman.decode(text)
    except penman.DecodeError:
        return None
    return graph if graph.top is not None and graph.instances() else None


def parse(texts: Sequence[str], model: str | None = None) -> list[Any]:
    """One ``penman.Graph`` per sentence (``# ::snt`` = the sentence), in order.

    Raises :class:`ParseFailure` naming the sentences amrlib produced no AMR for, rather
    than returning empty graphs that would score as real parses.
    """
    stog = _stog(resolve_model(model))
    outputs = stog.parse_sents(list(texts), add_metadata=True)
    graphs = [_decode(o) for o in outputs]
    failed = [t for t, g in zip(texts, graphs) if g is None]
    if failed:
        raise ParseFailure(failed, len(texts))
    return graphs


def serialize(graph: Any) -> str:
    """The parse in PENMAN notation, with its metadata (what the parse cache keeps)."""
    import penman
    return penman.encode(graph)
