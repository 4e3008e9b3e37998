"""pytest-benchmark suites. The test command runs each once with --benchmark-disable (smoke
test); real timing: ``.venv/bin/python -m pytest benches --benchmark-only``."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import offline_tiktoken

offline_tiktoken()
