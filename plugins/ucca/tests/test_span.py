"""semsim's span parser: tree conversions, decoding, training through the real code path,
the shipped model, and the commands around it (parse, ucca train, ucca evaluate).

Training runs use the twelve bracketed sentences of ``brackets.py`` and a tiny network: they
test the machinery in seconds; their parses mean nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from brackets import TRAINING, to_xml
from support import refusal, run_cli

pytestmark = pytest.mark.needs_ucca

TINY = ["--set", "lstm_dim=16", "--set", "mlp_dim=16", "--set", "remote_dim=8", "--set", "word_dim=8",
        "--set", "feat_dim=4", "--set", "lstm_layers=1"]
FIGURE1 = ["He gva an apple for john", "He gave John an apple"]


def semsim(*args, env=None):
    return subprocess.run([sys.executable, "-m", "semsim.app.cli", *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})})


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    d = tmp_path_factory.mktemp("ucca")
    for split, items in (("train", TRAINING[:9]), ("dev", TRAINING[9:])):
        (d / split).mkdir()
        for i, b in enumerate(items):
            (d / split / f"{split}{i}.xml").write_text(to_xml(b, f"{split}{i}"), encoding="utf-8")
    return d


def passages(directory: Path):
    from semsim_ucca.span.training.data import sentences
    return sentences([directory])


# -- conversions ---------------------------------------------------------------------------------
def test_span_round_trip_is_exact_on_the_fixtures(corpus):
    from semsim_ucca.span.inference.tree import spans_to_tree, tree_from_passage, tree_to_passage, tree_to_spans
    from semsim_ucca.span.training.evaluation import evaluate
    golds = passages(corpus / "train")
    guessed = []
    for p in golds:
        tree = tree_from_passage(p)
        spans = tree_to_spans(tree)
        guessed.append(tree_to_passage(spans_to_tree(tree.tokens, spans.labels, spans.remotes), str(p.ID)))
    scores = evaluate(zip(guessed, golds))
    assert scores.labeled_primary == scores.unlabeled_primary == 1.0 and scores.sentences == 9


def test_discontinuous_unit_and_remote_survive_spans():
    from semsim_ucca.span.inference.tree import Node, Tree, spans_to_tree, tree_to_spans
    # [H [A John] [P gave ... up] [A [E the] [C idea]]] [U .]  with "gave" and "up" one unit
    tokens = ["John", "gave", "the", "idea", "up", "."]
    tree = Tree(tokens, [Node("ROOT", [1, 5]), Node("H", [2, 3, 4]), Node("A", [], [0]), Node("P", [], [1, 4]),
                         Node("A", [6, 7]), Node("U", [], [5]), Node("E", [], [2]), Node("C", [], [3])],
                remotes=[(4, 2, "A")])
    spans = tree_to_spans(tree)
    assert spans.labels[(1, 2)] == "P" and spans.labels[(4, 5)] == "P~"
    back = spans_to_tree(tokens, spans.labels, spans.remotes)
    p_units = [n for n in back.nodes if n.label == "P"]
    assert len(p_units) == 1 and sorted(p_units[0].terminals) == [1, 4]
    (_, child, label), = back.remotes
    assert label == "A" and back.nodes[child].terminals == [0]


def _mrp_route(tree, graph_id):
    """The graph the span parser returned before issue #48: the tree's MRP, converted by the
    plugin's ``to_graph`` and read back from graph JSON, as every parse was."""
    from semsim.kernel.formats.mrp import MrpGraph
    from semsim.kernel.graph_json import graph_from_dict, graph_to_dict
    from semsim_ucca.mrp import mrp_ucca_to_graph
    from semsim_ucca.span.inference.tree import tree_to_mrp
    return graph_from_dict(graph_to_dict(mrp_ucca_to_graph(MrpGraph("ucca", graph_id, tree_to_mrp(tree, graph_id)))))


def _random_trees(n: int, seed: int = 7):
    """Trees as the parser makes them (nested labelled spans, chains, fragments of
    discontinuous units, remote edges, some repeated), over words and punctuation, with the
    odd labels a model could give (``U`` over words, ``+``-joined and empty categories)."""
    import random

    from semsim_ucca.span.inference.tree import spans_to_tree
    rng = random.Random(seed)
    words = ["John", "gave", "up", ".", ",", "--", "a.b", "3", "!", "it", "?", "'s", "(", "x"]
    labels = ["H", "A", "P", "S", "U", "C", "E", "D+T", "A/C", "P~", "", "F", "U+E", "L", "H~"]
    for _ in range(n):
        size = rng.randint(1, 14)
        tokens = [rng.choice(words) for _ in range(size)]
        spans = {(0, size): rng.choice(["ROOT", "ROOT/H", "H"])}

        def split(i: int, j: int, spans: dict[tuple[int, int], str] = spans) -> None:
            cut = i
            while cut < j:
                k = rng.randint(cut + 1, j)
                if (k - cut < j - i) and rng.random() < 0.8:
                    spans[(cut, k)] = rng.choice(labels)
                    if k - cut > 1:
                        split(cut, k, spans)
                cut = k
        split(0, size)
        inner = [s for s in spans if s != (0, size)]
        remotes = [(rng.choice(list(spans)), rng.choice(inner), rng.choice(["A", "A+D", "C"]))
                   for _ in range(rng.randint(0, 3))] if inner else []
        remotes += remotes[:1]  # a remote edge given twice
        yield spans_to_tree(tokens, spans, remotes)


def test_tree_to_graph_is_the_mrp_route(corpus):
    """Issue #48: the parser builds each graph once, from its tree, and it is the graph the
    MRP route (build, write MRP, convert, JSON round trip) gave, field for field (scheme,
    punctuation, kinds, ids, sentence ends and meta included): on the fixtures' gold trees,
    on a thousand random ones, and on a tree that leaves a token unanchored (which takes the
    MRP route). Its serialised MRP, kept in the cache for people, is the one it was."""
    from semsim.kernel.graph_json import graph_to_dict
    from semsim_ucca.span import serialize
    from semsim_ucca.span.inference.tree import Node, Tree, tree_from_passage, tree_to_graph, tree_to_mrp
    gold = [tree_from_passage(p) for p in passages(corpus / "train")]
    unanchored = Tree(["a", "b", "."], [Node("ROOT", [1]), Node("A", [], [0]), Node("U", [], [2])])
    trees = [*gold, *_random_trees(1000), unanchored]
    kinds = set()
    for k, tree in enumerate(trees):
        graph = tree_to_graph(tree, f"s{k}")
        assert graph_to_dict(graph) == graph_to_dict(_mrp_route(tree, f"s{k}")), (k, tree)
        kinds.update(u.kind for u in graph.units)
        if tree in gold:
            assert json.loads(serialize(graph)) == tree_to_mrp(tree, f"s{k}")
    assert kinds == {"FN", "PNCT"} and len(tree_to_graph(unanchored).tokens) == 2


def test_a_parse_builds_each_graph_once(monkeypatch, tmp_path):
    """Issue #48: parsed in this process, each sentence's graph is constructed once (by
    :func:`tree_to_graph`), neither copied nor read back from JSON; with a cache too (which
    stores graph JSON and builds nothing); a cache hit reads each graph back once."""
    from semsim.app.parsing import ParseSettings, parse_texts
    from semsim.kernel.graph import Graph
    built, copied = [], []
    init, with_ = Graph.__post_init__, Graph.with_
    monkeypatch.setattr(Graph, "__post_init__", lambda self: (built.append(self.id), init(self))[1])
    monkeypatch.setattr(Graph, "with_", lambda self, **kw: (copied.append(self.id), with_(self, **kw))[1])
    for cache in (False, tmp_path / "parses.sqlite3", tmp_path / "parses.sqlite3"):
        built.clear()
        parses = parse_texts(FIGURE1, ParseSettings(model=str(shipped()), cache=cache))
        assert len(parses.graphs) == len(built) == 2 and not copied, (cache, built, copied)
    assert all(g.scheme.name == "ucca" and g.units[0].kind == "FN" for g in parses.graphs.values())


def test_cky_finds_the_best_tree_and_forces_the_root():
    from semsim_ucca.span.inference.decoder import cky
    from semsim_ucca.span.inference.model import all_spans
    n = 3
    starts, ends = all_spans(n)
    labels = ["<none>", "ROOT", "A", "P"]
    root_mask = np.array([lab == "ROOT" for lab in labels])
    logp = np.log(np.full((len(starts), len(labels)), 0.01))
    logp[:, 0] = np.log(0.9)  # no unit, mostly
    spans = list(zip(starts.tolist(), ends.tolist()))
    logp[spans.index((1, 3)), 2] = np.log(0.95)  # a confident unit over tokens 1..2
    logp[spans.index((0, 3)), 0] = np.log(0.99)  # the root would rather be nothing: it is forced
    chosen = cky(logp, n, root_mask)
    assert chosen == {(0, 3): 1, (1, 3): 2}


def test_cky_prefers_a_likely_unit_to_confident_non_units():
    """A tree is scored by its units: a span that is surely no unit (p(none) = 0.999) must
    not outweigh a likely unit (p = 0.9). Scoring every span of the binarisation with its
    own log-probability did, and left every unit under the root."""
    from semsim_ucca.span.inference.decoder import cky
    from semsim_ucca.span.inference.model import all_spans
    n = 4
    starts, ends = all_spans(n)
    labels = ["<none>", "ROOT", "H", "A"]
    root_mask = np.array([lab == "ROOT" for lab in labels])
    spans = list(zip(starts.tolist(), ends.tolist()))
    logp = np.full((len(spans), len(labels)), np.log(0.0005))
    logp[:, 0] = np.log(0.999)
    units = {(0, 3): 2, (1, 3): 3, **{(i, i + 1): 3 for i in range(n)}}  # p(label) 0.9, p(none) 0.1
    for unit, label in units.items():
        logp[spans.index(unit)] = np.log(0.1 / (len(labels) - 1))
        logp[spans.index(unit), 0], logp[spans.index(unit), label] = np.log(0.1), np.log(0.9)
    logp[spans.index((0, n)), 1] = np.log(0.9)
    assert cky(logp, n, root_mask) == {(0, 4): 1, **units}


# -- training ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_model(corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("model") / "tiny.safetensors"
    r = semsim("ucca", "train", "--train", corpus / "train", "--dev", corpus / "dev", "-m", out, "--epochs", "2",
               "--seed", "3", "-q", *TINY)
    assert r.returncode == 0, r.stderr
    assert "best dev labelled primary F1" in r.stdout and out.is_file()
    return out


def history(model: Path) -> list[dict]:
    return [json.loads(x) for x in (model.parent / (model.name + ".work") / "history.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_training_reports_dev_scores_per_epoch(tiny_model):
    h = history(tiny_model)
    assert [r["epoch"] for r in h] == [1, 2]
    assert all(0.0 <= r["dev_labeled_primary"] <= 1.0 and r["dev_sentences"] == 3 for r in h)


@pytest.mark.slow
def test_same_seed_gives_the_same_dev_scores(corpus, tiny_model, tmp_path):
    out = tmp_path / "again.safetensors"
    r = semsim("ucca", "train", "--train", corpus / "train", "--dev", corpus / "dev", "-m", out, "--epochs", "2",
               "--seed", "3", "-q", *TINY)
    assert r.returncode == 0, r.stderr
    strip = lambda h: [{k: v for k, v in e.items() if k != "seconds"} for e in h]  # noqa: E731
    assert strip(history(out)) == strip(history(tiny_model))


@pytest.mark.slow
def test_training_resumes_from_its_checkpoint(corpus, tmp_path):
    from semsim_ucca.span.inference.model import Config
    from semsim_ucca.span.training.train import Corpus, Settings, train
    config = Config(lstm_dim=8, mlp_dim=8, remote_dim=4, word_dim=4, feat_dim=2, lstm_layers=1)
    settings = Settings(Corpus((str(corpus / "train"),)), Corpus((str(corpus / "dev"),)), epochs=1, config=config)
    model = tmp_path / "m.safetensors"
    train(settings, model, progress=False, log=lambda m: None)
    messages = []
    settings.epochs = 2
    result = train(settings, model, progress=False, log=messages.append)
    assert any(m.startswith("resuming after epoch 1") for m in messages)
    assert result["epochs"] == 2 and [r["epoch"] for r in result["history"]] == [1, 2]
    # read back with weights_only=True (and the prepared data from JSON), it goes on as an unbroken run
    straight = train(settings, tmp_path / "straight.safetensors", progress=False, log=lambda m: None)
    strip = lambda h: [{k: v for k, v in e.items() if k != "seconds"} for e in h]  # noqa: E731
    assert strip(result["history"]) == strip(straight["history"])
    other = Settings(settings.train, settings.dev, epochs=3, seed=9, config=config)
    with pytest.raises(Exception, match="other data or settings"):
        train(other, model, progress=False, log=messages.append)


class _RunsCode:
    """Unpickled, it creates ``marker``: what an older semsim's pickle could have done."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return open, (str(self.marker), "w")


@pytest.mark.slow
def test_prepared_data_reload_as_made_and_an_old_pickle_is_never_opened(corpus, tmp_path, monkeypatch, capsys):
    import pickle

    from semsim_ucca.span.training import train as span_train
    dev = span_train.Corpus((str(corpus / "dev"),))
    with monkeypatch.context() as m:  # where an older semsim kept them: data-KEY-gold.pkl, KEY of version 4
        m.setattr(span_train, "PREPARED", 4)
        old = tmp_path / f"data-{span_train._fingerprint(dev)}-gold.pkl"
    marker = tmp_path / "ran"
    old.write_bytes(pickle.dumps(_RunsCode(marker)))
    made = span_train.prepare(dev, tmp_path, keep_gold=True)
    assert "1 prepared-data pickle(s) of an older semsim" in capsys.readouterr().err and not marker.exists()
    assert sorted(f.suffix for f in tmp_path.glob("prepared-*")) == [".jsonl", ".safetensors"]
    again = span_train.prepare(dev, tmp_path, keep_gold=True)
    assert capsys.readouterr().err == "" and not marker.exists()  # read back, not prepared again
    assert len(again) == len(made) == 3
    fields = lambda x: (x.id, x.tokens, x.spans, x.ud, x.features.strings)  # noqa: E731
    for a, b in zip(made, again):
        assert fields(a) == fields(b)
        assert np.array_equal(a.features.vectors, b.features.vectors) and b.features.layers is None
        # frozen() bytes made in this process; the reloaded gold came from XML
        xml = [span_train._passage_xml(pickle.loads(x.gold)) for x in (a, b)]
        assert xml[0] == xml[1]
    arrays = next(tmp_path.glob("prepared-*.safetensors"))
    arrays.write_bytes(arrays.read_bytes()[:-4])  # an interrupted write: prepared again, no error
    assert len(span_train.prepare(dev, tmp_path, keep_gold=True)) == 3
    assert "reading and splitting" in capsys.readouterr().err


@pytest.mark.slow
def test_a_checkpoint_that_loads_only_by_running_code_is_one_line_and_never_run(corpus, tmp_path):
    import torch

    from semsim.kernel.errors import SemsimError
    from semsim_ucca.span.inference.model import Config
    from semsim_ucca.span.training.train import Corpus, Settings, train
    config = Config(lstm_dim=8, mlp_dim=8, remote_dim=4, word_dim=4, feat_dim=2, lstm_layers=1)
    settings = Settings(Corpus((str(corpus / "train"),)), Corpus((str(corpus / "dev"),)), epochs=1, config=config)
    model, marker = tmp_path / "m.safetensors", tmp_path / "ran"
    checkpoint = tmp_path / "m.safetensors.work" / "checkpoint.pt"
    checkpoint.parent.mkdir()
    torch.save({"rng": np.random.default_rng(1), "state": _RunsCode(marker)}, checkpoint)
    with pytest.raises(SemsimError) as caught:
        train(settings, model, progress=False, log=lambda m: None)
    message = str(caught.value)
    assert message.startswith(f"{checkpoint}: not a checkpoint that loads without running code")
    assert "--restart" in message and "\n" not in message and not marker.exists()
    assert train(settings, model, resume=False, progress=False, log=lambda m: None)["epochs"] == 1


@pytest.mark.slow
def test_model_file_carries_its_metadata_and_reloads(tiny_model):
    from semsim.kernel.models import sha256_file
    from semsim_ucca import span
    from semsim_ucca.span.inference.parser import SpanParser
    parser = SpanParser.load(tiny_model)
    assert parser.info["train_sentences"] == 9 and parser.info["spacy_model"]
    assert span.model_identity(str(tiny_model)) == f"{sha256_file(tiny_model)}+{span.DECODER}"
    trees = parser.parse([s.split() for s in FIGURE1] + [[]])
    assert [t.tokens for t in trees] == [s.split() for s in FIGURE1] + [[]]


# -- the commands --------------------------------------------------------------------------------
@pytest.mark.slow
def test_parse_writes_mrp_and_xml_through_the_cache(tiny_model, tmp_path):
    text = tmp_path / "essay.txt"
    text.write_text("John gave Mary a book .\n\nShe left .\n", encoding="utf-8")
    env = {"SEMSIM_CACHE_DIR": str(tmp_path / "cache")}
    r = semsim("parse", text, "--model", tiny_model, "-q", "-o", tmp_path / "out.mrp", env=env)
    assert r.returncode == 0, r.stderr
    graphs = [json.loads(x) for x in (tmp_path / "out.mrp").read_text().splitlines()]
    assert [g["id"] for g in graphs] == ["essay.1", "essay.3"] and graphs[0]["framework"] == "ucca"
    r = semsim("parse", text, "--model", tiny_model, "-q", "--format", "xml", "--passage", "-o", tmp_path / "x",
               env=env)
    assert r.returncode == 0, r.stderr
    import semsim as api
    g = api.read(tmp_path / "x" / "essay.xml")
    assert g.text == "John gave Mary a book . She left ."
    info = json.loads(semsim("cache", "info", "--format", "json", env=env).stdout)
    assert info["groups"][0]["parser"] == "ucca-span" and info["groups"][0]["entries"] == 2


@pytest.mark.slow
def test_evaluate_scores_any_parser_against_gold(corpus, tiny_model, tmp_path):
    r = semsim("ucca", "evaluate", corpus / "dev", "--model", tiny_model, "--format", "json", "-q",
               env={"SEMSIM_CACHE_DIR": str(tmp_path / "c")})
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["sentences"] == 3 and 0.0 <= report["labeled_primary"] <= 1.0
    assert report["signature"].startswith("ucca.evaluation|parser:ucca-span|model:tiny@")


@pytest.mark.slow
@pytest.mark.needs_dask
def test_evaluate_parses_on_dask_as_every_command_does(corpus, tiny_model, tmp_path):
    """`semsim ucca evaluate` takes the parsing options of every command (one route): on a
    local Dask cluster it reports what it reports in this process."""
    args = ["ucca", "evaluate", corpus / "dev", "--model", tiny_model, "--format", "json", "-q", "--no-cache"]
    here, dask = run_cli(*args), semsim(*args, "--executor", "dask", "--jobs", "1")
    assert here.exit_code == 0 and dask.returncode == 0, dask.stderr
    assert json.loads(dask.stdout) == json.loads(here.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("content", [None, b"not a model at all", b"\x08\x00\x00\x00\x00\x00\x00\x00{}"])
def test_missing_or_corrupt_model_is_one_clear_line(tmp_path, content):
    model = tmp_path / "m.safetensors"
    if content is not None:
        model.write_bytes(content)
    text = tmp_path / "t.txt"
    text.write_text("John left .\n")
    line = refusal("parse", text, "--model", model, "--no-cache", "-q")
    assert str(model) in line and ("no span parser model" in line or "not a usable span parser model" in line)



def test_sentence_over_the_length_bound_is_refused_before_the_model_loads(monkeypatch):
    """Every span is scored, so memory grows with the square of the length: a sentence over
    SEMSIM_MAX_SENTENCE_TOKENS is a ParseError naming it (the pipeline reports its line and
    parses the rest), whatever the model."""
    from semsim.kernel.errors import ParseError
    from semsim_ucca import span
    monkeypatch.setenv("SEMSIM_MAX_SENTENCE_TOKENS", "3")
    with pytest.raises(ParseError, match=r"sentence too long for the span parser: 4 tokens, over the limit of 3 "
                                         r"\(raise it with SEMSIM_MAX_SENTENCE_TOKENS=N") as info:
        span.parse(["a b c", "a b c d"], model="/nonexistent/model.safetensors")
    assert info.value.sentences == ["a b c d"]

# -- the shipped model ---------------------------------------------------------------------------
def shipped():
    from semsim_ucca.span import DEFAULT_MODEL
    if not DEFAULT_MODEL.is_file():
        pytest.fail(f"the shipped model {DEFAULT_MODEL} is missing")
    return DEFAULT_MODEL


def test_shipped_model_parses_figure1_into_scenes_and_participants():
    import semsim as api
    from semsim_ucca import span
    graphs = [api.app.plugins.to_graph(m) for m in span.parse(FIGURE1, str(shipped()))]
    for g in graphs:
        labels = [label for e in g.edges for label in e.labels]
        assert labels.count("H") + sum(lab in ("P", "S") for lab in labels) >= 1, g
        assert "A" in labels and ("P" in labels or "S" in labels), g
    assert api.usim(graphs[0], graphs[0]).f == 1.0


@pytest.mark.slow
def test_shipped_model_is_the_default_and_signed(tmp_path):
    src, hyp = tmp_path / "s.txt", tmp_path / "h.txt"
    src.write_text(FIGURE1[0] + "\n")
    hyp.write_text(FIGURE1[1] + "\n")
    r = semsim("score", "--source", src, "--hyp", hyp, "-q", "--no-cache", "-o", tmp_path / "o.jsonl", "--format",
               "json")
    assert r.returncode == 0, r.stderr
    from semsim.kernel.models import sha256_file
    from semsim_ucca import span
    from semsim_ucca.span.inference.encoder import DEFAULT, PINNED
    record = json.loads((tmp_path / "o.jsonl").read_text().splitlines()[0])
    assert shipped().name == "ucca-span-ewt-minilm-l2-consistency.safetensors"
    assert record["signature"].endswith(f"|parser:ucca-span|model:ucca-span-ewt-minilm-l2-consistency@"
                                        f"{sha256_file(shipped())[:12]}|encoder:{DEFAULT}@{PINNED[DEFAULT].sha256[:12]}|decoder:{span.DECODER}")
    assert 0.0 < record["f"] < 1.0


def test_the_model_without_an_encoder_stays_selectable_by_name():
    import semsim as api
    from semsim_ucca import span
    path = span.resolve_model("ucca-span-ewt-chars")
    assert path == span.MODELS / "ucca-span-ewt-chars.safetensors" and path.is_file()
    assert str(span.model_name("ucca-span-ewt-chars")) == f"ucca-span-ewt-chars|decoder:{span.DECODER}"  # no encoder
    graphs = [api.app.plugins.to_graph(m) for m in span.parse(FIGURE1, "ucca-span-ewt-chars")]
    assert all(any(e.labels == ("A",) for e in g.edges) for g in graphs)


def test_the_default_runs_only_minilms_first_two_layers_and_all_six_stay_selectable():
    import semsim as api
    from semsim_ucca import span
    from semsim_ucca.span.inference.encoder import DEFAULT, PINNED
    encoder = f"|encoder:{DEFAULT}@{PINNED[DEFAULT].sha256[:12]}|decoder:{span.DECODER}"
    assert span.model_name(None) == span.model_name("ucca-span-ewt-minilm-l2-consistency")
    assert str(span.model_name(None)) == f"ucca-span-ewt-minilm-l2-consistency{encoder}"
    assert str(span.model_name("ucca-span-ewt-minilm-l2")) == f"ucca-span-ewt-minilm-l2{encoder}"  # the old default
    assert span.load(None).encoder().depth == 2  # of MiniLM's 6
    assert str(span.model_name("ucca-span-ewt-minilm")) == f"ucca-span-ewt-minilm{encoder}"
    assert span.load("ucca-span-ewt-minilm").encoder().depth == 6
    graphs = [api.app.plugins.to_graph(m) for m in span.parse(FIGURE1, "ucca-span-ewt-minilm")]
    assert all(any(e.labels == ("A",) for e in g.edges) for g in graphs)


def test_graph_to_passage_round_trips_gold_xml(examples, tmp_path):
    import semsim as api
    from semsim_ucca.passage import write_xml
    for name in ("fig1-source.xml", "fig1-correction.xml", "fig1-source.annotator2.xml"):
        g = api.read(examples / name)
        write_xml(g, tmp_path / name)
        back = api.read(tmp_path / name)
        key = lambda graph: sorted((sorted(graph.yields[e.parent]), sorted(graph.yields[e.child]), e.labels,  # noqa: E731
                                    e.remote) for e in graph.edges)
        assert back.text == g.text and key(back) == key(g), name
        assert api.usim(g, back).f == 1.0


# -- damaged checkpoints and prepared data (#45): one line naming the file, --restart the way out --------
def _tiny_settings(corpus):
    from semsim_ucca.span.inference.model import Config
    from semsim_ucca.span.training.train import Corpus, Settings
    config = Config(lstm_dim=8, mlp_dim=8, remote_dim=4, word_dim=4, feat_dim=2, lstm_layers=1)
    return Settings(Corpus((str(corpus / "train"),)), Corpus((str(corpus / "dev"),)), epochs=1, config=config)


def _nan_weights(saved):
    first = next(iter(saved["net"]))
    saved["net"][first] = saved["net"][first].clone().fill_(float("nan"))


def _wrong_shape(saved):
    first = next(iter(saved["net"]))
    saved["net"][first] = saved["net"][first].new_zeros((3, 5, 7))


DAMAGES = {
    "wrong shapes": _wrong_shape,
    "missing keys": lambda s: s["net"].pop(next(iter(s["net"]))),
    "NaN weights": _nan_weights,
    "junk state": lambda s: s.__setitem__("state", {"epoch": "one"}),
    "junk rng": lambda s: s.__setitem__("rng", {"bit_generator": "nothing"}),
    "junk optimiser": lambda s: s.__setitem__("optimizer", {"state": 5}),
    "junk torch rng": lambda s: s.__setitem__("torch_rng", s["torch_rng"][:10]),
}


@pytest.mark.slow
def test_a_damaged_checkpoint_is_one_line_and_restart_is_the_way_out(corpus, tmp_path):
    import torch

    from semsim.kernel.errors import SemsimError
    from semsim_ucca.span.training.train import train
    settings = _tiny_settings(corpus)
    model = tmp_path / "m.safetensors"
    train(settings, model, progress=False, log=lambda m: None)
    checkpoint = tmp_path / "m.safetensors.work" / "checkpoint.pt"
    good = checkpoint.read_bytes()
    settings.epochs = 2
    for name, damage in DAMAGES.items():
        checkpoint.write_bytes(good)
        saved = torch.load(checkpoint, weights_only=True)
        damage(saved)
        torch.save(saved, checkpoint)
        with pytest.raises(SemsimError) as caught:
            train(settings, model, progress=False, log=lambda m: None)
        message = str(caught.value)
        assert message.startswith(f"{checkpoint}: a damaged checkpoint (") and message.endswith(
            "delete it or pass --restart to start afresh") and "\n" not in message, (name, message)
    assert train(settings, model, resume=False, progress=False, log=lambda m: None)["epochs"] == 2


@pytest.mark.slow
def test_damaged_prepared_data_is_one_line_and_restart_prepares_it_again(corpus, tmp_path):
    from semsim.kernel.errors import SemsimError
    from semsim_ucca.span.training import train as span_train
    dev = span_train.Corpus((str(corpus / "dev"),))
    span_train.prepare(dev, tmp_path, progress=False, keep_gold=True)
    text = next(tmp_path.glob("prepared-*.jsonl"))
    arrays = next(tmp_path.glob("prepared-*.safetensors"))
    good_text, good_arrays = text.read_text(), arrays.read_bytes()
    header, *rows = good_text.splitlines()
    row = json.loads(rows[0])

    def with_row(**changes):
        return "\n".join([header, json.dumps({**row, **changes}), *rows[1:]]) + "\n"

    flipped = bytearray(good_arrays)
    flipped[-3] ^= 0xFF  # a byte of the arrays (not the safetensors header), same size
    damages = {"junk header": ("[1, 2]\n" + "\n".join(rows) + "\n", good_arrays),
               "junk row": ("\n".join([header, "{not json", *rows[1:]]) + "\n", good_arrays),
               "a span outside its sentence": (with_row(labels=[[0, 999, "A"]]), good_arrays),
               "tokens of the wrong type": (with_row(tokens=[1, 2]), good_arrays),
               "bad gold XML": (with_row(gold="<root><unclosed"), good_arrays),
               "flipped bytes in the arrays": (good_text, bytes(flipped))}
    for name, (damaged_text, damaged_arrays) in damages.items():
        text.write_text(damaged_text)
        arrays.write_bytes(damaged_arrays)
        with pytest.raises(SemsimError) as caught:
            span_train.prepare(dev, tmp_path, progress=False, keep_gold=True)
        message = str(caught.value)
        assert message.startswith(f"{text}: damaged prepared data (") and "--restart" in message \
            and "\n" not in message, (name, message)
    again = span_train.prepare(dev, tmp_path, progress=False, keep_gold=True, reuse=False)  # what --restart does
    assert len(again) == 3 and text.read_text() == good_text
