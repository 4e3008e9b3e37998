"""Same-process A/B timing: two builds of the extension, or naive_merge against counting.

    .venv/bin/python benches/ab.py OLD.so NEW.so [--what WHAT] [--rounds 5]
        (WHAT: merge, count, batch, or recursive / sentence / markdown splitting)
    .venv/bin/python benches/ab.py --merge-vs-count [--rounds 5]
    .venv/bin/python benches/ab.py --batch-vs-single [--rounds 5] [--block 128]
    (any of them with --fresh: new string objects for every call, as in real ingestion;
     --cpu: this process's CPU time instead of wall time, steadier on a loaded machine;
     --encoding o200k_base: count or merge with that encoding; --cut-kb K: the documents cut
     at blank lines into pieces of about K kilobytes, where the cost per call counts)

On a shared machine the speed of a core changes by tens of percent within seconds, so two
contenders timed one whole corpus pass after the other disagree from run to run more than
the changes worth measuring. Here both sides run in one process on the same blocks of
documents (``--block`` documents at a time, ~0.1 s), in alternating order, and the ratio of
their summed times is printed per round, then its median: slow moments hit both alike.

Each side is the extension loaded from its own file (a temporary copy when both are the
installed one), so each has its own statics (vocabulary, per-thread memos) and neither
warms the other's memo on the block they share. ``OLD.so NEW.so`` compares two builds (copy
``python/ragchunk/_core*.so`` aside before rebuilding); ``--merge-vs-count`` compares the
installed build's ``naive_merge`` with its count-only tokenizer over the same text, the
ratio the performance targets name (a count-only pass over a block, then a merge of it, or the
other way round); ``--batch-vs-single`` its ``naive_merge_batch`` on 2 workers with one
``naive_merge`` call per document (in blocks of 128 documents by default: a document is never
split between workers, so a batch of a few documents, one of them large, leaves a worker idle).
"""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpus import load_corpus, offline_tiktoken

offline_tiktoken()

from ragchunk.core import dispatch  # noqa: E402
from ragchunk.ragflow.merge import DEFAULT_DELIMITER  # noqa: E402

Call = Callable[[list[str]], Any]


def load_extension(path: Path) -> ModuleType:
    """``ragchunk._core`` from ``path``: a separate copy of the module and its statics."""
    loader = importlib.machinery.ExtensionFileLoader("ragchunk._core", str(path))
    spec = importlib.util.spec_from_file_location("ragchunk._core", path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def calls(core: ModuleType, what: str, size: float, encoding: str = "cl100k_base") -> Call:
    """What one side does to a block of documents (the facade's arguments, its defaults)."""
    # chunk_token_num, delimiter, overlapped_percent, strategy, compat, encoding
    settings = (size, DEFAULT_DELIMITER, 0.0, "over_cap", "v0.27", encoding)
    if what == "count":
        return lambda block: [core.count_ordinary(d, encoding) for d in block]
    if what == "merge":
        return lambda block: [core.naive_merge([d], [""], *settings, None, False) for d in block]
    if what == "batch":
        return lambda block: core.naive_merge_batch([([d], [""]) for d in block], *settings, 2)
    n = int(size)
    seps = [("\n\n", None), ("\n", None), (" ", None), ("", None)]
    splitters = {
        "recursive": lambda: core.RecursiveSplitter(
            n, 0, seps, "start", True, "tokens", "cl100k_base"
        ),
        "sentence": lambda: core.SentenceSplitter(n, 0, "tokens", "cl100k_base"),
        "markdown": lambda: core.MarkdownSplitter(n, 0, [1, 2, 3], False, "tokens", "cl100k_base"),
    }
    if what in splitters:
        splitter = splitters[what]()
        return lambda block: splitter.split_batch(block, 2)
    raise ValueError(f"what must be merge, count, batch, {', '.join(splitters)}, got {what!r}")


def race(
    a: Call,
    b: Call,
    docs: list[str],
    rounds: int,
    block: int,
    fresh: bool = False,
    clock: Callable[[], float] = time.perf_counter,
) -> list[float]:
    """Per round, B's summed time over A's, both run on every block in alternating order.

    With ``fresh``, each side gets its own new copies of the block's strings (made before the
    clock starts), as in real ingestion, where each document is read once: nothing CPython
    caches in a string (its UTF-8) carries over from an earlier call.
    """
    ratios = []
    for r in range(rounds):
        spent = [0.0, 0.0]
        for i in range(0, len(docs), block):
            part = docs[i : i + block]
            order = ((0, a), (1, b)) if (i // block + r) % 2 == 0 else ((1, b), (0, a))
            for side, fn in order:
                docs_in = [d.encode().decode() for d in part] if fresh else part
                t0 = clock()
                out = fn(docs_in)
                spent[side] += clock() - t0
                del out
        ratios.append(spent[1] / spent[0])
        print(
            f"round {r}: A {spent[0]:.3f} s, B {spent[1]:.3f} s, B/A {ratios[-1]:.3f}", flush=True
        )
    return ratios


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("builds", nargs="*", type=Path, help="OLD.so NEW.so")
    ap.add_argument("--merge-vs-count", action="store_true")
    ap.add_argument("--batch-vs-single", action="store_true")
    ap.add_argument(
        "--what",
        default="merge",
        choices=["merge", "count", "batch", "recursive", "sentence", "markdown"],
        help="recursive / sentence / markdown: that splitter's split_batch on 2 workers",
    )
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument(
        "--block", type=int, default=None, help="documents per alternation (16; batch: 128)"
    )
    ap.add_argument("--chunk-size", type=float, default=512)
    ap.add_argument("--limit-mb", type=float, default=None)
    ap.add_argument(
        "--fresh", action="store_true", help="new string objects for every call (no UTF-8 cache)"
    )
    ap.add_argument("--cpu", action="store_true", help="CPU time of this process, not wall time")
    ap.add_argument("--encoding", default="cl100k_base", choices=["cl100k_base", "o200k_base"])
    ap.add_argument("--cut-kb", type=float, default=None, help="cut documents into K KB pieces")
    args = ap.parse_args()

    label, docs = load_corpus(int(args.limit_mb * 1e6) if args.limit_mb else None)
    if args.cut_kb:
        from peers import cut_documents

        docs = cut_documents(docs, args.cut_kb)
        label += f", cut into {len(docs)} pieces of about {args.cut_kb:g} KB"
    with tempfile.TemporaryDirectory(prefix="ragchunk-ab-") as tmp:
        installed = args.merge_vs_count or args.batch_vs_single
        if installed:
            if args.builds or (args.merge_vs_count and args.batch_vs_single):
                ap.error("--merge-vs-count / --batch-vs-single: one of them, and no builds")
            core = dispatch.core()
            if core is None or core.__file__ is None:
                sys.exit("the compiled extension is not installed (maturin develop --release)")
            builds = [Path(core.__file__)] * 2
        elif len(args.builds) == 2:
            builds = args.builds
        else:
            ap.error("give two builds of the extension, or --merge-vs-count")
        # Each side from its own file: loading one path twice would share the statics.
        copies = []
        for i, build in enumerate(builds):
            copy = Path(tmp) / f"side{i}" / build.name
            copy.parent.mkdir()
            shutil.copy(build, copy)
            copies.append(load_extension(copy))
        if args.merge_vs_count:
            a = calls(copies[0], "count", args.chunk_size, args.encoding)
            b = calls(copies[1], "merge", args.chunk_size, args.encoding)
            print(f"{label}: A = count-only tokenizer, B = naive_merge (same build)")
        elif args.batch_vs_single:
            a = calls(copies[0], "merge", args.chunk_size, args.encoding)
            b = calls(copies[1], "batch", args.chunk_size, args.encoding)
            print(f"{label}: A = naive_merge per document, B = naive_merge_batch, 2 workers")
        else:
            a, b = (calls(c, args.what, args.chunk_size, args.encoding) for c in copies)
            if a(docs[:4]) != b(docs[:4]):
                sys.exit("the two builds disagree on the first documents")
            print(f"{label}: {args.what}, A = {builds[0]}, B = {builds[1]}")
        a(docs[:1])  # build each side's tokenizer before timing
        b(docs[:1])
        block = args.block or (128 if args.batch_vs_single else 16)
        clock = time.process_time if args.cpu else time.perf_counter
        ratios = race(a, b, docs, args.rounds, block, args.fresh, clock)
    med = statistics.median(ratios)
    print(f"median B/A time: {med:.3f}")
    if args.merge_vs_count:
        print(f"naive_merge / count-only throughput: {1 / med:.2f}")
    if args.batch_vs_single:
        print(f"batch (2 workers) / single-threaded throughput: {1 / med:.2f}")


if __name__ == "__main__":
    main()
