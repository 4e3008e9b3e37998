"""The three LLM chunkers end to end against the local server, on corpus documents, with
faults injected."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import math

import pytest
from invariants import check_chunks
from llm_scripts import answer, corpus_text, kind, responder
from openai_server import (
    Reply,
    chat,
    hash_embedding,
    not_json,
    rate_limited,
    server_error,
    slow,
    truncated,
)
from ragchunk import MarkdownSplitter, SentenceSplitter
from ragchunk.cli import estimate as llm_cli
from ragchunk.llm import (
    CONTEXT_PROMPT,
    LLM,
    ContextualChunker,
    LLMBoundaryChunker,
    LLMError,
    OpenAICompatible,
    Price,
    PropositionChunker,
)
from ragchunk.llm.boundary import parse_indices
from ragchunk.llm.propositions import parse_groups

pytestmark = pytest.mark.single_backend

DOCS = {"en": ("rust-book-en", 5000), "zh": ("otel-docs-zh", 3000)}


@pytest.fixture(params=sorted(DOCS))
def doc(request):
    source, size = DOCS[request.param]
    text = corpus_text(source, size=size)
    if text is None:
        pytest.skip(f"SHARED TEST DATA MISSING: corpus {source} not found")
    return text


@pytest.fixture
def server(openai_server):
    openai_server.responder = responder
    return openai_server


def _llm(server, **kwargs):
    kwargs.setdefault("api_key_env", None)
    kwargs.setdefault("sleep", lambda s: None)
    return OpenAICompatible(base_url=server.base_url, model="test-model", **kwargs)


def _nonspace(text):
    return "".join(text.split())


# -- boundaries -----------------------------------------------------------------------------


def test_parse_indices_defensive():
    assert parse_indices("The shifts are at [3, 8].", 0, 10) == [3, 8]
    assert parse_indices('{"boundaries": [2]}', 0, 10) == [2]
    assert parse_indices("[]", 0, 10) == []
    for bad in ("no idea", "[3, 3]", "[11]", "[2, 1]", '["x"]', "[true]"):
        with pytest.raises(ValueError):
            parse_indices(bad, 0, 10)


def test_boundary_chunker_keeps_all_text_with_faults(server, doc):
    server.enqueue(rate_limited("1"), server_error(500), not_json())
    llm = _llm(server, max_concurrency=3)
    chunker = LLMBoundaryChunker(llm, chunk_size=120, min_chunk_size=20, window=30)
    chunks = chunker.split(doc)
    check_chunks(doc, chunks, budget=120, count=llm.count_tokens)
    assert _nonspace("".join(c.text for c in chunks)) == _nonspace(doc)
    assert any(c.metadata["cut"] == "model" for c in chunks)
    assert not any(c.metadata["fallback"] for c in chunks)
    assert server.peak_concurrency <= 3
    # small chunks exist only where joining a neighbour would break the budget
    for i, c in enumerate(chunks):
        if c.token_count < 20 and len(chunks) > 1:
            for j in (i - 1, i + 1):
                if 0 <= j < len(chunks):
                    a, b = min(c.start, chunks[j].start), max(c.end, chunks[j].end)
                    assert llm.count_tokens(doc[a:b]) > 120


def test_boundary_model_cuts_are_where_the_model_said(server):
    text = "\n".join(f"Sentence number {i} talks about thing {i // 5}." for i in range(40))
    chunker = LLMBoundaryChunker(_llm(server), chunk_size=200, min_chunk_size=0, window=50)
    chunks = chunker.split(text)
    pieces = chunker.candidate_pieces(text)
    starts = [c.metadata["pieces"][0] for c in chunks]
    assert starts == [0, 6, 12, 18, 24, 30, 36]  # every 6th piece, as the stand-in answers
    assert [c.start for c in chunks] == [pieces[i][0] for i in starts]


def test_boundary_invalid_answers_reasked_then_fallback(server):
    text = " ".join(f"Fact {i} is here." for i in range(30))
    server.enqueue("[99]", "[5, 2]")  # out of range, then out of order: re-asked twice
    server.responder = lambda r: chat("not a list at all")
    chunker = LLMBoundaryChunker(_llm(server), chunk_size=40, min_chunk_size=0, max_reasks=2)
    chunks = chunker.split(text)
    assert len(server.chat_requests) == 3
    assert "could not be used" in server.chat_requests[-1].last_message
    check_chunks(text, chunks, budget=40)
    assert all(c.metadata["fallback"] for c in chunks)
    assert {c.metadata["cut"] for c in chunks} <= {"start", "size"}


def test_boundary_reask_recovers(server):
    text = " ".join(f"Fact {i} is here." for i in range(30))
    server.enqueue("[40]")
    chunker = LLMBoundaryChunker(_llm(server), chunk_size=60, min_chunk_size=0)
    chunks = chunker.split(text)
    assert len(server.chat_requests) == 2
    assert not any(c.metadata["fallback"] for c in chunks)
    assert [c.metadata["pieces"][0] for c in chunks] == [0, 6, 12, 18, 24]


def test_boundary_failure_is_visible(server):
    text = " ".join(f"Fact {i} is here." for i in range(30))
    server.responder = lambda r: server_error(400, "bad request")
    chunker = LLMBoundaryChunker(_llm(server), chunk_size=40)
    with pytest.raises(LLMError, match=r"document 1: window 0") as info:
        chunker.split_batch(["Short.", text])
    assert info.value.document == 1
    keep = LLMBoundaryChunker(_llm(server), chunk_size=40, on_error="keep")
    chunks = keep.split(text)
    check_chunks(text, chunks, budget=40)
    assert all("HTTP 400" in c.metadata["llm_error"] for c in chunks)


def test_boundary_token_pieces_and_short_text_without_call(server):
    chunker = LLMBoundaryChunker(_llm(server), chunk_size=50, pieces="tokens", piece_size=10)
    assert chunker.split("Tiny text.")[0].text == "Tiny text."
    assert server.chat_requests == []
    text = "词语" * 200
    chunks = chunker.split(text)
    check_chunks(text, chunks, budget=50)


def test_boundary_estimate_matches_the_run(server, doc):
    counted = LLM(answer)  # counts prompt tokens the way the estimate does
    chunker = LLMBoundaryChunker(counted, chunk_size=120, window=30)
    estimate = chunker.estimate(doc, Price(input=1.0, output=2.0))
    chunker.split(doc)
    assert estimate.calls == counted.usage.calls
    assert estimate.prompt_tokens == counted.usage.prompt_tokens
    assert estimate.cost == pytest.approx(
        (estimate.prompt_tokens + 2 * estimate.completion_tokens) / 1e6
    )


def test_boundary_async_batch_bounded(server, doc):
    llm = _llm(server, max_concurrency=2)
    chunker = LLMBoundaryChunker(llm, chunk_size=100, window=20)
    sync = chunker.split(doc)
    server.reset()
    server.responder = responder
    results = asyncio.run(chunker.asplit_batch([doc, doc[:2000]]))
    assert [(c.start, c.end) for c in results[0]] == [(c.start, c.end) for c in sync]
    assert server.peak_concurrency <= 2


# -- propositions ---------------------------------------------------------------------------


def test_parse_groups():
    assert parse_groups('{"A": [1, 0], "B": [1, 2]}', 0, 3) == [
        ("A", [1, 0]),
        ("B", [2]),
        ("", [3]),
    ]
    with pytest.raises(ValueError):
        parse_groups('{"A": [7]}', 0, 3)
    with pytest.raises(ValueError):
        parse_groups("[0, 1]", 0, 3)


def _all_spans_kept(chunker, text, chunks):
    passages = [(p.start, p.end) for p in chunker.passages(text)]
    kept = sorted({tuple(s) for c in chunks for s in c.metadata["source_spans"]})
    assert kept == passages
    for c in chunks:
        assert c.metadata["generated"] is True
        assert c.text == "\n".join(c.metadata["propositions"])
        assert c.start == min(s for s, _ in c.metadata["source_spans"])
        assert c.end == max(e for _, e in c.metadata["source_spans"])


def test_propositions_grouped_by_model_in_batches(server, doc):
    server.enqueue(server_error(502), "this is not JSON")  # a fault, then a re-ask
    llm = _llm(server, max_concurrency=4)
    chunker = PropositionChunker(llm, chunk_size=200, passage_size=120, group_batch=25)
    chunks = chunker.split(doc)
    _all_spans_kept(chunker, doc, chunks)
    assert all(c.token_count <= 200 for c in chunks)
    requests = server.chat_requests
    n_passages = len(chunker.passages(doc))
    n_props = sum(len(c.metadata["propositions"]) for c in chunks)
    grouping = [r for r in requests if kind(r.prompt) == "grouping"]
    assert len(grouping) == math.ceil(n_props / 25)  # batched, never one call per proposition
    decomposing = [r for r in requests if kind(r.prompt) == "propositions"]
    assert len(decomposing) == n_passages + 2  # the 502 tried again, one re-ask
    assert any(c.metadata["title"].startswith("Topic") for c in chunks)


def test_propositions_grouped_by_embeddings_gather_far_apart_facts(server):
    text = (
        "Cats purr when happy. Rust has a borrow checker. Cats sleep most of the day. "
        "Rust compiles to native code. Cats chase mice."
    )
    calls = []

    def embed(texts):
        calls.append(len(texts))
        return [[1.0, 0.0] if "Cats" in t else [0.0, 1.0] for t in texts]

    chunker = PropositionChunker(_llm(server), embedder=embed, passage_size=12, similarity=0.8)
    chunks = chunker.split(text)
    _all_spans_kept(chunker, text, chunks)
    assert [c.text.count("Cats") for c in chunks] == [3, 0]
    assert len(calls) == 1
    assert len(server.chat_requests) == len(chunker.passages(text))


def test_propositions_with_embeddings_endpoint(server, doc):
    from ragchunk.core.http import HTTPClient

    client = HTTPClient(server.base_url, api_key_env=None)

    class Embedder:
        def embed(self, texts):
            body = client.post_json("/embeddings", {"model": "e", "input": list(texts)})
            return [d["embedding"] for d in body["data"]]

    chunker = PropositionChunker(_llm(server), 150, embedder=Embedder(), passage_size=150)
    chunks = chunker.split(doc)
    _all_spans_kept(chunker, doc, chunks)
    assert len(server.embedding_requests) == 1
    assert all(c.token_count <= 150 for c in chunks)


def test_propositions_failure_visible(server):
    text = "One fact here. Another fact there. A third fact."
    server.responder = lambda r: server_error(404, "no such model")
    with pytest.raises(LLMError, match="document 0, chunk 0") as info:
        PropositionChunker(_llm(server), passage_size=5, embedder=lambda t: [[1.0]] * len(t)).split(
            text
        )
    assert info.value.chunk == 0
    keep = PropositionChunker(
        _llm(server), passage_size=5, embedder=lambda t: [[1.0]] * len(t), on_error="keep"
    )
    chunks = keep.split(text)
    assert all(c.metadata["fallback"] and "HTTP 404" in c.metadata["llm_error"] for c in chunks)
    assert sorted(p for c in chunks for p in c.metadata["propositions"]) == sorted(
        SentenceSplitter.sentences(text)
    )


# -- contextual -----------------------------------------------------------------------------


def test_contextual_every_chunk_gets_context_with_faults(server, doc):
    server.enqueue(rate_limited("1"), server_error(503), slow(2.0), truncated())
    inner = SentenceSplitter(chunk_size=150)
    chunker = ContextualChunker(_llm(server, max_concurrency=3, timeout=0.5), inner)
    chunks = chunker.split(doc)
    plain = inner.split(doc)
    assert [(c.start, c.end, c.text) for c in chunks] == [(c.start, c.end, c.text) for c in plain]
    check_chunks(doc, chunks)
    for c in chunks:
        assert c.metadata["context"].startswith("this passage covers")
        assert doc[c.start : c.end].split()[0] in c.metadata["context"]
    # the document is a shared prefix: every prompt starts with the same text
    prompts = [r.last_message for r in server.chat_requests if "<document>" in r.last_message]
    prefix = "<document>\n" + doc + "\n</document>"
    assert len(set(prompts)) == len(chunks) and all(p.startswith(prefix) for p in prompts)
    assert server.peak_concurrency <= 3


def test_contextual_prefix_declared_and_offsets_kept(server, doc):
    chunker = ContextualChunker(_llm(server), MarkdownSplitter(chunk_size=200), prefix=True)
    chunks = chunker.split(doc)
    check_chunks(doc, chunks)
    for c in chunks:
        added = c.metadata["added_prefix"]
        assert added.startswith(c.metadata["context"] + "\n\n")
        assert c.text == added + doc[c.start : c.end]


def test_contextual_long_document_uses_windows(server, doc):
    chunker = ContextualChunker(
        _llm(server), SentenceSplitter(chunk_size=100), max_document_tokens=300
    )
    chunks = chunker.split(doc)
    windows = [c.metadata["context_window"] for c in chunks]
    for c, (a, b) in zip(chunks, windows, strict=True):
        assert a <= c.start and c.end <= b
    assert len(set(windows)) < len(windows)  # neighbours share a window (and its prefix)
    template = llm_tokens(CONTEXT_PROMPT.user)
    for r in server.chat_requests:
        assert "<document>\n" + doc not in r.last_message
        assert llm_tokens(r.last_message) <= 300 + 100 + template


def llm_tokens(text):
    return LLM(str).count_tokens(text)


def test_contextual_failure_names_document_and_chunk(server):
    texts = ["First doc. It is fine.", "Second doc. Alpha. Beta. Gamma."]

    def fail_gamma(request):
        if "<passage>\nGamma." in request.last_message:
            return Reply(400, {"error": {"message": "context too long"}})
        return responder(request)

    server.responder = fail_gamma
    inner = SentenceSplitter(chunk_size=3)
    with pytest.raises(LLMError) as info:
        ContextualChunker(_llm(server), inner).split_batch(texts)
    assert (info.value.document, info.value.chunk) == (1, 3)
    assert "document 1, chunk 3" in str(info.value)
    kept = ContextualChunker(_llm(server), inner, on_error="keep").split_batch(texts)
    flagged = [c for c in kept[1] if c.metadata["context"] is None]
    assert [c.text for c in flagged] == ["Gamma."]
    assert "HTTP 400" in flagged[0].metadata["context_error"]
    assert all(c.metadata["context"] for c in kept[0])


def test_contextual_empty_answer_reasked(server):
    server.enqueue("   ")
    chunks = ContextualChunker(_llm(server), SentenceSplitter(chunk_size=50)).split("One. Two.")
    assert chunks[0].metadata["context"]
    assert "was empty" in server.chat_requests[-1].last_message


def test_contextual_cache_second_run_zero_calls(server, doc, tmp_path):
    cache = str(tmp_path / "ctx.sqlite")
    chunker = ContextualChunker(_llm(server, cache=cache), SentenceSplitter(chunk_size=200))
    first = chunker.split(doc)
    n = len(server.chat_requests)
    assert n == len(first)
    again = ContextualChunker(_llm(server, cache=cache), SentenceSplitter(chunk_size=200))
    assert again.split(doc) == first
    assert len(server.chat_requests) == n
    assert again.llm.usage.calls == 0 and again.llm.usage.cache_hits == n


def test_contextual_accounting_and_estimate(server, doc):
    llm = _llm(server)
    chunker = ContextualChunker(llm, SentenceSplitter(chunk_size=150))
    estimate = chunker.estimate(doc, Price(input=3.0, output=15.0))
    assert server.chat_requests == []  # a dry run calls nothing
    chunks = chunker.split(doc)
    assert estimate.calls == len(chunks) == llm.usage.calls
    # the server reports usage (words here): the totals are the sums of the calls
    reported = [r.json for r in server.chat_requests]
    assert llm.usage.prompt_tokens == sum(
        len("\n".join(m["content"] for m in j["messages"]).split()) for j in reported
    )
    assert llm.usage.prompt_tokens == sum(r.prompt_tokens for r in llm.usage.records)
    counted = LLM(answer)
    ContextualChunker(counted, SentenceSplitter(chunk_size=150)).split(doc)
    assert estimate.prompt_tokens == pytest.approx(counted.usage.prompt_tokens, rel=0.02)
    assert estimate.details["prefix_tokens"] > 0


# -- CLI ------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["boundary", "propositions", "contextual"])
def test_cli_estimate(tmp_path, doc, strategy):
    path = tmp_path / "doc.md"
    path.write_text(doc, encoding="utf-8")
    parser = argparse.ArgumentParser()
    llm_cli.add_arguments(parser)
    args = parser.parse_args(
        [str(path), str(path), "--strategy", strategy, "--input-price", "1", "--json"]
    )
    out = io.StringIO()
    assert llm_cli.run(args, out) == 0
    report = json.loads(out.getvalue())
    one = report["files"][0]
    assert report["total"]["calls"] == 2 * one["calls"] > 0
    assert report["total"]["cost"] == pytest.approx(2 * one["prompt_tokens"] / 1e6)
    table = io.StringIO()
    assert llm_cli.run(parser.parse_args([str(path), "--strategy", strategy]), table) == 0
    assert "no model call" in table.getvalue()


def test_cli_unreadable_file(tmp_path):
    parser = argparse.ArgumentParser()
    llm_cli.add_arguments(parser)
    assert llm_cli.run(parser.parse_args([str(tmp_path / "missing.md")]), io.StringIO()) == 2


def test_hash_embedding_is_deterministic():
    assert hash_embedding("same words") == hash_embedding("same words")


# -- edge cases, with the stand-in model called directly (no server) -------------------------


def test_invariants_on_sample_texts():
    from invariants import sample_texts

    model = LLM(answer)
    boundary = LLMBoundaryChunker(model, chunk_size=60, min_chunk_size=10, window=12)
    contextual = ContextualChunker(model, SentenceSplitter(chunk_size=60), prefix=True)
    propositions = PropositionChunker(model, chunk_size=80, passage_size=60)
    for text in sample_texts():
        chunks = boundary.split(text)
        check_chunks(text, chunks, budget=60, count=model.count_tokens)
        check_chunks(text, contextual.split(text))
        prop_chunks = propositions.split(text)
        if text.strip():
            _all_spans_kept(propositions, text, prop_chunks)
        else:
            assert prop_chunks == []
