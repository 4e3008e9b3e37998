"""CodeSplitter vs its peers, on real code: the fenced code blocks of ``../shared/corpus``.

Run from the repository root with a release build::

    .venv/bin/python benches/bench_code.py [--size 256] [--max-kb 400]

Inputs: the ```` ```rust ```` blocks of rust-book-en and the ```` ```{.python .input} ```` blocks
of d2l-zh, joined (blank line between blocks) into files of about 20 KB, at most ``--max-kb``
per language. Every library gets the same files and the same budget in cl100k_base tokens:
semantic-text-splitter's ``CodeSplitter`` (tree-sitter grammars from the ``tree-sitter-python``
/ ``tree-sitter-rust`` wheels) and LangChain's ``RecursiveCharacterTextSplitter.from_language``
(length counted with tiktoken). Results are checked, not just timed: ragchunk's chunks must be
within budget (exact count), slice the source back exactly and lose no non-whitespace
character, and the pure-Python fallback must agree on a subset.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import CORPUS, best_time, offline_tiktoken, print_table

offline_tiktoken()

from ragchunk import CodeSplitter  # noqa: E402
from ragchunk.core import dispatch  # noqa: E402

_SOURCES = {"rust": ("rust-book-en", "rust"), "python": ("d2l-zh", "python")}


def code_files(lang: str, max_bytes: int, file_bytes: int = 20_000) -> list[str]:
    """Consecutive fenced blocks of ``lang`` from its corpus folder, joined into files."""
    folder, tag = _SOURCES[lang]
    blocks: list[str] = []
    for path in sorted((CORPUS / folder).rglob("*.md")):
        lines = path.read_text(encoding="utf-8").split("\n")
        i = 0
        while i < len(lines):
            head = lines[i].strip()
            if head.startswith("```") and head[3:].lstrip("{.").startswith(tag):
                j = i + 1
                while j < len(lines) and not lines[j].strip().startswith("```"):
                    j += 1
                blocks.append("\n".join(lines[i + 1 : j]))
                i = j
            i += 1
    files, cur, total = [], [], 0
    for b in blocks:
        cur.append(b)
        size = sum(len(x.encode()) for x in cur)
        if size >= file_bytes:
            files.append("\n\n".join(cur))
            total += size
            cur = []
            if total >= max_bytes:
                break
    if cur and total < max_bytes:
        files.append("\n\n".join(cur))
    return files


REPEAT = 3  # best of three timings per contender


def check(docs: list[str], results: list[list[Any]], size: int) -> None:
    """ragchunk's promises on every chunk: exact slice, exact count within budget, lossless."""
    import tiktoken

    enc = tiktoken.get_encoding("cl100k_base")
    for text, chunks in zip(docs, results, strict=True):
        covered = bytearray(len(text))
        for c in chunks:
            assert c.text == text[c.start : c.end]
            assert c.token_count == len(enc.encode_ordinary(c.text))
            assert c.token_count <= size or c.end - c.start == 1
            covered[c.start : c.end] = b"\x01" * (c.end - c.start)
        assert all(covered[i] or ch.isspace() for i, ch in enumerate(text)), "lost text"


def bench(lang: str, docs: list[str], size: int) -> list[tuple[str, float, int]]:
    rows: list[tuple[str, float, int]] = []
    dispatch.set_backend("rust")
    cs = CodeSplitter(lang, size)
    t, res = best_time(lambda: [cs.split(d) for d in docs], REPEAT)
    check(docs, res, size)
    rows.append(("ragchunk CodeSplitter (Rust, one file at a time)", t, sum(map(len, res))))
    t, res_b = best_time(lambda: cs.split_batch(docs), REPEAT)
    assert res_b == res
    rows.append(("ragchunk CodeSplitter.split_batch (Rust, rayon)", t, sum(map(len, res_b))))
    sub = docs[: max(1, len(docs) // 4)]
    dispatch.set_backend("python")
    t_py, res_py = best_time(lambda: [cs.split(d) for d in sub])
    dispatch.set_backend("rust")
    assert res_py == [cs.split(d) for d in sub], "backends disagree"
    scale = sum(map(len, docs)) / sum(map(len, sub))
    rows.append(("ragchunk CodeSplitter (pure-Python fallback)", t_py * scale, -1))

    try:
        import importlib

        from semantic_text_splitter import CodeSplitter as SemCode

        grammar = importlib.import_module(f"tree_sitter_{lang}").language()
        sem = SemCode.from_tiktoken_model(grammar, "gpt-3.5-turbo", size)
        t, out = best_time(lambda: [sem.chunks(d) for d in docs], REPEAT)
        rows.append(("semantic-text-splitter CodeSplitter", t, sum(map(len, out))))
    except ImportError as exc:
        print(f"(semantic-text-splitter unavailable: {exc})")
    try:
        import tiktoken
        from langchain_text_splitters import Language, RecursiveCharacterTextSplitter

        enc = tiktoken.get_encoding("cl100k_base")
        lc = RecursiveCharacterTextSplitter.from_language(
            Language.RUST if lang == "rust" else Language.PYTHON,
            chunk_size=size,
            chunk_overlap=0,
            length_function=lambda s: len(enc.encode_ordinary(s)),
        )
        t, out = best_time(lambda: [lc.split_text(d) for d in docs], REPEAT)
        rows.append(
            ("LangChain RecursiveCharacterTextSplitter.from_language", t, sum(map(len, out)))
        )
    except ImportError as exc:
        print(f"(langchain-text-splitters unavailable: {exc})")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=256, help="budget in cl100k_base tokens")
    ap.add_argument("--max-kb", type=int, default=400, help="code per language, in KB")
    args = ap.parse_args()
    for lang in ("rust", "python"):
        docs = code_files(lang, args.max_kb * 1000)
        mb = sum(len(d.encode()) for d in docs) / 1e6
        rows = bench(lang, docs, args.size)
        print(
            f"\n{lang}: {len(docs)} files, {mb:.2f} MB, budget {args.size} tokens (cl100k_base)\n"
        )
        print_table(rows, mb, "ragchunk Rust", 3)


def test_bench_code_smoke() -> None:
    """One small run of the benchmark's ragchunk half (checks included), so it never rots."""
    if not CORPUS.is_dir():
        return
    for lang in ("rust", "python"):
        docs = code_files(lang, 30_000)
        assert docs
        cs = CodeSplitter(lang, 128)
        res = cs.split_batch(docs)
        check(docs, res, 128)
        assert res == [cs.split(d) for d in docs]


if __name__ == "__main__":
    main()
