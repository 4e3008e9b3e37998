"""Type stubs for the compiled Rust core (``rust/python/``). Private: use ``ragchunk``."""

from collections.abc import Callable
from typing import Any, Literal, Protocol, TypeVar, final

__all__ = [
    "Bm25Index",
    "CharacterSplitter",
    "CodeSplitter",
    "HTMLSplitter",
    "LlamaIndexSentence",
    "LlamaIndexToken",
    "MarkdownSplitter",
    "RecursiveSplitter",
    "SentenceSplitter",
    "TitleTreeChunker",
    "TokenWindowSplitter",
    "__version__",
    "_char_sets",
    "_panic_for_tests",
    "bm25_tokenize",
    "bound_depth",
    "chonkie_recursive_chunks",
    "chonkie_sentence_chunks",
    "chonkie_table_chunks",
    "chonkie_token_windows",
    "count_batch",
    "count_or_zero",
    "count_ordinary",
    "count_ordinary_batch",
    "count_ordinary_resume",
    "count_ordinary_spans",
    "count_paragraphs",
    "count_tokens",
    "encode_ordinary",
    "extract_positions",
    "flow_cap_split",
    "flow_finalize_boxes",
    "flow_merge_run",
    "flow_split_on_tokens",
    "flow_take_sentences",
    "hf_register",
    "html_text",
    "late_char_offsets",
    "late_pool",
    "lc_token_windows",
    "li_markdown_sections",
    "li_punkt_sentences",
    "markdown_blocks",
    "naive_merge",
    "naive_merge_batch",
    "naive_merge_offsets",
    "parse_delimiter_field",
    "pdf_layout_items",
    "pdf_page_content",
    "pdf_page_items",
    "pdf_text_quarter",
    "remove_tag",
    "semantic_distances",
    "semantic_gradient",
    "semantic_lc_sentences",
    "semantic_mean_pool",
    "semantic_percentiles",
    "semantic_rows_f32",
    "semantic_similarity_matrix",
    "semantic_stats",
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

def flow_split_on_tokens(text: str, tokens: list[str]) -> list[tuple[int, int]]:
    """Code-point ranges of the non-empty segments between literal tokens."""

def flow_take_sentences(text: str, need: float, from_end: bool) -> str:
    """Whole sentences from one end of ``text`` holding at least ``need`` tokens."""

def flow_merge_run(
    texts: list[str], counts: list[int], size: int, percent: int
) -> list[tuple[str, list[int]]]:
    """TokenChunker's token merge of one run of JSON text items."""

def flow_cap_split(text: str, cap: int) -> list[str]:
    """TitleChunker's token-cap re-split of one chunk text."""

def flow_finalize_boxes(
    boxes: list[list[float]], normalise: bool
) -> tuple[list[tuple[int, int, int, int, int]], list[int], list[int]] | None:
    """``(position_int, page_num_int, top_int)`` of normalised boxes; None: the Python path."""

def count_ordinary_batch(
    texts: list[str], encoding_name: str, workers: int | None = None
) -> list[int]:
    """``count_ordinary`` over many texts in parallel."""

def count_ordinary_spans(
    text: str, spans: list[tuple[int, int]], encoding_name: str, workers: int | None = None
) -> list[int]:
    """``count_ordinary`` of each code-point span ``text[s:e]``, in parallel."""

def count_batch(
    texts: list[str], encoding_name: str, strict: bool, workers: int | None = None
) -> list[int]:
    """Counts in parallel; ``strict``: ValueError on special-token text, else 0."""

def hf_register(key: str, json: str, add_special_tokens: bool = False) -> None:
    """Load a Hugging Face ``tokenizer.json`` (its text) under ``key`` (``"hf:..."``)."""

def token_edges(text: str, encoding_name: str) -> list[int]:
    """Byte offset where each token starts, then ``len(text)`` in bytes."""

def lc_token_windows(text: str, encoding_name: str, tokens_per_chunk: int, step: int) -> list[str]:
    """LangChain's ``TokenTextSplitter`` chunks: token windows decoded as tiktoken does."""

# The Chonkie drop-ins.
def chonkie_token_windows(
    text: str, encoding_name: str, size: int, step: int
) -> tuple[list[int], list[int], list[int]]:
    """Chonkie's token windows: code-point starts, ends and token counts."""

def chonkie_sentence_chunks(
    text: str,
    patterns: list[str],
    include_next: bool,
    min_bytes: int,
    chunk_size: int,
    chunk_overlap: float,
    min_sentences: int,
    encoding_name: str | None = None,
) -> tuple[list[int], list[int], list[int]]:
    """Chonkie's ``SentenceChunker`` chunks: code-point starts, ends and token counts."""

def chonkie_recursive_chunks(
    text: str,
    levels: list[tuple[list[str], bool] | None],
    chunk_size: int,
    min_bytes: int,
    encoding_name: str | None = None,
) -> tuple[list[int], list[int], list[int]]:
    """Chonkie's ``RecursiveChunker`` chunks: code-point starts, ends and token counts."""

def chonkie_table_chunks(
    table: str, chunk_size: int, encoding_name: str | None = None
) -> tuple[int, tuple[list[int], list[int], list[int]]]:
    """Chonkie's ``TableChunker`` chunks: the header's end, then the rows' starts, ends, counts."""

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

def _char_sets() -> dict[str, list[int]]:
    """Test hook: each ``chars.*`` set of the data file, as the code points the core's set holds."""

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

# ---- chunkers: each configured once from its options (already checked by the facade, whose
# messages are the user's; a size the facade never passes is refused with ValueError), then
# applied with split / split_batch / split_arrow, the same three methods on every class
# (`_Chunker`). Sized chunkers measure with length="chars", or length="tokens" and exactly one
# of encoding_name (a built-in encoding) and counter (a Python callable str -> int, called
# with the GIL held).

_Counter = Callable[[str], int]

# The Arrow path's output buffers: (row u32, chunk_index u32, start i64, end i64, size i64,
# metadata offsets i64, metadata data (JSON objects), text offsets i64, text data), all
# little-endian; the two string columns are large_string buffers.
_ArrowChunks = tuple[bytes, bytes, bytes, bytes, bytes, bytes, bytes, bytes, bytes]

_Out = TypeVar("_Out")

class _Chunker(Protocol[_Out]):
    """What every configured chunker class of the core has."""

    def split(self, text: str) -> _Out: ...
    def split_batch(self, texts: list[str], workers: int | None = None) -> list[_Out]: ...
    def split_arrow(
        self,
        data: object,
        offsets: object,
        offset: int,
        len: int,
        large: bool,
        workers: int | None = None,
    ) -> _ArrowChunks: ...

# Classic chunks: (start, end, size, joined) with code-point offsets; `joined` is the chunk
# text only when it is not source[start:end].
_ChunkTuple = tuple[int, int, int, str | None]

@final
class CharacterSplitter(_Chunker[list[_ChunkTuple]]):
    def __new__(cls, chunk_size: int, chunk_overlap: int, drop_last: bool) -> CharacterSplitter: ...

@final
class TokenWindowSplitter(_Chunker[list[_ChunkTuple]]):
    def __new__(
        cls, chunk_size: int, chunk_overlap: int, encoding_name: str
    ) -> TokenWindowSplitter: ...

@final
class RecursiveSplitter(_Chunker[list[_ChunkTuple]]):
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
    def split_text(self, text: str) -> list[str]: ...

@final
class SentenceSplitter(_Chunker[list[_ChunkTuple]]):
    def __new__(
        cls,
        chunk_size: int,
        chunk_overlap_sentences: int,
        length: Literal["tokens", "chars"] = "tokens",
        encoding_name: str | None = None,
        counter: _Counter | None = None,
    ) -> SentenceSplitter: ...

def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentence spans (start, end) in code points."""

# Packed chunks (Markdown, HTML): (start, end, size, section, prefix) in code points, where
# prefix is the (start, end) of a repeated table header or None; with the sections' heading
# paths. HTML results also carry the laid-out text the offsets index.
_MdChunk = tuple[int, int, int, int, tuple[int, int] | None]
_MdResult = tuple[list[_MdChunk], list[list[str]], list[list[list[str]]]]
_HtmlResult = tuple[str, list[_MdChunk], list[list[str]], list[list[list[str]]]]

@final
class MarkdownSplitter(_Chunker[_MdResult]):
    def __new__(
        cls,
        chunk_size: int,
        chunk_overlap: int,
        levels: list[int],
        strip_headers: bool,
        length: Literal["tokens", "chars"] = "tokens",
        encoding_name: str | None = None,
        counter: _Counter | None = None,
        merge_sections: bool = False,
    ) -> MarkdownSplitter: ...

@final
class HTMLSplitter(_Chunker[_HtmlResult]):
    def __new__(
        cls,
        chunk_size: int,
        chunk_overlap: int,
        levels: list[int],
        strip_headers: bool,
        length: Literal["tokens", "chars"] = "tokens",
        encoding_name: str | None = None,
        counter: _Counter | None = None,
        merge_sections: bool = False,
    ) -> HTMLSplitter: ...

def html_text(text: str) -> str:
    """HTMLSplitter.extract_text: the laid-out text of an HTML document."""

def markdown_blocks(text: str) -> list[tuple[int, int, int, str]]:
    """The Markdown scanner's blocks (start, end, heading level or 0, heading text or "")."""

def bound_depth(html: str) -> str:
    """``ragchunk.core.markup.bound_depth``: the start tags nesting past 512 (and their end
    tags) replaced by a space; ``html`` itself when nothing is cut."""

# A text's title tree chunked: the laid-out text when it is not the input (HTML) or None,
# the chunks (start, end, size, path) in code points, and the title paths they index.
_TreeChunk = tuple[int, int, int, int]
_TreeResult = tuple[str | None, list[_TreeChunk], list[list[str]]]

@final
class TitleTreeChunker(_Chunker[_TreeResult]):
    def __new__(
        cls,
        chunk_size: int,
        title_source: Literal["auto", "markdown", "numbered", "html"],
        length: Literal["tokens", "chars"] = "tokens",
        encoding_name: str | None = None,
        counter: _Counter | None = None,
    ) -> TitleTreeChunker: ...
    def split_layout(
        self, text: str, parents: list[int], items: list[tuple[int, int, int]]
    ) -> list[_TreeChunk]:
        """Chunks (start, end, size, node) of a tree laid out by the facade: its text, each
        node's parent (-1 for the root) and the items (node, start, end)."""

# (start, end, size, symbols, start_line, end_line), lines 1-based inclusive.
_CodeChunk = tuple[int, int, int, list[str], int, int]

@final
class CodeSplitter(_Chunker[list[_CodeChunk]]):
    def __new__(
        cls,
        language: str,
        chunk_size: int,
        length: Literal["tokens", "chars"] = "tokens",
        encoding_name: str | None = None,
        counter: _Counter | None = None,
    ) -> CodeSplitter: ...

# ragchunk.eval: BM25 (scored as rank_bm25's BM25Okapi).
def bm25_tokenize(text: str, tokenizer: str) -> list[str]: ...

@final
class Bm25Index:
    def __new__(
        cls, docs: list[str], tokenizer: str, k1: float, b: float, epsilon: float
    ) -> Bm25Index: ...
    @staticmethod
    def from_tokens(docs: list[list[str]], k1: float, b: float, epsilon: float) -> Bm25Index: ...
    def __len__(self) -> int: ...
    def idf(self, token: str) -> float: ...
    def scores(self, query: list[str]) -> list[float]: ...
    def search_tokens(self, queries: list[list[str]], k: int) -> list[list[tuple[int, float]]]: ...
    def search(self, queries: list[str], k: int) -> list[list[tuple[int, float]]]: ...

# Embedding-driven chunking's numeric core: matrices as little-endian float32 bytes + shape.

def semantic_distances(embeddings: Any) -> list[float]:
    """``1 - cos(row i, row i + 1)`` for consecutive rows of a C-contiguous float32 array,
    read in place (zero vector: distance 1)."""

def semantic_similarity_matrix(data: bytes, rows: int, dim: int) -> list[float]:
    """The ``rows x rows`` cosine similarity matrix, row-major."""

def semantic_stats(values: list[float], q: float) -> tuple[float, float, float]:
    """``(np.percentile(values, q), np.mean(values), np.std(values))``."""

def semantic_percentiles(values: list[float], qs: list[float]) -> list[float]:
    """``np.percentile(values, q)`` for each ``q``."""

def semantic_gradient(values: list[float]) -> list[float]:
    """``np.gradient(values, range(len(values)))``."""

def late_pool(
    vectors: Any,
    offsets: Any,
    chunks: list[tuple[int, int]],
    text_len: int,
    normalize: bool,
    out: Any,
) -> None:
    """Mean-pool token vectors per chunk span into ``out`` (numpy arrays, in place)."""

def late_char_offsets(text: str, offsets: Any, out: Any) -> None:
    """UTF-8 byte offsets of ``text`` (``(n, 2)`` int64) as code-point offsets into ``out``."""

def semantic_rows_f32(value: object, rows: int) -> tuple[bytearray, int] | None:
    """A list of ``rows`` equal-length lists of finite floats as float32 bytes and ``dim``."""

def semantic_lc_sentences(
    text: str, buffer: int, spans: bool
) -> tuple[list[str], list[tuple[int, int]], list[str]]:
    """LangChain's sentences, their code-point spans (when ``spans``) and windows."""

def semantic_mean_pool(
    data: bytes,
    rows: int,
    dim: int,
    tokens: list[tuple[int, int]],
    chunks: list[tuple[int, int]],
) -> list[float]:
    """Mean token vector per chunk span, flattened (NaN rows for chunks without tokens)."""

# LlamaIndex's SentenceSplitter / TokenTextSplitter algorithms (ragchunk.integrations.llama_index).
# `mode`: "all" (encode with allowed_special="all"), "ordinary" or "exact"; a status of 1 is
# "Single token exceeded chunk size", 2 special-token text refused under "exact".

@final
class LlamaIndexSentence:
    def __new__(
        cls,
        chunk_overlap: int,
        separator: str,
        paragraph_separator: str,
        clause_regex: bool,
        encoding_name: str,
        mode_name: str,
        classify: Callable[[str], int],
    ) -> LlamaIndexSentence: ...
    def split(self, text: str, chunk_size: int) -> tuple[list[str], int]: ...
    def split_batch(
        self, texts: list[str], chunk_sizes: list[int], workers: int | None = None
    ) -> list[tuple[list[str], int]]: ...

@final
class LlamaIndexToken:
    def __new__(
        cls,
        chunk_overlap: int,
        separators: list[str],
        keep_whitespaces: bool,
        encoding_name: str,
        mode_name: str,
    ) -> LlamaIndexToken: ...
    def split(self, text: str, chunk_size: int) -> tuple[list[str], list[int], int]: ...
    def split_batch(
        self, texts: list[str], chunk_sizes: list[int], workers: int | None = None
    ) -> list[tuple[list[str], list[int], int]]: ...

def pdf_page_content(
    functions: list[int], page: int, textpage: int, height: float
) -> tuple[
    list[tuple[str, float, float, float, float, float, int]],
    list[tuple[int, float, float, float, float, int]],
]:
    """One PDF page's characters and graphic objects, equal to
    ``ragchunk._pure.documents.pdfium.page_content``: ``functions`` is that module's
    ``function_table(pypdfium2.raw)``, ``page`` and ``textpage`` the addresses of the page's
    PDFium handles, ``height`` its height in points."""

_PdfItem = tuple[str, str, float, float, float, float, float, int, str, list[list[str]] | None]

def pdf_page_items(
    functions: list[int],
    page: int,
    textpage: int,
    width: float,
    height: float,
    quarter: int = 0,
) -> list[_PdfItem]:
    """One PDF page's lines, tables and figures in reading order, equal to
    ``ragchunk._pure.documents.layout.page_items(*turn(*page_content(...), quarter, width,
    height), w)`` (``w`` the width after the turn): the page read as :func:`pdf_page_content`
    reads it (GIL held), the layout run with the GIL released."""

def pdf_text_quarter(functions: list[int], textpage: int) -> int:
    """``ragchunk._pure.documents.pdfium.text_quarter``: the quarter turns (counterclockwise)
    by which most of a PDF page's characters are drawn turned."""

def pdf_layout_items(
    chars: list[tuple[str, float, float, float, float, float, int]],
    graphics: list[tuple[int, float, float, float, float, int]],
    width: float,
) -> list[_PdfItem]:
    """``ragchunk._pure.documents.layout.page_items(chars, graphics, width)`` in Rust, from the
    lists ``pdfium.page_content`` gives."""

def li_markdown_sections(
    texts: list[str], separator: str, workers: int | None = None
) -> list[list[tuple[str, str]]]:
    """LlamaIndex's ``MarkdownNodeParser`` sections of each text: ``(text, header path)``."""

def li_punkt_sentences(text: str, classify: Callable[[str], int]) -> list[str]:
    """LlamaIndex's default sentence split (untrained NLTK Punkt) of ``text``."""
