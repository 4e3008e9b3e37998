"""Classic splitters: pytest-benchmark suite, and a side-by-side comparison with the peers.

    .venv/bin/python -m pytest benches/bench_classic.py --benchmark-only     # timings
    .venv/bin/python benches/bench_classic.py [--limit-mb 4] [--rounds 3]    # ratios vs peers

Every benchmark asserts its result (LangChain parity where parity is promised, offsets and
budgets otherwise). The comparison times each contender on the same documents
(``../shared/corpus``) in interleaved rounds and prints MB/s medians and each peer's time as
a multiple of ragchunk's (higher = ragchunk faster), after one untimed warm-up round. Rows
marked (floor) or (reference) time work no splitter can skip, to show how far a ratio can go.
Peers are optional (``pip install ragchunk[bench]``); missing ones are skipped and listed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpus import load_corpus, offline_tiktoken

offline_tiktoken()

from ragchunk import (  # noqa: E402
    CharacterSplitter,
    RecursiveSplitter,
    SentenceSplitter,
    TokenWindowSplitter,
)
from ragchunk.core import dispatch  # noqa: E402

SIZE_TOKENS = 512
SIZE_CHARS = 2000
OVERLAP_TOKENS = 50
OVERLAP_CHARS = 200


@pytest.fixture(scope="module")
def sample() -> list[str]:
    _, docs = load_corpus(limit_bytes=400_000)
    return docs


def _check_spans(docs: list[str], result: list[list[Any]], budget: int) -> None:
    assert len(result) == len(docs)
    for text, chunks in zip(docs, result, strict=True):
        for c in chunks:
            assert text[c.start : c.end] == c.text
            assert c.token_count <= budget or len(c.text) == 1


def test_bench_recursive_tokens(benchmark: Any, sample: list[str]) -> None:
    s = RecursiveSplitter(SIZE_TOKENS, OVERLAP_TOKENS)
    got = benchmark(lambda: [s.split_text(d) for d in sample])
    lc = pytest.importorskip("langchain_text_splitters")
    oracle = lc.RecursiveCharacterTextSplitter.from_tiktoken_encoder(
        encoding_name="cl100k_base",
        chunk_size=SIZE_TOKENS,
        chunk_overlap=OVERLAP_TOKENS,
        disallowed_special=(),
    )
    assert got == [oracle.split_text(d) for d in sample]


def test_bench_recursive_chars(benchmark: Any, sample: list[str]) -> None:
    s = RecursiveSplitter(SIZE_CHARS, OVERLAP_CHARS, length="chars")
    got = benchmark(lambda: [s.split_text(d) for d in sample])
    lc = pytest.importorskip("langchain_text_splitters")
    oracle = lc.RecursiveCharacterTextSplitter(chunk_size=SIZE_CHARS, chunk_overlap=OVERLAP_CHARS)
    assert got == [oracle.split_text(d) for d in sample]


def test_bench_recursive_batch(benchmark: Any, sample: list[str]) -> None:
    s = RecursiveSplitter(SIZE_TOKENS, OVERLAP_TOKENS)
    got = benchmark(lambda: s.split_batch(sample))
    assert got == [s.split(d) for d in sample]


def test_bench_character(benchmark: Any, sample: list[str]) -> None:
    s = CharacterSplitter(SIZE_CHARS, OVERLAP_CHARS)
    got = benchmark(lambda: s.split_batch(sample))
    _check_spans(sample, got, SIZE_CHARS)


def test_bench_token_window(benchmark: Any, sample: list[str]) -> None:
    s = TokenWindowSplitter(SIZE_TOKENS, OVERLAP_TOKENS)
    got = benchmark(lambda: s.split_batch(sample))
    _check_spans(sample, got, SIZE_TOKENS)


def test_bench_sentence(benchmark: Any, sample: list[str]) -> None:
    s = SentenceSplitter(SIZE_TOKENS, 1)
    got = benchmark(lambda: s.split_batch(sample))
    _check_spans(sample, got, SIZE_TOKENS)


# ---- side-by-side comparison -----------------------------------------------------------------

Run = Callable[[list[str]], int]


def _each(split: Callable[[str], Any]) -> Run:
    return lambda docs: sum(len(split(d)) for d in docs)


def _slicing_floor(splitter: RecursiveSplitter) -> Run:
    """Only the output strings: ``text[start:end]`` for the chunk spans ``splitter`` found
    (computed once, outside the timing). No splitter that returns these strings can beat it."""
    spans: dict[int, list[list[tuple[int, int]]]] = {}

    def run(docs: list[str]) -> int:
        got = spans.get(id(docs))
        if got is None:
            got = spans[id(docs)] = [[(c.start, c.end) for c in splitter.split(d)] for d in docs]
        return sum(len([d[a:b] for a, b in sp]) for d, sp in zip(docs, got, strict=True))

    return run


def _peers() -> tuple[dict[str, list[tuple[str, Run]]], list[str]]:
    """Per task: [(name, run)], ragchunk first. Each run returns the number of chunks.

    Rows marked ``(floor)`` or ``(reference)`` are not splitters: they time the part of the
    work no splitter can skip (building the output strings; tokenizing the text) to show how
    far the ratios can go."""
    import tiktoken

    enc = tiktoken.get_encoding("cl100k_base")

    skipped: list[str] = []
    rec_t = RecursiveSplitter(SIZE_TOKENS, OVERLAP_TOKENS)
    rec_c = RecursiveSplitter(SIZE_CHARS, OVERLAP_CHARS, length="chars")
    win = TokenWindowSplitter(SIZE_TOKENS, OVERLAP_TOKENS)
    sen = SentenceSplitter(SIZE_TOKENS)
    tasks: dict[str, list[tuple[str, Run]]] = {
        "recursive, tokens (512/50)": [
            ("ragchunk RecursiveSplitter.split_text", _each(rec_t.split_text)),
            (
                "ragchunk RecursiveSplitter.split_batch",
                lambda d: sum(map(len, rec_t.split_batch(d))),
            ),
        ],
        "recursive, chars (2000/200)": [
            ("ragchunk RecursiveSplitter.split_text", _each(rec_c.split_text)),
            ("(floor) Python slicing of the same chunks", _slicing_floor(rec_c)),
        ],
        "token windows (512/50)": [
            ("ragchunk TokenWindowSplitter.split_text", _each(win.split_text)),
            ("ragchunk TokenWindowSplitter.split (Chunk objects)", _each(win.split)),
            ("(reference) tiktoken encode_ordinary", _each(enc.encode_ordinary)),
        ],
        "sentences packed (512 tokens)": [
            ("ragchunk SentenceSplitter.split", _each(sen.split)),
        ],
    }
    core = dispatch.core()
    if core is not None:
        tasks["token windows (512/50)"].append(
            (
                "(reference) ragchunk count_ordinary",
                lambda d: sum(0 * core.count_ordinary(x, "cl100k_base") for x in d),
            )
        )
    try:
        import langchain_text_splitters as lc

        lct = lc.RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name="cl100k_base",
            chunk_size=SIZE_TOKENS,
            chunk_overlap=OVERLAP_TOKENS,
            disallowed_special=(),
        )
        lcc = lc.RecursiveCharacterTextSplitter(chunk_size=SIZE_CHARS, chunk_overlap=OVERLAP_CHARS)
        lcw = lc.TokenTextSplitter(
            encoding_name="cl100k_base",
            chunk_size=SIZE_TOKENS,
            chunk_overlap=OVERLAP_TOKENS,
            disallowed_special=(),
        )
        tasks["recursive, tokens (512/50)"].append(
            (
                "LangChain RecursiveCharacterTextSplitter",
                _each(lct.split_text),
            )
        )
        tasks["recursive, chars (2000/200)"].append(
            (
                "LangChain RecursiveCharacterTextSplitter",
                _each(lcc.split_text),
            )
        )
        tasks["token windows (512/50)"].append(
            ("LangChain TokenTextSplitter", _each(lcw.split_text))
        )
    except ImportError:
        skipped.append("langchain-text-splitters")
    try:
        import semchunk

        chunker = semchunk.chunkerify(enc, SIZE_TOKENS)
        tasks["recursive, tokens (512/50)"].append(
            ("semchunk (no overlap)", lambda d: sum(len(chunker(x)) for x in d))
        )
    except ImportError:
        skipped.append("semchunk")
    try:
        from semantic_text_splitter import TextSplitter

        sts_t = TextSplitter.from_tiktoken_model("gpt-4", SIZE_TOKENS, OVERLAP_TOKENS)
        sts_c = TextSplitter(SIZE_CHARS, OVERLAP_CHARS)
        tasks["recursive, tokens (512/50)"].append(("semantic-text-splitter", _each(sts_t.chunks)))
        tasks["recursive, chars (2000/200)"].append(("semantic-text-splitter", _each(sts_c.chunks)))
    except ImportError:
        skipped.append("semantic-text-splitter")
    try:
        from chonkie import RecursiveChunker, SentenceChunker, TokenChunker

        ch_r = RecursiveChunker(tokenizer=enc, chunk_size=SIZE_TOKENS)
        ch_t = TokenChunker(tokenizer=enc, chunk_size=SIZE_TOKENS, chunk_overlap=OVERLAP_TOKENS)
        ch_s = SentenceChunker(tokenizer=enc, chunk_size=SIZE_TOKENS)
        tasks["recursive, tokens (512/50)"].append(
            ("chonkie RecursiveChunker (no overlap)", _each(ch_r.chunk))
        )
        tasks["token windows (512/50)"].append(("chonkie TokenChunker", _each(ch_t.chunk)))
        tasks["sentences packed (512 tokens)"].append(
            ("chonkie SentenceChunker", _each(ch_s.chunk))
        )
    except Exception as exc:  # chonkie imports optional deps lazily
        skipped.append(f"chonkie ({exc.__class__.__name__})")
    return tasks, skipped


def sentence_agreement(limit_kb: int) -> None:
    """Sentence-end agreement of SentenceSplitter with pysbd, per corpus source."""
    import pysbd
    from _corpus import CORPUS

    def ends_of(text: str, spans: list[tuple[int, int]]) -> set[int]:
        out = set()
        for a, b in spans:
            seg = text[a:b]
            if seg.strip():
                out.add(a + len(seg.rstrip()))
        return out

    print("| source | pysbd language | sentences (ours / pysbd) | precision | recall | F1 |")
    print("|---|---|---|---|---|---|")
    for source in sorted(p.name for p in CORPUS.iterdir() if p.is_dir()):
        lang = "zh" if source.endswith("-zh") or source == "d2l-zh" else "en"
        text, total = [], 0
        for path in sorted((CORPUS / source).rglob("*.md")):
            text.append(path.read_text(encoding="utf-8"))
            total += len(text[-1])
            if total > limit_kb * 1000:
                break
        doc = "\n\n".join(text)[: limit_kb * 1000]
        ours = {b for _, b in SentenceSplitter.sentence_spans(doc)}
        seg = pysbd.Segmenter(language=lang, clean=False, char_span=True)
        theirs = ends_of(doc, [(s.start, s.end) for s in seg.segment(doc)])
        both = len(ours & theirs)
        p, r = both / max(1, len(ours)), both / max(1, len(theirs))
        f1 = 2 * p * r / max(1e-9, p + r)
        print(f"| {source} | {lang} | {len(ours)} / {len(theirs)} | {p:.3f} | {r:.3f} | {f1:.3f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--limit-mb", type=float, default=4.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument(
        "--agreement",
        type=int,
        metavar="KB",
        default=0,
        help="instead: sentence agreement with pysbd on KB of each source",
    )
    args = ap.parse_args()
    if args.agreement:
        sentence_agreement(args.agreement)
        return
    label, docs = load_corpus(limit_bytes=int(args.limit_mb * 1e6))
    mb = sum(len(d.encode()) for d in docs) / 1e6
    tasks, skipped = _peers()
    print(f"corpus: {label}; {mb:.1f} MB; {args.rounds} interleaved rounds, median")
    for task, runs in tasks.items():
        times: dict[str, list[float]] = {name: [] for name, _ in runs}
        chunks: dict[str, int] = {}
        for _, run in runs:
            run(docs)  # untimed warm-up: lazy vocabularies, the floor rows' spans
        for _ in range(args.rounds):
            for name, run in runs:
                t0 = time.perf_counter()
                chunks[name] = run(docs)
                times[name].append(time.perf_counter() - t0)
        base = statistics.median(times[runs[0][0]])
        print(f"\n## {task}")
        print("| contender | MB/s | time / ragchunk's | chunks |\n|---|---|---|---|")
        for name, _ in runs:
            t = statistics.median(times[name])
            print(f"| {name} | {mb / t:.1f} | {t / base:.1f}x | {chunks[name]} |")
    if skipped:
        print("\nskipped (not installed):", ", ".join(skipped))


if __name__ == "__main__":
    main()
