"""What the size-aware splitters share: argument checks, chunk building, counting, and the
configured core object each one keeps per core module."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

from ..core import dispatch
from ..core.checks import check_int, check_parsed_text, check_text
from ..core.chunk import Chunk, MdChunkRaw, Splitter, check_texts, check_workers
from ..core.counting import Counter
from ..core.tokenizers import ResolvedTokenizer, resolve_tokenizer

ChunkTuple = tuple[int, int, int, "str | None"]
#: The default of ``merge_sections`` in MarkdownSplitter and HTMLSplitter.
MERGE_DEFAULT = True
LENGTHS = ("tokens", "chars")


# Kept beside the splitters rather than in them, so that a splitter still pickles and copies
# (the compiled objects do neither) and the entry goes when the splitter does.
_CONFIGURED: weakref.WeakKeyDictionary[object, tuple[object, Any]] = weakref.WeakKeyDictionary()


def configured(owner: object, core: Any, build: Callable[[Any], Any]) -> Any:
    """The compiled chunker configured like ``owner``: ``build(core)``, made once per core
    module (the test suite switches backends, and a benchmark may load a second build) and
    reused by every later call. ``build`` may return None for a configuration only Python
    runs; that answer is kept too. Called inside the ``rust`` half of ``dispatch.run``, so a
    build that raises ``UnicodeEncodeError`` (an option holding a lone surrogate) falls back."""
    hit = _CONFIGURED.get(owner)
    if hit is not None and hit[0] is core:
        return hit[1]
    obj = build(core)
    _CONFIGURED[owner] = (core, obj)
    return obj


def check_sizes(chunk_size: object, chunk_overlap: object) -> tuple[int, int]:
    """``(chunk_size, chunk_overlap)`` validated: ``0 <= chunk_overlap < chunk_size``."""
    size = check_int("chunk_size", chunk_size, 1)
    overlap = check_int("chunk_overlap", chunk_overlap, 0)
    if overlap >= size:
        raise ValueError(f"chunk_overlap must be smaller than chunk_size, got {overlap} >= {size}")
    return size, overlap


def size_argument(
    chunk_size: int | None, max_chunk_size: int | None, default: int | None = None
) -> object:
    """The size a chunker was given: ``chunk_size``, or its older spelling ``max_chunk_size``
    (still accepted by the chunkers that used it)."""
    if chunk_size is not None and max_chunk_size is not None:
        raise TypeError("give chunk_size or max_chunk_size (its older name), not both")
    size = chunk_size if chunk_size is not None else max_chunk_size
    if size is None:
        if default is None:
            raise TypeError("chunk_size is required")
        return default
    return size


def check_batch(texts: object, workers: object) -> list[str]:
    """A batch's documents and ``workers`` validated."""
    check_workers(workers)
    return check_texts(texts)


def to_chunks(text: str, tuples: Sequence[ChunkTuple]) -> list[Chunk]:
    """Chunks from ``(start, end, size, joined)`` tuples: ``joined`` is None for a source
    slice, else the chunk's own text (``metadata["rejoined"]``)."""
    out = []
    for s, e, n, joined in tuples:
        if joined is None:
            out.append(Chunk(text[s:e], s, e, n))
        else:
            out.append(Chunk(joined, s, e, n, {"rejoined": True}))
    return out


def measure(length: str, tokenizer: object) -> tuple[str | None, ResolvedTokenizer | None]:
    """(built-in encoding name or None, resolved tokenizer or None for chars)."""
    if length not in LENGTHS:
        raise ValueError(f"length must be 'tokens' or 'chars', got {length!r}")
    if length == "chars":
        return None, None
    resolved = resolve_tokenizer(tokenizer)
    return resolved.builtin, resolved


class WindowSplitter(Splitter):
    """What the two fixed-window splitters share: chunks are ``_tuples(text)`` slices."""

    def _tuples(self, text: str) -> list[ChunkTuple]:
        raise NotImplementedError

    def split(self, text: str) -> list[Chunk]:
        """Windows of ``text``; ``token_count`` is the window's size in the splitter's unit."""
        text = check_text(text)
        return to_chunks(text, self._tuples(text))

    def split_text(self, text: str) -> list[str]:
        """Just the window strings."""
        text = check_text(text)
        return [text[s:e] for s, e, _, _ in self._tuples(text)]


class Measured(Splitter):
    """Chunkers sized in tokens (a resolved tokenizer) or in characters (``length``)."""

    length: str
    tokenizer: Any
    _tok: ResolvedTokenizer | None
    _pure_count: Callable[[str], int] | None

    def _set_length(self, length: str, tokenizer: Any) -> None:
        """Validate ``length`` and resolve ``tokenizer`` (only used with ``"tokens"``)."""
        if length not in LENGTHS:
            raise ValueError(f"length must be 'tokens' or 'chars', got {length!r}")
        self.length = length
        self.tokenizer = tokenizer
        self._tok = resolve_tokenizer(tokenizer) if length == "tokens" else None
        self._pure_count = None

    def _count(self) -> Callable[[str], int]:
        """How the pure-Python paths count (built once, on first use)."""
        if self._pure_count is None:
            self._pure_count = Counter(self._tok).pure()
        return self._pure_count

    def __getstate__(self) -> dict[str, Any]:
        # The fallback's counter is a closure, which does not pickle; it is rebuilt on first use.
        state = self.__dict__.copy()
        state["_pure_count"] = None
        return state

    def _core_counter(self) -> tuple[str | None, Callable[[str], int] | None]:
        """``(built-in encoding, Python counter)`` for the core: at most one is set."""
        tok = self._tok
        builtin = tok.builtin if tok is not None else None
        return builtin, (tok.exact if tok is not None and builtin is None else None)


class SectionSplitter(Measured):
    """What MarkdownSplitter and HTMLSplitter share: arguments, counting, batch dispatch.

    Subclasses give the heading-level parser, the name of their configured class in the core
    (``_core_class``) and how a result becomes chunks.
    """

    _core_class: str

    def __init__(
        self,
        chunk_size: int,
        chunk_overlap: int,
        headers_to_split_on: Sequence[str],
        strip_headers: bool,
        length: str,
        tokenizer: Any,
        parse_levels: Callable[[object], tuple[int, ...]],
        merge_sections: bool,
    ) -> None:
        self.chunk_size, self.chunk_overlap = check_sizes(chunk_size, chunk_overlap)
        self._levels = parse_levels(headers_to_split_on)
        self.headers_to_split_on = tuple(headers_to_split_on)
        if not isinstance(strip_headers, bool):
            raise TypeError(f"strip_headers must be a bool, got {type(strip_headers).__name__}")
        self.strip_headers = strip_headers
        if not isinstance(merge_sections, bool):
            raise TypeError(f"merge_sections must be a bool, got {type(merge_sections).__name__}")
        self.merge_sections = merge_sections
        self._set_length(length, tokenizer)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(chunk_size={self.chunk_size}, "
            f"chunk_overlap={self.chunk_overlap}, "
            f"headers_to_split_on={self.headers_to_split_on!r}, "
            f"strip_headers={self.strip_headers}, length={self.length!r}, "
            f"tokenizer={self.tokenizer!r}, merge_sections={self.merge_sections})"
        )

    def _core(self, core: Any) -> Any:
        """The core's ``_core_class``, configured like this splitter."""

        def build(compiled: Any) -> Any:
            return getattr(compiled, type(self)._core_class)(
                self.chunk_size,
                self.chunk_overlap,
                list(self._levels),
                self.strip_headers,
                self.length,
                *self._core_counter(),
                merge_sections=self.merge_sections,
            )

        return configured(self, core, build)

    def _split_batch(
        self,
        texts: Sequence[str],
        workers: int | None,
        build: Callable[[str, Any], list[Chunk]],
    ) -> list[list[Chunk]]:
        """Validated documents run through the core's ``split_batch`` (in parallel with the
        GIL released for a built-in tokenizer, one after another inside the core for a Python
        one), each result made into chunks by ``build(document, result)``; one :meth:`split`
        after another on the fallback."""
        docs = self._docs(texts)
        check_workers(workers)

        def rust(core: Any) -> list[list[Chunk]]:
            results = self._core(core).split_batch(docs, workers)
            return [build(doc, result) for doc, result in zip(docs, results, strict=True)]

        return dispatch.run(rust, lambda: [self.split(t) for t in docs])

    @staticmethod
    def _docs(texts: Sequence[str]) -> list[str]:
        return [check_parsed_text(t, f"texts[{i}]") for i, t in enumerate(check_texts(texts))]


def section_chunks(
    text: str,
    raw: list[MdChunkRaw],
    sections: list[list[str]],
    merged: list[list[list[str]]],
) -> list[Chunk]:
    """Chunks of the packer's ``(start, end, size, section, prefix)`` results, with each
    section's heading path (``metadata["headers"]``), the paths of the sections merged into
    the chunk, if more than one (``metadata["sections"]``), and the repeated prefix, if any
    (``metadata["added_prefix"]``)."""
    out = []
    for start, end, size, sec, prefix in raw:
        meta: dict[str, Any] = {"headers": list(sections[sec])}
        if merged[sec]:
            meta["sections"] = [list(p) for p in merged[sec]]
        body = text[start:end]
        if prefix is not None:
            added = text[prefix[0] : prefix[1]] + "\n"
            meta["added_prefix"] = added
            body = added + body
        out.append(Chunk(body, start, end, size, meta))
    return out
