"""RAGFlow v0.27's ``TitleChunker`` pipeline component (methods ``hierarchy`` and ``group``).

Title levels are matched with Python's ``re`` (the patterns are user-supplied Python regexes,
so their exact semantics are Python's); the token counting and the cap re-split run on the
active backend.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from ..positions import remove_tag
from . import _kernels
from ._params import Component, TitleParams
from ._pdf import extract_pdf_positions, finalize, merge_pdf_positions
from ._upstream import Upstream, UpstreamError, validate_upstream

__all__ = ["TitleChunker", "title_chunker"]

BODY_LEVEL = sys.maxsize - 1
MIN_GROUP_TOKENS = 32
_TEXT_FORMATS = ("markdown", "text", "html")
_NOT_BULLET = [
    re.compile(p)
    for p in (r"0", r"[0-9]+ +[0-9~个只-]", r"[0-9]+\.{2,}", r"[0-9]+(\.[0-9]+){2,}[的中]")
]
# One alternation: it matches at position 0 exactly when one of the patterns does.
_NOT_BULLET_ANY = re.compile("|".join(f"(?:{p.pattern})" for p in _NOT_BULLET))
_LAYOUT = re.compile(r"(section|title|head)", re.I)


@lru_cache(maxsize=1024)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def not_bullet(line: str) -> bool:
    """RAGFlow's ``rag.nlp.not_bullet``: lines that look numbered but are not headings.

    >>> not_bullet("0 items"), not_bullet("1. Intro")
    (True, False)
    """
    return _NOT_BULLET_ANY.match(line) is not None


def not_title(txt: str) -> bool:
    """RAGFlow's ``rag.nlp.not_title``: text too long or too sentence-like for a heading.

    >>> not_title("Introduction"), not_title("Hello, world")
    (False, True)
    """
    if re.match(r"第[零一二三四五六七八九十百0-9]+条", txt):
        return False
    if len(txt.split()) > 12 or (txt.find(" ") < 0 and len(txt) >= 32):
        return True
    return re.search(r"[,;，。；！!]", txt) is not None


def _record(text: str, kind: str = "text", img_id: Any = None, layout: str = "") -> dict[str, Any]:
    return {"text": text, "kind": kind, "img_id": img_id, "layout": layout, "positions": []}


def _records(up: Upstream) -> list[dict[str, Any]]:
    fmt = up.output_format
    if fmt in _TEXT_FORMATS:
        payload = getattr(up, f"{fmt}_result") or ""
        lines = payload.split("\n")
        if fmt == "text":
            return [_record(line.strip()) for line in lines if line.strip()]
        return [_record(line) for line in lines if line.strip()]
    items = up.chunks if fmt == "chunks" else up.json_result
    out = []
    for item in items or []:
        rec = _record(
            str(item.get("text") or ""),
            str(item.get("doc_type_kwd") or "text"),
            item.get("img_id"),
            "{} {}".format(item.get("layout_type", ""), item.get("layoutno", "")).strip(),
        )
        rec["positions"] = extract_pdf_positions(item)
        out.append(rec)
    return out


def _matches(pattern: str, line: str) -> bool:
    return _compiled(pattern).match(line) is not None and not not_bullet(line)


_GROUP_REFS = re.compile(r"\\[1-9]|\(\?P[=<]|\(\?<|\(\?\(")


@lru_cache(maxsize=256)
def _family_matcher(family: tuple[Any, ...]) -> Callable[[str], object]:
    """A test, truthy or not, that some pattern of ``family`` ``re.match``es a line. One
    alternation tests them all at once (a match at position 0 of ``(?:a)|(?:b)`` is a match
    of ``a`` or of ``b``); a family with a pattern whose meaning depends on group numbers or
    names, or that does not compile on its own, is tested pattern by pattern, each compiled
    when first reached."""
    if family and all(isinstance(p, str) and not _GROUP_REFS.search(p) for p in family):
        try:
            for p in family:
                _compiled(p)  # each pattern must be valid on its own
            combined = re.compile("|".join(f"(?:{p})" for p in family))
        except re.error:
            pass
        else:
            return combined.match  # a Match is truthy
    return lambda s: any(_compiled(p).match(s) for p in family)


def _family_test(family: Sequence[Any]) -> Callable[[str], object]:
    try:
        return _family_matcher(tuple(family))
    except TypeError:  # an unhashable pattern: fails when it is reached, as before
        return lambda s: any(_compiled(p).match(s) for p in family)


def _family_hits(family: list[Any], lines: list[str]) -> int:
    """Lines that some pattern of ``family`` ``re.match``es."""
    hit = _family_test(family)
    return sum(1 for s in lines if hit(s))


def _select_family(candidates: list[str], levels: Any) -> list[str]:
    """The family with the most title lines among ``candidates`` (stripped, non-empty lines
    that ``not_bullet`` accepts: a line it rejects never counts)."""
    if not levels:
        return []
    raw = [list(f) for f in levels]
    hits = [len(list(filter(None, map(_family_test(fam), candidates)))) for fam in raw]
    best, selected = 0, -1
    for i, h in enumerate(hits):
        if h > best:
            best, selected = h, i
    if selected < 0:
        return []
    return [p for p in raw[selected] if p]


def _levels(records: list[dict[str, Any]], levels_param: Any) -> tuple[list[int], int | None]:
    stripped = [r["text"].strip() for r in records]
    bullet = _NOT_BULLET_ANY.match
    plain = [bool(s) and bullet(s) is None for s in stripped]  # non-empty, not a fake bullet
    family = _select_family([s for s, ok in zip(stripped, plain, strict=True) if ok], levels_param)
    compiled = [_compiled(p) for p in family] if family else []
    any_title = _family_test(family) if family else None
    fallback = len(family) + 1
    levels: list[int] = []
    for r, s, ok in zip(records, stripped, plain, strict=True):
        if r["kind"] != "text":
            levels.append(BODY_LEVEL)
            continue
        level = None
        # ``not_bullet("")`` is false: an empty line is tested against the patterns too.
        if any_title is not None and (ok or not s) and any_title(s):
            level = next((k for k, p in enumerate(compiled, 1) if p.match(s)), None)
        if level is None:
            layout = r["layout"]
            if layout and _LAYOUT.search(layout) and not not_title(r["text"].split("@")[0].strip()):
                level = fallback
            else:
                level = BODY_LEVEL
        levels.append(level)
    most = next((lv for lv, _ in Counter(levels).most_common() if lv < BODY_LEVEL), None)
    return levels, most


def _target(levels: Sequence[int], hierarchy: Any) -> int | None:
    titles = sorted({lv for lv in levels if 0 < lv < BODY_LEVEL})
    if not titles:
        return None
    return titles[min(max(int(hierarchy), 1), len(titles)) - 1]


class _Node:
    __slots__ = ("body", "children", "level", "titles")

    def __init__(self, level: int, titles: list[int] | None = None) -> None:
        self.level = level
        self.titles = titles or []
        self.body: list[int] = []
        self.children: list[_Node] = []


def _tree_paths(levels: list[int], depth: int, include_heading: bool) -> list[list[int]]:
    root = _Node(0)
    stack = [root]
    for index, level in enumerate(levels):
        if level > depth:
            stack[-1].body.append(index)
            continue
        while len(stack) > 1 and level <= stack[-1].level:
            stack.pop()
        node = _Node(level, [index])
        stack[-1].children.append(node)
        stack.append(node)
    paths: list[list[int]] = []

    def walk(node: _Node, titles: list[int]) -> None:
        if node.level == 0 and node.body:
            paths.append(titles + node.body)
        inside = 1 <= node.level <= depth
        if include_heading:
            path = titles + node.titles if inside else titles
            if node.body and inside:
                paths.append(path + node.body)
            elif not node.children and inside:
                paths.append(path)
        else:
            path = titles + node.titles + node.body if inside else titles
            if not node.children and inside:
                paths.append(path)
        for child in node.children:
            walk(child, path)

    walk(root, [])
    return [p for p in paths if p]


class TitleChunker(Component):
    """RAGFlow v0.27's ``TitleChunker`` component: parameters checked once, many documents.

    ``params`` is the parameter dict a pipeline DSL carries (``method`` is required, as in
    RAGFlow; ``levels`` is a list of regex families). :meth:`invoke` returns the outputs dict
    the component sets.

    Beyond RAGFlow (off by default): ``single_page_normalisation=True`` derives the indexed
    positions from one page normalisation instead of RAGFlow's two or three.

    Raises:
        AttributeError: no ``method`` (RAGFlow's own error).
        ValueError: a parameter ``check()`` rejects (RAGFlow's message, naming it).

    >>> chunker = TitleChunker({"method": "hierarchy", "hierarchy": 1,
    ...                         "levels": [["^#[^#]", "^##[^#]"]]})
    >>> md = "# A\\nalpha\\n# B\\nbeta"
    >>> chunker.invoke({"name": "a.md", "output_format": "markdown", "markdown": md})
    {'output_format': 'chunks', 'chunks': [{'text': '# A\\nalpha\\n'}, {'text': '# B\\nbeta\\n'}]}
    """

    def __init__(
        self, params: Mapping[str, Any] | None = None, *, single_page_normalisation: bool = False
    ) -> None:
        self.params = TitleParams.from_dict(params)
        self.single_page_normalisation = bool(single_page_normalisation)

    def __repr__(self) -> str:
        return f"TitleChunker({self.params!r})"

    def _key(self) -> tuple[object, ...]:
        return (self.params, self.single_page_normalisation)

    def invoke(self, upstream: Mapping[str, Any]) -> dict[str, Any]:
        """The outputs RAGFlow's component sets for one upstream payload.

        >>> TitleChunker({"method": "tree", "levels": [["^#"]]}).invoke(
        ...     {"name": "a.md", "output_format": "markdown", "markdown": "# a"})
        {'_ERROR': 'Unsupported TitleChunker method: tree'}
        """
        p = self.params
        try:
            up = validate_upstream(upstream, "TitleChunkerFromUpstream")
        except UpstreamError as e:
            return {"_ERROR": f"Input error: {e}"}
        if p.method not in ("hierarchy", "group"):
            return {"_ERROR": f"Unsupported TitleChunker method: {p.method}"}
        records = _records(up)
        levels, most = _levels(records, p.levels)
        if p.method == "hierarchy":
            groups = self._hierarchy(records, levels)
        else:
            groups = self._group(records, levels, most)
        text_format = up.output_format in _TEXT_FORMATS
        chunks = self._materialise(groups, text_format)
        if p.root_chunk_as_heading and len(chunks) > 1:
            head = chunks[0]["text"] + "\n"
            chunks = [{**c, "text": head + c["text"]} for c in chunks[1:]]
        if p.chunk_token_cap:
            chunks = self._cap(chunks, p.chunk_token_cap)
        if text_format:
            return {"output_format": "chunks", "chunks": [{"text": c["text"]} for c in chunks]}
        out = []
        for c in chunks:
            positions = c.pop("positions")
            out.append(finalize(c, positions, normalise=not self.single_page_normalisation))
        return {"output_format": "chunks", "chunks": out}

    def _hierarchy(
        self, records: list[dict[str, Any]], levels: list[int]
    ) -> list[list[dict[str, Any]]]:
        groups: list[list[dict[str, Any]]] = []
        run: list[dict[str, Any]] = []
        run_levels: list[int] = []

        def flush() -> None:
            if not run:
                return
            target = _target(run_levels, self.params.hierarchy)
            if target is None:
                groups.append(list(run))
            else:
                paths = _tree_paths(run_levels, target, bool(self.params.include_heading_content))
                groups.extend([run[i] for i in path] for path in paths)
            run.clear()
            run_levels.clear()

        for rec, level in zip(records, levels, strict=True):
            if rec["kind"] == "text":
                run.append(rec)
                run_levels.append(level)
                continue
            flush()
            groups.append([rec])
        flush()
        return groups

    def _group(
        self, records: list[dict[str, Any]], levels: list[int], most: int | None
    ) -> list[list[dict[str, Any]]]:
        h = self.params.hierarchy
        target = _target(levels, h) if h and int(h) > 0 else most
        cap = self.params.chunk_token_cap
        groups: list[list[dict[str, Any]]] = []
        sid, total, last_sid = 0, 0, -2
        counted = iter(
            _kernels.count_many(
                [r["text"] for r in records if r["kind"] == "text" and r["text"].strip()]
            )
        )
        for i, (rec, level) in enumerate(zip(records, levels, strict=True)):
            if target is not None and level <= target and i > 0:
                sid += 1
            if rec["kind"] != "text":
                groups.append([rec])
                total, last_sid = 0, -2
                continue
            if not rec["text"].strip():
                continue
            n = next(counted)
            join = (
                groups
                and groups[-1][0]["kind"] == "text"
                and (total < MIN_GROUP_TOKENS or ((cap is None or total < cap) and sid == last_sid))
            )
            if join:
                groups[-1].append(rec)
                total += n
            else:
                groups.append([rec])
                total = n
            last_sid = sid
        return groups

    @staticmethod
    def _materialise(groups: list[list[dict[str, Any]]], text_format: bool) -> list[dict[str, Any]]:
        chunks: list[dict[str, Any]] = []
        for records in groups:
            if not records:
                continue
            joined = "".join(r["text"] + "\n" for r in records)
            if text_format:
                chunks.append({"text": joined, "kind": "text"})
            elif records[0]["kind"] == "text":
                chunks.append(
                    {
                        "text": remove_tag(joined),
                        "doc_type_kwd": "text",
                        "positions": merge_pdf_positions([r["positions"] for r in records]),
                    }
                )
            else:
                first = records[0]
                chunks.append(
                    {
                        "text": first["text"],
                        "doc_type_kwd": first["kind"],
                        "img_id": first["img_id"],
                        "positions": first["positions"],
                    }
                )
        return chunks

    @staticmethod
    def _cap(chunks: list[dict[str, Any]], cap: int) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for c in chunks:
            if c.get("doc_type_kwd", "text") != "text":
                out.append(c)
                continue
            for k, piece in enumerate(_kernels.cap_split(c["text"], cap)):
                d = {**c, "text": piece}
                if k and "positions" in d:
                    d["positions"] = []
                out.append(d)
        return out


def title_chunker(params: Mapping[str, Any] | None, upstream: Mapping[str, Any]) -> dict[str, Any]:
    """Run RAGFlow v0.27's ``TitleChunker`` once: check ``params``, invoke on ``upstream``.

    >>> out = title_chunker(
    ...     {"method": "group", "levels": [["^#[^#]"]], "chunk_token_cap": 0},
    ...     {"name": "a.txt", "output_format": "text", "text": "# A\\n text \\n# B\\nmore"})
    >>> out["chunks"]
    [{'text': '# A\\ntext\\n# B\\nmore\\n'}]
    """
    return TitleChunker(params).invoke(upstream)
