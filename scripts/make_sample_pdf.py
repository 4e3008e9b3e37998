"""Write ``python/ragchunk/data/sample.pdf``: the small PDF that ``ragchunk --sample`` parses.

Three A4 pages with a title, numbered headings on two levels, body paragraphs, a bullet
list, a running header and page-number footers, in the
base-14 fonts (nothing embedded). The PDF objects are written by hand, with no timestamp or
random id, so the same bytes come out on every run:

    python scripts/make_sample_pdf.py          # rewrite the file
    python scripts/make_sample_pdf.py --check  # exit 1 when the committed file differs
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "python" / "ragchunk" / "data" / "sample.pdf"
WIDTH, HEIGHT = 595.0, 842.0
LEFT = 72.0
# (font, size, text): F1 Helvetica, F2 Helvetica-Bold; "" starts a new page.
BLOCKS: list[tuple[str, float, str]] = [
    ("F2", 20, "Chunking for retrieval"),
    ("F2", 15, "1 Introduction"),
    (
        "F1",
        10,
        "Retrieval-augmented generation answers a question from passages found in a corpus. "
        "The passages are chunks: pieces of documents small enough to embed and to quote, "
        "large enough to carry their meaning.",
    ),
    ("F2", 12, "1.1 Why the boundaries matter"),
    (
        "F1",
        10,
        "A chunk cut in the middle of a sentence loses the words that made it relevant, and "
        "a chunk that mixes two sections answers neither. Splitters therefore cut at "
        "headings, paragraphs and sentences first, and at words only when they must.",
    ),
    ("F2", 15, "2 Method"),
    (
        "F1",
        10,
        "Each document is parsed into sections with their kinds, heading levels, pages and "
        "boxes. The chunker then packs whole sections into chunks under a token budget, so "
        "every chunk can cite the pages and the heading path it came from. A paragraph that "
        "runs over a page break keeps one box per page, and a chunk of its second half "
        "cites only the second page, which is what a reader needs to find it again in the "
        "original file.",
    ),
    ("", 0, ""),
    ("F2", 12, "2.1 Budgets"),
    ("F1", 10, "- Tokens are counted with the tokenizer of the embedding model."),
    ("F1", 10, "- Overlap repeats the end of a chunk at the start of the next."),
    ("F2", 15, "3 Results"),
    (
        "F1",
        10,
        "On the sample corpus, chunks that follow the document's structure are retrieved "
        "more often than fixed windows of the same size, and their citations point at the "
        "right page every time.",
    ),
    ("", 0, ""),
    ("F2", 15, "4 Conclusion"),
    (
        "F1",
        10,
        "Parse first, then chunk: the structure of the file is the cheapest signal a "
        "chunker has, and the pages and boxes cost nothing to keep.",
    ),
]


def pages() -> list[list[tuple[str, float, float, float, str]]]:
    """Each page's lines: ``(font, size, x, top, text)``, ``top`` from the page's top."""
    out: list[list[tuple[str, float, float, float, str]]] = []
    page: list[tuple[str, float, float, float, str]] = []
    top = 80.0

    def new_page() -> None:
        nonlocal page, top
        out.append(page)
        page, top = [], 80.0

    for font, size, text in BLOCKS:
        if not font:
            new_page()
            continue
        if font == "F2":
            top += size * 0.8
        for line in textwrap.wrap(text, 92 if size <= 10 else 60):
            if top > HEIGHT - 90:  # the paragraph runs on to the next page
                new_page()
            page.append((font, size, LEFT, top, line))
            top += size * 1.4
        top += 6
    out.append(page)
    for number, lines in enumerate(out, 1):
        lines.insert(0, ("F1", 8, LEFT, 36, "ragchunk sample report"))
        lines.append(("F1", 8, WIDTH / 2 - 12, HEIGHT - 40, f"Page {number}"))
    return out


def build() -> bytes:
    """The PDF's bytes."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    fonts = {
        name: add(f"<< /Type /Font /Subtype /Type1 /BaseFont /{base} >>".encode())
        for name, base in (("F1", "Helvetica"), ("F2", "Helvetica-Bold"))
    }
    resources = " ".join(f"/{k} {v} 0 R" for k, v in fonts.items())
    layout = pages()
    pages_id = len(objects) + 1 + 2 * len(layout)
    kids = []
    for lines in layout:
        ops = []
        for font, size, x, top, text in lines:
            esc = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            ops.append(f"BT /{font} {size:g} Tf {x:g} {HEIGHT - top - size:g} Td ({esc}) Tj ET")
        stream = "\n".join(ops).encode("latin-1")
        content = add(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        kids.append(
            add(
                f"<< /Type /Page /Parent {pages_id} 0 R /MediaBox [0 0 {WIDTH:g} {HEIGHT:g}] "
                f"/Contents {content} 0 R /Resources << /Font << {resources} >> >> >>".encode()
            )
        )
    refs = " ".join(f"{k} 0 R" for k in kids)
    assert add(f"<< /Type /Pages /Kids [{refs}] /Count {len(kids)} >>".encode()) == pages_id
    catalog = add(f"<< /Type /Catalog /Pages {pages_id} 0 R >>".encode())
    info = add(b"<< /Title (Chunking for retrieval) /Author (ragchunk) >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\n" % (
        len(objects) + 1,
        catalog,
        info,
    )
    out += b"startxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed file")
    args = parser.parse_args()
    data = build()
    if args.check:
        same = OUT.is_file() and OUT.read_bytes() == data
        print(f"{OUT}: {'up to date' if same else 'differs from the script'}")
        return 0 if same else 1
    OUT.write_bytes(data)
    print(f"wrote {OUT} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
