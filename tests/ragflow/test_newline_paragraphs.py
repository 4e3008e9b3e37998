"""The count ``naive_merge`` gives each paragraph, ``num_tokens_from_string("\\n" + piece)``,
against the real tiktoken package.

The Rust merge counts ``"\\n" + piece`` as ``1 + count(piece)`` without building the string
whenever the piece starts with a non-whitespace character (``rust/tokenizer/session.rs`` has
the regex argument), and builds the string otherwise. ``_core.count_paragraphs`` runs exactly
that code; these tests compare it with tiktoken for every Unicode scalar value as the first
character, for every paragraph of the corpus, and for special-token text.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from testdata import CORPUS, corpus_documents, require_shared

pytestmark = pytest.mark.single_backend


def _ragflow_count(enc: Any, text: str) -> int:
    """RAGFlow's ``num_tokens_from_string``: 0 when tiktoken refuses the text."""
    try:
        return len(enc.encode(text))
    except ValueError:
        return 0


def _mismatches(core: Any, enc: Any, pieces: list[str]) -> list[tuple[str, int, int]]:
    # One plain call per string: encode_ordinary_batch's thread pool costs more than it saves
    # on a million short strings.
    theirs = [len(enc.encode_ordinary("\n" + p)) for p in pieces]
    bad = []
    for strategy in ("over_cap", "hard_cap"):  # count_or_zero / count_ordinary semantics
        ours = core.count_paragraphs(pieces, enc.name, strategy)
        bad += [(p, a, b) for p, a, b in zip(pieces, ours, theirs, strict=True) if a != b]
    return bad[:20]


# After the first character: nothing (the piece is that character: end-of-text rules), a
# letter (joins a one-character prefix), a space and a word, newlines and a digit. About 5 s
# per context and encoding (1.1M tiktoken calls).
_CONTEXTS = ["", "x", " y", "\n\n1"]


@pytest.mark.parametrize("context", _CONTEXTS)
def test_every_scalar_value_first(core: Any, encoding: Any, context: str) -> None:
    firsts = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    assert _mismatches(core, encoding, [c + context for c in firsts]) == []


def test_corpus_paragraphs(core: Any, encoding: Any) -> None:
    # Every piece naive_merge makes from the corpus with the default delimiters, and every
    # line (indented lines and code keep their leading whitespace: the copy path).
    require_shared(CORPUS)
    pieces: set[str] = set()
    for _, text in corpus_documents():
        pieces.update(p for p in re.split("[\n。；！？]", text) if p)
        pieces.update(p for p in text.split("\n") if p)
    assert _mismatches(core, encoding, sorted(pieces)) == []


def test_special_token_text(core: Any, encoding: Any) -> None:
    # RAGFlow's counter gives 0 for text tiktoken refuses, never 1 for the "\n"; as ordinary
    # text (HARD_CAP) it is counted. <|fim_prefix|> is special in cl100k only.
    pieces = [
        "<|endoftext|>",
        "x<|endoftext|>",
        "<|endofprompt|> tail",
        "<|fim_prefix|>",
        " <|endoftext|>",
        "\t<|endoftext|>",
        "<|endoftext",
        "<|",
        "|>",
        "a <|endoftext|",
    ]
    ragflow = core.count_paragraphs(pieces, encoding.name, "over_cap")
    assert ragflow == [_ragflow_count(encoding, "\n" + p) for p in pieces]
    ordinary = core.count_paragraphs(pieces, encoding.name, "hard_cap")
    assert ordinary == [len(encoding.encode_ordinary("\n" + p)) for p in pieces]
    assert ragflow[0] == 0
