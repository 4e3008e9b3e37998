"""PDF parsing speed, memory and parallel scaling, side by side in one run.

    python benches/bench_documents.py [--rounds 5] [--pages 1000] [--skip-memory]
        [--skip-scaling] [--golden DIR]

* **Speed** (pages per second over the shared oracle's PDFs, interleaved rounds, medians):
  ``ragchunk.documents.parse`` (the layout analysis: sections, tables, figures, boxes) on the
  Rust backend and on the pure-Python fallback, against pdfplumber's ``extract_text`` (text
  only, no structure) and PDFium's raw text extraction (``get_text_bounded`` per page, what
  the layout analysis starts from). Each round parses every file once per side, in a new
  order; the ratios are per round, then the median.
* **Memory**: peak RSS of a fresh process that parses a PDF of ``--pages`` pages (the
  oracle's pages repeated) and of one a tenth as long, with the size of the parsed document
  itself (its sections): pages are read, analysed and let go one at a time, so the peak
  grows with the output, not with the characters of the pages.
* **Scaling**: a folder of the oracle's PDFs parsed by one process and by a pool of one
  process per core (``ragchunk chunk --documents`` parses this way), and the ratio of the
  speed-up to the core count.
* **Hostile pages** (``--hostile``): one page of ``n`` and of ``4n`` characters (``--chars``)
  as plain lines, as one rule-only table, and one page of ``n / 50`` and ``4n / 50`` small
  drawings; linear work gives a ratio near 4. Beside each, the time PDFium itself takes to
  build the page's text layer, which any PDFium-based extraction pays before reading it.

The test run executes :func:`test_bench_documents_smoke` on two files.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT.parent / "shared" / "golden" / "documents"


def _pages(path: Path) -> int:
    import pypdfium2

    pdf = pypdfium2.PdfDocument(str(path))
    try:
        return len(pdf)
    finally:
        pdf.close()


def parse_ragchunk(path: str) -> int:
    from ragchunk.documents import parse

    return len(parse(path).sections)


def parse_pdfium_raw(path: str) -> int:
    import pypdfium2

    pdf = pypdfium2.PdfDocument(path)
    n = 0
    try:
        for i in range(len(pdf)):
            page = pdf[i]
            textpage = page.get_textpage()
            n += len(textpage.get_text_bounded())
            textpage.close()
            page.close()
    finally:
        pdf.close()
    return n


def parse_pdfplumber(path: str) -> int:
    import pdfplumber

    with pdfplumber.open(path) as pdf:
        return sum(len(p.extract_text() or "") for p in pdf.pages)


def _backend(name: str) -> Callable[[], None]:
    from ragchunk.core import dispatch

    def switch() -> None:
        dispatch.set_backend(name)

    return switch


def speed(files: list[Path], rounds: int) -> dict[str, Any]:
    """Pages per second per side, medians of interleaved rounds, and per-round ratios."""
    from ragchunk.core import dispatch

    pages = sum(_pages(f) for f in files)
    sides: list[tuple[str, Callable[[str], int], Callable[[], None] | None]] = [
        ("ragchunk (rust)", parse_ragchunk, _backend("rust") if dispatch.core() else None),
        ("ragchunk (python fallback)", parse_ragchunk, _backend("python")),
        ("PDFium raw text", parse_pdfium_raw, None),
    ]
    try:
        import pdfplumber  # noqa: F401

        sides.append(("pdfplumber extract_text", parse_pdfplumber, None))
    except ImportError:
        pass
    if dispatch.core() is None:
        sides = sides[1:]
    before = dispatch.name()
    times: dict[str, list[float]] = {name: [] for name, _, _ in sides}
    rng = random.Random(7)
    try:
        for _ in range(rounds):
            order = list(sides)
            rng.shuffle(order)
            for name, fn, setup in order:
                if setup is not None:
                    setup()
                t0 = time.perf_counter()
                for f in files:
                    fn(str(f))
                times[name].append(time.perf_counter() - t0)
                if setup is not None:
                    dispatch.set_backend(before)
    finally:
        dispatch.set_backend(before)
    out: dict[str, Any] = {"pages": pages, "files": len(files), "rounds": rounds, "sides": {}}
    first = sides[0][0]
    for name, _, _ in sides:
        med = statistics.median(times[name])
        ratios = [a / b for a, b in zip(times[name], times[first], strict=True)]
        out["sides"][name] = {
            "pages_per_s": pages / med,
            "time_vs_first": statistics.median(ratios),
        }
    return out


_MEMORY_CHILD = r"""
import json, resource, sys, time
from ragchunk.documents import parse
t0 = time.perf_counter()
doc = parse(sys.argv[1])
seconds = time.perf_counter() - t0
text = sum(len(s.text) for s in doc.sections)
print(json.dumps({"sections": len(doc.sections), "text_chars": text, "seconds": seconds,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _repeated_pdf(files: list[Path], pages: int, out: Path) -> None:
    import pypdfium2

    dest = pypdfium2.PdfDocument.new()
    sources = [pypdfium2.PdfDocument(str(f)) for f in files]
    k = 0
    while len(dest) < pages:
        src = sources[k % len(sources)]
        take = min(len(src), pages - len(dest))
        dest.import_pages(src, list(range(take)))
        k += 1
    with open(out, "wb") as fh:
        dest.save(fh)
    for s in sources:
        s.close()
    dest.close()


def memory(files: list[Path], pages: int) -> list[dict[str, Any]]:
    """Peak RSS of a fresh process parsing ``pages // 10`` and ``pages`` pages."""
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in (max(1, pages // 10), pages):
            path = Path(tmp) / f"repeated-{n}.pdf"
            _repeated_pdf(files, n, path)
            run = subprocess.run(
                [sys.executable, "-c", _MEMORY_CHILD, str(path)],
                capture_output=True,
                text=True,
                check=True,
                cwd=ROOT,
            )
            got = json.loads(run.stdout)
            got.update(pages=n, file_mb=path.stat().st_size / 2**20)
            results.append(got)
    return results


def scaling(files: list[Path], rounds: int) -> dict[str, float]:
    """One process against a pool of one process per core, on the same folder."""
    cores = os.cpu_count() or 1
    names = [str(f) for f in files]
    one: list[float] = []
    many: list[float] = []
    with ProcessPoolExecutor(cores) as pool:
        list(pool.map(parse_ragchunk, names[:cores]))  # start the workers
        for _ in range(rounds):
            t0 = time.perf_counter()
            for f in names:
                parse_ragchunk(f)
            one.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            list(pool.map(parse_ragchunk, names, chunksize=1))
            many.append(time.perf_counter() - t0)
    speedup = statistics.median(one) / statistics.median(many)
    return {"cores": cores, "speedup": speedup, "efficiency": speedup / cores}


def _hostile_pdf(shape: str, n: int) -> bytes:
    sys.path.insert(0, str(ROOT / "tests" / "documents"))
    from docfiles import simple_pdf

    if shape == "lines":
        rows = max(1, n // (8 * 170))
        lines = [
            ("F1", 1, 5 + k * 73, 5 + r * 800 / rows, "wxyz " * 34)
            for r in range(rows)
            for k in range(8)
        ]
        return simple_pdf([lines])
    if shape == "table":
        rows = max(1, n // (6 * 12))
        rules = [("line", 20, 20, 580, 20), ("line", 20, 24, 580, 24), ("line", 20, 822, 580, 822)]
        cells = [
            ("F1", 0.5, 22 + k * 93, 25 + r * 795 / rows, f"r{r:05d}k{k}val")
            for r in range(rows)
            for k in range(6)
        ]
        return simple_pdf([cells], drawings=[rules])
    count = max(1, n // 50)
    side = int(count**0.5) + 1
    shapes = [
        (
            "fill",
            10 + (i % side) * 570 / side,
            10 + (i // side) * 800 / side,
            10 + (i % side) * 570 / side + 570 / side * 0.5,
            10 + (i // side) * 800 / side + 800 / side * 0.5,
        )
        for i in range(count)
    ]
    return simple_pdf([[("F1", 10, 72, 830, "x")]], drawings=[shapes])


def _textpage_time(data: bytes) -> float:
    import pypdfium2

    pdf = pypdfium2.PdfDocument(data)
    try:
        page = pdf[0]
        t0 = time.perf_counter()
        textpage = page.get_textpage()
        seconds = time.perf_counter() - t0
        textpage.close()
        page.close()
    finally:
        pdf.close()
    return seconds


def hostile(n: int, rounds: int) -> list[tuple[str, float, float, float, float]]:
    """Per shape, the median time of ``parse`` on a page of ``n`` and ``4n`` characters, and
    of PDFium building the same page's text layer (``get_textpage``, which ``parse`` and
    every text extraction through PDFium pay first)."""
    from ragchunk.documents import parse

    out = []
    for shape in ("lines", "table", "drawings"):
        small, big = _hostile_pdf(shape, n), _hostile_pdf(shape, 4 * n)
        parse(small)
        times: dict[bytes, list[float]] = {small: [], big: []}
        pdfium: dict[bytes, list[float]] = {small: [], big: []}
        for _ in range(rounds):
            for data in (small, big):
                t0 = time.perf_counter()
                parse(data)
                times[data].append(time.perf_counter() - t0)
                pdfium[data].append(_textpage_time(data))
        out.append(
            (
                shape,
                statistics.median(times[small]),
                statistics.median(times[big]),
                statistics.median(pdfium[small]),
                statistics.median(pdfium[big]),
            )
        )
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--golden", type=Path, default=GOLDEN)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--pages", type=int, default=1000)
    ap.add_argument("--skip-memory", action="store_true")
    ap.add_argument("--skip-scaling", action="store_true")
    ap.add_argument("--hostile", action="store_true")
    ap.add_argument("--chars", type=int, default=250_000)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    files = sorted(args.golden.glob("pdf-*.pdf"))
    if not files:
        raise SystemExit(f"no pdf-*.pdf in {args.golden}")
    report: dict[str, Any] = {"speed": speed(files, args.rounds)}
    sp = report["speed"]
    print(f"speed: {sp['files']} files, {sp['pages']} pages, {sp['rounds']} interleaved rounds")
    print("| parser | pages/s | time / ragchunk's (median of rounds) |")
    print("| --- | --- | --- |")
    for name, row in sp["sides"].items():
        print(f"| {name} | {row['pages_per_s']:.0f} | {row['time_vs_first']:.2f} |")
    if not args.skip_memory:
        report["memory"] = memory(files, args.pages)
        print("\nmemory: a fresh process parsing the oracle's pages repeated")
        print("| pages | file MB | sections | text chars | seconds | peak RSS MB |")
        print("| --- | --- | --- | --- | --- | --- |")
        for m in report["memory"]:
            print(
                f"| {m['pages']} | {m['file_mb']:.1f} | {m['sections']} | {m['text_chars']} | "
                f"{m['seconds']:.2f} | {m['peak_rss_mb']:.0f} |"
            )
    if not args.skip_scaling:
        report["scaling"] = sc = scaling(files, max(1, args.rounds // 2))
        print(
            f"\nscaling: {sc['cores']} processes, speed-up {sc['speedup']:.2f}x, "
            f"efficiency {sc['efficiency']:.2f}"
        )
    if args.hostile:
        report["hostile"] = rows = hostile(args.chars, args.rounds)
        print(f"\nhostile pages: {args.chars} and {4 * args.chars} characters")
        print("| shape | parse n | parse 4n | ratio | of which PDFium's text layer: n | 4n |")
        print("| --- | --- | --- | --- | --- | --- |")
        for shape, a, b, pa, pb in rows:
            print(f"| {shape} | {a:.3f} s | {b:.3f} s | {b / a:.1f} | {pa:.3f} s | {pb:.3f} s |")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


def test_bench_documents_smoke() -> None:
    import pytest

    pytest.importorskip("pypdfium2")
    files = sorted(GOLDEN.glob("pdf-*.pdf"))[:2]
    if not files:
        pytest.skip("the shared documents oracle is not present")
    sp = speed(files, 1)
    assert sp["pages"] >= 2
    assert all(row["pages_per_s"] > 0 for row in sp["sides"].values())
    for shape, a, b, pa, pb in hostile(2000, 1):
        assert a > 0 and b > 0 and pa >= 0 and pb >= 0, shape
    mem = memory(files, 10)
    assert [m["pages"] for m in mem] == [1, 10]
    assert mem[1]["sections"] > mem[0]["sections"]


if __name__ == "__main__":
    main()
