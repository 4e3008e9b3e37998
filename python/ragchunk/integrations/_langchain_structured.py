"""LangChain's Markdown and JSON structure splitters as drop-ins: ``MarkdownHeaderTextSplitter``
and ``RecursiveJsonSplitter``, subclasses of LangChain's classes that give LangChain's
documents, metadata and errors, faster.

They keep LangChain's algorithms step for step and drop what costs time without changing a
result: LangChain filters every character of every line through ``str.isprintable`` in Python
and re-serialises the growing JSON chunk for every key it adds. Here a line is filtered only
when it holds a non-printable character, and the JSON chunk's size is kept up to date as keys
are added. The HTML splitters are in :mod:`ragchunk.integrations._langchain_html`.

Imported through :mod:`ragchunk.integrations.langchain`, which re-exports them.
"""

from __future__ import annotations

import json
import json.encoder
import math
import re
from collections.abc import Callable
from itertools import compress, groupby
from operator import itemgetter, not_
from typing import Any

import langchain_text_splitters as _lc
from langchain_core.documents import Document

__all__ = ["MarkdownHeaderTextSplitter", "RecursiveJsonSplitter"]


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
