"""Plugins at fault are named (#45): a plugin that raises or exits in any hook, registers what
a hook does not take, or returns garbage from what it registered, is one line naming the
plugin and the hook, exit status 1, never a traceback (``SEMSIM_DEBUG=1`` shows it).

Each case is a small plugin file loaded with ``SEMSIM_PLUGINS`` beside the toy plugin, and one
command that reaches the faulty hook.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import run_cli, run_semsim

import semsim.app.plugins as plugins

TOY = str(Path(__file__).with_name("toy_plugin.py"))  # the toy plugin, as SEMSIM_PLUGINS loads it

HEAD = ("from semsim.kernel.hookspecs import hookimpl\n"
        "from semsim.kernel.records import Download, Parser, Reader, WordEncoder, ParaphraseJudge\n")

#: name: (the plugin's code after HEAD, what the line must say besides the plugin's name, extra environment)
FAULTS = {
    "raises at import": ("raise RuntimeError('broken at import')\n", "its import: RuntimeError: broken at import",
                         {}),
    "exits at import": ("import sys\nsys.exit(3)\n", "its import: exited (sys.exit(3))", {}),
    "register_readers raises": ("@hookimpl\ndef register_readers(register):\n    raise KeyError('oops')\n",
                                "register_readers: KeyError", {}),
    "a str registered as a reader": ("@hookimpl\ndef register_readers(register):\n    register('toy')\n",
                                     "register_readers: it registered 'toy', not a Reader", {}),
    "a dict registered as a parser": ("@hookimpl\ndef register_parsers(register):\n    register({'name': 'x'})\n",
                                      "register_parsers: it registered {'name': 'x'}, not a Parser", {}),
    "garbage scheme": ("@hookimpl\ndef register_schemes(register):\n    register(42)\n",
                       "register_schemes: it registered 42, not a Scheme", {}),
    "garbage download": ("@hookimpl\ndef register_downloads(register):\n    register(['x'])\n",
                         "register_downloads: it registered ['x'], not a Download", {}),
    "register_commands raises": ("@hookimpl\ndef register_commands(cli):\n    raise ValueError('no')\n",
                                 "register_commands: ValueError: no", {}),
    "a command that is no command": ("@hookimpl\ndef register_commands(cli):\n    cli.commands['junk'] = 5\n",
                                     "register_commands: it added 5 as command 'junk'", {}),
    "to_graph returns a str": ("@hookimpl(tryfirst=True)\ndef to_graph(obj):\n    return 'not a graph'\n",
                               "to_graph: it returned a str, not a semsim Graph", {}),
    # #56: garbage that isinstance takes for a Graph was scored, or blamed on the reader
    "to_graph returns a Graph with no fields": ("@hookimpl(tryfirst=True)\ndef to_graph(obj):\n"
                                                "    from semsim import Graph\n    return object.__new__(Graph)\n",
                                                "to_graph: it returned a Graph semsim cannot use (AttributeError", {}),
    "to_graph returns a Graph subclass": ("from semsim import Graph\nclass Fake(Graph):\n    pass\n"
                                          "@hookimpl(tryfirst=True)\ndef to_graph(obj):\n"
                                          "    return object.__new__(Fake)\n",
                                          "to_graph: it returned a Fake, not a semsim Graph", {}),
    "to_graph returns what says it is a Graph": ("from semsim import Graph\nclass Liar:\n"
                                                 "    __class__ = property(lambda self: Graph)\n"
                                                 "@hookimpl(tryfirst=True)\ndef to_graph(obj):\n    return Liar()\n",
                                                 "to_graph: it returned a Liar, not a semsim Graph", {}),
    "to_graph raises": ("@hookimpl(tryfirst=True)\ndef to_graph(obj):\n    raise ZeroDivisionError('x')\n",
                        "to_graph: ZeroDivisionError: x", {}),
    "a reader that raises": ("def read(path):\n    raise IndexError('bad reader')\n    yield\n"
                             "@hookimpl\ndef register_readers(register):\n"
                             "    register(Reader('bad', ('.bad',), read, None, 'x'))\n",
                             "reader 'bad' (reading", {}),
    "an encoder giving NaN": ("import numpy as np\n@hookimpl\ndef register_word_encoders(register):\n"
                              "    register(WordEncoder('nan', lambda: (lambda w: np.full((len(w), 3), np.nan)), "
                              "lambda: 'nan@1', 'toy', 'x'))\n",
                              "gave a vector that is not finite", {"SEMSIM_WORD_ENCODER": "nan"}),
    "an encoder giving too many vectors": ("import numpy as np\n@hookimpl\ndef register_word_encoders(register):\n"
                                           "    register(WordEncoder('many', lambda: (lambda w: np.ones((len(w) + 1,"
                                           " 3))), lambda: 'many@1', 'toy', 'x'))\n",
                                           "gave vectors of shape", {"SEMSIM_WORD_ENCODER": "many"}),
    "an encoder giving words": ("@hookimpl\ndef register_word_encoders(register):\n"
                                "    register(WordEncoder('words', lambda: (lambda w: [['a'] for _ in w]), "
                                "lambda: 'words@1', 'toy', 'x'))\n",
                                "raised ValueError on 'the Big dog barks'", {"SEMSIM_WORD_ENCODER": "words"}),
    "an encoder that cannot load": ("@hookimpl\ndef register_word_encoders(register):\n"
                                    "    register(WordEncoder('noload', lambda: 1 / 0, lambda: 'x@1', 'toy', 'x'))\n",
                                    "its word encoder 'noload': ZeroDivisionError",
                                    {"SEMSIM_WORD_ENCODER": "noload"}),
    "a judge that raises": ("@hookimpl\ndef register_paraphrase_judges(register):\n"
                            "    def judge(queries):\n        raise RuntimeError('judge down')\n"
                            "    register(ParaphraseJudge('down', lambda: judge, lambda: 'down@1', 'toy', 'x'))\n",
                            "its paraphrase judge 'down': raised RuntimeError: judge down",
                            {"SEMSIM_PARAPHRASE_JUDGE": "down"}),
    "a judge answering garbage": ("@hookimpl\ndef register_paraphrase_judges(register):\n"
                                  "    register(ParaphraseJudge('junk', lambda: (lambda q: ['yes'] * len(q)), "
                                  "lambda: 'junk@1', 'toy', 'x'))\n",
                                  "its paraphrase judge 'junk': answered 'yes', not a Verdict",
                                  {"SEMSIM_PARAPHRASE_JUDGE": "junk"}),
    "a judge answering None": ("@hookimpl\ndef register_paraphrase_judges(register):\n"  # #56: AttributeError
                               "    register(ParaphraseJudge('nones', lambda: (lambda q: [None] * len(q)), "
                               "lambda: 'nones@1', 'toy', 'x'))\n",
                               "its paraphrase judge 'nones': answered None, not a Verdict",
                               {"SEMSIM_PARAPHRASE_JUDGE": "nones"}),
}


def _command(case: str, d) -> list[str]:
    """A command that reaches the faulty hook: scoring two toy graphs (with the token
    alignment that asks the encoder or the judge), or reading a .bad file."""
    a, b = d / "a.toy", d / "b.toy"
    a.write_text(json.dumps({"words": ["the", "Big", "dog", "barks"], "labels": ["Small", "Big", "Small", "Small"]})
                 + "\n")
    b.write_text(json.dumps({"words": ["the", "Large", "cat", "barks"], "labels": ["Small", "Big", "Small", "Small"]})
                 + "\n")
    if "reader" in case and "registered" not in case:
        (d / "x.bad").write_text("x\n")
        return ["usim", str(d / "x.bad"), str(d / "x.bad")]
    if "parser" in case:
        return ["plugins"]
    if "download" in case:
        return ["models", "list"]
    if "scheme" in case:
        return ["explain", str(a), str(b), "--html", str(d / "x.html")]
    if "command" in case:
        return ["not-a-builtin"]  # a name no built-in command has: the plugins' commands are added
    tokens = ["--tokens", "contextual"] if "encoder" in case else ["--tokens", "paraphrase"] if "judge" in case else []
    return ["usim", str(a), str(b), *tokens]


@pytest.mark.parametrize("case", list(FAULTS))
def test_a_faulty_plugin_is_one_line_naming_it_and_the_hook(case, tmp_path, monkeypatch):
    code, says, env = FAULTS[case]
    bad = tmp_path / "bad_plugin.py"
    bad.write_text(HEAD + code)
    monkeypatch.setenv("SEMSIM_LOAD_PLUGINS", "")
    monkeypatch.setenv("SEMSIM_PLUGINS", f"{TOY},{bad}")
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    plugins.reset_plugin_manager()
    from semsim.app.cli import cli
    monkeypatch.setattr(cli, "_plugin_commands_added", False)  # this process's group adds them once
    try:
        r = run_cli(*_command(case, tmp_path), catch_exceptions=False)
    finally:
        plugins.reset_plugin_manager()
    assert r.exit_code == 1, (r.exit_code, r.output)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert lines[0].startswith(f"Error: plugin {str(bad)!r} failed in ") and says in lines[0], lines[0]


def test_the_traceback_is_behind_semsim_debug(tmp_path):
    bad = tmp_path / "bad_plugin.py"
    bad.write_text(HEAD + FAULTS["register_readers raises"][0])
    env = {"SEMSIM_LOAD_PLUGINS": "", "SEMSIM_PLUGINS": f"{TOY},{bad}"}
    a = tmp_path / "a.toy"
    a.write_text(json.dumps({"words": ["a"], "labels": ["Small"]}) + "\n")
    quiet = run_semsim("usim", a, a, env=env)
    loud = run_semsim("usim", a, a, env={**env, "SEMSIM_DEBUG": "1"})
    assert quiet.returncode == loud.returncode == 1
    assert "Traceback" not in quiet.stderr and len(quiet.stderr.strip().splitlines()) == 1
    assert "Traceback" in loud.stderr and "KeyError: 'oops'" in loud.stderr and str(bad) in loud.stderr
    assert loud.stderr.strip().splitlines()[-1] == quiet.stderr.strip()


@pytest.mark.slow
def test_a_plugin_raising_at_import_is_named_under_jobs_2(tmp_path):
    bad = tmp_path / "bad_plugin.py"
    bad.write_text(HEAD + FAULTS["raises at import"][0])
    src = tmp_path / "s.txt"
    src.write_text("a b .\nc d .\n")
    r = run_semsim("score", "--source", src, "--hyp", src, "--parser", "toy-parser", "--jobs", "2", "--no-cache",
                   "-q", env={"SEMSIM_LOAD_PLUGINS": "", "SEMSIM_PLUGINS": f"{TOY},{bad}"}, timeout=120)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.strip() == (f"Error: plugin {str(bad)!r} failed in its import: RuntimeError: broken at import "
                                "(SEMSIM_DEBUG=1 shows the traceback)")


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["plugins"]])
@pytest.mark.parametrize("case", ["raises at import", "a dict registered as a parser"])
def test_a_faulty_plugin_is_one_line_before_any_command_runs_too(case, args, tmp_path, monkeypatch):
    """--version and --help (which list the plugins' parsers and commands) run before any
    command: the same one line, not a traceback."""
    code, says, _ = FAULTS[case]
    bad = tmp_path / "bad_plugin.py"
    bad.write_text(HEAD + code)
    monkeypatch.setenv("SEMSIM_LOAD_PLUGINS", "")
    monkeypatch.setenv("SEMSIM_PLUGINS", f"{TOY},{bad}")
    plugins.reset_plugin_manager()
    from semsim.app.cli import cli
    monkeypatch.setattr(cli, "_plugin_commands_added", False)
    try:
        r = run_cli(*args, catch_exceptions=False)
    finally:
        plugins.reset_plugin_manager()
    if case == "a dict registered as a parser" and args == ["--help"]:
        assert r.exit_code == 0  # --help lists commands: no parser is asked for
        return
    assert r.exit_code == 1 and "Traceback" not in r.stderr, (r.exit_code, r.output)
    assert r.stderr.strip().splitlines()[-1].startswith(f"Error: plugin {str(bad)!r} failed in ") \
        and says in r.stderr, r.stderr


def _score_with(plugin: Path, parser: str, src: Path, hyp: Path, monkeypatch: pytest.MonkeyPatch):
    """``semsim score`` of ``src`` and ``hyp`` with ``parser``, the plugin file ``plugin``
    loaded beside the toy plugin."""
    monkeypatch.setenv("SEMSIM_LOAD_PLUGINS", "")
    monkeypatch.setenv("SEMSIM_PLUGINS", f"{TOY},{plugin}")
    plugins.reset_plugin_manager()
    try:
        return run_cli("score", "--source", src, "--hyp", hyp, "--parser", parser, "--no-cache", "-q",
                       "--bootstrap", "0", catch_exceptions=False)
    finally:
        plugins.reset_plugin_manager()


RETOKENIZING = (HEAD + "from semsim import Unit, build_graph\n"
                "def parse(texts, model=None):\n"
                "    out = []\n"
                "    for text in texts:\n"
                "        words = text.replace(\"n't\", \" n't\").split()  # its own tokenizer, as spaCy's would\n"
                "        units = [Unit('0', 'root'), *(Unit(str(k + 1), 'w', anchors=(k,))\n"
                "                                      for k in range(len(words)))]\n"
                "        out.append(build_graph(words, units, [(0, k + 1, 'A') for k in range(len(words))]))\n"
                "    return out\n"
                "@hookimpl\ndef register_parsers(register):\n"
                "    register(Parser('splitter', 'plain', parse, 'x', model_identity=lambda m: 'm1', "
                "own_tokens={flag}))\n")


@pytest.mark.parametrize("flag", [False, True])
def test_a_parser_that_re_tokenizes_is_refused_unless_it_says_so(flag, tmp_path, monkeypatch):
    """#56 (left by #45): graphs whose tokens are not the text's words were scored as if they
    were (1.0 for "can't" against itself, each side split the same way); a parser declares
    that it tokenizes on its own (Parser(own_tokens=True)) or its sentence is refused,
    naming it."""
    bad = tmp_path / "splitter.py"
    bad.write_text(RETOKENIZING.format(flag=flag))
    src, hyp = tmp_path / "s.txt", tmp_path / "h.txt"
    src.write_text("I can't go .\nwe go .\n")
    hyp.write_text("I can't go .\nwe went .\n")
    r = _score_with(bad, "splitter", src, hyp, monkeypatch)
    if flag:
        assert r.exit_code == 0, r.output
        return
    assert r.exit_code == 1, r.output
    assert (f"parser 'splitter' (plugin {str(bad)!r}) re-tokenized \"I can't go .\": its graph's tokens "
            "\"I ca n't go .\" are not the text's words") in r.stderr, r.stderr
    assert "we go ." not in r.stderr  # the sentences it kept whole are scored


@pytest.mark.parametrize("answer,says", [
    ("model_name=lambda m: 5", "failed in model_name of parser 'named': it returned 5, not a str or Signature"),
    ("model_name=lambda m: 1 / 0", "failed in model_name of parser 'named': ZeroDivisionError: division by zero"),
    ("model_identity=lambda m: None", "failed in model_identity of parser 'named': it returned None, not a str"),
    ("model_identity=lambda m: {}['x']", "failed in model_identity of parser 'named': KeyError: 'x'"),
])
def test_a_parser_s_answers_about_its_model_are_checked_naming_the_plugin(answer, says, tmp_path, monkeypatch):
    """#56: a model_name that is an int or raises was a traceback naming no plugin."""
    bad = tmp_path / "named.py"
    bad.write_text(HEAD + "import toy_plugin\n@hookimpl\ndef register_parsers(register):\n"
                   f"    register(Parser('named', 'toy', toy_plugin.toy_parse, 'x', {answer}))\n")
    src = tmp_path / "s.txt"
    src.write_text("Big dogs bark .\n")
    monkeypatch.syspath_prepend(str(Path(TOY).parent))
    r = _score_with(bad, "named", src, src, monkeypatch)
    assert r.exit_code == 1, r.output
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith(f"Error: plugin {str(bad)!r} ") and says in line, line
