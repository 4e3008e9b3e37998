"""RAGFlow v0.27's ``TokenChunker`` pipeline component, output for output."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Mapping
from typing import Any

from ..merge import naive_merge, naive_merge_offsets
from ..positions import remove_tag
from . import _kernels
from ._params import Component, TokenParams, normalize_overlapped_percent
from ._pdf import Box, extract_pdf_positions, position_fields_of
from ._upstream import UpstreamError, validate_upstream

__all__ = ["TokenChunker", "token_chunker"]

_TEXT_FORMATS = ("markdown", "text", "html")
_BACKTICK = re.compile(r"`([^`]+)`")


def _backtick_tokens(delimiters: tuple[str, ...]) -> list[str]:
    found = _BACKTICK.findall("".join(delimiters))
    return sorted(set(found), key=len, reverse=True)


def _literal_tokens(delimiters: tuple[str, ...]) -> list[str]:
    return sorted(set(delimiters), key=len, reverse=True)


def _item_text(item: Mapping[str, Any]) -> str:
    text = item.get("text")
    if not isinstance(text, str):
        text = item.get("content_with_weight")
    return text if isinstance(text, str) else ""


def _untag(text: str) -> str:
    """``remove_tag`` of a str, which leaves text without ``@@`` as it is."""
    return remove_tag(text) if "@@" in text else text


def _drop_newline(text: str) -> str:
    return text[1:] if text.startswith("\n") else text


class _Chunk:
    """A working chunk of the JSON path."""

    __slots__ = ("above", "below", "img_id", "kind", "mom", "positions", "text", "tokens")

    def __init__(self, kind: str, text: str, positions: list[Box], tokens: int) -> None:
        self.kind = kind
        self.text = text
        self.positions = positions
        self.tokens = tokens
        self.img_id: Any = None
        self.mom: str | None = None
        self.above = ""
        self.below = ""

    def copy(self) -> _Chunk:
        c = _Chunk(self.kind, self.text, list(self.positions), self.tokens)
        c.img_id, c.mom, c.above, c.below = self.img_id, self.mom, self.above, self.below
        return c


class TokenChunker(Component):
    """RAGFlow v0.27's ``TokenChunker`` component: parameters checked once, many documents.

    ``params`` is the component's parameter dict exactly as a pipeline DSL carries it
    (``components.<id>.obj.params``); absent keys take RAGFlow's defaults. :meth:`invoke`
    takes the upstream outputs (the keyword arguments of RAGFlow's ``_invoke``) and returns
    the outputs dict the component sets: ``{"output_format": "chunks", "chunks": [...]}``,
    or ``{"_ERROR": "Input error: ..."}`` for an upstream payload that does not fit.

    Beyond RAGFlow (all off by default, so the default output is RAGFlow's byte for byte):

    * ``max_tokens``: a hard token cap; a chunk over it is cut at sentence boundaries, then
      at token boundaries, so no chunk exceeds it.
    * ``offsets=True``: chunks of a text payload get ``"start"`` / ``"end"``, code-point
      offsets into the upstream text: exactly the chunk's text where it occurs verbatim,
      else the span it was cut from (``naive_merge`` drops the delimiters inside the span;
      a child of such a chunk gets the range of its stripped text). The ``naive_merge``
      path needs numpy.
    * ``single_page_normalisation=True``: the indexed positions come from one page
      normalisation instead of RAGFlow's two (so a page ``-2`` stays ``-1``, not ``0``).

    Raises:
        ValueError: a parameter ``check()`` rejects (RAGFlow's message, naming it).

    >>> chunker = TokenChunker({"chunk_token_size": 16, "delimiters": ["`。`"]})
    >>> chunker.invoke({"name": "a.md", "output_format": "markdown", "markdown": "一。二。"})
    {'output_format': 'chunks', 'chunks': [{'text': '一'}, {'text': '二'}]}
    """

    def __init__(
        self,
        params: Mapping[str, Any] | None = None,
        *,
        max_tokens: int | None = None,
        offsets: bool = False,
        single_page_normalisation: bool = False,
    ) -> None:
        self.params = TokenParams.from_dict(params)
        if max_tokens is not None and (
            isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens <= 0
        ):
            raise ValueError(f"max_tokens must be a positive int or None, got {max_tokens!r}")
        self.max_tokens = max_tokens
        self.offsets = bool(offsets)
        self.single_page_normalisation = bool(single_page_normalisation)
        self._tokens = _backtick_tokens(self.params.delimiters)
        self._children = _literal_tokens(self.params.children_delimiters)
        self._percent = normalize_overlapped_percent(self.params.overlapped_percent)

    def __repr__(self) -> str:
        return f"TokenChunker({self.params!r})"

    def _key(self) -> tuple[object, ...]:
        return (self.params, self.max_tokens, self.offsets, self.single_page_normalisation)

    # ------------------------------------------------------------------------------------

    def invoke(self, upstream: Mapping[str, Any]) -> dict[str, Any]:
        """The outputs RAGFlow's component sets for one upstream payload.

        Raises:
            IndexError, ValueError, OverflowError: where RAGFlow's ``_invoke`` raises
                (an empty page list, a malformed position tag, an infinite coordinate).

        >>> TokenChunker().invoke({"name": "a.txt", "output_format": "text", "text": " "})
        {'output_format': 'chunks', 'chunks': []}
        """
        try:
            up = validate_upstream(upstream, "TokenChunkerFromUpstream")
        except UpstreamError as e:
            return {"_ERROR": f"Input error: {e}"}
        if up.output_format in _TEXT_FORMATS:
            payload = getattr(up, f"{up.output_format}_result") or ""
            chunks = self._text(payload)
        else:
            items = (up.chunks if up.output_format == "chunks" else up.json_result) or []
            chunks = self._json(items)
        return {"output_format": "chunks", "chunks": chunks}

    # ------------------------------------------------------------------------------------

    def _text(self, payload: str) -> list[dict[str, Any]]:
        p = self.params
        if p.delimiter_mode == "one":
            if not payload.strip():
                return []
            doc: dict[str, Any] = {"text": remove_tag(payload)}
            if self.offsets:
                doc["start"], doc["end"] = 0, len(payload)
            return [doc]
        # Each chunk with the code-point span of the upstream text it was cut from.
        cks: list[tuple[str, int, int]]
        if self._tokens:
            cks = _kernels.split_on_tokens(payload, self._tokens)
        else:
            merged = naive_merge(payload, p.chunk_token_size, "".join(p.delimiters), self._percent)
            spans = self._merge_spans(payload, len(merged)) if self.offsets else None
            cks = [(c, *(spans[i] if spans else (0, 0))) for i, c in enumerate(merged)]
        docs: list[dict[str, Any]] = []
        if self._children:
            for c, start, end in cks:
                if not c.strip():
                    continue
                mom = _drop_newline(c)
                verbatim = payload[start:end] == c
                for text, a, b in _kernels.split_on_tokens(c, self._children):
                    if text.strip():
                        d: dict[str, Any] = {"text": text, "mom": mom}
                        if self.offsets:
                            d["start"], d["end"] = (
                                (start + a, start + b)
                                if verbatim
                                else _find(payload, text.strip(), start)
                            )
                        docs.append(d)
        else:
            for c, start, end in cks:
                text = c.strip()
                if not text:
                    continue
                d = {"text": text}
                if self.offsets:
                    at = payload.find(text, start, max(end, start + len(text)))
                    d["start"], d["end"] = (at, at + len(text)) if at >= 0 else (start, end)
                docs.append(d)
        if self.max_tokens is not None:
            docs = self._cap_text(docs, payload)
        return docs

    def _merge_spans(self, payload: str, n: int) -> list[tuple[int, int]]:
        p = self.params
        starts, ends = naive_merge_offsets(
            payload, p.chunk_token_size, "".join(p.delimiters), self._percent
        )
        spans = list(zip(starts.tolist(), ends.tolist(), strict=True))
        return spans if len(spans) == n else [(0, 0)] * n

    def _cap_text(self, docs: list[dict[str, Any]], payload: str) -> list[dict[str, Any]]:
        assert self.max_tokens is not None
        out: list[dict[str, Any]] = []
        for d in docs:
            pieces = _kernels.cap_split(d["text"], self.max_tokens)
            if len(pieces) == 1:
                out.append(d)
                continue
            verbatim = "start" in d and payload[d["start"] : d["end"]] == d["text"]
            offset = d.get("start", 0)
            for piece in pieces:
                e = {**d, "text": piece}
                if "start" in d:
                    if verbatim:
                        e["start"], e["end"] = offset, offset + len(piece)
                    else:
                        e["start"], e["end"] = d["start"], d["end"]
                offset += len(piece)
                out.append(e)
        return out

    # ------------------------------------------------------------------------------------

    def _json(self, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        p = self.params
        if p.delimiter_mode == "one":
            sections = [
                remove_tag(t)
                for t in (
                    it.get("text")
                    if isinstance(it.get("text"), str)
                    else it.get("content_with_weight")
                    for it in items
                )
                if isinstance(t, str) and t.strip()
            ]
            merged = "\n".join(sections)
            return [{"text": merged}] if merged.strip() else []

        work: list[_Chunk] = []
        for item in items:
            kind = str(item.get("doc_type_kwd") or "").strip().lower()
            text = _item_text(item)
            positions = extract_pdf_positions(item)
            if kind not in ("table", "image"):
                if not text.strip():
                    continue
                work.append(_Chunk("text", text, positions, 0))
                continue
            c = _Chunk(kind, text, positions, 0)
            c.img_id = item.get("img_id")
            work.append(c)
        for c, n in zip(work, _kernels.count_many([c.text for c in work]), strict=True):
            c.tokens = n

        if self._tokens:
            chunks = self._split_runs(work)
            if self._children:
                chunks = self._split_children(chunks)
            self._attach_context(chunks)
        else:
            self._attach_context(work)
            chunks = self._merge(work)
            if self._children:
                chunks = self._split_children(chunks)
        return self._finalize(chunks)

    def _split_runs(self, work: list[_Chunk]) -> list[_Chunk]:
        out: list[_Chunk] = []
        run: list[_Chunk] = []

        def flush() -> None:
            if not run:
                return
            # Item k covers [starts[k], ends[k]) of the joined text; both strictly increase
            # (items are non-empty and joined by "\n"), so the items a piece overlaps are a
            # contiguous run from the first one ending after the piece's start.
            starts: list[int] = []
            ends: list[int] = []
            offset = 0
            for c in run:
                starts.append(offset)
                offset += len(c.text)
                ends.append(offset)
                offset += 1
            combined = "\n".join(c.text for c in run)
            pieces: list[_Chunk] = []
            for text, start, end in _kernels.split_on_tokens(combined, self._tokens):
                if not text.strip():
                    continue
                positions: list[Box] = []
                k = bisect_right(ends, start)
                while k < len(run) and starts[k] < end:
                    positions.extend(run[k].positions)
                    k += 1
                pieces.append(_Chunk("text", text, positions, 0))
            for piece, n in zip(pieces, _kernels.count_many([c.text for c in pieces]), strict=True):
                piece.tokens = n
            out.extend(pieces)
            run.clear()

        for c in work:
            if c.kind == "text":
                run.append(c)
            else:
                flush()
                out.append(c)
        flush()
        return out

    def _merge(self, work: list[_Chunk]) -> list[_Chunk]:
        size = self.params.chunk_token_size
        out: list[_Chunk] = []
        run: list[_Chunk] = []

        def flush() -> None:
            if not run:
                return
            texts = [c.text for c in run]
            counts = [c.tokens for c in run]
            for text, sources in _kernels.merge_run(texts, counts, size, self._percent):
                positions: list[Box] = []
                for i in sources:
                    positions.extend(run[i].positions)
                out.append(_Chunk("text", text, positions, 0))
            run.clear()

        for c in work:
            if c.kind == "text":
                run.append(c)
            else:
                flush()
                out.append(c.copy())
        flush()
        return out

    def _split_children(self, chunks: list[_Chunk]) -> list[_Chunk]:
        out: list[_Chunk] = []
        for c in chunks:
            if c.kind != "text":
                out.append(c)
                continue
            mom = _drop_newline(c.text)
            for text, _, _ in _kernels.split_on_tokens(c.text, self._children):
                # RAGFlow's quirk: its JSON children split drops a piece that is blank once
                # its position tags are removed (a chunk that starts with a tag followed by
                # a children delimiter gives no empty child), although the final check of
                # other chunks looks at the text with its tags.
                if not _untag(text).strip():
                    continue
                # The children share their parent's boxes (read-only from here on), so
                # _finalize converts them once.
                child = _Chunk(c.kind, text, c.positions, c.tokens)
                child.img_id, child.mom, child.above, child.below = c.img_id, mom, c.above, c.below
                out.append(child)
        return out

    def _attach_context(self, chunks: list[_Chunk]) -> None:
        p = self.params
        for i, c in enumerate(chunks):
            if c.kind not in ("table", "image"):
                continue
            budget = p.image_context_size if c.kind == "image" else p.table_context_size
            if budget <= 0:
                continue
            above: list[str] = []
            remain = budget
            j = i - 1
            while j >= 0 and remain > 0:
                n = chunks[j]
                if n.kind == "text":
                    if n.tokens >= remain:
                        above.insert(0, _kernels.take_sentences(n.text, remain, True))
                        break
                    above.insert(0, n.text)
                    remain -= n.tokens
                j -= 1
            below: list[str] = []
            remain = budget
            j = i + 1
            while j < len(chunks) and remain > 0:
                n = chunks[j]
                if n.kind == "text":
                    if n.tokens >= remain:
                        below.append(_kernels.take_sentences(n.text, remain, False))
                        break
                    below.append(n.text)
                    remain -= n.tokens
                j += 1
            c.above = "".join(above)
            c.below = "".join(below)

    def _finalize(self, chunks: list[_Chunk]) -> list[dict[str, Any]]:
        docs: list[dict[str, Any]] = []
        normalise = not self.single_page_normalisation
        # Indexed fields per boxes list (children share their parent's list); each chunk gets
        # lists of its own.
        fields_of: dict[int, dict[str, list[Any]] | None] = {}
        for c in chunks:
            raw = c.above + c.text + c.below
            if not raw.strip():
                continue
            pieces = [_untag(raw)]
            if self.max_tokens is not None and c.kind == "text":
                pieces = _flow_cap(pieces[0], self.max_tokens)
            for k, text in enumerate(pieces):
                doc: dict[str, Any] = {"text": text, "doc_type_kwd": c.kind}
                if c.positions and k == 0:
                    key = id(c.positions)
                    if key in fields_of:
                        fields = fields_of[key]
                    else:
                        fields = fields_of[key] = position_fields_of(c.positions, normalise)
                    if fields is not None:
                        for name, values in fields.items():
                            doc[name] = list(values)
                if c.mom:
                    doc["mom"] = c.mom
                if c.img_id:
                    doc["img_id"] = c.img_id
                docs.append(doc)
        return docs


def _flow_cap(text: str, cap: int) -> list[str]:
    return _kernels.cap_split(text, cap)


def _find(payload: str, text: str, start: int) -> tuple[int, int]:
    at = payload.find(text, start)
    return (at, at + len(text)) if at >= 0 else (start, start)


def token_chunker(params: Mapping[str, Any] | None, upstream: Mapping[str, Any]) -> dict[str, Any]:
    """Run RAGFlow v0.27's ``TokenChunker`` once: check ``params``, invoke on ``upstream``.

    Returns the outputs dict the component sets. Raises where RAGFlow's ``check()`` or
    ``_invoke`` raises, with the same exception class.

    >>> out = token_chunker(
    ...     {"chunk_token_size": 128},
    ...     {"name": "a.pdf", "output_format": "json", "json": [
    ...         {"text": "Hello.", "page_number": 1, "x0": 1, "x1": 9, "top": 2, "bottom": 4},
    ...         {"text": "World.", "page_number": 1, "x0": 1, "x1": 9, "top": 5, "bottom": 7}]})
    >>> out["chunks"][0]["text"], out["chunks"][0]["position_int"]
    ('Hello.\\nWorld.', [(1, 1, 9, 2, 4), (1, 1, 9, 5, 7)])
    """
    return TokenChunker(params).invoke(upstream)
