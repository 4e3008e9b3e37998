"""Chonkie's and langchain-experimental's own tests, run twice: on their classes, then on
ragchunk's drop-ins.

    .venv/bin/python tests/integrations/dropin_suites.py [chonkie|langchain-experimental]
                     [--dir DIR] [--fetch-only]

For each suite, fetches the sdist of the installed release (``pip download --no-deps
--no-binary :all: PACKAGE==VERSION``, into :data:`langchain_suite.SDISTS` unless ``--dir`` is
given; nothing of it enters the repository), runs its test files as they are, then again with
``dropin_suites_plugin`` loaded (the suite's classes replaced by ragchunk's drop-ins, in the
package, its modules and Chonkie's pipeline registry), and prints each test whose outcome
differs. ``--fetch-only`` stops after the downloads: the test set-up (``scripts/setup.sh
--dev``) runs that, so the test suite downloads nothing; ``test_dropin_suites`` runs the
comparison as a test.

Chonkie's sdist ships ``tests/`` without its per-chunker test files (those live only in its
source repository, which this machine cannot reach): what runs is the sdist's
``test_pipeline.py`` and the other files there, in which the pipeline builds the chunkers by
name. Tests that need the network or a model download are deselected, each with its reason in
:data:`Suite.deselect`.
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
from dataclasses import dataclass, field
from pathlib import Path

import langchain_suite
from langchain_suite import SDISTS, FetchError, SuiteRun

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Suite:
    """One project's tests: its PyPI name, the sdist's top folder name (``{}`` for the
    version), the test paths inside it, and the tests left out with the reason for each."""

    package: str
    folder: str
    paths: tuple[str, ...]
    deselect: dict[str, str] = field(default_factory=dict)

    def version(self) -> str:
        return importlib.metadata.version(self.package)

    def root(self, dest: Path) -> Path:
        return dest / self.folder.format(self.version())


_HUB = "downloads a recipe or schema from the Hugging Face hub"
SUITES: dict[str, Suite] = {
    "langchain-experimental": Suite(
        "langchain-experimental",
        "langchain_experimental-{}",
        ("tests/unit_tests/test_text_splitter.py",),
    ),
    "chonkie": Suite(
        "chonkie",
        "chonkie-{}",
        ("tests",),
        {
            "tests/test_utils.py::test_hubbie_initialization": _HUB,
            "tests/test_utils.py::test_hubbie_get_recipe_hub": _HUB,
            "tests/test_utils.py::test_hubbie_get_recipe_path": _HUB,
            "tests/test_utils.py::test_hubbie_validate_recipe": _HUB,
            "tests/test_utils.py::test_hubbie_get_recipe_schema": _HUB,
            "tests/test_cli.py::test_chunk_text_semantic": "loads an embedding model from the hub",
            "tests/test_cli.py::test_chunk_with_threshold": "loads an embedding model from the hub",
        },
    ),
}


def fetched(suite: Suite, dest: Path = SDISTS) -> Path | None:
    """The unpacked sdist of the installed release under ``dest`` if it is there, else None
    (nothing is downloaded)."""
    root = suite.root(dest)
    return root if all((root / p).exists() for p in suite.paths) else None


def fetch(suite: Suite, dest: Path = SDISTS) -> Path:
    """Download and unpack the installed release's sdist into ``dest``; returns its folder.
    Raises :class:`langchain_suite.FetchError`."""
    found = fetched(suite, dest)
    if found is not None:
        return found
    dest.mkdir(parents=True, exist_ok=True)
    release = suite.version()
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"]
    cmd += ["--disable-pip-version-check", f"{suite.package}=={release}", "-d", str(dest)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired as exc:
        raise FetchError(f"pip download timed out: {exc}") from None
    archive_name = suite.root(dest).name + ".tar.gz"
    if done.returncode != 0 or not (dest / archive_name).exists():
        raise FetchError(f"pip download failed ({done.returncode}): {done.stderr.strip()[-800:]}")
    with tarfile.open(dest / archive_name) as archive:
        archive.extractall(dest, filter="data")
    found = fetched(suite, dest)
    if found is None:
        raise FetchError(f"{archive_name} has none of {suite.paths}")
    return found


def run(name: str, root: Path, patched: bool, timeout: float = 900) -> SuiteRun:
    """Run suite ``name``'s tests under ``root`` (its own pytest configuration, less its
    ``addopts``) on the Rust backend; ``patched``: with the drop-ins in place of its classes."""
    suite = SUITES[name]
    with tempfile.TemporaryDirectory(prefix="ragchunk-dropin-suite-") as work:
        junit, stats = Path(work) / "junit.xml", Path(work) / "stats.json"
        env = dict(os.environ, RAGCHUNK_BACKEND="rust", RAGCHUNK_DROPIN_STATS=str(stats))
        env["RAGCHUNK_DROPIN_SUITE"] = name
        env["PYTHONPATH"] = os.pathsep.join([str(HERE), *filter(None, [env.get("PYTHONPATH")])])
        cmd = [sys.executable, "-m", "pytest", *suite.paths, "-q", "-p", "no:cacheprovider"]
        cmd += ["-o", "addopts=", "--rootdir", str(root), f"--junitxml={junit}"]
        cmd += [f"--deselect={test}" for test in suite.deselect]
        # Their pytest configuration may turn warnings into errors; ours must not leak in.
        cmd += ["-W", "default"]
        if patched:
            cmd += ["-p", "dropin_suites_plugin"]
        done = subprocess.run(
            cmd, cwd=root, env=env, capture_output=True, text=True, timeout=timeout
        )
        output = done.stdout + done.stderr
        if not junit.exists():
            raise RuntimeError(f"{name}'s suite did not run ({done.returncode}):\n{output[-3000:]}")
        report = json.loads(stats.read_text()) if stats.exists() else {}
        outcomes = langchain_suite._outcomes(junit)
        return SuiteRun(outcomes, report, output)


def report(name: str, root: Path) -> int:
    """Run suite ``name`` both ways and print the comparison; 1 if they differ."""
    theirs, ours = run(name, root, patched=False), run(name, root, patched=True)
    for label, r in ((f"{name}'s classes", theirs), ("ragchunk's drop-ins", ours)):
        print(
            f"{label}: {r.count('passed')} passed, {r.count('failed')} failed, "
            f"{r.count('error')} errors, {r.count('skipped')} skipped"
        )
    print("deselected:", len(SUITES[name].deselect))
    for cls, (passed, total) in sorted(langchain_suite.by_class(theirs, ours).items()):
        print(f"  {cls}: used by {total} tests, {passed} of them pass on both")
    diff = langchain_suite.differences(theirs, ours)
    for test, (a, b) in diff.items():
        print(f"  {test}: {a} on {name}, {b} on the drop-ins")
    return 1 if diff else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("suites", nargs="*", help=f"any of {', '.join(SUITES)} (default: all)")
    ap.add_argument("--dir", type=Path, default=SDISTS, help="where the sdists are unpacked")
    ap.add_argument("--fetch-only", action="store_true", help="download and unpack, no run")
    args = ap.parse_args()
    unknown = sorted(set(args.suites) - set(SUITES))
    if unknown:
        ap.error(f"unknown suites {unknown}; choose from {list(SUITES)}")
    status = 0
    for name in args.suites or list(SUITES):
        root = fetch(SUITES[name], args.dir)
        if not args.fetch_only:
            status |= report(name, root)
    return status


if __name__ == "__main__":
    sys.exit(main())
