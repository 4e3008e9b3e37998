"""Image folding for ``naive_merge_with_images``: RAGFlow's ``concat_img`` and a lazy image.

Pillow is optional. Nothing here imports it until two different images really
have to be stacked (or a :class:`LazyImage` has to be decoded); then a missing
Pillow raises ``ImportError`` naming the ``ragchunk[images]`` extra.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from .optional import load

__all__ = ["LazyImage", "concat_img", "fold_images"]


def _require_pil() -> Any:
    """Import and return ``PIL.Image``, or raise an ImportError that says how to get it."""
    return load("PIL.Image", "stacking images")


def _is_pil_image(obj: object) -> bool:
    # If PIL.Image was never imported, no object can be a PIL image: checking
    # sys.modules keeps Pillow optional for callers that pass no images.
    module = sys.modules.get("PIL.Image")
    return module is not None and isinstance(obj, module.Image)


def _is_lazy_image(obj: object) -> bool:
    """Duck-typed lazy image: ``to_pil()`` on the object and ``merge()`` on its class.

    This matches ragchunk's :class:`LazyImage` and RAGFlow's own ``LazyImage``
    without importing RAGFlow.
    """
    if obj is None or _is_pil_image(obj):
        return False
    return callable(getattr(type(obj), "merge", None)) and callable(getattr(obj, "to_pil", None))


def _as_pil(obj: Any) -> Any:
    """RAGFlow's ``ensure_pil_image(x) or x``: decode lazy images, leave the rest alone."""
    if _is_lazy_image(obj):
        decoded = obj.to_pil()
        return decoded if decoded is not None else obj
    return obj


def concat_img(a: Any, b: Any) -> Any:
    """Fold image ``b`` into image ``a`` the way RAGFlow's ``rag.nlp.concat_img`` does.

    * ``a is b``: ``a``.
    * Both lazy (or one of them None): the non-empty one, else ``None``, else
      ``type(a).merge(a, b)``, which stays lazy.
    * Otherwise lazy images are decoded first; if one side is empty or None the
      other is returned.
    * Two PIL images with equal ``tobytes()`` give ``a``, **even when their sizes
      or modes differ** (RAGFlow QUIRK: a 2x1 and a 1x2 image of one colour count
      as the same image).
    * Otherwise a new ``RGB`` image of ``(max(w1, w2), h1 + h2)`` on black, with
      ``a`` pasted at the top left and ``b`` right below it.

    Only ``a`` and ``b`` are compared: ``a`` is the image built up so far, not
    every earlier input.
    """
    if a is b:
        return a

    if (a is None or _is_lazy_image(a)) and (b is None or _is_lazy_image(b)):
        if a and not b:
            return a
        if not a and b:
            return b
        if not a and not b:
            return None
        return type(a).merge(a, b)

    a = _as_pil(a)
    b = _as_pil(b)
    if a and not b:
        return a
    if not a and b:
        return b
    if not a and not b:
        return None
    if a is b:
        return a

    if _is_pil_image(a) and _is_pil_image(b) and a.tobytes() == b.tobytes():
        return a

    image_module = _require_pil()
    width_a, height_a = a.size
    width_b, height_b = b.size
    canvas = image_module.new("RGB", (max(width_a, width_b), height_a + height_b))
    canvas.paste(a, (0, 0))
    canvas.paste(b, (0, height_a))
    return canvas


class LazyImage:
    """An image kept as encoded bytes (or PIL images) until someone needs pixels.

    Merging two lazy images only concatenates their parts, so folding many
    images into one chunk costs nothing until :meth:`to_pil` stacks them (top
    to bottom, with :func:`concat_img`, as RAGFlow stacks its lazy images).
    :func:`concat_img` keeps lazy images lazy when both sides are lazy.

    Args:
        parts: encoded image files (PNG, JPEG, ... as ``bytes``) and/or PIL
            images. Empty parts are ignored; a lazy image with no parts is falsy.

    >>> both = LazyImage.merge(LazyImage([b"<png bytes>"]), LazyImage([b"<jpeg bytes>"]))
    >>> len(both.parts), bool(LazyImage([b""]))
    (2, False)
    """

    __slots__ = ("_parts", "_pil")

    def __init__(self, parts: Iterable[Any] = ()) -> None:
        self._parts: tuple[Any, ...] = tuple(p for p in parts if not _is_empty_part(p))
        self._pil: Any = None

    @property
    def parts(self) -> tuple[Any, ...]:
        """The encoded blobs and PIL images this lazy image stands for, top to bottom."""
        return self._parts

    def __bool__(self) -> bool:
        return bool(self._parts)

    def __repr__(self) -> str:
        return f"LazyImage({len(self._parts)} part{'s' if len(self._parts) != 1 else ''})"

    @staticmethod
    def merge(a: LazyImage, b: LazyImage) -> LazyImage:
        """A lazy image of ``a``'s parts followed by ``b``'s; nothing is decoded."""
        return LazyImage((*_parts_of(a), *_parts_of(b)))

    def to_pil(self) -> Any:
        """Decode and stack the parts into one PIL image (``None`` when there are none).

        Encoded parts are opened and converted to ``RGB``; parts are folded with
        :func:`concat_img`, so identical neighbours are not stacked twice. The
        result is cached.
        """
        if self._pil is not None or not self._parts:
            return self._pil
        image_module = _require_pil()
        result: Any = None
        for part in self._parts:
            if isinstance(part, (bytes, bytearray, memoryview)):
                part = image_module.open(io.BytesIO(bytes(part))).convert("RGB")
            result = part if result is None else concat_img(result, part)
        self._pil = result
        return result


def _is_empty_part(part: Any) -> bool:
    return part is None or (isinstance(part, (bytes, bytearray, memoryview)) and len(part) == 0)


def _parts_of(image: Any) -> tuple[Any, ...]:
    if image is None:
        return ()
    if isinstance(image, LazyImage):
        return image.parts
    # A foreign lazy image (for example RAGFlow's): keep it as one decoded part.
    return (image.to_pil(),)


def _fold(images: list[Any], skip_none: bool) -> Any:
    folded: Any = None
    for image in images:
        if image is None and skip_none:
            continue
        folded = image if folded is None else concat_img(folded, image)
    return folded


def fold_images(images: Sequence[Any], sources: list[list[int]], skip_none: bool) -> list[Any]:
    """Each chunk's image: the images of its paragraphs (``sources[k]`` lists the indexes of
    chunk ``k``'s sections) stacked in order with :func:`concat_img`. RAGFlow v0.27 skips
    ``None`` images (``skip_none``); older releases pass them on.

    >>> fold_images(["a", None], [[0, 1], [1]], skip_none=True)
    ['a', None]
    """
    return [_fold([images[i] for i in chunk_sources], skip_none) for chunk_sources in sources]
