"""Conformance: RAGFlow v0.27's pipeline components TokenChunker and TitleChunker on every
golden case, on both backends, read in place from ../shared."""

from __future__ import annotations

import json
from typing import Any

import pytest
from ragchunk.ragflow.pipeline import TitleChunker, TokenChunker
from testdata import SHARED

FLOW = SHARED / "golden" / "ragflow-flow" / "v0.27.0"
COMPONENTS = {"TokenChunker": TokenChunker, "TitleChunker": TitleChunker}


def _cases(filename: str) -> list[Any]:
    path = FLOW / filename
    if not path.exists():
        reason = f"SHARED GOLDEN DATA MISSING: {path}"
        return [pytest.param(None, marks=pytest.mark.skip(reason=reason))]
    with path.open(encoding="utf-8") as fh:
        cases = [json.loads(line) for line in fh]
    return [pytest.param(case, id=case["id"]) for case in cases]


def _plain(value: Any) -> Any:
    """Tuples as lists, as the golden JSON writes RAGFlow's ``position_int`` tuples."""
    return json.loads(json.dumps(value, ensure_ascii=False))


def _check(case: dict[str, Any]) -> None:
    component = COMPONENTS[case["component"]]
    if "raises" in case and case["raised_in"] == "check":
        with pytest.raises(Exception) as info:
            component(case["params"])
        assert type(info.value).__name__ == case["raises"]
        assert str(info.value) == case["message"]
        return
    chunker = component(case["params"])
    if "raises" in case:
        with pytest.raises(Exception) as info:
            chunker.invoke(case["upstream"])
        assert type(info.value).__name__ == case["raises"]
        assert str(info.value) == case["message"]
        return
    out = _plain(chunker.invoke(case["upstream"]))
    if "error" in case:
        assert list(out) == ["_ERROR"]
        want = case["error"]
        if want.startswith("Input error: "):
            # pydantic's wording: prefix, first line, field line and error line must match;
            # the docs URL names the pydantic version.
            got_lines, want_lines = out["_ERROR"].split("\n"), want.split("\n")
            assert got_lines[:3] == want_lines[:3]
            assert len(got_lines) == len(want_lines)
        else:
            assert out["_ERROR"] == want
        return
    assert out == case["expected"]
    assert [c["text"] for c in out["chunks"]] == [c["text"] for c in case["expected"]["chunks"]]


@pytest.mark.parametrize("case", _cases("token_chunker.jsonl"))
def test_token_chunker_golden(case: dict[str, Any]) -> None:
    _check(case)


@pytest.mark.parametrize("case", _cases("title_chunker.jsonl"))
def test_title_chunker_golden(case: dict[str, Any]) -> None:
    _check(case)
