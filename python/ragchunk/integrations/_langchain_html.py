"""LangChain's HTML structure splitters as drop-ins: ``HTMLHeaderTextSplitter`` and the
section parsing of ``HTMLSectionSplitter``, subclasses of LangChain's classes that give
LangChain's documents, metadata and errors, faster.

LangChain builds a BeautifulSoup tree (then walks it with ``find_all``, ``parents`` or
``next_elements``) to read the text of each element. Here the HTML is read in one pass of the
standard library's ``html.parser`` (BeautifulSoup's ``"html.parser"`` builder uses the same
tokenizer), keeping only what LangChain's walk reads, by BeautifulSoup's rules.

Imported through :mod:`ragchunk.integrations.langchain`, which re-exports them (and completes
``HTMLSectionSplitter`` with ragchunk's recursive splitter).
"""

from __future__ import annotations

import html
import html.entities
import re
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from html.parser import HTMLParser
from typing import Any

import langchain_text_splitters as _lc
from langchain_core.documents import Document

__all__ = ["HTMLHeaderTextSplitter", "HTMLSections"]


# ----------------------------------------------------------------------------------------------
# HTML


# An element of BeautifulSoup's tree, as far as LangChain's walk reads it, as a list (cheaper
# to make than an object): its name, its depth (len(list(tag.parents)) in BeautifulSoup's
# tree), its child elements, and its direct strings, stripped, the empty ones dropped.
_Node = list[Any]  # [name, depth, children, strings]

#: BeautifulSoup's ``HTMLParserTreeBuilder.empty_element_tags`` (void elements).
_VOID = frozenset(
    "area base br col embed hr img input keygen link menuitem meta param source track wbr "
    "basefont bgsound command frame image isindex nextid spacer".split()
)
#: BeautifulSoup's entity table (``EntitySubstitution.HTML_ENTITY_TO_CHARACTER``): HTML5's
#: names that end with a semicolon, looked up exactly (no prefix matching).
_ENTITIES = {k[:-1]: v for k, v in html.entities.html5.items() if k.endswith(";")}


class _Tree(HTMLParser):
    """Builds element trees from ``html.parser`` events with BeautifulSoup's rules: an end tag
    closes the innermost open element of its name (and every element inside it), an end tag
    with no open element of its name is dropped, void elements close at once, text between two
    events is one string, and comments, doctypes, processing instructions and CDATA are
    strings too."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.root: _Node = ["[document]", 0, [], []]
        self.open: list[_Node] = [self.root]
        self.data: list[str] = []
        # Text is only gathered until the next event.
        self.handle_data = self.data.append  # type: ignore[method-assign, assignment]
        # BeautifulSoup's already_closed_empty_element: a void element opened by a start tag
        # swallows one later end tag of its name, without ending the current string.
        self.closed_void: list[str] = []

    def updatepos(self, i: int, j: int) -> int:
        # Line and column are never read here: skip counting them.
        return j

    def _flush(self) -> None:
        text = "".join(self.data).strip()
        self.data.clear()
        if text:
            self.open[-1][3].append(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.data:
            self._flush()
        parent = self.open[-1]
        node = [tag, parent[1] + 1, [], []]
        parent[2].append(node)
        if tag in _VOID:
            self.closed_void.append(tag)
        else:
            self.open.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.data:
            self._flush()
        parent = self.open[-1]
        parent[2].append([tag, parent[1] + 1, [], []])

    def handle_endtag(self, tag: str) -> None:
        closed = self.closed_void
        if closed and tag in closed:
            closed.remove(tag)
            return
        if self.data:
            self._flush()
        open_ = self.open
        for i in range(len(open_) - 1, 0, -1):
            if open_[i][0] == tag:
                del open_[i:]
                return

    def handle_entityref(self, name: str) -> None:
        self.data.append(_ENTITIES.get(name) or f"&{name}")

    def handle_charref(self, name: str) -> None:
        self.data.append(_charref(name))

    def _string(self, text: str) -> None:
        if self.data:
            self._flush()
        text = text.strip()
        if text:
            self.open[-1][3].append(text)

    def handle_comment(self, data: str) -> None:
        self._string(data)

    def handle_decl(self, decl: str) -> None:
        self._string(decl[8:])  # BeautifulSoup drops the first 8 characters ("DOCTYPE ")

    def unknown_decl(self, data: str) -> None:
        self._string(data[6:] if data.upper().startswith("CDATA[") else data)

    def handle_pi(self, data: str) -> None:
        self._string(data)

    def close(self) -> None:
        super().close()
        if self.data:
            self._flush()


_DECIMAL = re.compile("([0-9]+)(.*)", re.S)
_HEX = re.compile("([0-9a-f]+)(.*)", re.S)


def _charref(name: str) -> str:
    """A numeric character reference as BeautifulSoup decodes it (HTML5's rules: U+FFFD for 0,
    surrogates and beyond U+10FFFF, Windows-1252 for 0x80-0x9F, every other code as is), and
    what follows a number that does not end the reference, as text."""
    hexadecimal = name[:1] in ("x", "X")
    digits = name[1:] if hexadecimal else name
    base = 16 if hexadecimal else 10
    rest = ""
    try:
        code = int(digits, base)
    except ValueError:
        match = (_HEX if hexadecimal else _DECIMAL).match(digits)
        if match is None:
            return digits
        code, rest = int(match.group(1), base), match.group(2)
    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        char = "\ufffd"
    elif 0x80 <= code <= 0x9F:
        char = html.unescape(f"&#{code};")
    else:
        char = chr(code)
    return char + rest


class HTMLHeaderTextSplitter(_lc.HTMLHeaderTextSplitter):
    """LangChain's ``HTMLHeaderTextSplitter``: a drop-in, and a subclass of LangChain's
    class. The same arguments (``headers_to_split_on``, ``return_each_element``), the same
    documents and header metadata, LangChain's walk over BeautifulSoup's ``html.parser`` tree
    (every element's own text, headers closing the deeper ones, a header going out of scope
    when the walk leaves its parent).

    >>> s = HTMLHeaderTextSplitter([("h1", "H1"), ("h2", "H2")])
    >>> page = "<h1>Intro</h1><p>Hello</p><h2>Part</h2><p>a</p><p>b</p>"
    >>> for d in s.split_text(page):
    ...     print(repr(d.page_content), d.metadata)
    'Intro' {'H1': 'Intro'}
    'Hello' {'H1': 'Intro'}
    'Part' {'H1': 'Intro', 'H2': 'Part'}
    'a  \\nb' {'H1': 'Intro', 'H2': 'Part'}

    A subclass overriding ``_generate_documents`` keeps it.
    """

    def _generate_documents(self, html_content: str) -> Iterator[Document]:
        """LangChain's documents of ``html_content``.

        >>> s = HTMLHeaderTextSplitter([("h1", "H1")], return_each_element=True)
        >>> [d.page_content for d in s._generate_documents("<p>a<b>b</b>c</p>")]
        ['a c', 'b']
        """
        tree = _Tree()
        tree.feed(html_content)
        tree.close()
        root = tree.root
        body = _find_body(root)
        yield from self._walk(body if body is not None else root)

    def _walk(self, body: _Node) -> Iterator[Document]:
        active: dict[str, tuple[str, int, int]] = {}
        chunk: list[str] = []
        header_tags = self.header_tags
        mapping = self.header_mapping
        each = self.return_each_element

        def finalize() -> Document | None:
            if not chunk:
                return None
            text = "  \n".join(line for line in chunk if line.strip())
            chunk.clear()
            if not text.strip():
                return None
            return Document(page_content=text, metadata={k: v[0] for k, v in active.items()})

        stack = [body]
        while stack:
            node = stack.pop()
            stack.extend(reversed(node[2]))
            text = " ".join(node[3])
            if not text:
                continue
            depth = node[1]
            tag = node[0]
            if tag in header_tags:
                if not each:
                    doc = finalize()
                    if doc:
                        yield doc
                try:
                    level = int(tag[1:])
                except ValueError:
                    level = 9999
                for key in [k for k, (_, lvl, _) in active.items() if lvl >= level]:
                    del active[key]
                active[mapping[tag]] = (text, level, depth)
                yield Document(page_content=text, metadata={k: v[0] for k, v in active.items()})
            else:
                for key in [k for k, (_, _, d) in active.items() if depth < d]:
                    del active[key]
                if each:
                    meta = {k: v[0] for k, v in active.items()}
                    yield Document(page_content=text, metadata=meta)
                else:
                    chunk.append(text)
        if not each:
            doc = finalize()
            if doc:
                yield doc


#: BeautifulSoup's whitespace (``BeautifulSoup.ASCII_SPACES``): a string of only these
#: becomes "\n" or " " outside ``pre`` and ``textarea``.
_ASCII_SPACES = frozenset("\x20\x0a\x09\x0c\x0d")
#: Tags whose strings BeautifulSoup gives their own classes (``string_containers``): they
#: are not part of an element's ``.text``.
_CONTAINERS = frozenset(("script", "style", "template", "rt", "rp"))
_PRESERVE = frozenset(("pre", "textarea"))


class _Strings(HTMLParser):
    """Every string of a page in document order, as BeautifulSoup's ``html.parser`` tree has
    them (``next_elements``), and where each element of the names asked for starts and ends
    among them: what ``HTMLSectionSplitter.split_html_by_headers`` reads."""

    def __init__(self, names: AbstractSet[str]) -> None:
        super().__init__(convert_charrefs=False)
        self.names = names
        self.strings: list[str] = []
        #: Per string: whether it is in an element's ``.text`` (a plain string or CDATA).
        self.plain: list[bool] = []
        #: (name, first string, end string) of each element of ``names``, in document order.
        self.marks: list[list[Any]] = []
        self.open: list[tuple[str, list[Any] | None]] = [("[document]", None)]
        self.data: list[str] = []
        self.handle_data = self.data.append  # type: ignore[method-assign, assignment]
        self.closed_void: list[str] = []
        self.containers = 0  # open script/style/template/rt/rp elements
        self.preserve = 0  # open pre/textarea elements

    def updatepos(self, i: int, j: int) -> int:
        return j

    def _flush(self, plain: bool = True) -> None:
        text = "".join(self.data)
        self.data.clear()
        if not self.preserve and all(c in _ASCII_SPACES for c in text):
            text = "\n" if "\n" in text else " "
        self.strings.append(text)
        self.plain.append(plain and not self.containers)

    def _push(self, tag: str) -> None:
        mark = None
        if tag in self.names:
            mark = [tag, len(self.strings), None]
            self.marks.append(mark)
        self.open.append((tag, mark))
        if tag in _CONTAINERS:
            self.containers += 1
        if tag in _PRESERVE:
            self.preserve += 1

    def _pop(self) -> None:
        tag, mark = self.open.pop()
        if mark is not None:
            mark[2] = len(self.strings)
        if tag in _CONTAINERS:
            self.containers -= 1
        if tag in _PRESERVE:
            self.preserve -= 1

    def _pop_to(self, tag: str) -> None:
        for i in range(len(self.open) - 1, 0, -1):
            if self.open[i][0] == tag:
                while len(self.open) > i:
                    self._pop()
                return

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.data:
            self._flush()
        self._push(tag)
        if tag in _VOID:
            self._pop_to(tag)
            self.closed_void.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.data:
            self._flush()
        self._push(tag)
        self._pop_to(tag)

    def handle_endtag(self, tag: str) -> None:
        if self.closed_void and tag in self.closed_void:
            self.closed_void.remove(tag)
            return
        if self.data:
            self._flush()
        self._pop_to(tag)

    def handle_entityref(self, name: str) -> None:
        self.data.append(_ENTITIES.get(name) or f"&{name}")

    def handle_charref(self, name: str) -> None:
        self.data.append(_charref(name))

    def _special(self, text: str, plain: bool) -> None:
        if self.data:
            self._flush()
        self.data.append(text)
        self._flush(plain)

    def handle_comment(self, data: str) -> None:
        self._special(data, False)

    def handle_decl(self, decl: str) -> None:
        self._special(decl[8:], False)

    def unknown_decl(self, data: str) -> None:
        cdata = data.upper().startswith("CDATA[")
        self._special(data[6:] if cdata else data, cdata)

    def handle_pi(self, data: str) -> None:
        self._special(data, False)

    def close(self) -> None:
        super().close()
        if self.data:
            self._flush()
        while len(self.open) > 1:
            self._pop()


class HTMLSections(_lc.HTMLSectionSplitter):
    """LangChain's ``HTMLSectionSplitter`` with its sections read in one pass of
    ``html.parser``: the base of
    :class:`ragchunk.integrations.langchain.HTMLSectionSplitter`, which splits the sections
    with ragchunk's recursive drop-in."""

    def split_html_by_headers(self, html_doc: str) -> list[dict[str, str | None]]:
        """LangChain's sections of ``html_doc``: its header, text and header tag each.

        >>> HTMLSections([("h1", "H1")]).split_html_by_headers("<h1>A</h1><p>b</p>")
        [{'header': '#TITLE#', 'content': 'A b', 'tag_name': 'h1'}]
        """
        parser = _Strings(frozenset(("body", *self.headers_to_split_on)))
        parser.feed(html_doc)
        parser.close()
        strings, plain, marks = parser.strings, parser.plain, parser.marks
        sections: list[dict[str, str | None]] = []
        for i, (name, first, end) in enumerate(marks):
            if i == 0:
                header, tag = "#TITLE#", "h1"
            else:
                text = "".join(strings[j] for j in range(first, end) if plain[j])
                header, tag = text.strip(), name
            stop = marks[i + 1][1] if i + 1 < len(marks) else len(strings)
            content = " ".join(strings[first:stop]).strip()
            if content:
                sections.append({"header": header, "content": content, "tag_name": tag})
        return sections


def _find_body(root: _Node) -> _Node | None:
    """BeautifulSoup's ``soup.body``: the first ``body`` element in document order."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node[0] == "body":
            return node
        stack.extend(reversed(node[2]))
    return None
