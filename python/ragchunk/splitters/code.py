"""Source code chunking along the syntax tree (tree-sitter grammars compiled into the core).

:class:`CodeSplitter` keeps functions and classes whole when they fit, with their leading
comments, and cuts larger ones at nested block boundaries. Both backends walk the same
tree-sitter tree (the Rust core links the grammar crates; the fallback uses the ``tree-sitter``
PyPI package and the grammar wheels pinned to the same versions) and return identical chunks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._pure.splitters import code as _pure
from .._pure.splitters.code import CodeChunkRaw
from ..core import dispatch
from ..core.checks import check_int, check_parsed_text
from ..core.chunk import Chunk
from ..core.rules import code_aliases, code_languages
from ._common import Measured, check_batch, configured

__all__ = ["LANGUAGES", "CodeSplitter", "canonical_language", "supported_languages"]

#: The supported languages' canonical names, sorted (the grammars both backends compile in).
LANGUAGES: tuple[str, ...] = code_languages()

_ALIASES = code_aliases()


def canonical_language(language: object) -> str:
    """The canonical name of ``language`` (case-insensitive, aliases such as ``"py"``).

    Raises:
        TypeError: ``language`` is not a str.
        ValueError: unknown language; the message lists the supported ones.
    """
    if not isinstance(language, str):
        raise TypeError(f"language must be a str, got {type(language).__name__}")
    key = language.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in LANGUAGES:
        raise ValueError(
            f"language {language!r} is not supported; supported: {', '.join(LANGUAGES)} "
            f"(aliases: {', '.join(sorted(_ALIASES))})"
        )
    return key


def supported_languages() -> list[str]:
    """Canonical names of the languages :class:`CodeSplitter` accepts, sorted.

    >>> supported_languages()
    ['c', 'cpp', 'go', 'java', 'javascript', 'python', 'rust', 'tsx', 'typescript']
    """
    return list(LANGUAGES)


class CodeSplitter(Measured):
    """Cut source code into chunks that follow its syntax tree.

    The file is parsed with tree-sitter. Top-level statements, functions, classes (and each
    language's other definitions: structs, impls, interfaces, ...) are kept whole when they
    fit in ``chunk_size``, together with the comments (or Rust attributes) directly above
    them; consecutive small ones are packed into one chunk. A definition that does not fit
    starts a new chunk and is cut at its nested block boundaries (its header with the first
    statements of its body, then further statements or nested definitions), recursively; a
    single line still over budget is cut like a long Markdown line (sentence ends, then
    whitespace, then between characters). A single character over budget is a chunk of its
    own: the only way a chunk exceeds ``chunk_size``.

    Chunk text is always ``source[start:end]``; chunks are in order, never overlap, and
    together cover every non-whitespace character of the source (only whitespace between
    chunks is left out). Syntax errors are fine: tree-sitter recovers and the result is a
    best-effort split of the same lossless kind.

    ``metadata`` of each chunk:

    * ``"language"``: the canonical language name;
    * ``"symbols"``: qualified names of the innermost definitions the chunk overlaps, in
      document order (``"Class.method"``, Rust ``"Type.method"`` for impl blocks, Go
      ``"Type.Method"`` for methods); empty for chunks outside any definition;
    * ``"start_line"``, ``"end_line"``: the chunk's first and last line, 1-based and
      inclusive (lines are counted by ``"\\n"``).

    Args:
        language: one of :func:`supported_languages` (``"c"``, ``"cpp"``, ``"go"``,
            ``"java"``, ``"javascript"``, ``"python"``, ``"rust"``, ``"tsx"``,
            ``"typescript"``) or an alias (``"py"``, ``"js"``, ``"jsx"``, ``"ts"``, ``"rs"``,
            ``"golang"``, ``"c++"``); case-insensitive.
        chunk_size: the budget per chunk, in tokens (or characters with ``length="chars"``).
        length: ``"tokens"`` (default) or ``"chars"`` (code points).
        tokenizer: see :mod:`ragchunk` (``"cl100k_base"`` by default); unused with
            ``length="chars"``. Special-token text is counted as plain text.

    Raises:
        TypeError, ValueError: a bad argument (the message names it; an unknown
            ``language`` lists the supported ones).

    >>> src = "import os\\n\\n# Add.\\ndef add(a, b):\\n    return a + b\\n"
    >>> for c in CodeSplitter("python", chunk_size=14).split(src):
    ...     print(c.metadata["symbols"], c.metadata["start_line"], repr(c.text))
    [] 1 'import os'
    ['add'] 3 '# Add.\\ndef add(a, b):\\n    return a + b'
    """

    def __init__(
        self,
        language: str,
        chunk_size: int,
        length: str = "tokens",
        tokenizer: Any = "cl100k_base",
    ) -> None:
        self.language = canonical_language(language)
        self.chunk_size = check_int("chunk_size", chunk_size, 1)
        self._set_length(length, tokenizer)

    def __repr__(self) -> str:
        return (
            f"CodeSplitter(language={self.language!r}, chunk_size={self.chunk_size}, "
            f"length={self.length!r}, tokenizer={self.tokenizer!r})"
        )

    def _core(self, core: Any) -> Any:
        return configured(
            self,
            core,
            lambda c: c.CodeSplitter(
                self.language, self.chunk_size, self.length, *self._core_counter()
            ),
        )

    def _raw(self, text: str) -> list[CodeChunkRaw]:
        return dispatch.run(
            lambda core: self._core(core).split(text),
            lambda: _pure.split_code(text, self.language, self.chunk_size, self._count()),
        )

    def _build(self, text: str, raw: list[CodeChunkRaw]) -> list[Chunk]:
        return [
            Chunk(
                text[s:e],
                s,
                e,
                size,
                {
                    "language": self.language,
                    "symbols": symbols,
                    "start_line": first,
                    "end_line": last,
                },
            )
            for s, e, size, symbols, first, last in raw
        ]

    def split(self, text: str) -> list[Chunk]:
        """Cut one source file into :class:`ragchunk.Chunk` objects."""
        text = check_parsed_text(text)
        return self._build(text, self._raw(text))

    def split_batch(self, texts: Sequence[str], workers: int | None = None) -> list[list[Chunk]]:
        """:meth:`split` over many files, in input order; on the Rust backend in parallel with
        the GIL released (a built-in tokenizer or ``length="chars"``), or one after another
        inside the core for a Python tokenizer."""
        texts = check_batch(texts, workers)
        docs = [check_parsed_text(t, f"texts[{i}]") for i, t in enumerate(texts)]

        def rust(core: Any) -> list[list[Chunk]]:
            results = self._core(core).split_batch(docs, workers)
            return [self._build(t, raw) for t, raw in zip(docs, results, strict=True)]

        return dispatch.run(rust, lambda: [self._build(t, self._raw(t)) for t in docs])
