"""Image files as documents: each frame a page read by OCR; bad images fail clearly, huge ones
are read within a bounded memory, a page whose OCR fails is reported and the rest kept."""

from __future__ import annotations

import io
import sys
import threading
import warnings

import pytest
from ragchunk.documents import DocumentError, parse

Image = pytest.importorskip("PIL.Image")


def _png(size: tuple[int, int] = (200, 100), dpi: float | None = None) -> bytes:
    buf = io.BytesIO()
    im = Image.new("L", size, 255)
    im.paste(0, (20, 40, 180, 60))  # some ink
    im.save(buf, "PNG", **({"dpi": (dpi, dpi)} if dpi else {}))
    return buf.getvalue()


def _tiff(frames: int) -> bytes:
    buf = io.BytesIO()
    ims = [Image.new("L", (100, 50 + 10 * i), 255) for i in range(frames)]
    ims[0].save(buf, "TIFF", save_all=True, append_images=ims[1:])
    return buf.getvalue()


def _lines(image, page):  # type: ignore[no-untyped-def]
    return [(f"Frame {page.number} text.", (10.0, 10.0, 90.0, 20.0))]


def test_a_png_is_one_page_read_by_the_ocr_callable() -> None:
    seen = []

    def ocr(image, page):  # type: ignore[no-untyped-def]
        seen.append((image.size, page.number, page.width, page.height))
        return [("Hello world", (10.0, 20.0, 90.0, 30.0))]

    doc = parse(_png(dpi=144), filename="scan.png", ocr=ocr)
    assert doc.format == "image"
    # 200 x 100 pixels at 144 dpi: a page of 100 x 50 points.
    assert seen == [((200, 100), 1, 100.0, 50.0)]
    assert [(s.kind, s.text, s.page, s.bbox, dict(s.metadata)) for s in doc.sections] == [
        ("text", "Hello world", 1, (10.0, 20.0, 90.0, 30.0), {"ocr": True})
    ]
    assert doc.metadata["ocr_pages"] == [1] and doc.metadata["needs_ocr"] == []
    # The image renders as a page does: here 2 pixels per point of a 100 x 50 point page.
    assert doc.page_image(1).size == (200, 100)


def test_each_tiff_frame_is_a_page() -> None:
    doc = parse(_tiff(3), filename="fax.tiff", ocr=_lines)
    assert [(p.number, p.height) for p in doc.pages] == [(1, 50.0), (2, 60.0), (3, 70.0)]
    assert [(s.text, s.page) for s in doc.sections] == [
        ("Frame 1 text.", 1),
        ("Frame 2 text.", 2),
        ("Frame 3 text.", 3),
    ]
    assert [s.page for s in parse(_tiff(3), ocr=_lines, pages=[2]).sections] == [2]


def test_without_an_engine_an_image_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rapidocr_onnxruntime", None)
    with pytest.warns(UserWarning, match=r"scan\.png: 1 page\(s\) without a text layer \(1\)"):
        doc = parse(_png(), filename="scan.png")
    assert doc.metadata["needs_ocr"] == [1]
    assert [(s.kind, s.bbox) for s in doc.sections] == [("figure", (0.0, 0.0, 200.0, 100.0))]


def test_a_page_whose_ocr_fails_is_reported_and_the_rest_kept() -> None:
    def ocr(image, page):  # type: ignore[no-untyped-def]
        if page.number == 2:
            raise RuntimeError("engine crashed")
        return _lines(image, page)

    with pytest.warns(UserWarning, match=r"fax\.tiff, page 2: OCR failed \(RuntimeError"):
        doc = parse(_tiff(3), filename="fax.tiff", ocr=ocr)
    assert [s.page for s in doc.sections if s.kind == "text"] == [1, 3]
    assert doc.metadata["ocr_failed"] == {2: "RuntimeError: engine crashed"}
    assert doc.metadata["needs_ocr"] == [2] and doc.metadata["ocr_pages"] == [1, 3]


def test_a_page_whose_ocr_times_out_is_reported() -> None:
    release = threading.Event()

    def ocr(image, page):  # type: ignore[no-untyped-def]
        if page.number == 1:
            release.wait(10)  # hangs until the test lets it go
        return _lines(image, page)

    try:
        with pytest.warns(UserWarning, match=r"page 1: OCR failed \(OCR took longer than 0.2 s"):
            doc = parse(_tiff(2), filename="fax.tiff", ocr=ocr, ocr_timeout=0.2)
    finally:
        release.set()
    assert [s.text for s in doc.sections if s.kind == "text"] == ["Frame 2 text."]
    assert list(doc.metadata["ocr_failed"]) == [1]
    with pytest.raises(ValueError, match="ocr_timeout must be a positive number"):
        parse(_png(), ocr=ocr, ocr_timeout=0)


def _huge_jpeg(side: int) -> bytes:
    """A ``side`` x ``side`` uniform grey baseline JPEG, written without ever holding the
    image: every 8 x 8 block of mid grey codes as the same 6 bits (DC difference 0, end of
    block) with the standard Huffman tables, so four blocks are the 3 bytes 28 a2 8a."""
    buf = io.BytesIO()
    Image.new("L", (16, 16), 128).save(buf, "JPEG", quality=75)
    small = buf.getvalue()
    sof = small.index(b"\xff\xc0")
    sos = small.index(b"\xff\xda")
    head = bytearray(small[: sos + 2 + int.from_bytes(small[sos + 2 : sos + 4], "big")])
    head[sof + 5 : sof + 9] = side.to_bytes(2, "big") * 2
    blocks = (side // 8) ** 2
    assert blocks % 4 == 0
    return bytes(head) + b"\x28\xa2\x8a" * (blocks // 4) + b"\xff\xd9"


def test_a_huge_image_is_decoded_small_and_not_refused() -> None:
    limit = Image.MAX_IMAGE_PIXELS
    seen = []

    def ocr(image, page):  # type: ignore[no-untyped-def]
        seen.append((image.size, page.width, page.height, image.getpixel((5, 5))))
        return []

    # 20,000 x 20,000 pixels (400 million, past Pillow's decompression-bomb limit): decoded
    # at 1/8 of the size, never whole.
    doc = parse(_huge_jpeg(20_000), filename="huge.jpg", ocr=ocr)
    assert seen == [((2500, 2500), 20_000.0, 20_000.0, 128)]
    assert doc.metadata["ocr_pages"] == [1]
    assert Image.MAX_IMAGE_PIXELS == limit  # the process-wide setting is left alone


def test_a_corrupt_image_is_a_document_error_naming_the_file() -> None:
    data = _png()
    with pytest.raises(DocumentError, match=r"^broken\.png.*not a readable image"):
        parse(data[: len(data) // 2], filename="broken.png", ocr=_lines)
    with pytest.raises(DocumentError, match=r"^bad\.jpg: not a readable image"):
        parse(b"\xff\xd8\xff\xe0garbage", filename="bad.jpg", ocr=_lines)
    with pytest.raises(ValueError, match="the image has 1 frames"):
        parse(data, ocr=_lines, pages=[2])


def test_the_default_engine_reads_a_small_image() -> None:
    pytest.importorskip("rapidocr_onnxruntime")
    from PIL import ImageDraw, ImageFont

    im = Image.new("L", (700, 140), 255)
    ImageDraw.Draw(im).text(
        (40, 45), "Hello scanned world", fill=0, font=ImageFont.load_default(40)
    )
    buf = io.BytesIO()
    im.save(buf, "PNG")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        doc = parse(buf.getvalue(), filename="hello.png")
    [section] = doc.sections
    # The words keep their spaces, and the box is where the ink is (in points = pixels).
    assert (section.kind, section.text, dict(section.metadata)) == (
        "text",
        "Hello scanned world",
        {"ocr": True},
    )
    x0, top, x1, bottom = section.bbox
    assert 30 <= x0 <= 50 and 40 <= top <= 65 and 380 <= x1 <= 460 and 70 <= bottom <= 100
