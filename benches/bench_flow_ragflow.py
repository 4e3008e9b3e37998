"""RAGFlow v0.27's own TokenChunker / TitleChunker code beside ragchunk's, byte-identical outputs.

    .venv/bin/python benches/bench_flow_ragflow.py [--ragflow-src DIR] [--limit-mb 2] [--rounds 3]

RAGFlow is not installable here, so the bench imports its component modules straight from a
source tree: ``--ragflow-src``, else ``$RAGFLOW_SRC``, else ``/work/ragflow-src``. Getting one
(release v0.27.0, commit ec9c08d809f63ba2815090182fa225899d2437d5)::

    git clone --filter=blob:none https://github.com/infiniflow/ragflow && cd ragflow
    git checkout v0.27.0
    mkdir -p /work/ragflow-src && git archive HEAD rag agent common deepdoc api \\
        | tar -x -C /work/ragflow-src

Only the modules the two components execute are imported for real: ``rag/flow/chunker/...``,
``rag/flow/base.py``, ``agent/component/base.py``, ``common/{token,float,connection,misc}_utils``,
``rag/flow/parser/pdf_chunk_metadata.py``, ``rag/nlp/__init__.py`` + ``delim.py`` and
``deepdoc/parser/{pdf_parser,utils}.py``. What those import but never call on this path (the
canvas, storage, DB services, OCR/layout models, xgboost, sklearn, web framework, a few
number-word packages) is replaced by the small stub modules defined below, and package
``__init__`` files that import every sibling are bypassed. One component instance is built per
parameter set (``param.update`` + ``check()``, as ``Graph`` does); each document is one
``await cpn._invoke(**upstream)`` followed by ``cpn.output()``, the sequence the golden vectors
were recorded with. ragchunk runs ``component.invoke(upstream)`` on its default (Rust) backend.

Workloads: every golden case that produces outputs (``../shared/golden/ragflow-flow``), and the
corpus-derived workloads of ``bench_flow.py``. Rounds are interleaved; every round asserts that
the two outputs serialise to the same JSON bytes (RAGFlow's ``position_int`` tuples become
arrays, as in the golden files). Without a source tree the bench prints how to get one and
exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import sys
import time
import types
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _corpus
from _corpus import load_corpus, offline_tiktoken

DEFAULT_SRC = Path("/work/ragflow-src")
COMMIT = "ec9c08d809f63ba2815090182fa225899d2437d5"

# -- stubs for what the components import but never use on this path --------------------


class _Anything:
    """Stands for a class or function that is imported but never called."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return None


class _StubModule(types.ModuleType):
    """A module where every missing attribute is an inert placeholder class."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = type(name, (_Anything,), {})
        setattr(self, name, value)
        return value


class _Graph:
    """The canvas, as in a debug run: no document id, no tenant, no storage."""

    _doc_id = None
    _tenant_id = None

    def is_canceled(self) -> bool:
        return False


class _FileService:
    @staticmethod
    def get_blob(*args: Any, **kwargs: Any) -> None:
        return None  # no object storage: PDF previews are not restored


def _stub(name: str, **attrs: Any) -> types.ModuleType:
    mod = _StubModule(name)
    mod.__dict__.update(attrs)
    sys.modules[name] = mod
    return mod


def _package_without_init(name: str, path: Path) -> None:
    """Register a package whose ``__init__`` (which imports all siblings) is not run."""
    mod = types.ModuleType(name)
    mod.__path__ = [str(path)]  # type: ignore[attr-defined]
    sys.modules[name] = mod
    parent, _, leaf = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], leaf, mod)


def load_ragflow(src: Path) -> dict[str, Any]:
    """Import RAGFlow's TokenChunker(Param) and TitleChunker(Param) from the tree ``src``."""
    cache = offline_tiktoken()
    # common/token_utils.py points TIKTOKEN_CACHE_DIR at the project base: make that the
    # offline vocabulary folder.
    os.environ["RAG_PROJECT_BASE"] = cache
    sys.path.insert(0, str(src))
    for pkg in (
        "agent",
        "agent.component",
        "api",
        "api.db",
        "api.db.services",
        "common",
        "deepdoc",
        "deepdoc.parser",
        "rag",
        "rag.flow",
        "rag.flow.chunker",
        "rag.flow.parser",
        "rag.prompts",
        "rag.utils",
    ):
        _package_without_init(pkg, src.joinpath(*pkg.split(".")))
    _stub("agent.canvas", Graph=_Graph)
    _stub("common.settings", STORAGE_IMPL=None)
    sys.modules["common"].settings = sys.modules["common.settings"]  # type: ignore[attr-defined]
    _stub("api.db.services.file_service", FileService=_FileService)
    _stub("api.db.services.file2document_service")
    _stub("rag.utils.base64_image")
    _stub("rag.prompts.generator")
    _stub("rag.nlp.rag_tokenizer")
    _stub("deepdoc.vision")
    for third_party in (
        "quart",
        "chardet",
        "roman_numbers",
        "cn2an",
        "word2number",
        "xgboost",
        "sklearn",
        "sklearn.cluster",
        "sklearn.metrics",
    ):
        if third_party not in sys.modules:
            try:
                __import__(third_party)
            except ImportError:
                _stub(third_party)
    import logging

    logging.disable(logging.WARNING)  # RAGFlow logs every validation failure
    from rag.flow.chunker.title_chunker.common import TitleChunkerParam
    from rag.flow.chunker.title_chunker.title_chunker import TitleChunker
    from rag.flow.chunker.token_chunker import TokenChunker, TokenChunkerParam

    for mod in ("rag.flow.chunker.token_chunker", "rag.flow.chunker.title_chunker.common"):
        origin = Path(sys.modules[mod].__file__ or "")
        assert origin.is_relative_to(src), (mod, origin)
    return {
        "TokenChunker": (TokenChunkerParam, TokenChunker),
        "TitleChunker": (TitleChunkerParam, TitleChunker),
    }


class RagflowComponent:
    """One RAGFlow component instance, configured the way a pipeline DSL configures it."""

    def __init__(self, classes: tuple[type, type], kind: str, params: dict[str, Any]) -> None:
        param_cls, cpn_cls = classes
        param = param_cls()
        param.update(json.loads(json.dumps(params)))
        param.check()
        self.cpn = cpn_cls(_Graph(), f"{kind}:0", param)

    async def invoke(self, upstream: dict[str, Any]) -> dict[str, Any]:
        self.cpn._param.outputs.clear()
        await self.cpn._invoke(**upstream)
        return self.cpn.output()


# -- workloads --------------------------------------------------------------------------

Job = tuple[Any, Any, dict[str, Any]]  # (ragchunk component, RAGFlow component, upstream)


def golden_jobs(rf: dict[str, Any]) -> list[Job]:
    from ragchunk.ragflow.pipeline import TitleChunker, TokenChunker

    ours = {"TokenChunker": TokenChunker, "TitleChunker": TitleChunker}
    folder = _corpus.CORPUS.parent / "golden" / "ragflow-flow" / "v0.27.0"
    jobs: list[Job] = []
    checks: list[tuple[RagflowComponent, dict[str, Any]]] = []
    for name in ("token_chunker.jsonl", "title_chunker.jsonl"):
        path = folder / name
        if not path.exists():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            if "expected" in case:
                kind = case["component"]
                theirs = RagflowComponent(rf[kind], kind, case["params"])
                jobs.append((ours[kind](case["params"]), theirs, case["upstream"]))
                checks.append((theirs, case))
    # The loader itself is checked: RAGFlow's code, run this way, gives the recorded vectors.
    loop = asyncio.new_event_loop()
    for theirs, case in checks:
        got = json.loads(canonical([loop.run_until_complete(theirs.invoke(case["upstream"]))]))
        assert got == [case["expected"]], f"RAGFlow as loaded here disagrees with {case['id']}"
    loop.close()
    return jobs


def corpus_jobs(rf: dict[str, Any], docs: list[str]) -> dict[str, list[Job]]:
    """The corpus workloads of ``bench_flow.py``, each with both implementations."""
    import bench_flow
    from ragchunk.ragflow.pipeline import TitleChunker, TokenChunker

    def pair(kind: str, params: dict[str, Any]) -> tuple[Any, RagflowComponent]:
        ours = (TokenChunker if kind == "TokenChunker" else TitleChunker)(params)
        return ours, RagflowComponent(rf[kind], kind, params)

    def pdf(d: str) -> dict[str, Any]:
        return {"name": "d.pdf", "output_format": "json", "json": bench_flow.json_items(d)}

    def md(d: str) -> dict[str, Any]:
        return {"name": "d.md", "output_format": "markdown", "markdown": d}

    jobs: dict[str, list[Job]] = {}
    for label, params in bench_flow.TOKEN_PARAMS.items():
        a, b = pair("TokenChunker", params)
        jobs[f"TokenChunker JSON, {label}"] = [(a, b, pdf(d)) for d in docs]
    a, b = pair("TokenChunker", {"chunk_token_size": 512, "overlapped_percent": 0.1})
    jobs["TokenChunker markdown, merge 512"] = [(a, b, md(d)) for d in docs]
    for label, params in bench_flow.TITLE_PARAMS.items():
        a, b = pair("TitleChunker", params)
        jobs[f"TitleChunker markdown, {label}"] = [(a, b, md(d)) for d in docs]
        jobs[f"TitleChunker JSON, {label}"] = [(a, b, pdf(d)) for d in docs]
    return jobs


# -- timing -----------------------------------------------------------------------------


def canonical(outputs: list[dict[str, Any]]) -> bytes:
    return json.dumps(outputs, ensure_ascii=False, sort_keys=True).encode()


def run_ours(jobs: list[Job]) -> tuple[float, list[dict[str, Any]]]:
    t = time.perf_counter()
    out = [ours.invoke(upstream) for ours, _, upstream in jobs]
    return time.perf_counter() - t, out


def run_ragflow(loop: asyncio.AbstractEventLoop, jobs: list[Job]) -> tuple[float, list[Any]]:
    async def go() -> list[dict[str, Any]]:
        return [await theirs.invoke(upstream) for _, theirs, upstream in jobs]

    t = time.perf_counter()
    out = loop.run_until_complete(go())
    return time.perf_counter() - t, out


def profile(name: str, jobs: list[Job], top: int) -> None:
    """cProfile of ragchunk's side of one workload (3 runs after a warm-up)."""
    import cProfile
    import io
    import pstats

    run_ours(jobs)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(3):
        run_ours(jobs)
    prof.disable()
    buf = io.StringIO()
    stats = pstats.Stats(prof, stream=buf)
    total = stats.total_tt  # type: ignore[attr-defined]
    print(f"## {name}: {total:.3f} s in 3 runs (profiled)")
    rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)  # type: ignore[attr-defined]
    for (path, line, fn), (_, calls, own, cum, _) in rows[:top]:
        where = f"{Path(path).name}:{line}({fn})" if line else fn
        print(f"  {own / total:5.1%} own  {cum / total:5.1%} cum  {calls:>8} calls  {where}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ragflow-src", type=Path, default=None)
    ap.add_argument("--limit-mb", type=float, default=2.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", help="run only workloads whose name contains this")
    ap.add_argument("--shared", type=Path, help="the shared data folder (default: ../shared)")
    ap.add_argument(
        "--profile",
        type=int,
        metavar="N",
        help="no timing: cProfile ragchunk's side of each workload, print the top N by own time",
    )
    args = ap.parse_args()
    src = args.ragflow_src or Path(os.environ.get("RAGFLOW_SRC") or DEFAULT_SRC)
    if not (src / "rag" / "flow" / "chunker" / "token_chunker.py").is_file():
        print(f"RAGFlow source tree not found at {src}: nothing to compare.")
        print(__doc__.split("Getting one")[1].split("Only the modules")[0].strip())
        print("then pass --ragflow-src DIR or set RAGFLOW_SRC.")
        return 0
    if args.shared:
        _corpus.CORPUS = args.shared / "corpus"
    rf = load_ragflow(src)
    from ragchunk.core import dispatch

    dispatch.set_backend(os.environ.get("RAGCHUNK_BACKEND", "rust"))
    label, docs = load_corpus(limit_bytes=int(args.limit_mb * 1_000_000))
    workloads = {"golden cases (all outputs)": golden_jobs(rf), **corpus_jobs(rf, docs)}
    if args.only:
        workloads = {k: v for k, v in workloads.items() if args.only in k}
    mb = sum(len(d.encode()) for d in docs) / 1e6
    print(f"RAGFlow: {src} (reproduces every golden vector of v0.27.0, {COMMIT[:12]})")
    print(f"ragchunk backend: {dispatch.name()}; load average {os.getloadavg()[0]:.2f}")
    print(f"corpus: {label}, {mb:.2f} MB; rounds: {args.rounds}")
    print("(median of per-round ratios, interleaved, after a warm-up)")
    if args.profile:
        for name, jobs in workloads.items():
            profile(name, jobs, args.profile)
        return 0
    print("| workload | RAGFlow s | ragchunk s | RAGFlow / ragchunk |")
    print("|---|---:|---:|---:|")
    loop = asyncio.new_event_loop()
    worst = float("inf")
    for name, jobs in workloads.items():
        run_ours(jobs[:5])
        run_ragflow(loop, jobs[:5])
        ours_t: list[float] = []
        theirs_t: list[float] = []
        ratios: list[float] = []
        for rnd in range(args.rounds):
            # Alternate who goes first; each run starts from a collected heap, and only the
            # serialised outputs are kept, so neither side pays for the other's garbage.
            got: dict[str, tuple[float, bytes]] = {}
            for side in ("ragflow", "ragchunk") if rnd % 2 == 0 else ("ragchunk", "ragflow"):
                gc.collect()
                t, out = run_ragflow(loop, jobs) if side == "ragflow" else run_ours(jobs)
                got[side] = (t, canonical(out))
                del out
            if got["ragflow"][1] != got["ragchunk"][1]:
                _, out_r = run_ragflow(loop, jobs)
                _, out_o = run_ours(jobs)
                bad = [k for k, (a, b) in enumerate(zip(out_r, out_o, strict=True)) if a != b]
                raise AssertionError(f"{name}: outputs differ, jobs {bad[:10]}")
            tr, to = got["ragflow"][0], got["ragchunk"][0]
            theirs_t.append(tr)
            ours_t.append(to)
            ratios.append(tr / to)
        r, o, q = statistics.median(theirs_t), statistics.median(ours_t), statistics.median(ratios)
        worst = min(worst, q)
        print(f"| {name} ({len(jobs)} docs) | {r:.3f} | {o:.3f} | {q:.1f}x |", flush=True)
    loop.close()
    print(f"outputs byte-identical on every workload; smallest ratio {worst:.1f}x")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
