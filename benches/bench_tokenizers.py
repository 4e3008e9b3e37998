"""Tokenizers: count-only throughput of the built-in encodings, the worst case, and Hugging Face
tokenizer files through a splitter.

    .venv/bin/python benches/bench_tokenizers.py [--limit-mb 8] [--rounds 5]
    .venv/bin/python benches/bench_tokenizers.py --cold [--processes 5]

Sections, each timed in interleaved rounds after one untimed warm-up, medians printed:

1. ``o200k_base`` vs ``cl100k_base`` count-only (``count_ordinary_batch``, one worker) on the
   corpus, and tiktoken's ``encode_ordinary`` of each (one thread).
2. The worst case: one 10 MB pretokenizer piece (a single-letter run, a run of one CJK
   character, a run of punctuation) against the corpus rate.
3. A Hugging Face ``tokenizer.json`` (WordPiece trained here on corpus text with the
   ``tokenizers`` package, and the file the ``wordllama`` package ships) sizing
   ``RecursiveSplitter`` chunks: ``tokenizer="hf:<file>"`` against the same splitter with a
   Python callable around the ``tokenizers`` package, single-threaded and in the batch with
   two workers.

Every timed result is checked (counts against tiktoken / the ``tokenizers`` package).

``--cold`` times instead what a fresh process pays: for each encoding and each of
``count_tokens`` and ``naive_merge``, ``--processes`` new interpreters each import ragchunk,
then time a first and a second call on the same text (1 MB of the corpus's Chinese documents
plus ten 2,000-letter words), and a first call on two characters in another process. Medians
are printed, with first / second.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpus import load_corpus, offline_tiktoken

offline_tiktoken()

import ragchunk  # noqa: E402
from ragchunk import RecursiveSplitter  # noqa: E402
from ragchunk.core import dispatch  # noqa: E402


def _rounds(fns: dict[str, Callable[[], Any]], rounds: int) -> dict[str, float]:
    for f in fns.values():
        f()
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            t = time.perf_counter()
            f()
            times[k].append(time.perf_counter() - t)
    return {k: statistics.median(v) for k, v in times.items()}


def encodings(docs: list[str], rounds: int) -> float:
    import tiktoken

    core = dispatch.core()
    mb = sum(len(d.encode()) for d in docs) / 1e6
    enc = {n: tiktoken.get_encoding(n) for n in ("cl100k_base", "o200k_base")}
    for n, e in enc.items():
        want = [len(x) for x in e.encode_ordinary_batch(docs, num_threads=2)]
        assert core.count_ordinary_batch(docs, n, 1) == want, n
    t = _rounds(
        {
            "ragchunk cl100k_base": lambda: core.count_ordinary_batch(docs, "cl100k_base", 1),
            "ragchunk o200k_base": lambda: core.count_ordinary_batch(docs, "o200k_base", 1),
            "tiktoken cl100k_base": lambda: [enc["cl100k_base"].encode_ordinary(d) for d in docs],
            "tiktoken o200k_base": lambda: [enc["o200k_base"].encode_ordinary(d) for d in docs],
        },
        rounds,
    )
    print(f"\n## Count-only throughput, {mb:.1f} MB, one thread (median of {rounds})")
    for k, v in t.items():
        print(f"  {k:24s} {mb / v:8.1f} MB/s")
    print(
        f"  o200k / cl100k (ragchunk): {t['ragchunk cl100k_base'] / t['ragchunk o200k_base']:.2f}x"
    )
    for n in ("cl100k_base", "o200k_base"):
        print(f"  {n}: ragchunk vs tiktoken {t[f'tiktoken {n}'] / t[f'ragchunk {n}']:.1f}x")
    return mb / t["ragchunk cl100k_base"]


def worst_case(corpus_rate: float, rounds: int) -> None:
    core = dispatch.core()
    size = 10_000_000
    cases = {"letter a": "a" * size, "CJK 中": "中" * (size // 3), "punctuation !": "!" * size}
    print(f"\n## Worst case: one 10 MB piece vs the corpus (median of {rounds})")
    for n in ("cl100k_base", "o200k_base"):
        for label, text in cases.items():
            mb = len(text.encode()) / 1e6
            fn = lambda text=text, n=n: core.count_ordinary(text, n)  # noqa: E731
            t = _rounds({label: fn}, rounds)[label]
            ratio = (mb / t) / corpus_rate
            print(f"  {n} {label:14s} {mb / t:8.1f} MB/s  ({ratio:.2f}x of cl100k corpus rate)")


def _wordpiece_file(docs: list[str], out: Path) -> Path:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    lines = [line for d in docs[::5] for line in d.splitlines() if line.strip()][:20000]
    tok.train_from_iterator(
        lines, trainers.WordPieceTrainer(vocab_size=8000, special_tokens=["[UNK]"])
    )
    path = out / "wordpiece.json"
    tok.save(str(path))
    return path


def hf_splitter(docs: list[str], rounds: int) -> None:
    import tokenizers

    files = {"wordpiece (trained)": _wordpiece_file(docs, Path(tempfile.mkdtemp()))}
    spec = importlib.util.find_spec("wordllama")
    if spec is not None and spec.submodule_search_locations:
        for root in spec.submodule_search_locations:
            p = Path(root) / "tokenizers" / "l2_supercat_tokenizer_config.json"
            if p.is_file():
                files["wordllama (Llama-2 BPE)"] = p
    mb = sum(len(d.encode()) for d in docs) / 1e6
    print(f"\n## RecursiveSplitter(chunk_size=256) in a tokenizer.json's tokens, {mb:.1f} MB")
    for label, path in files.items():
        ref = tokenizers.Tokenizer.from_file(str(path))
        fast = RecursiveSplitter(chunk_size=256, tokenizer=f"hf:{path}")
        slow = RecursiveSplitter(
            chunk_size=256,
            tokenizer=lambda s, ref=ref: len(ref.encode(s, add_special_tokens=False).ids),
        )
        a = [c.text for c in fast.split(docs[0])]
        assert a == [c.text for c in slow.split(docs[0])], label
        t = _rounds(
            {
                "hf: 1 thread": lambda f=fast: [f.split(d) for d in docs],
                "callable 1 thread": lambda f=slow: [f.split(d) for d in docs],
                "hf: batch 2 workers": lambda f=fast: f.split_batch(docs, workers=2),
                "callable batch 2 workers": lambda f=slow: f.split_batch(docs, workers=2),
            },
            rounds,
        )
        print(f"  {label}")
        for k, v in t.items():
            print(f"    {k:26s} {mb / v:7.2f} MB/s")
        print(f"    ratio 1 thread: {t['callable 1 thread'] / t['hf: 1 thread']:.1f}x")
        batch_ratio = t["callable batch 2 workers"] / t["hf: batch 2 workers"]
        print(f"    ratio batch:    {batch_ratio:.1f}x")
        print(f"    hf: batch vs 1 thread: {t['hf: 1 thread'] / t['hf: batch 2 workers']:.2f}x")


_COLD_CHILD = r"""
import json, sys, time
from pathlib import Path
sys.path.insert(0, {benches!r})
from _corpus import CORPUS
import ragchunk
encoding, call, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
if size:
    docs, total = [], 0
    for path in sorted(CORPUS.rglob("*.md")):
        if path.parent.name.endswith("-zh") and total < size:
            docs.append(path.read_text(encoding="utf-8"))
            total += len(docs[-1].encode())
    text = "\n\n".join(docs) + "".join(" " + chr(97 + k) * 2000 for k in range(10))
else:
    text = "中文"
if call == "count_tokens":
    fn = lambda: ragchunk.count_tokens(text, encoding)
else:
    fn = lambda: ragchunk.naive_merge(text, 128, tokenizer=encoding)
times = []
for _ in range(2):
    t = time.perf_counter()
    fn()
    times.append(time.perf_counter() - t)
print(json.dumps(times))
"""


def cold(processes: int) -> None:
    """First and second call in fresh processes (see the module docstring)."""
    child = _COLD_CHILD.format(benches=str(Path(__file__).resolve().parent))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)

    def run(encoding: str, call: str, size: int) -> list[float]:
        out = subprocess.run(
            [sys.executable, "-c", child, encoding, call, str(size)],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        return [float(x) * 1e3 for x in json.loads(out)]

    print(f"\n## Cold start: fresh processes, medians of {processes} (ms)")
    head = ("encoding", "call", "first", "second", "ratio", "2 chars")
    print("  {:12s} {:13s} {:>8s} {:>8s} {:>6s} {:>8s}".format(*head))
    for encoding in ("cl100k_base", "o200k_base"):
        for call in ("count_tokens", "naive_merge"):
            firsts, seconds, tiny = [], [], []
            for _ in range(processes):  # interleaved: the tiny text between the big ones
                a, b = run(encoding, call, 1_000_000)
                firsts.append(a)
                seconds.append(b)
                tiny.append(run(encoding, call, 0)[0])
            f, s = statistics.median(firsts), statistics.median(seconds)
            print(
                f"  {encoding:12s} {call:13s} {f:8.1f} {s:8.1f} {f / s:5.1f}x"
                f" {statistics.median(tiny):8.2f}"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit-mb", type=float, default=8.0)
    ap.add_argument("--hf-limit-mb", type=float, default=2.0)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cold", action="store_true", help="time first calls in fresh processes")
    ap.add_argument("--processes", type=int, default=5, help="fresh processes per --cold figure")
    args = ap.parse_args()
    if dispatch.name() != "rust":
        sys.exit("the compiled core is not available")
    if args.cold:
        cold(args.processes)
        return
    label, docs = load_corpus(int(args.limit_mb * 1e6))
    print(f"corpus: {label}; ragchunk {ragchunk.__version__}")
    rate = encodings(docs, args.rounds)
    worst_case(rate, max(1, args.rounds // 2))
    _, small = load_corpus(int(args.hf_limit_mb * 1e6))
    hf_splitter(small, max(1, args.rounds // 2))


if __name__ == "__main__":
    main()
