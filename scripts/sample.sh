#!/usr/bin/env bash
# One command from a fresh clone: set up (with the documents extra, for the bundled PDF), then
# chunk the sample documents bundled with the package and print the chunks. Extra arguments
# go to `python -m ragchunk`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh --run
exec .venv/bin/python -m ragchunk --sample "$@"
