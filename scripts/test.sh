#!/usr/bin/env bash
# One command from a fresh clone: set up, lint, then run every test — Rust unit tests, and the
# pytest suite on BOTH backends (rust and the pure-Python fallback). Any failure, including
# pytest finding no tests (exit 5), fails the script.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH"

echo "== cargo fmt / clippy / test"
cargo fmt --check
cargo clippy --all-targets -- -D warnings
cargo clippy --all-targets --features python -- -D warnings
cargo test -q

echo "== ruff / mypy"
ruff check python tests benches
ruff format --check python tests benches
mypy python/ragchunk
python -m mypy.stubtest ragchunk._core

echo "== pytest (both backends; benchmarks once each as smoke tests)"
python -m pytest -q tests benches --benchmark-disable -p no:cacheprovider "$@"
