"""A text-cleaning chunker modelled on RAGFlow's older pipeline ``Splitter`` component.

RAGFlow's early ingestion pipeline (``rag/flow/splitter/splitter.py``) took the parser's
output -- Markdown, plain text, HTML, or JSON boxes carrying their page positions and images --
and cut it with ``naive_merge``. :class:`SplitterComponent` is that step as a plain object:
configure it once, call :meth:`SplitterComponent.invoke` on each parsed document. Its chunks are
cleaned dicts (``content``, ``token_count``, parsed ``positions`` ...), **not** the output of
RAGFlow v0.27's ``TokenChunker`` component: for that, byte for byte, use
:class:`ragchunk.ragflow.pipeline.TokenChunker`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

from ...core.images import fold_images
from ...core.tokenizers import ResolvedTokenizer
from ..association import _position, _position_tag
from ..merge import DEFAULT_DELIMITER, MergeStrategy, _merge, _prepare
from ..positions import Position, extract_positions, remove_tag
from ..presets import get_preset
from ..tokens import ragflow_counter

__all__ = ["PipelineChunk", "SplitterComponent"]


class PipelineChunk(TypedDict):
    """One chunk from :meth:`SplitterComponent.invoke`; every key is always present.

    * ``content``: the chunk text, position tags removed, surrounding whitespace stripped
      (RAGFlow's ``"text"`` field).
    * ``token_count``: tokens in ``content``, counted with the chunker's tokenizer the way
      RAGFlow's ``num_tokens_from_string`` counts (0 for text holding a special token).
    * ``positions``: the position tags the chunk carried, parsed:
      ``([page indexes], left, right, top, bottom)``, pages 0-based
      (:func:`ragchunk.extract_positions`' shape, what :func:`ragchunk.associate_images`
      takes).
    * ``position_int``, ``page_num_int``, ``top_int``: the same positions as RAGFlow indexes
      them (its ``add_positions``): ``(page number, left, right, top, bottom)`` truncated to
      int with the **1-based** number of the last page, the page numbers, the tops.
    * ``image``: the images of the JSON items merged into the chunk, stacked as RAGFlow's
      ``naive_merge_with_images`` does; ``None`` when they had none (always for text input).
    * ``img_ids``: the distinct ``"img_id"`` values of those JSON items, in order.

    >>> sorted(SplitterComponent().invoke("One line.")[0])
    ['content', 'image', 'img_ids', 'page_num_int', 'position_int', 'positions', 'token_count', \
'top_int']
    """

    content: str
    token_count: int
    positions: list[Position]
    position_int: list[tuple[int, int, int, int, int]]
    page_num_int: list[int]
    top_int: list[int]
    image: Any
    img_ids: list[str]


_TEXT_FORMATS = ("markdown", "text", "html")


def _delimiter_field(value: object) -> str:
    """RAGFlow's delimiter field from ``delimiters``: a str as is, a list as the component
    builds it (one-character entries as they are, longer ones wrapped in backticks)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, Sequence) and not isinstance(value, bytes):
        parts = []
        for i, d in enumerate(value):
            if not isinstance(d, str):
                raise TypeError(f"delimiters[{i}] must be a str, got {type(d).__name__}")
            parts.append(d if len(d) <= 1 else f"`{d}`")
        return "".join(parts)
    raise TypeError(f"delimiters must be a str or a list of str, got {type(value).__name__}")


@dataclass(frozen=True)
class SplitterComponent:
    """RAGFlow's older Splitter step (naive_merge, then cleaning), configured once.

    Args:
        chunk_token_size: the token budget of a chunk (RAGFlow's ``chunk_token_size``), an
            int > 0.
        delimiters: where text may be cut. A str is RAGFlow's delimiter field (every
            character a delimiter, ```` `text` ```` a multi-character one); a list is the
            component's parameter (each entry a delimiter; RAGFlow wraps longer entries in
            backticks, which switches ``naive_merge`` to one chunk per segment).
        overlapped_percent: 0-100, as :func:`ragchunk.naive_merge`. RAGFlow's pipeline UI
            stores a fraction (``0.2``) and converts it to a percent; pass the percent
            (``20``) here.
        strategy, tokenizer, compat: passed to :func:`ragchunk.naive_merge`.

    Raises:
        TypeError, ValueError: a bad argument (the message names it).

    >>> chunker = SplitterComponent(chunk_token_size=64)
    >>> [c["content"] for c in chunker.invoke("第一段。第二段。\\nThird paragraph.")]
    ['第一段\\n第二段\\nThird paragraph.']
    >>> SplitterComponent.from_preset("legal").chunk_token_size
    256
    """

    chunk_token_size: int = 512
    delimiters: str | Sequence[str] = DEFAULT_DELIMITER
    overlapped_percent: int | float = 0
    strategy: MergeStrategy | str = MergeStrategy.OVER_CAP
    tokenizer: Any = "cl100k_base"
    compat: str = "v0.27"
    _config: tuple[float, str, float, str, str, ResolvedTokenizer] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        size = self.chunk_token_size
        if isinstance(size, bool) or not isinstance(size, int):
            raise TypeError(f"chunk_token_size must be an int, got {type(size).__name__}")
        if size <= 0:
            raise ValueError(f"chunk_token_size must be > 0, got {size}")
        delimiter = _delimiter_field(self.delimiters)
        if not isinstance(self.delimiters, str):
            object.__setattr__(self, "delimiters", tuple(self.delimiters))
        config = _prepare(
            size, delimiter, self.overlapped_percent, self.strategy, self.compat, self.tokenizer
        )
        object.__setattr__(self, "_config", config)

    @classmethod
    def from_preset(cls, name: str, **overrides: Any) -> SplitterComponent:
        """A chunker with a preset's budget and overlap (see :mod:`ragchunk.presets`).

        ``overrides`` are constructor arguments that take precedence over the preset.
        Raises ``ValueError`` listing the valid names for an unknown preset.

        >>> c = SplitterComponent.from_preset("book", delimiters="\\n")
        >>> (c.chunk_token_size, c.overlapped_percent, c.delimiters)
        (1024, 5, '\\n')
        """
        preset = get_preset(name)
        kwargs: dict[str, Any] = {
            "chunk_token_size": preset["chunk_token_num"],
            "overlapped_percent": preset["overlapped_percent"],
        }
        kwargs.update(overrides)
        return cls(**kwargs)

    # -----------------------------------------------------------------------------------------

    @property
    def holds_gil(self) -> bool:
        """True: the cleaning step after the merge runs in Python, so a batch of documents
        is chunked in processes rather than threads (``ragchunk chunk --parallel auto``).

        >>> SplitterComponent().holds_gil
        True
        """
        return True

    def invoke(self, content: object) -> list[PipelineChunk]:
        """Cut one parsed document into chunks.

        ``content`` is one of:

        * a str: Markdown, plain text or HTML, cut as one text (as RAGFlow does for all
          three);
        * a list of str: sections, as RAGFlow's HTML output is;
        * a list of dicts: the parser's JSON boxes. Each has ``"text"`` (or
          ``"content_with_weight"``; ``None`` counts as ``""``) and optionally a position,
          an ``"image"`` and an ``"img_id"``. The position is the first of:
          ``"position_tag"`` (RAGFlow's tag string ``"@@page\\tleft\\tright\\ttop\\tbottom##"``),
          ``"positions"`` (a list of ``[page, left, right, top, bottom]``) or ``"position"``
          (one such list, or a tag string). In a list, an int ``page`` is a 1-based page
          number, as RAGFlow's parser writes it; a list of ints is 0-based page indexes, as
          :func:`ragchunk.extract_positions` returns them.
        * a dict shaped like RAGFlow's upstream payload: ``{"output_format": "markdown",
          "markdown": ...}`` (likewise ``"text"``, ``"html"``, ``"json"``; ``"chunks"`` is
          read for JSON too).

        Chunks whose text is blank are dropped (RAGFlow drops them too). All other text is
        kept, except what ``naive_merge`` itself removes: the delimiter characters at which
        it cuts, and the whitespace stripped around each chunk. A box without text has no
        paragraph, so its image and position go nowhere (RAGFlow's behaviour).

        Returns:
            One :class:`PipelineChunk` per chunk, in document order.

        Raises:
            TypeError: ``content`` or one of its items of the wrong type (named with its
                index, as in ``content[3]["text"]``).
            ValueError: an unknown ``output_format``, a malformed position.

        >>> boxes = [
        ...     {"text": "Deep residual learning eases training.",
        ...      "positions": [[1, 72.0, 540.0, 90.0, 130.0]], "img_id": "pg1-box0"},
        ...     {"text": "Figure 1: Training error.",
        ...      "position_tag": "@@2\\t72.0\\t300.0\\t60.0\\t80.0##"},
        ... ]
        >>> chunk = SplitterComponent().invoke(boxes)[0]
        >>> chunk["content"]
        'Deep residual learning eases training.\\nFigure 1: Training error.'
        >>> chunk["positions"]
        [([0], 72.0, 540.0, 90.0, 130.0), ([1], 72.0, 300.0, 60.0, 80.0)]
        >>> chunk["position_int"], chunk["img_ids"], chunk["token_count"]
        ([(1, 72, 540, 90, 130), (2, 72, 300, 60, 80)], ['pg1-box0'], 14)
        """
        payload, is_json = self._payload(content)
        if is_json:
            return self._json(payload)
        texts = [payload] if isinstance(payload, str) else list(payload)
        if not texts or texts == [""]:
            return []
        return self._emit(texts, [""] * len(texts), None, None)

    # -----------------------------------------------------------------------------------------

    def _payload(self, content: object) -> tuple[Any, bool]:
        if isinstance(content, str):
            return content, False
        if isinstance(content, Mapping):
            fmt = content.get("output_format")
            if fmt in _TEXT_FORMATS:
                payload = content.get(fmt, content.get(f"{fmt}_result"))
                if payload is None:
                    return "", False
                where = f'content["{fmt}"]'
                if isinstance(payload, str):
                    return payload, False
                return self._str_list(payload, where), False
            if fmt in ("json", "chunks"):
                items = content.get("json", content.get("json_result", content.get("chunks")))
                return self._items(items if items is not None else [], 'content["json"]'), True
            raise ValueError(
                "content: a dict must carry output_format 'markdown', 'text', 'html', 'json' "
                f"or 'chunks', got {fmt!r}"
            )
        if isinstance(content, (list, tuple)):
            if content and all(isinstance(x, Mapping) for x in content):
                return self._items(content, "content"), True
            return self._str_list(content, "content"), False
        raise TypeError(
            "content must be a str, a list of str, a list of dicts (JSON boxes) or an "
            f"upstream dict, got {type(content).__name__}"
        )

    @staticmethod
    def _str_list(value: object, where: str) -> list[str]:
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"{where} must be a str or a list of str, got {type(value).__name__}")
        for i, x in enumerate(value):
            if not isinstance(x, str):
                raise TypeError(
                    f"{where}[{i}] must be a str (or every item a dict), got {type(x).__name__}"
                )
        return list(value)

    @staticmethod
    def _items(value: object, where: str) -> list[Mapping[str, Any]]:
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"{where} must be a list of dicts, got {type(value).__name__}")
        for i, x in enumerate(value):
            if not isinstance(x, Mapping):
                raise TypeError(f"{where}[{i}] must be a dict, got {type(x).__name__}")
        return list(value)

    def _json(self, items: list[Mapping[str, Any]]) -> list[PipelineChunk]:
        if not items:
            return []
        texts: list[str] = []
        poses: list[str] = []
        images: list[Any] = []
        img_ids: list[str | None] = []
        for i, item in enumerate(items):
            where = f"content[{i}]"
            text = item.get("text")
            if text is None or (not isinstance(text, str) and "content_with_weight" in item):
                text = item.get("content_with_weight")
            if text is None:
                text = ""
            if not isinstance(text, str):
                raise TypeError(f'{where}["text"] must be a str, got {type(text).__name__}')
            texts.append(text)
            poses.append(_item_tag(item, where))
            images.append(item.get("image"))
            img_id = item.get("img_id")
            if img_id is not None and not isinstance(img_id, str):
                raise TypeError(f'{where}["img_id"] must be a str, got {type(img_id).__name__}')
            img_ids.append(img_id or None)
        return self._emit(texts, poses, images, img_ids)

    def _emit(
        self,
        texts: list[str],
        poses: list[str],
        images: list[Any] | None,
        img_ids: list[str | None] | None,
    ) -> list[PipelineChunk]:
        ctn, delim, ovl, strat, comp, tok = self._config
        chunks, sources = _merge(
            texts, list(poses), ctn, delim, ovl, strat, comp, tok, with_sources=True
        )
        assert sources is not None
        folded: list[Any] = [None] * len(chunks)
        if images is not None and any(im is not None for im in images):
            # RAGFlow v0.27 skips None images when folding; older releases pass them on.
            folded = fold_images(images, sources, skip_none=comp == "v0.27")
        count = ragflow_counter(tok)
        out: list[PipelineChunk] = []
        for chunk, src, image in zip(chunks, sources, folded, strict=True):
            content = remove_tag(chunk).strip()
            if not content:
                continue
            positions = extract_positions(chunk)
            position_int = [
                (pages[-1] + 1, int(left), int(right), int(top), int(bottom))
                for pages, left, right, top, bottom in positions
            ]
            ids: list[str] = []
            for s in src:
                ident = img_ids[s] if img_ids is not None else None
                if ident is not None and ident not in ids:
                    ids.append(ident)
            out.append(
                {
                    "content": content,
                    "token_count": count(content),
                    "positions": positions,
                    "position_int": position_int,
                    "page_num_int": [p[0] for p in position_int],
                    "top_int": [p[3] for p in position_int],
                    "image": image,
                    "img_ids": ids,
                }
            )
        return out


def _item_tag(item: Mapping[str, Any], where: str) -> str:
    """The position tag(s) of one JSON box, as the string ``naive_merge`` carries along."""
    tag = item.get("position_tag")
    if tag is not None:
        if not isinstance(tag, str):
            raise TypeError(f'{where}["position_tag"] must be a str, got {type(tag).__name__}')
        return tag
    positions = item.get("positions")
    if positions is not None:
        if not isinstance(positions, (list, tuple)):
            raise TypeError(
                f'{where}["positions"] must be a list of [page, left, right, top, bottom], '
                f"got {type(positions).__name__}"
            )
        parts = []
        for k, p in enumerate(positions):
            label = f'{where}["positions"][{k}]'
            parts.append(_position_tag(_position(p, label, page_numbers=True), label))
        return "".join(parts)
    single = item.get("position")
    if single is None or isinstance(single, str):
        return single or ""
    label = f'{where}["position"]'
    return _position_tag(_position(single, label, page_numbers=True), label)
