"""TitleTreeChunker: chunks that follow a document's title tree, each with its title path."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._pure.splitters import title_layout as _pure_layout
from .._pure.splitters import title_tree as _pure
from ..core import dispatch
from ..core.checks import check_int, check_parsed_text
from ..core.chunk import Chunk
from ._common import Measured, check_batch, configured, size_argument

__all__ = ["TitleTreeChunker"]


@dataclass
class _Layout:
    """A title tree laid out over a text: nodes in pre-order (node 0 the root) and items
    (title lines and paragraphs) as ``(node, start, end)`` code-point spans in order."""

    text: str
    titles: list[str]
    parents: list[int]
    items: list[tuple[int, int, int]]

    def path(self, node: int) -> list[str]:
        out = []
        while node > 0 or (node == 0 and self.titles[0]):
            if self.titles[node]:
                out.append(self.titles[node])
            if node == 0:
                break
            node = self.parents[node]
        return out[::-1]


_TREE_SEP = "\n\n"


def _layout_tree(tree: object) -> _Layout:
    """Render a ``{"title": str, "content": [str | node, ...]}`` tree (or a list of nodes) as
    text, iteratively (any depth), rejecting cycles. Titles and paragraphs are separated by
    a blank line; empty or whitespace-only strings are left out."""
    titles: list[str] = []
    parents: list[int] = []
    items: list[tuple[int, int, int]] = []
    parts: list[str] = []
    pos = 0

    def emit(node: int, s: str) -> None:
        nonlocal pos
        if not s.strip():
            return
        if parts:
            parts.append(_TREE_SEP)
            pos += len(_TREE_SEP)
        parts.append(s)
        items.append((node, pos, pos + len(s)))
        pos += len(s)

    # frames: [node id, content list, next index, id of the dict/list on the path]
    stack: list[list[Any]] = []
    on_path: set[int] = set()

    def where() -> str:
        return "tree" + "".join(f'["content"][{f[2] - 1}]' for f in stack)

    def enter(obj: object, parent: int) -> None:
        if isinstance(obj, Mapping):
            if "title" not in obj:
                raise ValueError(f'{where()}: a node needs a "title"')
            title = obj["title"]
            if not isinstance(title, str):
                raise TypeError(f'{where()}["title"] must be a str, got {type(title).__name__}')
            content = obj.get("content", [])
        elif isinstance(obj, (list, tuple)) and parent < 0:
            title, content = "", obj
        else:
            raise TypeError(
                f"{where()} must be a dict with title and content, got {type(obj).__name__}"
            )
        if isinstance(content, str) or not isinstance(content, (list, tuple)):
            raise TypeError(
                f'{where()}["content"] must be a list of str or nodes, got {type(content).__name__}'
            )
        key = id(obj)
        if key in on_path:
            raise ValueError(f"{where()}: cycle in the title tree")
        on_path.add(key)
        node = len(titles)
        titles.append(title)
        parents.append(parent)
        emit(node, title)
        stack.append([node, content, 0, key])

    enter(tree, -1)
    while stack:
        frame = stack[-1]
        node, content, i = frame[0], frame[1], frame[2]
        if i >= len(content):
            on_path.discard(frame[3])
            stack.pop()
            continue
        frame[2] = i + 1
        child = content[i]
        if isinstance(child, str):
            emit(node, child)
        else:
            enter(child, node)
    return _Layout("".join(parts), titles, parents, items)


_TITLE_SOURCES = ("auto", "markdown", "numbered", "html")


class TitleTreeChunker(Measured):
    """Structure + length chunking over a title tree.

    1. Each smallest-title unit (a title with the paragraphs directly under it) becomes a
       chunk whose ``metadata["title_path"]`` is its full title path ``"A > B > C"``
       (``metadata["titles"]`` the same as a list).
    2. A unit over ``chunk_size`` is split by paragraph, then a paragraph by sentence
       (after 。！？； or . ! ? before whitespace), never mid-sentence unless one sentence alone
       exceeds the budget (then at whitespace, then between characters).
    3. Small neighbours merge bottom-up while the merged text fits: siblings under the same
       lowest title first, then up the tree. A merged chunk spanning several titles carries
       the path of the title it was merged under.

    Chunk text is always ``source[start:end]`` and includes the title lines it spans, so no
    text is lost. The source is the text given to :meth:`split`, or for a tree given to
    :meth:`split_tree` its rendering :meth:`render` (titles and paragraphs separated by a
    blank line).

    Where the tree comes from:

    * :meth:`split_tree`: ``{"title": str, "content": [str | node, ...]}`` (or a list of
      such nodes). Cycles raise ``ValueError``; any depth works (iterative).
    * :meth:`split` with ``title_source="markdown"``: Markdown headings (ATX or setext, as
      :class:`MarkdownSplitter` scans them) are the titles, the other blocks paragraphs.
    * ``title_source="numbered"``: RAGFlow-style numbered title lines (第一编/章/节/条,
      一、, （一）, 1 / 1.2 / 1.2.3, Chapter/Part/Section/Article N) are the titles, every other
      non-blank line a paragraph.
    * ``title_source="html"``: the text is HTML; ``<h1>``...``<h6>`` are the titles and the
      other blocks of :meth:`HTMLSplitter.extract_text` (paragraphs, list items, tables...)
      the paragraphs. Chunk text and offsets then refer to that extracted text, not to the
      HTML source (as for :class:`HTMLSplitter`).
    * ``"auto"`` (default): Markdown when the text has a Markdown heading, else numbered.

    Args:
        chunk_size: the budget per chunk in tokens (or characters, ``length="chars"``);
            ``max_chunk_size`` is accepted as an older name for it.
        length: ``"tokens"`` or ``"chars"``.
        tokenizer: see :mod:`ragchunk`; unused with ``length="chars"``.
        title_source: ``"auto"``, ``"markdown"``, ``"numbered"`` or ``"html"``.

    >>> tree = {"title": "Guide", "content": [
    ...     {"title": "Install", "content": ["Run pip.", "Done."]},
    ...     {"title": "Use", "content": ["Import it."]}]}
    >>> chunker = TitleTreeChunker(24, length="chars")
    >>> for c in chunker.split_tree(tree):
    ...     print(repr(c.metadata["title_path"]), repr(c.text))
    'Guide' 'Guide'
    'Guide > Install' 'Install\\n\\nRun pip.\\n\\nDone.'
    'Guide > Use' 'Use\\n\\nImport it.'
    >>> [c.text for c in TitleTreeChunker(60, length="chars").split_tree(tree)]
    ['Guide\\n\\nInstall\\n\\nRun pip.\\n\\nDone.\\n\\nUse\\n\\nImport it.']
    """

    def __init__(
        self,
        chunk_size: int | None = None,
        length: str = "tokens",
        tokenizer: Any = "cl100k_base",
        title_source: str = "auto",
        *,
        max_chunk_size: int | None = None,
    ) -> None:
        name = "max_chunk_size" if max_chunk_size is not None else "chunk_size"
        self.chunk_size = check_int(name, size_argument(chunk_size, max_chunk_size), 1)
        self._set_length(length, tokenizer)
        if title_source not in _TITLE_SOURCES:
            raise ValueError(
                "title_source must be 'auto', 'markdown', 'numbered' or 'html', "
                f"got {title_source!r}"
            )
        self.title_source = title_source

    def __repr__(self) -> str:
        return (
            f"TitleTreeChunker(chunk_size={self.chunk_size}, length={self.length!r}, "
            f"tokenizer={self.tokenizer!r}, title_source={self.title_source!r})"
        )

    @property
    def max_chunk_size(self) -> int:
        """The older name of :attr:`chunk_size`."""
        return self.chunk_size

    @staticmethod
    def render(tree: object) -> str:
        """The text a tree is chunked as (chunk offsets index into it)."""
        return _layout_tree(tree).text

    def _core(self, core: Any) -> Any:
        return configured(
            self,
            core,
            lambda c: c.TitleTreeChunker(
                self.chunk_size, self.title_source, self.length, *self._core_counter()
            ),
        )

    def split(self, text: str) -> list[Chunk]:
        """Chunk a document whose titles are read from :attr:`title_source`."""
        text = check_parsed_text(text)
        result = dispatch.run(
            lambda core: self._core(core).split(text),
            lambda: _pure_layout.split_text(
                text, self.title_source, self.chunk_size, self._count()
            ),
        )
        return _text_chunks(text, result)

    def split_tree(self, tree: object) -> list[Chunk]:
        """Chunk a ``{"title": ..., "content": [...]}`` tree; offsets index
        :meth:`render` ``(tree)``.

        Raises:
            TypeError: a node, title or content of the wrong type (the message gives its
                path, e.g. ``tree["content"][2]["title"]``).
            ValueError: a node without a title, a cycle, a lone surrogate.
        """
        layout = _layout_tree(tree)
        check_parsed_text(layout.text, "tree")
        raw = dispatch.run(
            lambda core: self._core(core).split_layout(layout.text, layout.parents, layout.items),
            lambda: _pure.split_title_tree(
                layout.text, layout.parents, layout.items, self.chunk_size, self._count()
            ),
        )
        out = []
        paths: dict[int, list[str]] = {}
        for start, end, size, node in raw:
            if node not in paths:
                paths[node] = layout.path(node)
            titles = paths[node]
            meta = {"title_path": " > ".join(titles), "titles": list(titles)}
            out.append(Chunk(layout.text[start:end], start, end, size, meta))
        return out

    def split_batch(self, texts: Sequence[str], workers: int | None = None) -> list[list[Chunk]]:
        """:meth:`split` over many documents, in input order; on the Rust backend in parallel
        with the GIL released (a built-in tokenizer or ``length="chars"``), or one after
        another inside the core for a Python tokenizer."""
        texts = check_batch(texts, workers)
        docs = [check_parsed_text(t, f"texts[{i}]") for i, t in enumerate(texts)]

        def rust(core: Any) -> list[list[Chunk]]:
            results = self._core(core).split_batch(docs, workers)
            return [_text_chunks(d, r) for d, r in zip(docs, results, strict=True)]

        return dispatch.run(rust, lambda: [self.split(t) for t in docs])


def _text_chunks(
    text: str, result: tuple[str | None, Sequence[tuple[int, int, int, int]], list[list[str]]]
) -> list[Chunk]:
    """Chunks of a text's tree: ``(laid-out text or None for the input, chunks, paths)``."""
    laid, raw, paths = result
    base = text if laid is None else laid
    return [
        Chunk(
            base[start:end],
            start,
            end,
            size,
            {"title_path": " > ".join(paths[k]), "titles": list(paths[k])},
        )
        for start, end, size, k in raw
    ]
