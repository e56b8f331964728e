"""Text to graphs: the one route every command, the Python API, the metric suites' adapters,
the scripts and the benchmarks take (:func:`parse_texts`).

How to parse is one frozen object, :class:`ParseSettings` (click's parsing options build it,
as the USim options build a :class:`~semsim.USim`); what comes back is :class:`Parses`: the
graphs, the sentences that failed and why, and the signature a score from these graphs
carries. The route owns what every caller used to write out for itself: finding the parser,
tokenizing, opening and closing the parse cache, handing batches to an executor
(:mod:`semsim.app.executors`) and signing.

Each distinct sentence is parsed once; each batch is stored as soon as it is parsed, so an
interrupted run loses at most the batch in flight. Results are keyed by text, so they do not
depend on the number of processes or their timing.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..kernel import threads
from ..kernel.errors import InputError, ParseError, PluginError, SemsimError, SettingsError, option
from ..kernel.graph import Graph
from ..kernel.limits import MAX_JOBS, check_settings
from ..kernel.models import trusting
from ..kernel.records import Parser
from ..kernel.signature import Signature, SignatureClash
from ..kernel.stats import Score
from .cache import ParseCache, model_key, normalise
from .executors import Executor, Parsed, executor_spec, open_executor
from .plugins import parser_answer, parsers

#: strings that say yes or no: refused as a cache path (``cache="no"`` meant False)
FLAG_WORDS = frozenset({"", "no", "yes", "true", "false", "none", "off", "on", "0", "1", "n", "y"})


@dataclass(frozen=True)
class ParseSettings:
    """How text is parsed: which parser and model, how the text is tokenized first, where the
    parse cache is and where batches run. Checked once, when made, so a nonsensical setting
    fails before any work starts, whichever surface (options, YAML, keywords) gave it."""

    parser: str | None = None  # a registered parser; None: the default one of ``representation``
    representation: str | None = None
    model: str | None = None  # None: the parser's own default
    cache: str | os.PathLike[str] | bool = True  # True: the default file; a path; False: no cache
    batch_size: int = 32
    jobs: int = 1
    executor: str = "local"  # "dask" (a local cluster of ``jobs`` workers) or "dask://HOST:PORT"
    batch_timeout: float | None = None  # Dask only: seconds per batch before its worker is restarted
    tokenize: str = "none"  # "spacy": split untokenized text (LLM outputs) first (semsim.app.tokenization)
    progress: bool = False
    #: load a model whose format runs code (TUPA, amrlib) though semsim did not download it
    #: (semsim.kernel.models.check_trusted); ``$SEMSIM_TRUST_MODELS=1`` says the same for every run
    trust_model: bool = False

    def __post_init__(self) -> None:
        from .tokenization import check
        for name in ("parser", "representation", "model"):  # a name or a path, as the options give
            value = getattr(self, name)
            if value is not None and (not isinstance(value, (str, os.PathLike)) or (name != "model"
                                      and not isinstance(value, str))):
                raise SettingsError(f"{name}={value!r}: expected a {'path or ' if name == 'model' else ''}name",
                                    [name])
        # "no" (a flag written as a string) would otherwise become a cache file named "no"
        flag_like = isinstance(self.cache, str) and self.cache.strip().lower() in FLAG_WORDS
        if not isinstance(self.cache, (bool, str, os.PathLike)) or flag_like:
            raise SettingsError(f"cache={self.cache!r}: expected True (the default file), False (none) or a path",
                                ["cache"])
        for name in ("progress", "trust_model"):  # "no" is a true string: a flag is a bool
            if type(getattr(self, name)) is not bool:
                raise SettingsError(f"{name}={getattr(self, name)!r}: expected True or False", [name])
        for name in ("batch_size", "jobs"):  # 0 would parse nothing, or hang; True is no count
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise SettingsError(f"{name}={value!r}: expected a whole number of at least 1", [name])
        if self.jobs > MAX_JOBS:  # the bound of --jobs, held for the Python API too
            raise SettingsError(f"jobs={self.jobs}: at most {MAX_JOBS} (4 per core: more only contend for the "
                                "cores, and each loads its own model)", ["jobs"])
        check(self.tokenize)
        spec = executor_spec(self.executor)
        if self.batch_timeout is not None:
            if isinstance(self.batch_timeout, bool) or not isinstance(self.batch_timeout, (int, float)) \
                    or not math.isfinite(self.batch_timeout) or self.batch_timeout <= 0:
                raise SettingsError(f"batch_timeout={self.batch_timeout!r}: expected a number of seconds",
                                    ["batch_timeout"])
            if not spec.distributed:  # rather than a timeout that never fires
                raise SettingsError(f"{option('batch_timeout')} needs executor dask or dask://HOST:PORT "
                                    "(docs/scale.md)", ["batch_timeout"])

    @property
    def parses_here(self) -> bool:
        """Whether batches are parsed in this process (one local job), not in workers."""
        return self.jobs == 1 and not executor_spec(self.executor).distributed

    def find(self) -> Parser:
        """The parser these settings name (:func:`find_parser`); one named explicitly must
        parse into ``representation`` when that is given too."""
        found = find_parser(self.parser, self.representation)
        if self.representation is not None and found.representation != self.representation:
            raise SemsimError(f"parser {found.name!r} parses into {found.representation}, not {self.representation}")
        return found


@dataclass(frozen=True)
class Parses:
    """What :func:`parse_texts` returns: the graph of every text that parsed (:meth:`get` looks
    one up by the text as given), why each of the others did not, and the signature fields of
    the parser and model (``parser:NAME|model:MODEL@HASH...``, then ``|tok:...`` if a tokenizer
    split the texts) that a score from these graphs carries (:meth:`signed`)."""

    graphs: dict[str, Graph]  # by the normalised, tokenized text
    failed: dict[str, str]  # normalised, tokenized text -> one-line reason
    parser: str
    signed_by: Signature  # the parser's and model's fields (parser_fields)
    tokenize: str = "none"
    representation: str = ""
    #: each text as given -> as tokenized for parsing (filled by parse_texts; others on first use)
    tokens: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    def tokenized(self, texts: Iterable[str]) -> list[str]:
        """``texts`` as they were tokenized for parsing (as given with ``tokenize="none"``)."""
        texts = list(texts)
        new = [t for t in dict.fromkeys(texts) if t not in self.tokens]
        if new:
            from .tokenization import tokenize
            self.tokens.update(zip(new, tokenize(new, self.tokenize)))
        return [self.tokens[t] for t in texts]

    @property
    def signature(self) -> str:
        """:attr:`signed_by` rendered, for a script that prints it: ``parser:NAME|model:MODEL@HASH...``."""
        return self.signed_by.format()

    def sign(self, measured: Signature) -> Signature:
        """The signature of a score of these graphs: ``measured`` (the measure's, with its
        settings, scheme and version), then the parser's fields (:func:`signed_with`)."""
        return signed_with(measured, self.signed_by, self.parser)

    def key(self, text: str) -> str:
        """The key of ``text`` (as given) in :attr:`graphs` and :attr:`failed`."""
        return graph_key(self.tokenized([text])[0])

    def get(self, text: str) -> Graph | None:
        return self.graphs.get(self.key(text))

    def failures_among(self, texts: Iterable[str]) -> int:
        """How many distinct sentences of ``texts`` could not be parsed."""
        return len({self.key(t) for t in texts} & set(self.failed))

    def signed(self, score: Callable[[Graph, Graph], Score]) -> Callable[[Graph, Graph], Score]:
        """``score`` whose scores' signatures also name the parser and model (:meth:`sign`)."""
        def signed(a: Graph, b: Graph) -> Score:
            scored = score(a, b)
            return replace(scored, signature=self.sign(scored.signature))
        return signed


def graph_key(tokenized: str) -> str:
    """The key of a sentence, as tokenized for parsing, in :attr:`Parses.graphs` and
    :attr:`Parses.failed` (:meth:`Parses.key` tokenizes one as given first): its text
    whitespace-normalised, as the parse cache stores it (:func:`semsim.app.cache.normalise`).
    Code that holds tokenized text asks here, so that one place says how graphs are keyed."""
    return normalise(tokenized)


def parse_texts(texts: Iterable[str], settings: ParseSettings | None = None, *, keep_going: bool = True,
                on_parsed: Callable[[dict[str, Graph], Parses], None] | None = None,
                store: ParseCache | None = None) -> Parses:
    """Parse ``texts`` (tokenized as ``settings.tokenize`` says), each distinct one once,
    through the parse cache; the one route from text to graphs.

    A sentence the parser fails on is recorded in :attr:`Parses.failed` and the others are
    kept; with ``keep_going=False`` the first failure raises :class:`~semsim.kernel.errors.ParseError`
    instead, once the rest of its batch is stored. Errors about the run itself (a missing
    model) always raise.

    ``on_parsed(new, parses)`` is called as graphs arrive: once with the cache's hits, then
    with each batch as it is stored; ``new`` holds that call's graphs by key
    (:meth:`Parses.key`), and ``parses`` is the result so far, its graphs growing call by
    call. With batches parsed elsewhere (``jobs`` > 1, Dask) this process only waits for
    them, and a caller can start on what is there (``semsim score`` scores the pairs whose
    two sides are parsed). What it cannot do for a reason semsim reports (a
    :class:`~semsim.kernel.errors.SemsimError`) it leaves for after the parse; anything else it
    raises is a bug, and ends the run (what was stored stays in the cache).

    ``store``, an open cache, is used (and left open) instead of opening ``settings.cache``
    for this call: an open scorer (:class:`semsim.app.scorer.Scorer`) pays for the cache's
    set-up once, not once a call.
    """
    settings = settings or ParseSettings()
    with trusting(settings.trust_model):
        return _parse_texts(texts, settings, keep_going, on_parsed, store)


def _parse_texts(texts: Iterable[str], settings: ParseSettings, keep_going: bool,
                 on_parsed: Callable[[dict[str, Graph], Parses], None] | None, store: ParseCache | None) -> Parses:
    check_settings()
    texts = checked_texts(texts)
    parser = settings.find()
    given = list(dict.fromkeys(texts))
    from .tokenization import tokenize
    tokens = dict(zip(given, tokenize(given, settings.tokenize)))
    failed: dict[str, str] | None = {} if keep_going else None
    # made once the parser and model are known to load (the signature names the model's content)
    result = functools.cache(lambda: Parses(
        {}, failed if failed is not None else {}, parser.name,
        parser_fields(parser, settings.model, settings.tokenize), settings.tokenize, parser.representation, tokens))

    def stored(new: dict[str, Graph]) -> None:
        result().graphs.update(new)
        if on_parsed is not None:
            on_parsed(new, result())

    with _opened(settings.cache if store is None else store) as cache:
        graphs = parse_sentences(list(tokens.values()), parser, settings, cache=cache, failed=failed,
                                 on_stored=None if on_parsed is None else stored)
    result().graphs.update(graphs)
    return result()


def checked_texts(texts: Iterable[str]) -> list[str]:
    """``texts`` as a list, each a string semsim takes (:func:`semsim.kernel.files.text_problem`:
    no lone surrogate, no NUL or escape character); else one :class:`InputError` naming the
    first bad one by position. One string is refused too: its characters are no sentences."""
    from ..kernel.files import text_problem
    if isinstance(texts, (str, bytes)):
        raise InputError(f"texts: expected a sequence of sentences, not one {type(texts).__name__} (wrap it in a list)")
    texts = list(texts)
    for k, text in enumerate(texts):  # cheap beside a parse; the CLI's files are checked as read
        if (problem := text_problem(text)) is not None:
            raise InputError(f"text {k + 1}: {problem}")
    return texts


@contextlib.contextmanager
def _opened(cache: str | os.PathLike[str] | bool | ParseCache) -> Iterator[ParseCache | None]:
    if cache is False or isinstance(cache, ParseCache):  # an open cache is its opener's to close
        yield cache or None
        return
    with ParseCache(None if cache is True else cache) as store:
        yield store


#: Where plain text goes when neither a parser nor a representation is named: UCCA, the
#: representation USim was defined on (docs/usage.md). ``$SEMSIM_REPRESENTATION`` changes it
#: for a user or a site; a plugin's ``default=True`` only chooses within its representation.
TEXT_REPRESENTATION, REPRESENTATION_ENV = "ucca", "SEMSIM_REPRESENTATION"


def find_parser(name: str | None, representation: str | None) -> Parser:
    """The parser named; else, within ``representation`` (None: :func:`text_representation`),
    the only parser, or the one registered as its default. Installing another
    representation's plugin, default parser and all, never changes what plain text gets."""
    available = parsers()
    if name is not None:
        if name not in available:
            raise PluginError(f"no parser named {name!r} (installed: {', '.join(sorted(available)) or 'none'})")
        return available[name]
    asked = representation is not None
    representation = representation or text_representation(available.values())
    matching = [p for p in available.values() if p.representation == representation]
    defaults = [p for p in matching if p.default]
    if len(matching) == 1 or len(defaults) == 1:
        return matching[0] if len(matching) == 1 else defaults[0]
    names = ", ".join(sorted(p.name for p in matching))
    if len(defaults) > 1:  # two plugins claim one representation: only who parses into it is affected
        raise PluginError(f"parsers {', '.join(sorted(p.name for p in defaults))} are each registered as the "
                          f"default for {representation!r}: choose one with {option('parser', 'NAME')}")
    if matching:
        raise PluginError(f"choose a parser for representation {representation!r} with {option('parser', 'NAME')} "
                          f"({names})")
    reps = ", ".join(sorted({p.representation for p in available.values()})) or "none installed"
    how = "" if asked else (f" (plain text goes to {representation!r}: choose another with "
                            f"{option('representation', 'NAME')})")
    raise PluginError(f"no parser for representation {representation!r}{how}; parsers are installed for: {reps}")


def text_representation(installed: Iterable[Parser]) -> str:
    """The representation plain text is parsed into when none is named: ``$SEMSIM_REPRESENTATION``,
    else :data:`TEXT_REPRESENTATION` if a parser of it is installed, else the only
    representation any installed parser parses into."""
    chosen = os.environ.get(REPRESENTATION_ENV, "").strip()
    if chosen:
        return chosen
    reps = {p.representation for p in installed}
    return TEXT_REPRESENTATION if TEXT_REPRESENTATION in reps or len(reps) != 1 else reps.pop()


#: the keys a corpus score's signature adds after the parser's fields (the bootstrap's, the
#: paired tests'), which a parser's own fields may not take either
LATER_KEYS = ("bootstrap", "conf", "seed", "paired", "trials")


def parser_fields(parser: Parser, model: str | None, tokenize: str = "none") -> Signature:
    """``parser:NAME|model:MODEL@HASH``: what a score computed from text depends on beyond the
    metric's settings (the hash is the model's content, shortened to 12 hex digits), then the
    fields the parser's ``model_name`` adds after the model's name (a pretrained encoder,
    the decoder), and ``tok:...`` when a tokenizer split the text first
    (:func:`semsim.app.tokenization.tokenizer_fields`).

    What the plugin says is data, never structure: a name given as a string is one name,
    whatever it holds (``|``, ``:``, a newline: the rendering escapes them), and fields it adds
    may not repeat a key semsim writes (a :class:`~semsim.kernel.errors.PluginError` naming it)."""
    from .tokenization import tokenizer_fields
    identity = parser_answer(parser, "model_identity", model, (str,)) if parser.model_identity else ""
    named = parser_answer(parser, "model_name", model, (str, Signature)) if parser.model_name \
        else (Path(model).name if model else "default")
    if not isinstance(named, Signature):
        named = Signature.of(str(named))
    name, extra = (named.name, named.tail()) if named.name is not None else ("default", named)
    model_field = name + (f"@{identity[:12]}" if identity else "")
    ours = Signature.of(None, {"parser": parser.name, "model": model_field})
    # the plugin's fields may not take our keys, those every measure ends with (scheme, plugin,
    # version), nor those added after them (tok, LATER_KEYS); a setting's, where they meet (signed_with)
    reserved = ("parser", "model", "tok", "scheme", "plugin", "version", *LATER_KEYS)
    signed_with(Signature.of(None, {k: "" for k in reserved}), extra, parser.name)
    return ours + extra + tokenizer_fields(tokenize)


def signed_with(measured: Signature, parsed_by: Signature, parser: str) -> Signature:
    """``measured`` then the fields of the parser named ``parser``: the one place a measure's
    signature and a parser's meet; a key of the parser's that is already there (a plugin's
    ``model_name`` naming a ``version`` or a setting) is refused, naming the plugin."""
    try:
        return measured.extended(parsed_by)
    except SignatureClash as exc:
        from .plugins import parsers, plugin_fault
        found = parsers().get(parser)
        raise plugin_fault(found.plugin if found else parser, f"its parser {parser!r}",
                           f"its model_name gives {exc}; name those fields otherwise") from None


# -- the engine ---------------------------------------------------------------------------------------
def parse_sentences(texts: Sequence[str], parser: Parser, settings: ParseSettings | None = None, *,
                    cache: ParseCache | None = None, failed: dict[str, str] | None = None,
                    on_stored: Callable[[dict[str, Graph]], None] | None = None) -> dict[str, Graph]:
    """Graphs for every distinct (normalised) non-empty text, parsing only cache misses: the
    engine under :func:`parse_texts`, for texts already tokenized and a parser already found.

    ``settings.executor`` (:func:`semsim.app.executors.executor_spec`) says where batches are
    parsed: ``local`` here, or in ``jobs`` worker processes; ``dask`` on a Dask cluster
    started on this machine with ``jobs`` workers; ``dask://HOST:PORT`` on a running one. On
    Dask, a batch whose worker dies, or which runs past ``batch_timeout`` seconds, is tried
    again on another worker as often as the scheduler allows, then sentence by sentence.
    Wherever it is parsed, this process stores every batch, so the result is the same.

    A batch the parser fails on is parsed again sentence by sentence, so that a failure is
    pinned to its sentence and costs no other. With ``failed`` given, each sentence that
    cannot be parsed is recorded there (normalised text → one-line reason) and the run goes
    on; without it, the first one raises :class:`~semsim.kernel.errors.ParseError` once the rest
    of its batch is stored (in one process, before the next batch is parsed; with workers,
    once every batch has come back, failed batches retried in batch order, longest
    sentences first). ``on_stored`` is called with the cache's hits, then with each batch's
    graphs once they are stored (:func:`parse_texts`' ``on_parsed``).
    """
    settings = settings or ParseSettings()
    with trusting(settings.trust_model):
        return _parse_sentences(texts, parser, settings, cache, failed, on_stored)


def _parse_sentences(texts: Sequence[str], parser: Parser, settings: ParseSettings, cache: ParseCache | None,
                     failed: dict[str, str] | None,
                     on_stored: Callable[[dict[str, Graph]], None] | None) -> dict[str, Graph]:
    spec = executor_spec(settings.executor)
    threads.check(settings.jobs if not spec.distributed or spec.address is None else 1)
    # the cache key names the model's content and the code that turned its output into graphs
    model_id = model_key(parser, settings.model)
    unique = list(dict.fromkeys(normalise(t) for t in texts if t.strip()))
    graphs: dict[str, Graph] = {}
    if cache is not None:
        graphs.update({t: e.graph for t, e in cache.get_many(parser.representation, parser.name, model_id,
                                                            unique).items()})
    if on_stored is not None and graphs:
        on_stored(dict(graphs))
    # longest first: a batch holds sentences of about one length, so a parser pads little,
    # and with several workers the short batches fill the gaps at the end
    todo = sorted((t for t in unique if t not in graphs), key=lambda t: -len(t.split()))
    size = settings.batch_size
    batches = [todo[i:i + size] for i in range(0, len(todo), size)]
    from ..kernel.progress import bar
    run = _Run(parser, model_id, cache, graphs, failed,
               bar(total=len(todo), desc=f"parsing with {parser.name}", unit="sent",
                   quiet=not settings.progress or not todo), on_stored)
    with open_executor(spec, jobs=settings.jobs, timeout=settings.batch_timeout, parser_name=parser.name,
                       model=settings.model, key=model_id, batches=len(batches)) as pool:
        try:
            run.all(batches, pool)
        finally:
            run.bar.close()
    return graphs


@dataclass
class _Run:
    """One :func:`parse_sentences` call's state: where parses go (the cache, the graphs, the
    failures) and how many sentences this run has parsed."""

    parser: Parser
    model_id: str
    cache: ParseCache | None
    graphs: dict[str, Graph]
    failed: dict[str, str] | None
    bar: Any
    on_stored: Callable[[dict[str, Graph]], None] | None = None
    stored: int = 0  # none, and a whole batch failing is the parser's fault, not the sentences'

    def all(self, batches: list[list[str]], pool: Executor) -> None:
        """Every batch through ``pool``: keep each that finishes, hand out no more after an
        error about the run; failed batches again one by one, in batch order."""
        retry: dict[int, ParseError] = {}
        failure: SemsimError | None = None
        again = self._rerun(pool)
        for k, outcome in pool.imap(batches):
            try:
                self.store(batches[k], _guarded(self.parser.name, batches[k], outcome))
            except ParseError as exc:
                if pool.in_order:  # nothing else is running: retry now, before the next batch
                    self.one_by_one(batches[k], exc, again)
                else:
                    retry[k] = exc
            except SemsimError as exc:
                failure = failure or exc
                pool.cancel()
        if failure is not None:
            raise failure
        for k in sorted(retry):  # in batch order, whatever the workers' timing
            self.one_by_one(batches[k], retry[k], again)

    def _rerun(self, pool: Executor) -> Callable[[list[str]], Parsed]:
        return lambda batch: _guarded(self.parser.name, batch, pool.run, batch)

    def store(self, batch: list[str], results: Parsed) -> None:
        parsed = [(text, native, g) for text, (native, g) in zip(batch, results)]
        if self.cache is not None:
            self.cache.put_many(self.parser.representation, self.parser.name, self.model_id, parsed)
        new = {text: g for text, _, g in parsed}
        self.graphs.update(new)
        self.stored += len(batch)
        self.bar.update(len(batch))
        if self.on_stored is not None:
            self.on_stored(new)

    def one_by_one(self, batch: list[str], error: ParseError, parse: Callable[[list[str]], Parsed]) -> None:
        """A failed batch again, in this process (or, on Dask, on the cluster: a sentence can
        kill its worker): the sentences the parser named alone (the others as one batch), or,
        if it named none, every sentence alone; keep what parses."""
        named = set(error.sentences) & set(batch)
        if named and len(named) < len(batch):
            others = [t for t in batch if t not in named]
            with contextlib.suppress(ParseError):
                self.store(others, parse(others))
                batch = [t for t in batch if t in named]
        errors = {}
        for text in batch:
            try:
                self.store([text], parse([text]))
            except ParseError as exc:
                self.bar.update(1)
                errors[text] = exc
        # nothing parsed in this run and several sentences failed: the parser, not the sentences
        if errors and (self.failed is None or (len(errors) > 1 and not self.stored)):
            raise next(iter(errors.values()))
        if self.failed is not None:
            self.failed.update({t: str(e) for t, e in errors.items()})


def _guarded(parser_name: str, batch: list[str], fn: Callable[..., Any], *args: Any) -> Any:
    """Run a parse; an exception from the parser becomes one clear error: a
    :class:`ParseError` (about these sentences) unless it is already a semsim error, or a
    worker process died (which re-parsing in this process could repeat)."""
    try:
        return fn(*args)
    except SemsimError:
        raise
    except BrokenProcessPool as exc:
        # which sentence of a batch killed it is not known here (its retries would run in this
        # process, which the same sentence could kill): naming the batch's first, its longest,
        # blamed another line's sentence
        # and a dying worker breaks the whole pool: every batch in flight sees it, so with several
        # workers the batch that sees it first may be another worker's
        what = (f"{batch[0]!r} (or on the sentence another worker had then: --jobs 1 names it)" if len(batch) == 1
                else f"one of a batch of {len(batch)} sentences, which one is not known (--batch-size 1 names it)")
        raise PluginError(f"a worker process of parser {parser_name!r} died on {what}: {exc}") from None
    except Exception as exc:
        what = f"the batch starting {batch[0]!r}" if len(batch) > 1 else repr(batch[0])
        raise ParseError(f"parser {parser_name!r} failed on {what}: {type(exc).__name__}: {exc}", batch) from None
