"""The ``eval`` subcommand: sweep a chunker over sizes and overlaps on a dataset and print the
table (``ragchunk eval ...``, also ``python -m ragchunk.eval ...``); with ``--answers`` a model
answers from the retrieved chunks and the answers are scored too. ``ragchunk eval generate
CORPUS_DIR ...`` writes a question set from a folder of documents.

>>> import argparse
>>> p = argparse.ArgumentParser(); add_arguments(p)
>>> a = p.parse_args(["--dataset", "d", "--chunk-size", "200,400", "--overlap", "0,0.25"])
>>> a.chunk_size, a.overlap, a.k
([200, 400], [0.0, 0.25], [5])
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
from typing import Any

from ._common import add_chunker, add_embedder

__all__ = ["ALIASES", "add_arguments", "run", "run_generate"]

#: Aliases of this command only: ``token`` is the token-window splitter here (the cleaning
#: pipeline component that ``ragchunk chunk --chunker token`` names gives no offsets, which
#: span metrics need).
ALIASES = {"token": "token-window"}
RETRIEVERS = ("bm25", "dense", "hybrid")


def _ints(name: str) -> Any:
    def parse(text: str) -> list[int]:
        try:
            vals = [int(v) for v in text.split(",") if v.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{name} must be comma-separated integers, got {text!r}"
            ) from None
        if not vals or any(v <= 0 for v in vals):
            raise argparse.ArgumentTypeError(f"{name} must be integers >= 1, got {text!r}")
        return vals

    return parse


def _overlaps(text: str) -> list[float]:
    try:
        vals = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--overlap must be comma-separated numbers, got {text!r}"
        ) from None
    if not vals or any(v < 0 for v in vals):
        raise argparse.ArgumentTypeError(f"--overlap must be numbers >= 0, got {text!r}")
    return vals


def _add_model(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--base-url", help="an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1"
    )
    parser.add_argument("--model", help="the model name at --base-url")
    parser.add_argument(
        "--api-key-env",
        default="OPENAI_API_KEY",
        help="the environment variable holding the API key (local servers need none)",
    )
    parser.add_argument(
        "--cache",
        default=".ragchunk-cache/llm.sqlite",
        help="the answer cache: a re-run or an interrupted run asks only what is missing "
        "(default: .ragchunk-cache/llm.sqlite; 'none' for no cache)",
    )
    parser.add_argument("--max-concurrency", type=int, default=4, help="calls at once (4)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per request")
    parser.add_argument(
        "--dry-run", action="store_true", help="print calls and tokens, call nothing"
    )
    parser.add_argument("--input-price", type=float, help="price per million prompt tokens")
    parser.add_argument("--output-price", type=float, help="price per million completion tokens")


def _add_generate(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("corpus_dir", help="a folder of UTF-8 documents (or one file)")
    parser.add_argument("--out", required=True, help="the question set to write (.jsonl)")
    parser.add_argument(
        "--include", default="*.md,*.txt", help="comma-separated file patterns (*.md,*.txt)"
    )
    parser.add_argument("--per-corpus", type=int, default=5, help="proposals per document (5)")
    parser.add_argument("--seed", type=int, default=0, help="the windows' random seed (0)")
    parser.add_argument("--window", type=int, default=4000, help="characters shown per call")
    add_embedder(parser, "--filter-embedder", "enables Chroma's filters")
    parser.add_argument("--embed-model", help="the model name at an OpenAI-compatible embedder")
    _add_model(parser)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the subcommand's options to ``parser`` (and its ``generate`` subcommand)."""
    sub = parser.add_subparsers(dest="eval_command", metavar="generate", required=False)
    gen = sub.add_parser("generate", help="write a question set from a folder of documents")
    _add_generate(gen)
    parser.add_argument(
        "--dataset",
        help="a Chroma-layout directory (questions.csv, corpora/) or a .jsonl file (required)",
    )
    add_chunker(
        parser,
        chunker_help="any chunker `ragchunk chunk` takes, by alias or class name (default: "
        "recursive)",
        sized=False,
        example="-o length=chars",
    )
    parser.add_argument(
        "--chunk-size",
        type=_ints("--chunk-size"),
        default=[200, 400, 800],
        help="comma-separated sizes in tokens",
    )
    parser.add_argument(
        "--overlap",
        type=_overlaps,
        default=[0.0],
        help="comma-separated overlaps: a fraction of the size when < 1, else tokens",
    )
    parser.add_argument(
        "--retriever",
        default="bm25",
        choices=RETRIEVERS,
        help="bm25, dense (embeddings) or hybrid (both, fused by rank) (default: bm25)",
    )
    add_embedder(parser, "--embedder", "for dense and hybrid", default="wordllama")
    parser.add_argument("--embed-model", help="the model name at an OpenAI-compatible --embedder")
    parser.add_argument(
        "--tokenizer",
        default="english",
        choices=("english", "cjk", "whitespace"),
        help="BM25 tokenizer",
    )
    parser.add_argument("--k", type=_ints("--k"), default=[5], help="comma-separated cut-offs")
    parser.add_argument("--csv", help="write the table as CSV here")
    parser.add_argument("--json", help="write the rows (with per-question spans) as JSON here")
    parser.add_argument("--png", help="plot recall against chunk size here (needs matplotlib)")
    parser.add_argument("--metric", default="recall_mean", help="the metric --png plots")
    parser.add_argument(
        "--answers",
        action="store_true",
        help="answer every question from its retrieved chunks with --model at --base-url and "
        "score the answers (overlap metrics and LLM judges)",
    )
    parser.add_argument("--judge-model", help="the judging model at --base-url (default --model)")
    parser.add_argument(
        "--judges",
        default="faithfulness,answer_relevance,context_precision,context_recall",
        help="comma-separated judged metrics ('' for none)",
    )
    add_embedder(parser, "--judge-embedder", "the embedder of answer relevance (without it, none)")
    _add_model(parser)


def _chunker(kind: str, size: int, overlap: int, options: dict[str, Any]) -> Any:
    """The chunker ``kind`` (an alias or class name of ``ragchunk chunk``) at ``size``, with
    ``overlap`` as its ``chunk_overlap`` where it takes one."""
    from ..chunkers import build_chunker
    from ..core.chunk import Splitter

    name = ALIASES.get(kind.lower(), kind)
    kwargs = dict(options)
    chunker = build_chunker(name, kwargs, size)
    if overlap:
        if "chunk_overlap" not in inspect.signature(type(chunker)).parameters:
            raise ValueError(f"--overlap: {type(chunker).__name__} takes no chunk_overlap")
        kwargs["chunk_overlap"] = overlap
        chunker = build_chunker(name, kwargs, size)
    if not isinstance(chunker, Splitter):
        raise ValueError(
            f"--chunker {kind}: {type(chunker).__name__} gives no offsets, which span metrics "
            "need; choose a splitter"
        )
    return chunker


def _embedder(spec: str, model: str | None) -> Any:
    if spec.startswith(("http://", "https://")):
        if not model:
            raise ValueError("--embedder URL needs --embed-model NAME")
        from ..embeddings import OpenAICompatibleEmbedder

        return OpenAICompatibleEmbedder(spec, model)
    name, _, dim = spec.partition(":")
    if name != "wordllama":
        raise ValueError(f"--embedder must be 'wordllama[:DIM]' or a base URL, got {spec!r}")
    from ..embeddings import load_wordllama

    if not dim:
        return load_wordllama()
    if not dim.isdigit():
        raise ValueError(f"--embedder wordllama:DIM needs an integer DIM, got {dim!r}")
    return load_wordllama(int(dim))


def _retriever(args: argparse.Namespace) -> Any:
    from ..eval.retrievers import BM25, Dense, Hybrid

    bm25 = BM25(tokenizer=args.tokenizer)
    if args.retriever == "bm25":
        return bm25
    dense = Dense(_embedder(args.embedder, args.embed_model))
    return dense if args.retriever == "dense" else Hybrid([bm25, dense])


def _llm(args: argparse.Namespace, model: str | None = None) -> Any:
    from ..llm import OpenAICompatible

    if not args.base_url or not args.model:
        raise ValueError("--base-url and --model name the model to call")
    return OpenAICompatible(
        args.base_url,
        model or args.model,
        api_key_env=args.api_key_env or None,
        cache=None if args.cache in ("", "none") else args.cache,
        max_concurrency=args.max_concurrency,
        timeout=args.timeout,
    )


def _price(args: argparse.Namespace) -> Any:
    from ..llm import Price

    if args.input_price is None and args.output_price is None:
        return None
    return Price(args.input_price or 0.0, args.output_price or 0.0)


def _print_estimate(e: Any, what: str) -> None:
    cost = "" if e.cost is None else f", cost {e.cost:.4f}"
    print(
        f"dry run of {what}: {e.calls} calls, {e.prompt_tokens} prompt tokens, "
        f"~{e.completion_tokens} completion tokens{cost} (no model call made)"
    )


def _print_usage(llm: Any) -> None:
    u = llm.usage
    print(
        f"model {llm.model}: {u.calls} calls, {u.cache_hits} from the cache, {u.failures} "
        f"failed, {u.prompt_tokens} prompt + {u.completion_tokens} completion tokens",
        file=sys.stderr,
    )


def run_generate(args: argparse.Namespace) -> int:
    """``ragchunk eval generate``: write a question set; returns the exit status."""
    from ..eval.dataset import save_jsonl
    from ..eval.generate import estimate_questions, generate_questions, read_corpora
    from ..io.files import split_patterns

    try:
        patterns = split_patterns(args.include)
        corpora = read_corpora(args.corpus_dir, patterns)
        if args.dry_run:
            e = estimate_questions(
                corpora,
                per_corpus=args.per_corpus,
                seed=args.seed,
                window=args.window,
                price=_price(args),
            )
            _print_estimate(e, f"question generation over {len(corpora)} documents")
            return 0
        llm = _llm(args)
        embedder = (
            None
            if args.filter_embedder is None
            else _embedder(args.filter_embedder, args.embed_model)
        )
        ds = generate_questions(
            corpora,
            llm,
            per_corpus=args.per_corpus,
            embedder=embedder,
            seed=args.seed,
            window=args.window,
        )
        save_jsonl(ds, args.out)
    except (OSError, ValueError, TypeError, ImportError) as exc:
        print(f"ragchunk eval generate: error: {exc}", file=sys.stderr)
        return 2
    r = ds.metadata["report"]
    print(
        f"{r['kept']} questions kept of {r['proposed']} proposed over {len(corpora)} documents "
        f"-> {args.out}"
    )
    print(
        "dropped: "
        + ", ".join(
            f"{r[k]} {k.replace('_', ' ')}"
            for k in (
                "failed",
                "unparsable",
                "too_many_references",
                "not_found",
                "poor_excerpts",
                "duplicates",
            )
        )
    )
    print(f"excerpts located: {r['exact']} exact, {r['normalised']} normalised, {r['fuzzy']} fuzzy")
    _print_usage(llm)
    return 0


def run(args: argparse.Namespace) -> int:
    """Run the sweep ``args`` describe; print the table. Returns the exit status (0, or 2 on
    bad input, reported on stderr)."""
    from ..chunkers import parse_options
    from ..eval.dataset import load_chroma, load_jsonl
    from ..eval.sweep import evaluate, plot

    if getattr(args, "eval_command", None) == "generate":
        return run_generate(args)
    try:
        if not args.dataset:
            raise ValueError("--dataset is required (or use: ragchunk eval generate CORPUS_DIR)")
        options = parse_options(args.option)
        path = args.dataset
        dataset = load_jsonl(path) if os.path.isfile(path) else load_chroma(path)
        chunkers = []
        asked: dict[tuple[Any, Any], float] = {}  # (size, overlap tokens) -> --overlap value
        for size in args.chunk_size:
            for ov in args.overlap:
                tokens = round(ov * size) if ov < 1 else int(ov)
                if tokens >= size:
                    raise ValueError(f"--overlap {ov} is not smaller than --chunk-size {size}")
                chunkers.append(_chunker(args.chunker, size, tokens, options))
                asked.setdefault((size, tokens), int(ov) if float(ov).is_integer() else ov)
        stage: dict[str, Any] = {}
        if args.answers:
            stage["answers"] = _llm(args)
            if args.judge_model:
                stage["judge"] = _llm(args, args.judge_model)
            stage["judges"] = [j.strip() for j in args.judges.split(",") if j.strip()]
            if args.judge_embedder:
                stage["answer_embedder"] = _embedder(args.judge_embedder, args.embed_model)
            stage["dry_run"] = args.dry_run
        result = evaluate(dataset, chunkers, _retriever(args), k=args.k, **stage)
        for row in result.rows:  # the plot draws one line per --overlap value
            key = (row.config.get("chunk_size"), row.config.get("chunk_overlap"))
            ov = asked.get(key)
            if ov is not None:
                row.config["overlap"] = ov
    except (OSError, ValueError, TypeError, ImportError) as exc:
        print(f"ragchunk eval: error: {exc}", file=sys.stderr)
        return 2
    if result.estimate is not None:
        est = result.estimate
        if args.input_price is not None or args.output_price is not None:
            from dataclasses import replace

            est = replace(est, price=_price(args))
        _print_estimate(est, f"the answers stage ({len(result.rows)} rows)")
        return 0
    print(result.format())
    if args.answers:
        _print_usage(stage["answers"])
        if "judge" in stage:
            _print_usage(stage["judge"])
    print(
        f"{len(chunkers)} configurations, {len(dataset.questions)} questions, "
        f"{result.seconds:.2f} s",
        file=sys.stderr,
    )
    if args.csv:
        result.to_csv(args.csv)
    if args.json:
        result.to_json(args.json)
    if args.png:
        try:
            plot(result, args.metric, args.png)
        except (ImportError, ValueError) as exc:
            print(f"ragchunk eval: error: {exc}", file=sys.stderr)
            return 2
    return 0
