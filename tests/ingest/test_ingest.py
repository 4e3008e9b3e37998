"""ingest() end to end on real stores: changes between runs end in the clean-run store,
unchanged sources cost nothing, failures keep their previous chunks, one writer at a time."""

from __future__ import annotations

import io
import os
import time
from pathlib import Path
from typing import Any

import ingest_helpers as h
import pytest
import ragchunk
from ragchunk.cli import main
from ragchunk.ingest import (
    IngestLockedError,
    Source,
    StoreLock,
    ingest,
    open_store,
)

pytest.importorskip("pyarrow")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

KINDS = ["lancedb", "parquet", "chroma"]


def _skip_missing(kind: str) -> None:
    if kind == "lancedb":
        pytest.importorskip("lancedb")
    if kind == "chroma":
        pytest.importorskip("chromadb")


@pytest.fixture(params=KINDS)
def kind(request: pytest.FixtureRequest) -> str:
    _skip_missing(request.param)
    return str(request.param)


def test_changes_between_runs_end_in_the_clean_run_store(kind: str, tmp_path: Path) -> None:
    src = tmp_path / "src"
    h.write_corpus(src, 1)
    store = f"{kind}:{tmp_path / 'store'}"
    first = h.run_ingest(store, str(src), "full")
    assert (first.added, first.changed, first.failed) == (12, 0, 0)
    h.write_corpus(src, 2)  # 3 modified, 2 added, 2 deleted, 1 renamed
    second = h.run_ingest(store, str(src), "full")
    assert (second.added, second.changed, second.unchanged, second.deleted) == (3, 3, 6, 3)
    assert second.chunks_deleted > 0 and second.chunks_written > 0
    clean = f"{kind}:{tmp_path / 'clean'}"
    h.run_ingest(clean, str(src), "full")
    got, want = h.rows(store), h.rows(clean)
    assert got == want
    assert {r["source_id"] for r in got} == {
        p.relative_to(src).as_posix() for p in src.rglob("*.md")
    }
    # the renamed file's chunks moved with it: same text, new source id
    assert any(r["source_id"] == "sub/renamed07.md" for r in got)
    assert not any(r["source_id"] == "doc07.md" for r in got)


def test_chunker_change_rechunks_everything(kind: str, tmp_path: Path) -> None:
    src = tmp_path / "src"
    h.write_corpus(src, 1)
    store = f"{kind}:{tmp_path / 'store'}"
    h.run_ingest(store, str(src), "full")
    other = ragchunk.RecursiveSplitter(16, 4)
    report = ingest([src], store, other, embedder=h.embed, base=src, batch_size=5)
    assert report.changed == 12 and report.unchanged == 0
    clean = f"{kind}:{tmp_path / 'clean'}"
    ingest([src], clean, other, embedder=h.embed, base=src)
    assert h.rows(store) == h.rows(clean)
    assert {r["config_hash"] for r in h.rows(store)} == {r["config_hash"] for r in h.rows(clean)}


def test_unchanged_sources_are_not_parsed_embedded_or_written(tmp_path: Path) -> None:
    pytest.importorskip("lancedb")
    src = tmp_path / "src"
    h.write_corpus(src, 1)
    store = f"lancedb:{tmp_path / 'store'}"
    parsed: list[str] = []
    embedded: list[int] = []

    def reader(path: str, data: bytes) -> str:
        parsed.append(path)
        return data.decode()

    def embed(texts: list[str]) -> Any:
        embedded.append(len(texts))
        return h.embed(texts)

    def run() -> Any:
        return ingest([src], store, h.chunker(), embedder=embed, readers={".md": reader}, base=src)

    first = run()
    rows = h.rows(store)
    assert len(parsed) == 12 and sum(embedded) == first.embeddings_computed > 0
    version = open_store(store)._open().version  # type: ignore[attr-defined]
    parsed.clear()
    embedded.clear()
    again = run()
    assert (again.unchanged, again.chunks_written, again.embeddings_computed) == (12, 0, 0)
    assert parsed == [] and embedded == []
    assert open_store(store)._open().version == version  # type: ignore[attr-defined]
    # a lost manifest re-chunks everything, but the embedding cache re-embeds nothing
    (tmp_path / "store" / "_ragchunk_manifest.sqlite").unlink()
    third = run()
    assert third.added == 12 and third.embeddings_computed == 0 and embedded == []
    assert third.embeddings_reused == first.embeddings_computed + first.embeddings_reused
    assert h.rows(store) == rows  # the same ids: the upserts changed nothing


def test_a_source_that_fails_keeps_its_previous_chunks(kind: str, tmp_path: Path) -> None:
    src = tmp_path / "src"
    h.write_corpus(src, 1)
    store = f"{kind}:{tmp_path / 'store'}"
    h.run_ingest(store, str(src), "full")
    before = [r for r in h.rows(store) if r["source_id"] == "doc01.md"]
    assert before
    (src / "doc01.md").write_bytes(b"\xff\xfe not UTF-8 \xff")  # changed, and unreadable
    (src / "doc02.md").write_text("# New\n\nA new version of two.\n", encoding="utf-8")
    report = h.run_ingest(store, str(src), "full")
    assert report.failed == 1 and report.changed == 1
    assert report.failures[0][0] == "doc01.md" and "UnicodeDecodeError" in report.failures[0][1]
    after = h.rows(store)
    assert [r for r in after if r["source_id"] == "doc01.md"] == before
    assert [r["text"] for r in after if r["source_id"] == "doc02.md"][-1].endswith("two.")
    # fixed, the next run rewrites it
    (src / "doc01.md").write_text("# Fixed\n\nRepaired.\n", encoding="utf-8")
    fixed = h.run_ingest(store, str(src), "full")
    assert fixed.changed == 1 and fixed.failed == 0
    assert [r["text"] for r in h.rows(store) if r["source_id"] == "doc01.md"] == [
        "# Fixed\n\nRepaired."
    ]


def test_cleanup_modes(tmp_path: Path) -> None:
    docs = [Source("a", "Alpha one. Alpha two."), Source("b", "Beta.")]
    chunker = ragchunk.RecursiveSplitter(6)
    store = f"parquet:{tmp_path / 'p'}"
    ingest(docs, store, chunker)
    texts = lambda: sorted(r["text"] for r in h.rows(store))  # noqa: E731
    # incremental: a source left out keeps its chunks; a changed one is replaced
    ingest([Source("a", "Alpha three.")], store, chunker, cleanup="incremental")
    assert texts() == ["Alpha three.", "Beta."]
    # None: a changed source's old chunks stay beside the new ones
    ingest([Source("a", "Alpha four.")], store, chunker, cleanup=None)
    assert texts() == ["Alpha four.", "Alpha three.", "Beta."]
    # full: only what this run names; the kept old chunks go too
    report = ingest([Source("a", "Alpha four.")], store, chunker, cleanup="full")
    assert texts() == ["Alpha four."]
    assert (report.deleted, report.chunks_deleted) == (1, 2)


def test_second_writer_is_refused(tmp_path: Path) -> None:
    store = f"parquet:{tmp_path / 'p'}"
    with StoreLock(str(tmp_path / "p" / "_ragchunk_manifest.sqlite.lock")):
        with pytest.raises(IngestLockedError, match="another ingest run"):
            ingest([Source("a", "x")], store, ragchunk.CharacterSplitter(4))
    assert ingest([Source("a", "x")], store, ragchunk.CharacterSplitter(4)).added == 1


@pytest.mark.single_backend
def test_second_writer_process_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "src"
    h.write_corpus(src, 1)
    store = f"parquet:{tmp_path / 'p'}"
    slow = h.child(store, src, "full", extra_env={"INGEST_TEST_EMBED_SECONDS": "0.5"}, wait=False)
    try:
        deadline = time.monotonic() + 60
        lock = tmp_path / "p" / "_ragchunk_manifest.sqlite.lock"
        while not (lock.exists() and lock.read_text().strip()):
            assert time.monotonic() < deadline and slow.poll() is None
            time.sleep(0.05)
        with pytest.raises(IngestLockedError, match=f"process {slow.pid}"):
            h.run_ingest(store, str(src), "full")
    finally:
        slow.wait(120)
    assert slow.returncode == 0, slow.stderr.read()
    slow.stdout.close()
    slow.stderr.close()


def test_bad_arguments_are_named(tmp_path: Path) -> None:
    chunker = ragchunk.CharacterSplitter(4)
    store = f"parquet:{tmp_path / 'p'}"
    with pytest.raises(ValueError, match="cleanup must be"):
        ingest([], store, chunker, cleanup="everything")
    with pytest.raises(TypeError, match="chunker must be"):
        ingest([], store, "recursive")
    with pytest.raises(ValueError, match="store must be lancedb:DIR"):
        ingest([], "mysql://x", chunker)
    with pytest.raises(TypeError, match="sources must hold"):
        ingest([42], store, chunker)  # type: ignore[list-item]
    with pytest.raises(ValueError, match="batch_size"):
        ingest([], store, chunker, batch_size=0)
    report = ingest([str(tmp_path / "nothing-here")], store, chunker)
    assert report.failed == 1 and "no such file" in report.failures[0][1]


@pytest.mark.single_backend
def test_chroma_needs_embeddings(tmp_path: Path) -> None:
    pytest.importorskip("chromadb")
    with pytest.raises(ValueError, match="needs embeddings"):
        ingest([Source("a", "text")], f"chroma:{tmp_path}", ragchunk.CharacterSplitter(4))


def test_pipeline_component_rows_and_headings(tmp_path: Path) -> None:
    store = f"parquet:{tmp_path / 'p'}"
    ingest([Source("a", "# T\n\n## S\n\nBody text.")], store, ragchunk.MarkdownSplitter(8))
    rows = h.rows(store)
    assert [r["heading_path"] for r in rows if r["text"].endswith("Body text.")] == [["T", "S"]]
    ingest([Source("b", "One.\nTwo.")], f"parquet:{tmp_path / 'q'}", ragchunk.SplitterComponent())
    (row,) = h.rows(f"parquet:{tmp_path / 'q'}")
    assert row["start"] is None and row["text"] == "One.\nTwo."


@pytest.mark.single_backend
def test_cli_ingest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("lancedb")
    src = tmp_path / "docs"
    h.write_corpus(src, 1)
    store = f"lancedb:{tmp_path / 'index'}"
    assert main(["ingest", str(src), "--into", store, "--base", str(src)]) == 0
    assert "12 added" in capsys.readouterr().err
    assert main(["ingest", str(src), "--into", store, "--base", str(src)]) == 0
    assert "12 unchanged" in capsys.readouterr().err
    assert len(h.rows(store)) >= 12
    (src / "bad.md").write_bytes(b"\xff")
    assert main(["ingest", str(src), "--into", store, "-q", "--base", str(src)]) == 1
    assert "bad.md" in capsys.readouterr().err
    assert main(["ingest", str(src), "--into", "nosuch:x"]) == 2


@pytest.mark.single_backend
def test_chroma_server_restart_mid_run(tmp_path: Path) -> None:
    """The server is killed while a run writes to it and started again: the run goes on and
    ends in the clean-run store."""
    pytest.importorskip("chromadb")
    from chroma_server import ChromaServer

    src = tmp_path / "src"
    h.write_corpus(src, 1)
    manifest = str(tmp_path / "m.sqlite")
    trace = tmp_path / "trace"
    with ChromaServer(tmp_path / "data") as server:
        store = server.url("restart")
        run = h.child(
            store,
            src,
            "full",
            manifest=manifest,
            trace=trace,
            extra_env={"INGEST_TEST_EMBED_SECONDS": "0.3"},
            wait=False,
        )
        deadline = time.monotonic() + 60
        while not (trace.exists() and "commit" in trace.read_text()):
            assert time.monotonic() < deadline and run.poll() is None
            time.sleep(0.05)
        server.kill()
        time.sleep(1.0)
        server.start()
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
        assert "12 added" in out
        got = h.rows(store)
        h.run_ingest(server.url("cleanrun"), str(src), "full", str(tmp_path / "c.sqlite"))
        assert got == h.rows(server.url("cleanrun"))
    assert server.proc is None


@pytest.mark.parametrize(
    "chunker",
    [ragchunk.RecursiveSplitter(12), ragchunk.MarkdownSplitter(12)],
    ids=["plain", "headings"],
)
def test_row_ids_are_chunk_id_of_each_row(chunker: Any, tmp_path: Path) -> None:
    import json

    from ragchunk.ingest import chunk_id, config_hash

    docs = [
        Source("a.md", "# Title\n\nSome words here. 第一段。 More words there.\n\n## Two\n\nEnd."),
        Source("b.md", "Plain text, nothing else at all.", {"lang": "en"}),
        Source("c.md", ""),
    ]
    store = f"parquet:{tmp_path / 'store'}"
    ingest(docs, store, chunker)
    rows = open_store(store).read().to_pylist()
    assert {r["source_id"] for r in rows} == {"a.md", "b.md"}
    config = config_hash(chunker)
    for r in rows:
        rest = json.dumps(
            [r["heading_path"], r["pages"], r["boxes"], r["metadata"]], ensure_ascii=False
        )
        want = chunk_id(
            r["source_id"], config, r["chunk_index"], r["start"], r["end"], r["text"], rest
        )
        assert r["id"] == want
        assert r["config_hash"] == config
    b_rows = [r for r in rows if r["source_id"] == "b.md"]
    assert all(json.loads(r["metadata"]) == {"lang": "en"} for r in b_rows)
    if isinstance(chunker, ragchunk.MarkdownSplitter):
        assert any(r["heading_path"] for r in rows if r["source_id"] == "a.md")


def test_fts_option_builds_a_full_text_index(tmp_path: Path) -> None:
    lancedb = pytest.importorskip("lancedb")
    docs = [
        Source("a", "The quick brown fox jumps over the lazy dog."),
        Source("b", "A completely different sentence about databases."),
    ]
    store = f"lancedb:{tmp_path / 'store'}?fts=true"
    ingest(docs, store, ragchunk.RecursiveSplitter(64))
    table = lancedb.connect(str(tmp_path / "store")).open_table("chunks")
    hits = table.search("fox", query_type="fts").limit(5).to_list()
    assert [r["source_id"] for r in hits] == ["a"]
    # a changed source: the index is rebuilt with the new text, the old text is gone
    docs[1] = Source("b", "Now this one mentions a fox as well.")
    ingest(docs, store, ragchunk.RecursiveSplitter(64))
    table = lancedb.connect(str(tmp_path / "store")).open_table("chunks")
    hits = table.search("fox", query_type="fts").limit(5).to_list()
    assert sorted(r["source_id"] for r in hits) == ["a", "b"]
    assert table.search("databases", query_type="fts").limit(5).to_list() == []
    # without the option there is no index to search
    plain = tmp_path / "plain"
    ingest(docs, f"lancedb:{plain}", ragchunk.RecursiveSplitter(64))
    assert lancedb.connect(str(plain)).open_table("chunks").list_indices() == []


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "src"
    h.write_corpus(src, 1)
    (src / "bad.md").write_bytes(b"\xff\xfe\x00")
    err = _Terminal()
    monkeypatch.setattr("sys.stderr", err)
    report = ingest([src], f"parquet:{tmp_path / 'store'}", h.chunker(), progress=True)
    assert report.added == 12 and report.failed == 1
    last = err.getvalue().rstrip("\n").split("\r")[-1]
    assert "13/13 files" in last and f"{report.chunks_written} chunks" in last, last
    assert "pages/s" in last and "ETA 00:00" in last and "1 failed" in last, last
    assert err.getvalue().endswith("\n")
    quiet = _Terminal()
    monkeypatch.setattr("sys.stderr", quiet)
    ingest([src], f"parquet:{tmp_path / 'other'}", h.chunker(), progress=False)
    assert quiet.getvalue() == ""


@pytest.mark.single_backend
def test_docstring_examples() -> None:
    import doctest
    import importlib

    names = ("", ".manifest", ".pipeline", ".sources", ".stores", ".ray", "._faults", "cli")
    names += (".rows", ".workers", ".progress", ".search")
    for name in names:
        module = importlib.import_module(
            "ragchunk.cli.ingest" if name == "cli" else "ragchunk.ingest" + name
        )
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0 and result.attempted > 0, f"{module.__name__}: {result}"


def test_hash_cache_by_size_and_mtime(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    old, racy = src / "old.md", src / "racy.md"
    old.write_text("First words here.", encoding="utf-8")
    racy.write_text("Racy words here.", encoding="utf-8")
    past = 1_600_000_000 * 10**9
    os.utime(old, ns=(past, past))  # hashed long after its last change: cached
    store = f"parquet:{tmp_path / 'store'}"
    chunker = ragchunk.RecursiveSplitter(64)
    assert ingest([src], store, chunker, base=src).added == 2
    # same size, same mtime, other bytes: the cached hash hides the change (as rsync's
    # quick check would); the file modified just before the run is hashed again
    old.write_text("Other words here.", encoding="utf-8")
    os.utime(old, ns=(past, past))
    stat = racy.stat()
    racy.write_text("Racy wordz here.", encoding="utf-8")
    os.utime(racy, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    again = ingest([src], store, chunker, base=src)
    assert (again.unchanged, again.changed) == (1, 1)
    texts = {r["source_id"]: r["text"] for r in open_store(store).read().to_pylist()}
    assert texts == {"old.md": "First words here.", "racy.md": "Racy wordz here."}
    # rehash=True reads every file
    forced = ingest([src], store, chunker, base=src, rehash=True)
    assert (forced.unchanged, forced.changed) == (1, 1)
    texts = {r["source_id"]: r["text"] for r in open_store(store).read().to_pylist()}
    assert texts["old.md"] == "Other words here."
    assert main(["ingest", str(src), "--into", store, "--base", str(src), "--rehash", "-q"]) == 0
