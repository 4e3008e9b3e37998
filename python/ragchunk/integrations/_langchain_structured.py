"""LangChain's structure splitters as drop-ins: ``MarkdownHeaderTextSplitter``,
``HTMLHeaderTextSplitter``, ``HTMLSectionSplitter`` and ``RecursiveJsonSplitter``, subclasses of
LangChain's classes that give LangChain's documents, metadata and errors, faster.

They keep LangChain's algorithms step for step and drop what costs time without changing a
result: LangChain filters every character of every line through ``str.isprintable`` in Python,
re-serialises the growing JSON chunk for every key it adds, and builds a BeautifulSoup tree
(then walks it with ``find_all``, ``parents`` or ``next_elements``) to read the text of each
element. Here a line is filtered only when it holds a non-printable character, the JSON chunk's
size is kept up to date as keys are added, and the HTML is read in one pass of the standard
library's ``html.parser`` (BeautifulSoup's ``"html.parser"`` builder uses the same tokenizer),
keeping only what LangChain's walk reads, by BeautifulSoup's rules.

Imported through :mod:`ragchunk.integrations.langchain`, which re-exports them.
"""

from __future__ import annotations

import html
import html.entities
import json
import json.encoder
import math
import re
from collections.abc import Callable, Iterable, Iterator
from collections.abc import Set as AbstractSet
from html.parser import HTMLParser
from itertools import compress, groupby
from operator import itemgetter, not_
from typing import Any

import langchain_text_splitters as _lc
from langchain_core.documents import Document

__all__ = [
    "HTMLHeaderTextSplitter",
    "HTMLSectionSplitter",
    "MarkdownHeaderTextSplitter",
    "RecursiveJsonSplitter",
]


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


#: The characters of ASCII text that ``str.isprintable`` rejects, newline aside.
_ASCII_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f]")
_FIRST = itemgetter(slice(0, 1))


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

        # Whole-list passes in C; only the lines holding a non-printable character are
        # filtered one by one.
        lines = list(map(str.strip, text.split("\n")))
        every = range(len(lines))
        if not (text.isascii() and _ASCII_CONTROL.search(text) is None):
            for i in compress(every, map(not_, map(str.isprintable, lines))):
                lines[i] = "".join(filter(str.isprintable, lines[i]))
        special = (*prefixes, "```", "~~~")
        firsts = frozenset(p[:1] for p in special)
        if "" in firsts:  # an empty separator: every line may be a header
            marks = list(every)
        else:
            # Lines whose first character may start a fence or a header; the walk below tells.
            marks = list(compress(every, map(firsts.__contains__, map(_FIRST, lines))))
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
        n_lines = len(lines)
        next_mark = iter(marks).__next__
        while True:
            mark = next_mark()
            if in_code:
                # Inside a fence only the closing fence matters: skip to it.
                while mark < n_lines and not lines[mark].startswith(fence):
                    mark = next_mark()
                content.extend(lines[done:mark])
            elif done < mark:
                for nonempty, group in groupby(lines[done:mark], bool):
                    if nonempty:
                        content.extend(group)
                    elif content:
                        out.append(("\n".join(content), dict(meta)))
                        content.clear()
            done = mark + 1
            if mark == n_lines:
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


class _Sizer:
    """``len(json.dumps(x))`` for the values and keys of one split, as ``json.dumps`` with its
    defaults measures them, without its per-call set-up: scalars are measured directly, str
    keys once, containers by one C encoder made for the split (with its own circular-reference
    check, so the same errors as ``json.dumps``)."""

    __slots__ = ("encode", "keys")

    def __init__(self) -> None:
        self.keys: dict[str, int] = {}
        make = getattr(json.encoder, "c_make_encoder", None)
        if make is None:  # an interpreter without the C accelerator
            self.encode = None
        else:
            self.encode = make(
                {},
                json.JSONEncoder().default,
                json.encoder.encode_basestring_ascii,
                None,
                ": ",
                ", ",
                False,
                False,
                True,
            )

    def value(self, value: Any) -> int:
        t = type(value)
        if t is str:
            return len(_escape(value))
        if t is int:
            return len(int.__repr__(value))
        if t is float:
            return len(_float(value))
        if value is None or value is True:
            return 4
        if value is False:
            return 5
        if self.encode is None:
            return len(json.dumps(value))
        return sum(map(len, self.encode(value, 0)))

    def key(self, key: Any) -> int:
        if type(key) is str:
            size = self.keys.get(key)
            if size is None:
                size = self.keys[key] = len(_escape(key))
            return size
        # Non-str keys as json.dumps converts them, or its TypeError.
        return len(json.dumps({key: 0})) - 5


_escape = json.encoder.encode_basestring_ascii


def _float(x: float) -> str:
    """A float as ``json.dumps`` writes it."""
    if x != x:
        return "NaN"
    if x == math.inf:
        return "Infinity"
    if x == -math.inf:
        return "-Infinity"
    return float.__repr__(x)


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

    def _list_to_dict_preprocessing(self, data: Any) -> Any:
        """LangChain's ``convert_lists`` step (lists become dicts keyed ``"0"``, ``"1"``...),
        without a call per leaf.

        >>> RecursiveJsonSplitter()._list_to_dict_preprocessing({"a": [1, {"b": [2]}]})
        {'a': {'0': 1, '1': {'b': {'0': 2}}}}
        """
        return _lists_to_dicts(data) if isinstance(data, (dict, list)) else data

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


def _lists_to_dicts(data: dict[Any, Any] | list[Any]) -> dict[Any, Any]:
    items = data.items() if isinstance(data, dict) else ((str(i), v) for i, v in enumerate(data))
    return {k: _lists_to_dicts(v) if isinstance(v, (dict, list)) else v for k, v in items}


class _JsonChunks:
    """The chunks of one ``_json_split`` call, with the size of the last one."""

    __slots__ = ("chunks", "max", "min", "size", "sizer")

    def __init__(self, max_size: int, min_size: int) -> None:
        self.max, self.min = max_size, min_size
        self.chunks: list[dict[str, Any]] = [{}]
        self.size = 2  # len("{}")
        self.sizer = _Sizer()

    def split(self, data: Any) -> list[dict[str, Any]]:
        self._walk(data, [])
        return self.chunks

    def _walk(self, data: Any, path: list[Any]) -> None:
        if isinstance(data, dict) and data:
            key_size, value_size = self.sizer.key, self.sizer.value
            for key, value in data.items():
                new_path = [*path, key]
                # len(json.dumps({key: value})); the key first, as json.dumps fails first on it
                k = key_size(key)
                v = value_size(value)
                if k + v + 4 < self.max - self.size:
                    self._set(new_path, value, v)
                else:
                    if self.size >= self.min:
                        self.chunks.append({})
                        self.size = 2
                    self._walk(value, new_path)
        elif path:
            self._set(path, data, self.sizer.value(data))

    def _set(self, path: list[Any], value: Any, value_size: int) -> None:
        """LangChain's ``_set_nested_dict`` on the last chunk, adding what it adds to the
        chunk's serialised size."""
        d = self.chunks[-1]
        grown = 0
        for key in path[:-1]:
            if key not in d:
                grown += (2 if d else 0) + self.sizer.key(key) + 4  # ', ' "key": {}
                d[key] = {}
            d = d[key]
        key = path[-1]
        if key in d:
            # Overwriting a value (a key repeated once converted): measure again, as LangChain.
            d[key] = value
            self.size = len(json.dumps(self.chunks[-1]))
            return
        grown += (2 if d else 0) + self.sizer.key(key) + 2 + value_size
        d[key] = value
        self.size += grown


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


class HTMLSectionSplitter(_lc.HTMLSectionSplitter):
    """LangChain's ``HTMLSectionSplitter``: a drop-in, and a subclass of LangChain's class.
    The same arguments (``headers_to_split_on`` and the keyword arguments of the recursive
    splitter ``split_documents`` applies), LangChain's XSLT step (lxml) that turns large-font
    text into headers, then LangChain's sections (a section's text is every string from its
    header, the header's own included, to the next header, and the first section is the
    ``#TITLE#`` one), read in one pass of ``html.parser`` instead of a BeautifulSoup tree;
    ``split_documents`` splits the sections with ragchunk's
    :class:`~ragchunk.integrations.langchain.RecursiveCharacterTextSplitter`.

    >>> s = HTMLSectionSplitter([("h1", "H1"), ("h2", "H2")])
    >>> page = "<html><body><p>Lead</p><h1>Intro</h1><p>Hello</p><h2>Part</h2><p>a</p></body>"
    >>> for d in s.split_text(page):
    ...     print(repr(d.page_content), d.metadata)
    'Lead' {'H1': '#TITLE#'}
    'Intro \\n Hello' {'H1': 'Intro'}
    'Part \\n a' {'H2': 'Part'}

    A subclass overriding ``split_html_by_headers`` keeps it.
    """

    def split_html_by_headers(self, html_doc: str) -> list[dict[str, str | None]]:
        """LangChain's sections of ``html_doc``: its header, text and header tag each.

        >>> HTMLSectionSplitter([("h1", "H1")]).split_html_by_headers("<h1>A</h1><p>b</p>")
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

    def split_documents(self, documents: Iterable[Document]) -> list[Document]:
        """LangChain's ``split_documents``: the sections of each document, split by ragchunk's
        recursive drop-in with this splitter's keyword arguments.

        >>> from langchain_core.documents import Document
        >>> s = HTMLSectionSplitter([("h1", "H1")], chunk_size=10, chunk_overlap=0)
        >>> [d.page_content for d in s.split_documents(
        ...     [Document("<h1>T</h1><p>one two three</p>", metadata={"Title": "x"})])]
        ['T', 'one two', 'three']
        """
        from ragchunk.integrations.langchain import RecursiveCharacterTextSplitter

        texts, metadatas = [], []
        for doc in documents:
            texts.append(doc.page_content)
            metadatas.append(doc.metadata)
        results = self.create_documents(texts, metadatas=metadatas)
        return RecursiveCharacterTextSplitter(**self.kwargs).split_documents(results)


def _find_body(root: _Node) -> _Node | None:
    """BeautifulSoup's ``soup.body``: the first ``body`` element in document order."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node[0] == "body":
            return node
        stack.extend(reversed(node[2]))
    return None
