#!/usr/bin/env bash
# One command from a fresh clone: set up, then chunk the sample document bundled with the
# package and print the chunks. Extra arguments go to `python -m ragchunk`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
exec .venv/bin/python -m ragchunk --sample "$@"
