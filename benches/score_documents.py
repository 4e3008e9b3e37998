"""Score ``ragchunk.documents.parse`` on the documents oracle with the shared scorer.

    .venv/bin/python benches/score_documents.py [--golden DIR] [--scorer DIR] [--per-doc]
        [--format docx|pdf] [--baselines]

Parses every ``<id>.<format>`` of ``../shared/golden/documents`` (DOCX by default), scores the
sections with ``../shared/eval/documents/docs_score.py`` (imported in place, unchanged; its
PDF box check needs pdfplumber) and prints its aggregate rows and a Markdown table of the
metrics and the parse speed; ``--baselines`` adds plain text dumps of PDFium, pdfplumber and
pypdf (one section per page) beside ragchunk. The tables of ``docs/documents.md``.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


def _scorer(folder: Path) -> Any:
    spec = importlib.util.spec_from_file_location("docs_score", folder / "docs_score.py")
    if spec is None or spec.loader is None:
        raise SystemExit(f"no scorer at {folder / 'docs_score.py'}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _dump_pdfium(path: str) -> list[dict[str, Any]]:
    import pypdfium2

    pdf = pypdfium2.PdfDocument(path)
    out = []
    for i in range(len(pdf)):
        page = pdf[i]
        text = page.get_textpage().get_text_range()
        out.append({"kind": "text", "text": text, "level": None, "page": i + 1, "bbox": None})
    pdf.close()
    return out


def _dump_pdfplumber(path: str) -> list[dict[str, Any]]:
    import pdfplumber

    with pdfplumber.open(path) as pdf:
        return [
            {"kind": "text", "text": p.extract_text() or "", "level": None, "page": p.page_number}
            for p in pdf.pages
        ]


def _dump_pypdf(path: str) -> list[dict[str, Any]]:
    import pypdf

    reader = pypdf.PdfReader(path)
    return [
        {"kind": "text", "text": p.extract_text() or "", "level": None, "page": i + 1}
        for i, p in enumerate(reader.pages)
    ]


def _ragchunk(path: str) -> list[dict[str, Any]]:
    from ragchunk.documents import parse

    return [s.to_dict() for s in parse(path).sections]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--golden", type=Path, default=SHARED / "golden" / "documents")
    ap.add_argument("--scorer", type=Path, default=SHARED / "eval" / "documents")
    ap.add_argument("--format", default="docx")
    ap.add_argument("--per-doc", action="store_true")
    ap.add_argument(
        "--baselines",
        action="store_true",
        help="PDF: also score plain text dumps (PDFium, pdfplumber, pypdf; one section a page)",
    )
    args = ap.parse_args(argv)

    ds = _scorer(args.scorer)
    truths = ds.load_truths(str(args.golden), args.format)
    if not truths:
        raise SystemExit(f"no {args.format} documents in {args.golden}")
    parsers = [("ragchunk", _ragchunk)]
    if args.baselines and args.format == "pdf":
        parsers += [
            ("PDFium get_text_range", _dump_pdfium),
            ("pdfplumber extract_text", _dump_pdfplumber),
            ("pypdf extract_text", _dump_pypdf),
        ]
    table = []
    for name, fn in parsers:
        results = []
        seconds = 0.0
        pages = 0
        for truth, path in truths:
            t0 = time.perf_counter()
            sections = fn(path)
            seconds += time.perf_counter() - t0
            pages += truth.get("pages") or 1
            r = ds.score_document(truth, sections, path if truth["format"] == "pdf" else None)
            results.append(r)
            if args.per_doc:
                print(
                    f"  {r['id']:<8} text {r['text_f1']:.3f} head "
                    f"{r['headings']['matched']}/{r['headings']['truth']}/{r['headings']['out']} "
                    f"tab {r['tables']['matched']}/{r['tables']['truth']}/{r['tables']['out']}"
                )
        agg = ds.aggregate(results)
        print(ds.fmt_row(f"{name} ({len(results)})", agg, args.format))
        unit = "pages" if args.format == "pdf" else "files"
        count = pages if args.format == "pdf" else len(results)
        table.append((name, agg, f"{count / seconds:.0f} {unit}/s"))
    keys = [
        ("text_f1", "text F1"),
        ("heading_f1", "heading F1"),
        ("heading_levels", "heading levels"),
        ("cell_f1", "table cell F1"),
        ("leak", "header/footer leak"),
        ("order", "reading order"),
        ("kind_acc", "kinds"),
    ]
    if args.format == "pdf":
        keys.append(("bbox_valid", "box validity"))
    print()
    print("| parser | " + " | ".join(label for _, label in keys) + " | speed (one process) |")
    print("| --- " * (len(keys) + 2) + "|")
    for name, agg, speed in table:
        cells = " | ".join(f"{agg.get(k, 0.0):.3f}" for k, _ in keys)
        print(f"| {name} | {cells} | {speed} |")


if __name__ == "__main__":
    sys.exit(main())
