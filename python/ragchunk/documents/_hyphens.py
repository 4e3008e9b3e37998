"""Line-end hyphens in a PDF's paragraphs: the engine's word breaks joined, compound hyphens kept.

A line of a PDF that ends in a hyphen either broke a word where the engine hyphenated it
("fol-" + "lowing") or broke a compound at its own hyphen ("case-" + "insensitive"). The text
layer tells them apart only in part, so the rules, in this order, are:

* a break the engine marks as its own: U+2010 (what Chromium draws at a soft-hyphen break, and
  what the layout makes of a soft hyphen U+00AD ending a line) before a letter joins the word
  without the hyphen, unless the document writes the same compound with its hyphen elsewhere;
* the Cyrillic (and older Latin) convention of repeating a compound's hyphen at the start of
  the next line ("из-" + "-за") keeps one hyphen;
* an ASCII hyphen (pdfTeX's and LibreOffice's, which PDFium reports as U+0002) is a
  hyphenation candidate only between a letter and a lowercase letter (scripts with case:
  Latin, Cyrillic, Greek; a capital or a digit after the break means a compound or a code);
  then the document decides, as a reader would from its other lines: the compound written
  with its hyphen inside a line keeps it; the whole word written inside a line joins it; a
  document that marks its own breaks with U+2010 keeps ASCII hyphens (they were typed); two
  halves that are both words of the document stay a compound; anything else is a break and is
  joined.

>>> h = Hyphens(["the following case-insensitive names", "a fol-", "lowing line", "case-",
...              "insensitive"])
>>> h.join("a fol-", "lowing line"), h.join("case-", "insensitive")
('a following line', 'case-insensitive')
>>> Hyphens([]).join("instru\\u2010", "menting"), Hyphens([]).join("из-", "-за")
('instrumenting', 'из-за')
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["Hyphens"]

# A word: letters, with hyphens inside it.
_WORD = re.compile(r"[^\W\d_]+(?:[-\u2010][^\W\d_]+)*")
_LEAD = re.compile(r"^[^\W\d_]+")
_TAIL = re.compile(r"[^\W\d_]+$")
ENDS = ("-", "\u2010")


class Hyphens:
    """The words of a document's body lines (in reading order), to decide line-end hyphens."""

    def __init__(self, lines: Iterable[str]):
        self.words: set[str] = set()
        self.compounds: set[str] = set()
        self.marked = False
        broken = False
        for text in lines:
            words = _WORD.findall(text)
            ends = text.endswith(ENDS)
            self.marked = self.marked or text.endswith("\u2010")
            # The halves of a broken word are not words of the document.
            if broken and words and text.startswith(words[0]):
                words = words[1:]
            if ends and words:
                words = words[:-1]
            for w in words:
                w = w.lower().replace("\u2010", "-")
                if "-" in w:
                    self.compounds.add(w)
                    self.words.update(w.split("-"))
                else:
                    self.words.add(w)
            broken = ends

    def join(self, text: str, line: str) -> str:
        """``text`` (ending in ``-`` or U+2010) and the next ``line`` of its paragraph, joined."""
        if line.startswith("-") and text.endswith("-"):
            return text + line[1:]
        pre = _TAIL.search(text[:-1])
        suf = _LEAD.match(line)
        if pre is None or suf is None:
            return text + line
        compound = f"{pre.group()}-{suf.group()}".lower()
        if compound in self.compounds:
            return text + line
        if text.endswith("\u2010"):
            return text[:-1] + line
        if not line[0].islower():
            return text + line
        if (pre.group() + suf.group()).lower() in self.words:
            return text[:-1] + line
        if self.marked or (pre.group().lower() in self.words and suf.group().lower() in self.words):
            return text + line
        return text[:-1] + line
