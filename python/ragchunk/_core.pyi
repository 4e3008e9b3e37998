"""Type stubs for the compiled Rust core (``rust/python/``). Private: use ``ragchunk``."""

from collections.abc import Callable
from typing import Literal, final

__all__ = [
    "CharacterSplitter",
    "CodeSplitter",
    "HTMLSplitter",
    "MarkdownSplitter",
    "RecursiveSplitter",
    "SentenceSplitter",
    "TitleTreeChunker",
    "TokenWindowSplitter",
    "__version__",
    "_panic_for_tests",
    "count_batch",
    "count_or_zero",
    "count_ordinary",
    "count_ordinary_batch",
    "count_ordinary_resume",
    "count_paragraphs",
    "count_tokens",
    "encode_ordinary",
    "extract_positions",
    "hf_register",
    "html_layout",
    "html_text",
    "markdown_blocks",
    "naive_merge",
    "naive_merge_batch",
    "naive_merge_offsets",
    "parse_delimiter_field",
    "remove_tag",
    "sentence_spans",
    "token_edges",
]
__version__: str

def count_tokens(text: str, encoding_name: str) -> int:
    """Exact count; ValueError on special-token text (tiktoken ``encode`` defaults)."""

def count_or_zero(text: str, encoding_name: str) -> int:
    """RAGFlow's ``num_tokens_from_string`` semantics: the count, or 0 on special-token text."""

def count_ordinary(text: str, encoding_name: str) -> int:
    """``len(encoding.encode_ordinary(text))``."""

def count_ordinary_resume(
    text: str, encoding_name: str, start: int, tail: int, stop_above: int | None = None
) -> tuple[int, int, int]:
    """Tokens of ``text[start:]`` (``start`` a byte offset from an earlier call on text with
    the same bytes before it, or 0) and a resume point before the last ``tail`` bytes:
    ``(count, stable, count_to_stable)``. With ``stop_above``, counting stops once past it
    (``count`` is then only known to be above it)."""

def count_paragraphs(texts: list[str], encoding_name: str, strategy_name: str) -> list[int]:
    """The count ``naive_merge`` gives each piece's paragraph: ``num_tokens_from_string("\\n" +
    piece)`` (``count_ordinary`` semantics for ``"hard_cap"``), via the merge's own shortcut."""

def encode_ordinary(text: str, encoding_name: str) -> list[int]:
    """``encoding.encode_ordinary(text)``: token ids."""

def naive_merge(
    texts: list[str],
    poses: list[str | None],
    chunk_token_num: float,
    delimiter: str,
    overlapped_percent: float,
    strategy_name: str,
    compat_name: str,
    encoding_name: str | None,
    counter: object | None,
    with_sources: bool,
) -> tuple[list[str], list[list[int]] | None]:
    """The whole naive_merge in one call; sources are per-chunk section indexes."""

def remove_tag(txt: str) -> str:
    """Remove RAGFlow position tags."""

def extract_positions(txt: str) -> list[tuple[list[int], float, float, float, float]]:
    """Parse RAGFlow position tags."""

def parse_delimiter_field(field: str) -> list[str]:
    """RAGFlow v0.27's delimiter-field parser."""

def count_ordinary_batch(
    texts: list[str], encoding_name: str, workers: int | None = None
) -> list[int]:
    """``count_ordinary`` over many texts in parallel."""

def count_batch(
    texts: list[str], encoding_name: str, strict: bool, workers: int | None = None
) -> list[int]:
    """Counts in parallel; ``strict``: ValueError on special-token text, else 0."""

def hf_register(key: str, json: str, add_special_tokens: bool = False) -> None:
    """Load a Hugging Face ``tokenizer.json`` (its text) under ``key`` (``"hf:..."``)."""

def token_edges(text: str, encoding_name: str) -> list[int]:
    """Byte offset where each token starts, then ``len(text)`` in bytes."""

def naive_merge_batch(
    docs: list[tuple[list[str], list[str | None]]],
    chunk_token_num: float,
    delimiter: str,
    overlapped_percent: float,
    strategy_name: str,
    compat_name: str,
    encoding_name: str,
    workers: int | None,
) -> list[list[str]]:
    """naive_merge over many documents in parallel, in input order."""

def _panic_for_tests(detach: bool) -> None:
    """Test hook: panics in Rust; must surface as ``ragchunk.RagchunkError``."""

def naive_merge_offsets(
    text: str,
    chunk_token_num: float,
    delimiter: str,
    overlapped_percent: float,
    strategy_name: str,
    encoding_name: str | None,
    counter: object | None,
) -> tuple[bytearray, bytearray, bytearray]:
    """v0.27 chunk spans of one string: (starts, ends, prefix_lens) as native int64 buffers."""

# ---- chunkers: each configured once from its options (checked there: TypeError or
# ValueError naming the argument), then applied with split / split_batch. Sized chunkers
# measure with length="chars", or length="tokens" and exactly one of encoding_name (a
# built-in encoding) and counter (a Python callable str -> int, called with the GIL held).

_Counter = Callable[[str], int]

# Classic chunks: (start, end, size, joined) with code-point offsets; `joined` is the chunk
# text only when it is not source[start:end].
_ChunkTuple = tuple[int, int, int, str | None]

@final
class CharacterSplitter:
    def __new__(cls, chunk_size: int, chunk_overlap: int, drop_last: bool) -> CharacterSplitter: ...
    def split(self, text: str) -> list[_ChunkTuple]: ...
    def split_batch(
        self, texts: list[str], workers: int | None = None
    ) -> list[list[_ChunkTuple]]: ...

@final
class TokenWindowSplitter:
    def __new__(
        cls, chunk_size: int, chunk_overlap: int, encoding_name: str
    ) -> TokenWindowSplitter: ...
    def split(self, text: str) -> list[_ChunkTuple]: ...
    def split_batch(
        self, texts: list[str], workers: int | None = None
    ) -> list[list[_ChunkTuple]]: ...

@final
class RecursiveSplitter:
    def __new__(
        cls,
        chunk_size: int,
        chunk_overlap: int,
        separators: list[tuple[str, str | None]],
        keep_separator: Literal["start", "end", "none"],
        strip_whitespace: bool,
        length: Literal["tokens", "chars"] = "tokens",
        encoding_name: str | None = None,
        counter: _Counter | None = None,
    ) -> RecursiveSplitter: ...
    def split(self, text: str) -> list[_ChunkTuple]: ...
    def split_text(self, text: str) -> list[str]: ...
    def split_batch(
        self, texts: list[str], workers: int | None = None
    ) -> list[list[_ChunkTuple]]: ...

@final
class SentenceSplitter:
    def __new__(
        cls,
        chunk_size: int,
        chunk_overlap_sentences: int,
        length: Literal["tokens", "chars"] = "tokens",
        encoding_name: str | None = None,
        counter: _Counter | None = None,
    ) -> SentenceSplitter: ...
    def split(self, text: str) -> list[_ChunkTuple]: ...
    def split_batch(
        self, texts: list[str], workers: int | None = None
    ) -> list[list[_ChunkTuple]]: ...

def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentence spans in code points."""

# ---- structure-aware chunkers

# (start, end, size, section index, added prefix (start, end) or None), code points.
_MdChunk = tuple[int, int, int, int, tuple[int, int] | None]
# (chunks, the heading path of each section)
_MdResult = tuple[list[_MdChunk], list[list[str]]]
# (the laid-out text, its chunks, the heading path of each section)
_HtmlResult = tuple[str, list[_MdChunk], list[list[str]]]
# (start, end, heading level or 0, heading text or ""), code points.
_TitleBlock = tuple[int, int, int, str]

@final
class MarkdownSplitter:
    def __new__(
        cls,
        chunk_size: int,
        chunk_overlap: int,
        levels: list[int],
        strip_headers: bool,
        length: Literal["tokens", "chars"] = "tokens",
        encoding_name: str | None = None,
        counter: _Counter | None = None,
    ) -> MarkdownSplitter: ...
    def split(self, text: str) -> _MdResult: ...
    def split_batch(self, texts: list[str], workers: int | None = None) -> list[_MdResult]: ...

@final
class HTMLSplitter:
    def __new__(
        cls,
        chunk_size: int,
        chunk_overlap: int,
        levels: list[int],
        strip_headers: bool,
        length: Literal["tokens", "chars"] = "tokens",
        encoding_name: str | None = None,
        counter: _Counter | None = None,
    ) -> HTMLSplitter: ...
    def split(self, text: str) -> _HtmlResult: ...
    def split_batch(self, texts: list[str], workers: int | None = None) -> list[_HtmlResult]: ...

def html_text(text: str) -> str:
    """HTMLSplitter.extract_text: the laid-out text of an HTML document."""

def html_layout(text: str) -> tuple[str, list[_TitleBlock]]:
    """HTMLSplitter's text layout and its blocks."""

# The Markdown block scanner's blocks (MarkdownSplitter's), for TitleTreeChunker.
def markdown_blocks(text: str) -> list[_TitleBlock]: ...

# A laid-out title tree: its text, each node's parent (-1 for the root) and the items
# (node, start, end); chunks are (start, end, size, node), all offsets in code points.
_TreeDoc = tuple[str, list[int], list[tuple[int, int, int]]]
_TreeChunk = tuple[int, int, int, int]

@final
class TitleTreeChunker:
    def __new__(
        cls,
        chunk_size: int,
        length: Literal["tokens", "chars"] = "tokens",
        encoding_name: str | None = None,
        counter: _Counter | None = None,
    ) -> TitleTreeChunker: ...
    def split(
        self, text: str, parents: list[int], items: list[tuple[int, int, int]]
    ) -> list[_TreeChunk]: ...
    def split_batch(
        self, docs: list[_TreeDoc], workers: int | None = None
    ) -> list[list[_TreeChunk]]: ...

# (start, end, size, symbols, start_line, end_line), lines 1-based inclusive.
_CodeChunk = tuple[int, int, int, list[str], int, int]

@final
class CodeSplitter:
    def __new__(
        cls,
        language: str,
        chunk_size: int,
        length: Literal["tokens", "chars"] = "tokens",
        encoding_name: str | None = None,
        counter: _Counter | None = None,
    ) -> CodeSplitter: ...
    def split(self, text: str) -> list[_CodeChunk]: ...
    def split_batch(
        self, texts: list[str], workers: int | None = None
    ) -> list[list[_CodeChunk]]: ...
