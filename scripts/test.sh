#!/usr/bin/env bash
# One command from a fresh clone: set up, lint, build the docs strictly, then run every test —
# Rust unit and integration tests, and the pytest suite on BOTH backends (rust and the
# pure-Python fallback), docstring examples included. Any failure, including pytest finding no
# tests (exit 5), fails the script.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh --dev
export PATH="$PWD/.venv/bin:$PATH"

echo "== cargo fmt / clippy / test"
cargo fmt --check
cargo clippy --all-targets -- -D warnings
# `code` (CodeSplitter: tree-sitter grammars, C compiled by cc) is linted and tested once, in
# this clippy run and in cargo test, so the grammars' C is built once per profile, not per step.
cargo clippy --all-targets --features python,code -- -D warnings
# The stable-ABI build (`abi3`: one wheel for every Python >= 3.10) takes other code paths.
cargo clippy --features abi3 -- -D warnings
# `hf` (Hugging Face tokenizer.json files) is on in every Python build; its unit tests need it here.
cargo test -q --features code,hf

echo "== ruff / mypy"
ruff check python tests benches docs
ruff format --check python tests benches docs
mypy python/ragchunk
python -m mypy.stubtest ragchunk._core

echo "== docs (mkdocs --strict)"
bash scripts/docs.sh

echo "== the wheel alone (no extras) on the Rust backend"
bash scripts/wheel_check.sh

echo "== pytest (both backends; benchmarks once each as smoke tests)"
python -m pytest -q tests benches --benchmark-disable -p no:cacheprovider "$@"
