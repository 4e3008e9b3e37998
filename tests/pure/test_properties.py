"""Hypothesis properties of the pure backend's merge engine.

Most properties use ``count=len`` (one token per character): the merge takes
any counter, and with an additive one the budgets can be checked exactly.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st
from ragchunk._pure import naive_merge_sources, num_tokens_from_string
from ragchunk._pure.ragflow.delimiters import (
    legacy_delimiters,
    normalize_newlines,
    parse_delimiter_field,
    split_keeping_delimiters,
    v022_anchored_match,
)
from ragchunk._pure.ragflow.merge import overlap_prefix
from ragchunk._pure.ragflow.positions import remove_tag

TEXT_ALPHABET = "ab xyz\n\r\t。；！？.#@`-中文字😀\u200d"
texts = st.text(alphabet=TEXT_ALPHABET, max_size=60)
# Delimiter fields without backticks keep the merge in its default (non-custom) mode.
plain_fields = st.text(alphabet="\n\r。；！？.# ", max_size=5)
any_fields = st.text(alphabet="\n\r。；.#`ab", max_size=8)
tags = st.sampled_from(["", "@@1\t2.0\t3.0\t4.0\t5.0##", "@@2-3\t1\t2\t3\t4##", "POS", "\n"]).map(
    lambda tag: tag or None
)
sections = st.lists(st.tuples(texts, tags), max_size=8)
counters: st.SearchStrategy[Callable[[str], int]] = st.sampled_from([len, num_tokens_from_string])


def _independent_pieces(text: str, field_value: str) -> list[str]:
    """v0.27 paragraphs of one section, computed without the engine."""
    delimiters = sorted(set(parse_delimiter_field(field_value)), key=len, reverse=True)
    text = normalize_newlines(text)
    if not delimiters:
        return [text]
    pattern = "|".join(re.escape(d) for d in delimiters)
    return [piece for piece in re.split(f"(?:{pattern})", text) if piece]


@given(
    sections=st.lists(st.tuples(texts, st.none()), max_size=8),
    field_value=plain_fields,
    budget=st.integers(0, 40),
    strategy=st.sampled_from(["over_cap", "under_cap"]),
    count=counters,
)
def test_v027_default_mode_loses_no_text(
    sections: list[tuple[str, None]],
    field_value: str,
    budget: int,
    strategy: str,
    count: Callable[[str], int],
) -> None:
    """Without overlap or pos, the chunks are exactly the paragraphs, in order."""
    chunks, _ = naive_merge_sources(
        sections, budget, field_value, 0, strategy, compat="v0.27", count=count
    )
    expected = "".join(
        "\n" + piece for text, _ in sections for piece in _independent_pieces(text, field_value)
    )
    assert "".join(chunks) == expected
    # So every character that is not delimiter text survives, in order.
    assert all(chunk.startswith("\n") for chunk in chunks)


@given(
    sections=st.lists(st.tuples(texts, st.none()), max_size=10),
    field_value=plain_fields,
    budget=st.integers(1, 40),
    overlapped_percent=st.sampled_from([0, 10, 50, 90]),
)
def test_under_cap_stays_within_budget(
    sections: list[tuple[str, None]], field_value: str, budget: int, overlapped_percent: int
) -> None:
    """UNDER_CAP exceeds the budget only with a single oversized paragraph."""
    chunks, sources = naive_merge_sources(
        sections, budget, field_value, 0, "under_cap", compat="v0.27", count=len
    )
    for chunk, chunk_sources in zip(chunks, sources, strict=True):
        if len(chunk) > budget:
            assert len(chunk_sources) == 1, (chunk, chunk_sources)
    # The overlap plays no part in UNDER_CAP grouping: same sources with overlap.
    _, sources_with_overlap = naive_merge_sources(
        sections, budget, field_value, overlapped_percent, "under_cap", compat="v0.27", count=len
    )
    assert sources_with_overlap == sources


@given(
    sections=st.lists(st.tuples(texts, st.none()), max_size=10),
    field_value=plain_fields,
    budget=st.integers(1, 40),
)
def test_over_cap_overflows_by_at_most_one_paragraph(
    sections: list[tuple[str, None]], field_value: str, budget: int
) -> None:
    chunks, sources = naive_merge_sources(
        sections, budget, field_value, 0, "over_cap", compat="v0.27", count=len
    )
    paragraphs = [
        "\n" + piece for text, _ in sections for piece in _independent_pieces(text, field_value)
    ]
    position = 0
    for chunk, chunk_sources in zip(chunks, sources, strict=True):
        members = paragraphs[position : position + len(chunk_sources)]
        position += len(chunk_sources)
        assert "".join(members) == chunk
        # Everything before the last paragraph fitted the budget.
        assert sum(map(len, members[:-1])) <= budget
        if len(members) > 1:
            assert all(len(member) <= budget for member in members)
    assert position == len(paragraphs)


@given(
    sections=sections,
    field_value=any_fields,
    budget=st.integers(0, 30),
    overlapped_percent=st.integers(1, 150),
    compat=st.sampled_from(["v0.27", "v0.26", "v0.23", "v0.22"]),
    count=counters,
)
def test_overlap_prefix_is_a_suffix_of_the_previous_visible_chunk(
    sections: list[tuple[str, str | None]],
    field_value: str,
    budget: int,
    overlapped_percent: int,
    compat: str,
    count: Callable[[str], int],
) -> None:
    chunks, sources = naive_merge_sources(
        sections, budget, field_value, overlapped_percent, "over_cap", compat, count
    )
    real = [i for i, chunk_sources in enumerate(sources) if chunk_sources]
    if "`" in field_value and re.search(r"`[^`]+`", field_value) and compat != "v0.22":
        return  # custom mode: no overlap at all
    for previous, current in itertools.pairwise(real):
        prefix = overlap_prefix(chunks[previous], overlapped_percent)
        assert remove_tag(chunks[previous]).endswith(prefix)
        assert chunks[current].startswith(prefix)
        assert chunks[current][len(prefix) :].startswith("\n")


@given(
    delimiters=st.lists(st.text(alphabet="ab\n.", min_size=1, max_size=3), max_size=4),
    piece=st.text(alphabet="ab\n.", max_size=5),
)
def test_v022_anchored_match_equals_ragflows_regex(delimiters: list[str], piece: str) -> None:
    ordered = sorted(delimiters, key=len, reverse=True)
    pattern = "|".join(re.escape(d) for d in ordered)
    assert v022_anchored_match(piece, ordered) == bool(re.match(f"^{pattern}$", piece))


@given(field_value=st.text(alphabet="ab`\r\n。#", max_size=12))
def test_parse_delimiter_field_shape(field_value: str) -> None:
    parsed = parse_delimiter_field(field_value)
    assert len(parsed) == len(set(parsed))
    assert [len(d) for d in parsed] == sorted((len(d) for d in parsed), reverse=True)
    assert all(d and "\r" not in d for d in parsed)
    # The legacy parser sees the same delimiters, only without CRLF folding or dedup.
    if "\r" not in field_value:
        assert set(legacy_delimiters(field_value)) == set(parsed)


@given(text=texts, delimiters=st.lists(st.sampled_from(["\n", "。", "##", "#", "ab"]), max_size=3))
def test_split_keeping_delimiters_round_trips(text: str, delimiters: list[str]) -> None:
    ordered = sorted(set(delimiters), key=len, reverse=True)
    parts = split_keeping_delimiters(text, ordered)
    assert "".join(piece for piece, _ in parts) == text
    assert [is_delimiter for _, is_delimiter in parts] == [i % 2 == 1 for i in range(len(parts))]
    if ordered:
        assert all(piece in ordered for piece, is_delimiter in parts if is_delimiter)
