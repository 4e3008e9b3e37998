"""ingest() in supervised worker processes: per-file time and memory limits, crashes that
cost one file, failures remembered, results equal to one worker's, bad arguments refused."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import ingest_helpers as h
import pytest
import ragchunk
from ragchunk.cli import main
from ragchunk.ingest import Manifest, Source, ingest

pytest.importorskip("pyarrow")
pytestmark = [pytest.mark.single_backend, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

CHUNKER = ragchunk.MarkdownSplitter(24)
FILE_TIMEOUT = 2.0
FILE_MEMORY = "400M"


def _documents() -> None:
    pytest.importorskip("pypdfium2")
    pytest.importorskip("pypdf")


def _good(root: Path) -> None:
    h.write_corpus(root, 1)
    (root / "report.pdf").write_bytes(
        h.text_pdf(["Quarterly report.", "Revenue grew in every region.", "Costs fell."])
    )


def _hostile(root: Path) -> dict[str, str]:
    """The hostile files, and a word each one's failure reason must hold."""
    (root / "hostile").mkdir()
    good = h.text_pdf(["A good page that will be cut short.", "Second line."])
    files = {
        "hostile/quadratic.pdf": (h.overlapping_pdf(24_000), "file_timeout"),
        "hostile/inflating.pdf": (h.inflating_pdf(800 << 20), "file_memory"),
        "hostile/truncated.pdf": (good[: len(good) // 2], "not a readable PDF"),
        "hostile/encrypted.pdf": (h.encrypted_pdf(good), "encrypted"),
        "hostile/random.md": (bytes(range(128, 256)) * 64, "UnicodeDecodeError"),
    }
    for name, (data, _) in files.items():
        (root / name).write_bytes(data)
    h.docx_bomb(root / "hostile" / "bomb.docx", 64 << 20)
    reasons = {name: word for name, (_, word) in files.items()}
    reasons["hostile/bomb.docx"] = "zip bomb"
    return reasons


def _by_source(store: str) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for r in h.rows(store):
        out.setdefault(r["source_id"], []).append(r)
    return {k: sorted(v, key=lambda r: r["chunk_index"]) for k, v in out.items()}


def test_a_hostile_folder_costs_its_files_and_nothing_else(tmp_path: Path) -> None:
    _documents()
    clean_src, src = tmp_path / "clean", tmp_path / "src"
    _good(clean_src)
    _good(src)
    reasons = _hostile(src)
    clean = f"parquet:{tmp_path / 'clean-store'}"
    t = time.monotonic()
    ingest([clean_src], clean, CHUNKER, base=clean_src, workers=2)
    good_seconds = time.monotonic() - t
    store = f"parquet:{tmp_path / 'store'}"
    limits = {"file_timeout": FILE_TIMEOUT, "file_memory": FILE_MEMORY}
    t = time.monotonic()
    report = ingest([src], store, CHUNKER, base=src, workers=2, **limits)
    seconds = time.monotonic() - t
    failures = dict(report.failures)
    assert sorted(failures) == sorted(reasons), report.failures
    for name, word in reasons.items():
        assert word in failures[name], (name, failures[name])
    assert report.added == 13 and report.failed == 6
    assert report.workers >= 3  # the two stopped by a limit were replaced
    # the run ends within the time limit plus the good files' time (and the workers' start)
    assert seconds < FILE_TIMEOUT + good_seconds + 10, (seconds, good_seconds)
    assert _by_source(store) == _by_source(clean)
    assert not multiprocessing.active_children()
    # the failures are remembered: a re-run parses nothing
    again = ingest([src], store, CHUNKER, base=src, workers=2, **limits)
    assert (again.unchanged, again.skipped, again.failed, again.chunks_written) == (13, 6, 0, 0)
    assert again.workers == 0
    assert sorted(dict(again.skipped_failures)) == sorted(reasons)
    man = Manifest(Path(store.split(":", 1)[1]) / "_ragchunk_manifest.sqlite")
    try:
        assert man.pending() == [] and sorted(man.failed()) == sorted(reasons)
    finally:
        man.close()


def test_a_crashed_worker_costs_one_file(tmp_path: Path) -> None:
    src = tmp_path / "src"
    h.write_corpus(src, 1)
    (src / "crash.md").write_text("SEGFAULT here", encoding="utf-8")
    store = f"parquet:{tmp_path / 'store'}"
    readers = {".md": h.crashing_reader}
    report = ingest([src], store, CHUNKER, base=src, workers=2, readers=readers)
    assert report.failures == [
        ("crash.md", f"{src / 'crash.md'}: the worker crashed (signal SIGSEGV)")
    ]
    assert report.added == 12
    clean = f"parquet:{tmp_path / 'clean'}"
    (src / "crash.md").unlink()
    ingest([src], clean, CHUNKER, base=src, workers=1)
    assert h.rows(store) == h.rows(clean)


def test_failed_files_are_tried_again_when_they_change_or_when_asked(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.md").write_text("# A\n\nFine text.", encoding="utf-8")
    (src / "b.md").write_bytes(b"\xff\xfe bad")
    store = f"parquet:{tmp_path / 'store'}"
    assert ingest([src], store, CHUNKER, base=src).failed == 1
    assert ingest([src], store, CHUNKER, base=src).skipped == 1
    retried = ingest([src], store, CHUNKER, base=src, retry_failed=True)
    assert (retried.skipped, retried.failed) == (0, 1)
    # another configuration tries it again too
    other = ingest([src], store, ragchunk.MarkdownSplitter(30), base=src)
    assert (other.skipped, other.failed, other.changed) == (0, 1, 1)
    (src / "b.md").write_text("# B\n\nNow good.", encoding="utf-8")
    fixed = ingest([src], store, ragchunk.MarkdownSplitter(30), base=src)
    assert (fixed.added, fixed.failed, fixed.skipped) == (1, 0, 0)
    man = Manifest(tmp_path / "store" / "_ragchunk_manifest.sqlite")
    try:
        assert man.failed() == {}
    finally:
        man.close()


def _use_the_native_pools() -> None:
    texts = ["Some words. " * 50] * 64
    ragchunk.RecursiveSplitter(16).split_batch(texts, workers=2)


@pytest.mark.parametrize("start_method", ["forkserver", "spawn"])
def test_rows_equal_one_workers_in_the_same_order(tmp_path: Path, start_method: str) -> None:
    _use_the_native_pools()
    src = tmp_path / "src"
    h.write_corpus(src, 1)
    one = f"parquet:{tmp_path / 'one'}"
    two = f"parquet:{tmp_path / 'two'}"
    a = ingest([src], one, CHUNKER, base=src, workers=1, start_method=start_method)
    b = ingest([src], two, CHUNKER, base=src, workers=2, start_method=start_method, batch_size=3)
    assert (a.added, b.added, b.workers) == (12, 12, 2)
    assert h.rows(one) == h.rows(two)
    files = sorted(os.listdir(tmp_path / "two"))
    # the batches were written in the order the files were given (a file per batch)
    assert sum(name.endswith(".parquet") for name in files) == 4
    assert not multiprocessing.active_children()


def test_in_memory_sources_and_files_keep_their_order(tmp_path: Path) -> None:
    src = tmp_path / "src"
    h.write_corpus(src, 1)
    mixed = [Source("mem/1", "# One\n\nFirst text."), str(src), Source("mem/2", "Second.")]
    store = f"parquet:{tmp_path / 'store'}"
    report = ingest(mixed, store, CHUNKER, base=src, workers=2, batch_size=5)
    assert report.added == 14
    alone = f"parquet:{tmp_path / 'alone'}"
    ingest(mixed, alone, CHUNKER, base=src, workers=1, batch_size=100)
    assert h.rows(store) == h.rows(alone)


def test_bad_limits_and_stores_are_refused(tmp_path: Path) -> None:
    store = f"parquet:{tmp_path / 'store'}"
    for kwargs, name in (
        ({"file_timeout": 0}, "file_timeout"),
        ({"file_timeout": -1.5}, "file_timeout"),
        ({"file_memory": 0}, "file_memory"),
        ({"file_memory": "-2G"}, "file_memory"),
        ({"file_memory": "lots"}, "file_memory"),
    ):
        with pytest.raises(ValueError, match=name):
            ingest([Source("a", "x")], store, CHUNKER, **kwargs)
    a_file = tmp_path / "plain.txt"
    a_file.write_text("x", encoding="utf-8")
    with pytest.raises(ValueError, match=r"store .* points at a file"):
        ingest([Source("a", "x")], f"lancedb:{a_file}", CHUNKER)
    with pytest.raises(ValueError, match=r"^store must be"):
        ingest([Source("a", "x")], f"nosuch:{tmp_path}", CHUNKER)
    manifest = str(tmp_path / "m.sqlite")
    ingest([Source("a", "x")], store, CHUNKER, manifest=manifest)
    with pytest.raises(ValueError, match=r"^manifest .* belongs to the store"):
        ingest([Source("a", "x")], f"parquet:{tmp_path / 'other'}", CHUNKER, manifest=manifest)


def test_the_report_as_json_and_on_the_command_line(tmp_path: Path) -> None:
    src = tmp_path / "src"
    h.write_corpus(src, 1)
    (src / "bad.md").write_bytes(b"\xff\xfe")
    out = tmp_path / "report.json"
    store = f"parquet:{tmp_path / 'store'}"
    args = ["ingest", str(src), "--into", store, "--base", str(src), "-q", "--report", str(out)]
    args += ["--workers", "2", "--file-timeout", "30", "--file-memory", "1G"]
    assert main(args) == 1
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["added"] == 12 and report["failed"] == 1
    assert report["failures"][0]["source"] == "bad.md"
    assert "UnicodeDecodeError" in report["failures"][0]["reason"]
    assert main(args) == 0  # the failure is remembered: nothing to do
    assert json.loads(out.read_text(encoding="utf-8"))["skipped"] == 1
    assert main([*args, "--retry-failed"]) == 1
    with pytest.raises(SystemExit):
        main([*args, "--file-timeout", "0"])


_NO_NUMPY = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "numpy" or name.startswith("numpy."):
            raise ImportError("numpy is blocked in this test")
        return None
sys.meta_path.insert(0, Block())
"""


def test_a_parquet_store_needs_no_numpy_without_an_embedder(tmp_path: Path) -> None:
    src = tmp_path / "src"
    h.write_corpus(src, 1)
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(_NO_NUMPY, encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(h.PYTHON_DIR)])
    env["RAGCHUNK_BACKEND"] = os.environ.get("RAGCHUNK_BACKEND", "auto")
    store = f"parquet:{tmp_path / 'store'}"
    code = (
        "import sys\n"
        "from ragchunk.cli import main\n"
        f"code = main(['ingest', {str(src)!r}, '--into', {store!r}, '-q', '--workers', '1'])\n"
        "assert 'numpy' not in sys.modules, 'numpy was imported'\n"
        "assert 'ragchunk.embeddings' not in sys.modules\n"
        "sys.exit(code)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert len(h.rows(store)) == 12  # one chunk per file at the default size
    check = subprocess.run(
        [sys.executable, "-c", "import numpy"], env=env, capture_output=True, text=True
    )
    assert check.returncode != 0  # the blocker works
