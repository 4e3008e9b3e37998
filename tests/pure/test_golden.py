"""Every golden vector of every RAGFlow tag, against the pure-Python backend.

Each case is its own test, named ``<tag>/<case id>``, so a failure names the case.
"""

from __future__ import annotations

from typing import Any

import pytest
from pure_golden import as_tuples, build_image, describe_image, golden_params
from ragchunk._pure import (
    extract_positions,
    naive_merge,
    naive_merge_sources,
    naive_merge_with_images,
    normalize_sections,
    num_tokens_from_string,
    remove_tag,
)

GoldenCase = tuple[str, dict[str, Any]]


@pytest.mark.parametrize("golden", golden_params("naive_merge.jsonl"))
def test_naive_merge(golden: GoldenCase) -> None:
    compat, case = golden
    args = dict(case["args"])
    args["sections"] = as_tuples(args["sections"])
    assert naive_merge(compat=compat, **args) == case["expected"]


@pytest.mark.parametrize("golden", golden_params("naive_merge.jsonl"))
def test_naive_merge_sources_track_paragraphs(golden: GoldenCase) -> None:
    """Sources line up with the chunks and only name sections that exist, in order."""
    compat, case = golden
    args = dict(case["args"])
    sections = normalize_sections(as_tuples(args.pop("sections")))
    chunks, sources = naive_merge_sources(sections, compat=compat, **args)
    assert len(chunks) == len(sources)
    for chunk_sources in sources:
        assert chunk_sources == sorted(chunk_sources)
        assert all(0 <= index < len(sections) for index in chunk_sources)


@pytest.mark.parametrize("golden", golden_params("naive_merge_with_images.jsonl"))
def test_naive_merge_with_images(golden: GoldenCase) -> None:
    compat, case = golden
    args = dict(case["args"])
    args["texts"] = as_tuples(args["texts"])
    inputs = [build_image(spec) for spec in args.pop("images")]
    chunks, images = naive_merge_with_images(images=inputs, compat=compat, **args)

    expected_chunks, expected_images = case["expected"]
    assert chunks == expected_chunks
    assert [describe_image(image) for image in images] == [
        None if e is None else {k: e[k] for k in ("w", "h", "mode", "sha256")}
        for e in expected_images
    ]
    # Identity too: RAGFlow hands back the input object itself where it can.
    for image, expected in zip(images, expected_images, strict=True):
        if expected is not None and expected["same_as_input"] is not None:
            assert image is inputs[expected["same_as_input"]]
        elif expected is not None:
            assert all(image is not original for original in inputs)


@pytest.mark.parametrize("golden", golden_params("tokens.jsonl"))
def test_num_tokens_from_string(golden: GoldenCase) -> None:
    _, case = golden
    assert num_tokens_from_string(case["args"]["string"]) == case["expected"]


@pytest.mark.parametrize("golden", golden_params("positions.jsonl"))
def test_positions(golden: GoldenCase) -> None:
    _, case = golden
    function = {"remove_tag": remove_tag, "extract_positions": extract_positions}[case["fn"]]
    if "raises" in case:
        with pytest.raises(Exception) as info:
            function(**case["args"])
        assert type(info.value).__name__ == case["raises"]
        return
    result: Any = function(**case["args"])
    if case["fn"] == "extract_positions":
        for pages, *coordinates in result:
            assert all(type(page) is int for page in pages)
            assert all(type(value) is float for value in coordinates)
        result = [[pages, *coordinates] for pages, *coordinates in result]
    assert result == case["expected"]
