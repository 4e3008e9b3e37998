"""JSONSplitter: JSON cut between values into valid JSON chunks, with their paths.

The walk runs on both backends; the Rust core counts where it can.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from typing import Any

from ..core import dispatch
from ..core.checks import check_int, check_parsed_text
from ..core.chunk import Chunk
from ..core.counting import Counter
from ._common import Measured, check_batch, size_argument

__all__ = ["MAX_DEPTH", "JSONSplitter", "dump_json", "split_json"]

#: The deepest nesting of objects and arrays :class:`JSONSplitter` accepts (``[]`` is one
#: level, ``[[]]`` two). Deeper documents raise ``ValueError`` naming the argument and this
#: limit, on both backends: the walk, the decoder and the encoder all recurse per level, so
#: a bound keeps them far from the interpreter's recursion limit.
MAX_DEPTH = 256

JsonPath = list[str | int]
JsonChunkRaw = tuple[str, int, int, int, list[JsonPath]]


# One encoder (json.dumps would build a new one per call with these separators).
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))
_quote_str = json.encoder.encode_basestring  # what _JSON uses for every str


def dump_json(obj: object) -> str:
    """The one serialization of chunk JSON (both backends)."""
    return _JSON.encode(obj)


_NOTHING = object()  # a value no JSON data can be (the empty dump memo)


def _dump_value(value: object) -> str:
    return _quote_str(value) if isinstance(value, str) else _JSON.encode(value)


def _splittable(value: object) -> bool:
    return isinstance(value, (dict, list, tuple)) and len(value) > 0


def _children(value: object) -> list[tuple[str | int, object]]:
    if isinstance(value, dict):
        return list(value.items())
    assert isinstance(value, (list, tuple))
    return list(enumerate(value))


def _leaf_count(value: object) -> int:
    """Number of leaves (scalars, empty containers) under ``value`` (iterative)."""
    n = 0
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict) and v:
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)) and v:
            stack.extend(v)
        else:
            n += 1
    return n


# (text, start, tail, stop_above) -> (tokens of text[start:], next resume point, tokens up to
# it): the Rust core's count_ordinary_resume for one encoding (rust/tokenizer/resume.rs).
# Past stop_above (if not None) the count is only known to be above it.
Resume = Callable[[str, int, int, "int | None"], tuple[int, int, int]]


def split_json(
    data: object,
    budget: int,
    min_size: int,
    count: Callable[[str], int],
    resume: Resume | None = None,
) -> list[JsonChunkRaw]:
    """Greedy depth-first packing of a parsed JSON value into ``(text, first_leaf, end_leaf,
    size, paths)`` chunks. Each entry (a key's value at its full path) joins the open chunk if
    the serialized chunk stays within ``budget``; otherwise a non-empty container is recursed
    into (still filling the open chunk while it is below ``min_size``, else in a fresh one)
    and a scalar or empty container starts a fresh chunk, alone even if over budget.

    The open chunk's text is kept as a string and edited in place of re-serializing the
    chunk object for every entry: entries arrive depth first, so the open objects form one
    spine (the keys of the last entry's parents) and the text ends with their closing braces,
    innermost first. A new entry goes just before the closing brace of the deepest spine
    object on its path; the result is exactly ``dump_json`` of the chunk object (tested).

    So only the last ``len(path)`` characters (closing braces) of the open chunk's text ever
    change: with ``resume`` (the exact counter's resumable form), each candidate is counted
    from a boundary near its edit instead of from the start; sizes are identical."""
    budget = max(budget, 1)
    if not _splittable(data):
        text = dump_json(data)
        return [(text, 0, 1, count(text), [[]])]
    out: list[JsonChunkRaw] = []
    st: dict[str, Any] = {
        "text": "",
        "spine": [],
        "size": 0,
        "first": 0,
        "leaves": 0,
        "memo": (_NOTHING, ""),
        "base": 0,  # resume point in the open chunk's text (UTF-8 bytes) ...
        "base_count": 0,  # ... and the tokens before it
    }
    paths: list[JsonPath] = []

    def close() -> None:
        if paths:
            first = st["first"]
            out.append((st["text"], first, first + st["leaves"], st["size"], paths[:]))
            st["first"] = first + st["leaves"]
        paths.clear()
        st["text"] = ""
        st["spine"] = []
        st["size"] = 0
        st["leaves"] = 0
        st["base"] = 0
        st["base_count"] = 0

    chars = count is len  # sizes in code points: a candidate's size is plain arithmetic

    def try_add(path: JsonPath, value: object, force: bool) -> bool:
        keys = [str(k) for k in path]
        text: str = st["text"]
        spine: list[str] = st["spine"] if text else []
        e = 0  # the deepest open object on the path: the root (0) or spine[e - 1]
        while e < len(spine) and e < len(keys) - 1 and spine[e] == keys[e]:
            e += 1
        parts = [_quote_str(keys[e]), ": "]
        for k in keys[e + 1 :]:
            parts += ["{", _quote_str(k), ": "]
        memo = st["memo"]
        if memo[0] is not value:  # place() may try the same value twice: dump it once
            memo = st["memo"] = (value, _dump_value(value))
        parts += [memo[1], "}" * (len(keys) - 1 - e)]
        if chars and not force and len(text) + 2 + sum(map(len, parts)) > budget:
            return False  # the candidate's length, known without building it
        body = "".join(parts)
        if text:
            ins = len(text) - 1 - e
            new = f"{text[:ins]}, {body}{text[ins:]}"
        else:
            new = f"{{{body}}}"
        if resume is None:
            size = count(new)
        else:
            tail = len(keys)  # later entries go before one of these closing braces
            # Unless forced (then the exact size is reported), stop once it cannot fit.
            stop = None if force else max(0, budget - st["base_count"])
            n, stable, to_stable = resume(new, st["base"], tail, stop)
            size = st["base_count"] + n
        if size > budget and not force:
            return False
        if resume is not None:
            st["base"] = stable
            st["base_count"] += to_stable
        paths.append(list(path))
        st["text"] = new
        st["spine"] = keys[:-1]
        st["size"] = size
        st["leaves"] += _leaf_count(value)
        return True

    def place(path: JsonPath, value: object) -> None:
        if paths:
            if try_add(path, value, False):
                return
            if _splittable(value) and st["size"] < min_size:
                visit(path, value)
                return
            close()
        if try_add(path, value, not _splittable(value)):
            return
        visit(path, value)

    def visit(path: JsonPath, value: object) -> None:
        for key, child in _children(value):
            place([*path, key], child)

    visit([], data)
    close()
    return out


_Where = tuple[object, "str | int"] | None  # (parent's _Where, key); None is the root


def _where(at: _Where) -> str:
    """``data['a'][0]...`` for a position, built only when an error is reported."""
    keys: list[str | int] = []
    while at is not None:
        at, key = at  # type: ignore[assignment]
        keys.append(key)
    return "data" + "".join(f"[{k!r}]" for k in reversed(keys))


def _too_deep(name: str) -> str:
    return (
        f"{name}: objects and arrays nested more than {MAX_DEPTH} levels deep; JSONSplitter "
        f"accepts at most MAX_DEPTH = {MAX_DEPTH} levels"
    )


def _check_json_value(data: object) -> None:
    """Reject what cannot be chunk JSON: non-str dict keys, non-JSON types, NaN/Infinity,
    cycles, integers too long to serialize, nesting deeper than :data:`MAX_DEPTH`.
    Iterative, so any depth is checked."""
    stack: list[tuple[object, _Where, bool]] = [(data, None, False)]
    on_path: set[int] = set()
    while stack:
        value, at, leaving = stack.pop()
        if leaving:
            on_path.discard(id(value))
        elif isinstance(value, (dict, list, tuple)):
            if id(value) in on_path:
                raise ValueError(f"{_where(at)}: cycle in the JSON data")
            on_path.add(id(value))
            if len(on_path) > MAX_DEPTH:
                raise ValueError(_too_deep("data"))
            stack.append((value, at, True))
            if isinstance(value, dict):
                for k, v in value.items():
                    if not isinstance(k, str):
                        raise TypeError(f"{_where(at)}: keys must be str, got {type(k).__name__}")
                    if not k.isascii():
                        try:
                            k.encode("utf-8")
                        except UnicodeEncodeError:
                            check_parsed_text(k, f"{_where(at)} key")
                    stack.append((v, (at, k), False))
            else:
                for i, v in enumerate(value):
                    stack.append((v, (at, i), False))
        elif isinstance(value, str):
            if not value.isascii():  # lone surrogates: the message names the position
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError:
                    check_parsed_text(value, _where(at))
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise ValueError(f"{_where(at)}: {value!r} is not valid JSON")
        elif isinstance(value, int) and value.bit_length() > 10_000:
            try:  # Python's limit on int-to-str digits (sys.set_int_max_str_digits)
                str(value)
            except ValueError as exc:
                raise ValueError(f"{_where(at)}: {exc}") from None
        elif value is not None and not isinstance(value, (bool, int)):
            raise TypeError(
                f"{_where(at)} must be dict, list, str, int, float, bool or None, "
                f"got {type(value).__name__}"
            )


class JSONSplitter(Measured):
    """Cut JSON into chunks that are each a valid JSON object keeping every value at its
    full path from the root (``{"a": {"b": {"c": 1}}}``), like LangChain's
    ``RecursiveJsonSplitter``.

    The tree is walked depth first, in document order. Each entry (a key's value) joins the
    open chunk while the chunk's serialization stays within ``chunk_size``. An entry that
    does not fit closes the open chunk and starts a fresh one (whole if it fits alone); a
    non-empty object or array too big on its own is recursed into. While the open chunk is
    smaller than ``min_chunk_size`` a too-big container is recursed into *without* closing it
    (tighter packing, more subtrees cut). A scalar, empty object or empty array too big on
    its own, with its path, is a chunk of its own over budget: nothing is ever cut or lost.

    Arrays are recursed into like objects keyed by index: an array placed whole stays an
    array, but one that had to be cut appears in chunk text as an object with keys ``"0"``,
    ``"1"``... (as LangChain's ``convert_lists=True``); in ``metadata["paths"]`` an index is
    an ``int``. A scalar or empty root is one chunk.

    Chunks are **re-serialized** JSON, never slices of the input, so ``start``/``end`` are
    not character offsets: they index the leaves (scalars, empty objects/arrays) of the
    document in depth-first order, and chunk ``i`` holds leaves ``[start, end)`` -- the
    chunks partition ``range(number_of_leaves)`` in order. ``metadata["paths"]`` lists the
    paths (lists of keys and indices) of the entries placed in the chunk: leaves, or whole
    subtrees that fitted. ``token_count`` is the size of ``text``. Serialization is
    ``json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))``.

    Both backends run the same Python tree walk and serialization (the structure lives in
    Python objects anyway, and one ``json.dumps`` makes the bytes identical by
    construction); the Rust core does the counting for the built-in tokenizers.

    Args:
        chunk_size: the budget per chunk, in tokens (or characters with
            ``length="chars"``); default 512. ``max_chunk_size`` is accepted as an older
            name for it.
        min_chunk_size: see above; ``None`` means 0 (always close before recursing).
            ``0 <= min_chunk_size <= chunk_size``.
        length: ``"tokens"`` (default) or ``"chars"`` (code points).
        tokenizer: see :mod:`ragchunk` (``"cl100k_base"`` by default); unused with
            ``length="chars"``. Special-token text is counted as plain text.

    Raises:
        TypeError, ValueError: a bad argument (the message names it); :meth:`split` raises
            ``ValueError`` with ``json.loads``'s line, column and position on invalid JSON.

    >>> s = JSONSplitter(chunk_size=16, length="chars")
    >>> [c.text for c in s.split_json({"a": {"b": 1, "c": 2}, "d": [3, 4]})]
    ['{"a": {"b": 1}}', '{"a": {"c": 2}}', '{"d": [3, 4]}']
    """

    def __init__(
        self,
        chunk_size: int | None = None,
        min_chunk_size: int | None = None,
        length: str = "tokens",
        tokenizer: Any = "cl100k_base",
        *,
        max_chunk_size: int | None = None,
    ) -> None:
        size = size_argument(chunk_size, max_chunk_size, 512)
        name = "max_chunk_size" if max_chunk_size is not None else "chunk_size"
        self.chunk_size = check_int(name, size, 1)
        if min_chunk_size is not None:
            check_int("min_chunk_size", min_chunk_size, 0)
            if min_chunk_size > self.chunk_size:
                raise ValueError(
                    f"min_chunk_size ({min_chunk_size}) must be <= {name} ({self.chunk_size})"
                )
        self.min_chunk_size = min_chunk_size
        self._set_length(length, tokenizer)

    def __repr__(self) -> str:
        return (
            f"JSONSplitter(chunk_size={self.chunk_size}, "
            f"min_chunk_size={self.min_chunk_size}, length={self.length!r}, "
            f"tokenizer={self.tokenizer!r})"
        )

    @property
    def max_chunk_size(self) -> int:
        """The older name of :attr:`chunk_size`."""
        return self.chunk_size

    def _counter(self) -> Callable[[str], int]:
        return Counter(self._tok).bind()

    def _resume(self) -> Resume | None:
        """The Rust core's resumable counter for a built-in tokenizer, else None."""
        tok = self._tok
        if tok is None or tok.builtin is None:
            return None
        enc = tok.builtin

        def rust(core: Any) -> Resume:
            resume_core = core.count_ordinary_resume

            def resume(text: str, start: int, tail: int, stop: int | None) -> tuple[int, int, int]:
                found: tuple[int, int, int] = resume_core(text, enc, start, tail, stop)
                return found

            return resume

        return dispatch.run(rust, lambda: None)

    def split_json(self, data: Any) -> list[Chunk]:
        """Cut a parsed JSON value (dict, list, str, int, float, bool or None; tuples are
        arrays) into :class:`ragchunk.Chunk` objects."""
        _check_json_value(data)
        # JSON data has no lone surrogates (checked above): the resumable counter takes the
        # text as is.
        raw = split_json(
            data, self.chunk_size, self.min_chunk_size or 0, self._counter(), self._resume()
        )
        return [
            Chunk(text, first, end, size, {"paths": paths}) for text, first, end, size, paths in raw
        ]

    def split(self, text: str) -> list[Chunk]:
        """Parse a JSON document (``json.loads``) and cut it (see :meth:`split_json`)."""
        text = check_parsed_text(text)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"text is not valid JSON: {exc}") from None
        except RecursionError:
            raise ValueError(_too_deep("text")) from None
        except ValueError as exc:  # e.g. an integer longer than Python's digit limit
            raise ValueError(f"text: {exc}") from None
        except MemoryError:
            raise ValueError(
                f"text: the decoded JSON ({len(text)} characters) does not fit in memory"
            ) from None
        try:
            return self.split_json(data)
        except ValueError as exc:
            msg = str(exc)
            if msg.startswith("data"):
                msg = "text" + msg[len("data") :]
            raise ValueError(msg) from None

    def split_batch(self, texts: Sequence[str], workers: int | None = None) -> list[list[Chunk]]:
        """:meth:`split` over many JSON documents, one after another (``workers`` is
        validated but unused: the tree walk runs in Python). Results in input order."""
        docs = check_batch(texts, workers)
        return [self.split(check_parsed_text(t, f"texts[{i}]")) for i, t in enumerate(docs)]
