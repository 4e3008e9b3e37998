"""Conformance: every RAGFlow golden vector, on both backends, read in place from ../shared."""

from __future__ import annotations

import builtins
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import ragchunk
from testdata import GOLDEN

# Tag folder -> the compat family that reproduces it.
TAGS = {"v0.27.0": "v0.27", "v0.26.4": "v0.26", "v0.23.1": "v0.23", "v0.22.1": "v0.22"}


def _cases(filename: str) -> list[Any]:
    params = []
    for tag, compat in TAGS.items():
        path = GOLDEN / tag / filename
        if not path.exists():
            continue
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                case = json.loads(line)
                params.append(pytest.param(compat, case, id=f"{tag}:{case['id']}"))
    if not params:
        params.append(
            pytest.param(
                None,
                None,
                marks=pytest.mark.skip(reason=f"SHARED GOLDEN DATA MISSING under {GOLDEN}"),
            )
        )
    return params


def _sections(raw: Any) -> Any:
    # The README: pairs are JSON arrays in the files; RAGFlow received them as tuples.
    if isinstance(raw, list):
        return [tuple(x) if isinstance(x, list) else x for x in raw]
    return raw


def _merge_kwargs(args: dict[str, Any], compat: str) -> dict[str, Any]:
    kwargs = {k: v for k, v in args.items() if k not in ("sections", "texts", "images")}
    if "strategy" in kwargs:
        kwargs["strategy"] = ragchunk.MergeStrategy(kwargs["strategy"])
    kwargs["compat"] = compat
    return kwargs


@pytest.mark.parametrize(("compat", "case"), _cases("naive_merge.jsonl"))
def test_naive_merge(compat: str, case: dict[str, Any]) -> None:
    args = case["args"]
    got = ragchunk.naive_merge(_sections(args["sections"]), **_merge_kwargs(args, compat))
    assert got == case["expected"]


def _image(spec: dict[str, Any] | None) -> Any:
    if spec is None:
        return None
    from PIL import Image

    color = spec["color"]
    fill = color[0] if len(color) == 1 else tuple(color)
    return Image.new(spec.get("mode") or "RGB", (spec["w"], spec["h"]), fill)


def _describe(img: Any, inputs: list[Any]) -> dict[str, Any] | None:
    if img is None:
        return None
    same = next((i for i, x in enumerate(inputs) if x is img), None)
    return {
        "w": img.size[0],
        "h": img.size[1],
        "mode": img.mode,
        "sha256": hashlib.sha256(img.tobytes()).hexdigest(),
        "same_as_input": same,
    }


@pytest.mark.parametrize(("compat", "case"), _cases("naive_merge_with_images.jsonl"))
def test_naive_merge_with_images(compat: str, case: dict[str, Any]) -> None:
    args = case["args"]
    images = [_image(s) for s in args["images"]]
    chunks, out = ragchunk.naive_merge_with_images(
        _sections(args["texts"]), images, **_merge_kwargs(args, compat)
    )
    want_chunks, want_images = case["expected"]
    assert chunks == want_chunks
    # w, h, mode, pixels and (the README calls it optional; we match it anyway) object identity.
    assert [_describe(img, images) for img in out] == want_images


@pytest.mark.parametrize(("compat", "case"), _cases("tokens.jsonl"))
def test_num_tokens_from_string(compat: str, case: dict[str, Any]) -> None:
    assert ragchunk.num_tokens_from_string(case["args"]["string"]) == case["expected"]


@pytest.mark.parametrize(("compat", "case"), _cases("positions.jsonl"))
def test_positions(compat: str, case: dict[str, Any]) -> None:
    fn = getattr(ragchunk, case["fn"])
    if "raises" in case:
        with pytest.raises(getattr(builtins, case["raises"])) as info:
            fn(case["args"]["txt"])
        assert type(info.value).__name__ == case["raises"]
        return
    got = fn(case["args"]["txt"])
    if case["fn"] == "extract_positions":
        got = [[list(p[0]), *p[1:]] for p in got]
    assert got == case["expected"]


def test_golden_manifest_tokenizer_is_ours() -> None:
    # The golden vectors were counted with the very vocabulary this project ships.
    manifest_path = GOLDEN / "v0.27.0" / "manifest.json"
    if not manifest_path.exists():
        pytest.skip(f"SHARED GOLDEN DATA MISSING under {GOLDEN}")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    import gzip

    vocab = Path(ragchunk.__file__).parent / "_vocab" / "cl100k_base.tiktoken.gz"
    digest = hashlib.sha256(gzip.decompress(vocab.read_bytes())).hexdigest()
    assert digest in manifest["tokenizer"]
