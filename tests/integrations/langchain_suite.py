"""LangChain's own unit tests, run twice: on LangChain's classes, then on ragchunk's drop-ins.

    .venv/bin/python tests/integrations/langchain_suite.py [--dir DIR] [--fetch-only]

fetches the sdist of the installed ``langchain-text-splitters`` (``pip download --no-deps
--no-binary :all: langchain-text-splitters==VERSION -d DIR``, into :data:`SDISTS` unless
``--dir`` is given; nothing of it enters the repository), runs its ``tests/unit_tests`` as
they are, then again with ``langchain_dropins_plugin`` loaded (LangChain's
``RecursiveCharacterTextSplitter``, ``CharacterTextSplitter`` and ``TokenTextSplitter``
replaced by ragchunk's), and prints each test whose outcome differs. ``--fetch-only`` stops
after the download: the test set-up (``scripts/setup.sh --dev``) runs that, so the test
suite itself downloads nothing; ``test_langchain_dropins`` runs the comparison as a test.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE = "langchain-text-splitters"
#: Where the test set-up unpacks the sdist (inside the project's virtual environment, which
#: git ignores).
SDISTS = HERE.parent.parent / ".venv" / "sdists"


class FetchError(RuntimeError):
    """The sdist could not be downloaded (PyPI unreachable, version gone)."""


@dataclass
class SuiteRun:
    """One run of LangChain's unit tests: each test's outcome (``passed``, ``failed``,
    ``skipped``, ``error``) by test id, the plugin's report (patched runs) and pytest's output."""

    outcomes: dict[str, str]
    stats: dict[str, object]
    output: str

    def count(self, outcome: str) -> int:
        return sum(1 for o in self.outcomes.values() if o == outcome)


def version() -> str:
    """The installed langchain-text-splitters version: the tests run are that release's."""
    return importlib.metadata.version(PACKAGE)


def fetched(dest: Path = SDISTS, release: str | None = None) -> Path | None:
    """The unpacked source folder of ``release`` (default: the installed one) under ``dest``
    if it was fetched already, else None (nothing is downloaded)."""
    root = dest / f"langchain_text_splitters-{release or version()}"
    return root if (root / "tests" / "unit_tests").is_dir() else None


def fetch(dest: Path, release: str | None = None) -> Path:
    """Download and unpack the sdist of ``release`` (default: the installed one) into
    ``dest``; returns the unpacked source folder. Raises :class:`FetchError`."""
    release = release or version()
    dest.mkdir(parents=True, exist_ok=True)
    root = dest / f"langchain_text_splitters-{release}"
    if (root / "tests" / "unit_tests").is_dir():
        return root
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"]
    cmd += ["--disable-pip-version-check", f"{PACKAGE}=={release}", "-d", str(dest)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired as exc:
        raise FetchError(f"pip download timed out: {exc}") from None
    sdists = sorted(dest.glob(f"langchain_text_splitters-{release}.tar.gz"))
    if done.returncode != 0 or not sdists:
        raise FetchError(f"pip download failed ({done.returncode}): {done.stderr.strip()[-800:]}")
    with tarfile.open(sdists[0]) as archive:
        archive.extractall(dest, filter="data")
    if not (root / "tests" / "unit_tests").is_dir():
        raise FetchError(f"{sdists[0].name} has no tests/unit_tests")
    return root


def _outcomes(junit: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        kinds = {child.tag for child in case}
        if "error" in kinds:
            out[name] = "error"
        elif "failure" in kinds:
            out[name] = "failed"
        elif "skipped" in kinds:
            out[name] = "skipped"
        else:
            out[name] = "passed"
    return out


def run(root: Path, patched: bool, timeout: float = 900) -> SuiteRun:
    """Run ``root``'s ``tests/unit_tests`` (LangChain's own pytest configuration, less its
    ``addopts``) on the Rust backend; ``patched``: with the drop-ins in LangChain's place."""
    with tempfile.TemporaryDirectory(prefix="ragchunk-lc-suite-") as work:
        junit, stats = Path(work) / "junit.xml", Path(work) / "stats.json"
        env = dict(os.environ, RAGCHUNK_BACKEND="rust", RAGCHUNK_LC_SUITE_STATS=str(stats))
        env["PYTHONPATH"] = os.pathsep.join([str(HERE), *filter(None, [env.get("PYTHONPATH")])])
        cmd = [sys.executable, "-m", "pytest", "tests/unit_tests", "-q", "-p", "no:cacheprovider"]
        cmd += ["-o", "addopts=", "--rootdir", str(root), f"--junitxml={junit}"]
        if patched:
            cmd += ["-p", "langchain_dropins_plugin"]
        done = subprocess.run(
            cmd, cwd=root, env=env, capture_output=True, text=True, timeout=timeout
        )
        output = done.stdout + done.stderr
        if not junit.exists():
            raise RuntimeError(
                f"LangChain's suite did not run ({done.returncode}):\n{output[-3000:]}"
            )
        report = json.loads(stats.read_text()) if stats.exists() else {}
        return SuiteRun(_outcomes(junit), report, output)


def _junit_name(nodeid: str) -> str:
    """A pytest node id as the JUnit report names it: ``dotted.module[.Class]::test``."""
    path, *classes, name = nodeid.split("::")
    return f"{'.'.join([path.removesuffix('.py').replace('/', '.'), *classes])}::{name}"


def by_class(langchain: SuiteRun, dropins: SuiteRun) -> dict[str, tuple[int, int]]:
    """Per drop-in: (tests that used it and pass on both, tests that used it)."""
    used = dropins.stats.get("used", {})
    assert isinstance(used, dict)
    out: dict[str, tuple[int, int]] = {}
    for nodeid, classes in used.items():
        name = _junit_name(nodeid)
        ok = langchain.outcomes.get(name) == dropins.outcomes.get(name) == "passed"
        for cls in classes:
            passed, total = out.get(cls, (0, 0))
            out[cls] = (passed + ok, total + 1)
    return out


def differences(langchain: SuiteRun, dropins: SuiteRun) -> dict[str, tuple[str, str]]:
    """Tests whose outcome on the drop-ins is not their outcome on LangChain's classes."""
    names = sorted(set(langchain.outcomes) | set(dropins.outcomes))
    return {
        n: (langchain.outcomes.get(n, "absent"), dropins.outcomes.get(n, "absent"))
        for n in names
        if langchain.outcomes.get(n) != dropins.outcomes.get(n)
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--dir", type=Path, default=SDISTS, help="where the sdist is unpacked")
    ap.add_argument("--fetch-only", action="store_true", help="download and unpack, no run")
    args = ap.parse_args()
    root = fetch(args.dir)
    return 0 if args.fetch_only else report(root)


def report(root: Path) -> int:
    """Run the suite both ways under ``root`` and print the comparison; 1 if they differ."""
    theirs, ours = run(root, patched=False), run(root, patched=True)
    for label, r in (("LangChain's classes", theirs), ("ragchunk's drop-ins", ours)):
        print(
            f"{label}: {r.count('passed')} passed, {r.count('failed')} failed, "
            f"{r.count('error')} errors, {r.count('skipped')} skipped"
        )
    print("drop-in calls:", ours.stats.get("calls"))
    for cls, (passed, total) in sorted(by_class(theirs, ours).items()):
        print(f"  {cls}: used by {total} tests, {passed} of them pass on both")
    diff = differences(theirs, ours)
    for name, (a, b) in diff.items():
        print(f"  {name}: {a} on LangChain, {b} on the drop-ins")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
