"""scripts/code_shape.py's definitions of #48's figures, on made-up code (the figures of the
tree itself change as the redesign lands, so they are printed, not asserted)."""

from __future__ import annotations

import ast
import textwrap

import code_shape
import pytest


def sites(source: str) -> list[int]:
    source = textwrap.dedent(source)
    return code_shape.signature_sites(ast.parse(source))


def test_signature_sites_are_glued_or_split_signatures_and_nothing_else():
    assert sites('''
        def sign(metric, parses):
            return f"{metric.get_signature()}|{parses.signature}"
        def extend(s, by):
            return f"{s}|bootstrap:{by}"
        def signature(fields):
            return "|".join(fields)
        def stem(name):
            name, bar, extra = name.partition("|")  # a comment on signatures is not code
            return f"parser:x|model:{name}"
        ''') == [3, 5, 7, 10]
    assert sites('''
        import hashlib
        def key(a, b, sig):
            return hashlib.sha256(f"{a}|{b}|{sig}".encode()).hexdigest()
        def table(head):
            return "| " + " | ".join(head) + " |"
        def either(a, b):
            return f"{a}|{b}"
        class Signature:
            def __str__(self):
                return "|".join(f"{k}:{v}" for k, v in self.fields)
        ''') == []


def test_a_copy_of_text_to_scores_parses_text_and_scores_lines_in_one_function():
    tree = ast.parse(textwrap.dedent('''
        def score(texts):
            parses = parse_texts(texts, how)
            return list(score_lines(texts, {}, parses.graphs, scorer, fallback))
        def fallback_only(texts):
            parses = parse_texts(texts, how)
            return Score.fixed(0.0, [], parses.signature)
        def parse(texts):
            return parse_texts(texts, how)
        '''))
    found = {name: code_shape.scores_text(fn) for name, fn in code_shape._functions(tree, "m")}
    assert found == {"m.score": True, "m.fallback_only": True, "m.parse": False}


def test_modules_named_like_the_standard_library_wherever_they_are(tmp_path):
    for path in ("semsim/io.py", "semsim/app/tokenize.py", "semsim/kernel/graph.py", "semsim/json/__init__.py",
                 "plugins/x/semsim_x/reader.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
    files = code_shape.package_files(tmp_path)
    assert code_shape.shadowing(tmp_path, files) == ["json/", "semsim/app/tokenize.py", "semsim/io.py"]
    assert code_shape.package_module(tmp_path, tmp_path / "plugins/x/semsim_x/reader.py") == "semsim_x.reader"


def test_the_layers_from_the_kernel_set_or_the_kernel_folder(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/test_architecture.py").write_text('KERNEL = {"semsim.kernel.graph", "semsim.kernel.stats"}\n')
    assert code_shape.kernel_modules(tmp_path) == {"semsim.kernel.graph", "semsim.kernel.stats"}
    (tmp_path / "tests/test_architecture.py").write_text("LAYERS = ('kernel', 'app')\n")
    (tmp_path / "semsim/kernel").mkdir(parents=True)
    assert code_shape.kernel_modules(tmp_path) == set()
    assert code_shape.layer("semsim.kernel.graph", set()) == "kernel"
    assert code_shape.layer("semsim.app.cache", set()) == "application"


@pytest.mark.slow  # reads the whole tree
def test_it_prints_every_figure_of_the_checkout(capsys):
    code_shape.main(["--no-run"])
    out = capsys.readouterr().out
    for figure in ("copies of text-to-scores outside the route", "graph constructions per parsed sentence",
                   "string-signature sites", "modules shadowing the standard library", "mypy errors",
                   "functions > 80 lines", "parameter lists > 8"):
        assert f"\n{figure}" in out
