#!/usr/bin/env bash
# Creates .venv (if needed), installs the build and test tools from PyPI, and builds and
# installs ragchunk from source (release profile) into it. Idempotent; sourced by the other
# scripts, never needs to be run by hand.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q "maturin>=1.7,<2"
# --extras test brings the oracle (tiktoken), hypothesis, numpy, Pillow, pytest-benchmark.
VIRTUAL_ENV="$PWD/.venv" PATH="$PWD/.venv/bin:$PATH" \
  .venv/bin/maturin develop --release --extras "test,lint" -q
