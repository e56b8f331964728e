"""The library API's shape (issue #11, point 5): corpus_score with two line-parallel
sequences, clear errors for mismatched or wrongly shaped input, edge labels given as a
bare string, and the py.typed marker in the wheel."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from figure1 import correction, source

import semsim
from semsim import Edge, InputError, Unit, build_graph
from semsim.kernel.stats import corpus_score

ROOT = Path(__file__).resolve().parent.parent


def corpus():
    """Three source/correction pairs: Figure 1 both ways and an identity."""
    return [source(), correction(), source()], [correction(), source(), source()]


def test_corpus_score_takes_two_line_parallel_sequences():
    sources, corrections = corpus()
    metric = semsim.USim()
    two = metric.corpus_score(sources, corrections, n_bootstrap=50, seed=3)
    pairs = metric.corpus_score(zip(sources, corrections), n_bootstrap=50, seed=3)  # the pair form still works
    assert two == pairs and two.n == 3
    assert two.macro == pytest.approx(sum(metric.sentence_score(a, b).f for a, b in zip(sources, corrections)) / 3)
    assert metric.corpus_score(iter(sources), (c for c in corrections)) == metric.corpus_score(sources, corrections)


def test_corpus_score_refuses_mismatched_lengths():
    sources, corrections = corpus()
    with pytest.raises(InputError, match="3 sources but 2 corrections"):
        semsim.USim().corpus_score(sources, corrections[:2])


@pytest.mark.parametrize("args, message", [
    # one sequence of graphs, not of pairs: the second side was forgotten
    (lambda s, c: (s,), "item 0 is a Graph, not a \\(source, correction\\) pair"),
    # an old positional n_bootstrap lands on `corrections`
    (lambda s, c: (list(zip(s, c)), 1000), "corrections must be a sequence.*got int; n_bootstrap.*keyword-only"),
    # two single graphs: that is sentence_score
    (lambda s, c: (s[0], c[0]), "sources must be a sequence of graphs or paths, got Graph"),
    # a path where the pairs go: iterating it would pair its characters
    (lambda s, c: ("src.xml",), "sources must be a sequence of graphs or paths, got str"),
    (lambda s, c: ([(s[0], c[0], s[1])],), "item 0 is a tuple, not a \\(source, correction\\) pair"),
])
def test_corpus_score_refuses_wrong_shapes(args, message):
    with pytest.raises(InputError, match=message):
        semsim.USim().corpus_score(*args(*corpus()))


def test_the_score_aggregator_says_what_it_takes():
    sources, corrections = corpus()
    with pytest.raises(InputError, match=r"aggregates sentence Scores, got a Graph.*USim\(\)\.corpus_score"):
        corpus_score(sources)
    scores = [semsim.usim(a, b) for a, b in zip(sources, corrections)]
    with pytest.raises(InputError, match="got n_bootstrap=\\[") as info:
        semsim.corpus_score(scores, corrections)  # the sacrebleu shape on the aggregator
    assert "USim().corpus_score(sources, corrections)" in str(info.value)


def test_scoring_methods_say_what_they_take():
    assert "corpus_score(sources, corrections)" in semsim.USim.corpus_score.__doc__
    assert "pairs" in semsim.USim.corpus_score.__doc__
    assert "Score" in semsim.USim.sentence_score.__doc__


def two_node(label) -> semsim.Graph:
    return semsim.Graph((semsim.Token("a"),), (Unit("r"), Unit("x", anchors=(0,))), (Edge(0, 1, label),))


def test_a_bare_string_edge_label_is_one_label():
    # "NP" is the label NP, as build_graph reads it, not the characters N and P
    assert Edge(0, 1, "NP").labels == ("NP",)
    assert Edge(0, 1, "NP") == Edge(0, 1, ("NP",))
    assert two_node("NP").edges[0].labels == ("NP",)
    assert two_node("NP") == build_graph(["a"], [Unit("r"), Unit("x", anchors=(0,))], [(0, 1, "NP")])
    assert two_node(("N", "P")).edges[0].labels == ("N", "P")  # a sequence is still several labels


def test_graphs_labelled_np_and_pn_differ():
    np_, pn = two_node("NP"), two_node("PN")
    assert np_ != pn
    assert semsim.usim(np_, pn).f == 0.0 and semsim.usim(np_, np_).f == 1.0
    assert semsim.usim(np_, pn, labels="unlabeled").f == 1.0


@pytest.mark.slow
def test_py_typed_is_in_the_wheel(tmp_path):
    """Build the wheel from a copy of the sources (the checkout gets no build/ or dist/) with
    setuptools, the project's build backend: its absence is a failure, not a skip."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "semsim", src / "semsim", ignore=shutil.ignore_patterns("__pycache__"))
    assert (src / "semsim" / "py.typed").is_file()
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-c", f"from setuptools import build_meta; build_meta.build_wheel({str(dist)!r})"],
                   cwd=src, check=True, capture_output=True)
    (wheel,) = dist.glob("semsim-*.whl")
    assert "semsim/py.typed" in zipfile.ZipFile(wheel).namelist()


def test_text_through_the_api_parses_or_is_one_input_error(toy_env):
    """Hypothesis (#45): any sentence a caller passes (lone surrogates, NUL, escapes, line
    separators, None or a number among them) is parsed or refused with one InputError
    naming its position; never a traceback from deep inside, never cleaned silently."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from semsim.api import parse
    from semsim.kernel.errors import InputError

    sentence = st.one_of(st.text(max_size=20), st.none(), st.integers(), st.just("a \ud800 b"),
                         st.just("a\x00b"), st.just("a\x1bb"), st.just("a\u2028b"))

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(st.lists(sentence, min_size=1, max_size=4))
    def check(texts):
        try:
            parsed = parse(texts, parser="toy-parser", cache=False)
        except InputError as exc:
            assert str(exc).startswith("text ") and "\n" not in str(exc)
            return
        assert all(isinstance(t, str) for t in texts)
        assert set(parsed.graphs) | set(parsed.failed) >= {" ".join(t.split()) for t in texts if t.strip()}

    check()
