#!/usr/bin/env bash
# Creates .venv (if needed) and builds and installs ragchunk from source (release profile) into
# it. Idempotent; called by the other scripts, never needs to be run by hand.
#
#   setup.sh          what running needs: maturin and the package, nothing else
#   setup.sh --run    also the documents extra (the sample's PDF: python-docx, openpyxl, PDFium)
#   setup.sh --dev    also the test, lint and docs tools (the test, lint and docs extras)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PYTHON=${PYTHON:-python3}
extras=()
if [ "${1:-}" = "--run" ]; then
  extras=(--extras "documents")
fi
if [ "${1:-}" = "--dev" ]; then
  # test: the oracles (tiktoken, LangChain), hypothesis, numpy, Pillow, pytest-benchmark;
  # lint: ruff, mypy; docs: MkDocs and mkdocstrings; integrations: pyarrow, Ray, Spark,
  # LangChain, LlamaIndex for the engine and adapter tests (Spark also needs a Java runtime),
  # rich and Playwright for the viewer's tests (with Debian's chromium, installed below);
  # ocr: RapidOCR and its models (in its wheel), for the OCR tests of scans and images.
  extras=(--extras "test,lint,docs,integrations,ocr")
fi
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q "maturin>=1.7,<2"
# PIP_QUIET: maturin hands pip every dependency with its extra's marker, and pip would print
# an "Ignoring ...: markers ... don't match" line for each one of the extras not installed.
VIRTUAL_ENV="$PWD/.venv" PATH="$PWD/.venv/bin:$PATH" PIP_QUIET=1 \
  .venv/bin/maturin develop --release "${extras[@]}" -q
if [ "${1:-}" = "--dev" ]; then
  # LangChain's own unit tests, which the test suite runs against ragchunk's drop-ins: the
  # pinned sdist is fetched here, at set-up, into .venv/sdists (git ignores it), so the tests
  # download nothing.
  .venv/bin/python tests/integrations/langchain_suite.py --fetch-only
  # Chonkie's and langchain-experimental's tests, run the same way against their drop-ins.
  .venv/bin/python tests/integrations/dropin_suites.py --fetch-only
  # Debian's chromium for the viewer's browser tests (tests/viz), which Playwright drives by
  # its path: Playwright's own browser download is never used.
  if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null; then
    sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      chromium >/dev/null
  fi
fi
