"""Image files (PNG, JPEG, TIFF; each frame of a multi-page TIFF one page) read by OCR.

Each frame is a :class:`~ragchunk.documents.Page` without a text layer, its size in points
from the image's resolution (72 dpi when it names none, so a point is then a pixel), and
goes to the ``ocr`` callable; its lines are laid out as a PDF's are (see
:mod:`._pdf`). Without a callable, each frame is one ``figure`` section over the whole
page and is listed in ``metadata["needs_ocr"]``.

Memory stays bounded whatever the file claims: the frame is decoded at a reduced size
where the format allows it (JPEG's DCT scaling, up to 1/8), refused with a
:class:`DocumentError` when even that would take more than :data:`DECODE_LIMIT` bytes, and
downscaled to at most :data:`OCR_SIDE` pixels on its longer side before OCR. Pillow's own
decompression-bomb check (``Image.MAX_IMAGE_PIXELS``, a process-wide setting) is replaced
by that bound, so a large scan is read, not refused, and the setting is never changed.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable, Sequence
from typing import Any

from ..core.optional import load
from ._model import Document, Page
from ._pdf import _Line, _sections, ocr_image_lines
from ._safety import DocumentError

__all__ = ["DECODE_LIMIT", "OCR_SIDE", "parse_image"]

#: The most bytes one decoded frame may take.
DECODE_LIMIT = 512 * 1024 * 1024
#: The longest side, in pixels, of the image given to OCR.
OCR_SIDE = 4000

_BANDS = {"1": 1, "L": 1, "P": 1, "LA": 2, "I;16": 2, "RGB": 3, "YCbCr": 3, "CMYK": 4}


def _open(data: bytes, filename: str | None) -> Any:
    """The image, opened (not decoded) by its format's Pillow plugin directly, so Pillow's
    process-wide pixel limit does not refuse it (:data:`DECODE_LIMIT` bounds it instead)."""
    load("PIL", "reading image files")
    from PIL import JpegImagePlugin, PngImagePlugin, TiffImagePlugin

    if data.startswith(b"\x89PNG"):
        plugin: Any = PngImagePlugin.PngImageFile
    elif data.startswith(b"\xff\xd8"):
        plugin = JpegImagePlugin.JpegImageFile
    elif data[:4] in (b"II*\x00", b"MM\x00*"):
        plugin = TiffImagePlugin.TiffImageFile
    else:
        raise DocumentError(filename, "not a PNG, JPEG or TIFF image")
    try:
        return plugin(io.BytesIO(data))
    except Exception as exc:  # Pillow's errors on a damaged header
        raise DocumentError(
            filename, f"not a readable image ({type(exc).__name__}: {exc})"
        ) from exc


def _frame(im: Any, filename: str | None, number: int) -> Any:
    """The current frame decoded within :data:`DECODE_LIMIT` and downscaled to
    :data:`OCR_SIDE`."""
    w, h = im.size
    factor = max(1, -(-max(w, h) // OCR_SIDE))
    if factor > 1 and im.format == "JPEG":
        # Decoded at 1/2, 1/4 or 1/8 of the size: the full size is never in memory.
        im.draft(im.mode if im.mode in ("L", "RGB") else "RGB", (w // factor, h // factor))
    dw, dh = im.size
    need = dw * dh * _BANDS.get(im.mode, 4)
    if need > DECODE_LIMIT:
        raise DocumentError(
            filename,
            f"refused: the image is {w} x {h} pixels ({im.mode}), {need} bytes decoded, over "
            f"the limit of {DECODE_LIMIT}; save it at a lower resolution or as JPEG",
            page=number,
        )
    try:
        im.load()
        frame = im.convert("L" if im.mode in ("1", "L", "P", "I;16", "I") else "RGB")
    except Exception as exc:  # truncated or corrupt image data
        raise DocumentError(
            filename, f"not a readable image ({type(exc).__name__}: {exc})", page=number
        ) from exc
    step = max(1, -(-max(frame.size) // OCR_SIDE))
    return frame.reduce(step) if step > 1 else frame


def _dpi(im: Any) -> tuple[float, float]:
    dpi = im.info.get("dpi") or (72.0, 72.0)
    try:
        # PNG stores pixels per metre: 144 dpi comes back as 143.9935.
        x, y = round(float(dpi[0]), 1), round(float(dpi[1]), 1)
    except (TypeError, ValueError, IndexError):
        return 72.0, 72.0
    # A resolution under 10 dpi is a placeholder (TIFF writers put 1), not a real one.
    return (x if 10.0 <= x <= 100_000 else 72.0), (y if 10.0 <= y <= 100_000 else 72.0)


def parse_image(
    data: bytes,
    filename: str | None,
    pages: Sequence[int] | None,
    ocr: Callable[[Any, Page], Any] | None,
    ocr_timeout: float | None,
) -> Document:
    """Parse an image file: each frame one page, read by ``ocr`` when it is given."""
    im = _open(data, filename)
    count = int(getattr(im, "n_frames", 1) or 1)
    wanted = list(pages) if pages is not None else list(range(1, count + 1))
    for i, p in enumerate(wanted):
        if p > count:
            raise ValueError(f"pages[{i}] is {p}, but the image has {count} frames")
    page_list: list[Page] = []
    lines: list[list[_Line]] = []
    heights: list[float] = []
    failed: dict[int, str] = {}
    read: list[int] = []
    for number in wanted:
        try:
            im.seek(number - 1)
        except (EOFError, OSError) as exc:
            raise DocumentError(filename, f"unreadable frame ({exc})", page=number) from exc
        dx, dy = _dpi(im)
        width, height = im.size[0] * 72.0 / dx, im.size[1] * 72.0 / dy
        info = Page(number, width, height, has_text_layer=False)
        found: list[_Line] = []
        reason: str | None = None
        if ocr is not None:
            found, reason = ocr_image_lines(ocr, _frame(im, filename, number), info, ocr_timeout)
            if reason is None:
                read.append(number)
            else:
                failed[number] = reason
        else:
            _frame(im, filename, number)  # a corrupt frame is an error with or without OCR
        if ocr is None or reason is not None:
            found = [_Line("", 0.0, 0.0, width, height, 0.0, False, False, number, kind="figure")]
        page_list.append(info)
        lines.append(found)
        heights.append(height)
    meta: dict[str, Any] = {
        "page_count": count,
        "needs_ocr": [n for n in wanted if n not in read],
    }
    if ocr is not None:
        meta["ocr_pages"] = read
        meta["ocr_failed"] = failed
    doc = Document(_sections(lines, heights), page_list, meta, format="image", filename=filename)
    doc._renderer = functools.partial(_render, data, filename)
    return doc


def _render(
    data: bytes,
    filename: str | None,
    number: int,
    bbox: tuple[float, float, float, float] | None,
    scale: float,
) -> Any:
    im = _open(data, filename)
    im.seek(number - 1)
    dx, dy = _dpi(im)
    w, h = im.size
    frame = _frame(im, filename, number)
    # The decoded frame's pixels per point (fewer than the file's when it was downscaled).
    px, py = frame.size[0] * dx / (w * 72.0), frame.size[1] * dy / (h * 72.0)
    if bbox is not None:
        x0, top, x1, bottom = bbox
        frame = frame.crop((round(x0 * px), round(top * py), round(x1 * px), round(bottom * py)))
    size = (max(1, round(frame.size[0] * scale / px)), max(1, round(frame.size[1] * scale / py)))
    return frame.resize(size)
