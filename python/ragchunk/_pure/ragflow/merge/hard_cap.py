"""HARD_CAP (twin of ``rust/ragflow/merge/hard_cap.rs``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from ....core import rules
from .options import Counter, _Chunk, _Paragraph
from .overlap import overlap_prefix

# ---------------------------------------------------------------------------------------------
# HARD_CAP (a ragchunk extension; v0.27 only). Mirrors rust/ragflow/merge/hard_cap.rs rule for
# rule: the two backends must return the same chunks, so the character classes are the data
# file's sets, which both read (not str.isspace, which is not Rust's char::is_whitespace).
# ---------------------------------------------------------------------------------------------

# Unicode White_Space (str.isspace would add U+001C-U+001F).
_WS = rules.char_set("chars.whitespace.hard_cap")
# After an ASCII terminator a sentence ends only where whitespace follows; after a
# full-width one it always ends.
_CJK_TERM = rules.char_set("chars.terminators.hard_cap_cjk")
_TERM = rules.char_set("chars.terminators.ascii") | _CJK_TERM
_TAG_CLASS = frozenset("\t0123456789.-")
_SENTENCE, _WORD, _ATOM = 0, 1, 2

_Atom = tuple[int, int, str]  # (start, end, the character; "" for a position tag)


def _tag_len(text: str, i: int) -> int:
    """Length of a position tag ``@@[\\t0-9.-]+##`` starting at ``i``, else 0."""
    if not text.startswith("@@", i):
        return 0
    j = i + 2
    while j < len(text) and text[j] in _TAG_CLASS:
        j += 1
    return j + 2 - i if j > i + 2 and text.startswith("##", j) else 0


def _atoms(piece: str) -> list[_Atom]:
    """Indivisible units: code points, and whole position tags found in the text."""
    atoms: list[_Atom] = []
    i = 0
    while i < len(piece):
        n = _tag_len(piece, i)
        if n:
            atoms.append((i, i + n, ""))
            i += n
        else:
            atoms.append((i, i + 1, piece[i]))
            i += 1
    return atoms


def _units(atoms: list[_Atom], lo: int, hi: int, level: int) -> list[tuple[int, int]]:
    """Consecutive units of atoms ``lo..hi`` at ``level``, as atom-index ranges."""
    if level == _ATOM:
        return [(i, i + 1) for i in range(lo, hi)]

    def ws(i: int) -> bool:
        return atoms[i][2] in _WS

    def term(i: int) -> bool:
        return atoms[i][2] in _TERM

    out: list[tuple[int, int]] = []
    start = i = lo
    while i < hi:
        if not (term(i) if level == _SENTENCE else ws(i)):
            i += 1
            continue
        j = i
        if level == _SENTENCE:
            while j < hi and term(j):
                j += 1
        cjk = level == _SENTENCE and atoms[j - 1][2] in _CJK_TERM
        k = j
        while k < hi and ws(k):
            k += 1
        if k < hi and i > start and (k > j or cjk or level == _WORD):
            out.append((start, k))
            start = k
        i = max(k, i + 1)
    if start < hi:
        out.append((start, hi))
    return out


def _gallop(lo: int, n: int, fits: Callable[[int], bool]) -> int:
    """The largest verified ``k`` in ``lo..n`` (``fits(lo)`` holds): gallop, then bisect.

    Token counts are not monotone in text length, so this is the ``k`` these probes find,
    the same in both backends, not necessarily the longest that fits.
    """
    step = 1
    while True:
        if lo >= n:
            return n
        probe = min(lo + step, n)
        if fits(probe):
            lo = probe
            step *= 2
        else:
            hi = probe
            break
    while hi - lo > 1:
        mid = lo + (hi - lo) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo


def _settle(lo: int, k0: int, n: int, fits: Callable[[int], bool]) -> int:
    """:func:`_gallop` from an estimate ``k0`` (``fits(lo)`` known, never re-probed): probe
    ``k0``; gallop up from it when it fits, else down (``k0 - 1``, ``- 2``, ``- 4``...) and bisect.
    """
    if k0 <= lo:
        return _gallop(lo, n, fits)
    if fits(k0):
        return _gallop(k0, n, fits)
    hi = k0
    step = 1
    while True:
        probe = max(hi - step, lo)
        if probe == lo or fits(probe):
            good = probe
            break
        hi = probe
        step *= 2
    while hi - good > 1:
        mid = good + (hi - good) // 2
        if fits(mid):
            good = mid
        else:
            hi = mid
    return good


def _chunk_body(paragraphs: Sequence[_Paragraph]) -> str:
    """A v0.27 chunk body: the paragraphs, each section's pos after its first paragraph."""
    body = ""
    for paragraph in paragraphs:
        body += paragraph.text
        if paragraph.pos and paragraph.pos not in body:
            body += paragraph.pos
    return body


class _Packer:
    """Cuts one oversized piece into fragments that each fit alone, coarsest level first."""

    def __init__(self, piece: str, pos: str, fits: Callable[[str], bool]) -> None:
        self.piece = piece
        self.pos = pos
        self.fits = fits
        self.atoms = _atoms(piece)
        self.out: list[tuple[int, int]] = []

    def fragment_fits(self, a: int, b: int) -> bool:
        chunk = "\n" + self.piece[self.atoms[a][0] : self.atoms[b - 1][1]]
        if self.pos and self.pos not in chunk:
            chunk += self.pos
        return self.fits(chunk)

    def pack(self, lo: int, hi: int, level: int) -> None:
        units = _units(self.atoms, lo, hi, level)
        i = 0
        while i < len(units):
            a, b = units[i]
            if not self.fragment_fits(a, b):
                if level < _ATOM:
                    self.pack(a, b, level + 1)
                else:
                    # A single atom over the cap: the documented exception, it stands alone.
                    self.out.append((self.atoms[a][0], self.atoms[b - 1][1]))
                i += 1
                continue
            first = i

            def run_fits(k: int) -> bool:
                return self.fragment_fits(a, units[first + k - 1][1])  # noqa: B023 (called now)

            k = _gallop(1, len(units) - i, run_fits)
            self.out.append((self.atoms[a][0], self.atoms[units[i + k - 1][1] - 1][1]))
            i += k


def _shrink_prefix(prefix: str, body: str, chunk_token_num: float, count: Counter) -> str:
    """The longest verified tail of ``prefix`` with ``tail + body`` within the cap."""
    if not prefix:
        return ""
    body_tokens = count(body)
    if body_tokens > chunk_token_num:
        return ""
    n = len(prefix)
    # First guess: the share of the prefix the room left would hold if tokens were spread
    # evenly (the same float arithmetic as rust/ragflow/merge/hard_cap.rs).
    room = float(math.floor(chunk_token_num)) - body_tokens
    prefix_tokens = float(count(prefix))
    guess = n if prefix_tokens <= room else min(math.floor(n * room / prefix_tokens), n)
    keep = _settle(0, guess, n, lambda k: count(prefix[n - k :] + body) <= chunk_token_num)
    return prefix[n - keep :]


def _hard_cap(
    paragraphs: list[_Paragraph], chunk_token_num: float, overlapped_percent: float, count: Counter
) -> list[_Chunk]:
    """HARD_CAP: no chunk, as returned, counts more than ``chunk_token_num``.

    1. A paragraph that does not fit alone is cut into fragments that do (sentences, then
       words, then atoms; see :class:`_Packer`); each fragment is a paragraph of its own.
    2. Paragraphs are grouped greedily, each candidate chunk rebuilt and recounted.
    3. The v0.27 overlap prefix is cut down to its longest tail that still fits.
    """

    def fits(text: str) -> bool:
        return count(text) <= chunk_token_num

    def alone(text: str, pos: str) -> int:  # the tokens of the chunk one paragraph makes
        return count(text + (pos if pos and pos not in text else ""))

    expanded: list[_Paragraph] = []
    sizes: list[int] = []
    for paragraph in paragraphs:
        piece, pos = paragraph.text[1:], paragraph.pos or ""
        size = alone(paragraph.text, pos)
        packer = _Packer(piece, pos, fits) if size > chunk_token_num else None
        if packer is None or len(packer.atoms) <= 1:
            # fits, or one atom that cannot be cut: it stays whole, even over the cap
            expanded.append(paragraph)
            sizes.append(size)
            continue
        packer.pack(0, len(packer.atoms), _SENTENCE)
        for a, b in packer.out:
            fragment = "\n" + piece[a:b]
            expanded.append(
                _Paragraph(fragment, paragraph.pos, paragraph.source, paragraph.start + a)
            )
            sizes.append(alone(fragment, pos))

    chunks: list[_Chunk] = []
    i = 0
    while i < len(expanded):
        if sizes[i] <= chunk_token_num:
            # first guess: the most paragraphs whose counts alone sum within the cap
            k0, total = 1, sizes[i]
            while i + k0 < len(expanded) and total + sizes[i + k0] <= chunk_token_num:
                total += sizes[i + k0]
                k0 += 1
            first = i

            def group_fits(k: int) -> bool:
                return fits(_chunk_body(expanded[first : first + k]))  # noqa: B023 (called now)

            k = _settle(1, k0, len(expanded) - i, group_fits)
        else:
            k = 1  # an over-cap atom: stands alone
        group = expanded[i : i + k]
        body = _chunk_body(group)
        prefix = overlap_prefix(chunks[-1].text, overlapped_percent) if chunks else ""
        last = group[-1]
        chunks.append(
            _Chunk(
                _shrink_prefix(prefix, body, chunk_token_num, count),
                body,
                0,
                [p.source for p in group],
                start=group[0].start,
                end=last.start + len(last.text) - 1,
            )
        )
        i += k
    return chunks
