"""The public names: what ``import ragchunk`` offers stays offered, from its new home too."""

from __future__ import annotations

import importlib

import pytest
import ragchunk

pytestmark = pytest.mark.single_backend

#: ``ragchunk.__all__``: every name in it stays importable from ``ragchunk``.
PUBLIC = [
    "COMPAT_FAMILIES",
    "CharacterSplitter",
    "Chunk",
    "CodeSplitter",
    "HTMLSplitter",
    "JSONSplitter",
    "LazyImage",
    "MarkdownSplitter",
    "MergeStrategy",
    "PaperChunk",
    "PaperSection",
    "PipelineChunk",
    "Position",
    "RagchunkError",
    "RecursiveSplitter",
    "SentenceSplitter",
    "Splitter",
    "SplitterComponent",
    "TitleChunker",
    "TitleTreeChunker",
    "TokenChunker",
    "TokenWindowSplitter",
    "Tokenizer",
    "__version__",
    "associate_images",
    "available_tokenizers",
    "backend",
    "boxes_overlap",
    "chunk_paper",
    "chunk_table",
    "count_tokens",
    "count_tokens_batch",
    "extract_positions",
    "iter_naive_merge",
    "naive_merge",
    "naive_merge_batch",
    "naive_merge_offsets",
    "naive_merge_with_images",
    "naive_merge_with_positions",
    "num_tokens_from_string",
    "presets",
    "remove_tag",
    "supported_languages",
    "table_to_text",
]

#: Where each capability lives: every public name of these modules is ragchunk's same object.
HOMES = {
    "ragchunk.core": ["Chunk", "RagchunkError", "Splitter"],
    "ragchunk.ragflow": [
        "COMPAT_FAMILIES",
        "LazyImage",
        "MergeStrategy",
        "PaperChunk",
        "PaperSection",
        "PipelineChunk",
        "Position",
        "SplitterComponent",
        "TitleChunker",
        "TokenChunker",
        "associate_images",
        "boxes_overlap",
        "chunk_paper",
        "chunk_table",
        "count_tokens",
        "count_tokens_batch",
        "extract_positions",
        "iter_naive_merge",
        "naive_merge",
        "naive_merge_batch",
        "naive_merge_offsets",
        "naive_merge_with_images",
        "naive_merge_with_positions",
        "num_tokens_from_string",
        "presets",
        "remove_tag",
        "table_to_text",
    ],
    "ragchunk.splitters": [
        "CharacterSplitter",
        "CodeSplitter",
        "HTMLSplitter",
        "JSONSplitter",
        "MarkdownSplitter",
        "RecursiveSplitter",
        "SentenceSplitter",
        "TitleTreeChunker",
        "TokenWindowSplitter",
        "supported_languages",
    ],
}

#: Module paths users imported before the package was arranged by capability.
OLD_MODULES = {
    "ragchunk.association": ["associate_images", "boxes_overlap"],
    "ragchunk.classic": [
        "CharacterSplitter",
        "RecursiveSplitter",
        "SentenceSplitter",
        "TokenWindowSplitter",
    ],
    "ragchunk.code": ["CodeSplitter", "supported_languages"],
    "ragchunk.papers": ["PaperChunk", "PaperSection", "chunk_paper"],
    "ragchunk.pipeline": [
        "PipelineChunk",
        "SplitterComponent",
        "TitleChunker",
        "TokenChunker",
    ],
    "ragchunk.presets": [],
    "ragchunk.structured": ["HTMLSplitter", "JSONSplitter", "MarkdownSplitter", "TitleTreeChunker"],
    "ragchunk.tables": ["chunk_table", "table_to_text"],
}


def test_all_is_pinned() -> None:
    assert sorted(ragchunk.__all__) == sorted(PUBLIC)


@pytest.mark.parametrize("name", PUBLIC)
def test_public_name_imports(name: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"from ragchunk import {name}", namespace)
    assert namespace[name] is not None


@pytest.mark.parametrize("module", sorted(HOMES))
def test_capability_homes(module: str) -> None:
    mod = importlib.import_module(module)
    for name in HOMES[module]:
        assert getattr(mod, name) is getattr(ragchunk, name), f"{module}.{name}"
        assert name in mod.__all__, f"{module}.__all__ lacks {name}"


@pytest.mark.parametrize("module", sorted(OLD_MODULES))
def test_old_module_paths(module: str) -> None:
    mod = importlib.import_module(module)
    short = module.rsplit(".", 1)[1]
    assert getattr(ragchunk, short) is mod
    for name in OLD_MODULES[module]:
        assert getattr(mod, name) is getattr(ragchunk, name), f"{module}.{name}"


def test_presets_module() -> None:
    import ragchunk.presets

    assert ragchunk.presets.get_preset("technical") == ragchunk.presets.TECHNICAL
