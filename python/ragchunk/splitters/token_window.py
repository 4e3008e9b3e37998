"""TokenWindowSplitter: sliding windows of tokens that never cut a character in half."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._pure.splitters import token_window as _pure
from ..core import dispatch
from ..core.checks import check_int
from ..core.chunk import Chunk
from ..core.tokenizers import Tokenizer, hf_tokenizer, resolve_tokenizer
from ._common import ChunkTuple, WindowSplitter, check_batch, check_sizes, configured, to_chunks

__all__ = ["TokenWindowSplitter"]


def _is_hf_object(tokenizer: object) -> bool:
    """A ``tokenizers.Tokenizer`` (serialised once and windowed like its file)."""
    return type(tokenizer).__module__.startswith("tokenizers") and hasattr(tokenizer, "to_str")


class TokenWindowSplitter(WindowSplitter):
    """Sliding windows of ``chunk_size`` tokens stepping by ``chunk_size - chunk_overlap``.

    The text is encoded once (``encode_ordinary``: special-token strings are ordinary text);
    windows are cut at token edges, but never inside a character: where byte-level BPE splits
    one character's bytes over several tokens, a window ends at the previous token edge that
    is a character boundary (so it holds fewer tokens), and the next one starts no later than
    that. Only a run of tokens with no character boundary inside (one character, or two whose
    bytes share a token) worth more than ``chunk_size`` tokens makes a longer window.
    Offsets are code points of the source and ``text == source[start:end]``. Where every token
    edge is a character boundary the windows are LangChain's ``TokenTextSplitter``'s.

    Args:
        chunk_size: tokens per window (default 512).
        chunk_overlap: tokens shared by consecutive windows (``< chunk_size``).
        stride: alternatively, the step between window starts (``chunk_overlap =
            chunk_size - stride``).
        tokenizer: a built-in encoding name, a ``tiktoken.Encoding``, or a Hugging Face
            tokenizer (``"hf:<path to tokenizer.json>"``, a :class:`ragchunk.Tokenizer` or a
            ``tokenizers.Tokenizer``: windows over its tokens, text between two tokens going
            with the first). Windows need token ids, so a counting callable is not enough.

    >>> s = TokenWindowSplitter(chunk_size=2, chunk_overlap=1)
    >>> s.split_text("a b c d")
    ['a b', ' b c', ' c d']
    """

    def __init__(
        self,
        chunk_size: int = 512,
        chunk_overlap: int = 0,
        tokenizer: Any = "cl100k_base",
        *,
        stride: int | None = None,
    ) -> None:
        if stride is not None:
            step = check_int("stride", stride, 1)
            size = check_int("chunk_size", chunk_size, 1)
            if chunk_overlap:
                raise ValueError("give either chunk_overlap or stride, not both")
            if step > size:
                raise ValueError(f"stride must be <= chunk_size, got {step} > {size}")
            chunk_overlap = size - step
        self.chunk_size, self.chunk_overlap = check_sizes(chunk_size, chunk_overlap)
        self.tokenizer = tokenizer
        self._encoding: str | None = None
        self._enc: Any = None
        is_tiktoken = type(tokenizer).__module__.startswith("tiktoken") and hasattr(
            tokenizer, "encode_ordinary"
        )
        resolved = None
        if isinstance(tokenizer, (str, Tokenizer)) or is_tiktoken or _is_hf_object(tokenizer):
            resolved = resolve_tokenizer(tokenizer)
        if resolved is None or (resolved.builtin is None and not is_tiktoken):
            raise TypeError(
                "tokenizer must be a built-in encoding name, a tiktoken.Encoding or a Hugging "
                "Face tokenizer ('hf:<path>', a Tokenizer, a tokenizers.Tokenizer); windows "
                f"need token ids, so a counting callable is not enough; got "
                f"{type(tokenizer).__name__}"
            )
        self._encoding = resolved.builtin
        if is_tiktoken:
            self._enc = tokenizer

    def __repr__(self) -> str:
        return (
            f"TokenWindowSplitter(chunk_size={self.chunk_size}, "
            f"chunk_overlap={self.chunk_overlap}, tokenizer={self.tokenizer!r})"
        )

    def _pure_enc(self) -> Any:
        if self._encoding is not None and not self._encoding.startswith("hf:"):
            from .._pure.tokenizer import load_encoding

            return load_encoding(self._encoding)
        return self._enc

    def _core(self, core: Any) -> Any:
        return configured(
            self,
            core,
            lambda c: c.TokenWindowSplitter(self.chunk_size, self.chunk_overlap, self._encoding),
        )

    def _tuples(self, text: str) -> list[ChunkTuple]:
        def pure() -> list[ChunkTuple]:
            if self._encoding is not None and self._encoding.startswith("hf:"):
                tok = hf_tokenizer(self._encoding)
                return _pure.split_edges(
                    text,
                    _pure.hf_edges(text, tok.token_offsets(text)),
                    self.chunk_size,
                    self.chunk_overlap,
                )
            enc = self._pure_enc()
            return _pure.split(
                text,
                self.chunk_size,
                self.chunk_overlap,
                enc.encode_ordinary,
                enc.decode_single_token_bytes,
            )

        rust = None
        if self._encoding is not None:  # a tiktoken.Encoding of its own is run by tiktoken

            def rust(core: Any) -> list[ChunkTuple]:
                windows: list[ChunkTuple] = self._core(core).split(text)
                return windows

        return dispatch.run(rust, pure)

    def split_batch(self, texts: Sequence[str], workers: int | None = None) -> list[list[Chunk]]:
        """:meth:`split` over many texts, in parallel on the Rust backend, in input order."""
        docs = check_batch(texts, workers)
        rust = None
        if self._encoding is not None:

            def rust(core: Any) -> list[list[Chunk]]:
                results = self._core(core).split_batch(docs, workers)
                return [to_chunks(t, r) for t, r in zip(docs, results, strict=True)]

        return dispatch.run(rust, lambda: [self.split(t) for t in docs])
