"""Ray Data and Spark, for real: a local cluster reads a corpus from Parquet, chunks it and
writes Parquet, and the rows equal the local chunk_table's. Each engine is started and
stopped within a time limit and leaves no process behind."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import ragchunk
from ragchunk.io.arrow import chunk_table

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

pytestmark = [
    pytest.mark.single_backend,
    # The engines' own deprecations and version notices, not ragchunk's.
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]

PYTHONPATH = str(Path(ragchunk.__file__).resolve().parents[1])
START_TIMEOUT = 90


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


def _corpus() -> Any:
    words = "alpha beta gamma delta 第一段。 epsilon zeta eta theta iota kappa".split()
    docs = [
        " ".join(words[(i + k) % len(words)] for k in range(20 + 7 * i)) + f"\n\nDoc {i}."
        for i in range(40)
    ]
    return pa.table({"doc_id": [f"d{i:03d}" for i in range(40)], "text": docs})


CHUNKER = ragchunk.RecursiveSplitter(16, 4)


def _sorted_rows(table: Any) -> list[dict[str, Any]]:
    return sorted(table.to_pylist(), key=lambda r: (r["doc_id"], r["chunk_index"]))


@pytest.fixture
def parquet_corpus(tmp_path: Path) -> Path:
    path = tmp_path / "corpus"
    path.mkdir()
    table = _corpus()
    pq.write_table(table.slice(0, 20), path / "part-0.parquet")
    pq.write_table(table.slice(20), path / "part-1.parquet")
    return path


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    ray = pytest.importorskip("ray")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    with time_limit(START_TIMEOUT, "ray.init"):
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            runtime_env={"env_vars": {"PYTHONPATH": PYTHONPATH}},
        )
    try:
        yield ray
    finally:
        with time_limit(START_TIMEOUT, "ray.shutdown"):
            ray.shutdown()


def test_ray_dataset_rows_equal_the_local_batch(
    ray_cluster: Any, parquet_corpus: Path, tmp_path: Path
) -> None:
    from ragchunk.integrations.ray import chunk_dataset

    ray = ray_cluster
    out = tmp_path / "chunks"
    with time_limit(120, "the Ray pipeline"):
        ds = ray.data.read_parquet(str(parquet_corpus))
        chunk_dataset(ds, CHUNKER, id_columns=["doc_id"], batch_size=8).write_parquet(str(out))
    result = pq.read_table(out)
    expected = chunk_table(_corpus(), CHUNKER, id_columns=["doc_id"])
    assert result.num_rows == expected.num_rows > 40
    assert _sorted_rows(result) == _sorted_rows(expected)


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    if shutil.which("java") is None:
        pytest.skip("no Java runtime (java) on PATH: Spark cannot start")
    pytest.importorskip("pyspark")
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    os.environ["PYTHONPATH"] = PYTHONPATH + os.pathsep + os.environ.get("PYTHONPATH", "")
    with time_limit(START_TIMEOUT, "starting Spark"):
        session = (
            SparkSession.builder.master("local[2]")
            .appName("ragchunk-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.executorEnv.PYTHONPATH", os.environ["PYTHONPATH"])
            .getOrCreate()
        )
    gateway = SparkContext._gateway
    try:
        yield session
    finally:
        with time_limit(START_TIMEOUT, "stopping Spark"):
            session.stop()
            # The JVM outlives spark.stop(): shut its gateway down and wait for it to exit.
            if gateway is not None:
                proc = getattr(gateway, "proc", None)
                gateway.shutdown()
                if proc is not None:
                    proc.stdin.close() if proc.stdin else None
                    try:
                        proc.wait(timeout=30)
                    except Exception:
                        proc.kill()
                        proc.wait(timeout=30)
            SparkContext._gateway = None
            SparkContext._jvm = None


def test_spark_map_in_arrow_rows_equal_the_local_batch(
    spark: Any, parquet_corpus: Path, tmp_path: Path
) -> None:
    from ragchunk.integrations.spark import chunk_dataframe

    out = tmp_path / "chunks"
    with time_limit(120, "the Spark job"):
        df = spark.read.parquet(str(parquet_corpus))
        chunk_dataframe(df, CHUNKER, id_columns=["doc_id"]).write.parquet(str(out))
    result = pq.read_table(out)
    expected = chunk_table(_corpus(), CHUNKER, id_columns=["doc_id"])
    assert _sorted_rows(result) == _sorted_rows(expected)


def test_spark_udtf_in_sql(spark: Any, parquet_corpus: Path) -> None:
    from ragchunk.integrations.spark import chunk_udtf

    with time_limit(120, "the Spark SQL query"):
        spark.udtf.register("ragchunk_chunks", chunk_udtf(CHUNKER))
        spark.read.parquet(str(parquet_corpus)).createOrReplaceTempView("docs")
        rows = spark.sql(
            "SELECT d.doc_id, c.* FROM docs d, LATERAL ragchunk_chunks(d.text) c"
        ).collect()
    got = sorted((r["doc_id"], r["chunk_index"], r["text"], r["start"], r["end"]) for r in rows)
    expected = sorted(
        (r["doc_id"], r["chunk_index"], r["text"], r["start"], r["end"])
        for r in chunk_table(_corpus(), CHUNKER, id_columns=["doc_id"]).to_pylist()
    )
    assert got == expected
