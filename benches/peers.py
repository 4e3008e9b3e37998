"""ragchunk side by side with every peer, on the same documents, with exactness checks.

    .venv/bin/python benches/peers.py [--rounds 3] [--limit-mb N] [--same-docs] [--cut-kb K] [--cpu]
                                      [--semantic-docs 8] [--semantic-chars 20000]
                                      [--only PAIR ...] [--list] [--json OUT]

Each *pair* is a peer's chunker and ragchunk's nearest one, configured alike: tiktoken
``cl100k_base``, 512 tokens, no overlap. The documents are the Markdown files of
``../shared/corpus`` (else a generated multilingual corpus), taken in turn from each source
so that a ``--limit-mb`` sample mixes English and Chinese; ``--cut-kb K`` cuts them at blank
lines into pieces of about K kilobytes, many documents of ordinary length (where the fixed
cost of a call counts); ``--cpu`` times in the process's CPU time instead of wall time
(steadier when other programs load the machine). RAGFlow's ``naive_merge`` is RAGFlow's own
code, imported from a source tree (``benches/_ragflow_code.py``). All pairs run in one
process in interleaved rounds (every round times every pair, the two sides of a pair back to
back, in alternating order), so both sides of a pair see the same machine noise. Round ``r`` takes
documents ``r, r + rounds, ...`` (``--same-docs``: the whole sample every round), so no
chunker, nor a memo of its own, sees a document twice. Both sides chunk one document per call
on one thread, after an untimed warm-up call; the garbage collector runs (untimed) before
every timed call. Reported per pair: each side's MB/s (median of the rounds), the ratio peer
time / ragchunk time in each round and its median, chunk counts, and three checks on each
side's output (every document checked once):

* **lossless**: ``verbatim`` when every chunk is a substring of the document, in order, and
  what lies between consecutive chunks (and before the first, after the last) is whitespace
  only, i.e. the chunks slice back to the source modulo the chunker's own whitespace
  stripping; ``whitespace`` when only the non-whitespace characters survive in order (the
  chunker re-joins pieces with other whitespace, e.g. single spaces); else ``LOSSY`` (text
  lost, replaced (U+FFFD from a character cut in half) or repeated).
* **offsets**: where the chunker reports offsets (LlamaIndex's: its nodes'), the number of
  chunks whose text is not ``document[start:end]`` (``-`` when it reports none).
* **budget**: the largest chunk in ``cl100k_base`` tokens (``encode_ordinary`` of the chunk
  text) and how many chunks exceed 512.

Caches: semchunk memoises its token counter (its default); the cache is dropped before every
round, so each round sees the corpus for the first time, as ingestion does.

Semantic pairs (``--semantic-docs`` documents of at most ``--semantic-chars`` characters) run
twice: with a precomputed table (every text any of the chunkers asks to embed is embedded by
WordLlama before the clock; each library gets the table behind its own embedder interface, so
the time is the chunking alone) and with the WordLlama model itself end to end (one instance
per side, so neither warms the other's model). Text a chunker documents as added (ragchunk's
``metadata["added_prefix"]``) is taken off before the lossless check. The late
pair gives both libraries the same token vectors (a seeded table indexed by ``cl100k_base``
token id, looked up before the clock) and checks each chunk's vector against the mean of
the vectors of the tokens its span overlaps.

Peers are optional (``pip install 'ragchunk[bench]'``); a missing one is listed as skipped.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _corpus import CORPUS, generated_corpus, offline_tiktoken  # noqa: E402

offline_tiktoken()

import ragchunk  # noqa: E402
import tiktoken  # noqa: E402

SIZE = 512
ENC = tiktoken.get_encoding("cl100k_base")

#: One chunk as the checks see it: its text, the offsets where the chunker reports them, and
#: the text it documents as added in front (``metadata["added_prefix"]``, else "").
Out = tuple[str, "int | None", "int | None", str]


@dataclass
class Side:
    """One chunker: ``run(docs)`` is timed, ``chunks(raw, docs)`` (not timed) turns its
    result into one list of :data:`Out` per document; ``prepare()`` runs before each round."""

    name: str
    run: Callable[[list[str]], Any]
    chunks: Callable[[Any, list[str]], list[list[Out]]]
    prepare: Callable[[], None] | None = None
    extra: Callable[[], dict[str, Any]] | None = None
    after_warm_up: Callable[[], None] | None = None


@dataclass
class Pair:
    name: str
    peer: Side
    ours: Side
    semantic: bool = False
    note: str = ""
    times: dict[str, list[float]] = field(default_factory=lambda: {"peer": [], "ours": []})
    checks: dict[str, dict[str, Any]] = field(default_factory=dict)
    same: bool = True
    docs: int = 0


# -- documents ------------------------------------------------------------------------------------


def documents(limit_mb: float | None) -> tuple[str, list[str]]:
    """The corpus documents, one source after another in turn (d2l-zh, hugo-docs-en, ...),
    up to ``limit_mb`` megabytes of UTF-8."""
    if CORPUS.is_dir():
        by_source = [
            sorted(p for p in src.rglob("*.md")) for src in sorted(CORPUS.iterdir()) if src.is_dir()
        ]
        order: list[Path] = []
        for i in range(max(map(len, by_source), default=0)):
            order.extend(paths[i] for paths in by_source if i < len(paths))
        texts = (p.read_text(encoding="utf-8") for p in order)
        label = "../shared/corpus"
    else:
        texts = iter(generated_corpus())
        label = "generated multilingual corpus"
    docs: list[str] = []
    total = 0
    for t in texts:
        if limit_mb is not None and total >= limit_mb * 1e6:
            break
        docs.append(t)
        total += len(t.encode("utf-8"))
    return f"{label}: {len(docs)} documents, {total / 1e6:.2f} MB", docs


def cut_documents(docs: list[str], kb: float) -> list[str]:
    """Every document cut at blank lines into pieces of about ``kb`` kilobytes (the sizes
    vary from half to one and a half times that): many documents of ordinary length, where a
    chunker's fixed cost per call counts."""
    out: list[str] = []
    for d in docs:
        piece: list[str] = []
        size, target = 0, kb * 1e3 * (0.5 + (len(out) * 0.618) % 1)
        for para in d.split("\n\n"):
            piece.append(para)
            size += len(para) + 2
            if size >= target:
                out.append("\n\n".join(piece))
                piece, size = [], 0
                target = kb * 1e3 * (0.5 + (len(out) * 0.618) % 1)
        if piece:
            out.append("\n\n".join(piece))
    return out


def semantic_documents(n: int, chars: int, docs: list[str]) -> list[str]:
    """``n`` documents spread over ``docs`` (every k-th), each cut to ``chars`` characters."""
    step = max(1, len(docs) // max(1, n))
    return [d[:chars] for d in docs[::step][:n]]


# -- checks ---------------------------------------------------------------------------------------

_WS = re.compile(r"\s+")


def lossless(doc: str, texts: list[str]) -> str:
    cursor = 0
    for t in texts:
        if not t:
            continue
        pos = doc.find(t, cursor)
        if pos < 0 or (pos > cursor and not doc[cursor:pos].isspace()):
            break
        cursor = pos + len(t)
    else:
        if cursor == len(doc) or doc[cursor:].isspace():
            return "verbatim"
    if _WS.sub("", "".join(texts)) == _WS.sub("", doc):
        return "whitespace"
    return "LOSSY"


def check(docs: list[str], outs: list[list[Out]]) -> dict[str, Any]:
    """The three checks over every document's chunks."""
    kinds = {"verbatim": 0, "whitespace": 0, "LOSSY": 0}
    bad_offsets, with_offsets, n, largest, over, fffd = 0, 0, 0, 0, 0, 0
    added = 0
    for doc, chunks in zip(docs, outs, strict=True):
        texts = [c[0] for c in chunks]
        kinds[lossless(doc, [t[len(a) :] for t, _, _, a in chunks])] += 1
        fffd += max(0, sum(t.count("\ufffd") for t in texts) - doc.count("\ufffd"))
        for text, s, e, a in chunks:
            added += bool(a)
            if s is not None and e is not None:
                with_offsets += 1
                bad_offsets += a + doc[s:e] != text
        counts = [len(x) for x in ENC.encode_ordinary_batch(texts)] if texts else []
        n += len(texts)
        largest = max([largest, *counts])
        over += sum(c > SIZE for c in counts)
    worst = "LOSSY" if kinds["LOSSY"] else ("whitespace" if kinds["whitespace"] else "verbatim")
    return {
        "chunks": n,
        "lossless": worst,
        "docs_by_lossless": kinds,
        "replacement_chars": fffd,
        "documented_additions": added,
        "offsets_checked": with_offsets,
        "offsets_wrong": bad_offsets if with_offsets else None,
        "max_tokens": largest,
        "over_budget": over,
    }


def same_texts(a: list[list[Out]], b: list[list[Out]]) -> bool:
    return all([c[0] for c in x] == [c[0] for c in y] for x, y in zip(a, b, strict=True))


# -- adapters -------------------------------------------------------------------------------------


def each(fn: Callable[[str], Any]) -> Callable[[list[str]], list[Any]]:
    return lambda docs: [fn(d) for d in docs]


def from_chunks(raw: list[list[Any]], docs: list[str]) -> list[list[Out]]:
    """ragchunk ``Chunk`` objects."""
    return [
        [
            (c.text, c.start, c.end, c.metadata.get("added_prefix", ""))
            if not c.metadata.get("rejoined")
            else (c.text, None, None, "")  # joined with spaces: offsets span, not slice
            for c in cs
        ]
        for cs in raw
    ]


def from_chonkie(raw: list[list[Any]], docs: list[str]) -> list[list[Out]]:
    return [[(c.text, c.start_index, c.end_index, "") for c in cs] for cs in raw]


def from_strings(raw: list[list[str]], docs: list[str]) -> list[list[Out]]:
    return [[(t, None, None, "") for t in ts] for ts in raw]


def from_indices(raw: list[list[tuple[int, str]]], docs: list[str]) -> list[list[Out]]:
    """semantic-text-splitter's ``(character offset, text)`` pairs."""
    return [[(t, i, i + len(t), "") for i, t in cs] for cs in raw]


def from_semchunk(raw: list[tuple[list[str], list[tuple[int, int]]]], docs: list[str]):
    return [[(t, s, e, "") for t, (s, e) in zip(ts, offs, strict=True)] for ts, offs in raw]


def llama_nodes(parser: Any) -> Callable[[Any, list[str]], list[list[Out]]]:
    """A LlamaIndex parser's ``split_text`` result checked with the offsets of its nodes."""

    def chunks(raw: list[list[str]], docs: list[str]) -> list[list[Out]]:
        from llama_index.core import Document

        out = []
        for d in docs:
            nodes = parser.get_nodes_from_documents([Document(text=d)])
            out.append([(n.text, n.start_char_idx, n.end_char_idx, "") for n in nodes])
        return out

    return chunks


# -- the classic pairs ----------------------------------------------------------------------------


def classic_pairs(skipped: list[str]) -> list[Pair]:
    pairs: list[Pair] = []
    rc_recursive = ragchunk.RecursiveSplitter(SIZE)
    ours_recursive = Side("ragchunk RecursiveSplitter", each(rc_recursive.split), from_chunks)
    try:
        import chonkie

        ver = chonkie.__version__
        ch_t = chonkie.TokenChunker(tokenizer=ENC, chunk_size=SIZE, chunk_overlap=0)
        rc_t = ragchunk.TokenWindowSplitter(SIZE, 0)
        pairs.append(
            Pair(
                "chonkie-token",
                Side(f"Chonkie {ver} TokenChunker", each(ch_t.chunk), from_chonkie),
                Side("ragchunk TokenWindowSplitter", each(rc_t.split), from_chunks),
            )
        )
        ch_s = chonkie.SentenceChunker(tokenizer=ENC, chunk_size=SIZE, chunk_overlap=0)
        rc_s = ragchunk.SentenceSplitter(SIZE)
        pairs.append(
            Pair(
                "chonkie-sentence",
                Side(f"Chonkie {ver} SentenceChunker", each(ch_s.chunk), from_chonkie),
                Side("ragchunk SentenceSplitter", each(rc_s.split), from_chunks),
            )
        )
        ch_r = chonkie.RecursiveChunker(tokenizer=ENC, chunk_size=SIZE)
        pairs.append(
            Pair(
                "chonkie-recursive",
                Side(f"Chonkie {ver} RecursiveChunker", each(ch_r.chunk), from_chonkie),
                ours_recursive,
            )
        )
        try:
            import tree_sitter_language_pack  # noqa: F401
        except ImportError:
            skipped.append(
                "chonkie-code: Chonkie's CodeChunker needs tree-sitter-language-pack, which "
                "downloads its grammars at first use (not installed here)"
            )
    except ImportError as exc:
        skipped.append(f"chonkie-*: {exc}")
    try:
        import semchunk
        import semchunk.semchunk as _sc

        holder: dict[str, Any] = {}

        def fresh() -> None:
            # a new chunker with an empty token-count cache for every round
            getattr(_sc, "_memoized_token_counters", {}).clear()
            holder["c"] = semchunk.chunkerify(ENC, SIZE)

        fresh()
        pairs.append(
            Pair(
                "semchunk",
                Side(
                    "semchunk 4 chunkerify (offsets=True)",
                    lambda docs: [holder["c"](d, offsets=True) for d in docs],
                    from_semchunk,
                    prepare=fresh,
                ),
                ours_recursive,
                note="semchunk's token-count cache is emptied before every round",
            )
        )
    except ImportError as exc:
        skipped.append(f"semchunk: {exc}")
    try:
        from semantic_text_splitter import MarkdownSplitter as StsMarkdown
        from semantic_text_splitter import TextSplitter as StsText

        sts_t = StsText.from_tiktoken_model("gpt-4", SIZE)
        pairs.append(
            Pair(
                "text-splitter",
                Side(
                    "semantic-text-splitter TextSplitter.chunk_indices",
                    each(sts_t.chunk_indices),
                    from_indices,
                ),
                ours_recursive,
            )
        )
        sts_m = StsMarkdown.from_tiktoken_model("gpt-4", SIZE)
        rc_m = ragchunk.MarkdownSplitter(SIZE)
        pairs.append(
            Pair(
                "text-splitter-markdown",
                Side(
                    "semantic-text-splitter MarkdownSplitter.chunk_indices",
                    each(sts_m.chunk_indices),
                    from_indices,
                ),
                Side("ragchunk MarkdownSplitter", each(rc_m.split), from_chunks),
            )
        )
    except ImportError as exc:
        skipped.append(f"text-splitter: {exc}")
    try:
        from llama_index.core.node_parser import SentenceSplitter as LiSentence
        from llama_index.core.node_parser import TokenTextSplitter as LiToken
        from ragchunk.integrations import llama_index as rli

        for key, peer_cls, ours_cls in (
            ("llamaindex-sentence", LiSentence, rli.SentenceSplitter),
            ("llamaindex-token", LiToken, rli.TokenTextSplitter),
        ):
            p, o = (
                peer_cls(chunk_size=SIZE, chunk_overlap=0),
                ours_cls(chunk_size=SIZE, chunk_overlap=0),
            )
            pairs.append(
                Pair(
                    key,
                    Side(
                        f"LlamaIndex {peer_cls.__name__}.split_text",
                        each(p.split_text),
                        llama_nodes(p),
                    ),
                    Side(
                        f"ragchunk.integrations.llama_index.{ours_cls.__name__}.split_text",
                        each(o.split_text),
                        llama_nodes(o),
                    ),
                    note="offsets from get_nodes_from_documents",
                )
            )
    except ImportError as exc:
        skipped.append(f"llamaindex-*: {exc}")
    try:
        from langchain_text_splitters import RecursiveCharacterTextSplitter as LcRecursive
        from ragchunk.integrations.langchain import RecursiveCharacterTextSplitter as RcRecursive

        kw = {"encoding_name": "cl100k_base", "chunk_size": SIZE, "chunk_overlap": 0}
        lc = LcRecursive.from_tiktoken_encoder(**kw)
        rc_lc = RcRecursive.from_tiktoken_encoder(**kw)
        pairs.append(
            Pair(
                "langchain-recursive",
                Side(
                    "LangChain RecursiveCharacterTextSplitter.from_tiktoken_encoder",
                    each(lc.split_text),
                    from_strings,
                ),
                Side(
                    "ragchunk.integrations.langchain.RecursiveCharacterTextSplitter",
                    each(rc_lc.split_text),
                    from_strings,
                ),
            )
        )
    except ImportError as exc:
        skipped.append(f"langchain-recursive: {exc}")
    return pairs


# -- RAGFlow's naive_merge ------------------------------------------------------------------------


def ragflow_pairs(skipped: list[str]) -> list[Pair]:
    """``ragchunk.naive_merge`` against tiktoken's ``encode_ordinary`` (the unit the speed
    targets are stated in: counting alone, no chunks) and against RAGFlow's own code.

    Both pairs chunk the same documents with the same ragchunk side, so the second one to run
    finds ragchunk's per-thread memos warm: time each in its own process (``--only``)."""
    ours = Side("ragchunk.naive_merge", each(lambda d: ragchunk.naive_merge(d, SIZE)), from_strings)
    pairs = [
        Pair(
            "tiktoken-naive_merge",
            Side(
                "tiktoken encode_ordinary (count only)",
                each(ENC.encode_ordinary),
                lambda raw, docs: [[(d, None, None, "")] for d in docs],
            ),
            ours,
            note="tiktoken only encodes (the reference unit): its row counts each document as "
            "one chunk; run alone (--only), the RAGFlow pair warms ragchunk's memos",
        )
    ]
    try:
        from _ragflow_code import load_naive_merge

        rf = load_naive_merge()
        pairs.append(
            Pair(
                "ragflow-naive_merge",
                Side(
                    "RAGFlow v0.27 rag.nlp.naive_merge",
                    each(lambda d: rf(d, SIZE)),
                    from_strings,
                ),
                ours,
            )
        )
    except (FileNotFoundError, ImportError) as exc:
        skipped.append(f"ragflow-naive_merge: {exc}")
    return pairs


# -- the semantic and late pairs ------------------------------------------------------------------


class Embed:
    """texts -> ``(n, dim)`` float32, either a lookup table filled before the clock (a text
    missing from it is embedded by ``model`` and counted) or ``model`` itself; the time
    spent inside the model is added up."""

    def __init__(self, model: Any, table: dict[str, Any] | None = None) -> None:
        self.model, self.table = model, table
        self.misses, self.model_seconds = 0, 0.0

    def _model(self, texts: list[str]) -> Any:
        t0 = time.perf_counter()
        out = self.model.embed(texts)
        self.model_seconds += time.perf_counter() - t0
        return out

    def __call__(self, texts: list[str]) -> Any:
        import numpy as np

        texts = list(texts)
        if self.table is None:
            return self._model(texts)
        missing = [t for t in texts if t not in self.table]
        if missing:
            self.misses += len(set(missing))
            for t, v in zip(missing, self._model(missing), strict=True):
                self.table[t] = v
        return np.stack([self.table[t] for t in texts])

    def lists(self, texts: list[str]) -> list[list[float]]:
        """The same vectors as lists of floats (LangChain's and LlamaIndex's interface);
        from a table, the lists are made once and kept."""
        if self.table is None:
            return self(texts).astype("float64").tolist()
        cache = self.__dict__.setdefault("_lists", {})
        missing = [t for t in texts if t not in cache]
        if missing:
            for t, v in zip(missing, self(missing), strict=True):
                cache[t] = v.astype("float64").tolist()
        return [cache[t] for t in texts]

    def reset(self) -> None:
        self.misses, self.model_seconds = 0, 0.0

    def stats(self) -> dict[str, Any]:
        if self.table is not None:
            return {"table_misses": self.misses}
        return {"model_seconds": self.model_seconds}


class Recorder:
    """An embedder that only notes the texts it is asked for (constant vectors)."""

    def __init__(self) -> None:
        self.texts: set[str] = set()

    def embed(self, texts: list[str]) -> Any:
        import numpy as np

        self.texts.update(texts)
        return np.ones((len(texts), 8), dtype=np.float32)


def _semantic_builders(skipped: list[str]) -> list[tuple[str, Callable[[Embed], Pair]]]:
    """(name, build(embed) -> Pair) for every semantic peer that imports."""
    from ragchunk.semantic import SemanticChunker

    out: list[tuple[str, Callable[[Embed], Pair]]] = []
    try:
        import chonkie
        from _embedders import chonkie_embeddings

        def chonkie_pair(fn: Embed) -> Pair:
            ch = chonkie.SemanticChunker(
                embedding_model=chonkie_embeddings(fn, ENC), chunk_size=SIZE
            )
            rc = SemanticChunker(fn, chunk_size=SIZE)
            return Pair(
                "chonkie-semantic",
                Side(
                    f"Chonkie {chonkie.__version__} SemanticChunker",
                    each(ch.chunk),
                    from_chonkie,
                    extra=fn.stats,
                ),
                Side("ragchunk SemanticChunker(chunk_size=512)", each(rc.split), from_chunks),
                semantic=True,
                note="different algorithms (Chonkie: windowed similarity with a Savitzky-Golay "
                "filter, threshold 0.8); the same vectors",
            )

        out.append(("chonkie-semantic", chonkie_pair))
    except ImportError as exc:
        skipped.append(f"chonkie-semantic: {exc}")
    try:
        from llama_index.core import Document
        from llama_index.core.bridge.pydantic import PrivateAttr
        from llama_index.core.embeddings import BaseEmbedding
        from llama_index.core.node_parser import SemanticSplitterNodeParser

        class LlamaEmbed(BaseEmbedding):
            _fn: Any = PrivateAttr()

            def __init__(self, fn: Embed) -> None:
                super().__init__(model_name="precomputed")
                self._fn = fn

            def _get_text_embedding(self, text: str) -> list[float]:
                return self._fn.lists([text])[0]

            def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
                return self._fn.lists(texts)

            def _get_query_embedding(self, query: str) -> list[float]:
                return self._get_text_embedding(query)

            async def _aget_query_embedding(self, query: str) -> list[float]:
                return self._get_text_embedding(query)

        def llama_pair(fn: Embed) -> Pair:
            li = SemanticSplitterNodeParser(
                embed_model=LlamaEmbed(fn), buffer_size=1, breakpoint_percentile_threshold=95
            )
            rc = SemanticChunker(
                fn,
                breakpoint_threshold_type="percentile",
                breakpoint_threshold_amount=95,
                buffer_size=1,
                chunk_size=SIZE,
            )

            def nodes(raw: list[list[Any]], docs: list[str]) -> list[list[Out]]:
                return [[(n.text, n.start_char_idx, n.end_char_idx, "") for n in ns] for ns in raw]

            return Pair(
                "llamaindex-semantic",
                Side(
                    "LlamaIndex SemanticSplitterNodeParser",
                    each(lambda d: li.get_nodes_from_documents([Document(text=d)])),
                    nodes,
                    extra=fn.stats,
                ),
                Side("ragchunk SemanticChunker(chunk_size=512)", each(rc.split), from_chunks),
                semantic=True,
                note="both: buffer 1, 95th percentile; LlamaIndex has no size limit, "
                "ragchunk's own mode cuts at 512 tokens",
            )

        out.append(("llamaindex-semantic", llama_pair))
    except ImportError as exc:
        skipped.append(f"llamaindex-semantic: {exc}")
    try:
        from langchain_core.embeddings import Embeddings

        with warnings.catch_warnings():  # its notice that the package is being sunset
            warnings.simplefilter("ignore", DeprecationWarning)
            from langchain_experimental.text_splitter import SemanticChunker as LcSemantic

        class LcEmbed(Embeddings):
            def __init__(self, fn: Embed) -> None:
                self.fn = fn

            def embed_documents(self, texts: list[str]) -> list[list[float]]:
                return self.fn.lists(texts)

            def embed_query(self, text: str) -> list[float]:
                return self.fn.lists([text])[0]

        def langchain_pair(fn: Embed) -> Pair:
            # both sides get the one LangChain ``Embeddings`` object (lists of floats)
            embeddings = LcEmbed(fn)
            lc = LcSemantic(embeddings)
            rc = SemanticChunker(embeddings, langchain_compat=True)
            return Pair(
                "langchain-semantic",
                Side(
                    "langchain-experimental SemanticChunker",
                    each(lc.split_text),
                    from_strings,
                    extra=fn.stats,
                ),
                Side(
                    "ragchunk SemanticChunker(langchain_compat=True).split_text",
                    each(rc.split_text),
                    from_strings,
                ),
                semantic=True,
                note="sentences re-joined with single spaces on both sides (LangChain's "
                "output), so offsets are not slices",
            )

        out.append(("langchain-semantic", langchain_pair))
    except ImportError as exc:
        skipped.append(f"langchain-semantic: {exc}")
    return out


def semantic_pairs(
    docs: list[str],
    model: Any,
    only: set[str] | None,
    skipped: list[str],
    second_model: Any = None,
) -> list[Pair]:
    """Every semantic pair twice: ``/table`` (precomputed vectors) and ``/wordllama``. With
    ``second_model`` (another instance of the same model), ragchunk's side embeds with it,
    so that neither side's calls warm the other's model."""
    builders = [
        (n, b)
        for n, b in _semantic_builders(skipped)
        if only is None or {f"{n}/table", f"{n}/wordllama", n} & only
    ]
    if not builders:
        return []
    recorder = Recorder()
    for _, build in builders:  # which texts will be embedded (they do not depend on vectors)
        pair = build(Embed(recorder, {}))
        for d in docs:
            pair.peer.run([d])
            pair.ours.run([d])
    texts = sorted(recorder.texts)
    table = dict(zip(texts, model.embed(texts), strict=True))
    pairs = []
    for name, build in builders:
        for mode in ("table", "wordllama"):
            if only is not None and not {f"{name}/{mode}", name} & only:
                continue
            # one Embed per side, so each side's misses and model time are its own
            peer_fn = Embed(model, dict(table) if mode == "table" else None)
            ours_fn = Embed(second_model or model, dict(table) if mode == "table" else None)
            a, b = build(peer_fn), build(ours_fn)
            b.ours.extra = ours_fn.stats
            a.peer.after_warm_up, b.ours.after_warm_up = peer_fn.reset, ours_fn.reset
            pairs.append(Pair(f"{name}/{mode}", a.peer, b.ours, True, a.note))
    return pairs


def late_pairs(docs: list[str], skipped: list[str]) -> list[Pair]:
    """Chonkie's LateChunker against ragchunk.late.late_chunk over RecursiveSplitter chunks,
    both given the same token vectors (a seeded table by cl100k_base token id)."""
    try:
        import numpy as np
        from chonkie import LateChunker
        from chonkie.embeddings import SentenceTransformerEmbeddings
    except ImportError as exc:
        skipped.append(f"chonkie-late: {exc}")
        return []
    from ragchunk.late import TokenEmbeddings, char_offsets, late_chunk

    vocab = np.random.default_rng(0).standard_normal((ENC.n_vocab, 64)).astype(np.float32)
    store: dict[str, tuple[Any, list[tuple[int, int]]]] = {}
    for d in docs:
        ids = ENC.encode_ordinary(d)
        ends = np.cumsum([len(ENC.decode_single_token_bytes(i)) for i in ids]).tolist()
        # the documented path: char_offsets gives the int64 (n, 2) array late_chunk takes
        spans = char_offsets(d, list(zip([0, *ends[:-1]], ends, strict=True)))
        store[d] = (vocab[ids], spans)

    class Precomputed(SentenceTransformerEmbeddings):
        """Token vectors looked up, not computed (no sentence-transformers model)."""

        def __init__(self) -> None:
            pass

        def embed_as_tokens(self, text: str) -> Any:
            return store[text][0]

        def embed(self, text: str) -> Any:
            return vocab[ENC.encode_ordinary(text)].mean(axis=0)

        def get_tokenizer(self) -> Any:
            return ENC

        @property
        def dimension(self) -> int:
            return 64

    ch = LateChunker(embedding_model=Precomputed(), chunk_size=SIZE)
    rc = ragchunk.RecursiveSplitter(SIZE)

    def theirs(d: str) -> Any:
        # Chonkie memoises token counts per split text in a class-wide ``lru_cache``; the
        # semantic documents repeat every round, a corpus of distinct documents never does
        cached = getattr(type(ch), "_estimate_token_count", None)
        if hasattr(cached, "cache_clear"):
            cached.cache_clear()
        return ch.chunk(d)

    def ours(d: str) -> tuple[list[Any], Any]:
        chunks = rc.split(d)
        return chunks, late_chunk(d, chunks, TokenEmbeddings(*store[d]))

    wrong = {"peer": 0, "ours": 0}

    def checked(who: str, spans_vectors: Callable[[Any], tuple[list[Out], list[Any]]]):
        def chunks(raw: list[Any], docs: list[str]) -> list[list[Out]]:
            outs = []
            for d, r in zip(docs, raw, strict=True):
                out, vectors = spans_vectors(r)
                vecs, spans = store[d]
                starts = np.array([s for s, _ in spans])
                ends = np.array([e for _, e in spans])
                for (_, s, e, _), v in zip(out, vectors, strict=True):
                    want = vecs[(starts < e) & (ends > s)].mean(axis=0)
                    wrong[who] += not np.allclose(v, want, atol=1e-4)
                outs.append(out)
            return outs

        return chunks

    return [
        Pair(
            "chonkie-late",
            Side(
                "Chonkie LateChunker",
                each(theirs),
                checked("peer", lambda cs: (from_chonkie([cs], [])[0], [c.embedding for c in cs])),
                extra=lambda: {"vectors_wrong": wrong["peer"]},
            ),
            Side(
                "ragchunk RecursiveSplitter + ragchunk.late.late_chunk",
                each(ours),
                checked("ours", lambda r: (from_chunks([r[0]], [])[0], list(r[1]))),
                extra=lambda: {"vectors_wrong": wrong["ours"]},
            ),
            semantic=True,
            note="vectors checked against the mean of the vectors of the tokens each chunk's "
            "span overlaps (atol 1e-4)",
        )
    ]


# -- running --------------------------------------------------------------------------------------


def merge_checks(a: dict[str, Any] | None, b: dict[str, Any]) -> dict[str, Any]:
    """Two :func:`check` results over disjoint documents as one."""
    if a is None:
        return b
    kinds = {k: a["docs_by_lossless"][k] + b["docs_by_lossless"][k] for k in a["docs_by_lossless"]}
    checked = a["offsets_checked"] + b["offsets_checked"]
    return {
        "chunks": a["chunks"] + b["chunks"],
        "lossless": "LOSSY"
        if kinds["LOSSY"]
        else ("whitespace" if kinds["whitespace"] else "verbatim"),
        "docs_by_lossless": kinds,
        "replacement_chars": a["replacement_chars"] + b["replacement_chars"],
        "documented_additions": a["documented_additions"] + b["documented_additions"],
        "offsets_checked": checked,
        "offsets_wrong": (a["offsets_wrong"] or 0) + (b["offsets_wrong"] or 0) if checked else None,
        "max_tokens": max(a["max_tokens"], b["max_tokens"]),
        "over_budget": a["over_budget"] + b["over_budget"],
    }


#: The warm-up document: prose, Chinese, and a 1,000-byte piece (a table rule), whose first
#: occurrence builds ragchunk's tables for long pieces (about 0.3 s, once per process).
_WARM_UP = "Warm up. " * 50 + "\n\n中文的句子。" * 20 + "\n\n|" + "-" * 1000 + "|\n"


def run_rounds(
    pairs: list[Pair],
    slices: list[list[str]],
    warm: list[str] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> None:
    """Time every pair on ``slices[r]`` in round ``r``, interleaved, after one untimed call
    of each side on ``warm``. Between timed calls (not timed): each output is checked (the
    first time its documents are seen) and dropped, and the garbage collector runs, so that
    every call starts with the same small heap."""
    for pair in pairs:  # warm-up, not timed: vocabularies and models load on first use
        for side in (pair.peer, pair.ours):
            if side.prepare is not None:
                side.prepare()
            side.run(warm or [_WARM_UP])
            if side.after_warm_up is not None:
                side.after_warm_up()
    checked: set[int] = set()
    for r, docs in enumerate(slices):
        fresh = id(docs) not in checked
        checked.add(id(docs))
        for pair in pairs:
            order = ("peer", "ours") if r % 2 == 0 else ("ours", "peer")
            outs: dict[str, list[list[Out]]] = {}
            for who in order:
                side = pair.peer if who == "peer" else pair.ours
                if side.prepare is not None:
                    side.prepare()
                gc.collect()
                t0 = clock()
                raw = side.run(docs)
                pair.times[who].append(clock() - t0)
                if fresh:
                    outs[who] = side.chunks(raw, docs)
                    pair.checks[who] = merge_checks(pair.checks.get(who), check(docs, outs[who]))
                del raw
            if fresh:
                pair.same = pair.same and same_texts(outs["peer"], outs["ours"])
                pair.docs += len(docs)
            del outs
        print(f"round {r + 1}/{len(slices)} done", file=sys.stderr, flush=True)


def report(pair: Pair, slices: list[list[str]]) -> dict[str, Any]:
    """Throughput per round and the checks (each document checked once)."""
    mbs = [sum(len(d.encode("utf-8")) for d in ds) / 1e6 for ds in slices]
    ratios = [p / o for p, o in zip(pair.times["peer"], pair.times["ours"], strict=True)]
    row: dict[str, Any] = {
        "pair": pair.name,
        "note": pair.note,
        "mb_per_round": mbs,
        "docs": pair.docs,
        "ratio_median": statistics.median(ratios),
        "ratios": ratios,
        "same_chunks": pair.same,
    }
    for who, side in (("peer", pair.peer), ("ours", pair.ours)):
        rates = [mb / t for mb, t in zip(mbs, pair.times[who], strict=True)]
        row[who] = {
            "name": side.name,
            "mbps": statistics.median(rates),
            "mbps_per_round": rates,
            "seconds": pair.times[who],
            **pair.checks[who],
            **(side.extra() if side.extra else {}),
        }
    return row


def print_table(rows: list[dict[str, Any]]) -> None:
    print(
        "| pair | peer | peer MB/s | ragchunk | ragchunk MB/s | peer time / ragchunk "
        "(median; rounds) | chunks peer / ragchunk | lossless peer / ragchunk | offsets wrong "
        "peer / ragchunk | max tokens peer / ragchunk (over 512) |"
    )
    print("|---|---|---:|---|---:|---:|---:|---|---|---|")

    def off(s: dict[str, Any]) -> str:
        return "-" if s["offsets_wrong"] is None else str(s["offsets_wrong"])

    def fmt(s: dict[str, Any]) -> str:
        return f"{s['max_tokens']} ({s['over_budget']})"

    for r in rows:
        p, o = r["peer"], r["ours"]
        rounds = ", ".join(f"{x:.1f}" for x in r["ratios"])
        print(
            f"| {r['pair']} | {p['name']} | {p['mbps']:.2f} | {o['name']} | {o['mbps']:.2f} "
            f"| **{r['ratio_median']:.1f}x** ({rounds}) | {p['chunks']} / {o['chunks']} "
            f"| {p['lossless']} / {o['lossless']} | {off(p)} / {off(o)} | {fmt(p)} / {fmt(o)} |"
        )
    for r in rows:
        notes = []
        if r["same_chunks"]:
            notes.append("identical chunk texts")
        for who in ("peer", "ours"):
            s = r[who]
            if s["replacement_chars"]:
                notes.append(f"{s['name']}: {s['replacement_chars']} U+FFFD from cut characters")
            if s["documented_additions"]:
                notes.append(
                    f"{s['name']}: {s['documented_additions']} chunks start with documented "
                    "added text (a cut table's header rows), checked as added + source slice"
                )
            if s["lossless"] != "verbatim":
                notes.append(f"{s['name']}: documents by lossless check {s['docs_by_lossless']}")
            for k in ("table_misses", "vectors_wrong"):
                if k in s:
                    notes.append(f"{s['name']}: {k} {s[k]}")
            if "model_seconds" in s:
                share = s["model_seconds"] / sum(s["seconds"])
                notes.append(f"{s['name']}: {100 * share:.0f}% of its time inside WordLlama")
        if r["note"]:
            notes.append(r["note"])
        if notes:
            print(f"- {r['pair']}: " + "; ".join(notes))


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--limit-mb", type=float, default=None, help="corpus sample size")
    ap.add_argument(
        "--same-docs",
        action="store_true",
        help="time every round on the whole sample (default: round r takes every rounds-th "
        "document from r on, so no chunker sees a document twice)",
    )
    ap.add_argument(
        "--cut-kb",
        type=float,
        default=None,
        help="cut the documents into pieces of about this many kilobytes (short documents)",
    )
    ap.add_argument(
        "--cpu",
        action="store_true",
        help="time the pairs in this process's CPU time, not wall time (a loaded machine)",
    )
    ap.add_argument("--semantic-docs", type=int, default=8)
    ap.add_argument("--semantic-chars", type=int, default=20000)
    ap.add_argument("--only", nargs="+", metavar="PAIR", help="run only these pairs")
    ap.add_argument("--list", action="store_true", help="list the pairs and exit")
    ap.add_argument("--json", metavar="OUT", help="write the results as JSON")
    args = ap.parse_args()

    skipped: list[str] = []
    classic = classic_pairs(skipped) + ragflow_pairs(skipped)
    semantic_names = [
        f"{n}/{m}" for n, _ in _semantic_builders([]) for m in ("table", "wordllama")
    ] + (["chonkie-late"] if any(p.name.startswith("chonkie") for p in classic) else [])
    if args.list:
        for p in classic:
            print(f"{p.name}: {p.peer.name} -> {p.ours.name}")
        for n in semantic_names:
            print(n)
        for s in skipped:
            print(f"skipped {s}")
        return
    only = set(args.only) if args.only else None
    if only is not None:
        known = {p.name for p in classic} | set(semantic_names)
        known |= {n.split("/")[0] for n in semantic_names}
        if only - known:
            ap.error(f"unknown or unavailable pairs: {', '.join(sorted(only - known))}")
        classic = [p for p in classic if p.name in only]

    label, docs = documents(args.limit_mb)
    if args.cut_kb:
        docs = cut_documents(docs, args.cut_kb)
        label += f", cut into {len(docs)} pieces of about {args.cut_kb:g} KB"
    load = os.getloadavg()
    print(f"corpus {label}; chunk size {SIZE} cl100k_base tokens, overlap 0")
    print(
        f"python {sys.version.split()[0]}, ragchunk {ragchunk.__version__} ({ragchunk.backend}), "
        f"load average before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    rows: list[dict[str, Any]] = []
    ragchunk.count_tokens(_WARM_UP)  # the tokenizer's lazily built tables, before any clock
    if classic:
        if args.same_docs:
            slices = [docs] * args.rounds
        else:
            slices = [docs[r :: args.rounds] for r in range(args.rounds)]
        print(
            "every round: the whole sample"
            if args.same_docs
            else f"round r: documents r, r + {args.rounds}, ... (each seen once, by both sides)"
        )
        run_rounds(classic, slices, clock=time.process_time if args.cpu else time.perf_counter)
        rows += [report(p, slices) for p in classic]
        load = os.getloadavg()
        print(f"load average after {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}\n")
        print_table(rows)
    want_semantic = only is None or any(
        n in only or n.split("/")[0] in only for n in semantic_names
    )
    if want_semantic:
        _, every = documents(None)
        sem_docs = semantic_documents(args.semantic_docs, args.semantic_chars, every)
        sem_mb = sum(len(d.encode("utf-8")) for d in sem_docs) / 1e6
        print(
            f"\nsemantic pairs: {len(sem_docs)} documents (at most {args.semantic_chars} "
            f"characters each), {sem_mb:.2f} MB, the same documents every round"
        )
        from ragchunk.embeddings import load_wordllama

        try:
            sem = semantic_pairs(sem_docs, load_wordllama(), only, skipped, load_wordllama())
        except ImportError as exc:
            sem = []
            skipped.append(f"semantic pairs (WordLlama, numpy): {exc}")
        if only is None or "chonkie-late" in only:
            sem += late_pairs(sem_docs, skipped)
        if sem:
            run_rounds(sem, [sem_docs] * args.rounds, warm=sem_docs[:1])
            sem_rows = [report(p, [sem_docs] * args.rounds) for p in sem]
            rows += sem_rows
            load = os.getloadavg()
            print(f"load average after {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}\n")
            print_table(sem_rows)
    for s in skipped:
        print(f"skipped {s}")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"corpus": label, "rows": rows, "skipped": skipped}, indent=1)
        )


if __name__ == "__main__":
    main()
