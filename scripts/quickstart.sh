#!/usr/bin/env bash
# One command on a fresh machine: set everything up, then score the built-in examples
# (the paper's Figure 1: "He gva an apple for john" -> "He gave John an apple").
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "== USim, paper definition (both directions, averaged)"
.venv/bin/semsim usim examples/fig1-source.xml examples/fig1-correction.xml
echo "== USim, as the authors' released code computes it"
.venv/bin/semsim usim examples/fig1-source.xml examples/fig1-correction.xml --variant legacy
echo "== Why: which edges matched, and why the others did not (--html page.html draws it)"
.venv/bin/semsim explain examples/fig1-source.xml examples/fig1-correction.xml
echo "== DAG F-score between two annotations of the source"
.venv/bin/semsim dagf examples/fig1-source.annotator2.xml examples/fig1-source.xml
echo "== USim on the same two sentences written as AMR"
.venv/bin/semsim usim examples/fig1-source.amr examples/fig1-correction.amr
