#!/usr/bin/env bash
# The README's test command, and CI's (.ci/run): set up everything the tests need (scripts/setup.sh:
# torch's CPU build, TUPA, amrlib, gec-metrics, the docs tools, chromium...), then run the tests.
# Arguments go to pytest (`bash scripts/test.sh -m "not slow"`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m pytest "$@"
