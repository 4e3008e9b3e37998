#!/usr/bin/env bash
# Coverage-guided fuzzing of every public entry point on both backends (atheris), with the
# invariants of fuzz/harness.py as the oracle. New interesting inputs are added to
# fuzz/corpus/; a failing input is written as ./crash-<hash>: add it to fuzz/corpus/ with the
# fix, so that the test suite replays it from then on.
#
#   scripts/fuzz.sh                 # 10 minutes
#   scripts/fuzz.sh -runs=100000    # any libFuzzer option
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python}
if [ "$#" -eq 0 ]; then set -- -max_total_time=600; fi
exec "$PY" fuzz/harness.py -max_len=4096 -timeout=30 "$@" fuzz/corpus
