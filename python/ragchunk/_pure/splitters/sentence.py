"""Sentence segmentation and packing (twin of ``rust/splitters/sentence.rs``, rule for rule)."""

from __future__ import annotations

import re
from collections.abc import Callable

from ...core import rules
from . import recursive
from .recursive import strip_range

__all__ = ["ABBREVIATIONS", "SENTENCE_SEPARATORS", "sentences", "split"]

ChunkTuple = tuple[int, int, int, "str | None"]
Counter = Callable[[str], int]


#: Lowercase abbreviations after which a single ``.`` never ends a sentence, and the separators
#: for cutting one over-long sentence (coarsest first): the data file both backends read
#: (``sentence.abbreviations`` and ``sentence.separators``, see ``ragchunk.core.rules``).
ABBREVIATIONS = rules.abbreviations()
SENTENCE_SEPARATORS = rules.sentence_separators()
#: The terminators, the closing and opening quotes and brackets, and the whitespace (Python's
#: ``str.isspace``, spelled out): the data file's sets, which the Rust splitter reads too.
_CJK_TERMINATORS = rules.char_set("chars.terminators.sentence_cjk")
_LATIN_TERMINATORS = rules.char_set("chars.terminators.sentence_latin")
_TERMINATORS = _CJK_TERMINATORS | _LATIN_TERMINATORS
_CLOSERS = rules.char_set("chars.closers.sentence")
_OPENERS = "".join(sorted(rules.char_set("chars.openers.sentence")))
_SPACE = rules.char_set("chars.whitespace.langchain")


def _no_break_before_dot(word: str) -> bool:
    word = word.lstrip(_OPENERS)
    if not word:
        return False
    if len(word) == 1 and word.isupper():
        return True
    if not word.isascii():
        return False
    lower = word.lower()
    if lower in ABBREVIATIONS:
        return True
    return "." in lower and all(1 <= len(seg) <= 2 and seg.isalpha() for seg in lower.split("."))


def sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans (code points) of ``text``; see ``rust/splitters/sentence.rs``."""
    n = len(text)
    bounds: list[int] = []
    i = 0
    while i < n:
        c = text[i]
        if c == "\n":
            bounds.append(i)
            i += 1
            continue
        if c not in _TERMINATORS:
            i += 1  # most characters: one test, not one per kind of terminator
            continue
        if c in _CJK_TERMINATORS:
            j = i + 1
            while j < n and text[j] in _TERMINATORS:
                j += 1
            while j < n and text[j] in _CLOSERS:
                j += 1
            bounds.append(j)
            i = j
            continue
        if c in _LATIN_TERMINATORS:
            j = i + 1
            while j < n and text[j] in _TERMINATORS:
                j += 1
            single_dot = c == "." and j == i + 1
            while j < n and text[j] in _CLOSERS:
                j += 1
            spaced = j == n or text[j] in _SPACE
            k = j
            while k < n and text[k] in _SPACE and text[k] != "\n":
                k += 1
            next_lower = k < n and text[k].islower()
            breaks = spaced and not next_lower
            if breaks and single_dot:
                w = i
                while w > 0 and text[w - 1] not in _SPACE:
                    w -= 1
                breaks = not _no_break_before_dot(text[w:i])
            if breaks:
                bounds.append(j)
            i = max(j, i + 1)
            continue
        i += 1
    bounds.append(n)
    out = []
    prev = 0
    for b in bounds:
        if b <= prev:
            continue
        s, e = strip_range(text, prev, b)
        if e > s:
            out.append((s, e))
        prev = b
    return out


def split(text: str, chunk_size: int, overlap_sentences: int, count: Counter) -> list[ChunkTuple]:
    """Whole sentences packed up to ``chunk_size``; see ``rust/splitters/sentence.rs``."""
    seps = [(s, re.compile(re.escape(s))) for s in SENTENCE_SEPARATORS]
    units: list[tuple[int, int, int]] = []
    for s, e in sentences(text):
        piece = text[s:e]
        n = count(piece)
        if n <= chunk_size:
            units.append((s, e, n))
            continue
        for ps, pe, _, _ in recursive.split(piece, chunk_size, 0, seps, "end", True, count):
            units.append((s + ps, s + pe, count(piece[ps:pe])))
    out: list[ChunkTuple] = []
    first = 0
    while first < len(units):
        last = first + 1
        total = units[first][2]
        while last < len(units) and total + units[last][2] <= chunk_size:
            total += units[last][2]
            last += 1
        size = count(text[units[first][0] : units[last - 1][1]])
        while size > chunk_size and last > first + 1:
            last -= 1
            size = count(text[units[first][0] : units[last - 1][1]])
        out.append((units[first][0], units[last - 1][1], size, None))
        if last >= len(units):
            break
        nxt, kept = last, 0
        budget = max(0, chunk_size - units[last][2])
        while kept < overlap_sentences and nxt > first + 1 and units[nxt - 1][2] <= budget:
            budget -= units[nxt - 1][2]
            nxt -= 1
            kept += 1
        first = nxt
    return out
