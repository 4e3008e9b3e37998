"""LangChain's structure splitters as drop-ins: ``MarkdownHeaderTextSplitter``,
``RecursiveJsonSplitter`` and ``HTMLHeaderTextSplitter``, subclasses of LangChain's classes that
give LangChain's documents, metadata and errors, faster.

They keep LangChain's algorithms step for step and drop what costs time without changing a
result: LangChain filters every character of every line through ``str.isprintable`` in Python,
re-serialises the growing JSON chunk for every key it adds, and builds a BeautifulSoup tree
(then walks it with ``find_all`` and ``parents`` for every node) to read the text of each
element. Here a line is filtered only when it holds a non-printable character, the JSON chunk's
size is kept up to date as keys are added, and the HTML is read in one pass of the standard
library's ``html.parser`` (BeautifulSoup's ``"html.parser"`` builder uses the same tokenizer),
building only the little tree LangChain's walk needs, by BeautifulSoup's rules.

Imported through :mod:`ragchunk.integrations.langchain`, which re-exports them.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from itertools import groupby
from typing import Any

import langchain_text_splitters as _lc
from langchain_core.documents import Document

__all__ = ["HTMLHeaderTextSplitter", "MarkdownHeaderTextSplitter", "RecursiveJsonSplitter"]


# ----------------------------------------------------------------------------------------------
# Markdown


def _custom_header_matcher(sep: str) -> Callable[[str], bool]:
    """LangChain's ``_is_custom_header`` for one separator, with its regex compiled once."""
    esc = re.escape(sep)
    pattern = re.compile(f"^{esc}(?!{esc})(.+?)(?<!{esc}){esc}$")

    def matches(line: str) -> bool:
        match = pattern.match(line)
        if match:
            content = match.group(1).strip()
            if content and not all(c in sep for c in content.replace(" ", "")):
                return True
        return False

    return matches


class MarkdownHeaderTextSplitter(_lc.MarkdownHeaderTextSplitter):
    """LangChain's ``MarkdownHeaderTextSplitter``: a drop-in, and a subclass of LangChain's
    class. The same arguments (``headers_to_split_on``, ``return_each_line``,
    ``strip_headers``, ``custom_header_patterns``), the same documents and header metadata
    (LangChain's quirks included: lines are stripped, non-printable characters such as a
    byte-order mark are removed, aggregated lines are joined with ``"  \\n"``).

    >>> s = MarkdownHeaderTextSplitter([("#", "H1"), ("##", "H2")])
    >>> [(d.page_content, d.metadata) for d in s.split_text("# A\\nx\\n\\ny\\n## B\\nz")]
    [('x  \\ny', {'H1': 'A'}), ('z', {'H1': 'A', 'H2': 'B'})]
    >>> s = MarkdownHeaderTextSplitter([("**", "Bold")], custom_header_patterns={"**": 1})
    >>> [(d.page_content, d.metadata) for d in s.split_text("**Intro**\\ntext")]
    [('text', {'Bold': 'Intro'})]

    A subclass overriding ``_is_custom_header`` or ``aggregate_lines_to_chunks`` runs
    LangChain's ``split_text``.
    """

    def split_text(self, text: str) -> list[Document]:
        """LangChain's documents of the Markdown ``text``.

        >>> s = MarkdownHeaderTextSplitter([("#", "H1")], return_each_line=True)
        >>> [d.page_content for d in s.split_text("# T\\na\\nb\\n\\nc")]
        ['a\\nb', 'c']
        """
        cls = type(self)
        base = _lc.MarkdownHeaderTextSplitter
        if (
            cls._is_custom_header is not base._is_custom_header
            or cls.aggregate_lines_to_chunks is not base.aggregate_lines_to_chunks
        ):
            return super().split_text(text)
        lines = self._lines(text)
        if not self.return_each_line:
            return self._aggregate(lines)
        return [Document(page_content=content, metadata=meta) for content, meta in lines]

    def _lines(self, text: str) -> list[tuple[str, dict[str, str]]]:
        """LangChain's ``lines_with_metadata``: (content, metadata) per run of lines.

        Only lines that open or close a code fence or may be headers are looked at one by
        one; the plain lines between two of them are taken as a run.
        """
        custom = self.custom_header_patterns
        headers = []
        for sep, name in self.headers_to_split_on:
            matcher = _custom_header_matcher(sep) if sep in custom else None
            level = custom[sep] if sep in custom else sep.count("#")
            headers.append((sep, name, matcher, level))
        prefixes = tuple(sep for sep, _, _, _ in headers)
        strip_headers = self.strip_headers

        lines = [line.strip() for line in text.split("\n")]
        if not all(map(str.isprintable, lines)):
            printable = str.isprintable
            lines = [s if s.isprintable() else "".join(filter(printable, s)) for s in lines]
        special = (*prefixes, "```", "~~~")
        marks = [i for i, s in enumerate(lines) if s.startswith(special)]
        marks.append(len(lines))

        out: list[tuple[str, dict[str, str]]] = []
        content: list[str] = []
        # LangChain's current_metadata equals its initial_metadata except while a header line
        # is processed, so one dict (replaced, never mutated) stands for both.
        meta: dict[str, str] = {}
        stack: list[tuple[int, str]] = []  # (level, name) of the open headers
        in_code = False
        fence = ""
        done = 0  # lines before this index are handled
        for mark in marks:
            if done < mark:
                run = lines[done:mark]
                if in_code:
                    content.extend(run)
                else:
                    for nonempty, group in groupby(run, bool):
                        if nonempty:
                            content.extend(group)
                        elif content:
                            out.append(("\n".join(content), dict(meta)))
                            content.clear()
            done = mark + 1
            if mark == len(lines):
                break
            s = lines[mark]
            if not in_code:
                if s.startswith("```") and s.count("```") == 1:
                    in_code, fence = True, "```"
                elif s.startswith("~~~"):
                    in_code, fence = True, "~~~"
            elif s.startswith(fence):
                in_code, fence = False, ""
            if in_code:
                content.append(s)
                continue
            for sep, name, matcher, level in headers:
                n = len(sep)
                standard = s.startswith(sep) and (len(s) == n or s[n] == " ")
                is_custom = matcher is not None and matcher(s)
                if not (standard or is_custom):
                    continue
                new_meta = meta
                if name is not None:
                    new_meta = dict(meta)
                    while stack and stack[-1][0] >= level:
                        popped = stack.pop()[1]
                        if popped in new_meta:
                            new_meta.pop(popped)
                    header = s[n:-n].strip() if is_custom else s[n:].strip()
                    stack.append((level, name))
                    new_meta[name] = header
                if content:
                    out.append(("\n".join(content), dict(meta)))
                    content.clear()
                if not strip_headers:
                    content.append(s)
                meta = new_meta
                break
            else:
                if s:
                    content.append(s)
                elif content:
                    out.append(("\n".join(content), dict(meta)))
                    content.clear()
        if content:
            out.append(("\n".join(content), dict(meta)))
        return out

    def _aggregate(self, lines: list[tuple[str, dict[str, str]]]) -> list[Document]:
        """LangChain's ``aggregate_lines_to_chunks``, joining each chunk's parts once."""
        chunks: list[tuple[list[str], dict[str, str]]] = []
        for content, meta in lines:
            if chunks and chunks[-1][1] == meta:
                chunks[-1][0].append(content)
            elif (
                chunks
                and len(chunks[-1][1]) < len(meta)
                # LangChain's test, IndexError on an empty last line included.
                and chunks[-1][0][-1].split("\n")[-1][0] == "#"
                and not self.strip_headers
            ):
                chunks[-1][0].append(content)
                chunks[-1] = (chunks[-1][0], meta)
            else:
                chunks.append(([content], meta))
        return [Document(page_content="  \n".join(parts), metadata=meta) for parts, meta in chunks]


# ----------------------------------------------------------------------------------------------
# JSON


def _key_size(key: Any) -> int:
    """The length of ``key`` as ``json.dumps`` writes it as a key (non-str keys converted, the
    same TypeError for the ones it refuses)."""
    if type(key) is str:
        return len(json.dumps(key))
    return len(json.dumps({key: 0})) - 5


class RecursiveJsonSplitter(_lc.RecursiveJsonSplitter):
    """LangChain's ``RecursiveJsonSplitter``: a drop-in, and a subclass of LangChain's class.
    The same arguments (``max_chunk_size=2000``, ``min_chunk_size``, ``convert_lists``,
    ``ensure_ascii``), the same chunks (sizes are ``len(json.dumps(chunk))``, as LangChain
    measures them) and LangChain's ``TypeError`` for input that is not a dict.

    >>> s = RecursiveJsonSplitter(max_chunk_size=24, min_chunk_size=10)
    >>> s.split_text({"a": 1, "b": {"c": "xxxx", "d": "yyyy"}, "e": [1, 2]})
    ['{"a": 1, "b": {"c": "xxxx"}}', '{"b": {"d": "yyyy"}}', '{"e": [1, 2]}']

    As in LangChain, ``min_chunk_size`` defaults to ``max(max_chunk_size - 200, 50)``: with a
    small ``max_chunk_size`` and no ``min_chunk_size`` a chunk never becomes big enough to
    close, and everything stays in one.
    >>> s.split_json([1, 2])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    TypeError: json_data must be a dict, got list. Top-level lists can be split by passing ...

    A subclass overriding ``_json_split``, ``_json_size`` or ``_set_nested_dict`` runs
    LangChain's code.
    """

    def _json_split(
        self,
        data: Any,
        current_path: list[str] | None = None,
        chunks: list[dict[str, Any]] | None = None,
    ) -> list[dict[str, Any]]:
        """LangChain's ``_json_split`` with the current chunk's serialised size kept up to
        date instead of recomputed for every key.

        >>> s = RecursiveJsonSplitter(max_chunk_size=12, min_chunk_size=5)
        >>> s._json_split({"a": "1234", "b": "5678"})
        [{'a': '1234'}, {'b': '5678'}]
        """
        cls = type(self)
        base = _lc.RecursiveJsonSplitter
        if (
            current_path is not None
            or chunks is not None
            or cls._json_size is not base._json_size
            or cls._set_nested_dict is not base._set_nested_dict
        ):
            return super()._json_split(data, current_path, chunks)
        return _JsonChunks(self.max_chunk_size, self.min_chunk_size).split(data)


class _JsonChunks:
    """The chunks of one ``_json_split`` call, with the size of the last one."""

    __slots__ = ("chunks", "max", "min", "size")

    def __init__(self, max_size: int, min_size: int) -> None:
        self.max, self.min = max_size, min_size
        self.chunks: list[dict[str, Any]] = [{}]
        self.size = 2  # len("{}")

    def split(self, data: Any) -> list[dict[str, Any]]:
        self._walk(data, [])
        return self.chunks

    def _walk(self, data: Any, path: list[Any]) -> None:
        if isinstance(data, dict) and data:
            for key, value in data.items():
                new_path = [*path, key]
                size = len(json.dumps({key: value}))
                if size < self.max - self.size:
                    self._set(new_path, value, size - 4 - _key_size(key))
                else:
                    if self.size >= self.min:
                        self.chunks.append({})
                        self.size = 2
                    self._walk(value, new_path)
        elif path:
            self._set(path, data, len(json.dumps(data)))

    def _set(self, path: list[Any], value: Any, value_size: int) -> None:
        """LangChain's ``_set_nested_dict`` on the last chunk, adding what it adds to the
        chunk's serialised size."""
        d = self.chunks[-1]
        grown = 0
        for key in path[:-1]:
            if key not in d:
                grown += (2 if d else 0) + _key_size(key) + 4  # ', ' "key": {}
                d[key] = {}
            d = d[key]
        key = path[-1]
        if key in d:
            # Overwriting a value (a key repeated once converted): measure again, as LangChain.
            d[key] = value
            self.size = len(json.dumps(self.chunks[-1]))
            return
        grown += (2 if d else 0) + _key_size(key) + 2 + value_size
        d[key] = value
        self.size += grown


# ----------------------------------------------------------------------------------------------
# HTML


class _Node:
    """An element of BeautifulSoup's tree, as far as LangChain's walk reads it."""

    __slots__ = ("children", "depth", "name", "strings")

    def __init__(self, name: str, depth: int) -> None:
        self.name = name
        self.depth = depth  # len(list(tag.parents)) in BeautifulSoup's tree
        self.children: list[_Node] = []
        self.strings: list[str] = []  # the direct strings, stripped, empty ones dropped


#: BeautifulSoup's ``HTMLParserTreeBuilder.empty_element_tags`` (void elements).
_VOID = frozenset(
    "area base br col embed hr img input keygen link menuitem meta param source track wbr "
    "basefont bgsound command frame image isindex nextid spacer".split()
)


class _Tree(HTMLParser):
    """Builds :class:`_Node` trees from ``html.parser`` events with BeautifulSoup's rules: an
    end tag closes the innermost open element of its name (and every element inside it), an
    end tag with no open element of its name is dropped, void elements close at once, text
    between two events is one string, and comments, doctypes, processing instructions and
    CDATA are strings too."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.root = _Node("[document]", 0)
        self.open: list[_Node] = [self.root]
        self.data: list[str] = []
        # BeautifulSoup's already_closed_empty_element: a void element opened by a start tag
        # swallows one later end tag of its name, without ending the current string.
        self.closed_void: list[str] = []

    def updatepos(self, i: int, j: int) -> int:
        # Line and column are never read here: skip counting them.
        return j

    def _flush(self) -> None:
        if self.data:
            text = "".join(self.data).strip()
            self.data.clear()
            if text:
                self.open[-1].strings.append(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.data:
            self._flush()
        parent = self.open[-1]
        node = _Node(tag, parent.depth + 1)
        parent.children.append(node)
        if tag in _VOID:
            self.closed_void.append(tag)
        else:
            self.open.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._flush()
        parent = self.open[-1]
        parent.children.append(_Node(tag, parent.depth + 1))

    def handle_endtag(self, tag: str) -> None:
        if tag in self.closed_void:
            self.closed_void.remove(tag)
            return
        if self.data:
            self._flush()
        for i in range(len(self.open) - 1, 0, -1):
            if self.open[i].name == tag:
                del self.open[i:]
                return

    def handle_data(self, data: str) -> None:
        self.data.append(data)

    def handle_entityref(self, name: str) -> None:
        self.data.append(_entity(name))

    def handle_charref(self, name: str) -> None:
        self.data.append(_charref(name))

    def _string(self, text: str) -> None:
        self._flush()
        text = text.strip()
        if text:
            self.open[-1].strings.append(text)

    def handle_comment(self, data: str) -> None:
        self._string(data)

    def handle_decl(self, decl: str) -> None:
        self._string(decl[8:] if decl[:7].upper() == "DOCTYPE" else decl)

    def unknown_decl(self, data: str) -> None:
        self._string(data[6:] if data.upper().startswith("CDATA[") else data)

    def handle_pi(self, data: str) -> None:
        self._string(data)

    def close(self) -> None:
        super().close()
        self._flush()


def _entity(name: str) -> str:
    text = html.unescape(f"&{name};")
    return text if not text.startswith("&") or len(text) == 1 else f"&{name}"


def _charref(name: str) -> str:
    return html.unescape(f"&#{name};")


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
            stack.extend(reversed(node.children))
            text = " ".join(node.strings)
            if not text:
                continue
            depth = node.depth
            tag = node.name
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


def _find_body(root: _Node) -> _Node | None:
    """BeautifulSoup's ``soup.body``: the first ``body`` element in document order."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.name == "body":
            return node
        stack.extend(reversed(node.children))
    return None
