""":func:`text_document`: a text file's text as a :class:`Document` of one section.

The commands and ``ingest`` read text formats (plain text, Markdown, HTML, JSON... as text)
without parsing their structure: the chunker reads that structure itself. Such a file is
still a :class:`Document`, one ``"text"`` section holding the text exactly as read, so every
file reaches the chunkers through the one document model, and its chunks' offsets index the
file's own text.
"""

from __future__ import annotations

from ._model import Document, Section

__all__ = ["is_text_document", "text_document"]

# Document.metadata's mark of a verbatim text document (never set by the parsers).
_VERBATIM = "verbatim"


def text_document(text: str, *, filename: str | None = None) -> Document:
    """A text as a :class:`Document`: one ``"text"`` section holding ``text`` unchanged
    (none for an empty text), so ``doc.text == text``.

    Its chunks are the chunker's own over ``text``: the section has no page, box or heading
    to cite, so the commands and ``ingest`` split the text of many such documents in one
    batch instead of calling :func:`chunk_document` on each.

    Raises:
        TypeError: ``text`` is not a ``str`` or ``filename`` not a ``str`` or None.

    >>> doc = text_document("Line one.\\n\\n  Line two.\\n", filename="notes.txt")
    >>> doc.text == "Line one.\\n\\n  Line two.\\n", doc.format, len(doc.sections)
    (True, 'text', 1)
    >>> is_text_document(doc)
    True
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if filename is not None and not isinstance(filename, str):
        raise TypeError(f"filename must be a str or None, got {type(filename).__name__}")
    sections = [Section("text", text)] if text else []
    return Document(sections, metadata={_VERBATIM: True}, format="text", filename=filename)


def is_text_document(doc: object) -> bool:
    """Whether ``doc`` is a :func:`text_document` (a text kept verbatim, nothing to cite),
    not a parsed file.

    >>> from ragchunk.documents import parse
    >>> is_text_document(parse(b"Some text.", format="text"))
    False
    """
    return isinstance(doc, Document) and doc.metadata.get(_VERBATIM) is True
