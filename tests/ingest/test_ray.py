"""ingest_ray() on a local Ray cluster: the store equals a local run's, across changes and a
dataset source, and a driver killed at seeded points is repaired by the next run. The
cluster is started and stopped within a time limit and leaves no process behind."""

from __future__ import annotations

import contextlib
import os
import random
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import ingest_helpers as h
import pytest
from ragchunk.ingest import Source, ingest, ingest_ray, open_store

pytest.importorskip("pyarrow")
pytest.importorskip("lancedb")

pytestmark = [
    pytest.mark.single_backend,
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]

START_TIMEOUT = 90
RUN_TIMEOUT = 180


@contextlib.contextmanager
def time_limit(seconds: int, what: str) -> Iterator[None]:
    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"{what} took more than {seconds}s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    ray = pytest.importorskip("ray")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    path = os.pathsep.join([str(h.PYTHON_DIR), str(h.HERE)])
    with time_limit(START_TIMEOUT, "ray.init"):
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            runtime_env={"env_vars": {"PYTHONPATH": path}},
        )
    ray.data.DataContext.get_current().enable_progress_bars = False
    try:
        yield ray
    finally:
        with time_limit(START_TIMEOUT, "ray.shutdown"):
            ray.shutdown()


def _local(store: str, src: Path) -> Any:
    return h.run_ingest(store, str(src), "full")


def test_ray_run_equals_a_local_run_across_changes(ray_cluster: Any, tmp_path: Path) -> None:
    src = tmp_path / "src"
    h.write_corpus(src, 1)
    store = f"lancedb:{tmp_path / 'ray'}"
    with time_limit(RUN_TIMEOUT, "ingest_ray"):
        first = h.run_ingest_ray(store, str(src), "full")
    assert (first.added, first.changed, first.failed) == (12, 0, 0)
    assert first.embeddings_computed + first.embeddings_reused == first.chunks_written > 12
    _local(f"lancedb:{tmp_path / 'clean1'}", src)
    assert h.rows(store) == h.rows(f"lancedb:{tmp_path / 'clean1'}")

    h.write_corpus(src, 2)  # 3 modified, 2 added, 2 deleted, 1 renamed
    (src / "bad.md").write_bytes(b"\xff\xfe not UTF-8")
    with time_limit(RUN_TIMEOUT, "ingest_ray"):
        second = h.run_ingest_ray(store, str(src), "full")
    assert (second.added, second.changed, second.unchanged, second.deleted) == (3, 3, 6, 3)
    assert second.failed == 1 and second.failures[0][0] == "bad.md"
    assert "UnicodeDecodeError" in second.failures[0][1]
    (src / "bad.md").unlink()
    clean = f"lancedb:{tmp_path / 'clean2'}"
    _local(clean, src)
    assert h.rows(store) == h.rows(clean)

    # nothing changed: every source is skipped inside the actors, nothing is written
    with time_limit(RUN_TIMEOUT, "ingest_ray"):
        third = h.run_ingest_ray(store, str(src), "full")
    assert (third.unchanged, third.chunks_written, third.chunks_deleted) == (12, 0, 0)
    assert third.embeddings_computed == 0
    assert h.rows(store) == h.rows(clean)


def test_ray_dataset_source_equals_documents(ray_cluster: Any, tmp_path: Path) -> None:
    ray = ray_cluster
    docs = [(f"note/{i}", h._doc(i)) for i in range(9)] + [("empty", "")]
    ds = ray.data.from_items([{"doc": d, "body": t} for d, t in docs])
    store = f"parquet:{tmp_path / 'ray'}"
    with time_limit(RUN_TIMEOUT, "ingest_ray"):
        report = ingest_ray(
            ds, store, h.chunker(), id_column="doc", text_column="body", concurrency=1
        )
    assert report.added == 10 and report.failed == 0
    clean = f"parquet:{tmp_path / 'clean'}"
    ingest([Source(d, t) for d, t in docs], clean, h.chunker())
    assert h.rows(store) == h.rows(clean)
    assert "vector" not in open_store(store).read().column_names
    with time_limit(RUN_TIMEOUT, "ingest_ray"):
        again = ingest_ray(ds, store, h.chunker(), id_column="doc", text_column="body")
    assert again.unchanged == 10 and again.chunks_written == 0
    with pytest.raises(ValueError, match="no column 'source_id'"):
        ingest_ray(ds, store, h.chunker())


def test_ray_driver_killed_at_seeded_points(
    ray_cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ray = ray_cluster
    src = tmp_path / "src"
    h.write_corpus(src, 1)
    trace = tmp_path / "trace.txt"
    monkeypatch.setenv("RAGCHUNK_INGEST_TRACE", str(trace))
    with time_limit(RUN_TIMEOUT, "ingest_ray"):
        h.run_ingest_ray(f"lancedb:{tmp_path / 'traced'}", str(src), "full")
    monkeypatch.delenv("RAGCHUNK_INGEST_TRACE")
    points = trace.read_text(encoding="utf-8").split()
    assert {"begin", "upsert", "commit"} <= set(points)
    clean = f"lancedb:{tmp_path / 'clean'}"
    _local(clean, src)
    want = h.rows(clean)
    address = ray.get_runtime_context().gcs_address
    rng = random.Random(7)
    for n, kill_at in enumerate(sorted(rng.sample(range(1, len(points) + 1), 3))):
        store = f"lancedb:{tmp_path / f'store{n}'}"
        with time_limit(RUN_TIMEOUT, "the killed ingest_ray"):
            proc = h.child(
                store,
                src,
                "full",
                kill_at=kill_at,
                timeout=RUN_TIMEOUT - 10,
                extra_env={"INGEST_TEST_RAY_ADDRESS": address},
            )
        assert proc.returncode == -signal.SIGKILL, (kill_at, points, proc.stderr[-2000:])
        with time_limit(RUN_TIMEOUT, "the re-run"):
            h.run_ingest_ray(store, str(src), "full")
        assert h.rows(store) == want, (kill_at, points[kill_at - 1])


def test_ray_actors_keep_the_per_file_limits(ray_cluster: Any, tmp_path: Path) -> None:
    pytest.importorskip("pypdfium2")
    src = tmp_path / "src"
    h.write_corpus(src, 1)
    (src / "slow.pdf").write_bytes(h.overlapping_pdf(24_000))
    store = f"lancedb:{tmp_path / 'ray'}"
    with time_limit(RUN_TIMEOUT, "ingest_ray"):
        report = h.run_ingest_ray(store, str(src), "full", file_timeout=3.0)
    assert report.added == 12 and report.failed == 1, report.failures
    assert report.failures[0][0] == "slow.pdf" and "file_timeout" in report.failures[0][1]
    (src / "slow.pdf").unlink()
    clean = f"lancedb:{tmp_path / 'clean'}"
    _local(clean, src)
    assert h.rows(store) == h.rows(clean)
