"""Score ``ragchunk.documents.parse`` on the documents oracle with the shared scorer.

    .venv/bin/python benches/score_documents.py [--golden DIR] [--scorer DIR] [--per-doc]
        [--format docx]

Parses every ``<id>.<format>`` of ``../shared/golden/documents`` (DOCX by default; PDF is not
parsed by this version), scores the sections with ``../shared/eval/documents/docs_score.py``
(imported in place, unchanged) and prints its aggregate row, a Markdown table of the metrics
and the parse speed. The rows of ``docs/documents.md``.
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


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--golden", type=Path, default=SHARED / "golden" / "documents")
    ap.add_argument("--scorer", type=Path, default=SHARED / "eval" / "documents")
    ap.add_argument("--format", default="docx")
    ap.add_argument("--per-doc", action="store_true")
    args = ap.parse_args(argv)

    from ragchunk.documents import parse

    ds = _scorer(args.scorer)
    truths = ds.load_truths(str(args.golden), args.format)
    if not truths:
        raise SystemExit(f"no {args.format} documents in {args.golden}")
    results = []
    seconds = 0.0
    for truth, path in truths:
        t0 = time.perf_counter()
        doc = parse(path)
        seconds += time.perf_counter() - t0
        sections = [s.to_dict() for s in doc.sections]
        r = ds.score_document(truth, sections, path if truth["format"] == "pdf" else None)
        results.append(r)
        if args.per_doc:
            print(
                f"  {r['id']:<8} text {r['text_f1']:.3f} "
                f"head {r['headings']['matched']}/{r['headings']['truth']}/{r['headings']['out']} "
                f"tab {r['tables']['matched']}/{r['tables']['truth']}/{r['tables']['out']}"
            )
    agg = ds.aggregate(results)
    print(ds.fmt_row(f"ragchunk ({len(results)} {args.format})", agg, args.format))
    keys = [
        ("text_f1", "text F1"),
        ("heading_f1", "heading F1"),
        ("heading_levels", "heading levels"),
        ("cell_f1", "table cell F1"),
        ("leak", "header/footer leak"),
        ("order", "reading order"),
        ("kind_acc", "kinds (list, code, caption)"),
    ]
    print()
    print("| metric | ragchunk |")
    print("| --- | --- |")
    for key, label in keys:
        print(f"| {label} | {agg[key]:.3f} |")
    print()
    print(
        f"{len(results)} files parsed in {seconds:.2f} s "
        f"({len(results) / seconds:.1f} files/s, one process)"
    )


if __name__ == "__main__":
    sys.exit(main())
