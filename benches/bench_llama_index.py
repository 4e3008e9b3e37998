"""LlamaIndex drop-ins: each timed against the LlamaIndex class it replaces, same outputs.

    .venv/bin/python -m pytest benches/bench_llama_index.py --benchmark-only   # timings
    .venv/bin/python benches/bench_llama_index.py [--limit-mb 4] [--rounds 3]  # ratios

The comparison runs ``split_text`` over every document (``../shared/corpus``, the whole of it
by default), ``split_texts`` over all of them at once and ``get_nodes_from_documents`` on
``Document``s with metadata, for ``SentenceSplitter`` and ``TokenTextSplitter`` with
LlamaIndex's default tokenizer, in interleaved rounds after one untimed warm-up round. It
asserts, in every round, that the drop-in's chunks equal LlamaIndex's and, for nodes, that
text, offsets, metadata, relationships and hashes are equal (ids from one ``id_func``). It
prints MB/s medians and LlamaIndex's time as a multiple of the drop-in's.
"""

from __future__ import annotations

import argparse
import json
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

li = pytest.importorskip("llama_index.core.node_parser")
from llama_index.core import Document  # noqa: E402
from ragchunk.integrations import llama_index as ours  # noqa: E402

SIZE = 512
OVERLAP = 50
PAIRS = [
    ("SentenceSplitter", ours.SentenceSplitter, li.SentenceSplitter),
    ("TokenTextSplitter", ours.TokenTextSplitter, li.TokenTextSplitter),
]


def ids(i: int, doc: Any) -> str:
    return f"{doc.id_}-{i}"


def documents(docs: list[str]) -> list[Any]:
    return [
        Document(text=t, id_=f"doc{i}", metadata={"file_name": f"doc{i}.md"})
        for i, t in enumerate(docs)
    ]


def _related(value: Any) -> Any:
    if isinstance(value, list):
        return [_related(v) for v in value]
    return (value.node_id, value.hash)


def node_view(nodes: list[Any]) -> list[tuple[Any, ...]]:
    return [
        (
            n.id_,
            n.text,
            n.start_char_idx,
            n.end_char_idx,
            n.metadata,
            sorted((str(k), _related(v)) for k, v in n.relationships.items()),
            n.hash,
        )
        for n in nodes
    ]


@pytest.fixture(scope="module")
def sample() -> list[str]:
    _, docs = load_corpus(limit_bytes=300_000)
    return docs


@pytest.mark.parametrize(("name", "drop_in", "theirs"), PAIRS, ids=[p[0] for p in PAIRS])
def test_bench_llama_index_split_text(
    benchmark: Any, sample: list[str], name: str, drop_in: Any, theirs: Any
) -> None:
    splitter = drop_in(chunk_size=SIZE, chunk_overlap=OVERLAP)
    got = benchmark(lambda: [splitter.split_text(d) for d in sample])
    oracle = theirs(chunk_size=SIZE, chunk_overlap=OVERLAP)
    assert got == [oracle.split_text(d) for d in sample]


@pytest.mark.parametrize(("name", "drop_in", "theirs"), PAIRS, ids=[p[0] for p in PAIRS])
def test_bench_llama_index_nodes(
    benchmark: Any, sample: list[str], name: str, drop_in: Any, theirs: Any
) -> None:
    splitter = drop_in(chunk_size=SIZE, chunk_overlap=OVERLAP, id_func=ids)
    got = benchmark(lambda: splitter.get_nodes_from_documents(documents(sample)))
    oracle = theirs(chunk_size=SIZE, chunk_overlap=OVERLAP, id_func=ids)
    assert node_view(got) == node_view(oracle.get_nodes_from_documents(documents(sample)))


def as_json(docs: list[str]) -> list[str]:
    """Each document as a JSON array of its paragraphs, each an object of a few fields."""
    return [
        json.dumps(
            [
                {"n": i, "text": p, "meta": {"chars": len(p), "lines": p.count("\n")}}
                for i, p in enumerate(d.split("\n\n"))
            ],
            ensure_ascii=False,
        )
        for d in docs
    ]


def hierarchical(cls: Any) -> Any:
    """``cls.from_defaults()`` (sizes 2048, 512, 128) with every level's ids from ``ids``."""
    parser = cls.from_defaults()
    for level in parser.node_parser_map.values():
        level.id_func = ids
    return parser


# The node parsers: (name, the drop-in's parser, LlamaIndex's, the documents they parse).
NODE_PAIRS: list[tuple[str, Callable[[], Any], Callable[[], Any], Callable[[list[str]], Any]]] = [
    (
        "MarkdownNodeParser",
        lambda: ours.MarkdownNodeParser(id_func=ids),
        lambda: li.MarkdownNodeParser(id_func=ids),
        documents,
    ),
    (
        "JSONNodeParser",
        lambda: ours.JSONNodeParser(id_func=ids),
        lambda: li.JSONNodeParser(id_func=ids),
        lambda d: documents(as_json(d)),
    ),
    (
        "SentenceWindowNodeParser",
        lambda: ours.SentenceWindowNodeParser(id_func=ids),
        lambda: li.SentenceWindowNodeParser(id_func=ids),
        documents,
    ),
    (
        "HierarchicalNodeParser",
        lambda: hierarchical(ours.HierarchicalNodeParser),
        lambda: hierarchical(li.HierarchicalNodeParser),
        documents,
    ),
]


@pytest.mark.parametrize(
    ("name", "drop_in", "theirs", "docs"), NODE_PAIRS, ids=[p[0] for p in NODE_PAIRS]
)
def test_bench_llama_index_node_parsers(
    benchmark: Any, sample: list[str], name: str, drop_in: Any, theirs: Any, docs: Any
) -> None:
    parser = drop_in()
    small = [d[:3000] for d in sample[:3]]  # the smoke run stays cheap
    got = benchmark(lambda: parser.get_nodes_from_documents(docs(small)))
    assert node_view(got) == node_view(theirs().get_nodes_from_documents(docs(small)))


def compare_node_parsers(docs: list[str], mb: float, rounds: int) -> None:
    """LlamaIndex's node parsers against the drop-ins, interleaved rounds, median."""
    print("\n## node parsers: get_nodes_from_documents")
    print("| parser | LlamaIndex MB/s | ragchunk MB/s | LlamaIndex time / ragchunk's | nodes |")
    print("|---|---:|---:|---:|---:|")
    for name, drop_in, theirs, make in NODE_PAIRS:
        contenders = [("ragchunk", drop_in()), ("LlamaIndex", theirs())]
        times: dict[str, list[float]] = {who: [] for who, _ in contenders}
        expected = node_view(contenders[1][1].get_nodes_from_documents(make(docs)))
        assert node_view(contenders[0][1].get_nodes_from_documents(make(docs))) == expected
        for _ in range(rounds):
            for who, parser in contenders:
                inputs = make(docs)
                t0 = time.perf_counter()
                out = parser.get_nodes_from_documents(inputs)
                times[who].append(time.perf_counter() - t0)
                assert node_view(out) == expected, f"{name}: nodes differ"
        ours_t = statistics.median(times["ragchunk"])
        theirs_t = statistics.median(times["LlamaIndex"])
        print(
            f"| {name} | {mb / theirs_t:.2f} | {mb / ours_t:.2f} | "
            f"{theirs_t / ours_t:.1f}x | {len(expected)} |"
        )


# ---- side-by-side comparison -----------------------------------------------------------------

Task = tuple[str, Callable[[Any, list[str]], Any], Callable[[Any], Any]]

TASKS: list[Task] = [
    ("split_text, one document at a time", lambda s, d: [s.split_text(x) for x in d], lambda r: r),
    ("split_texts, all documents", lambda s, d: s.split_texts(d), lambda r: r),
    (
        "get_nodes_from_documents",
        lambda s, d: s.get_nodes_from_documents(documents(d)),
        node_view,
    ),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--limit-mb", type=float, default=None, help="default: the whole corpus")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only-nodes", action="store_true", help="only the node parsers")
    args = ap.parse_args()
    limit = None if args.limit_mb is None else int(args.limit_mb * 1e6)
    label, docs = load_corpus(limit_bytes=limit)
    mb = sum(len(d.encode()) for d in docs) / 1e6
    print(f"corpus: {label}; {mb:.1f} MB; chunk_size={SIZE}, chunk_overlap={OVERLAP};")
    print(f"LlamaIndex's default tokenizer; {args.rounds} interleaved rounds, median")
    compare_node_parsers(docs, mb, args.rounds)
    for name, drop_in, theirs in [] if args.only_nodes else PAIRS:
        print(f"\n## {name}")
        print("| task | LlamaIndex MB/s | ragchunk MB/s | LlamaIndex time / ragchunk's | chunks |")
        print("|---|---:|---:|---:|---:|")
        for task, run, view in TASKS:
            contenders = [
                ("ragchunk", drop_in(chunk_size=SIZE, chunk_overlap=OVERLAP, id_func=ids)),
                ("LlamaIndex", theirs(chunk_size=SIZE, chunk_overlap=OVERLAP, id_func=ids)),
            ]
            times: dict[str, list[float]] = {who: [] for who, _ in contenders}
            results: dict[str, Any] = {}
            for who, splitter in contenders:  # untimed warm-up
                results[who] = view(run(splitter, docs))
            assert results["ragchunk"] == results["LlamaIndex"], f"{name} {task}: outputs differ"
            for _ in range(args.rounds):
                for who, splitter in contenders:
                    t0 = time.perf_counter()
                    out = run(splitter, docs)
                    times[who].append(time.perf_counter() - t0)
                    assert view(out) == results["LlamaIndex"], f"{name} {task}: outputs differ"
            ours_t = statistics.median(times["ragchunk"])
            theirs_t = statistics.median(times["LlamaIndex"])
            n = len(results["LlamaIndex"])
            if task.startswith("split_text,"):
                n = sum(map(len, results["LlamaIndex"]))
            print(
                f"| {task} | {mb / theirs_t:.2f} | {mb / ours_t:.2f} | "
                f"{theirs_t / ours_t:.1f}x | {n} |"
            )


if __name__ == "__main__":
    main()
