"""``scripts/setup.sh`` (run by ``sample.sh`` and ``test.sh``) installs the package with
pip's notes quieted: maturin hands pip every dependency with its extra's marker, and pip
would print an "Ignoring ... markers" line for each extra not installed."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

SETUP = Path(__file__).resolve().parents[2] / "scripts" / "setup.sh"


def _maturin_env() -> dict[str, str]:
    """The variables setup.sh sets on its ``maturin develop`` command."""
    text = SETUP.read_text(encoding="utf-8").replace("\\\n", " ")
    line = next(ln for ln in text.splitlines() if "maturin develop" in ln)
    env = {}
    for word in shlex.split(line):
        m = re.fullmatch(r"([A-Z_]+)=(.*)", word)
        if m is None:
            break
        env[m.group(1)] = m.group(2)
    return env


@pytest.mark.single_backend
def test_pip_prints_no_ignoring_lines_under_setup_env() -> None:
    env = _maturin_env()
    assert "maturin" in SETUP.read_text(encoding="utf-8")
    run_env = dict(os.environ)
    run_env.pop("PIP_QUIET", None)
    run_env.update({k: v for k, v in env.items() if k.startswith("PIP_")})
    requirement = 'ragchunk-absent-package ; extra == "not-installed"'
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--no-index", requirement],
        env=run_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Ignoring" not in done.stdout + done.stderr
