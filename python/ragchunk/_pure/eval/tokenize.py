"""The BM25 tokenizers (``rust/eval/tokenize.rs``): the same explicit character tables, so both
backends agree on every input."""

from __future__ import annotations

import re

__all__ = ["KINDS", "STOP_WORDS", "is_cjk_unit", "is_separator", "tokenize"]

KINDS = ("english", "cjk", "whitespace")

STOP_WORDS = frozenset(
    "a an and are as at be been but by can did do does for from had has have he her his how i "
    "if in into is it its me my no not of on or our she so than that the their them then there "
    "these they this those to was we were what when where which who whom why will with would "
    "you your".split()
)

_SEPARATOR_RANGES = (
    (0x80, 0xBF),
    (0xD7, 0xD7),
    (0xF7, 0xF7),
    (0x1680, 0x1680),
    (0x2000, 0x206F),
    (0x2E00, 0x2E7F),
    (0x3000, 0x303F),
    (0xFE30, 0xFE6F),
    (0xFEFF, 0xFEFF),
    (0xFF01, 0xFF0F),
    (0xFF1A, 0xFF20),
    (0xFF3B, 0xFF40),
    (0xFF5B, 0xFF65),
)
_CJK_RANGES = (
    (0x3040, 0x30FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0x20000, 0x2FFFF),
    (0x30000, 0x3FFFF),
)


def is_separator(c: str) -> bool:
    """Whether ``c`` separates tokens."""
    u = ord(c)
    if u < 0x80:
        return not (c.isascii() and c.isalnum())
    return any(lo <= u <= hi for lo, hi in _SEPARATOR_RANGES)


def is_cjk_unit(c: str) -> bool:
    """Whether the ``cjk`` tokenizer makes ``c`` a token of its own."""
    u = ord(c)
    return any(lo <= u <= hi for lo, hi in _CJK_RANGES)


_SEP_CLASS = "\\x00-/:-@\\[-`{-\\x7f" + "".join(
    f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in _SEPARATOR_RANGES
)
_WORD = re.compile(f"[^{_SEP_CLASS}]+")
_CJK_CLASS = "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in _CJK_RANGES)
_CJK_SPLIT = re.compile(f"[{_CJK_CLASS}]|[^{_CJK_CLASS}]+")


def tokenize(text: str, kind: str) -> list[str]:
    """The tokens of ``text`` by the tokenizer ``kind``: maximal runs of non-separators,
    then lowercased and filtered (``english``) or split into CJK units (``cjk``)."""
    words = _WORD.findall(text)
    if kind == "whitespace":
        return words
    if kind == "english":
        return [w for w in (word.lower() for word in words) if w not in STOP_WORDS]
    out: list[str] = []
    for word in words:
        lower = word.lower()
        if lower.isascii():
            out.append(lower)
        else:
            out.extend(_CJK_SPLIT.findall(lower))
    return out
