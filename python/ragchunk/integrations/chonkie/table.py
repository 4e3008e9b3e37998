"""The drop-in of ``chonkie.TableChunker`` for Markdown tables: the rows found, counted and
packed in one call of the Rust core, the header repeated at the top of every chunk.

>>> table = "| a | b |\\n|---|---|\\n| 1 | 2 |\\n| 3 | 4 |\\n| 5 | 6 |"
>>> [c.text for c in TableChunker(chunk_size=2).chunk(table)]
['| a | b |\\n|---|---|\\n| 1 | 2 |\\n| 3 | 4 |\\n', '| a | b |\\n|---|---|\\n| 5 | 6 |']
"""

from __future__ import annotations

import chonkie
from chonkie.tokenizer import RowTokenizer
from chonkie.types import Chunk

from ragchunk._pure.splitters import chonkie as pure
from ragchunk.core import dispatch

from .common import builtin_name, chunk_ids, fallback_count, is_character

__all__ = ["TableChunker"]


class TableChunker(chonkie.TableChunker):
    """``chonkie.TableChunker`` with ragchunk's row packing for Markdown tables, by rows
    (Chonkie's ``"row"`` tokenizer, the default), by characters (``"character"``) or by the
    tokens of a ``tiktoken.Encoding`` of ``cl100k_base`` or ``o200k_base``. HTML tables, other
    tokenizers and special-token text run Chonkie's code.

    Each chunk's text is the header (its first two lines) and the chunk's rows; its offsets
    are the rows' span in the text (the first token-packed chunk's span starts at the header),
    counted in the text as given, where Chonkie counts them in the stripped text.

    >>> TableChunker(chunk_size=5)("| a |\\n|---|\\n| 1 |")[0].token_count
    1
    """

    def _plan(self, text: str) -> list[Chunk] | None:
        size = self.chunk_size
        # "<" first: lower-casing every table to look for "<table" costs a tenth of the call
        if type(size) is not int or size <= 0 or ("<" in text and "<table" in text.lower()):
            return None
        by_rows = isinstance(self.tokenizer.tokenizer, RowTokenizer)
        name = None if by_rows or is_character(self) else builtin_name(self, text)
        if name is None and not (by_rows or is_character(self)):
            return None
        table = text.strip()
        if table.count("\n") < 2:
            return None  # Chonkie's warning and no chunk
        count = fallback_count(name) or len
        try:
            header_end, (starts, ends, tokens) = dispatch.run(
                lambda core: core.chonkie_table_chunks(table, size, "row" if by_rows else name),
                lambda: pure.table_chunks(table, size, None if by_rows else count),
            )
            whole = sum(tokens) if by_rows else count(table)
        except UnicodeEncodeError:  # lone surrogates: Chonkie's code raises its error
            return None
        if (by_rows and len(starts) <= 1) or (not by_rows and whole <= size):
            return [
                Chunk(
                    id=chunk_ids(1)[0],
                    text=text,
                    start_index=0,
                    end_index=len(text),
                    token_count=whole,
                )
            ]
        if not starts:  # a header and no row over the size: Chonkie makes no chunk
            return []
        lead = text.index(table[0])  # where the stripped table starts in the text
        header = table[:header_end]
        spans = list(zip(starts, ends, strict=True))
        if not by_rows:
            spans[0] = (0, spans[0][1])
        return [
            Chunk(
                id=i,
                text=header + table[r:e],
                start_index=lead + s,
                end_index=lead + e,
                token_count=n,
            )
            for i, (s, e), r, n in zip(chunk_ids(len(spans)), spans, starts, tokens, strict=True)
        ]

    def chunk(self, text: str) -> list[Chunk]:
        """Chonkie's chunks of the table ``text`` (none for blank text, as Chonkie's)."""
        if not isinstance(text, str) or not text.strip():
            return list(super().chunk(text))
        chunks = self._plan(text)
        return list(super().chunk(text)) if chunks is None else chunks
