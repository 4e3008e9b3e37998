"""Structure-aware chunkers: Markdown (more to come: title trees, JSON, HTML, code).

Each chunker is configured once and applied to many documents (``split``, ``split_text``,
``split_batch``), returns :class:`ragchunk.Chunk` objects with code-point offsets, and gives the
same result on the Rust core and on the pure-Python fallback.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from . import _backend
from ._chunk import Chunk, Splitter
from ._pure import structured as _pure
from ._tokenizers import ResolvedTokenizer, resolve_tokenizer

__all__ = ["MarkdownSplitter"]

_LENGTHS = ("tokens", "chars")


def _positive_int(value: object, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def _check_text(text: object, name: str = "text") -> str:
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a str, got {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"{name} contains a lone surrogate at index {exc.start}; "
            "decode the source with errors='replace' first"
        ) from None
    return text


def _heading_levels(value: object) -> tuple[int, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(
            "headers_to_split_on must be a sequence of '#' strings such as ('#', '##'), "
            f"got {type(value).__name__}"
        )
    levels = []
    for i, h in enumerate(value):
        if not isinstance(h, str):
            raise TypeError(f"headers_to_split_on[{i}] must be a str, got {type(h).__name__}")
        if not 1 <= len(h) <= 6 or h.strip("#"):
            raise ValueError(f"headers_to_split_on[{i}] must be '#' to '######', got {h!r}")
        levels.append(len(h))
    return tuple(sorted(set(levels)))


class MarkdownSplitter(Splitter):
    """Cut Markdown into chunks that follow its headings and never break a block needlessly.

    The document is cut into sections at the headings listed in ``headers_to_split_on``; each
    chunk's ``metadata["headers"]`` is the path of those headings above it (outermost first).
    Within a section, whole blocks (paragraphs, fenced or indented code, tables, lists, block
    quotes, front matter, other headings) are packed into chunks of at most ``chunk_size``.
    A block is only cut when it alone exceeds the budget: at line boundaries (a table at row
    boundaries), a line still too long at sentence ends, then at whitespace, then between
    characters; a single character over budget becomes a chunk of its own.

    Chunk text is ``source[start:end]``, with one documented exception: when a table is cut,
    every continuation chunk starts with the table's header and delimiter rows plus ``"\\n"``
    (so it is still a table); that added text is in ``metadata["added_prefix"]`` and
    ``start``/``end`` cover only the rows taken from the source. The header is repeated only
    if it takes at most half the budget. ``token_count`` counts the whole chunk text.

    The block scanner is line based (CommonMark rules for headings, fences, thematic breaks
    and indented code, GFM tables, simplified list extent) and identical in both backends;
    see ``rust/splitters/markdown.rs``. An unclosed fence runs to the end of the document.

    Args:
        chunk_size: the budget per chunk, in tokens (or characters with ``length="chars"``).
        chunk_overlap: each chunk may start with trailing whole blocks of the previous chunk
            in the same section, up to this size (never across sections, never inside a cut
            block). ``0 <= chunk_overlap < chunk_size``.
        headers_to_split_on: heading levels that start sections, as ``"#"`` ... ``"######"``.
        strip_headers: leave those section headings out of the chunk text (their text stays
            in ``metadata["headers"]``). A heading whose section has nothing else stays as
            the section's only chunk, so no text is ever lost.
        length: ``"tokens"`` (default) or ``"chars"`` (code points).
        tokenizer: see :mod:`ragchunk` (``"cl100k_base"`` by default); unused with
            ``length="chars"``. Special-token text is counted as plain text.

    Raises:
        TypeError, ValueError: a bad argument (the message names it).

    >>> md = "# Guide\\n\\nIntro.\\n\\n## Install\\n\\n```sh\\npip install ragchunk\\n```\\n"
    >>> for c in MarkdownSplitter(chunk_size=64).split(md):
    ...     print(c.metadata["headers"], repr(c.text))
    ['Guide'] '# Guide\\n\\nIntro.'
    ['Guide', 'Install'] '## Install\\n\\n```sh\\npip install ragchunk\\n```'
    """

    def __init__(
        self,
        chunk_size: int,
        chunk_overlap: int = 0,
        headers_to_split_on: Sequence[str] = ("#", "##", "###"),
        strip_headers: bool = False,
        length: str = "tokens",
        tokenizer: Any = "cl100k_base",
    ) -> None:
        self.chunk_size = _positive_int(chunk_size, "chunk_size", 1)
        self.chunk_overlap = _positive_int(chunk_overlap, "chunk_overlap", 0)
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError(
                f"chunk_overlap ({chunk_overlap}) must be smaller than chunk_size ({chunk_size})"
            )
        self._levels = _heading_levels(headers_to_split_on)
        self.headers_to_split_on = tuple(headers_to_split_on)
        if not isinstance(strip_headers, bool):
            raise TypeError(f"strip_headers must be a bool, got {type(strip_headers).__name__}")
        self.strip_headers = strip_headers
        if length not in _LENGTHS:
            raise ValueError(f"length must be 'tokens' or 'chars', got {length!r}")
        self.length = length
        self.tokenizer = tokenizer
        self._tok: ResolvedTokenizer | None = (
            resolve_tokenizer(tokenizer) if length == "tokens" else None
        )
        self._pure_count: Callable[[str], int] | None = None

    def __repr__(self) -> str:
        return (
            f"MarkdownSplitter(chunk_size={self.chunk_size}, chunk_overlap={self.chunk_overlap}, "
            f"headers_to_split_on={self.headers_to_split_on!r}, "
            f"strip_headers={self.strip_headers}, length={self.length!r}, "
            f"tokenizer={self.tokenizer!r})"
        )

    def _count(self) -> Callable[[str], int]:
        if self._pure_count is None:
            tok = self._tok
            if tok is None:
                self._pure_count = len
            elif tok.builtin is not None:
                from ._pure.tokens import load_encoding

                encode = load_encoding(tok.builtin).encode_ordinary
                self._pure_count = lambda t: len(encode(t))
            else:
                assert tok.exact is not None
                self._pure_count = tok.exact
        return self._pure_count

    def _raw(self, text: str) -> tuple[list[_pure.MdChunkRaw], list[list[str]]]:
        core = _backend.core()
        if core is not None:
            tok = self._tok
            builtin = tok.builtin if tok is not None else None
            counter = tok.exact if tok is not None and builtin is None else None
            chunks, sections = core.markdown_split(
                text,
                self.chunk_size,
                self.chunk_overlap,
                list(self._levels),
                self.strip_headers,
                builtin,
                counter,
            )
            return chunks, sections
        return _pure.split_markdown(
            text,
            self.chunk_size,
            self.chunk_overlap,
            self._levels,
            self.strip_headers,
            self._count(),
        )

    @staticmethod
    def _build(text: str, raw: list[_pure.MdChunkRaw], sections: list[list[str]]) -> list[Chunk]:
        out = []
        for start, end, size, sec, prefix in raw:
            meta: dict[str, Any] = {"headers": list(sections[sec])}
            body = text[start:end]
            if prefix is not None:
                added = text[prefix[0] : prefix[1]] + "\n"
                meta["added_prefix"] = added
                body = added + body
            out.append(Chunk(body, start, end, size, meta))
        return out

    def split(self, text: str) -> list[Chunk]:
        """Cut one Markdown document into :class:`ragchunk.Chunk` objects."""
        text = _check_text(text)
        raw, sections = self._raw(text)
        return self._build(text, raw, sections)

    def split_batch(self, texts: Sequence[str], workers: int | None = None) -> list[list[Chunk]]:
        """:meth:`split` over many documents; in parallel with the GIL released on the Rust
        backend with a built-in tokenizer or ``length="chars"``. Results in input order."""
        if isinstance(texts, (str, bytes)) or not isinstance(texts, Sequence):
            raise TypeError(f"texts must be a list of str, got {type(texts).__name__}")
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)):
            raise TypeError(f"workers must be an int or None, got {type(workers).__name__}")
        if workers is not None and workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        docs = [_check_text(t, f"texts[{i}]") for i, t in enumerate(texts)]
        core = _backend.core()
        tok = self._tok
        if core is None or (tok is not None and tok.builtin is None):
            # The fallback, or a Python tokenizer (it needs the GIL): one after another.
            return [self._build(t, *self._raw(t)) for t in docs]
        results = core.markdown_split_batch(
            docs,
            self.chunk_size,
            self.chunk_overlap,
            list(self._levels),
            self.strip_headers,
            tok.builtin if tok is not None else None,
            workers,
        )
        return [self._build(t, raw, secs) for t, (raw, secs) in zip(docs, results, strict=True)]
