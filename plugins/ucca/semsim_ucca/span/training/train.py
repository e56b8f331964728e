"""Training the span parser: ``semsim ucca train``.

Data are directories of UCCA XML passages, split into sentences (:mod:`.data`: at the
sentences of a CoNLL-U directory where the corpus has an official split, as UCCA EWT has),
each with an optional ID file (the EWT's ``train.txt`` / ``dev.txt``). Sentences and their
spaCy and pretrained-encoder features are prepared once and kept in the work directory
(splitting a corpus with ``ucca`` takes minutes, re-reading the prepared files seconds): a
JSON Lines file (tokens, spans, feature strings, gold UD, gold passages as UCCA XML) and a
safetensors file of its arrays (spaCy vectors, encoder layers). No file of a run is a pickle,
so reading a work directory runs no code from it (older semsims' ``data-*.pkl`` are ignored).

Every epoch ends with the official labelled primary F1 on the dev sentences; the best epoch's
network is exported as the model file (float16 safetensors, :class:`.parser.SpanParser`).
The work directory also holds ``checkpoint.pt`` (network, optimiser, random states, history),
replaced atomically after each epoch, from which an interrupted run resumes (read with
``torch.load(weights_only=True)``: tensors and plain values only, no code), and
``history.jsonl``. Same data, settings and seed give the same model on the same machine.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import random
import sys
import time
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from semsim.kernel.errors import SemsimError
from semsim.kernel.files import atomic_write

from ..inference.encoder import load as encoder_load
from ..inference.features import SPACY_MODEL, Features, featurize, spacy_version
from ..inference.model import NULL, PAD, UNK, Config, Vocab, all_spans
from ..inference.parser import SpanParser
from ..inference.tree import CHAIN, Spans, spans_to_tree, tree_from_passage, tree_to_passage, tree_to_spans
from . import data, noise
from .evaluation import UccaScores, evaluate, frozen
from .network import SpanParserNet, batch_spans, tensorize

PREPARED = 6  # version of the prepared-data files (up to 4: pickles, never read now; 6: the arrays' SHA-256)


@dataclass
class Example:
    """A training sentence: tokens, gold spans, features, and the gold passage (in memory
    as :func:`.evaluation.frozen` bytes, which every evaluation copies; UCCA XML on disk)."""

    id: str
    tokens: list[str]
    spans: Spans
    features: Features
    gold: bytes = b""
    #: gold UD syntax per token, (UPOS, head token or -1 for the root, relation), or None
    ud: list[tuple[str, int, str] | None] | None = None
    ud_targets: tuple[np.ndarray, np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    targets: np.ndarray | None = field(default=None, repr=False)
    units: list[tuple[int, int]] = field(default_factory=list, repr=False)
    remote_targets: np.ndarray | None = field(default=None, repr=False)


@dataclass(frozen=True)
class Corpus:
    """Where a data split comes from: directories or files, and an optional ID file."""

    paths: tuple[str, ...]
    ids: str | None = None
    #: a directory of CoNLL-U files whose sentences split the passages (None: split2sentences)
    conllu: str | None = None

    def describe(self) -> str:
        return (" ".join(self.paths) + (f" (IDs in {self.ids})" if self.ids else "")
                + (f" (sentences of {self.conllu})" if self.conllu else ""))


def _encoder_source(encoder: Any = None) -> str:
    """The encoder as the prepared data's keys name it: its layers depend on what ran it
    (ONNX Runtime or transformers: the same to rounding)."""
    return f"{encoder.spec.short}|{encoder.runtime}" if encoder else ""


def _fingerprint(corpus: Corpus, encoder: Any = None) -> str:
    source = _encoder_source(encoder)
    h = hashlib.sha256(f"{PREPARED}|{spacy_version()}|{source}".encode())
    for f in data.xml_files(corpus.paths):
        st = f.stat()
        h.update(f"{f.resolve()}|{st.st_size}|{st.st_mtime_ns}\n".encode())
    if corpus.ids:
        h.update(Path(corpus.ids).read_bytes())
    if corpus.conllu:
        h.update(str(Path(corpus.conllu).resolve()).encode())
        for f in sorted(Path(corpus.conllu).glob("*.conllu")):
            h.update(f"{f.name}|{f.stat().st_size}|{f.stat().st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


def prepare(corpus: Corpus, work_dir: Path | None, progress: bool = True, keep_gold: bool = False,
            encoder: Any = None, reuse: bool = True) -> list[Example]:
    """The corpus's sentences as examples (with every spaCy feature and, given an
    ``encoder``, its layers), from the work directory when prepared before (unless not
    ``reuse``: ``--restart`` prepares them again, the way out of damaged prepared data)."""
    base = work_dir / f"prepared-{_fingerprint(corpus, encoder)}{'-gold' if keep_gold else ''}" if work_dir else None
    if base is not None and reuse:
        examples = _read_prepared(base)
        if examples is not None:
            return examples
        old = sorted(base.parent.glob("data-*.pkl"))
        if old and progress:
            print(f"semsim: ignoring {len(old)} prepared-data pickle(s) of an older semsim in {base.parent} "
                  "(never unpickled: delete them)", file=sys.stderr, flush=True)
    if progress:
        print(f"semsim: reading and splitting {corpus.describe()} ...", file=sys.stderr, flush=True)
    sentences = data.sentences(corpus.paths, data.read_ids(corpus.ids), corpus.conllu)
    trees = [tree_from_passage(p) for p in sentences]
    feats = featurize([t.tokens for t in trees], encoder=encoder)
    examples = [Example(str(p.ID), t.tokens, tree_to_spans(t), f, frozen(p) if keep_gold else b"",
                        p.extra.get("ud") if len(p.extra.get("ud") or ()) == len(t.tokens) else None)
                for p, t, f in zip(sentences, trees, feats)]
    if base is not None:
        _write_prepared(base, examples, [_passage_xml(p) for p in sentences] if keep_gold else None)
    return examples


def _passage_xml(passage: Any) -> str:
    """A passage as UCCA XML text (``ucca``'s standard format), for the prepared file."""
    from xml.etree.ElementTree import tostring

    from ucca.convert import to_standard
    return tostring(to_standard(passage), encoding="unicode")


def _xml_passage(text: str) -> Any:
    from xml.etree.ElementTree import fromstring

    from ucca.convert import from_standard
    return from_standard(fromstring(text))


def _write_prepared(base: Path, examples: Sequence[Example], golds: Sequence[str] | None) -> None:
    """``base.safetensors`` (every sentence's arrays, concatenated along tokens) and then
    ``base.jsonl`` (a header naming the arrays' size, then one sentence a line). The JSON is
    written last, so a reader that finds it finds complete arrays; an interrupted write
    leaves none, and the data are prepared again."""
    from safetensors.numpy import save
    arrays: dict[str, np.ndarray] = {}
    if examples:
        arrays["vectors"] = np.concatenate([ex.features.vectors for ex in examples])
        if all(ex.features.layers is not None for ex in examples):
            arrays["layers"] = np.concatenate([ex.features.layers for ex in examples])
    blob = save(arrays)
    base.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(base.with_name(base.name + ".safetensors"), binary=True) as f:
        f.write(blob)
    header = {"format": "semsim-ucca-prepared", "version": PREPARED, "sentences": len(examples),
              "tokens": sum(len(ex.tokens) for ex in examples), "arrays_bytes": len(blob),
              "arrays_sha256": hashlib.sha256(blob).hexdigest()}
    with atomic_write(base.with_name(base.name + ".jsonl")) as f:
        f.write(json.dumps(header) + "\n")
        for k, ex in enumerate(examples):
            f.write(json.dumps({
                "id": ex.id, "tokens": ex.tokens, "n": ex.spans.n,
                "labels": [[i, j, label] for (i, j), label in ex.spans.labels.items()],
                "remotes": [[list(parent), list(child), label] for parent, child, label in ex.spans.remotes],
                "strings": ex.features.strings, "ud": ex.ud, "gold": golds[k] if golds else None}) + "\n")


def _read_prepared(base: Path) -> list[Example] | None:
    """The examples :func:`_write_prepared` kept at ``base`` (None when not there, of an
    older version or not complete: then they are prepared again). Gold passages are rebuilt
    from their XML. Damaged files (a junk header or row, spans outside their sentence,
    arrays whose bytes are not those written, gold XML that does not read) are one line
    naming the file, with ``--restart`` as the way out: never a traceback, never training
    on them."""
    text, blob = base.with_name(base.name + ".jsonl"), base.with_name(base.name + ".safetensors")
    if not text.is_file():
        return None
    try:
        with open(text, encoding="utf-8") as f:
            header = json.loads(f.readline() or "{}")
            if not isinstance(header, dict):
                raise ValueError("its header is not a JSON object")
            if (header.get("version") != PREPARED or not blob.is_file()
                    or blob.stat().st_size != header.get("arrays_bytes")):
                return None
            rows = [json.loads(line) for line in f]
        return _prepared_examples(header, rows, blob)
    except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError) as exc:
        reason = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        raise SemsimError(f"{text}: damaged prepared data ({reason}): delete it, or pass --restart to prepare the "
                          "data again") from None
    except Exception as exc:  # safetensors' and ucca's own errors
        raise SemsimError(f"{text}: damaged prepared data ({type(exc).__name__}): delete it, or pass --restart to "
                          "prepare the data again") from None


def _prepared_examples(header: dict[str, Any], rows: list[Any], blob: Path) -> list[Example] | None:
    """The examples of a prepared file's rows and arrays, every field checked (ValueError)."""
    from safetensors.numpy import load as load_arrays
    data = blob.read_bytes()
    if hashlib.sha256(data).hexdigest() != header.get("arrays_sha256"):
        raise ValueError(f"{blob.name}: its bytes are not those written (SHA-256 differs)")
    arrays = load_arrays(data)
    vectors, layers = arrays.get("vectors"), arrays.get("layers")
    if vectors is None:  # written with every prepared file
        raise ValueError(f"{blob.name}: no token vectors")
    if len(rows) != header["sentences"] or any(a is not None and a.shape[0] != header["tokens"]
                                               for a in (vectors, layers)):
        return None
    for a in (vectors, layers):
        if a is not None and (a.dtype.kind != "f" or not np.isfinite(a).all()):
            raise ValueError(f"{blob.name}: arrays that are not finite floating-point numbers")
    examples, start = [], 0
    for k, r in enumerate(rows, 2):
        tokens, n = r["tokens"], r["n"]
        if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens) or n != len(tokens):
            raise ValueError(f"line {k}: tokens that are not {n!r} strings")
        spans = [(i, j) for i, j, _ in r["labels"]] + [s for parent, child, _ in r["remotes"] for s in (parent, child)]
        if not all(type(i) is int and type(j) is int and 0 <= i < j <= n for i, j in spans):
            raise ValueError(f"line {k}: a span outside its sentence of {n} tokens")
        if not isinstance(r["strings"], dict) or any(not isinstance(v, list) or len(v) != n
                                                     for v in r["strings"].values()):
            raise ValueError(f"line {k}: features that are not one string a token")
        end = start + n
        spans_ = Spans(n, {(i, j): label for i, j, label in r["labels"]},
                       tuple(((a, b), (c, d), label) for (a, b), (c, d), label in r["remotes"]))
        feats = Features(vectors[start:end], r["strings"], None if layers is None else layers[start:end])
        examples.append(Example(r["id"], tokens, spans_, feats,
                                frozen(_xml_passage(r["gold"])) if r["gold"] is not None else b"",
                                None if r["ud"] is None else [None if x is None else tuple(x) for x in r["ud"]]))
        start = end
    return examples


# -- vocabularies and targets --------------------------------------------------------------------
def build_vocabs(examples: Sequence[Example], fields: Sequence[str], min_label_count: int = 2,
                 chars: bool = False) -> tuple[dict[str, Vocab], Vocab, Vocab]:
    """Feature vocabularies (and characters, for the character encoder), span labels (chains
    seen fewer than ``min_label_count`` times become their outermost label) and remote
    labels, from the training examples."""
    vocabs = {}
    for f in fields:
        counter = Counter(s for ex in examples for s in ex.features.strings[f])
        vocabs[f] = Vocab.build(counter, min_count=1 if f == "word" else 2)
    if chars:
        vocabs["chars"] = Vocab.build(Counter(ch for ex in examples for w in ex.features.strings["form"] for ch in w),
                                      min_count=2)
    chains = Counter(lab for ex in examples for lab in ex.spans.labels.values())
    labels = Counter(_reduce(lab, chains, min_label_count) for ex in examples for lab in ex.spans.labels.values())
    remotes = Counter(lab for ex in examples for _, _, lab in ex.spans.remotes)
    return vocabs, Vocab.build(labels, specials=(NULL,)), Vocab.build(remotes, specials=(NULL,))


def _reduce(label: str, counts: Counter[str], min_count: int) -> str:
    return label if counts[label] >= min_count else label.split(CHAIN, 1)[0]


def ud_vocabs(examples: Sequence[Example]) -> tuple[Vocab, Vocab] | None:
    """UPOS and relation vocabularies of the examples' gold UD (None: no example has any)."""
    rows = [x for ex in examples for x in ex.ud or () if x is not None]
    if not rows:
        return None
    return (Vocab.build(Counter(x[0] for x in rows), specials=(NULL,)),
            Vocab.build(Counter(x[2] for x in rows), specials=(NULL,)))


def attach_ud_targets(examples: Sequence[Example], vocabs: tuple[Vocab, Vocab]) -> None:
    """Each example's UPOS, head (n: the root) and relation per token; -100 where unknown."""
    for ex in examples:
        n = len(ex.tokens)
        tags, heads, rels = (np.full(n, -100, dtype=np.int64) for _ in range(3))
        for k, x in enumerate(ex.ud or ()):
            if x is not None and -1 <= x[1] < n:
                tags[k], heads[k], rels[k] = vocabs[0].index(x[0], 0), n if x[1] < 0 else x[1], vocabs[1].index(x[2], 0)
        ex.ud_targets = (tags, heads, rels)


def attach_targets(examples: Sequence[Example], labels: Vocab, remote_labels: Vocab) -> None:
    """Each example's label index per span (0: no unit) and its units' remote-label matrix
    (-100 where the parser never predicts: a child containing its parent)."""
    chains = Counter(labels.itos)
    for ex in examples:
        starts, ends = all_spans(ex.spans.n)
        index = {s: k for k, s in enumerate(zip(starts.tolist(), ends.tolist()))}
        targets = np.zeros(len(starts), dtype=np.int64)
        for s, lab in ex.spans.labels.items():
            lab = lab if lab in labels.stoi else _reduce(lab, chains, 1)
            targets[index[s]] = labels.index(lab, 0)
        ex.targets = targets
        ex.units = sorted(ex.spans.labels)
        pos = {s: k for k, s in enumerate(ex.units)}
        rt = np.zeros((len(ex.units), len(ex.units)), dtype=np.int64)
        for p, (ps, pe) in enumerate(ex.units):
            for c, (cs, ce) in enumerate(ex.units):
                if cs <= ps and pe <= ce:
                    rt[p, c] = -100
        for head, child, lab in ex.spans.remotes:
            if head in pos and child in pos and rt[pos[head], pos[child]] != -100:
                rt[pos[head], pos[child]] = remote_labels.index(lab, 0)
        ex.remote_targets = rt


# -- training ------------------------------------------------------------------------------------
@dataclass
class Settings:
    """Everything that determines a training run (a resumed run must have the same)."""

    train: Corpus
    dev: Corpus
    epochs: int = 30
    batch_size: int = 16
    lr: float = 1e-3
    seed: int = 1
    patience: int = 8
    config: Config = field(default_factory=Config)
    #: (learner sentences, corrections) file pairs, line by line, for the consistency objective
    pairs: tuple[tuple[str, str], ...] = ()

    def key(self) -> dict[str, Any]:
        key = {"train": self.train.__dict__, "dev": self.dev.__dict__, "batch_size": self.batch_size,
               "lr": self.lr, "seed": self.seed, "config": self.config.to_dict()}
        return {**key, "pairs": [list(p) for p in self.pairs]} if self.pairs else key


def evaluate_examples(parser: SpanParser, examples: Sequence[Example]) -> UccaScores:
    """Official scores of the parser on examples prepared with ``keep_gold``."""
    predicted = parser.predict([ex.features for ex in examples])
    guessed = (tree_to_passage(spans_to_tree(ex.tokens, labels, remotes), ex.id)
               for ex, (labels, remotes) in zip(examples, predicted))
    return evaluate(zip(guessed, (ex.gold for ex in examples)))


def tune_remote_bias(parser: SpanParser, examples: Sequence[Example],
                     grid: Sequence[float] = (0, 0.5, 1, 1.5, 2, 2.5, 3, 4, 5), log: Any = None) -> float:
    """The :attr:`.parser.SpanParser.remote_bias` of the best official labelled remote F1 on
    the dev examples (ties: the smallest); sets it on the parser and returns it."""
    best, best_f1 = 0.0, -1.0
    for bias in grid:
        parser.remote_bias = float(bias)
        f1 = evaluate_examples(parser, examples).labeled_remote
        if log:
            log(f"remote bias {bias}: dev labelled remote F1 {f1:.4f}")
        if f1 > best_f1:
            best, best_f1 = float(bias), f1
    parser.remote_bias = best
    parser.info["remote_bias"] = best
    return best


# A checkpoint holds only tensors, dicts, lists, tuples, strings, numbers, booleans and None
# (the optimiser's and scheduler's state dicts and numpy's bit-generator state are such), so
# torch.load(weights_only=True) reads it without running code from the file. One file, replaced
# atomically, as safetensors with a JSON sidecar for the rest would not be.
def _save_atomic(obj: dict[str, Any], path: Path) -> None:
    import torch
    with atomic_write(path, binary=True) as f:
        torch.save(obj, f)


def _load_checkpoint(path: Path, device: Any) -> dict[str, Any]:
    """A checkpoint written by :func:`_save_atomic`, read with ``weights_only=True``; one
    that needs more (an older semsim's, or not a checkpoint) is a one-line error."""
    import torch
    try:
        with warnings.catch_warnings():  # torch's notes on a foreign pickle's protocol: the error below says it
            warnings.simplefilter("ignore", UserWarning)
            saved = torch.load(path, map_location=device, weights_only=True)
    except pickle.UnpicklingError:  # raised for anything but tensors and plain values, before it runs
        raise SemsimError(f"{path}: not a checkpoint that loads without running code from it (an older semsim's, "
                          "or another file): delete it or pass --restart to start afresh") from None
    except Exception as exc:  # a truncated or foreign file: torch raises what its zip or pickle reader raises
        reason = str(exc).strip().split("\n")[0].split(". ")[0] or type(exc).__name__
        raise SemsimError(f"{path}: not a readable checkpoint ({reason}): delete it or pass --restart") from None
    if not isinstance(saved, dict) or not {"net", "optimizer", "scheduler", "rng", "torch_rng", "state",
                                           "settings"} <= saved.keys():
        raise SemsimError(f"{path}: not a checkpoint of `semsim ucca train`: delete it or pass --restart")
    return saved


def _restore(path: Path, saved: dict[str, Any], net: Any, optimizer: Any, scheduler: Any, rng: Any) -> dict[str, Any]:
    """Load a checkpoint's network, optimiser, scheduler and random states, and return its
    training state; anything that does not fit (a tensor of another shape, a missing key,
    NaN weights, junk in a state) is one line naming the file, with --restart the way out."""
    import torch
    try:
        weights = saved["net"]
        if not all(torch.is_tensor(t) and (not t.is_floating_point() or bool(torch.isfinite(t).all()))
                   for t in weights.values()):
            raise ValueError("weights that are not finite numbers")
        state = saved["state"]
        if not (isinstance(state, dict) and type(state.get("epoch")) is int and type(state.get("best_epoch")) is int
                and isinstance(state.get("best"), float) and isinstance(state.get("history"), list)):
            raise ValueError("a training state of the wrong shape")
        net.load_state_dict(weights)
        optimizer.load_state_dict(saved["optimizer"])
        scheduler.load_state_dict(saved["scheduler"])
        rng.bit_generator.state = saved["rng"]
        torch.set_rng_state(saved["torch_rng"].cpu())  # a CPU generator's state, whatever map_location
    except Exception as exc:  # torch, numpy and the checks above each raise their own
        reason = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else type(exc).__name__
        raise SemsimError(f"{path}: a damaged checkpoint ({type(exc).__name__}: {reason}): delete it or pass "
                          "--restart to start afresh") from None
    return state


def train(settings: Settings, model: str | os.PathLike[str], work_dir: str | os.PathLike[str] | None = None,
          resume: bool = True, device: str | None = None, time_limit: float | None = None,
          progress: bool = True, log: Any = None) -> dict[str, Any]:
    """Train, keeping the best-on-dev network in ``model``; returns the run's summary.

    ``work_dir`` (default ``<model>.work``) keeps prepared data and the checkpoint;
    ``time_limit`` (seconds) stops before an epoch that would overrun it.
    """
    import torch
    from tqdm import tqdm

    log = log or (lambda msg: tqdm.write(msg, file=sys.stderr))
    model = Path(model)
    work = Path(work_dir) if work_dir else model.with_name(model.name + ".work")
    work.mkdir(parents=True, exist_ok=True)
    dev_name = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    started = time.monotonic()

    random.seed(settings.seed)
    np.random.seed(settings.seed)
    torch.manual_seed(settings.seed)
    config = settings.config
    if config.consistency and not settings.pairs:
        raise SemsimError("--set consistency needs (learner sentence, correction) pairs: train with --pairs SRC REF")
    if settings.pairs and not config.consistency:  # never ignored in silence
        raise SemsimError("--pairs are used by the consistency objective: give its weight, --set consistency=W")
    pair_texts = read_pairs(settings.pairs) if config.consistency else ([], "")
    # the checkpoint keeps what the pairs files held, not only their names: files edited in
    # place are another run's data, never resumed in silence
    run_key = {**settings.key(), **({"pairs_sha256": pair_texts[1]} if pair_texts[1] else {})}
    pretrained = encoder_load(config.encoder, device=str(dev_name)) if config.encoder else None
    if config.encoder_layers and (config.encoder_tune or not pretrained or config.encoder_layers >= pretrained.depth):
        raise SemsimError(f"--set encoder_layers={config.encoder_layers} needs a frozen encoder (no encoder_tune) "
                          "with more layers than that")
    train_ex = _inputs(prepare(settings.train, work, progress, encoder=pretrained, reuse=resume), config)
    dev_ex = _inputs(prepare(settings.dev, work, progress, keep_gold=True, encoder=pretrained, reuse=resume), config)
    vocabs, labels, remote_labels = build_vocabs(train_ex, config.fields(), chars=config.char_dim > 0)
    attach_targets(train_ex, labels, remote_labels)
    vector_dim = train_ex[0].features.vectors.shape[1]
    # the frozen layers the parser reads: the first K (with the embeddings), or all but the fine-tuned ones
    encoder_shape = (0, 0)
    if pretrained:
        frozen = config.encoder_layers + 1 if config.encoder_layers else pretrained.layers - config.encoder_tune
        encoder_shape = (frozen, pretrained.dim)
    tuned = pretrained.top_layers(config.encoder_tune) if config.encoder_tune and pretrained else None
    syntax = ud_vocabs(train_ex) if config.ud_weight else None
    noisy_ex = noisy_examples(train_ex, work, settings.seed, pretrained, config, progress) if config.noise else []
    if noisy_ex:
        attach_targets(noisy_ex, labels, remote_labels)
    pairs = consistency_pairs(*pair_texts, work, pretrained, config, progress) if config.consistency else []
    if config.ud_weight and syntax is None:
        raise SemsimError("--set ud_weight needs gold UD for the training sentences: train with --sentences CONLLU_DIR")
    if syntax:
        attach_ud_targets(train_ex, syntax)
    net = SpanParserNet(config, {f: len(v) for f, v in vocabs.items()}, vector_dim, len(labels), len(remote_labels),
                        encoder_shape, tuned, (len(syntax[0]), len(syntax[1])) if syntax else None).to(dev_name)
    own = [p for n, p in net.named_parameters() if not n.startswith("tuned.")]
    groups: list[dict[str, Any]] = [{"params": own}]
    if net.tuned is not None:
        net.tuned.requires_grad_(True)
        groups.append({"params": list(net.tuned.parameters()), "lr": settings.lr * config.encoder_lr})
    optimizer = torch.optim.Adam(groups, lr=settings.lr, betas=(0.9, 0.9))
    # halve the learning rate after two epochs without a better dev score
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="max", factor=0.5, patience=2)
    rng = np.random.default_rng(settings.seed)
    info = {"name": model.stem, "spacy_model": SPACY_MODEL, "spacy": spacy_version(),
            "train": settings.train.describe(), "dev": settings.dev.describe(),
            "train_sentences": len(train_ex), "dev_sentences": len(dev_ex), "seed": settings.seed,
            "torch": torch.__version__}
    if pretrained:
        info.update(encoder_sha256=pretrained.spec.sha256)
    if noisy_ex:
        info.update(learner_errors_sha256=noise.rates()[1])
    if pairs:
        info.update(pairs=" ".join(f"{a}|{b}" for a, b in settings.pairs), pairs_used=len(pairs))
    state: dict[str, Any] = {"epoch": 0, "best": -1.0, "best_epoch": 0, "history": []}
    checkpoint = work / "checkpoint.pt"
    if resume and checkpoint.is_file():
        saved = _load_checkpoint(checkpoint, dev_name)
        if saved["settings"] != run_key:
            edited = {**saved["settings"], "pairs_sha256": None} == {**run_key, "pairs_sha256": None}
            raise SemsimError(f"{checkpoint}: a run with other " + ("--pairs contents (the files were edited since)"
                                                                     if edited else "data or settings")
                              + "; use another work directory or --restart")
        state = _restore(checkpoint, saved, net, optimizer, scheduler, rng)
        log(f"resuming after epoch {state['epoch']} (best dev labelled primary F1 "
            f"{state['best']:.4f} at epoch {state['best_epoch']})")
    parser = SpanParser(net, vocabs, labels, remote_labels, info)
    history_file = work / "history.jsonl"
    since_best = state["epoch"] - state["best_epoch"]
    while state["epoch"] < settings.epochs and since_best < settings.patience:
        epoch = state["epoch"] + 1
        if time_limit is not None and state["history"]:
            per_epoch = state["history"][-1]["seconds"]
            if time.monotonic() - started + per_epoch > time_limit:
                log(f"stopping before epoch {epoch}: the time limit would be exceeded")
                break
        t0 = time.monotonic()
        net.train()
        order = rng.permutation(len(train_ex))
        batches = [order[k:k + settings.batch_size] for k in range(0, len(order), settings.batch_size)]
        total = 0.0
        with tqdm(batches, desc=f"epoch {epoch}/{settings.epochs}", unit="batch", file=sys.stderr,
                  disable=not progress or None, leave=False) as bar:
            for idx in bar:
                # with --set noise=P, each sentence is its noisy copy with probability P (no draw without)
                batch = [noisy_ex[k] if noisy_ex and rng.random() < config.noise else train_ex[k] for k in idx]
                loss = _loss(net, batch, vocabs, dev_name, rng)
                if pairs:  # half a batch of pairs beside each batch, drawn with the run's generator
                    drawn = rng.integers(len(pairs), size=max(1, settings.batch_size // 2))
                    loss = loss + config.consistency * _consistency_loss(net, [pairs[k] for k in drawn], vocabs,
                                                                         dev_name, rng)
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(net.parameters(), 5.0)
                optimizer.step()
                total += float(loss.detach())
                bar.set_postfix(loss=f"{total / (bar.n + 1):.3f}")
        train_seconds = time.monotonic() - t0
        scores = evaluate_examples(parser, dev_ex)
        record = {"epoch": epoch, "loss": total / max(1, len(batches)), "seconds": round(train_seconds, 1),
                  **{f"dev_{k}": v for k, v in scores.as_dict().items()}}
        scheduler.step(scores.labeled_primary)
        improved = scores.labeled_primary > state["best"]
        if improved:
            state.update(best=scores.labeled_primary, best_epoch=epoch)
            state.pop("remote_bias", None)  # tuned again for the new best
            parser.info.update(epoch=epoch, dev=scores.as_dict())
            parser.save(model)
        state["epoch"] = epoch
        state["history"].append(record)
        since_best = epoch - state["best_epoch"]
        _save_atomic({"net": net.state_dict(), "optimizer": optimizer.state_dict(),
                      "scheduler": scheduler.state_dict(), "rng": rng.bit_generator.state,
                      "torch_rng": torch.get_rng_state(), "state": state, "settings": run_key}, checkpoint)
        # the checkpoint's history is the record; this file is its readable copy
        with atomic_write(history_file) as f:
            f.writelines(json.dumps(r) + "\n" for r in state["history"])
        log(f"epoch {epoch}: loss {record['loss']:.3f}, {train_seconds:.0f}s; dev labelled primary F1 "
            f"{scores.labeled_primary:.4f}, remote {scores.labeled_remote:.4f}" + (" (best)" if improved else ""))
    if state["best_epoch"] and "remote_bias" not in state:
        best = SpanParser.load(model)
        state["remote_bias"] = tune_remote_bias(best, dev_ex, log=log)
        best.info["dev"] = evaluate_examples(best, dev_ex).as_dict()  # as shipped: float16, tuned bias
        best.save(model)
        log(f"remote bias {state['remote_bias']} chosen on dev; the model file scores dev labelled primary F1 "
            f"{best.info['dev']['labeled_primary']:.4f}, remote {best.info['dev']['labeled_remote']:.4f}")
        _save_atomic({**_load_checkpoint(checkpoint, "cpu"), "state": state}, checkpoint)
    return {"model": str(model), "epochs": state["epoch"], "best_epoch": state["best_epoch"],
            "best_dev_labeled_primary": state["best"], "history": state["history"],
            "seconds": round(time.monotonic() - started, 1)}


def _prepared_once(work: Path | None, name: str, make: Any) -> list[Example]:
    """Examples kept in the work directory as ``prepared-NAME`` (no gold passages), made by
    ``make()`` and written there when not found; without a work directory, made each time."""
    base = work / f"prepared-{name}" if work else None
    found = _read_prepared(base) if base is not None else None
    if found is None:
        found = make()
        if base is not None:
            _write_prepared(base, found, None)
    return found


def noisy_examples(examples: Sequence[Example], work: Path | None, seed: int, encoder: Any, config: Config,
                   progress: bool = True) -> list[Example]:
    """A copy of each training example with learner errors injected (:mod:`.noise`, at the
    rates of ``learner_errors.json`` calibrated on these sentences, drawn from ``seed``), its
    gold spans carried over and its features computed on the noisy words; kept in the work
    directory beside the clean ones, under a key naming the clean data, the rates and the seed."""
    clean = hashlib.sha256("\n".join(f"{ex.id}\t{' '.join(ex.tokens)}" for ex in examples).encode()).hexdigest()
    key = hashlib.sha256(f"{PREPARED}|{clean}|{noise.rates()[1]}|{seed}|{spacy_version()}|"
                         f"{_encoder_source(encoder)}".encode()).hexdigest()[:16]

    def make() -> list[Example]:
        if progress:
            print(f"semsim: injecting learner errors into {len(examples)} training sentences ...", file=sys.stderr,
                  flush=True)
        trees = [spans_to_tree(ex.tokens, ex.spans.labels, ex.spans.remotes) for ex in examples]
        tags = [ex.features.strings["tag"] for ex in examples]
        probabilities = noise.calibrate(trees, tags)
        rng = np.random.default_rng(seed)
        noisy = [noise.inject(tree, tag, rng, probabilities) for tree, tag in zip(trees, tags)]
        feats = featurize([tree.tokens for tree in noisy], encoder=encoder)
        return [Example(f"{ex.id}~noisy", tree.tokens, tree_to_spans(tree), f)
                for ex, tree, f in zip(examples, noisy, feats)]

    return _inputs(_prepared_once(work, f"noisy-{key}", make), config)


@dataclass
class Pair:
    """A learner's sentence and its correction, and the spans that correspond: each span of
    the correction whose first and last tokens are matched, exactly (case aside), to tokens of
    the learner's sentence, with the learner's span between those two (start and end, one
    pair of spans a row)."""

    source: Example
    correction: Example
    source_spans: np.ndarray
    correction_spans: np.ndarray


def corresponding_spans(source: Sequence[str], correction: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """The corresponding spans of two sentences, (start, end) rows in each (see :class:`Pair`). Tokens are matched
    by difflib's longest matching blocks (:func:`.data.word_positions`, which aligns UD's words
    to UCCA's terminals the same way), so the matching keeps the order of both sentences and
    every span's image is a span; a span starting or ending at a word one side added or dropped
    has no image (its unit may rightly differ)."""
    # each learner's word and the correction's word it is (the same matching as difflib's from this side)
    matched = [(at, k) for k, at in enumerate(data.word_positions([t.lower() for t in correction],
                                                                  [t.lower() for t in source])) if at is not None]
    src, ref = [], []
    for x, (a, a_at) in enumerate(matched):
        for b, b_at in matched[x:]:
            src.append((a_at, b_at + 1))
            ref.append((a, b + 1))
    return np.array(src, dtype=np.int64).reshape(-1, 2), np.array(ref, dtype=np.int64).reshape(-1, 2)


def read_pairs(files: Sequence[tuple[str, str]], longest: int = 80) -> tuple[list[tuple[list[str], list[str]]], str]:
    """The (learner sentence, correction) pairs of line-aligned, whitespace-tokenised files, and
    a digest of the files' text. Pairs the correction left as they were (case aside) are left
    out: they would only teach the network to agree with itself; so are sentences over
    ``longest`` tokens. Read before anything is prepared, so that a bad file costs no time."""
    from semsim.kernel.files import read_text
    texts: list[tuple[list[str], list[str]]] = []
    h = hashlib.sha256()
    for a, b in files:
        left, right = read_text(a).splitlines(), read_text(b).splitlines()
        if len(left) != len(right):
            raise SemsimError(f"{b}: {len(right)} lines, where {a} has {len(left)}: --pairs needs line-aligned files")
        if not left:  # an objective on nothing would train as if it had not been asked for
            raise SemsimError(f"--pairs {a} {b}: empty files; the consistency objective needs sentence pairs")
        for x, y in zip(left, right):
            h.update(f"{x}\t{y}\n".encode())
            src, ref = x.split(), y.split()
            if src and ref and len(src) <= longest and len(ref) <= longest and \
                    [t.lower() for t in src] != [t.lower() for t in ref]:
                texts.append((src, ref))
    if not texts:
        raise SemsimError(f"--pairs {' '.join(f'{a} {b}' for a, b in files)}: no pair the correction changed (of at "
                          f"most {longest} tokens); the consistency objective learns from changed pairs only")
    return texts, h.hexdigest()


def consistency_pairs(texts: Sequence[tuple[list[str], list[str]]], digest: str, work: Path | None, encoder: Any,
                      config: Config, progress: bool = True) -> list[Pair]:
    """:func:`read_pairs`' pairs with their features (prepared once and kept in the work
    directory) and their corresponding spans; a pair without any is left out."""
    key = hashlib.sha256(f"{PREPARED}|{spacy_version()}|{_encoder_source(encoder)}|{digest}".encode()).hexdigest()

    def make() -> list[Example]:
        if progress:
            print(f"semsim: preparing {len(texts)} (learner sentence, correction) pairs ...", file=sys.stderr,
                  flush=True)
        tokens = [t for pair in texts for t in pair]
        feats = featurize(tokens, encoder=encoder)
        return [Example(f"pair-{k // 2}{'ab'[k % 2]}", t, Spans(len(t), {}), f)
                for k, (t, f) in enumerate(zip(tokens, feats))]

    found = _inputs(_prepared_once(work, f"pairs-{key[:16]}", make), config)
    out = []
    for source, correction in zip(found[::2], found[1::2]):
        spans = corresponding_spans(source.tokens, correction.tokens)
        if len(spans[0]):
            out.append(Pair(source, correction, *spans))
    return out


def _consistency_loss(net: Any, pairs: Sequence[Pair], vocabs: dict[str, Vocab], device: Any,
                      rng: np.random.Generator) -> Any:
    """KL(correction ‖ learner's sentence) of the label distributions of corresponding spans,
    summed over the spans and averaged over the pairs. The correction's distribution is the
    target: the network without dropout and without gradient, on a fluent sentence of the kind
    it was trained on; the learner's sentence is pulled towards it, so that a sentence and its
    correction get the same units where they have the same words at the units' edges."""
    import torch
    import torch.nn.functional as F

    def label_log_probs(examples: Sequence[Example], spans: Sequence[np.ndarray], dropout: bool) -> Any:
        inputs = tensorize([ex.features for ex in examples], vocabs, device, rng if dropout else None,
                           net.config.word_dropout if dropout else 0.0)
        fw, bw = net.encode(inputs)
        sentence = np.concatenate([np.full(len(s), k) for k, s in enumerate(spans)])
        i, j = np.concatenate(spans).T
        b, i, j = (torch.from_numpy(np.ascontiguousarray(a)).to(device) for a in (sentence, i, j))
        return F.log_softmax(net.label_mlp(net.span_reps(fw, bw, b, i, j)), dim=-1)

    was_training = net.training
    net.eval()
    with torch.no_grad():
        target = label_log_probs([p.correction for p in pairs], [p.correction_spans for p in pairs], False)
    net.train(was_training)
    predicted = label_log_probs([p.source for p in pairs], [p.source_spans for p in pairs], True)
    return F.kl_div(predicted, target, log_target=True, reduction="sum") / len(pairs)


def _inputs(examples: list[Example], config: Config) -> list[Example]:
    """Examples with only the inputs ``config`` uses (prepared data hold every feature)."""
    for ex in examples:
        if not config.spacy_vectors:
            ex.features.vectors = ex.features.vectors[:, :0]
        if not config.encoder:
            ex.features.layers = None
        elif config.encoder_layers and ex.features.layers is not None:  # the embeddings and the first K
            ex.features.layers = ex.features.layers[:, : config.encoder_layers + 1]
        elif config.encoder_tune and ex.features.layers is not None:  # the parser runs the top ones
            ex.features.layers = ex.features.layers[:, : ex.features.layers.shape[1] - config.encoder_tune]
    return examples


def _loss(net: Any, batch: Sequence[Example], vocabs: dict[str, Vocab], device: Any, rng: np.random.Generator) -> Any:
    """Cross-entropy of every span's label plus every unit pair's remote label, per sentence."""
    import torch
    import torch.nn.functional as F
    inputs = tensorize([ex.features for ex in batch], vocabs, device, rng, net.config.word_dropout)
    fw, bw = net.encode(inputs)
    t = lambda a: torch.from_numpy(a).to(device)  # noqa: E731
    reps = net.span_reps(fw, bw, *batch_spans(inputs.lengths.tolist(), device))
    loss = F.cross_entropy(net.label_mlp(reps), t(np.concatenate([ex.targets for ex in batch])), reduction="sum")
    if net.config.ud_weight and hasattr(net, "ud_tags"):
        loss = loss + net.config.ud_weight * _ud_loss(net, fw, bw, batch, t)
    for k, ex in enumerate(batch):
        if len(ex.units) < 2:
            continue
        us = np.array(ex.units)
        unit_reps = net.span_reps(fw, bw, t(np.full(len(us), k)), t(us[:, 0]), t(us[:, 1]))
        logits = net.remote_logits(unit_reps)
        assert ex.remote_targets is not None  # set by prepare(), as targets are
        loss = loss + F.cross_entropy(logits.reshape(-1, logits.shape[-1]), t(ex.remote_targets.reshape(-1)),
                                      ignore_index=-100, reduction="sum")
    return loss / len(batch)


def _ud_loss(net: Any, fw: Any, bw: Any, batch: Sequence[Example], t: Any) -> Any:
    """Cross-entropy of gold UPOS, heads and relations (the auxiliary task), summed."""
    import torch.nn.functional as F
    tags, rels, heads = net.ud_logits(fw, bw)  # (B, T, ·); heads over T tokens + the root
    longest = tags.shape[1]
    gold = np.full((3, len(batch), longest), -100, dtype=np.int64)
    for b, ex in enumerate(batch):
        if ex.ud_targets is not None:
            n = len(ex.tokens)
            tag, head, rel = ex.ud_targets
            gold[0, b, :n], gold[1, b, :n], gold[2, b, :n] = tag, np.where(head == n, longest, head), rel
    # padding is never a head: its candidates are masked out
    lengths = np.array([len(ex.tokens) for ex in batch])
    pad = np.arange(longest + 1)[None, :] >= lengths[:, None]
    pad[:, longest] = False
    heads = heads.masked_fill(t(pad)[:, None, :], -1e4)
    g = t(gold)
    return sum(F.cross_entropy(x.reshape(-1, x.shape[-1]), y.reshape(-1), ignore_index=-100, reduction="sum")
               for x, y in ((tags, g[0]), (heads, g[1]), (rels, g[2])))


__all__ = ["PAD", "UNK", "Corpus", "Example", "Settings", "evaluate_examples", "prepare", "train"]
