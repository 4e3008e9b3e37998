"""Bad files beside good ones: each bad file is reported once, by name, on one line (no
traceback), and every good file is still chunked; a broken symbolic link is reported and
skipped by every command that walks a folder."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import ragchunk

PYTHONPATH = str(Path(ragchunk.__file__).resolve().parents[1])
SAMPLE_PDF = Path(ragchunk.__file__).parent / "data" / "sample.pdf"
GOOD = "# Good\n\nA good file with words in it. " * 10


def _run(backend: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, RAGCHUNK_BACKEND=backend)
    env["PYTHONPATH"] = PYTHONPATH + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "ragchunk", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
    )


def _sources(stdout: str) -> set[str]:
    return {os.path.basename(json.loads(line)["source"]) for line in stdout.splitlines()}


def _clean(stderr: str) -> None:
    assert "Traceback" not in stderr, stderr
    assert "BrokenProcessPool" not in stderr, stderr


@pytest.fixture
def bad_documents(tmp_path: Path) -> Path:
    pytest.importorskip("pypdfium2")
    pytest.importorskip("docx")
    pypdf = pytest.importorskip("pypdf")
    root = tmp_path / "docs"
    root.mkdir()
    data = SAMPLE_PDF.read_bytes()
    (root / "good.pdf").write_bytes(data)
    (root / "good.md").write_text(GOOD, encoding="utf-8")
    (root / "truncated.pdf").write_bytes(data[: len(data) // 3])
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(data))
    writer.encrypt("secret")
    with open(root / "encrypted.pdf", "wb") as f:
        writer.write(f)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("word/document.xml", "<w:document")
    (root / "bad.docx").write_bytes(buf.getvalue()[:-10])
    (root / "notes.txt").write_text("also good, and plain.", encoding="utf-8")
    return root


@pytest.mark.parametrize("workers", ["1", "2"])
def test_chunk_documents_with_bad_files(backend: str, bad_documents: Path, workers: str) -> None:
    done = _run(backend, "chunk", "--documents", str(bad_documents), "--workers", workers)
    _clean(done.stderr)
    assert done.returncode == 1
    assert _sources(done.stdout) == {"good.pdf", "good.md", "notes.txt"}
    errors = [line for line in done.stderr.splitlines() if line.startswith("ragchunk: error:")]
    for name in ("truncated.pdf", "encrypted.pdf", "bad.docx"):
        mine = [line for line in errors if name in line]
        assert len(mine) == 1, (name, errors)
        assert mine[0].count(name) == 1, mine[0]
    assert "pass password=" in next(line for line in errors if "encrypted.pdf" in line)
    assert len(errors) == 3, errors


@pytest.fixture
def linked(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.md").write_text(GOOD, encoding="utf-8")
    (root / "z.md").write_text(GOOD, encoding="utf-8")
    os.symlink(root / "gone.md", root / "m.md")
    return root


def _one_link_error(stderr: str) -> None:
    _clean(stderr)
    lines = [line for line in stderr.splitlines() if "m.md" in line]
    assert len(lines) == 1 and "broken symbolic link" in lines[0], stderr


def test_chunk_skips_a_broken_symlink(backend: str, linked: Path) -> None:
    done = _run(backend, "chunk", str(linked))
    _one_link_error(done.stderr)
    assert done.returncode == 1
    assert _sources(done.stdout) == {"a.md", "z.md"}


def test_chunk_documents_skips_a_broken_symlink(backend: str, linked: Path) -> None:
    pytest.importorskip("pypdfium2")
    done = _run(backend, "chunk", "--documents", str(linked))
    _one_link_error(done.stderr)
    assert _sources(done.stdout) == {"a.md", "z.md"}


def test_count_skips_a_broken_symlink(backend: str, linked: Path) -> None:
    done = _run(backend, "count", str(linked))
    _one_link_error(done.stderr)
    counted = [line for line in done.stdout.splitlines() if line.endswith(".md")]
    assert [os.path.basename(line.split("\t")[1]) for line in counted] == ["a.md", "z.md"]


def test_ingest_skips_a_broken_symlink(backend: str, linked: Path, tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    store = tmp_path / "store"
    done = _run(backend, "ingest", str(linked), "--into", f"parquet:{store}")
    _one_link_error(done.stderr)
    import pyarrow.parquet as pq

    table = pq.read_table(store)
    assert {os.path.basename(s) for s in table.column("source_id").to_pylist()} == {
        "a.md",
        "z.md",
    }


# Plain mistakes: one line naming the input, no traceback.


def _one_line(done: subprocess.CompletedProcess[str], *needles: str) -> str:
    _clean(done.stderr)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def test_view_a_missing_file(backend: str, tmp_path: Path) -> None:
    out = tmp_path / "view.html"
    done = _run(backend, "view", str(tmp_path / "MISSING.pdf"), "--out", str(out))
    _one_line(done, "MISSING.pdf", "No such file")
    assert not out.exists()


def test_view_a_pdf_without_pillow(backend: str, tmp_path: Path) -> None:
    pytest.importorskip("pypdfium2")
    out = tmp_path / "view.html"
    script = (
        "import sys\nsys.modules['PIL'] = None\nfrom ragchunk.cli import main\n"
        f"sys.exit(main(['view', {str(SAMPLE_PDF)!r}, '--out', {str(out)!r}]))"
    )
    env = dict(os.environ, RAGCHUNK_BACKEND=backend)
    env["PYTHONPATH"] = PYTHONPATH + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300
    )
    _one_line(done, "sample.pdf", "Pillow", "ragchunk[images]")
    assert not out.exists(), "an empty page was left behind"


def test_view_latin1_text_names_the_file(backend: str, tmp_path: Path) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes("Café crème, déjà vu.\n".encode("latin-1"))
    out = tmp_path / "view.html"
    _one_line(_run(backend, "view", str(path), "--out", str(out)), "latin1.txt", "UTF-8")
    assert not out.exists()


@pytest.mark.parametrize("scheme", ["parquet", "lancedb"])
def test_ingest_into_a_file(backend: str, tmp_path: Path, scheme: str) -> None:
    pytest.importorskip("pyarrow")
    if scheme == "lancedb":
        pytest.importorskip("lancedb")
    src = tmp_path / "a.md"
    src.write_text(GOOD, encoding="utf-8")
    target = tmp_path / "store.txt"
    target.write_text("not a folder", encoding="utf-8")
    done = _run(backend, "ingest", str(src), "--into", f"{scheme}:{target}", "-q")
    _one_line(done, "store.txt", "is a file")
    assert target.read_text(encoding="utf-8") == "not a folder"


def test_view_semantic_without_wordllama(backend: str, tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    path = tmp_path / "a.md"
    path.write_text(GOOD, encoding="utf-8")
    script = (
        "import sys\nsys.modules['wordllama'] = None\nfrom ragchunk.cli import main\n"
        f"sys.exit(main(['view', {str(path)!r}, '--chunker', 'semantic', '--out', "
        f"{str(tmp_path / 'v.html')!r}]))"
    )
    env = dict(os.environ, RAGCHUNK_BACKEND=backend)
    env["PYTHONPATH"] = PYTHONPATH + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300
    )
    _one_line(done, "ragchunk[wordllama]")
