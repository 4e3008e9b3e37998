"""OCR of pages without a text layer: the default engine, and OCR lines as layout input.

The default engine is RapidOCR (``rapidocr-onnxruntime``, the ``ocr`` extra): PP-OCR's
detection and recognition models in ONNX form, shipped inside its wheel and run by ONNX
Runtime on the CPU; nothing is downloaded. :func:`default_ocr` gives it as an ``ocr``
callable (``ocr(image, page) -> [(text, (x0, top, x1, bottom)), ...]``, boxes in the page's
points) when it is installed, else ``None``.

PP-OCR's recognizer often drops the spaces between Latin words ("Youcan useany"). Its
character positions (the recognizer's output columns) are kept: where the step from one
character's centre to the next, over the two characters' usual widths, is well past the
line's usual step, a space is put back (:func:`restore_spaces`); where it is several
characters wide (a detection box run across a column gutter or table cells) the line is
cut in two. A line's box is the ink's: its height measured across the detection box (not
the upright bounding box, which a skewed scan makes taller for longer lines), less the
margin the detector grows around the glyphs.

:func:`layout_chars` turns OCR lines into the characters the layout analysis reads (the
characters of a line spread over its box, each line ended by a break), so a scan is laid
out as a text layer is: lines, columns, reading order, titles by line height.
:func:`run_ocr` calls an engine on one page and turns a failure or a time-out into a
reason instead of an exception.
"""

from __future__ import annotations

import concurrent.futures
import functools
import itertools
import math
import statistics
import threading
from collections.abc import Callable, Sequence
from typing import Any

from .._pure.documents.pdfium import BREAK, GENERATED, Char
from ..core.optional import available, load

__all__ = ["OcrLine", "default_ocr", "layout_chars", "restore_spaces", "run_ocr"]

#: One OCR line: its text and box ``(x0, top, x1, bottom)`` in the page's points.
OcrLine = tuple[str, tuple[float, float, float, float]]

_ENGINE = "rapidocr_onnxruntime"
# A step between character centres (over their widths) this many times the line's median
# is a space.
_SPACE_STEP = 1.55
# A gap between character centres this many times the median step cuts a line in two.
_CUT = 4.5
_NARROW = frozenset("il.,:;'|!ftjrI()[]")
# PP-OCR's detection boxes are grown around the ink (its "unclip" ratio): the glyphs' band,
# about the font size, is this share of the box's height, around its middle.
_BAND = 0.62
# A page whose grey levels all lie within this range is blank.
_BLANK = 24


def _width(ch: str) -> float:
    """A character's rough advance in a proportional Latin font, in ems."""
    if ch in _NARROW:
        return 0.3
    if ch in "mwMW":
        return 0.9
    return 0.7 if ch.isupper() else 0.55


def restore_spaces(text: str, centres: Sequence[float]) -> str:
    """``text`` with a space put back between two characters whose centres (``centres``: one
    x per character of ``text`` that is not a space) stand further apart than their widths
    explain: the step over the two characters' usual advances (narrow "i", wide "m"), more
    than 1.55 times the line's median of that; spaces already there are kept.

    >>> restore_spaces("Youcanuse", [0, 10, 20, 38, 48, 58, 76, 86, 96])
    'You can use'
    >>> restore_spaces("a b", [0.0, 30.0])
    'a b'
    """
    chars = [c for c in text if c != " "]
    if len(centres) != len(chars) or len(chars) < 3:
        return text
    spaced = set()
    k = 0
    for ch in text:
        if ch == " ":
            spaced.add(k)
        else:
            k += 1
    ratios = [
        (centres[k] - centres[k - 1]) / ((_width(chars[k - 1]) + _width(chars[k])) / 2)
        for k in range(1, len(chars))
    ]
    inside = [r for k, r in enumerate(ratios, 1) if k not in spaced]
    if not inside:
        return text
    usual = statistics.median(inside)
    if usual <= 0:
        return text
    out = [chars[0]]
    for k in range(1, len(chars)):
        if k in spaced or ratios[k - 1] > _SPACE_STEP * usual:
            out.append(" ")
        out.append(chars[k])
    return "".join(out)


class _RapidOcr:
    """The RapidOCR engine as an ``ocr(image, page)`` callable (loaded once, on first use)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._engine: Any = None

    def _load(self) -> Any:
        with self._lock:
            if self._engine is None:
                module = load(_ENGINE, "OCR of scanned pages and images")
                # Scans are upright (a /Rotate is applied when the page is rendered): the
                # 180-degree classifier is not run.
                self._engine = module.RapidOCR(params={"Global.use_cls": False})
            return self._engine

    def __call__(self, image: Any, page: Any) -> list[OcrLine]:
        np = load("numpy", "OCR of scanned pages and images")
        low, high = image.convert("L").getextrema()
        if high - low < _BLANK:
            return []  # a blank page: nothing to read
        engine = self._load()
        result, _ = engine(np.asarray(image.convert("RGB")), return_word_box=True)
        sx = page.width / image.size[0]
        sy = page.height / image.size[1]
        out: list[OcrLine] = []
        for item in result or ():
            out.extend(_lines_of(item, sx, sy))
        return out


def _lines_of(item: Any, sx: float, sy: float) -> list[OcrLine]:
    """One RapidOCR result (its box's four corners, text, score, a box per character) as
    lines in points: spaces put back, and cut in two where the characters leave a gap of
    several spaces (a detection box that runs across a column gutter or table cells)."""
    quad, text = [(float(p[0]), float(p[1])) for p in item[0]], str(item[1])
    xs = [p[0] for p in quad]
    # The height across the box, not of its bounding box: a long line of a skewed scan
    # is no taller than a short one.
    height = (math.dist(quad[0], quad[3]) + math.dist(quad[1], quad[2])) / 2
    middle = sum(p[1] for p in quad) / 4 * sy
    half = height * sy * _BAND / 2
    top, bottom = middle - half, middle + half
    boxes = item[3] if len(item) > 3 else None
    if not boxes or len(boxes) != len(text):
        return [(text, (min(xs) * sx, top, max(xs) * sx, bottom))]
    # One box per character, spaces included (the recognizer's own spaces).
    pairs = [(ch, sum(float(p[0]) for p in b) / len(b)) for ch, b in zip(text, boxes, strict=True)]
    cuts = _cuts([c for _, c in pairs], text)
    out: list[OcrLine] = []
    start = 0
    for end in [*cuts, len(pairs)]:
        piece = pairs[start:end]
        body = "".join(ch for ch, _ in piece).strip()
        if body:
            centres = [c for ch, c in piece if ch != " "]
            # A lone character is about half as wide as the line is high.
            step = _median_step(centres) if len(centres) > 1 else height / 2
            # The ink's extent: the detection box is grown around it on every side.
            x0 = max(min(xs), centres[0] - step / 2)
            x1 = min(max(xs), centres[-1] + step / 2)
            out.append((restore_spaces(body, centres), (x0 * sx, top, x1 * sx, bottom)))
        start = end
    return out


def _median_step(centres: Sequence[float]) -> float:
    steps = [b - a for a, b in itertools.pairwise(centres)]
    return statistics.median(steps) if steps else 0.0


def _cuts(centres: Sequence[float], text: str) -> list[int]:
    """Indexes of ``text`` (one centre per character) where a gap wider than several
    characters starts a new line."""
    ink = [i for i, ch in enumerate(text) if ch != " "]
    step = _median_step([centres[i] for i in ink])
    if step <= 0 or len(ink) < 4:
        return []
    return [b for a, b in itertools.pairwise(ink) if centres[b] - centres[a] > _CUT * step]


@functools.cache
def _rapid() -> _RapidOcr:
    return _RapidOcr()


def default_ocr() -> Callable[[Any, Any], list[OcrLine]] | None:
    """The default ``ocr`` callable: RapidOCR when the ``ocr`` extra is installed, else
    ``None``.

    >>> engine = default_ocr()
    >>> engine is None or callable(engine)
    True
    """
    if not (available(_ENGINE) and available("numpy")):
        return None
    return _rapid()


def layout_chars(lines: Sequence[OcrLine]) -> list[Char]:
    """OCR lines as the characters the layout analysis reads: each line's characters (spaces
    aside) spread evenly over its box (size: the box's height, to half a point), a space as
    a generated character between them, a break after each line. Lines are given left edge
    first, so two lines side by side (two columns) never run into one.

    >>> [c[:2] for c in layout_chars([("a b", (0.0, 0.0, 30.0, 10.0))])][:3]
    [('a', 0.0), (' ', 0.0), ('b', 15.0)]
    """
    out: list[Char] = []
    for text, (x0, top, x1, bottom) in sorted(lines, key=lambda ln: (ln[1][0], ln[1][1])):
        width = (x1 - x0) / max(1, sum(not ch.isspace() for ch in text))
        size = round((bottom - top) * 2) / 2
        i = 0
        for ch in text:
            if ch.isspace():
                out.append((" ", 0.0, 0.0, 0.0, 0.0, 0.0, GENERATED))
            else:
                out.append((ch, x0 + i * width, top, x0 + (i + 1) * width, bottom, size, 0))
                i += 1
        out.append(("\n", 0.0, 0.0, 0.0, 0.0, 0.0, BREAK))
    return out


def run_ocr(
    ocr: Callable[[Any, Any], Any], image: Any, page: Any, timeout: float | None
) -> tuple[Any, str | None]:
    """``ocr(image, page)``, or ``(None, reason)`` when it raises or runs past ``timeout``
    seconds (``None``: no limit). A timed-out call is left to finish in its thread.

    >>> run_ocr(lambda image, page: "text", None, None, 1.0)
    ('text', None)
    >>> run_ocr(lambda image, page: 1 / 0, None, None, None)
    (None, 'ZeroDivisionError: division by zero')
    """
    if timeout is None:
        try:
            return ocr(image, page), None
        except Exception as exc:  # the engine's own failure on this page
            return None, f"{type(exc).__name__}: {exc}"
    pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="ragchunk-ocr")
    try:
        future = pool.submit(ocr, image, page)
        try:
            return future.result(timeout=timeout), None
        except concurrent.futures.TimeoutError:
            return None, f"OCR took longer than {timeout:g} s"
        except Exception as exc:  # the engine's own failure on this page
            return None, f"{type(exc).__name__}: {exc}"
    finally:
        pool.shutdown(wait=False)
