"""A golden set: every command, output format and Python API call on the built-in examples,
each output in a file, so that two checkouts can be compared byte for byte (issue #48's refactor
must change none of them; #36 did the same by hand).

    python scripts/golden.py CHECKOUT OUTDIR [--python PY] [--shared DIR | --no-shared]
    python scripts/golden.py --compare DIR_A DIR_B

The first form runs CHECKOUT's semsim (``PYTHONPATH=CHECKOUT:CHECKOUT/plugins/ucca:...``, so the
plugins' entry points are those installed, their code CHECKOUT's) as ``PY -m semsim ...`` and
as Python snippets, one subprocess per case, in a fresh run directory holding a copy of
CHECKOUT's ``examples/`` and inputs made from them (paths in outputs are therefore relative and
the same for every checkout), with a parse cache of its own (``SEMSIM_CACHE_DIR``), so no parse
leaks between checkouts or runs. Per case it writes ``NAME.out`` (stdout), ``NAME.err``
(stderr), every file the case wrote (``NAME.FILE``) and its line in ``MANIFEST`` (exit status
and command). The cache the run filled is dumped last (``cache.dump``: every row's parser,
model key, text and graph, and whether its key is still the sha256 of today's recipe).

With ``../shared`` (the checkout's sibling, or ``--shared``) two cases more: a 40-line, 5-system
SEEDA subset scored with two processes, and meta-eval on 30 rows of TMU-GFM dev.

Normalised, and only this, since it varies legitimately between runs or checkouts:

* the run directory's and the checkout's absolute paths (``<RUN>``, ``<CHECKOUT>``);
* ``+src.HASH``, the hash of an editable plugin's sources in the parse cache's model keys
  (by design every edit of a plugin changes it), as ``+src.<HASH>``; in ``cache.dump`` the
  rows' keys are therefore not written, only whether each is the recipe's hash;
* the cache rows' ``created`` time (not dumped).

Progress bars are off (``-q``); nothing in the outputs is timed. The second form compares two
output directories, prints every file present in one only or differing (with the first lines
of a diff) and exits 1 if there is any; run the first form twice on one checkout to see that
the set is deterministic.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

PLUGINS = ("ucca", "amr", "sdp")
FIG1 = ("examples/fig1-source.xml", "examples/fig1-correction.xml")
AMR = ("examples/fig1-source.amr", "examples/fig1-correction.amr")
TEXT = ("--source", "examples/source.txt", "--hyp", "examples/system.txt",
        "--hyp", "examples/system-conservative.txt")
FAST = ("--bootstrap", "200", "--paired-trials", "200")  # fewer resamples: the same code, less time


@dataclass
class Case:
    """One command: ``semsim ARGS`` (or, with ``python``, a snippet run by the interpreter);
    ``files`` are the paths (relative to the run directory) it writes, kept as ``NAME.FILE``."""

    name: str
    args: tuple[str, ...] = ()
    python: str | None = None
    module: str = "semsim"
    files: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)


# -- the cases ------------------------------------------------------------------------------

def graph_cases() -> list[Case]:
    """Commands on graph files (no parser)."""
    cases = []
    for fmt in ("text", "json", "jsonl", "tsv"):
        cases.append(Case(f"usim-fig1-{fmt}", ("usim", *FIG1, "--format", fmt)))
        cases.append(Case(f"dagf-{fmt}", ("dagf", "examples/fig1-source.annotator2.xml", FIG1[0], "--format", fmt)))
        cases.append(Case(f"usim-lists-{fmt}", ("usim", "@data/sources.list", "@data/corrections.list",
                                                "--format", fmt, "--bootstrap", "200")))
        cases.append(Case(f"compare-pairs-{fmt}", ("compare", "--pairs", "ucca", *FIG1, "--pairs", "amr", *AMR,
                                                   "--format", fmt, "--bootstrap", "200")))
    cases += [
        Case("usim-fig1-score-only", ("usim", *FIG1, "-b")),
        Case("usim-fig1-legacy", ("usim", *FIG1, "--variant", "legacy", "--format", "json")),
        Case("usim-fig1-legacy-no-single", ("usim", *FIG1, "--variant", "legacy", "--no-single-token-units")),
        Case("usim-fig1-settings", ("usim", *FIG1, "--direction", "s->r", "--tie-break", "all", "--labels", "weak",
                                    "--no-remote", "--align", "passage", "--denominator", "aligned",
                                    "--edge-weights", "height", "--leaves", "3", "--format", "json")),
        Case("usim-fig1-lexical-scheme", ("usim", *FIG1, "--tokens", "ordered", "--edge-weights", "scheme",
                                          "--format", "tsv")),
        Case("usim-fig1-paraphrase", ("usim", *FIG1, "--tokens", "paraphrase", "--leaves", "2", "--format", "json")),
        Case("usim-fig1-meaning", ("usim", *FIG1, "--preset", "meaning", "--format", "json")),
        Case("usim-lists-output", ("usim", "@data/sources.list", "@data/corrections.list", "--format", "jsonl",
                                   "-o", "usim.jsonl", "--bootstrap", "100"), files=("usim.jsonl",)),
        Case("usim-dirs", ("usim", "data/src", "data/cor", "--format", "json")),
        Case("usim-amr", ("usim", *AMR, "--format", "json")),
        Case("usim-amr-legacy", ("usim", *AMR, "--variant", "legacy")),
        Case("dagf-weak-edges", ("dagf", "examples/fig1-source.annotator2.xml", FIG1[0], "--labels", "weak",
                                 "--count", "edges", "--format", "json")),
        Case("dagf-unlabeled-b", ("dagf", "examples/fig1-source.annotator2.xml", FIG1[0], "--labels", "unlabeled",
                                  "-b")),
        Case("distsim-text", ("distsim", *FIG1)),
        Case("distsim-json", ("distsim", *FIG1, "--format", "json")),
        Case("distsim-by-sentence", ("distsim", "@data/sources.list", "@data/corrections.list", "--by-sentence",
                                     "--label", "A", "--label", "P", "--format", "json")),
        Case("explain-fig1", ("explain", *FIG1, "--json", "fig1.json", "--html", "fig1.html"),
             files=("fig1.json", "fig1.html")),
        Case("explain-fig1-legacy", ("explain", *FIG1, "--variant", "legacy", "--json", "legacy.json"),
             files=("legacy.json",)),
        Case("explain-fig1-r-s", ("explain", *FIG1, "--direction", "r->s", "--labels", "weak")),
        Case("explain-amr", ("explain", *AMR, "--json", "amr.json", "--html", "amr.html"),
             files=("amr.json", "amr.html")),
        Case("plugins", ("plugins",)),
        Case("version", ("--version",)),
        Case("models-list", ("models", "list")),
    ]
    for fw in ("dm", "psd", "eds"):
        cases.append(Case(f"usim-{fw}", ("usim", f"data/{fw}-1.mrp", f"data/{fw}-2.mrp", "--format", "json")))
        cases.append(Case(f"dagf-{fw}", ("dagf", f"data/{fw}-1.mrp", f"data/{fw}-2.mrp")))
    # the SDP plugin's metrics (sdp-dm, sdp-psd, edm) beside USim
    cases.append(Case("compare-sdp", ("compare", *(a for fw in ("dm", "psd", "eds") for a in (
        "--pairs", fw, f"data/{fw}-1.mrp", f"data/{fw}-2.mrp")), "--format", "json", "--bootstrap", "0")))
    return cases


def text_cases() -> list[Case]:
    """Commands from plain text, parsed by the default parser (semsim's UCCA span parser)."""
    cases = [Case(f"score-{fmt}", ("score", *TEXT, *FAST, "--format", fmt, "-q"))
             for fmt in ("text", "markdown", "json", "tsv")]
    cases += [
        Case("score-output", ("score", *TEXT, "--ref", "examples/system-conservative.txt", *FAST, "-o", "lines.jsonl",
                              "--worst", "3", "-q"), files=("lines.jsonl",)),
        Case("score-again-warm-cache", ("score", *TEXT, *FAST, "--format", "json", "-q")),
        Case("score-score-only", ("score", *TEXT, "-b", "-q")),
        Case("score-named-bs", ("score", "--source", "examples/source.txt", "--hyp", "BART=examples/system.txt",
                                "--hyp", "T5=examples/system-conservative.txt", "--paired", "bs", *FAST, "-q")),
        Case("score-paired-none", ("score", *TEXT, "--paired", "none", "--bootstrap", "0", "--format", "json", "-q")),
        Case("score-legacy", ("score", *TEXT, "--variant", "legacy", *FAST, "--format", "json", "-q")),
        Case("score-meaning", ("score", *TEXT, "--preset", "meaning", *FAST, "-o", "meaning.jsonl", "-q"),
             files=("meaning.jsonl",)),
        Case("score-jobs2-no-cache", ("score", *TEXT, "--jobs", "2", "--no-cache", *FAST, "-o", "jobs2.jsonl", "-q"),
             files=("jobs2.jsonl",)),
        Case("score-cache-file", ("score", *TEXT, "--cache", "own-cache.sqlite3", "--batch-size", "2", *FAST,
                                  "--format", "json", "-q")),
        # empty lines (the convention), and a line over the parser's bound (reported, skipped)
        Case("score-empty-and-too-long", ("score", "--source", "data/edge-src.txt", "--hyp", "data/edge-hyp.txt",
                                          *FAST, "-o", "edge.jsonl", "--format", "json"),
             files=("edge.jsonl",), env={"SEMSIM_MAX_SENTENCE_TOKENS": "12"}),
        Case("score-spacy", ("score", "--source", "data/raw-src.txt", "--hyp", "data/raw-hyp.txt", "--tokenize",
                             "spacy", *FAST, "--format", "json", "-q")),
        Case("score-untokenized-note", ("score", "--source", "data/raw-src.txt", "--hyp", "data/raw-hyp.txt",
                                        "--bootstrap", "0", "--paired", "none")),
        Case("explain-line", ("explain", *TEXT[:4], "--line", "2", "--json", "line2.json", "--html", "line2.html",
                              "-q"), files=("line2.json", "line2.html")),
        Case("explain-line-text", ("explain", *TEXT[:4], "--line", "1", "--preset", "meaning", "-q")),
        Case("parse-mrp", ("parse", "examples/source.txt", "examples/system.txt", "-q")),
        Case("parse-mrp-file-jobs2", ("parse", "examples/source.txt", "--jobs", "2", "--no-cache", "-o", "p.mrp",
                                      "-q"), files=("p.mrp",)),
        Case("parse-xml-passage", ("parse", "examples/source.txt", "--format", "xml", "--passage", "-o", "xml",
                                   "-q"), files=("xml/source.xml",)),
        Case("parse-xml", ("parse", "examples/system.txt", "--format", "xml", "-o", "xmls", "-q"),
             files=tuple(f"xmls/system.{i}.xml" for i in range(1, 6))),
        Case("parse-spacy", ("parse", "data/raw-src.txt", "--tokenize", "spacy", "-q")),
        Case("compare-text", ("compare", *TEXT[:4], "--parser", "ucca-span", "--format", "json", "--bootstrap", "100",
                              "-q")),
        Case("sensitivity", ("sensitivity", "examples/sensitivity.m2", "--bootstrap", "100", "-o", "edits.jsonl",
                             "-q"), files=("edits.jsonl",)),
        Case("sensitivity-json-original", ("sensitivity", "examples/sensitivity.m2", "--anchor", "original",
                                           "--annotator", "0", "--bootstrap", "0", "--format", "json", "-q")),
        Case("sensitivity-tsv", ("sensitivity", "examples/sensitivity.m2", "--bootstrap", "0", "--format", "tsv",
                                 "-q")),
        Case("sensitivity-jsonl", ("sensitivity", "examples/sensitivity.m2", "--bootstrap", "0", "--format", "jsonl",
                                   "-q")),
        Case("ucca-evaluate", ("ucca", "evaluate", FIG1[0], FIG1[1], "-q")),
        Case("ucca-evaluate-json", ("ucca", "evaluate", FIG1[0], "--format", "json", "-q")),
        Case("cache-info", ("cache", "info")),
        Case("cache-info-json", ("cache", "info", "--format", "json")),
    ]
    # meta-eval imports gec-metrics (and torch), ~6 s of CPU a run: the measures once, the formats once each
    measures = ("--measure", "paper", "--measure", "legacy", "--measure", "para:tokens=paraphrase,leaves=2",
                "--measure", "meaning:preset=meaning", "--measure", "levenshtein", "--measure", "chrf")
    cases += [
        Case("meta-eval-json", ("meta-eval", "data/ratings.tsv", *measures, "--keep-unchanged", "--bootstrap", "100",
                                "--format", "json", "--per-sentence", "pairs.jsonl", "-q"), files=("pairs.jsonl",)),
        Case("meta-eval-markdown", ("meta-eval", "data/ratings.tsv", "--measure", "paper", "--measure",
                                         "levenshtein", "--bootstrap", "50", "--format", "markdown", "-o",
                                         "table.md", "-q"), files=("table.md",)),
        Case("meta-eval-tsv", ("meta-eval", "data/ratings.tsv", "--measure", "paper", "--measure",
                                            "chrf", "--bootstrap", "50", "--confidence", "0.9", "--format", "tsv")),
        Case("meta-eval-text", ("meta-eval", "data/ratings.tsv", "--measure", "levenshtein", "--bootstrap", "50",
                                "-q")),
    ]
    for fmt in ("text", "json", "jsonl", "tsv"):
        cases.append(Case(f"conservatism-{fmt}", ("conservatism", *TEXT, "--ref", "examples/system-conservative.txt",
                                                  "--format", fmt, "-q")))
    cases.append(Case("conservatism-ignore-case-spacy", ("conservatism", "--source", "data/raw-src.txt", "--hyp",
                                                         "data/raw-hyp.txt", "--tokenize", "spacy", "--ignore-case",
                                                         "-q")))
    return cases


# Python snippets: what a user of the library sees (reprs are dataclass reprs: every field).
API_GRAPHS = """
import semsim
src, cor = semsim.read("examples/fig1-source.xml"), semsim.read("examples/fig1-correction.xml")
ann = semsim.read("examples/fig1-source.annotator2.xml")
print(repr(semsim.usim(src, cor)))
print(repr(semsim.usim(src, cor, variant="legacy")))
print(repr(semsim.usim("examples/fig1-source.amr", "examples/fig1-correction.amr")))
print(repr(semsim.dag_f(ann, src)))
print(repr(semsim.dag_f(ann, src, labels="weak", count="edges")))
d = semsim.distsim([(src, cor), (ann, cor)])
print(repr(d), repr(d.signature))
print(repr(semsim.distsim([(src, cor)], labels=["A"], by_sentence=True)))
m = semsim.USim(variant="paper", labels="weak")
print(repr(m), m.settings(), m.part_names(), repr(m.get_signature("ucca")))
print(repr(m.corpus_score(zip([src, ann], [cor, cor]), n_bootstrap=200)))
print(repr(semsim.USim(preset="meaning").corpus_score([src, ann], [cor, cor])))
print(repr(semsim.USim(tokens="paraphrase", leaves=2).sentence_score(src, cor)))
print([repr(g.id) for g in semsim.read_all("examples/fig1-source.amr")])
"""

API_TEXT = """
import json, semsim, warnings
from semsim.api import parse
from semsim.app.explain import explain, summary
sources = [l.rstrip("\\n") for l in open("examples/source.txt", encoding="utf-8")]
outputs = [l.rstrip("\\n") for l in open("examples/system.txt", encoding="utf-8")]
for s in semsim.USim().text_scores(sources, outputs):
    print(repr(s))
for s in semsim.USim(variant="legacy").text_scores(sources + [""], outputs + [""]):
    print(repr(s))
for s in semsim.USim(preset="meaning").text_scores(sources[:2], outputs[:2]):
    print(repr(s))
raw = semsim.USim().text_scores(["He gva an apple for John."], ["He gave John an apple."], tokenize="spacy")
print(repr(raw[0]))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    semsim.USim().text_scores(["He gva an apple for John."], ["He gave John an apple."])
print([str(w.message) for w in caught])
parses = parse(sources + outputs)
print(repr(parses.signature), repr(parses.representation), sorted(parses.failed))
graphs = {}
for text in sources + outputs:
    g = parses.get(text)
    graphs[text] = {"id": g.id, "scheme": g.scheme.name, "root": g.root, "sentence_ends": list(g.sentence_ends),
                    "tokens": [[t.text, t.punct, t.paragraph, t.para_pos] for t in g.tokens],
                    "units": [[u.id, u.kind, list(u.anchors), u.implicit, u.label] for u in g.units],
                    "edges": [[e.parent, e.child, list(e.labels), e.remote] for e in g.edges],
                    "meta": repr(dict(g.meta))}
with open("graphs.json", "w", encoding="utf-8") as f:
    json.dump(graphs, f, indent=1, ensure_ascii=False)
print(summary(explain(parses.get(sources[0]), parses.get(outputs[0]))))
spacy = parse(["He gva an apple for John."], tokenize="spacy", cache=False)
print(repr(spacy.signature), spacy.tokenized(["He gva an apple for John."]))
"""

API_METRIC = """
from semsim.app.metric import USimMetric
sources = [l.rstrip("\\n") for l in open("examples/source.txt", encoding="utf-8")]
a = [l.rstrip("\\n") for l in open("examples/system.txt", encoding="utf-8")]
b = [l.rstrip("\\n") for l in open("examples/system-conservative.txt", encoding="utf-8")]
m = USimMetric()
print(repr(m.get_signature()))
print(m.score_sentence(sources, a))
print(m.score_corpus(sources, b))
print(m.rank_systems(sources, [a, b]))
print(m.score_pairwise(sources, [a, b]))
for row in m.sentence_scores(sources, [a, b]):
    print([repr(s) for s in row])
w = USimMetric(USimMetric.Config(labels="weak", leaves=2, tokenize="spacy"))
print(repr(w.get_signature()), w.score_sentence(["He gva an apple for John."], ["He gave John an apple."]))
print(repr(USimMetric.Config()))
"""

API_HF = """
import contextlib, io, json, sys
import semsim.app.hf
sources = [l.rstrip("\\n") for l in open("examples/source.txt", encoding="utf-8")]
outputs = [l.rstrip("\\n") for l in open("examples/system.txt", encoding="utf-8")]
print(json.dumps(semsim.app.hf.compute(sources, outputs, {}), sort_keys=True))
meaning = semsim.app.hf.resolve_settings("meaning", {})
print(json.dumps(semsim.app.hf.compute(sources, outputs, meaning), sort_keys=True))
import evaluate
usim = evaluate.load(semsim.app.hf.module_path(), labels="weak")
print(json.dumps(usim.compute(sources=sources, predictions=outputs), sort_keys=True))
# semsim-gecmetrics-eval (gec-metrics' own command with usim registered), in this process:
# gec-metrics is imported once for the three
from semsim.app.gec.cli import gecmetrics_eval
sys.argv = ["semsim-gecmetrics-eval", "--src", "examples/source.txt", "--hyps", "examples/system.txt",
            "examples/system-conservative.txt", "--metric", "usim", "--config", "data/usim.yaml"]
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        gecmetrics_eval()
    except SystemExit as exc:
        print("exit", exc.code)
print("semsim-gecmetrics-eval:", out.getvalue())
"""

API_METAEVAL = """
from semsim.app.metaeval import read_judgments
js = read_judgments("data/ratings.tsv")
print([repr(j) for j in js])
"""


def api_cases() -> list[Case]:
    return [Case("api-graphs", python=API_GRAPHS),
            Case("api-text", python=API_TEXT, files=("graphs.json",)),
            # USimMetric, the Hugging Face module and semsim-gecmetrics-eval: each imports torch
            Case("api-usimmetric-hf-gecmetrics", python=API_METRIC + API_HF),
            Case("api-metaeval-read", python=API_METAEVAL)]


def shared_cases() -> list[Case]:
    return [Case("seeda-subset-jobs2", ("score", "--source", "data/seeda/INPUT.txt",
                                        *(a for s in SEEDA_SYSTEMS for a in ("--hyp", f"data/seeda/{s}.txt")),
                                        "--jobs", "2", "--bootstrap", "200", "--paired-trials", "500",
                                        "--format", "json", "-o", "seeda.jsonl", "-q"), files=("seeda.jsonl",)),
            Case("tmu-gfm-subset", ("meta-eval", "data/tmu-gfm.csv", "--tokenize", "spacy", "--measure", "paper",
                                    "--measure", "levenshtein", "--bootstrap", "100", "--format", "json", "-q"))]


SEEDA_SYSTEMS = ("BART", "GECToR-BERT", "GPT-3.5", "PIE", "REF-F")


# -- inputs ---------------------------------------------------------------------------------

def make_inputs(checkout: Path, run: Path, shared: Path | None) -> None:
    """The run directory's inputs: CHECKOUT's examples, and files made from them."""
    shutil.copytree(checkout / "examples", run / "examples")
    data = run / "data"
    data.mkdir()
    for line in (checkout / "plugins/sdp/tests/data/sample.mrp").read_text(encoding="utf-8").splitlines():
        g = json.loads(line)
        (data / f"{g['framework']}-{g['id']}.mrp").write_text(line + "\n", encoding="utf-8")
    (data / "sources.list").write_text("../examples/fig1-source.xml\n../examples/fig1-source.annotator2.xml\n")
    (data / "corrections.list").write_text("../examples/fig1-correction.xml\n../examples/fig1-correction.xml\n")
    for side, name in (("src", "fig1-source"), ("cor", "fig1-correction")):
        (data / side).mkdir()
        for suffix in (".xml", ".amr"):
            shutil.copy(run / "examples" / f"{name}{suffix}", data / side / f"fig1{suffix}")
    src = (run / "examples/source.txt").read_text(encoding="utf-8").splitlines()
    hyp = (run / "examples/system.txt").read_text(encoding="utf-8").splitlines()
    long = "this line is much longer than twelve tokens , so the parser bound refuses it ."
    (data / "edge-src.txt").write_text("\n".join([src[0], "", "", long, src[1]]) + "\n", encoding="utf-8")
    (data / "edge-hyp.txt").write_text("\n".join([hyp[0], "", "Something .", hyp[1], hyp[1]]) + "\n",
                                       encoding="utf-8")
    (data / "raw-src.txt").write_text("He gva an apple for John.\nShe didn't knew what to do, when it rained.\n",
                                      encoding="utf-8")
    (data / "raw-hyp.txt").write_text("He gave John an apple.\nShe didn't know what to do when it rained!\n",
                                      encoding="utf-8")
    conservative = (run / "examples/system-conservative.txt").read_text(encoding="utf-8").splitlines()
    rows = [f"{s}\t{o}\t{(3 * i + 2 * k) % 5 + 1}\t{(i + k) % 4 + 1}"
            for i, s in enumerate(src) for k, o in enumerate((hyp[i], conservative[i]))]
    (data / "ratings.tsv").write_text("source\toutput\tscore\tscore2\n" + "\n".join(rows) + "\n", encoding="utf-8")
    (data / "usim.yaml").write_text("usim:\n  labels: weak\n  use_cache: true\n", encoding="utf-8")
    if shared is not None:
        seeda = shared / "data/seeda/outputs/all"
        (data / "seeda").mkdir()
        for name in ("INPUT", *SEEDA_SYSTEMS):
            lines = (seeda / f"{name}.txt").read_text(encoding="utf-8").splitlines()[:40]
            (data / "seeda" / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        tmu = (shared / "data/tmu-gfm-dev/tmu-gfm-dev.csv").read_text(encoding="utf-8").splitlines(keepends=True)
        import csv
        import io
        rows = list(csv.reader(io.StringIO("".join(tmu))))[:31]
        with open(data / "tmu-gfm.csv", "w", encoding="utf-8", newline="") as f:
            csv.writer(f).writerows(rows)


# -- running --------------------------------------------------------------------------------

def normalise(text: str, run: Path, checkout: Path) -> str:
    for path, name in ((run, "<RUN>"), (checkout, "<CHECKOUT>")):
        text = text.replace(str(path.resolve()), name).replace(str(path), name)
    return re.sub(r"\+src\.[0-9a-f]{12}", "+src.<HASH>", text)


def write(out: Path, name: str, data: bytes, run: Path, checkout: Path) -> None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        (out / name).write_bytes(data)
        return
    (out / name).write_text(normalise(text, run, checkout), encoding="utf-8")


def run_case(case: Case, python: str, run: Path, checkout: Path, out: Path, env: dict[str, str]) -> str:
    if case.python is not None:
        argv = [python, "-c", case.python, *case.args]
    else:
        argv = [python, "-m", case.module, *case.args]
    r = subprocess.run(argv, cwd=run, env={**env, **case.env}, capture_output=True, timeout=600)
    write(out, f"{case.name}.out", r.stdout, run, checkout)
    write(out, f"{case.name}.err", r.stderr, run, checkout)
    for f in case.files:
        path = run / f
        data = path.read_bytes() if path.is_file() else b"<missing>\n"
        write(out, f"{case.name}.{f.replace('/', '_')}", data, run, checkout)
        if path.is_file():
            path.unlink()
    shown = ("python -c SNIPPET " if case.python is not None else f"python -m {case.module} ") + shlex.join(case.args)
    env_shown = " ".join(f"{k}={v}" for k, v in case.env.items())
    return f"{case.name}\trc={r.returncode}\t{env_shown + ' ' if env_shown else ''}{shown}"


def dump_cache(cache: Path) -> str:
    """Every cached parse, keys aside (they hash the plugin's source hash: see the module):
    whether the key is today's recipe, sha256 of representation, parser, model and text
    joined by U+001F, then the row without its time."""
    lines = []
    for db_path in sorted(cache.glob("*.sqlite3")):
        db = sqlite3.connect(db_path)
        rows = db.execute("SELECT key, representation, parser, model, text, native, graph, hits FROM parses "
                          "ORDER BY representation, parser, model, text").fetchall()
        db.close()
        lines.append(f"== {db_path.name}: {len(rows)} rows")
        for key, rep, parser, model, text, native, graph, hits in rows:
            recipe = hashlib.sha256("\x1f".join((rep, parser, model, text)).encode("utf-8")).hexdigest()
            lines.append(json.dumps({"key_is_recipe": key == recipe, "representation": rep, "parser": parser,
                                     "model": model, "text": text, "hits": hits, "native": native, "graph": graph},
                                    ensure_ascii=False))
    return "\n".join(lines) + "\n"


def golden(checkout: Path, out: Path, python: str, shared: Path | None) -> int:
    checkout = checkout.resolve()
    out.mkdir(parents=True, exist_ok=True)
    if any(out.iterdir()):
        raise SystemExit(f"{out} is not empty")
    with tempfile.TemporaryDirectory(prefix="semsim-golden-") as tmp:
        run = Path(tmp)
        make_inputs(checkout, run, shared)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(checkout), *(str(checkout / "plugins" / p)
                                                                            for p in PLUGINS)]),
               "SEMSIM_CACHE_DIR": str(run / "cache"), "HF_HOME": str(run / "hf"),
               "HF_HUB_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
               "NO_COLOR": "1", "COLUMNS": "120"}
        for name in ("CI", "SEMSIM_PLUGINS", "SEMSIM_LOAD_PLUGINS", "SEMSIM_THREADS"):
            env.pop(name, None)
        where = subprocess.run([python, "-c", "import semsim, semsim_ucca; print(semsim.__file__, "
                                "semsim_ucca.__file__)"], env=env, cwd=run, capture_output=True, text=True)
        if str(checkout) not in where.stdout:
            raise SystemExit(f"{python} does not import semsim from {checkout}: {where.stdout}{where.stderr}")
        cases = [*graph_cases(), *text_cases(), *api_cases(),
                 *(shared_cases() if shared is not None else [])]
        manifest, start = [], time.perf_counter()
        for case in cases:
            t = time.perf_counter()
            manifest.append(run_case(case, python, run, checkout, out, env))
            print(f"{time.perf_counter() - t:5.1f}s  {manifest[-1]}", file=sys.stderr)
        (out / "cache.dump").write_text(normalise(dump_cache(run / "cache"), run, checkout), encoding="utf-8")
        (out / "MANIFEST").write_text("\n".join(manifest) + "\n", encoding="utf-8")
    failed = [line for line in manifest if "\trc=0\t" not in line]
    print(f"{len(cases)} cases in {time.perf_counter() - start:.0f} s into {out}; non-zero exit (kept, as "
          f"outputs): {len(failed)}", file=sys.stderr)
    return 0


def compare(a: Path, b: Path) -> int:
    names_a = {p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file()}
    names_b = {p.relative_to(b).as_posix() for p in b.rglob("*") if p.is_file()}
    differ = 0
    for name in sorted(names_a ^ names_b):
        print(f"only in {a if name in names_a else b}: {name}")
        differ += 1
    for name in sorted(names_a & names_b):
        x, y = (a / name).read_bytes(), (b / name).read_bytes()
        if x == y:
            continue
        differ += 1
        print(f"differs: {name}")
        lines = difflib.unified_diff(x.decode("utf-8", "replace").splitlines(), y.decode("utf-8", "replace")
                                     .splitlines(), str(a / name), str(b / name), lineterm="", n=1)
        for k, line in enumerate(lines):
            if k == 20:
                print("    ...")
                break
            print("    " + line[:300])
    same = len(names_a & names_b) - sum(1 for n in names_a & names_b if (a / n).read_bytes() != (b / n).read_bytes())
    print(f"{same} files identical, {differ} differ or are missing")
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkout", nargs="?", type=Path)
    ap.add_argument("outdir", nargs="?", type=Path)
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("DIR_A", "DIR_B"))
    ap.add_argument("--python", default=sys.executable, help="the interpreter (default: this one)")
    ap.add_argument("--shared", type=Path, help="../shared (default: beside CHECKOUT, if it has data/)")
    ap.add_argument("--no-shared", action="store_true", help="leave out the cases that read ../shared")
    args = ap.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    if args.checkout is None or args.outdir is None:
        ap.error("give CHECKOUT and OUTDIR, or --compare DIR_A DIR_B")
    shared = None if args.no_shared else args.shared or args.checkout.resolve().parent / "shared"
    if shared is not None and not (shared / "data").is_dir():
        if args.shared:
            ap.error(f"--shared {shared} has no data/")
        shared = None
    return golden(args.checkout, args.outdir, args.python, shared)


if __name__ == "__main__":
    sys.exit(main())
