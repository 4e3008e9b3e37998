"""The LlamaIndex drop-ins (``SentenceSplitter``, ``TokenTextSplitter``) against LlamaIndex's
own classes, and ``RagchunkNodeParser`` inside LlamaIndex's pipelines.

* contract tests, in the style of LlamaIndex's own: ``split_text``, ``split_texts``, nodes
  with metadata and relationships, ``id_func``, the errors and their messages;
* differential tests: the same chunks and nodes as LlamaIndex's classes on the shared corpus
  (a sample; ``benches/bench_llama_index.py`` compares the whole corpus) and on random text,
  on both backends;
* the Punkt mirror equals NLTK's Punkt;
* ``IngestionPipeline`` with two worker processes finishes (run in a subprocess with a time
  limit, so that a hang fails the test instead of the suite).
"""

from __future__ import annotations

import asyncio
import functools
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import ragchunk
from hypothesis import given
from hypothesis import strategies as st
from llama_cases import idf, node_view
from testdata import corpus_documents

pytest.importorskip("llama_index.core")

import tiktoken
from llama_index.core import Document
from llama_index.core import node_parser as li
from llama_index.core.callbacks import CallbackManager, CBEventType
from llama_index.core.callbacks.base_handler import BaseCallbackHandler
from llama_index.core.node_parser.text.sentence import CHUNKING_REGEX
from llama_index.core.node_parser.text.utils import split_by_sentence_tokenizer
from llama_index.core.schema import MetadataMode, NodeRelationship, TextNode
from pydantic import ValidationError
from ragchunk.integrations import llama_index as ours
from ragchunk.integrations.llama_index import (
    RagchunkNodeParser,
    SentenceSplitter,
    TokenTextSplitter,
)

PAIRS = [(SentenceSplitter, li.SentenceSplitter), (TokenTextSplitter, li.TokenTextSplitter)]
PAIR_IDS = ["sentence", "token"]

TEXT = (
    "Retrieval finds passages. The model reads them! Does it? Mr. J. Smith wrote 3. "
    "drafts... and then (finally) a fourth.\n\n\nA new paragraph, with clauses; and more "
    "words, many more words. 中文句子。第二句！第三句？\n" + "word " * 40
)


def cl100k() -> Any:
    return tiktoken.get_encoding("cl100k_base")


def count(text: str) -> int:
    """LlamaIndex's default count."""
    return len(cl100k().encode(text, allowed_special="all"))


def documents(texts: list[str]) -> list[Document]:
    return [
        Document(
            text=t,
            id_=f"doc{i}",
            metadata={"file_name": f"f{i}.md", "title": "T" * (i % 5)},
            excluded_llm_metadata_keys=["file_name"],
        )
        for i, t in enumerate(texts)
    ]


# ------------------------------------------------------------------------------------------
# Contract tests (each runs on both backends)


@pytest.mark.parametrize(("ours_cls", "theirs"), PAIRS, ids=PAIR_IDS)
def test_split_text_contract(ours_cls: Any, theirs: Any) -> None:
    splitter = ours_cls(chunk_size=24, chunk_overlap=4)
    assert splitter.split_text("") == [""]
    assert splitter.split_text("Short text.") == ["Short text."]
    chunks = splitter.split_text(TEXT)
    assert len(chunks) > 3
    assert all(isinstance(c, str) and c == c.strip() and c for c in chunks)
    assert all(count(c) <= 24 for c in chunks)
    assert chunks == theirs(chunk_size=24, chunk_overlap=4).split_text(TEXT)
    assert isinstance(splitter, li.interface.MetadataAwareTextSplitter)


@pytest.mark.parametrize(("ours_cls", "theirs"), PAIRS, ids=PAIR_IDS)
def test_split_texts_is_split_text_of_each(ours_cls: Any, theirs: Any) -> None:
    texts = [TEXT, "", "one two three", TEXT[::-1], "x"]
    splitter = ours_cls(chunk_size=16, chunk_overlap=2)
    flat = [c for t in texts for c in splitter.split_text(t)]
    assert splitter.split_texts(texts) == flat
    assert flat == theirs(chunk_size=16, chunk_overlap=2).split_texts(texts)
    metas = ["title: a", "", "k: v " * 3, "x", ""]
    assert splitter.split_texts_metadata_aware(texts, metas) == theirs(
        chunk_size=16, chunk_overlap=2
    ).split_texts_metadata_aware(texts, metas)
    with pytest.raises(ValueError, match="same length"):
        splitter.split_texts_metadata_aware(texts, metas[:2])


@pytest.mark.parametrize(("ours_cls", "theirs"), PAIRS, ids=PAIR_IDS)
def test_nodes_with_metadata_and_relationships(ours_cls: Any, theirs: Any) -> None:
    texts = [TEXT, "Repeated line. " * 30, "", "第一段。第二段。" * 20]
    nodes = ours_cls(chunk_size=64, chunk_overlap=8, id_func=idf).get_nodes_from_documents(
        documents(texts)
    )
    expected = theirs(chunk_size=64, chunk_overlap=8, id_func=idf).get_nodes_from_documents(
        documents(texts)
    )
    assert node_view(nodes) == node_view(expected)
    by_doc: dict[str, list[Any]] = {}
    for n in nodes:
        by_doc.setdefault(n.ref_doc_id, []).append(n)
    assert set(by_doc) == {"doc0", "doc1", "doc2", "doc3"}
    assert [n.text for n in by_doc["doc2"]] == [""]  # an empty document: one empty node
    for doc_id, doc_nodes in by_doc.items():
        for i, n in enumerate(doc_nodes):
            assert n.id_ == f"{doc_id}-{i}"  # id_func gets the index within the document
            assert n.metadata["file_name"] == f"f{doc_id[3:]}.md"
            assert "file_name" not in n.get_metadata_str(MetadataMode.LLM)
            # metadata-aware sizing: the text leaves room for the longest metadata string
            assert count(n.get_content(MetadataMode.EMBED)) <= 64 + 4
            prev = n.relationships.get(NodeRelationship.PREVIOUS)
            nxt = n.relationships.get(NodeRelationship.NEXT)
            assert (prev.node_id if prev else None) == (doc_nodes[i - 1].id_ if i else None)
            last = i == len(doc_nodes) - 1
            assert (nxt.node_id if nxt else None) == (None if last else doc_nodes[i + 1].id_)
            assert n.relationships[NodeRelationship.SOURCE].node_id == doc_id
    flat = ours_cls(
        chunk_size=64, chunk_overlap=8, id_func=idf, include_prev_next_rel=False
    ).get_nodes_from_documents(documents(texts))
    assert all(set(n.relationships) == {NodeRelationship.SOURCE} for n in flat), (
        "include_prev_next_rel=False leaves only the source"
    )
    bare = ours_cls(chunk_size=64, chunk_overlap=8, include_metadata=False)
    assert bare.get_nodes_from_documents(documents(texts))[0].metadata == {}


@pytest.mark.parametrize(("ours_cls", "theirs"), PAIRS, ids=PAIR_IDS)
def test_argument_errors_are_llama_index_s(ours_cls: Any, theirs: Any) -> None:
    for kwargs in (
        {"chunk_size": 10, "chunk_overlap": 11},
        {"chunk_size": -1},
        {"chunk_size": 0, "chunk_overlap": 0},
        {"chunk_size": 10, "chunk_overlap": -1},
    ):
        with pytest.raises(Exception) as theirs_err:
            theirs(**kwargs)
        with pytest.raises(type(theirs_err.value)) as ours_err:
            ours_cls(**kwargs)
        if not isinstance(theirs_err.value, ValidationError):
            assert str(ours_err.value) == str(theirs_err.value)
    with pytest.raises(ValueError, match=r"larger chunk overlap \(11\) than chunk size \(10\)"):
        ours_cls(chunk_size=10, chunk_overlap=11)


@pytest.mark.parametrize(("ours_cls", "theirs"), PAIRS, ids=PAIR_IDS)
def test_metadata_too_long_and_close_to_chunk_size(
    ours_cls: Any, theirs: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    long_doc = [Document(text=TEXT, metadata={"m": "word " * 100})]
    with pytest.raises(ValueError) as theirs_err:
        theirs(chunk_size=50, chunk_overlap=0).get_nodes_from_documents(long_doc)
    with pytest.raises(ValueError, match=r"^Metadata length \(\d+\) is longer than chunk size"):
        ours_cls(chunk_size=50, chunk_overlap=0).get_nodes_from_documents(long_doc)
    assert str(theirs_err.value).startswith("Metadata length")
    capsys.readouterr()
    close = [Document(text=TEXT, metadata={"m": "word " * 30})]
    got = ours_cls(chunk_size=60, chunk_overlap=0, id_func=idf).get_nodes_from_documents(close)
    ours_out = capsys.readouterr().out
    want = theirs(chunk_size=60, chunk_overlap=0, id_func=idf).get_nodes_from_documents(close)
    assert ours_out == capsys.readouterr().out
    assert "is close to chunk size (60)" in ours_out
    assert node_view(got) == node_view(want)


def test_single_token_exceeded() -> None:
    crab = "🦀"  # three cl100k tokens: it cannot be split
    assert count(crab) > 2
    with pytest.raises(ValueError, match=r"^Single token exceeded chunk size$"):
        li.SentenceSplitter(chunk_size=2, chunk_overlap=0).split_text("ab " + crab)
    with pytest.raises(ValueError, match=r"^Single token exceeded chunk size$"):
        SentenceSplitter(chunk_size=2, chunk_overlap=0).split_text("ab " + crab)
    # TokenTextSplitter keeps it as an oversized chunk, as LlamaIndex does.
    assert TokenTextSplitter(chunk_size=2, chunk_overlap=0).split_text("ab " + crab) == [
        "ab",
        crab,
    ]


def _tokenizers() -> list[tuple[str, Any]]:
    enc = cl100k()
    o200k = tiktoken.get_encoding("o200k_base")
    return [
        ("default", None),
        ("cl100k-all", functools.partial(enc.encode, allowed_special="all")),
        ("cl100k-encode", enc.encode),
        ("cl100k-ordinary", enc.encode_ordinary),
        ("o200k-all", functools.partial(o200k.encode, allowed_special="all")),
        ("o200k-disallow-none", functools.partial(o200k.encode, disallowed_special=())),
        ("words", str.split),
    ]


@pytest.mark.parametrize(("name", "tokenizer"), _tokenizers(), ids=[n for n, _ in _tokenizers()])
@pytest.mark.parametrize(("ours_cls", "theirs"), PAIRS, ids=PAIR_IDS)
def test_tokenizers(ours_cls: Any, theirs: Any, name: str, tokenizer: Any) -> None:
    text = TEXT + " <|endoftext|> tail " + TEXT
    spec = ours._builtin_spec(ours_cls(tokenizer=tokenizer)._tokenizer)
    assert (spec is None) == (name == "words")
    mine = ours_cls(chunk_size=20, chunk_overlap=3, tokenizer=tokenizer)
    theirs_ = theirs(chunk_size=20, chunk_overlap=3, tokenizer=tokenizer)
    try:
        want = theirs_.split_text(text)
    except ValueError as exc:  # tiktoken's encode refuses the special token's text
        with pytest.raises(ValueError) as err:
            mine.split_text(text)
        assert str(err.value) == str(exc)
        want = theirs_.split_text(TEXT)
        assert mine.split_text(TEXT) == want
        return
    assert mine.split_text(text) == want


def test_sentence_options_match() -> None:
    calls: list[str] = []

    def by_lines(text: str) -> list[str]:
        calls.append(text)
        return text.splitlines(keepends=True)

    options: list[dict[str, Any]] = [
        {"paragraph_separator": "\n\n"},
        {"separator": "\n"},
        {"secondary_chunking_regex": None},
        {"secondary_chunking_regex": "[^,]+,?"},
        {"chunking_tokenizer_fn": by_lines},
    ]
    for kwargs in options:
        want = li.SentenceSplitter(chunk_size=12, chunk_overlap=2, **kwargs).split_text(TEXT)
        assert SentenceSplitter(chunk_size=12, chunk_overlap=2, **kwargs).split_text(TEXT) == want
    assert calls, "a chunking_tokenizer_fn is called as LlamaIndex calls it"


def test_token_options_match() -> None:
    options: list[dict[str, Any]] = [
        {"separator": "\n"},
        {"backup_separators": []},
        {"backup_separators": ["\n", ".", "。"]},
        {"keep_whitespaces": True},
    ]
    for kwargs in options:
        want = li.TokenTextSplitter(chunk_size=12, chunk_overlap=2, **kwargs).split_text(TEXT)
        assert TokenTextSplitter(chunk_size=12, chunk_overlap=2, **kwargs).split_text(TEXT) == want


class _Events(BaseCallbackHandler):
    def __init__(self) -> None:
        super().__init__([], [])
        self.events: list[tuple[str, Any]] = []

    def on_event_start(self, event_type: Any, payload: Any = None, **kw: Any) -> str:
        self.events.append(("start", event_type, str(payload)))
        return kw.get("event_id", "")

    def on_event_end(self, event_type: Any, payload: Any = None, **kw: Any) -> None:
        self.events.append(("end", event_type, str(payload)))

    def start_trace(self, trace_id: str | None = None) -> None:
        pass

    def end_trace(self, trace_id: str | None = None, trace_map: Any = None) -> None:
        pass


@pytest.mark.parametrize(("ours_cls", "theirs"), PAIRS, ids=PAIR_IDS)
def test_callback_events_match(ours_cls: Any, theirs: Any) -> None:
    texts = [TEXT, "", "short"]
    seen = []
    for cls in (ours_cls, theirs):
        handler = _Events()
        cls(
            chunk_size=16, chunk_overlap=0, callback_manager=CallbackManager([handler])
        ).split_texts(texts)
        seen.append([e for e in handler.events if e[1] == CBEventType.CHUNKING])
    assert seen[0] == seen[1] and len(seen[0]) == 4


def test_pickles_and_rebuilds_like_llama_index() -> None:
    import pickle

    splitter = SentenceSplitter(chunk_size=40, chunk_overlap=5, paragraph_separator="\n\n")
    again = pickle.loads(pickle.dumps(splitter))
    assert again.split_text(TEXT) == splitter.split_text(TEXT)
    assert again.to_dict()["class_name"] == "SentenceSplitter"


# ------------------------------------------------------------------------------------------
# Differential tests on the shared corpus (a sample: every 18th document)

CONFIGS = [
    {"chunk_size": 512, "chunk_overlap": 50},
    {"chunk_size": 128, "chunk_overlap": 20},
    {"chunk_size": 64, "chunk_overlap": 0, "paragraph_separator": "\n\n"},
]


def _sample() -> list[str]:
    docs = corpus_documents()
    if not docs:
        pytest.skip("SHARED TEST DATA MISSING: ../shared/corpus not found; not run")
    return [text for _, text in docs[::18]]


@functools.cache
def _theirs_chunks(kind: str, config: tuple[tuple[str, Any], ...]) -> list[list[str]]:
    kwargs = dict(config)
    if kind == "token":
        kwargs.pop("paragraph_separator", None)
        return [li.TokenTextSplitter(**kwargs).split_text(t) for t in _sample()]
    return [li.SentenceSplitter(**kwargs).split_text(t) for t in _sample()]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(map(str, c.values())))
@pytest.mark.parametrize("kind", ["sentence", "token"])
def test_corpus_split_text_matches(kind: str, config: dict[str, Any]) -> None:
    want = _theirs_chunks(kind, tuple(config.items()))
    kwargs = dict(config)
    if kind == "token":
        kwargs.pop("paragraph_separator", None)
        splitter: Any = TokenTextSplitter(**kwargs)
    else:
        splitter = SentenceSplitter(**kwargs)
    texts = _sample()
    got = [splitter.split_text(t) for t in texts]
    mismatched = [i for i, (a, b) in enumerate(zip(got, want, strict=True)) if a != b]
    assert not mismatched, f"documents {mismatched[:5]} differ"
    assert splitter.split_texts(texts) == [c for chunks in want for c in chunks]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize(("ours_cls", "theirs"), PAIRS, ids=PAIR_IDS)
def test_corpus_nodes_match(ours_cls: Any, theirs: Any) -> None:
    texts = _sample()[:12]
    got = ours_cls(chunk_size=200, chunk_overlap=20, id_func=idf).get_nodes_from_documents(
        documents(texts)
    )
    want = theirs(chunk_size=200, chunk_overlap=20, id_func=idf).get_nodes_from_documents(
        documents(texts)
    )
    assert node_view(got) == node_view(want)


_ALPHABET = [
    *"aAbB zZ.?!,;:'\"()[]-\n\t\u00a0\u2019\u201c\u201d\u00ab\u00bb0123456789",
    "Mr.",
    "J.",
    "3.",
    "...",
    ". . .",
    "--",
    "\n\n\n",
    "É",
    "ß",
    "中文",
    "。",
    "！",
    "？",
    "<|endoftext|>",
    "٣",
    "ǅ",
    "\u2028",
    "\x1c",
    "Word",
    "word",
    "🦀",
]
_TEXTS = st.lists(st.sampled_from(_ALPHABET), max_size=80).map("".join)


@pytest.mark.filterwarnings("ignore")
@given(
    text=_TEXTS,
    size=st.sampled_from([3, 6, 12, 30]),
    overlap=st.sampled_from([0, 1, 2]),
    para=st.sampled_from(["\n\n\n", "\n\n", "\n"]),
    regex=st.sampled_from([CHUNKING_REGEX, None]),
    backups=st.sampled_from([["\n"], [], ["\n", "."]]),
)
def test_random_text_matches(
    text: str, size: int, overlap: int, para: str, regex: str | None, backups: list[str]
) -> None:
    def outcome(make: Any) -> Any:
        try:
            return make().split_text(text)
        except ValueError as exc:
            return ("error", str(exc))

    sentence = {"chunk_size": size, "chunk_overlap": overlap, "paragraph_separator": para}
    sentence["secondary_chunking_regex"] = regex
    assert outcome(lambda: SentenceSplitter(**sentence)) == outcome(
        lambda: li.SentenceSplitter(**sentence)
    )
    token = {"chunk_size": size, "chunk_overlap": overlap, "backup_separators": backups}
    assert outcome(lambda: TokenTextSplitter(**token)) == outcome(
        lambda: li.TokenTextSplitter(**token)
    )


# ------------------------------------------------------------------------------------------
# The Punkt mirror


@pytest.mark.single_backend
def test_punkt_mirror_is_in_use_and_equals_nltk(core: Any) -> None:
    assert ours._punkt_mirrored(), "the installed NLTK's Punkt is not the one mirrored"
    assert ours._default_punkt_in_use()
    nltk_split = split_by_sentence_tokenizer()
    for text in [TEXT, *(_sample()[:6])]:
        assert list(core.li_punkt_sentences(text, ours._classify)) == nltk_split(text)


@pytest.mark.single_backend
@given(
    st.text(
        st.one_of(
            st.sampled_from(list(".?!.?! \n\"')]}\u2019\u201d\u00bb-,;:")),
            st.characters(codec="utf-8"),
        ),
        max_size=60,
    )
)
def test_punkt_mirror_on_random_unicode(text: str) -> None:
    from ragchunk import _core

    assert list(_core.li_punkt_sentences(text, ours._classify)) == split_by_sentence_tokenizer()(
        text
    )


@pytest.mark.single_backend
def test_whitespace_classes_are_nltk_s() -> None:
    import regex

    chars = "".join(chr(c) for c in range(0x3100))
    white_space = [m.group() for m in regex.finditer(r"\s", chars)]
    # what the Rust core takes as regex's \s (Unicode White_Space) and str.isspace
    expected = "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B)))
    expected += "\u2028\u2029\u202f\u205f\u3000"
    assert "".join(white_space) == expected
    assert "".join(c for c in chars if c.isspace()) == "".join(
        sorted(expected + "\x1c\x1d\x1e\x1f")
    )


# ------------------------------------------------------------------------------------------
# RagchunkNodeParser


def test_node_parser_split_text_and_texts() -> None:
    parser = RagchunkNodeParser.from_chunker(ragchunk.RecursiveSplitter(8, 2))
    chunker = parser.chunker
    assert parser.split_text(TEXT) == chunker.split_text(TEXT)
    assert parser.split_texts([TEXT, "", "abc"]) == [
        c for t in (TEXT, "", "abc") for c in chunker.split_text(t)
    ]


def test_node_parser_ids_do_not_depend_on_the_batch() -> None:
    parser = RagchunkNodeParser.from_chunker(ragchunk.RecursiveSplitter(8, 2), id_func=idf)
    a, b = Document(text=TEXT, id_="a"), Document(text=TEXT[:200], id_="b")
    alone = [n.id_ for n in parser.get_nodes_from_documents([b])]
    together = [n.id_ for n in parser.get_nodes_from_documents([a, b]) if n.ref_doc_id == "b"]
    assert alone == together == [f"b-{i}" for i in range(len(alone))]


@pytest.mark.single_backend
def test_node_parser_offsets_only_where_they_slice_the_document() -> None:
    table = "| a | b |\n|---|---|\n" + "".join(f"| row {i} | value {i} |\n" for i in range(30))
    cases = [
        (ragchunk.RecursiveSplitter(8, 2), TEXT, True),
        (ragchunk.RecursiveSplitter(3, 0, keep_separator=False), "one  two   three    four", False),
        (ragchunk.MarkdownSplitter(24), "# T\n\n" + table, False),
        (ragchunk.HTMLSplitter(8), "<p>Hello <b>world</b></p><p>" + "more " * 30 + "</p>", False),
        (ragchunk.JSONSplitter(16), '{"a": [1, 2, 3], "b": {"c": "' + "x " * 40 + '"}}', False),
    ]
    for chunker, text, all_exact in cases:
        nodes = RagchunkNodeParser.from_chunker(chunker).get_nodes_from_documents(
            [Document(text=text)]
        )
        assert nodes
        exact = 0
        for n in nodes:
            assert isinstance(n, TextNode)
            if n.start_char_idx is None:
                assert n.end_char_idx is None
            else:
                assert text[n.start_char_idx : n.end_char_idx] == n.text
                exact += 1
        if all_exact:
            assert exact == len(nodes)
        else:
            assert exact < len(nodes), f"{type(chunker).__name__}: some chunk is not a slice"


# ------------------------------------------------------------------------------------------
# IngestionPipeline with worker processes

_PIPELINE = textwrap.dedent(
    """
    import asyncio
    import ragchunk
    from llama_index.core import Document
    from llama_index.core.ingestion import IngestionPipeline
    from ragchunk.integrations.llama_index import RagchunkNodeParser, SentenceSplitter

    def ids(i, doc):
        return f"{doc.id_}-{i}"

    def view(nodes):
        return [(n.id_, n.ref_doc_id, n.text, n.start_char_idx, n.end_char_idx) for n in nodes]

    if __name__ == "__main__":
        docs = [
            Document(text=f"Paragraph {i}. " * (40 + i) + "End.", id_=f"d{i}") for i in range(8)
        ]
        # Start the native thread pool before the pipeline forks its workers.
        ragchunk.RecursiveSplitter(16).split_batch([d.text for d in docs], workers=2)
        makers = [
            lambda: RagchunkNodeParser.from_chunker(ragchunk.RecursiveSplitter(32, 4), id_func=ids),
            lambda: SentenceSplitter(chunk_size=32, chunk_overlap=4, id_func=ids),
        ]
        for make in makers:
            one = view(IngestionPipeline(transformations=[make()]).run(documents=docs))
            pipeline = IngestionPipeline(transformations=[make()])
            ran = view(pipeline.run(documents=docs, num_workers=2))
            pipeline = IngestionPipeline(transformations=[make()])
            aran = view(asyncio.run(pipeline.arun(documents=docs, num_workers=2)))
            assert len(one) > len(docs)
            assert ran == one, "run(num_workers=2) differs"
            assert aran == one, "arun(num_workers=2) differs"
        print("pipelines ok")
    """
)


@pytest.mark.single_backend
def test_ingestion_pipeline_with_two_workers_finishes(tmp_path: Path) -> None:
    script = tmp_path / "pipeline.py"
    script.write_text(_PIPELINE)
    try:
        done = subprocess.run(
            [sys.executable, str(script)],
            capture_output=True,
            text=True,
            timeout=240,
            cwd=tmp_path,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"IngestionPipeline with num_workers=2 hung: {exc}")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "pipelines ok" in done.stdout


def test_async_node_parsing_matches() -> None:
    parser = SentenceSplitter(chunk_size=32, chunk_overlap=4, id_func=idf)
    docs = documents([TEXT, TEXT[::-1]])
    got = asyncio.run(parser.aget_nodes_from_documents(docs))
    assert node_view(got) == node_view(parser.get_nodes_from_documents(docs))


@pytest.mark.single_backend
def test_import_ragchunk_does_not_import_llama_index() -> None:
    code = "import sys, ragchunk; sys.exit(any(m.startswith('llama_index') for m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", code], timeout=120).returncode == 0
