"""Pure-Python kernels of RAGFlow's ingestion-pipeline chunkers (TokenChunker, TitleChunker).

The fallback twins of ``rust/ragflow/flow.rs``: splitting on literal delimiter tokens with
character ranges, sentence-boundary context, the token merge of JSON items with overlap and
position carry-over, and the token-cap re-split. Counts are RAGFlow's
``num_tokens_from_string`` (cl100k_base, 0 for text holding a special token).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...core import rules
from .. import tokenizer as _tok
from .positions import remove_tag

__all__ = [
    "cap_split",
    "count",
    "merge_run",
    "split_on_tokens",
    "take_sentences",
]

#: RAGFlow's ``([。!?？；！\n]|\. )``, its class the data file's ``chars.terminators.flow`` (which
#: the Rust kernel reads too).
_FLOW_CLASS = "".join(re.escape(c) for c in sorted(rules.char_set("chars.terminators.flow")))
_SENTENCE = re.compile(f"([{_FLOW_CLASS}]|\\. )", re.DOTALL)


def count(text: str) -> int:
    """RAGFlow's ``num_tokens_from_string``.

    >>> count("hello world"), count("<|endoftext|>")
    (2, 0)
    """
    return _tok.num_tokens_from_string(text)


def split_on_tokens(text: str, tokens: Sequence[str]) -> list[tuple[str, int, int]]:
    """Split ``text`` on the literal ``tokens`` (tried in the given order at each position, as
    a regex alternation is), dropping the tokens and empty segments; each segment with its
    ``[start, end)`` code-point range.

    >>> split_on_tokens("a##b####c", ["##"])
    [('a', 0, 1), ('b', 3, 4), ('c', 8, 9)]
    """
    if not tokens:
        return [(text, 0, len(text))] if text else []
    out: list[tuple[str, int, int]] = []
    start = 0
    i = 0
    n = len(text)
    firsts = {t[0] for t in tokens}
    while i < n:
        if text[i] in firsts:
            hit = next((t for t in tokens if text.startswith(t, i)), None)
            if hit is not None:
                if i > start:
                    out.append((text[start:i], start, i))
                i += len(hit)
                start = i
                continue
        i += 1
    if start < n:
        out.append((text[start:], start, n))
    return out


def _sentences(text: str) -> list[str]:
    parts = _SENTENCE.split(text)
    return [
        parts[i] + (parts[i + 1] if i + 1 < len(parts) else "") for i in range(0, len(parts), 2)
    ]


def take_sentences(text: str, need: float, from_end: bool) -> str:
    """Whole sentences from one end of ``text`` until they hold at least ``need`` tokens.

    >>> take_sentences("One. Two. Three.", 1, True)
    'Three.'
    """
    collected = ""
    sentences = _sentences(text)
    for sentence in reversed(sentences) if from_end else sentences:
        collected = sentence + collected if from_end else collected + sentence
        if count(collected) >= need:
            break
    return collected


def merge_run(
    texts: Sequence[str], counts: Sequence[int], size: int, percent: int
) -> list[tuple[str, list[int]]]:
    """TokenChunker's merge of consecutive JSON text items by summed token counts.

    A new chunk starts when the running sum exceeds ``size * (100 - percent) / 100`` or the
    item alone exceeds ``size``. With ``percent > 0`` it is prefixed, with no separator, by
    the tail ``visible[int(len(visible) * (100 - percent) / 100):]`` of the previous chunk's
    tag-free text, and carries the positions of every part of the previous chunk whose raw
    span ends past that cut (the first part of a chunk spans its overlap prefix too). Returns
    ``(text, sources)`` per chunk: the item indexes whose positions it carries, in order.

    >>> merge_run(["aaaa", "bbbb", "cccc"], [2, 2, 2], 3, 0)
    [('aaaa\\nbbbb', [0, 1]), ('cccc', [2])]
    >>> merge_run(["aaaa", "bbbb"], [2, 2], 1, 50)
    [('aaaa', [0]), ('aabbbb', [0, 1])]
    """
    threshold = size * (100 - percent) / 100.0
    out: list[tuple[str, list[int]]] = []
    running = 0
    spans: list[tuple[int, list[int]]] = []
    for i, (text, n) in enumerate(zip(texts, counts, strict=True)):
        if not out or running > threshold or n > size:
            sources: list[int] = []
            new_text = text
            running = n
            if out and percent > 0 and out[-1][0]:
                visible = remove_tag(out[-1][0])
                cut = int(len(visible) * (100 - percent) / 100.0)
                for end, src in spans:
                    if end > cut:
                        sources.extend(src)
                new_text = visible[cut:] + text
                running = count(new_text)
            sources.append(i)
            spans = [(len(new_text), list(sources))]
            out.append((new_text, sources))
            continue
        last_text, last_sources = out[-1]
        if last_text and text:
            last_text += "\n"
        last_text += text
        last_sources.append(i)
        out[-1] = (last_text, last_sources)
        running += n
        spans.append((len(last_text), [i]))
    return out


def cap_split(text: str, cap: int) -> list[str]:
    """TitleChunker's token cap: sentences (each keeping its boundary) merged greedily within
    ``cap`` tokens, a still-too-long piece hard-split on token boundaries.

    >>> cap_split("a. b. ", 3)
    ['a. ', 'b. ']
    """
    if _cap_count(text) <= cap:
        return [text]
    pieces: list[str] = []
    current = ""
    for sentence in _sentences(text):
        if not sentence:
            continue
        candidate = current + sentence
        if current and _cap_count(candidate) > cap:
            pieces.append(current)
            current = sentence
        else:
            current = candidate
    if current:
        pieces.append(current)
    out: list[str] = []
    for piece in pieces:
        if _cap_count(piece) <= cap:
            out.append(piece)
        else:
            out.extend(_hard_split(piece, cap))
    return out


def _cap_count(text: str) -> int:
    n = count(text)
    return n if n or not text else len(text)


def _hard_split(text: str, cap: int) -> list[str]:
    enc = _tok.load_encoding("cl100k_base")
    out: list[str] = []
    rest = text
    while rest:
        try:
            head = enc.decode(enc.encode(rest)[:cap])
        except ValueError:
            head = rest[:cap]
        else:
            if not rest.startswith(head):
                head = head[:-1]
        if not head:
            head = rest[:1]
        out.append(head)
        rest = rest[len(head) :]
    return out
