"""JSONSplitter: valid chunks at full paths, budget, no lost data, bad input, backends agree."""

from __future__ import annotations

import doctest
import itertools
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ragchunk import JSONSplitter
from ragchunk.core import dispatch
from ragchunk.core.chunk import Chunk
from ragchunk.splitters import json as json_module
from testdata import corpus_documents


def _corpus_json() -> Any:
    """Corpus documents as nested JSON: {"docs": [{"name", "lang", "paragraphs": [...]}]}."""
    docs = []
    for name, text in corpus_documents()[:6]:
        paras = [p for p in text.split("\n\n") if p.strip()][:40]
        docs.append({"name": name, "meta": {"chars": len(text), "ok": True}, "paragraphs": paras})
    docs.append(
        {"name": "中文", "paragraphs": ["第一章 总则。本办法适用于所有人。" * 8, "你好，世界"]}
    )
    return {"docs": docs, "empty": {}, "none": None, "list": []}


CORPUS_JSON = _corpus_json()


@pytest.fixture(scope="module")
def cl100k_count() -> Any:
    import tiktoken

    enc = tiktoken.get_encoding("cl100k_base")
    return lambda t: len(enc.encode_ordinary(t))


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, dict) and value:
        return [x for k, v in value.items() for x in _leaves(v, (*path, k))]
    if isinstance(value, list) and value:
        return [x for i, v in enumerate(value) for x in _leaves(v, (*path, i))]
    return [(path, value)]


def _get(chunk_obj: Any, path: list[Any]) -> Any:
    """Follow a path in chunk JSON, where a cut array is an object keyed by str(index)."""
    node = chunk_obj
    for key in path:
        if isinstance(node, list):
            node = node[key]
        else:
            node = node[str(key)]
    return node


def _check(data: Any, chunks: list[Chunk], size: int, count: Any) -> None:
    leaves = _leaves(data)
    # start/end are leaf ordinals: the chunks partition the leaves in order
    assert chunks[0].start == 0 and chunks[-1].end == len(leaves)
    for a, b in itertools.pairwise(chunks):
        assert a.end == b.start
    found: list[tuple[tuple[Any, ...], Any]] = []
    for c in chunks:
        assert c.start < c.end
        obj = json.loads(c.text)
        # The text is built incrementally; it must be exactly the one serialization.
        assert c.text == json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))
        assert c.token_count == count(c.text)
        n = 0
        for path in c.metadata["paths"]:
            sub = _leaves(data if not path else _get(data, path), tuple(path))
            for p, v in sub:
                assert _get(obj, list(p)) == v
            found.extend(sub)
            n += len(sub)
        assert n == c.end - c.start
        # nothing else in the chunk than the listed paths
        assert len(_leaves(obj)) == n
        if c.token_count > size:  # documented: one leaf alone
            assert c.end - c.start == 1 and len(c.metadata["paths"]) == 1
    assert found == leaves


@pytest.mark.parametrize("size", [16, 64, 300])
def test_corpus_json_tokens(size: int, cl100k_count: Any) -> None:
    s = JSONSplitter(max_chunk_size=size)
    chunks = s.split_json(CORPUS_JSON)
    _check(CORPUS_JSON, chunks, size, cl100k_count)
    assert s.split(json.dumps(CORPUS_JSON)) == chunks
    assert any("中文" in c.text for c in chunks)


@pytest.mark.parametrize("size", [1, 40, 200])
@pytest.mark.parametrize("min_size", [None, 0, 1])
def test_corpus_json_chars(size: int, min_size: int | None) -> None:
    s = JSONSplitter(max_chunk_size=size, min_chunk_size=min(min_size or 0, size), length="chars")
    _check(CORPUS_JSON, s.split_json(CORPUS_JSON), size, len)


def test_paths_and_nesting() -> None:
    s = JSONSplitter(max_chunk_size=16, length="chars")
    chunks = s.split_json({"a": {"b": 1, "c": 2}, "d": [3, 4]})
    assert [c.text for c in chunks] == ['{"a": {"b": 1}}', '{"a": {"c": 2}}', '{"d": [3, 4]}']
    assert [c.metadata["paths"] for c in chunks] == [[["a", "b"]], [["a", "c"]], [["d"]]]
    assert [(c.start, c.end) for c in chunks] == [(0, 1), (1, 2), (2, 4)]
    # a cut array becomes an object keyed by index
    cut = s.split_json({"d": [1234567, 7654321]})
    assert [c.text for c in cut] == ['{"d": {"0": 1234567}}', '{"d": {"1": 7654321}}']
    assert cut[0].metadata["paths"] == [["d", 0]]
    # all of it fits: one chunk, the document itself
    whole = JSONSplitter(max_chunk_size=100, length="chars").split('{"x": [1, {"y": "z"}]}')
    assert [c.text for c in whole] == ['{"x": [1, {"y": "z"}]}']


def test_min_chunk_size_fills_before_recursing() -> None:
    data = {"a": 1, "b": {"c": 2, "d": 3}}
    loose = JSONSplitter(max_chunk_size=24, length="chars").split_text(json.dumps(data))
    assert loose == ['{"a": 1}', '{"b": {"c": 2, "d": 3}}']
    tight = JSONSplitter(max_chunk_size=24, min_chunk_size=24, length="chars").split_json(data)
    assert [c.text for c in tight] == ['{"a": 1, "b": {"c": 2}}', '{"b": {"d": 3}}']
    assert [c.metadata["paths"] for c in tight] == [[["a"], ["b", "c"]], [["b", "d"]]]


def test_roots_and_oversize_leaf() -> None:
    s = JSONSplitter(max_chunk_size=4, length="chars")
    assert s.split_text("[]") == ["[]"]
    assert s.split_text('"long string"') == ['"long string"']
    assert s.split_text("{}") == ["{}"]
    big = s.split_json({"k": "a very long value", "m": 1})
    assert [c.text for c in big] == ['{"k": "a very long value"}', '{"m": 1}']
    assert big[0].token_count > 4


def test_chinese_tokens(cl100k_count: Any) -> None:
    data = {"标题": "总则", "条款": [f"第{i}条 本办法适用于所有人。" for i in range(30)]}
    chunks = JSONSplitter(max_chunk_size=40).split_json(data)
    assert len(chunks) > 1
    _check(data, chunks, 40, cl100k_count)
    assert all("\\u" not in c.text for c in chunks)  # ensure_ascii=False


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=5), inner, max_size=5)
    ),
    max_leaves=30,
)


@given(data=_json, size=st.integers(1, 60), min_size=st.integers(0, 60))
def test_property_no_lost_data(data: Any, size: int, min_size: int) -> None:
    s = JSONSplitter(max_chunk_size=size, min_chunk_size=min(min_size, size), length="chars")
    _check(data, s.split_json(data), size, len)


@given(data=_json, size=st.integers(1, 40))
def test_property_tokens(data: Any, size: int) -> None:
    import tiktoken

    enc = tiktoken.get_encoding("cl100k_base")
    s = JSONSplitter(max_chunk_size=size)
    _check(data, s.split_json(data), size, lambda t: len(enc.encode_ordinary(t)))


@pytest.mark.single_backend
@given(data=_json, size=st.integers(1, 40))
def test_backends_agree(data: Any, size: int) -> None:
    s = JSONSplitter(max_chunk_size=size)
    before = dispatch.name()
    try:
        dispatch.set_backend("rust")
        a = s.split_json(data)
        dispatch.set_backend("python")
        b = s.split_json(data)
    finally:
        dispatch.set_backend(before)
    assert a == b


def test_batch_and_split_text() -> None:
    s = JSONSplitter(max_chunk_size=20, length="chars")
    docs = ['{"a": 1}', '{"b": [1, 2, 3, 4, 5, 6, 7, 8]}']
    assert s.split_batch(docs) == [s.split(d) for d in docs]
    assert s.split_batch(docs, workers=2) == [s.split(d) for d in docs]
    assert s.split_text(docs[0]) == ['{"a": 1}']


def test_bad_input() -> None:
    s = JSONSplitter(max_chunk_size=20)
    with pytest.raises(ValueError, match=r"text is not valid JSON: .*line 1 column 7 \(char 6\)"):
        s.split('{"a": }')
    with pytest.raises(TypeError, match="text must be a str"):
        s.split(b"{}")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"data\['a'\]\[1\] must be dict"):
        s.split_json({"a": [1, {1, 2}]})
    with pytest.raises(TypeError, match="keys must be str"):
        s.split_json({1: 2})
    with pytest.raises(ValueError, match=r"data\['x'\]: nan is not valid JSON"):
        s.split_json({"x": float("nan")})
    cyc: list[Any] = []
    cyc.append(cyc)
    with pytest.raises(ValueError, match="cycle"):
        s.split_json(cyc)
    shared = [1, 2]
    assert len(s.split_json({"a": shared, "b": shared})) >= 1  # shared, not a cycle
    with pytest.raises(ValueError, match="lone surrogate"):
        s.split_json({"a": "\ud800"})
    with pytest.raises(TypeError, match=r"texts\[1\] must be a str"):
        s.split_batch(["{}", 3])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="texts must be a list"):
        s.split_batch("{}")
    with pytest.raises(ValueError, match="workers must be >= 1"):
        s.split_batch(["{}"], workers=0)
    with pytest.raises(ValueError, match="max_chunk_size must be >= 1"):
        JSONSplitter(max_chunk_size=0)
    with pytest.raises(TypeError, match="max_chunk_size must be an int"):
        JSONSplitter(max_chunk_size=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"min_chunk_size .* must be <= max_chunk_size"):
        JSONSplitter(max_chunk_size=10, min_chunk_size=11)
    with pytest.raises(ValueError, match="min_chunk_size must be >= 0"):
        JSONSplitter(max_chunk_size=10, min_chunk_size=-1)
    with pytest.raises(ValueError, match="length must be"):
        JSONSplitter(length="words")


def test_repr_and_doctest() -> None:
    # The repr spells the size with the one name every chunker shares.
    assert "JSONSplitter(chunk_size=512" in repr(JSONSplitter())
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner()
    for t in finder.find(json_module.JSONSplitter, "JSONSplitter", globs=vars(json_module)):
        runner.run(t)
    assert runner.failures == 0


def test_custom_tokenizer_and_o200k() -> None:
    data = {"a": "one two three", "b": ["four five", "six"], "c": {"d": "seven eight nine ten"}}
    words = JSONSplitter(max_chunk_size=5, tokenizer=lambda t: len(t.split()))
    chunks = words.split_json(data)
    _check(data, chunks, 5, lambda t: len(t.split()))
    o200 = JSONSplitter(max_chunk_size=12, tokenizer="o200k_base").split_json(data)
    assert len(o200) > 1 and all(json.loads(c.text) for c in o200)


@pytest.mark.single_backend
def test_resumable_count_matches_full_count_and_rejects_bad_offsets() -> None:
    """The core's count_ordinary_resume (used by the token-sized walk): exact from 0, exact
    when resumed at the boundary it reported, a lower bound past ``stop_above``, and a
    ``ValueError`` naming ``start`` for an offset that is not a character boundary."""
    core = dispatch._import_core()
    base = '{"a": "héllo wörld, 你好", "b": {"c": [1, 2, 3]}}'
    for enc in ("cl100k_base", "o200k_base"):
        full = core.count_ordinary(base, enc)
        n, stable, to_stable = core.count_ordinary_resume(base, enc, 0, 2)
        assert n == full and 0 <= to_stable <= full
        grown = base[:-2] + ', "d": "more text here"}}'
        m, _, _ = core.count_ordinary_resume(grown, enc, stable, 2)
        assert to_stable + m == core.count_ordinary(grown, enc)
        capped, _, _ = core.count_ordinary_resume(grown, enc, 0, 2, 3)
        assert 3 < capped <= core.count_ordinary(grown, enc)
    with pytest.raises(ValueError, match="start"):
        core.count_ordinary_resume("é", "cl100k_base", 1, 0)
    with pytest.raises(ValueError, match="start"):
        core.count_ordinary_resume("ab", "cl100k_base", 5, 0)
    with pytest.raises(OverflowError):
        core.count_ordinary_resume("ab", "cl100k_base", -1, 0)
    with pytest.raises(ValueError, match="tokenizer"):
        core.count_ordinary_resume("ab", "p50k_base", 0, 0)


def test_older_size_name() -> None:
    data = {"a": {"b": 1, "c": 2}, "d": [3, 4]}
    old = JSONSplitter(max_chunk_size=16, length="chars").split_json(data)
    assert old == JSONSplitter(chunk_size=16, length="chars").split_json(data)
    assert JSONSplitter(max_chunk_size=16).max_chunk_size == 16
    with pytest.raises(TypeError, match="not both"):
        JSONSplitter(chunk_size=16, max_chunk_size=16)
