"""Ingestion in worker processes: ``ingest(DIR, "parquet:...", workers=1)`` against
``workers=2`` on a folder of PDFs and Markdown files, side by side in one run.

For each round (``--repeat``, alternating the order), both runs start from an empty store;
the figures are the median wall time, the speed-up, the workers' CPU time per file (which
the machine's load does not inflate the way it inflates wall time) and the load average
(``os.getloadavg``) at the start and the end. The rows of both runs are checked equal.

    python benches/bench_workers.py [--pdfs 40] [--markdown 200] [--repeat 3]

The test run executes :func:`test_bench_workers_smoke` on a small folder.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import load_corpus

SAMPLE_PDF = Path(__file__).resolve().parents[1] / "python" / "ragchunk" / "data" / "sample.pdf"


def write_folder(root: Path, pdfs: int, markdown: int) -> None:
    """``pdfs`` copies of the bundled sample PDF (each its own bytes: a trailing comment)
    and ``markdown`` files cut from the benchmark corpus."""
    root.mkdir(parents=True)
    sample = SAMPLE_PDF.read_bytes()
    for i in range(pdfs):
        (root / f"doc{i:04d}.pdf").write_bytes(sample + b"%% copy %d\n" % i)
    _, docs = load_corpus(2_000_000)
    for i in range(markdown):
        (root / f"note{i:04d}.md").write_text(docs[i % len(docs)] + f"\n\n{i}\n", encoding="utf-8")


def run(root: Path, work: Path, workers: int) -> tuple[float, Any, Any]:
    import ragchunk
    from ragchunk.ingest import ingest, open_store

    store = f"parquet:{work / f'store{workers}'}"
    if (work / f"store{workers}").exists():
        shutil.rmtree(work / f"store{workers}")
    t = time.perf_counter()
    report = ingest([root], store, ragchunk.RecursiveSplitter(256), base=root, workers=workers)
    seconds = time.perf_counter() - t
    assert report.failed == 0, report.failures
    return seconds, report, open_store(store).read()


def measure(pdfs: int, markdown: int, repeat: int) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="bench-workers-"))
    try:
        root = work / "src"
        write_folder(root, pdfs, markdown)
        load_start = os.getloadavg()[0]
        times: dict[int, list[float]] = {1: [], 2: []}
        cpu: dict[int, list[float]] = {1: [], 2: []}
        tables: dict[int, Any] = {}
        for r in range(repeat):
            for workers in (1, 2) if r % 2 == 0 else (2, 1):
                seconds, report, table = run(root, work, workers)
                times[workers].append(seconds)
                cpu[workers].append(report.cpu_seconds / (pdfs + markdown))
                tables[workers] = table
        assert tables[1].equals(tables[2]), "the rows of 1 and 2 workers differ"
        one, two = statistics.median(times[1]), statistics.median(times[2])
        return {
            "files": pdfs + markdown,
            "pdfs": pdfs,
            "markdown": markdown,
            "one": one,
            "two": two,
            "speedup": one / two,
            "cpu_per_file_ms": {w: 1000 * statistics.median(c) for w, c in cpu.items()},
            "load": (load_start, os.getloadavg()[0]),
            "cores": os.cpu_count(),
            "rows": tables[1].num_rows,
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def table(m: dict[str, Any]) -> str:
    return "\n".join(
        [
            f"{m['files']} files ({m['pdfs']} PDF, {m['markdown']} Markdown), {m['rows']} chunks, "
            f"{m['cores']} cores, load {m['load'][0]:.1f} -> {m['load'][1]:.1f}",
            "| workers | wall (s) | CPU per file (ms) |",
            "|---|---:|---:|",
            f"| 1 | {m['one']:.2f} | {m['cpu_per_file_ms'][1]:.1f} |",
            f"| 2 | {m['two']:.2f} | {m['cpu_per_file_ms'][2]:.1f} |",
            f"speed-up 2 vs 1: {m['speedup']:.2f}x",
        ]
    )


def test_bench_workers_smoke() -> None:
    m = measure(2, 6, 1)
    assert m["files"] == 8 and m["speedup"] > 0 and m["rows"] > 8


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pdfs", type=int, default=40)
    ap.add_argument("--markdown", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(table(measure(args.pdfs, args.markdown, args.repeat)))


if __name__ == "__main__":
    main()
