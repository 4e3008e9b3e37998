"""Document files in bulk: ``ragchunk chunk --documents``, ``chunk_table`` over a binary
column, Ray Data, ``ingest`` of a PDF folder, and the bundled sample PDF."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import ragchunk
from docfiles import report_pdf, sample_docx
from ragchunk import cli
from ragchunk.documents import DocumentError, chunk_document, parse
from ragchunk.documents._batch import chunk_file

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

PYTHONPATH = str(Path(ragchunk.__file__).resolve().parents[1])
ROOT = Path(__file__).resolve().parents[2]
CHUNKER = ragchunk.RecursiveSplitter(24)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = PYTHONPATH + os.pathsep + env.get("PYTHONPATH", "")
    return env


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "files"
    (root / "sub").mkdir(parents=True)
    (root / "report.pdf").write_bytes(report_pdf())
    (root / "sub" / "guide.docx").write_bytes(sample_docx())
    (root / "notes.md").write_text("# Notes\n\nSome text.\n", encoding="utf-8")
    return root


def _expected(folder: Path) -> list[tuple[str, int, str, list[int], list[str]]]:
    out = []
    for path in (folder / "notes.md", folder / "report.pdf", folder / "sub" / "guide.docx"):
        for c in chunk_document(parse(path), CHUNKER):
            out.append((str(path), c.start, c.text, c.metadata["pages"], c.metadata["headings"]))
    return out


def _rows(rows: list[dict[str, Any]]) -> list[tuple[str, int, str, list[int], list[str]]]:
    out = []
    for r in rows:
        meta = r["metadata"] if isinstance(r["metadata"], dict) else json.loads(r["metadata"])
        out.append((r["source"], r["start"], r["text"], meta["pages"], meta["headings"]))
    return out


# ---------------------------------------------------------------------------------------------
# the command line


@pytest.mark.single_backend
def test_cli_folder_to_jsonl_in_worker_processes(folder: Path) -> None:
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "ragchunk", "chunk", str(folder), "--documents", "-q"),
            *("--chunk-size", "24", "--workers", "2", "--parallel", "processes"),
        ],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert _rows(rows) == _expected(folder)
    pdf = [r for r in rows if r["source"].endswith(".pdf")]
    assert {p for r in pdf for p in r["metadata"]["pages"]} == {1, 2}
    assert all(b["page"] in r["metadata"]["pages"] for r in pdf for b in r["metadata"]["bboxes"])
    assert all(len(b["bbox"]) == 4 for r in pdf for b in r["metadata"]["bboxes"])
    assert ["Results"] in [r["metadata"]["headings"] for r in pdf]
    docx = [r for r in rows if r["source"].endswith(".docx")]
    assert docx and docx[0]["metadata"]["headings"] == ["Field guide"]


@pytest.mark.single_backend
def test_cli_folder_to_parquet(folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "chunks.parquet"
    args = ["chunk", str(folder), "--documents", "-q", "--chunk-size", "24", "--workers", "1"]
    assert cli.main([*args, "--format", "parquet", "--out", str(out)]) == 0
    table = pq.read_table(out)
    assert table.column_names[:2] == ["source", "chunk_index"]
    assert _rows(table.to_pylist()) == _expected(folder)


@pytest.mark.single_backend
def test_cli_reports_a_broken_document_and_goes_on(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 nothing else")
    assert cli.main(["chunk", str(folder), "--documents", "-q", "--workers", "1"]) == 1
    captured = capsys.readouterr()
    assert "broken.pdf" in captured.err and "not a readable PDF" in captured.err
    sources = {json.loads(line)["source"] for line in captured.out.splitlines()}
    assert sources == {str(folder / n) for n in ("notes.md", "report.pdf", "sub/guide.docx")}


@pytest.mark.single_backend
def test_cli_without_documents_refuses_binary_files(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["chunk", str(folder / "report.pdf"), "-q"]) == 1
    assert "pass --documents" in capsys.readouterr().err
    # the default walk of a folder reads text files only
    assert cli.main(["chunk", str(folder), "-q"]) == 0
    sources = {json.loads(line)["source"] for line in capsys.readouterr().out.splitlines()}
    assert sources == {str(folder / "notes.md")}


# ---------------------------------------------------------------------------------------------
# chunk_table over file bytes


def test_chunk_table_parses_a_binary_column(folder: Path) -> None:
    from ragchunk.io.arrow import chunk_table

    names = ["report.pdf", "guide.docx", None]
    files = [report_pdf(), sample_docx(), report_pdf()]
    table = pa.table({"name": names, "data": pa.array(files, type=pa.binary())})
    out = chunk_table(table, CHUNKER, "data", ["name"], filename_column="name")
    expected = []
    for name, data in zip(names, files, strict=True):
        for c in chunk_document(parse(data, filename=name), CHUNKER):
            expected.append((name, c.text, c.start, c.end, c.metadata["pages"]))
    got = [
        (r["name"], r["text"], r["start"], r["end"], json.loads(r["metadata"])["pages"])
        for r in out.to_pylist()
    ]
    assert got == expected
    meta = [json.loads(m) for m in out["metadata"].to_pylist()]
    assert all({"pages", "bboxes", "headings"} <= m.keys() for m in meta)
    # large_binary, no file names: the format comes from the bytes
    large = pa.table({"data": pa.array(files[:1], type=pa.large_binary())})
    assert chunk_table(large, CHUNKER, "data")["text"].to_pylist() == [
        t for n, t, *_ in expected if n == "report.pdf"
    ]


def test_chunk_table_binary_column_errors() -> None:
    from ragchunk.io.arrow import chunk_table

    nulls = pa.table({"data": pa.array([None, report_pdf()], type=pa.binary())})
    with pytest.raises(ValueError, match=r"column 'data', row 0: the document is null"):
        chunk_table(nulls, CHUNKER, "data")
    assert chunk_table(nulls, CHUNKER, "data", on_null="skip").num_rows > 0
    broken = pa.table({"data": pa.array([report_pdf(), b"%PDF-1.4 junk"], type=pa.binary())})
    with pytest.raises(DocumentError, match=r"column 'data', row 1: .*not a readable PDF"):
        chunk_table(broken, CHUNKER, "data")
    with pytest.raises(ValueError, match="no column 'file'"):
        chunk_table(broken, CHUNKER, "data", filename_column="file")
    with pytest.raises(TypeError, match="SplitterComponent"):
        chunk_table(broken, ragchunk.SplitterComponent(), "data")
    numbers = pa.table({"data": [1, 2]})
    with pytest.raises(TypeError, match="column 'data' must hold"):
        chunk_table(numbers, CHUNKER, "data", filename_column="data")


# ---------------------------------------------------------------------------------------------
# Ray Data


@contextlib.contextmanager
def _time_limit(seconds: int, what: str) -> Iterator[None]:
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
    with _time_limit(90, "ray.init"):
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            runtime_env={"env_vars": {"PYTHONPATH": PYTHONPATH}},
        )
    ray.data.DataContext.get_current().enable_progress_bars = False
    try:
        yield ray
    finally:
        with _time_limit(90, "ray.shutdown"):
            ray.shutdown()


@pytest.mark.single_backend
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_ray_parses_binary_files_on_the_actors(
    ray_cluster: Any, folder: Path, tmp_path: Path
) -> None:
    from ragchunk.integrations.ray import chunk_dataset
    from ragchunk.io.arrow import chunk_table

    paths = [folder / "report.pdf", folder / "sub" / "guide.docx"]
    files = pa.table(
        {
            "path": [p.name for p in paths],
            "bytes": pa.array([p.read_bytes() for p in paths], type=pa.binary()),
        }
    )
    out = tmp_path / "chunks"
    with _time_limit(120, "the Ray pipeline"):
        ds = ray_cluster.data.from_arrow(files)
        chunk_dataset(
            ds, CHUNKER, "bytes", ["path"], filename_column="path", batch_size=1
        ).write_parquet(str(out))
    result = pq.read_table(out).to_pylist()
    expected = chunk_table(files, CHUNKER, "bytes", ["path"], filename_column="path").to_pylist()
    key = lambda r: (r["path"], r["chunk_index"])  # noqa: E731
    assert sorted(result, key=key) == sorted(expected, key=key)
    assert any(json.loads(r["metadata"])["pages"] == [1, 2] for r in result)


@pytest.mark.single_backend
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_ingest_ray_of_a_pdf_folder_equals_a_local_run(
    ray_cluster: Any, folder: Path, tmp_path: Path
) -> None:
    from ragchunk.ingest import ingest, ingest_ray, open_store

    def rows(url: str) -> list[dict[str, Any]]:
        store = open_store(url)
        try:
            return sorted(store.read().to_pylist(), key=lambda r: r["id"])
        finally:
            store.close()

    local, remote = f"parquet:{tmp_path / 'local'}", f"parquet:{tmp_path / 'ray'}"
    assert ingest(folder, local, CHUNKER, base=folder).added == 3
    with _time_limit(180, "ingest_ray"):
        report = ingest_ray(folder, remote, CHUNKER, base=folder, concurrency=1)
    assert (report.added, report.failed) == (3, 0), report.failures
    got = rows(remote)
    assert got == rows(local)
    assert any(r["source_id"] == "report.pdf" and r["pages"] == [1, 2] for r in got)


# ---------------------------------------------------------------------------------------------
# ingest


@pytest.mark.single_backend
@pytest.mark.parametrize("kind", ["parquet", "lancedb"])
def test_ingest_a_pdf_folder_stores_pages_boxes_and_headings(
    folder: Path, tmp_path: Path, kind: str
) -> None:
    if kind == "lancedb":
        pytest.importorskip("lancedb")
    from ragchunk.ingest import ingest, open_store

    url = f"{kind}:{tmp_path / 'store'}"
    report = ingest(folder, url, CHUNKER, base=folder)
    assert report.failed == 0 and report.added == 3, report.failures
    store = open_store(url)
    try:
        rows = sorted(store.read().to_pylist(), key=lambda r: (r["source_id"], r["chunk_index"]))
    finally:
        store.close()
    pdf = [r for r in rows if r["source_id"] == "report.pdf"]
    expected = chunk_document(parse(folder / "report.pdf"), CHUNKER)
    assert [r["text"] for r in pdf] == [c.text for c in expected]
    assert [r["pages"] for r in pdf] == [c.metadata["pages"] for c in expected]
    assert [r["heading_path"] for r in pdf] == [c.metadata["headings"] for c in expected]
    boxes = [
        [list(b["bbox"]) for b in c.metadata["bboxes"]] for c in expected
    ]  # (x0, top, x1, bottom)
    assert [r["boxes"] for r in pdf] == boxes
    assert any(len(r["pages"]) == 2 for r in pdf)
    assert json.loads(pdf[0]["metadata"])["bboxes"] == expected[0].metadata["bboxes"]
    docx = [r for r in rows if r["source_id"] == "sub/guide.docx"]
    assert docx and docx[0]["heading_path"] == ["Field guide"]
    notes = [r for r in rows if r["source_id"] == "notes.md"]
    assert notes[0]["text"] == "# Notes\n\nSome text."  # text files are still read as text
    again = ingest(folder, url, CHUNKER, base=folder)
    assert again.unchanged == 3 and again.chunks_written == 0


@pytest.mark.single_backend
def test_ingest_readers_still_override_the_document_reader(folder: Path, tmp_path: Path) -> None:
    from ragchunk.ingest import ingest

    url = f"parquet:{tmp_path / 'store'}"
    report = ingest(folder, url, CHUNKER, readers={".pdf": lambda path, data: "plain"})
    assert report.failed == 0 and report.added == 3


# ---------------------------------------------------------------------------------------------
# the bundled sample


@pytest.mark.single_backend
def test_the_bundled_pdf_is_what_the_script_writes() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_sample_pdf.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = parse(Path(ragchunk.__file__).parent / "data" / "sample.pdf")
    assert len(doc.pages) == 3
    titles = [(s.level, s.text) for s in doc.sections if s.kind == "title"]
    assert titles[:3] == [
        (1, "Chunking for retrieval"),
        (2, "1 Introduction"),
        (3, "1.1 Why the boundaries matter"),
    ]
    assert {s.kind for s in doc.sections} >= {"header", "footer", "list", "text"}


@pytest.mark.single_backend
def test_sample_command_prints_the_pdf_chunks_with_pages_and_headings() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ragchunk", "--sample"],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    head, sep, pdf = proc.stdout.partition("bundled sample (ragchunk/data/sample.pdf): 3 pages")
    assert sep and "bundled sample (ragchunk/data/sample.md)" in head
    doc = parse(Path(ragchunk.__file__).parent / "data" / "sample.pdf")
    for c in chunk_document(doc, ragchunk.RecursiveSplitter(128)):
        pages = ", ".join(map(str, c.metadata["pages"]))
        assert f"(pages {pages}; {' > '.join(c.metadata['headings'])}) ---\n{c.text}\n" in pdf
    assert "pages 1, 2;" in pdf


@pytest.mark.single_backend
def test_sample_command_without_the_extra_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import ragchunk.documents._batch as batch

    monkeypatch.setattr(batch, "available", lambda: False)
    assert cli.main(["--sample"]) == 0
    out = capsys.readouterr().out
    assert "pip install 'ragchunk[documents]'" in out and "pages 1" not in out


def test_chunk_file_refuses_a_component() -> None:
    with pytest.raises(TypeError, match="split"):
        chunk_file(b"# A", "a.md", ragchunk.SplitterComponent())
