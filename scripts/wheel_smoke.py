"""What a user gets from the wheel alone: run by scripts/wheel_check.sh inside a fresh virtual
environment holding the built wheel and nothing else (stage ``core``), then the same
environment plus numpy, the semantic extra's one dependency (stage ``semantic``).

Every public name that needs no optional package is constructed and run, on the Rust backend,
with its output checked; no pure-Python engine (tiktoken, the tokenizers package, html5lib,
tree-sitter) may be importable, so anything that reaches for one fails here.
"""

from __future__ import annotations

import importlib.resources
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

OPTIONAL = ("tiktoken", "tokenizers", "html5lib", "tree_sitter", "pyarrow", "langchain_core")
TEXT = (
    "# Title\n\nRAG systems cut documents into chunks. Each chunk is embedded.\n\n"
    "## Section\n\nA second paragraph, with more words in it. 中文的句子。另一句！\n"
)


def check(cond: bool, what: str) -> None:
    if not cond:
        raise SystemExit(f"wheel smoke: FAILED: {what}")
    print(f"ok  {what}")


def covers(chunks: list, text: str) -> bool:
    """Every non-space character of ``text`` is in some chunk's span."""
    seen = [False] * len(text)
    for c in chunks:
        for i in range(c.start, c.end):
            seen[i] = True
    return all(seen[i] or text[i].isspace() for i in range(len(text)))


def core_stage() -> None:
    for name in OPTIONAL:
        check(importlib.util.find_spec(name) is None, f"{name} is not installed")
    import ragchunk

    check(ragchunk.backend == "rust", "the Rust backend is active")
    pdf = importlib.resources.files("ragchunk").joinpath("data/sample.pdf").read_bytes()
    check(pdf.startswith(b"%PDF-"), "the wheel holds data/sample.pdf (ragchunk --sample)")
    check(ragchunk.count_tokens("hello world") == 2, "count_tokens")
    check(ragchunk.count_tokens_batch(["hello world", "你好"]) == [2, 2], "count_tokens_batch")
    check(ragchunk.num_tokens_from_string("<|endoftext|>") == 0, "num_tokens_from_string")
    check(ragchunk.count_tokens("hello world", "o200k_base") == 2, "o200k_base")

    sections = [(TEXT, ""), ("Another section. " * 40, "")]
    merged = ragchunk.naive_merge(sections, chunk_token_num=32)
    check(len(merged) > 1 and "".join(merged).count("Another") == 40, "naive_merge")
    check(
        ragchunk.naive_merge_batch([sections, sections]) == [ragchunk.naive_merge(sections)] * 2,
        "naive_merge_batch",
    )
    check(
        len(ragchunk.chunk_table([["a", "b"], ["1", "2"]], header=["x", "y"])) >= 1, "chunk_table"
    )

    splitters = [
        ragchunk.CharacterSplitter(40, 8),
        ragchunk.TokenWindowSplitter(16, 4),
        ragchunk.RecursiveSplitter(16),
        ragchunk.RecursiveSplitter(16, tokenizer="o200k_base"),
        ragchunk.SentenceSplitter(16),
        ragchunk.MarkdownSplitter(24),
        ragchunk.TitleTreeChunker(24),
        ragchunk.RecursiveSplitter(16, tokenizer=lambda s: len(s.split())),
    ]
    for sp in splitters:
        chunks = sp.split(TEXT)
        check(len(chunks) > 1 and covers(chunks, TEXT), f"{type(sp).__name__}.split")
        check(sp.split_batch([TEXT, TEXT]) == [chunks, chunks], f"{type(sp).__name__}.split_batch")
    html = "<h1>Title</h1><p>" + "Words in a paragraph. " * 20 + "</p>"
    check(len(ragchunk.HTMLSplitter(16).split(html)) > 1, "HTMLSplitter on HTML")
    code = "def f(x):\n    return x + 1\n\n\ndef g(y):\n    return y * 2\n" * 4
    check(len(ragchunk.CodeSplitter("python", 24).split(code)) > 1, "CodeSplitter")
    data = {"a": list(range(50)), "b": {"c": "text " * 30}}
    check(len(ragchunk.JSONSplitter(32).split_json(data)) > 1, "JSONSplitter")

    spec = {
        "version": "1.0",
        "model": {
            "type": "WordLevel",
            "vocab": {"[UNK]": 0, "hello": 1, "world": 2},
            "unk_token": "[UNK]",
        },
        "pre_tokenizer": {"type": "Whitespace"},
    }
    path = Path(tempfile.mkdtemp()) / "tokenizer.json"
    path.write_text(json.dumps(spec))
    tok = ragchunk.Tokenizer.from_file(path)
    check(tok.count("hello world hello") == 3, "Tokenizer.count (Hugging Face file)")
    check(ragchunk.count_tokens("hello world", f"hf:{path}") == 2, "count_tokens hf:")
    check(
        len(ragchunk.RecursiveSplitter(2, tokenizer=tok).split("hello world " * 4)) > 1,
        "RecursiveSplitter over a Hugging Face tokenizer",
    )

    component = ragchunk.SplitterComponent(chunk_token_size=16)
    check(len(component.invoke(TEXT)) > 1, "SplitterComponent.invoke")
    doc = {"name": "a.md", "output_format": "markdown", "markdown": TEXT}
    out = ragchunk.TokenChunker({"chunk_token_size": 16}).invoke(doc)
    check(len(out["chunks"]) > 1, "TokenChunker.invoke")
    titled = ragchunk.TitleChunker(
        {"method": "hierarchy", "hierarchy": 1, "levels": [["^#"]]}
    ).invoke(doc)
    check(len(titled["chunks"]) >= 1, "TitleChunker.invoke")

    from ragchunk import llm

    model = llm.LLM(lambda prompt: "ok")
    check(model.complete("hi") == "ok", "LLM.complete")
    client = llm.OpenAICompatible("http://127.0.0.1:9/v1", "some-model", api_key="x")
    check(client.model == "some-model", "OpenAICompatible constructs")
    for chunker in (
        llm.LLMBoundaryChunker(lambda p: "[]", chunk_size=32),
        llm.PropositionChunker(lambda p: "[]"),
        llm.ContextualChunker(lambda p: "context", ragchunk.RecursiveSplitter(32)),
    ):
        estimate = chunker.estimate([TEXT])
        check(
            estimate.calls >= 1 and estimate.prompt_tokens > ragchunk.count_tokens(TEXT),
            f"{type(chunker).__name__}.estimate counts its prompts",
        )
    contextual = llm.ContextualChunker(lambda p: "context", ragchunk.RecursiveSplitter(32))
    ctx = contextual.split(TEXT)
    check(
        len(ctx) >= 1
        and all("context" in (c.metadata or {}).get("context", "context") for c in ctx),
        "ContextualChunker.split",
    )


def semantic_stage() -> None:
    check(importlib.util.find_spec("tiktoken") is None, "tiktoken is still not installed")
    import numpy as np
    from ragchunk import embeddings, semantic

    def embed(texts: list[str]) -> list[list[float]]:
        # Deterministic: one direction per topic word, so the cut falls between topics.
        out = []
        for t in texts:
            v = np.array([t.count("cat"), t.count("car"), 0.01], dtype=float)
            out.append((v / np.linalg.norm(v)).tolist())
        return out

    text = "The cat sleeps. The cat eats. The cat purrs. The car drives. The car stops."
    managed = embeddings.as_embedder(embed, tokenizer="cl100k_base", max_tokens=64)
    check(len(managed.embed(["a cat", "a car"])) == 2, "ManagedEmbedder.embed")
    chunks = semantic.SemanticChunker(embed, breakpoint_threshold_amount=50).split(text)
    check(len(chunks) >= 2 and covers(chunks, text), "SemanticChunker.split")
    cluster = semantic.ClusterSemanticChunker(embed, chunk_size=16, piece_size=8).split(text)
    check(len(cluster) >= 1 and covers(cluster, text), "ClusterSemanticChunker.split")
    topics = semantic.TopicChunker(n_topics=2, chunk_size=32).split(text * 3)
    check(len(topics) >= 1 and covers(topics, text * 3), "TopicChunker.split")
    emb = embeddings.OpenAICompatibleEmbedder("http://127.0.0.1:9/v1", "m", api_key="x")
    check(emb is not None, "OpenAICompatibleEmbedder constructs")


if __name__ == "__main__":
    stage = sys.argv[1] if len(sys.argv) > 1 else "core"
    {"core": core_stage, "semantic": semantic_stage}[stage]()
    print(f"wheel smoke ({stage}): all checks passed")
