"""chunk_table: the Arrow path gives, row for row, what each chunker's split_batch gives."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import ragchunk
from ragchunk.io.arrow import OUTPUT_COLUMNS, chunk_table, has_arrow_path

pa = pytest.importorskip("pyarrow")

DOCS = [
    "Hello world. This is the first document, with two sentences.",
    "",
    "第一段。第二段很长很长。\n\nThird paragraph 🦀 with emoji and ünïcödé text.",
    "# Title\n\nSome markdown text.\n\n## Part\n\nMore text here, and more after it.",
    "short",
    '# Tab"le\\\n\n| a | b |\n|---|---|\n| 1 | x |\n| 2 | y |\n| 3 | z |\n| 4 | w |\n',
    "第一章 总则\n本法所称的对象。\n第一节 定义\n定义如下。\n1.2 Scope\nText\x1c here.",
    "<h1>Guide</h1><p>Intro &amp; more.</p><h2>Install</h2><ul><li>pip</li><li>uv</li></ul>",
    "def f(a):\n    return a\n\n\nclass C:\n    def m(self):\n        pass\n",
]

CHUNKERS = [
    ragchunk.CharacterSplitter(10, 3),
    ragchunk.TokenWindowSplitter(5, 1),
    ragchunk.RecursiveSplitter(8, 2),
    ragchunk.RecursiveSplitter(20, 0, length="chars"),
    ragchunk.SentenceSplitter(12),
    ragchunk.MarkdownSplitter(10),
    ragchunk.MarkdownSplitter(24, 4, strip_headers=True, length="chars"),
    ragchunk.HTMLSplitter(8),
    ragchunk.MarkdownSplitter(80, length="chars", merge_sections=True),
    ragchunk.HTMLSplitter(64, length="chars", merge_sections=True),
    ragchunk.CodeSplitter("python", 8),
    ragchunk.TitleTreeChunker(10),
    ragchunk.TitleTreeChunker(12, length="chars", title_source="numbered"),
    ragchunk.TitleTreeChunker(16, title_source="html"),
    ragchunk.RecursiveSplitter(8, 0, tokenizer=lambda s: len(s.split())),
]


def chunker_id(chunker: Any) -> str:
    """The chunker's repr without object addresses, so that every collection gives the same ids."""
    return re.sub(r" at 0x[0-9a-f]+", "", repr(chunker))


def expected_rows(chunker: Any, docs: list[str], ids: list[Any]) -> list[dict[str, Any]]:
    rows = []
    for doc_id, chunks in zip(ids, chunker.split_batch(docs), strict=True):
        for k, c in enumerate(chunks):
            rows.append(
                {
                    "id": doc_id,
                    "chunk_index": k,
                    "text": c.text,
                    "start": c.start,
                    "end": c.end,
                    "token_count": c.token_count,
                    "metadata": json.loads(json.dumps(dict(c.metadata))),
                }
            )
    return rows


def rows_of(table: Any) -> list[dict[str, Any]]:
    rows = table.to_pylist()
    for r in rows:
        r["metadata"] = json.loads(r["metadata"])
    return rows


@pytest.mark.parametrize("chunker", CHUNKERS, ids=chunker_id)
@pytest.mark.parametrize("kind", ["string", "large_string"])
def test_rows_equal_split_batch(chunker: Any, kind: str) -> None:
    ids = list(range(100, 100 + len(DOCS)))
    table = pa.table({"id": ids, "text": pa.array(DOCS, type=getattr(pa, kind)())})
    out = chunk_table(table, chunker, id_columns=["id"])
    assert out.column_names == ["id", *OUTPUT_COLUMNS]
    assert rows_of(out) == expected_rows(chunker, DOCS, ids)
    assert out.column("metadata").to_pylist() == [
        json.dumps(dict(c.metadata), ensure_ascii=False)
        for chunks in chunker.split_batch(DOCS)
        for c in chunks
    ]
    for r in out.to_pylist():
        if r["metadata"] == "{}":
            assert r["text"] == DOCS[r["id"] - 100][r["start"] : r["end"]]


def test_rejoined_chunks_keep_their_own_text_and_metadata() -> None:
    chunker = ragchunk.RecursiveSplitter(4, 2, keep_separator=False)
    docs = ["alpha  beta\n\n\ngamma  delta   epsilon zeta\n\n\n\neta theta"]
    out = rows_of(chunk_table(pa.table({"id": [1], "text": docs}), chunker, id_columns="id"))
    assert out == expected_rows(chunker, docs, [1])
    assert any(r["metadata"] == {"rejoined": True} for r in out)


def test_slices_chunked_arrays_and_record_batches() -> None:
    chunker = ragchunk.CharacterSplitter(7, 2)
    big = pa.array(DOCS * 3)
    sliced = big.slice(3, 8)
    docs = sliced.to_pylist()
    chunked = pa.chunked_array([sliced.slice(0, 3), sliced.slice(3)])
    table = pa.table({"id": list(range(8)), "text": chunked})
    assert rows_of(chunk_table(table, chunker, id_columns=["id"])) == expected_rows(
        chunker, docs, list(range(8))
    )
    batch = pa.RecordBatch.from_pydict({"id": list(range(8)), "text": sliced})
    assert rows_of(chunk_table(batch, chunker, id_columns=["id"])) == expected_rows(
        chunker, docs, list(range(8))
    )


class Stream:
    """Any producer of the Arrow C stream interface (polars, DuckDB...)."""

    def __init__(self, table: Any) -> None:
        self.table = table

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        return self.table.__arrow_c_stream__(requested_schema)


def test_arrow_c_stream_input() -> None:
    chunker = ragchunk.SentenceSplitter(12)
    out = chunk_table(Stream(pa.table({"text": DOCS})), chunker)
    assert out.column("text").to_pylist() == [c.text for d in DOCS for c in chunker.split(d)]


def test_null_rows_error_names_the_row_or_are_skipped() -> None:
    chunker = ragchunk.CharacterSplitter(5)
    table = pa.table({"id": [1, 2, 3], "text": ["abcdefg", None, "xy"]})
    with pytest.raises(ValueError, match="row 1"):
        chunk_table(table, chunker, id_columns=["id"])
    out = chunk_table(table, chunker, id_columns=["id"], on_null="skip")
    assert out.select(["id", "text"]).to_pylist() == [
        {"id": 1, "text": "abcde"},
        {"id": 1, "text": "fg"},
        {"id": 3, "text": "xy"},
    ]


def test_bad_arguments_are_named() -> None:
    chunker = ragchunk.CharacterSplitter(5)
    with pytest.raises(TypeError, match="'text' must hold strings"):
        chunk_table(pa.table({"text": [1, 2]}), chunker)
    with pytest.raises(ValueError, match="no column 'body'"):
        chunk_table(pa.table({"text": ["a"]}), chunker, text_column="body")
    with pytest.raises(ValueError, match="on_null"):
        chunk_table(pa.table({"text": ["a"]}), chunker, on_null="drop")
    with pytest.raises(TypeError, match="chunker"):
        chunk_table(pa.table({"text": ["a"]}), len)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="table must be"):
        chunk_table([["a"]], chunker)


def test_invalid_utf8_names_the_row() -> None:
    data = pa.py_buffer(b"ok\xff\xfe")
    offsets = pa.py_buffer(pa.array([0, 2, 4], type=pa.int32()).buffers()[1])
    arr = pa.Array.from_buffers(pa.string(), 2, [None, offsets, data])
    table = pa.table({"text": arr})
    in_place = "row 1: not valid UTF-8"
    match = in_place if has_arrow_path(ragchunk.CharacterSplitter(5)) else r"not valid UTF-8.*1"
    with pytest.raises(ValueError, match=match):
        chunk_table(table, ragchunk.CharacterSplitter(5))
    with pytest.raises(ValueError, match=r"not valid UTF-8.*1"):
        chunk_table(table, ragchunk.JSONSplitter(5))  # no in-place path


def test_token_chunker_rows() -> None:
    chunker = ragchunk.SplitterComponent(16)
    out = chunk_table(pa.table({"text": DOCS}), chunker)
    assert out.column("text").to_pylist() == [c["content"] for d in DOCS for c in chunker.invoke(d)]
    assert set(out.column("start").to_pylist()) == {None}


def test_empty_and_all_empty_inputs() -> None:
    chunker = ragchunk.CharacterSplitter(5)
    assert chunk_table(pa.table({"text": pa.array([], pa.string())}), chunker).num_rows == 0
    assert chunk_table(pa.table({"text": ["", ""]}), chunker).num_rows == 0


def test_arrow_path_is_used_on_rust() -> None:
    expected = ragchunk.backend == "rust"
    for chunker in CHUNKERS:
        assert has_arrow_path(chunker) is expected, chunker
    assert not has_arrow_path(ragchunk.JSONSplitter(8))


def test_table_continuations_carry_their_header() -> None:
    doc = "| a | b |\n|---|---|\n" + "".join(f"| {i} | {'w' * 8} |\n" for i in range(12))
    chunker = ragchunk.MarkdownSplitter(40, length="chars")
    out = rows_of(chunk_table(pa.table({"id": [1], "text": [doc]}), chunker, id_columns="id"))
    assert out == expected_rows(chunker, [doc], [1])
    added = [r for r in out if "added_prefix" in r["metadata"]]
    assert added and all(r["text"].startswith("| a | b |\n|---|---|\n") for r in added)
    assert all(
        r["text"] == r["metadata"]["added_prefix"] + doc[r["start"] : r["end"]] for r in added
    )


def test_metadata_escapes_like_json_dumps() -> None:
    doc = '# Q "x" \\ y\x01\t\n\nBody.\n\n## é\x7f\u2028\n\nMore.'
    chunker = ragchunk.MarkdownSplitter(64, length="chars")
    out = chunk_table(pa.table({"text": [doc]}), chunker)
    want = [json.dumps(dict(c.metadata), ensure_ascii=False) for c in chunker.split(doc)]
    assert out.column("metadata").to_pylist() == want
