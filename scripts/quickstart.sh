#!/usr/bin/env bash
# One command on a fresh machine: set everything up, then score the built-in examples: plain
# text parsed by semsim's shipped UCCA parser, then the paper's Figure 1 as hand annotations
# ("He gva an apple for john" -> "He gave John an apple").
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "== USim of two systems' corrections from plain text, parsed by semsim's UCCA parser (shipped model)"
.venv/bin/semsim score --source examples/source.txt --hyp examples/system.txt --hyp examples/system-conservative.txt \
    --no-cache --paired-trials 1000
echo "== USim of Figure 1's hand annotations, paper definition (both directions, averaged)"
.venv/bin/semsim usim examples/fig1-source.xml examples/fig1-correction.xml
echo "== USim, as the authors' released code computes it"
.venv/bin/semsim usim examples/fig1-source.xml examples/fig1-correction.xml --variant legacy
echo "== Why: which edges matched, and why the others did not (--html page.html draws it)"
.venv/bin/semsim explain examples/fig1-source.xml examples/fig1-correction.xml
echo "== DAG F-score between two annotations of the source"
.venv/bin/semsim dagf examples/fig1-source.annotator2.xml examples/fig1-source.xml
echo "== USim on the same two sentences written as AMR"
.venv/bin/semsim usim examples/fig1-source.amr examples/fig1-correction.amr
