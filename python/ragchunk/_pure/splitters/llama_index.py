"""LlamaIndex's ``SentenceSplitter`` and ``TokenTextSplitter`` algorithms in Python (the twin of
``rust/splitters/llama_index/``, step for step).

The drop-ins of ``ragchunk.integrations.llama_index`` run these for what the Rust core does not
run (a Python tokenizer or sentence tokenizer, another secondary regex, the pure-Python
backend): the split functions and the counter are the drop-in's (LlamaIndex's own splitting
helpers and the user's tokenizer), so this module needs neither LlamaIndex nor a tokenizer.

>>> words = lambda s: len(s.split())
>>> by_space = lambda s: [p for p in s.split(" ") if p]
>>> pieces = []
>>> sentence_pieces("a b c", 2, words("a b c"), [by_space], [], words, pieces)
>>> sentence_merge(pieces, 2, 0)
['ab', 'c']
>>> token_split(2, 0, False, [lambda s: [p + " " for p in s.split()]], words, "a b c")
(['a b', 'c'], [])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "SINGLE_TOKEN",
    "Piece",
    "markdown_sections",
    "sentence_merge",
    "sentence_pieces",
    "sentence_split",
    "strip_chunks",
    "token_merge",
    "token_pieces",
    "token_split",
]

SplitFn = Callable[[str], list[str]]
Count = Callable[[str], int]

# LlamaIndex's message when a piece that cannot be split further is over the chunk size.
SINGLE_TOKEN = "Single token exceeded chunk size"


@dataclass
class Piece:
    """A split with its token count, and whether it is a whole sentence (LlamaIndex's
    ``_Split``)."""

    text: str
    is_sentence: bool
    token_size: int


def strip_chunks(chunks: list[str]) -> list[str]:
    """Chunks stripped of surrounding whitespace, blank ones dropped.

    >>> strip_chunks([" a ", "  ", "b"])
    ['a', 'b']
    """
    return [s for s in (c.strip() for c in chunks) if s]


def sentence_split(
    chunk_overlap: int,
    split_fns: list[SplitFn],
    sub_split_fns: list[SplitFn],
    count: Count,
    text: str,
    chunk_size: int,
) -> list[str]:
    """``SentenceSplitter._split_text(text, chunk_size)`` for non-empty ``text``: the splits
    (``split_fns``: paragraphs, then sentences; ``sub_split_fns``: the secondary regex,
    words, characters) packed to ``chunk_size`` tokens.

    Raises:
        ValueError: a piece that cannot be split further is over ``chunk_size``.
    """
    pieces: list[Piece] = []
    sentence_pieces(text, chunk_size, count(text), split_fns, sub_split_fns, count, pieces)
    return sentence_merge(pieces, chunk_size, chunk_overlap)


def sentence_pieces(
    text: str,
    chunk_size: int,
    tokens: int,
    split_fns: list[SplitFn],
    sub_split_fns: list[SplitFn],
    count: Count,
    out: list[Piece],
) -> None:
    """``text`` (``tokens`` long) split until every piece fits ``chunk_size``, into ``out``."""
    if tokens <= chunk_size:
        out.append(Piece(text, True, tokens))
        return
    parts: list[str] = []
    is_sentence = True
    for fn in split_fns:
        parts = fn(text)
        if len(parts) > 1:
            break
    else:
        is_sentence = False
        for fn in sub_split_fns:
            parts = fn(text)
            if len(parts) > 1:
                break
    for part in parts:
        n = count(part)
        if n <= chunk_size or len(parts) == 1:
            out.append(Piece(part, is_sentence, n))
        else:
            sentence_pieces(part, chunk_size, n, split_fns, sub_split_fns, count, out)


def sentence_merge(pieces: list[Piece], chunk_size: int, chunk_overlap: int) -> list[str]:
    """The pieces packed greedily into chunks of ``chunk_size`` tokens, each new chunk starting
    with up to ``chunk_overlap`` tokens of the previous one's last pieces; chunks stripped.

    Raises:
        ValueError: a piece is over ``chunk_size``.
    """
    chunks: list[str] = []
    cur: list[Piece] = []
    cur_len = 0
    fresh = True
    i = 0
    while i < len(pieces):
        piece = pieces[i]
        if piece.token_size > chunk_size:
            raise ValueError(SINGLE_TOKEN)
        if cur_len + piece.token_size > chunk_size and not fresh:
            chunks.append("".join(p.text for p in cur))
            last, cur, cur_len, fresh = cur, [], 0, True
            for p in reversed(last):
                if cur_len + p.token_size > chunk_overlap:
                    break
                cur_len += p.token_size
                cur.insert(0, p)
            continue
        if fresh:
            while cur and cur_len + piece.token_size > chunk_size:
                cur_len -= cur.pop(0).token_size
        # Not fresh means the piece fits, so LlamaIndex's "close the chunk when a clause
        # does not fit" branch is never taken.
        cur_len += piece.token_size
        cur.append(piece)
        i += 1
        fresh = False
    if not fresh:
        chunks.append("".join(p.text for p in cur))
    return strip_chunks(chunks)


def token_split(
    chunk_size: int,
    chunk_overlap: int,
    keep_whitespaces: bool,
    split_fns: list[SplitFn],
    count: Count,
    text: str,
) -> tuple[list[str], list[int]]:
    """``TokenTextSplitter._split_text(text, chunk_size)`` for non-empty ``text``: the chunks,
    and the token counts of the splits over ``chunk_size`` (LlamaIndex logs a warning for
    each)."""
    splits: list[tuple[str, int]] = []
    token_pieces(text, chunk_size, count(text), split_fns, count, splits)
    return token_merge(splits, chunk_size, chunk_overlap, keep_whitespaces)


def token_pieces(
    text: str,
    chunk_size: int,
    tokens: int,
    split_fns: list[SplitFn],
    count: Count,
    out: list[tuple[str, int]],
) -> None:
    """``text`` (``tokens`` long) split at the first of ``split_fns`` that splits it, until
    every split fits ``chunk_size``, into ``out`` as ``(split, tokens)``."""
    if tokens <= chunk_size:
        out.append((text, tokens))
        return
    parts: list[str] = []
    for fn in split_fns:
        parts = fn(text)
        if len(parts) > 1:
            break
    for part in parts:
        n = count(part)
        if n <= chunk_size or len(parts) == 1:
            out.append((part, n))
        else:
            token_pieces(part, chunk_size, n, split_fns, count, out)


def token_merge(
    splits: list[tuple[str, int]], chunk_size: int, chunk_overlap: int, keep_whitespaces: bool
) -> tuple[list[str], list[int]]:
    """Windows of ``chunk_size`` tokens over the splits, ``chunk_overlap`` tokens repeated:
    the chunks (stripped unless ``keep_whitespaces``, blank ones dropped) and the token counts
    of the oversized splits, in order.

    >>> token_merge([("a ", 1), ("b ", 1), ("c", 1)], 2, 1, False)
    (['a b', 'b c'], [])
    """
    chunks: list[str] = []
    oversized: list[int] = []
    cur: list[tuple[str, int]] = []
    cur_len = 0

    def finish() -> None:
        joined = "".join(s for s, _ in cur)
        chunk = joined if keep_whitespaces else joined.strip()
        if chunk:
            chunks.append(chunk)

    for split, n in splits:
        if n > chunk_size:
            oversized.append(n)
        if cur_len + n > chunk_size:
            finish()
            while cur and (cur_len > chunk_overlap or cur_len + n > chunk_size):
                cur_len -= cur.pop(0)[1]
        cur.append((split, n))
        cur_len += n
    finish()
    return chunks, oversized


# MarkdownNodeParser (rust/splitters/llama_index/markdown.rs): LlamaIndex's quirks are listed
# there; this twin follows the same steps.


def _markdown_header(line: str) -> tuple[int, str] | None:
    r"""``re.match(r"^(#+)\s(.*)", line)`` as (level, title)."""
    level = len(line) - len(line.lstrip("#"))
    if level == 0 or level == len(line) or not line[level].isspace():
        return None
    return level, line[level + 1 :]


def markdown_sections(texts: list[str], separator: str) -> list[list[tuple[str, str]]]:
    r"""LlamaIndex's ``MarkdownNodeParser`` sections of each text: ``(section text, header
    path)``, the path being the titles above the section's own header joined by
    ``separator``.

    >>> markdown_sections(["# A\nx\n## B\ny"], "/")
    [[('# A\nx', ''), ('## B\ny', 'A')]]
    >>> markdown_sections(["# A\n## B\n### C\nz"], "/")[0][-1]
    ('### C\nz', 'A/B')
    """
    return [_markdown_text(text, separator) for text in texts]


def _markdown_text(text: str, separator: str) -> list[tuple[str, str]]:
    """The sections of one text (:func:`markdown_sections`)."""
    sections: list[tuple[str, str]] = []
    stack: list[tuple[int, str]] = []
    current: list[str] = []
    code_block = False

    def flush() -> None:
        section = "".join(current).strip()
        if section:
            sections.append((section, separator.join(t for _, t in stack[:-1])))

    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            code_block = not code_block
        elif not code_block and (found := _markdown_header(line)) is not None:
            flush()
            level, title = found
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title))
            current = ["#" * level, " ", title, "\n"]
            continue
        current += [line, "\n"]
    flush()
    return sections
