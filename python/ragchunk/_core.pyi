"""Type stubs for the compiled Rust core (``rust/python.rs``). Private: use ``ragchunk``."""

from typing import final

__all__ = [
    "RecursiveCore",
    "__version__",
    "_panic_for_tests",
    "character_split",
    "character_split_batch",
    "code_split",
    "code_split_batch",
    "count_batch",
    "count_or_zero",
    "count_ordinary",
    "count_ordinary_batch",
    "count_ordinary_resume",
    "count_paragraphs",
    "count_tokens",
    "encode_ordinary",
    "extract_positions",
    "html_layout",
    "html_split",
    "html_split_batch",
    "html_text",
    "markdown_split",
    "markdown_split_batch",
    "naive_merge",
    "naive_merge_batch",
    "naive_merge_offsets",
    "parse_delimiter_field",
    "remove_tag",
    "sentence_spans",
    "sentence_split",
    "sentence_split_batch",
    "title_tree_split",
    "title_tree_split_batch",
    "token_window_split",
    "token_window_split_batch",
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

# ---- classic splitters: chunks are (start, end, size, joined) with code-point
# offsets; `joined` is the chunk text only when it is not source[start:end].

_ChunkTuple = tuple[int, int, int, str | None]

@final
class RecursiveCore:
    """LangChain's RecursiveCharacterTextSplitter, configured once."""

    def __new__(
        cls,
        chunk_size: int,
        chunk_overlap: int,
        separators: list[tuple[str, str | None]],
        keep_separator: str,
        strip_whitespace: bool,
        length: str,
        encoding_name: str | None = None,
    ) -> RecursiveCore: ...
    def split(
        self, text: str, counter: object | None = None, with_counts: bool = True
    ) -> list[_ChunkTuple]:
        """Chunks of one text (``counter``: the callable for callback lengths)."""

    def split_text(self, text: str, counter: object | None = None) -> list[str]:
        """Just the chunk strings of one text (no counts)."""

    def split_batch(self, texts: list[str], workers: int | None = None) -> list[list[_ChunkTuple]]:
        """``split`` over many texts in parallel, in input order (built-in units only)."""

def character_split(
    text: str, chunk_size: int, chunk_overlap: int, drop_last: bool
) -> list[_ChunkTuple]:
    """Fixed character windows."""

def character_split_batch(
    texts: list[str],
    chunk_size: int,
    chunk_overlap: int,
    drop_last: bool,
    workers: int | None = None,
) -> list[list[_ChunkTuple]]:
    """Character windows over many texts in parallel."""

def token_window_split(
    text: str, chunk_size: int, chunk_overlap: int, encoding_name: str
) -> list[_ChunkTuple]:
    """Token windows cut at character boundaries."""

def token_window_split_batch(
    texts: list[str],
    chunk_size: int,
    chunk_overlap: int,
    encoding_name: str,
    workers: int | None = None,
) -> list[list[_ChunkTuple]]:
    """Token windows over many texts in parallel."""

def sentence_split(
    text: str,
    chunk_size: int,
    overlap_sentences: int,
    length: str,
    encoding_name: str | None = None,
    counter: object | None = None,
) -> list[_ChunkTuple]:
    """Whole sentences packed up to chunk_size."""

def sentence_split_batch(
    texts: list[str],
    chunk_size: int,
    overlap_sentences: int,
    length: str,
    encoding_name: str | None = None,
    workers: int | None = None,
) -> list[list[_ChunkTuple]]:
    """sentence_split over many texts in parallel."""

def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentence spans in code points."""

# ---- structure-aware chunkers

# (start, end, size, section index, added prefix (start, end) or None), code points.
_MdChunk = tuple[int, int, int, int, tuple[int, int] | None]

def html_layout(text: str) -> tuple[str, list[tuple[int, int, int, str]]]:
    """HTMLSplitter's text layout and its blocks ``(start, end, heading level or 0, title)``."""

def html_split(
    text: str,
    chunk_size: int,
    chunk_overlap: int,
    levels: list[int],
    strip_headers: bool,
    encoding_name: str | None,
    counter: object | None,
) -> tuple[str, list[_MdChunk], list[list[str]]]:
    """HTMLSplitter.split: the laid-out text, its chunks and the sections' heading paths."""

def html_split_batch(
    texts: list[str],
    chunk_size: int,
    chunk_overlap: int,
    levels: list[int],
    strip_headers: bool,
    encoding_name: str | None,
    workers: int | None,
) -> list[tuple[str, list[_MdChunk], list[list[str]]]]:
    """html_split over many documents in parallel, in input order."""

def html_text(text: str) -> str:
    """HTMLSplitter.extract_text: the laid-out text of an HTML document."""

def markdown_split(
    text: str,
    chunk_size: int,
    chunk_overlap: int,
    levels: list[int],
    strip_headers: bool,
    encoding_name: str | None,
    counter: object | None,
) -> tuple[list[_MdChunk], list[list[str]]]:
    """MarkdownSplitter.split: chunks and the heading path of each section."""

def markdown_split_batch(
    texts: list[str],
    chunk_size: int,
    chunk_overlap: int,
    levels: list[int],
    strip_headers: bool,
    encoding_name: str | None,
    workers: int | None,
) -> list[tuple[list[_MdChunk], list[list[str]]]]:
    """markdown_split over many documents in parallel, in input order."""

def title_tree_split(
    text: str,
    parents: list[int],
    items: list[tuple[int, int, int]],
    budget: int,
    encoding_name: str | None,
    counter: object | None,
) -> list[tuple[int, int, int, int]]:
    """TitleTreeChunker on a laid-out tree: ``(start, end, size, node)`` chunks."""

def title_tree_split_batch(
    docs: list[tuple[str, list[int], list[tuple[int, int, int]]]],
    budget: int,
    encoding_name: str | None,
    workers: int | None,
) -> list[list[tuple[int, int, int, int]]]:
    """title_tree_split over many documents in parallel, in input order."""

_CodeChunk = tuple[int, int, int, list[str], int, int]

def code_split(
    text: str,
    language: str,
    chunk_size: int,
    encoding_name: str | None,
    counter: object | None,
) -> list[_CodeChunk]:
    """CodeSplitter.split: ``(start, end, size, symbols, start_line, end_line)`` chunks."""

def code_split_batch(
    texts: list[str],
    language: str,
    chunk_size: int,
    encoding_name: str | None,
    workers: int | None,
) -> list[list[_CodeChunk]]:
    """code_split over many files in parallel, in input order."""
