"""ragchunk side by side with every peer, on the same documents, with exactness checks.

    .venv/bin/python benches/peers.py [--rounds 3] [--limit-mb N] [--same-docs] [--cut-kb K] [--cpu]
                                      [--semantic-docs 8] [--semantic-chars 20000]
                                      [--only PAIR ...] [--list] [--json OUT]

Each *pair* is a peer's chunker and ragchunk's nearest one, configured alike: tiktoken
``cl100k_base``, 512 tokens, no overlap. The documents are the Markdown files of
``../shared/corpus`` (else a generated multilingual corpus), taken in turn from each source
so that a ``--limit-mb`` sample mixes English and Chinese; ``--cut-kb K`` cuts them at blank
lines into pieces of about K kilobytes, many documents of ordinary length (where the fixed
cost of a call counts); ``--cpu`` times in the process's CPU time instead of wall time
(steadier when other programs load the machine). RAGFlow's ``naive_merge`` is RAGFlow's own
code, imported from a source tree (``benches/_ragflow_code.py``). All pairs run in one
process in interleaved rounds (every round times every pair, the two sides of a pair back to
back, in alternating order), so both sides of a pair see the same machine noise. Round ``r`` takes
documents ``r, r + rounds, ...`` (``--same-docs``: the whole sample every round), so no
chunker, nor a memo of its own, sees a document twice. Both sides chunk one document per call
on one thread, after an untimed warm-up call; the garbage collector runs (untimed) before
every timed call. Reported per pair: each side's MB/s (median of the rounds), the ratio peer
time / ragchunk time in each round and its median, chunk counts, and three checks on each
side's output (every document checked once):

* **lossless**: ``verbatim`` when every chunk is a substring of the document, in order, and
  what lies between consecutive chunks (and before the first, after the last) is whitespace
  only, i.e. the chunks slice back to the source modulo the chunker's own whitespace
  stripping; ``whitespace`` when only the non-whitespace characters survive in order (the
  chunker re-joins pieces with other whitespace, e.g. single spaces); else ``LOSSY`` (text
  lost, replaced (U+FFFD from a character cut in half) or repeated).
* **offsets**: where the chunker reports offsets (LlamaIndex's: its nodes'), the number of
  chunks whose text is not ``document[start:end]`` (``-`` when it reports none).
* **budget**: the largest chunk in ``cl100k_base`` tokens (``encode_ordinary`` of the chunk
  text) and how many chunks exceed 512.

Caches: semchunk memoises its token counter (its default); the cache is dropped before every
round, so each round sees the corpus for the first time, as ingestion does.

Semantic pairs (``--semantic-docs`` documents of at most ``--semantic-chars`` characters) run
twice: with a precomputed table (every text any of the chunkers asks to embed is embedded by
WordLlama before the clock; each library gets the table behind its own embedder interface, so
the time is the chunking alone) and with the WordLlama model itself end to end (one instance
per side, so neither warms the other's model). Text a chunker documents as added (ragchunk's
``metadata["added_prefix"]``) is taken off before the lossless check. The late
pair gives both libraries the same token vectors (a seeded table indexed by ``cl100k_base``
token id, looked up before the clock) and checks each chunk's vector against the mean of
the vectors of the tokens its span overlaps.

Peers are optional (``pip install 'ragchunk[bench]'``); a missing one is listed as skipped.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _corpus import offline_tiktoken  # noqa: E402

offline_tiktoken()

import ragchunk  # noqa: E402
from _peers_base import (  # noqa: E402
    ENC,
    SIZE,
    Out,
    Pair,
    Side,
    check,
    cut_documents,
    documents,
    each,
    from_chonkie,
    from_chunks,
    from_indices,
    from_semchunk,
    from_strings,
    llama_nodes,
    same_texts,
    semantic_documents,
)
from _peers_semantic import (  # noqa: E402
    _semantic_builders,
    late_pairs,
    semantic_pairs,
)

# -- the classic pairs ----------------------------------------------------------------------------


def classic_pairs(skipped: list[str]) -> list[Pair]:
    pairs: list[Pair] = []
    rc_recursive = ragchunk.RecursiveSplitter(SIZE)
    ours_recursive = Side("ragchunk RecursiveSplitter", each(rc_recursive.split), from_chunks)
    try:
        import chonkie

        ver = chonkie.__version__
        ch_t = chonkie.TokenChunker(tokenizer=ENC, chunk_size=SIZE, chunk_overlap=0)
        rc_t = ragchunk.TokenWindowSplitter(SIZE, 0)
        pairs.append(
            Pair(
                "chonkie-token",
                Side(f"Chonkie {ver} TokenChunker", each(ch_t.chunk), from_chonkie),
                Side("ragchunk TokenWindowSplitter", each(rc_t.split), from_chunks),
            )
        )
        ch_s = chonkie.SentenceChunker(tokenizer=ENC, chunk_size=SIZE, chunk_overlap=0)
        rc_s = ragchunk.SentenceSplitter(SIZE)
        pairs.append(
            Pair(
                "chonkie-sentence",
                Side(f"Chonkie {ver} SentenceChunker", each(ch_s.chunk), from_chonkie),
                Side("ragchunk SentenceSplitter", each(rc_s.split), from_chunks),
            )
        )
        ch_r = chonkie.RecursiveChunker(tokenizer=ENC, chunk_size=SIZE)
        pairs.append(
            Pair(
                "chonkie-recursive",
                Side(f"Chonkie {ver} RecursiveChunker", each(ch_r.chunk), from_chonkie),
                ours_recursive,
            )
        )
        try:
            import tree_sitter_language_pack  # noqa: F401
        except ImportError:
            skipped.append(
                "chonkie-code: Chonkie's CodeChunker needs tree-sitter-language-pack, which "
                "downloads its grammars at first use (not installed here)"
            )
    except ImportError as exc:
        skipped.append(f"chonkie-*: {exc}")
    try:
        import semchunk
        import semchunk.semchunk as _sc

        holder: dict[str, Any] = {}

        def fresh() -> None:
            # a new chunker with an empty token-count cache for every round
            getattr(_sc, "_memoized_token_counters", {}).clear()
            holder["c"] = semchunk.chunkerify(ENC, SIZE)

        fresh()
        pairs.append(
            Pair(
                "semchunk",
                Side(
                    "semchunk 4 chunkerify (offsets=True)",
                    lambda docs: [holder["c"](d, offsets=True) for d in docs],
                    from_semchunk,
                    prepare=fresh,
                ),
                ours_recursive,
                note="semchunk's token-count cache is emptied before every round",
            )
        )
    except ImportError as exc:
        skipped.append(f"semchunk: {exc}")
    try:
        from semantic_text_splitter import MarkdownSplitter as StsMarkdown
        from semantic_text_splitter import TextSplitter as StsText

        sts_t = StsText.from_tiktoken_model("gpt-4", SIZE)
        pairs.append(
            Pair(
                "text-splitter",
                Side(
                    "semantic-text-splitter TextSplitter.chunk_indices",
                    each(sts_t.chunk_indices),
                    from_indices,
                ),
                ours_recursive,
            )
        )
        sts_m = StsMarkdown.from_tiktoken_model("gpt-4", SIZE)
        rc_m = ragchunk.MarkdownSplitter(SIZE)
        pairs.append(
            Pair(
                "text-splitter-markdown",
                Side(
                    "semantic-text-splitter MarkdownSplitter.chunk_indices",
                    each(sts_m.chunk_indices),
                    from_indices,
                ),
                Side("ragchunk MarkdownSplitter", each(rc_m.split), from_chunks),
            )
        )
    except ImportError as exc:
        skipped.append(f"text-splitter: {exc}")
    try:
        from llama_index.core.node_parser import SentenceSplitter as LiSentence
        from llama_index.core.node_parser import TokenTextSplitter as LiToken
        from ragchunk.integrations import llama_index as rli

        for key, peer_cls, ours_cls in (
            ("llamaindex-sentence", LiSentence, rli.SentenceSplitter),
            ("llamaindex-token", LiToken, rli.TokenTextSplitter),
        ):
            p, o = (
                peer_cls(chunk_size=SIZE, chunk_overlap=0),
                ours_cls(chunk_size=SIZE, chunk_overlap=0),
            )
            pairs.append(
                Pair(
                    key,
                    Side(
                        f"LlamaIndex {peer_cls.__name__}.split_text",
                        each(p.split_text),
                        llama_nodes(p),
                    ),
                    Side(
                        f"ragchunk.integrations.llama_index.{ours_cls.__name__}.split_text",
                        each(o.split_text),
                        llama_nodes(o),
                    ),
                    note="offsets from get_nodes_from_documents",
                )
            )
    except ImportError as exc:
        skipped.append(f"llamaindex-*: {exc}")
    try:
        from langchain_text_splitters import RecursiveCharacterTextSplitter as LcRecursive
        from ragchunk.integrations.langchain import RecursiveCharacterTextSplitter as RcRecursive

        kw = {"encoding_name": "cl100k_base", "chunk_size": SIZE, "chunk_overlap": 0}
        lc = LcRecursive.from_tiktoken_encoder(**kw)
        rc_lc = RcRecursive.from_tiktoken_encoder(**kw)
        pairs.append(
            Pair(
                "langchain-recursive",
                Side(
                    "LangChain RecursiveCharacterTextSplitter.from_tiktoken_encoder",
                    each(lc.split_text),
                    from_strings,
                ),
                Side(
                    "ragchunk.integrations.langchain.RecursiveCharacterTextSplitter",
                    each(rc_lc.split_text),
                    from_strings,
                ),
            )
        )
    except ImportError as exc:
        skipped.append(f"langchain-recursive: {exc}")
    return pairs


# -- RAGFlow's naive_merge ------------------------------------------------------------------------


def ragflow_pairs(skipped: list[str]) -> list[Pair]:
    """``ragchunk.naive_merge`` against tiktoken's ``encode_ordinary`` (the unit the speed
    targets are stated in: counting alone, no chunks) and against RAGFlow's own code.

    Both pairs chunk the same documents with the same ragchunk side, so the second one to run
    finds ragchunk's per-thread memos warm: time each in its own process (``--only``)."""
    ours = Side("ragchunk.naive_merge", each(lambda d: ragchunk.naive_merge(d, SIZE)), from_strings)
    pairs = [
        Pair(
            "tiktoken-naive_merge",
            Side(
                "tiktoken encode_ordinary (count only)",
                each(ENC.encode_ordinary),
                lambda raw, docs: [[(d, None, None, "")] for d in docs],
            ),
            ours,
            note="tiktoken only encodes (the reference unit): its row counts each document as "
            "one chunk; run alone (--only), the RAGFlow pair warms ragchunk's memos",
        )
    ]
    try:
        from _ragflow_code import load_naive_merge

        rf = load_naive_merge()
        pairs.append(
            Pair(
                "ragflow-naive_merge",
                Side(
                    "RAGFlow v0.27 rag.nlp.naive_merge",
                    each(lambda d: rf(d, SIZE)),
                    from_strings,
                ),
                ours,
            )
        )
    except (FileNotFoundError, ImportError) as exc:
        skipped.append(f"ragflow-naive_merge: {exc}")
    return pairs


# -- running --------------------------------------------------------------------------------------


def merge_checks(a: dict[str, Any] | None, b: dict[str, Any]) -> dict[str, Any]:
    """Two :func:`check` results over disjoint documents as one."""
    if a is None:
        return b
    kinds = {k: a["docs_by_lossless"][k] + b["docs_by_lossless"][k] for k in a["docs_by_lossless"]}
    checked = a["offsets_checked"] + b["offsets_checked"]
    return {
        "chunks": a["chunks"] + b["chunks"],
        "lossless": "LOSSY"
        if kinds["LOSSY"]
        else ("whitespace" if kinds["whitespace"] else "verbatim"),
        "docs_by_lossless": kinds,
        "replacement_chars": a["replacement_chars"] + b["replacement_chars"],
        "documented_additions": a["documented_additions"] + b["documented_additions"],
        "offsets_checked": checked,
        "offsets_wrong": (a["offsets_wrong"] or 0) + (b["offsets_wrong"] or 0) if checked else None,
        "max_tokens": max(a["max_tokens"], b["max_tokens"]),
        "over_budget": a["over_budget"] + b["over_budget"],
    }


#: The warm-up document: prose, Chinese, and a 1,000-byte piece (a table rule), whose first
#: occurrence builds ragchunk's tables for long pieces (about 0.3 s, once per process).
_WARM_UP = "Warm up. " * 50 + "\n\n中文的句子。" * 20 + "\n\n|" + "-" * 1000 + "|\n"


def run_rounds(
    pairs: list[Pair],
    slices: list[list[str]],
    warm: list[str] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> None:
    """Time every pair on ``slices[r]`` in round ``r``, interleaved, after one untimed call
    of each side on ``warm``. Between timed calls (not timed): each output is checked (the
    first time its documents are seen) and dropped, and the garbage collector runs, so that
    every call starts with the same small heap."""
    for pair in pairs:  # warm-up, not timed: vocabularies and models load on first use
        for side in (pair.peer, pair.ours):
            if side.prepare is not None:
                side.prepare()
            side.run(warm or [_WARM_UP])
            if side.after_warm_up is not None:
                side.after_warm_up()
    checked: set[int] = set()
    for r, docs in enumerate(slices):
        fresh = id(docs) not in checked
        checked.add(id(docs))
        for pair in pairs:
            order = ("peer", "ours") if r % 2 == 0 else ("ours", "peer")
            outs: dict[str, list[list[Out]]] = {}
            for who in order:
                side = pair.peer if who == "peer" else pair.ours
                if side.prepare is not None:
                    side.prepare()
                gc.collect()
                t0 = clock()
                raw = side.run(docs)
                pair.times[who].append(clock() - t0)
                if fresh:
                    outs[who] = side.chunks(raw, docs)
                    pair.checks[who] = merge_checks(pair.checks.get(who), check(docs, outs[who]))
                del raw
            if fresh:
                pair.same = pair.same and same_texts(outs["peer"], outs["ours"])
                pair.docs += len(docs)
            del outs
        print(f"round {r + 1}/{len(slices)} done", file=sys.stderr, flush=True)


def report(pair: Pair, slices: list[list[str]]) -> dict[str, Any]:
    """Throughput per round and the checks (each document checked once)."""
    mbs = [sum(len(d.encode("utf-8")) for d in ds) / 1e6 for ds in slices]
    ratios = [p / o for p, o in zip(pair.times["peer"], pair.times["ours"], strict=True)]
    row: dict[str, Any] = {
        "pair": pair.name,
        "note": pair.note,
        "mb_per_round": mbs,
        "docs": pair.docs,
        "ratio_median": statistics.median(ratios),
        "ratios": ratios,
        "same_chunks": pair.same,
    }
    for who, side in (("peer", pair.peer), ("ours", pair.ours)):
        rates = [mb / t for mb, t in zip(mbs, pair.times[who], strict=True)]
        row[who] = {
            "name": side.name,
            "mbps": statistics.median(rates),
            "mbps_per_round": rates,
            "seconds": pair.times[who],
            **pair.checks[who],
            **(side.extra() if side.extra else {}),
        }
    return row


def print_table(rows: list[dict[str, Any]]) -> None:
    print(
        "| pair | peer | peer MB/s | ragchunk | ragchunk MB/s | peer time / ragchunk "
        "(median; rounds) | chunks peer / ragchunk | lossless peer / ragchunk | offsets wrong "
        "peer / ragchunk | max tokens peer / ragchunk (over 512) |"
    )
    print("|---|---|---:|---|---:|---:|---:|---|---|---|")

    def off(s: dict[str, Any]) -> str:
        return "-" if s["offsets_wrong"] is None else str(s["offsets_wrong"])

    def fmt(s: dict[str, Any]) -> str:
        return f"{s['max_tokens']} ({s['over_budget']})"

    for r in rows:
        p, o = r["peer"], r["ours"]
        rounds = ", ".join(f"{x:.1f}" for x in r["ratios"])
        print(
            f"| {r['pair']} | {p['name']} | {p['mbps']:.2f} | {o['name']} | {o['mbps']:.2f} "
            f"| **{r['ratio_median']:.1f}x** ({rounds}) | {p['chunks']} / {o['chunks']} "
            f"| {p['lossless']} / {o['lossless']} | {off(p)} / {off(o)} | {fmt(p)} / {fmt(o)} |"
        )
    for r in rows:
        notes = []
        if r["same_chunks"]:
            notes.append("identical chunk texts")
        for who in ("peer", "ours"):
            s = r[who]
            if s["replacement_chars"]:
                notes.append(f"{s['name']}: {s['replacement_chars']} U+FFFD from cut characters")
            if s["documented_additions"]:
                notes.append(
                    f"{s['name']}: {s['documented_additions']} chunks start with documented "
                    "added text (a cut table's header rows), checked as added + source slice"
                )
            if s["lossless"] != "verbatim":
                notes.append(f"{s['name']}: documents by lossless check {s['docs_by_lossless']}")
            for k in ("table_misses", "vectors_wrong"):
                if k in s:
                    notes.append(f"{s['name']}: {k} {s[k]}")
            if "model_seconds" in s:
                share = s["model_seconds"] / sum(s["seconds"])
                notes.append(f"{s['name']}: {100 * share:.0f}% of its time inside WordLlama")
        if r["note"]:
            notes.append(r["note"])
        if notes:
            print(f"- {r['pair']}: " + "; ".join(notes))


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--limit-mb", type=float, default=None, help="corpus sample size")
    ap.add_argument(
        "--same-docs",
        action="store_true",
        help="time every round on the whole sample (default: round r takes every rounds-th "
        "document from r on, so no chunker sees a document twice)",
    )
    ap.add_argument(
        "--cut-kb",
        type=float,
        default=None,
        help="cut the documents into pieces of about this many kilobytes (short documents)",
    )
    ap.add_argument(
        "--cpu",
        action="store_true",
        help="time the pairs in this process's CPU time, not wall time (a loaded machine)",
    )
    ap.add_argument("--semantic-docs", type=int, default=8)
    ap.add_argument("--semantic-chars", type=int, default=20000)
    ap.add_argument("--only", nargs="+", metavar="PAIR", help="run only these pairs")
    ap.add_argument("--list", action="store_true", help="list the pairs and exit")
    ap.add_argument("--json", metavar="OUT", help="write the results as JSON")
    args = ap.parse_args()

    skipped: list[str] = []
    classic = classic_pairs(skipped) + ragflow_pairs(skipped)
    semantic_names = [
        f"{n}/{m}" for n, _ in _semantic_builders([]) for m in ("table", "wordllama")
    ] + (["chonkie-late"] if any(p.name.startswith("chonkie") for p in classic) else [])
    if args.list:
        for p in classic:
            print(f"{p.name}: {p.peer.name} -> {p.ours.name}")
        for n in semantic_names:
            print(n)
        for s in skipped:
            print(f"skipped {s}")
        return
    only = set(args.only) if args.only else None
    if only is not None:
        known = {p.name for p in classic} | set(semantic_names)
        known |= {n.split("/")[0] for n in semantic_names}
        if only - known:
            ap.error(f"unknown or unavailable pairs: {', '.join(sorted(only - known))}")
        classic = [p for p in classic if p.name in only]

    label, docs = documents(args.limit_mb)
    if args.cut_kb:
        docs = cut_documents(docs, args.cut_kb)
        label += f", cut into {len(docs)} pieces of about {args.cut_kb:g} KB"
    load = os.getloadavg()
    print(f"corpus {label}; chunk size {SIZE} cl100k_base tokens, overlap 0")
    print(
        f"python {sys.version.split()[0]}, ragchunk {ragchunk.__version__} ({ragchunk.backend}), "
        f"load average before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    rows: list[dict[str, Any]] = []
    ragchunk.count_tokens(_WARM_UP)  # the tokenizer's lazily built tables, before any clock
    if classic:
        if args.same_docs:
            slices = [docs] * args.rounds
        else:
            slices = [docs[r :: args.rounds] for r in range(args.rounds)]
        print(
            "every round: the whole sample"
            if args.same_docs
            else f"round r: documents r, r + {args.rounds}, ... (each seen once, by both sides)"
        )
        run_rounds(classic, slices, clock=time.process_time if args.cpu else time.perf_counter)
        rows += [report(p, slices) for p in classic]
        load = os.getloadavg()
        print(f"load average after {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}\n")
        print_table(rows)
    want_semantic = only is None or any(
        n in only or n.split("/")[0] in only for n in semantic_names
    )
    if want_semantic:
        _, every = documents(None)
        sem_docs = semantic_documents(args.semantic_docs, args.semantic_chars, every)
        sem_mb = sum(len(d.encode("utf-8")) for d in sem_docs) / 1e6
        print(
            f"\nsemantic pairs: {len(sem_docs)} documents (at most {args.semantic_chars} "
            f"characters each), {sem_mb:.2f} MB, the same documents every round"
        )
        from ragchunk.embeddings import load_wordllama

        try:
            sem = semantic_pairs(sem_docs, load_wordllama(), only, skipped, load_wordllama())
        except ImportError as exc:
            sem = []
            skipped.append(f"semantic pairs (WordLlama, numpy): {exc}")
        if only is None or "chonkie-late" in only:
            sem += late_pairs(sem_docs, skipped)
        if sem:
            run_rounds(sem, [sem_docs] * args.rounds, warm=sem_docs[:1])
            sem_rows = [report(p, [sem_docs] * args.rounds) for p in sem]
            rows += sem_rows
            load = os.getloadavg()
            print(f"load average after {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}\n")
            print_table(sem_rows)
    for s in skipped:
        print(f"skipped {s}")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"corpus": label, "rows": rows, "skipped": skipped}, indent=1)
        )


if __name__ == "__main__":
    main()
