"""RAGFlow's delimiter field, in each release's dialect, and splitting text on it.

The field is one string such as ``"\\n。"`` or ``"\\n`##`"``: every bare
character is a delimiter, and text between two backticks is one (possibly
multi-character) delimiter. Releases differ in the details:

* v0.27 (``rag/nlp/delim.py``): CRLF/CR in the field become LF, the list is
  deduplicated, and a field with any backtick token switches the merge into
  "custom mode" (every segment its own chunk) while still splitting on the bare
  characters too.
* v0.22-v0.26 (``get_delimiters``): no normalisation, duplicates kept. In custom
  mode (v0.23+) only the backtick tokens split; bare characters are ignored.

Matching is always literal and case-sensitive, longest delimiter first: at the
leftmost position where any delimiter occurs, the longest one found there wins.
"""

from __future__ import annotations

import functools
import re

__all__ = [
    "backtick_tokens",
    "has_wrapped_delimiter",
    "legacy_delimiters",
    "normalize_newlines",
    "parse_delimiter_field",
    "split_keeping_delimiters",
    "v022_anchored_match",
]

# A backtick token needs at least one character between the backticks, so "``"
# is not a token: its two backticks stay bare delimiters.
_BACKTICK_TOKEN = re.compile(r"`([^`]+)`")


def normalize_newlines(text: str) -> str:
    """Turn ``"\\r\\n"`` and then every remaining lone ``"\\r"`` into ``"\\n"`` (v0.27)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def has_wrapped_delimiter(s: str) -> bool:
    """Whether the delimiter field holds at least one `` `token` `` (RAGFlow's custom mode).

    >>> has_wrapped_delimiter("\\n`##`")
    True
    >>> has_wrapped_delimiter("``")
    False
    """
    return bool(s) and _BACKTICK_TOKEN.search(s) is not None


def parse_delimiter_field(s: str) -> list[str]:
    """Parse a delimiter field the v0.27 way (``rag/nlp/delim.py``).

    1. CRLF, then lone CR, become LF.
    2. Each `` `token` `` is one delimiter; every other character (whitespace
       and unpaired backticks included) is its own delimiter.
    3. Deduplicate in first-seen order, then sort longest first (stable).

    >>> parse_delimiter_field("\\n。`##`。")
    ['##', '\\n', '。']
    """
    if not s:
        return []
    field = normalize_newlines(s)
    found: list[str] = []
    seen: set[str] = set()

    def take(delimiter: str) -> None:
        if delimiter and delimiter not in seen:
            seen.add(delimiter)
            found.append(delimiter)

    cursor = 0
    for match in _BACKTICK_TOKEN.finditer(field):
        for ch in field[cursor : match.start()]:
            take(ch)
        take(match.group(1))
        cursor = match.end()
    for ch in field[cursor:]:
        take(ch)
    return sorted(found, key=len, reverse=True)


def backtick_tokens(s: str) -> list[str]:
    """The `` `token` `` delimiters of a field, in order, duplicates kept (v0.23-v0.26 custom mode).

    >>> backtick_tokens("a`##`b`--`")
    ['##', '--']
    """
    return [m.group(1) for m in _BACKTICK_TOKEN.finditer(s)]


def legacy_delimiters(s: str) -> list[str]:
    """Parse a delimiter field the v0.22-v0.26 way (RAGFlow's ``get_delimiters``).

    Every backtick token and every bare character, **duplicates kept**, no CRLF
    normalisation, stably sorted longest first. (RAGFlow lists each token
    before the bare characters that precede it; we keep that order although
    only the length order can change a match.)

    >>> legacy_delimiters("。`##`\\n。")
    ['##', '。', '\\n', '。']
    """
    delimiters: list[str] = []
    cursor = 0
    for match in _BACKTICK_TOKEN.finditer(s):
        delimiters.append(match.group(1))
        delimiters.extend(s[cursor : match.start()])
        cursor = match.end()
    delimiters.extend(s[cursor:])
    delimiters.sort(key=len, reverse=True)
    return delimiters


@functools.lru_cache(maxsize=256)
def _split_regex(delimiters: tuple[str, ...]) -> re.Pattern[str]:
    # Escaped literals in longest-first order: Python's alternation takes the first
    # alternative that matches at a position, which is then the longest one.
    # With no delimiters the pattern is "()", which matches the empty string at
    # every position (only v0.22 ever splits with it; see v022_anchored_match).
    alternation = "|".join(re.escape(d) for d in delimiters if d)
    return re.compile(f"({alternation})")


def split_keeping_delimiters(text: str, delimiters: list[str]) -> list[tuple[str, bool]]:
    """Split ``text`` at the delimiters and return ``(piece, is_delimiter)`` pairs.

    This is ``re.split("(" + "|".join(map(re.escape, delimiters)) + ")", text)``:
    text pieces and matched delimiters alternate, starting and ending with a
    (possibly empty) text piece. ``delimiters`` must already be sorted longest
    first. An empty list splits between every character (Python's empty-match
    split), a behaviour only RAGFlow v0.22 reaches.

    >>> split_keeping_delimiters("a。b", ["。"])
    [('a', False), ('。', True), ('b', False)]
    """
    parts = _split_regex(tuple(delimiters)).split(text)
    return [(part, index % 2 == 1) for index, part in enumerate(parts)]


def v022_anchored_match(piece: str, delimiters: list[str]) -> bool:
    """RAGFlow v0.22's ``re.match("^" + pattern + "$", piece)`` skip test, spelled out.

    RAGFlow QUIRK (v0.22 anchoring): the pattern is ``"^A1|A2|...|An$"``, so the
    ``^`` binds only to the first alternative and the ``$`` only to the last,
    and ``$`` also matches just before a final ``"\\n"``. Written out, the piece is
    skipped when

    * it starts with any alternative but the last (``re.match`` is anchored at
      the start anyway), or
    * it equals the last alternative, optionally followed by one ``"\\n"``.

    With no delimiters the pattern is ``"^$"``: ``""`` and ``"\\n"`` are skipped,
    which is why v0.22's per-character split of an oversized section with
    ``delimiter=""`` drops every newline character.

    >>> v022_anchored_match("\\n", [])
    True
    >>> v022_anchored_match("", ["。"])
    False
    """
    alternatives = [d for d in delimiters if d]
    if not alternatives:
        return piece in ("", "\n")
    *leading, last = alternatives
    if any(piece.startswith(alt) for alt in leading):
        return True
    return piece in (last, last + "\n")
