"""The semantic and late pairs of the peers harness (``benches/peers.py``): each library
gets the same precomputed vectors behind its own embedder interface."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import Any

import ragchunk

# _peers_base puts tiktoken offline and this folder on the path (imported first, by peers.py)
from _peers_base import (
    ENC,
    SIZE,
    Out,
    Pair,
    Side,
    each,
    from_chonkie,
    from_chunks,
    from_strings,
)

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
