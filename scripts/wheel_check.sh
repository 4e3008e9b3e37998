#!/usr/bin/env bash
# The default install, as a user gets it: the built wheel alone in a fresh virtual environment
# (no tiktoken, no extras), then with numpy added (the semantic extra). scripts/wheel_smoke.py
# constructs and runs every public name that needs no optional package, on the Rust backend.
# Needs .venv (scripts/setup.sh) for maturin; called by scripts/test.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
VIRTUAL_ENV="$PWD/.venv" PATH="$PWD/.venv/bin:$PATH" \
  .venv/bin/maturin build --release -q -o "$work/dist"
"${PYTHON:-python3}" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q --no-index --no-deps "$work"/dist/ragchunk-*.whl
# Run from outside the checkout, so that `import ragchunk` finds the installed wheel only.
script="$PWD/scripts/wheel_smoke.py"
(cd "$work" && RAGCHUNK_BACKEND=rust "$work/venv/bin/python" "$script" core)
"$work/venv/bin/python" -m pip install -q "numpy>=1.22"
(cd "$work" && RAGCHUNK_BACKEND=rust "$work/venv/bin/python" "$script" semantic)
