"""What the PDF layout reads of a page, through PDFium (``pypdfium2``'s raw bindings): the twin
of ``rust/documents/pdfium.rs``.

A page's content is two lists, the input of the layout analysis (:mod:`.layout`; the Rust
twin reads the same values from the same PDFium functions without Python):

* characters in PDFium's text order, each ``(char, x0, top, x1, bottom, size, flags)``:
  the character (ligatures and presentation forms as PDFium reports them; U+FFFE, PDFium's
  report of a hyphen ending a line, as is), its box in points from the page's top-left corner
  (zeros for a generated character), the font size, and :data:`GENERATED` (a space or line
  break PDFium inferred), :data:`BREAK` (a line break), :data:`BOLD`, :data:`MONO` (a
  fixed-pitch font) bits;
* graphic objects (paths, images, shadings), forms read through, each
  ``(kind, x0, top, x1, bottom, flags)``: :data:`PATH`, :data:`IMAGE` or :data:`SHADING`,
  its bounds on the page, and :data:`FILL`, :data:`STROKE`, :data:`STRAIGHT` (a path of
  axis-aligned straight segments only: a rule or a rectangle) bits.

Both are in the page's own frame (its user space, before ``/Rotate``). Text drawn turned on the
page (a landscape table set sideways, a page whose content stream turns everything and whose
``/Rotate`` turns it back) is laid out where it reads upright: :func:`text_quarter` gives the
turn of most of the page's characters, :func:`turn` the content in the frame that undoes it,
and :func:`turn_box` maps a box between frames (the layout's boxes into the page as displayed).
"""

from __future__ import annotations

import ctypes
import math
from typing import Any

__all__ = [
    "BOLD",
    "BREAK",
    "FILL",
    "FUNCTIONS",
    "GENERATED",
    "IMAGE",
    "MONO",
    "PATH",
    "SHADING",
    "STRAIGHT",
    "STROKE",
    "Char",
    "Graphic",
    "font_flags",
    "function_table",
    "page_content",
    "text_quarter",
    "turn",
    "turn_box",
]

GENERATED, BREAK, BOLD, MONO = 1, 2, 4, 8
PATH, IMAGE, SHADING = 2, 3, 4
FILL, STROKE, STRAIGHT = 1, 2, 4
_TEXT, _FORM = 1, 5
# Nested forms deeper than this are not read (a form may draw itself through another).
_MAX_DEPTH = 8

Char = tuple[str, float, float, float, float, float, int]
Graphic = tuple[int, float, float, float, float, int]
_Matrix = tuple[float, float, float, float, float, float]

# The PDFium functions the compiled layout calls, in the order of the address table it is
# given (:func:`function_table`): the library pypdfium2 loaded, called in place.
FUNCTIONS = (
    "FPDFText_CountChars",
    "FPDFText_GetUnicode",
    "FPDFText_IsGenerated",
    "FPDFText_GetCharBox",
    "FPDFText_GetTextObject",
    "FPDFText_GetFontSize",
    "FPDFTextObj_GetFont",
    "FPDFFont_GetBaseFontName",
    "FPDFFont_GetFlags",
    "FPDFFont_GetWeight",
    "FPDFPage_CountObjects",
    "FPDFPage_GetObject",
    "FPDFPageObj_GetType",
    "FPDFPageObj_GetBounds",
    "FPDFPageObj_GetMatrix",
    "FPDFFormObj_CountObjects",
    "FPDFFormObj_GetObject",
    "FPDFPath_GetDrawMode",
    "FPDFPath_CountSegments",
    "FPDFPath_GetPathSegment",
    "FPDFPathSegment_GetType",
    "FPDFPathSegment_GetPoint",
    "FPDFText_GetCharAngle",
)


def function_table(raw: Any) -> list[int]:
    """The addresses of :data:`FUNCTIONS` in the PDFium library ``raw`` (pypdfium2.raw) loaded."""
    out = []
    for name in FUNCTIONS:
        address = ctypes.cast(getattr(raw, name), ctypes.c_void_p).value
        if not address:
            raise ImportError(f"the PDFium library pypdfium2 loaded has no {name}")
        out.append(address)
    return out


def font_flags(name: str, flags: int, weight: int) -> int:
    """:data:`BOLD` and :data:`MONO` bits from a font's base name, PDF flags and weight.

    >>> font_flags("Helvetica-Bold", 0, -1) == BOLD
    True
    >>> font_flags("ABCDEF+DejaVuSansMono", 0, 400) == MONO
    True
    """
    low = name.lower()
    out = 0
    if "bold" in low or "black" in low or "heavy" in low or flags & 0x40000 or weight >= 600:
        out |= BOLD
    if flags & 1 or "courier" in low or "mono" in low or "consol" in low:
        out |= MONO
    return out


def _font(raw: Any, obj: Any) -> int:
    font = raw.FPDFTextObj_GetFont(obj)
    if not font:
        return 0
    n = raw.FPDFFont_GetBaseFontName(font, None, 0)
    name = ""
    if n > 0:
        buf = ctypes.create_string_buffer(n)
        raw.FPDFFont_GetBaseFontName(font, buf, n)
        name = buf.value.decode("utf-8", "replace")
    return font_flags(name, raw.FPDFFont_GetFlags(font), raw.FPDFFont_GetWeight(font))


def _chars(raw: Any, tp: Any, height: float) -> list[Char]:
    out: list[Char] = []
    fonts: dict[int, int] = {}
    left, bottom, right, top = (ctypes.c_double() for _ in range(4))
    refs = (ctypes.byref(left), ctypes.byref(right), ctypes.byref(bottom), ctypes.byref(top))
    for i in range(raw.FPDFText_CountChars(tp)):
        code = raw.FPDFText_GetUnicode(tp, i) or 32
        # A code point that is not a Unicode scalar value becomes U+FFFD: chr() refuses one
        # above U+10FFFF, and a lone surrogate makes a str that cannot be encoded (nor cross
        # into the Rust twin, which maps both the same way).
        if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
            code = 0xFFFD
        ch = chr(code)
        if ch in "\r\n":
            out.append((ch, 0.0, 0.0, 0.0, 0.0, 0.0, BREAK | GENERATED))
            continue
        if raw.FPDFText_IsGenerated(tp, i):
            out.append((ch, 0.0, 0.0, 0.0, 0.0, 0.0, GENERATED))
            continue
        raw.FPDFText_GetCharBox(tp, i, *refs)
        obj = raw.FPDFText_GetTextObject(tp, i)
        key = ctypes.cast(obj, ctypes.c_void_p).value or 0
        flags = fonts.get(key)
        if flags is None:
            flags = fonts[key] = _font(raw, obj) if key else 0
        size = raw.FPDFText_GetFontSize(tp, i)
        out.append(
            (ch, left.value, height - top.value, right.value, height - bottom.value, size, flags)
        )
    return out


def text_quarter(raw: Any, tp: Any) -> int:
    """The quarter turns (counterclockwise, 0 to 3) by which most of the page's characters
    are drawn turned (PDFium's ``FPDFText_GetCharAngle``, which is clockwise, each rounded to
    the nearest quarter; generated characters and failures aside; on a tie the least turn)."""
    votes = [0, 0, 0, 0]
    for i in range(raw.FPDFText_CountChars(tp)):
        if raw.FPDFText_IsGenerated(tp, i):
            continue
        angle = raw.FPDFText_GetCharAngle(tp, i)
        if angle >= 0 and math.isfinite(angle):
            q = math.floor(angle / (math.pi / 2) + 0.5)
            # PDFium measures the angle clockwise (as the page is seen, y down).
            if abs(q) < 1e15:  # an angle too large to be a turn is not counted
                votes[-q % 4] += 1
    return max(range(4), key=lambda k: (votes[k], -k))


def turn_box(
    x0: float, top: float, x1: float, bottom: float, quarter: int, width: float, height: float
) -> tuple[float, float, float, float]:
    """A box ``(x0, top, x1, bottom)`` of a ``width`` x ``height`` frame, in the frame turned
    clockwise by ``quarter`` quarter turns (its size then ``height`` x ``width`` when odd).

    >>> turn_box(10.0, 20.0, 30.0, 40.0, 1, 100.0, 200.0)
    (160.0, 10.0, 180.0, 30.0)
    >>> turn_box(10.0, 20.0, 30.0, 40.0, 2, 100.0, 200.0)
    (70.0, 160.0, 90.0, 180.0)
    """
    q = quarter % 4
    if q == 1:
        return height - bottom, x0, height - top, x1
    if q == 2:
        return width - x1, height - bottom, width - x0, height - top
    if q == 3:
        return top, width - x1, bottom, width - x0
    return x0, top, x1, bottom


def turn(
    chars: list[Char], graphics: list[Graphic], quarter: int, width: float, height: float
) -> tuple[list[Char], list[Graphic]]:
    """The content of a ``width`` x ``height`` page (:func:`page_content`) turned clockwise by
    ``quarter`` quarter turns: text drawn turned counterclockwise by as many reads upright.
    A generated character keeps its zero box."""
    if quarter % 4 == 0:
        return chars, graphics
    out = []
    for c in chars:
        if c[6] & GENERATED:
            out.append(c)
        else:
            out.append(
                (c[0], *turn_box(c[1], c[2], c[3], c[4], quarter, width, height), c[5], c[6])
            )
    return out, [
        (g[0], *turn_box(g[1], g[2], g[3], g[4], quarter, width, height), g[5]) for g in graphics
    ]


def _apply(m: _Matrix, x: float, y: float) -> tuple[float, float]:
    a, b, c, d, e, f = m
    return a * x + c * y + e, b * x + d * y + f


def _compose(inner: _Matrix, outer: _Matrix) -> _Matrix:
    a, b, c, d, e, f = inner
    x = _apply(outer, e, f)
    return (
        a * outer[0] + b * outer[2],
        a * outer[1] + b * outer[3],
        c * outer[0] + d * outer[2],
        c * outer[1] + d * outer[3],
        x[0],
        x[1],
    )


def _straight(raw: Any, obj: Any) -> bool:
    """Whether a path is made of axis-aligned straight segments only (rules and rectangles)."""
    n = raw.FPDFPath_CountSegments(obj)
    if n <= 0:
        return False
    x, y = ctypes.c_float(), ctypes.c_float()
    px = py = 0.0
    for i in range(n):
        seg = raw.FPDFPath_GetPathSegment(obj, i)
        kind = raw.FPDFPathSegment_GetType(seg)
        if kind not in (0, 2):  # LINETO, MOVETO; a Bezier curve is not straight
            return False
        raw.FPDFPathSegment_GetPoint(seg, ctypes.byref(x), ctypes.byref(y))
        if kind == 0 and abs(x.value - px) > 0.01 and abs(y.value - py) > 0.01:
            return False
        px, py = x.value, y.value
    return True


def _graphics(
    raw: Any, objs: list[Any], height: float, outer: _Matrix | None, depth: int, out: list[Graphic]
) -> None:
    m = raw.FS_MATRIX()
    b = [ctypes.c_float() for _ in range(4)]
    for obj in objs:
        kind = raw.FPDFPageObj_GetType(obj)
        if kind == _FORM:
            if depth < _MAX_DEPTH and raw.FPDFPageObj_GetMatrix(obj, ctypes.byref(m)):
                own = (m.a, m.b, m.c, m.d, m.e, m.f)
                inner = own if outer is None else _compose(own, outer)
                kids = [
                    raw.FPDFFormObj_GetObject(obj, i)
                    for i in range(raw.FPDFFormObj_CountObjects(obj))
                ]
                _graphics(raw, kids, height, inner, depth + 1, out)
            continue
        if kind not in (PATH, IMAGE, SHADING):
            continue
        if not raw.FPDFPageObj_GetBounds(obj, *(ctypes.byref(v) for v in b)):
            continue
        x0, y0, x1, y1 = (v.value for v in b)
        if outer is not None:
            corners = [_apply(outer, x, y) for x in (x0, x1) for y in (y0, y1)]
            x0, x1 = min(c[0] for c in corners), max(c[0] for c in corners)
            y0, y1 = min(c[1] for c in corners), max(c[1] for c in corners)
        flags = 0
        if kind == PATH:
            fill, stroke = ctypes.c_int(), ctypes.c_int()
            if raw.FPDFPath_GetDrawMode(obj, ctypes.byref(fill), ctypes.byref(stroke)):
                flags |= (FILL if fill.value else 0) | (STROKE if stroke.value else 0)
            if _straight(raw, obj):
                flags |= STRAIGHT
        out.append((kind, float(x0), height - float(y1), float(x1), height - float(y0), flags))


def page_content(
    raw: Any, page: Any, textpage: Any, height: float
) -> tuple[list[Char], list[Graphic]]:
    """The characters and graphic objects of one page (raw PDFium handles; see the module)."""
    chars = _chars(raw, textpage, height)
    objs = [raw.FPDFPage_GetObject(page, i) for i in range(raw.FPDFPage_CountObjects(page))]
    graphics: list[Graphic] = []
    _graphics(raw, objs, height, None, 0, graphics)
    return chars, graphics
