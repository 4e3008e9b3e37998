"""The invariants every chunker keeps, checked in one place.

``check_chunks(source, chunks, ...)`` asserts, for a chunker's result on ``source``:

* **offsets**: each chunk's ``[start, end)`` is a valid, non-empty range of ``source`` and the
  chunks come in document order (starts never go back);
* **text**: ``chunk.text == source[start:end]``, unless the chunk's metadata declares the text
  it added (``added_prefix``: a repeated heading or header line before the slice; ``rejoined``:
  LangChain's text for pieces whose separators were dropped);
* **no text lost**: every non-whitespace character of ``source`` lies inside some chunk;
* **budgets**: ``token_count <= budget``, except the chunks ``overflow_ok`` accepts (each
  chunker documents its one kind of overflow: a unit that cannot be cut);
* **true counts**: ``token_count == count(chunk.text)`` when ``count`` is given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

from ragchunk import Chunk
from testdata import corpus_documents

_SYNTHETIC = [
    "",
    "   \n\n  ",
    "One sentence. Another one! A third? Yes.\n\nA new paragraph, with a clause; and more.",
    "第一句话。第二句话！第三句话？\n第四句话；最后一句。" * 5,
    "# Title\n\nIntro text.\n\n## Part\n\n- item one\n- item two\n\n```py\nx = 1\n```\n"
    "\n| a | b |\n|---|---|\n| 1 | 2 |\n",
    "word " * 300,
    "x" * 2000,
    "Mixed 中文 and English, émigré café, 🦀 crabs; tabs\tand\u3000spaces.\n" * 20,
]


@cache
def sample_texts() -> tuple[str, ...]:
    """Texts every chunker is checked on: synthetic edge cases and the first few thousand
    characters of several corpus documents (English, Chinese, Markdown with code and tables)."""
    docs = corpus_documents()
    picked = [text[:6000] for _, text in docs[:: max(1, len(docs) // 8)]][:8]
    return tuple(_SYNTHETIC + picked)


def ordinary_count(encoding: str = "cl100k_base") -> Callable[[str], int]:
    """``len(encode_ordinary(text))`` with tiktoken, the oracle (special tokens as text), on
    the vocabulary the package ships."""
    from ragchunk._pure.tokenizer import load_encoding

    encode = load_encoding(encoding).encode_ordinary
    return lambda text: len(encode(text))


def check_chunks(
    source: str,
    chunks: Sequence[Chunk],
    *,
    budget: int | None = None,
    count: Callable[[str], int] | None = None,
    overflow_ok: Callable[[Chunk], bool] | None = None,
    lossless: bool = True,
) -> None:
    """Assert the invariants above (see the module docstring) for ``chunks`` of ``source``."""
    last_start = 0
    covered = bytearray(len(source))
    for i, c in enumerate(chunks):
        where = f"chunk {i} [{c.start}, {c.end})"
        assert isinstance(c, Chunk), f"{where}: not a Chunk"
        assert 0 <= c.start < c.end <= len(source), f"{where}: outside the source"
        assert c.start >= last_start, f"{where}: starts before the previous chunk"
        last_start = c.start
        body = source[c.start : c.end]
        added = c.metadata.get("added_prefix")
        if c.metadata.get("rejoined"):
            assert c.text, f"{where}: empty rejoined text"
        elif added is not None:
            assert c.text == added + body, f"{where}: text is not added_prefix + source slice"
        else:
            assert c.text == body, f"{where}: text {c.text[:40]!r} is not source[start:end]"
        covered[c.start : c.end] = b"\x01" * (c.end - c.start)
        if count is not None:
            assert c.token_count == count(c.text), f"{where}: token_count is not the true count"
        if budget is not None and c.token_count > budget:
            assert overflow_ok is not None and overflow_ok(c), (
                f"{where}: {c.token_count} over the budget of {budget}"
            )
    if lossless:
        lost = [i for i, ch in enumerate(source) if not covered[i] and not ch.isspace()]
        assert not lost, f"text lost at offsets {lost[:10]} ({source[lost[0] : lost[0] + 20]!r})"
