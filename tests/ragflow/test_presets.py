"""Presets: named, read-only naive_merge parameters."""

from __future__ import annotations

import doctest
import itertools

import pytest
import ragchunk
from ragchunk import presets
from ragchunk.ragflow.pipeline import SplitterComponent
from ragchunk.ragflow.presets import BOOK, LEGAL, PRESETS, QA, TECHNICAL, get_preset

CONTRACT = (
    "1. Definitions. In this Agreement, 'Services' means the hosting services described in "
    "Schedule A.\n2. Term. This Agreement starts on the Effective Date and continues for "
    "twelve months.\n3. Fees. The Customer shall pay the fees set out in Schedule B within "
    "thirty days of each invoice.\n4. Termination. Either party may end this Agreement on "
    "ninety days' written notice.\n"
) * 8


def test_values() -> None:
    assert dict(TECHNICAL) == {"chunk_token_num": 512, "overlapped_percent": 10}
    assert dict(LEGAL) == {"chunk_token_num": 256, "overlapped_percent": 20}
    assert dict(BOOK) == {"chunk_token_num": 1024, "overlapped_percent": 5}
    assert dict(QA) == {"chunk_token_num": 128, "overlapped_percent": 0}
    assert dict(PRESETS) == {"technical": TECHNICAL, "legal": LEGAL, "book": BOOK, "qa": QA}


def test_immutable() -> None:
    with pytest.raises(TypeError):
        LEGAL["chunk_token_num"] = 1  # type: ignore[index]
    with pytest.raises(TypeError):
        PRESETS["poetry"] = QA  # type: ignore[index]
    with pytest.raises(AttributeError):
        LEGAL.clear()  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", ["technical", "legal", "book", "qa"])
def test_unpacks_into_naive_merge(name: str) -> None:
    preset = get_preset(name)
    chunks = ragchunk.naive_merge(CONTRACT, **preset)
    assert chunks == ragchunk.naive_merge(
        CONTRACT,
        chunk_token_num=preset["chunk_token_num"],
        overlapped_percent=preset["overlapped_percent"],
    )
    assert chunks


def test_legal_preset_real_output() -> None:
    chunks = ragchunk.naive_merge(CONTRACT, **LEGAL)
    assert len(chunks) == 3
    # 20% overlap: every chunk after the first starts with the tail of the one before.
    for before, after in itertools.pairwise(chunks):
        tail = before[int(len(before) * 0.8) :]
        assert after.startswith(tail)


def test_preset_works_with_batch_and_chunker() -> None:
    assert ragchunk.naive_merge_batch([CONTRACT], **QA) == [ragchunk.naive_merge(CONTRACT, **QA)]
    chunker = SplitterComponent.from_preset("technical")
    expected = ragchunk.naive_merge(CONTRACT, 512, overlapped_percent=10)
    assert [c["content"] for c in chunker.invoke(CONTRACT)] == [c.strip() for c in expected]


def test_get_preset_names() -> None:
    assert get_preset("LEGAL") is LEGAL
    assert get_preset("  Book ") is BOOK
    with pytest.raises(ValueError, match=r"unknown preset 'medical'; valid presets are: "):
        get_preset("medical")
    with pytest.raises(TypeError, match="name must be a str"):
        get_preset(None)  # type: ignore[arg-type]


def test_docstring_examples() -> None:
    result = doctest.testmod(presets, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, result
