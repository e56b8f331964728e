"""A throw-away plugin: a toy representation with its own reader, parser and adapter.

It exists to prove that a new representation needs no change to semsim's core: the
tests register it and score through it.
"""

from __future__ import annotations

import json
import os
import signal
from dataclasses import dataclass

from semsim.kernel.errors import InputError
from semsim.kernel.graph import Edge, Graph, Token, Unit
from semsim.kernel.hookspecs import hookimpl
from semsim.kernel.records import Download, MetricSpec, ParaphraseJudge, Parser, Reader, WordEncoder, Writer
from semsim.kernel.scheme import Scheme

TOY = Scheme("toy", equivalences=(frozenset({"Big", "Large"}),), ignored_labels=frozenset({"Punct"}),
             label_groups={"Any": ("Big", "Small", "Large")}, label_names={"Big": "Capitalised word"})


@dataclass(frozen=True)
class ToyTree:
    """The native object of the toy representation: words with one label each."""

    words: tuple[str, ...]
    labels: tuple[str, ...]


def toy_parse(texts, model=None):
    """Label capitalised words Big, others Small, punctuation Punct: a 'parser'.

    For the tests of the text pipeline: ``TOY_PARSE_LOG`` names a file to which every
    parsed sentence is appended; a batch holding the sentence ``TOY_KILL_AT`` kills the
    process (SIGKILL), as a crash or ``kill -9`` would (with ``TOY_KILL_ONCE`` naming a file:
    only while that file does not exist, and the kill creates it: one worker dies, once); one
    holding ``TOY_FAIL_AT`` raises; one holding ``TOY_HANG_AT`` hangs (an hour's sleep).
    """
    if os.environ.get("TOY_PARSE_LOG"):
        with open(os.environ["TOY_PARSE_LOG"], "a", encoding="utf-8") as log:
            log.writelines(t + "\n" for t in texts)
    if os.environ.get("TOY_KILL_AT") in texts:
        once = os.environ.get("TOY_KILL_ONCE")
        if not once or not os.path.exists(once):
            if once:
                open(once, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
    if os.environ.get("TOY_HANG_AT") in texts:
        import time
        time.sleep(3600)
    if os.environ.get("TOY_FAIL_AT") in texts:
        raise RuntimeError("toy parser cannot parse this")
    out = []
    for text in texts:
        words = tuple(text.split())
        out.append(ToyTree(words, tuple("Punct" if not w.isalnum() else "Big" if w[:1].isupper() else "Small"
                                        for w in words)))
    return out


def tree_to_graph(tree: ToyTree, graph_id: str = "") -> Graph:
    units = [Unit("root")] + [Unit(f"w{i}", anchors=(i,)) for i in range(len(tree.words))]
    edges = [Edge(0, i + 1, (label,)) for i, label in enumerate(tree.labels)]
    tokens = [Token(w, punct=not w.isalnum()) for w in tree.words]
    return Graph(tuple(tokens), tuple(units), tuple(edges), scheme=TOY, id=graph_id)


def read_toy(path):
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            data = json.loads(line)
            tree = ToyTree(tuple(data["words"]), tuple(data["labels"]))
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(f"bad toy graph: {exc}", path, n) from None
        yield tree


@hookimpl
def register_readers(register):
    register(Reader("toy", (".toy",), read_toy, None, "toy JSON lines"))


@hookimpl
def register_parsers(register):
    register(Parser("toy-parser", "toy", toy_parse, "capitalisation 'parser'",
                    model_identity=lambda model: "rules-v1", serialize=lambda tree: json.dumps(tree.labels),
                    model_name=lambda model: model or "rules", default=True))
    register(Parser("toy-lower", "toy", lambda texts, model=None: toy_parse([t.lower() for t in texts]),
                    "the capitalisation 'parser' on lower-cased text (not the default)",
                    own_tokens=True))  # its tokens are lower-cased: not the text's words


def toy_line(graph):
    """One toy graph as one line of the toy format (what ``read_toy`` reads)."""
    labels = [graph.edges[graph.incoming[u][0]].labels[0] for u in range(1, len(graph.units))]
    return json.dumps({"words": [t.text for t in graph.tokens], "labels": labels}) + "\n"


def write_toy(graph, path):
    path.write_text(toy_line(graph), encoding="utf-8")


def write_toys(graphs, path):
    """Many toy graphs to one file, a line each (a writer of treebanks)."""
    path.write_text("".join(toy_line(g) for g in graphs), encoding="utf-8")


@hookimpl
def register_writers(register):
    register(Writer("toy", "toy", ".toy", write_toy, "toy JSON lines"))
    register(Writer("toy-many", "toy", ".toy", description="toy JSON lines, every graph in one file",
                    write_all=write_toys))


@hookimpl
def register_commands(cli):
    import click

    @cli.command(name="toy-count")
    @click.argument("text")
    def toy_count(text):
        """Count the words of TEXT (a plugin's own command)."""
        click.echo(len(text.split()))


@hookimpl
def register_downloads(register):
    register(Download("toy-model", os.environ.get("TOY_MODEL_URL", "file:///nonexistent/toy-model.tar.gz"),
                       "toy-parser", os.environ.get("TOY_MODEL_SHA256"), "a toy model archive", subpath="toy"))


def same_labels(g1, g2):
    """A toy measure: the share of edge labels the two graphs have in common (multisets)."""
    from collections import Counter

    from semsim.kernel.signature import signature
    from semsim.kernel.stats import Counts, Score
    a, b = (Counter(lab for e in g.edges for lab in e.labels) for g in (g1, g2))
    common = sum((a & b).values())
    return Score({"labels": Counts(common, sum(a.values()), common, sum(b.values()))},
                 signature("toy-labels", {}, g1.scheme))


@hookimpl
def register_metrics(register):
    register(MetricSpec("toy-labels", "toy", same_labels, "shared edge labels"))


def toy_judge(queries):
    """A toy paraphrase judge: the toy language's only synonyms are Big and Large."""
    from semsim.kernel.align.paraphrase import Verdict
    same = {frozenset({"big", "large"})}
    out = []
    for q in queries:
        pair = frozenset({" ".join(q.sentence[q.start:q.stop]).lower(), " ".join(q.replacement).lower()})
        out.append(Verdict(pair in same, None, "synonyms" if pair in same else "not synonyms"))
    return out


@hookimpl
def register_paraphrase_judges(register):
    register(ParaphraseJudge("toy-synonyms", lambda: toy_judge, lambda: "toy-synonyms@1", "toy", "Big = Large"))


def toy_vectors(words):
    """Toy contextual word vectors: the word's own direction (Big and Large share one), and
    a little of its neighbours', so that the same word in another context is near, not equal."""
    import zlib

    import numpy as np
    own = np.zeros((len(words), 16))
    for i, w in enumerate(words):
        w = "big" if w.lower() == "large" else w.lower()
        own[i, zlib.crc32(w.encode()) % 16] = 1.0
    context = np.zeros_like(own)
    for i in range(len(words)):
        context[i] = own[max(0, i - 1):i + 2].sum(axis=0) - own[i]
    return own + 0.2 * context


@hookimpl
def register_word_encoders(register):
    register(WordEncoder("toy-vectors", lambda: toy_vectors, lambda: "toy-vectors@1", "toy", "one direction a word"))


@hookimpl
def register_schemes(register):
    register(TOY)


@hookimpl
def to_graph(obj):
    return tree_to_graph(obj) if isinstance(obj, ToyTree) else None
