"""The encodings built from the shipped vocabularies equal tiktoken's own."""

from __future__ import annotations

import sys

import pytest
import tiktoken
import tiktoken_ext.openai_public as openai_public  # type: ignore[import-untyped]
from ragchunk._pure import tokenizer as tokens
from ragchunk._pure.tokenizer import (
    ENCODINGS,
    count_tokens,
    load_encoding,
    num_tokens_from_string,
)

SAMPLES = [
    "",
    " ",
    "hello world",
    "Hello, World! It's a test: don't, won't, I'LL, we've.",
    "   leading and trailing spaces   ",
    "line one\r\nline two\rline three\n\n\n",
    "tabs\tand\u00a0nbsp\u3000ideographic space",
    "1234567890 3.14159 -42 1e10 0x1F",
    "检索增强生成需要将文档切分成较小的片段。",
    "名前はまだ無い。カタカナ：データベース",
    "대한민국의 주권은 국민에게 있고",
    "بِسْمِ اللَّهِ الرَّحْمَٰنِ الرَّحِيمِ",
    "नमस्ते दुनिया। यह एक परीक्षण है।",
    "สวัสดีครับ ยินดีต้อนรับ",
    "Family: 👨\u200d👩\u200d👧\u200d👦 flags 🇫🇷🇯🇵 skin 👍🏽 keycap 1️⃣",
    "Z̴̡̛a̷̢l̵̛g̶o̸ combining",
    "zero\u200bwidth BOM\ufeff control \x01\x02\x7f",
    "@@3\t10.0\t200.5\t30.0\t45.5## position tag",
    "def f(x):\n    return x ** 2  # comment\n",
    "a" * 3000,
    " " * 500 + "x",
    "<|endoftext|> is fine when allowed",
]

LONE_SURROGATES = ["\ud800", "a\udfffb", "\ud83d"]


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_constants_match_tiktoken_ext(name: str) -> None:
    """Our pat_str and special tokens are exactly those tiktoken registers."""
    registered = openai_public.ENCODING_CONSTRUCTORS[name]()
    assert ENCODINGS[name].pat_str == registered["pat_str"]
    assert ENCODINGS[name].special_tokens == registered["special_tokens"]
    assert registered.get("explicit_n_vocab") is None


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_load_encoding_equals_get_encoding(name: str) -> None:
    ours = load_encoding(name)
    reference = tiktoken.get_encoding(name)
    assert ours.name == reference.name
    assert ours._pat_str == reference._pat_str
    assert ours._special_tokens == reference._special_tokens
    assert ours._mergeable_ranks == reference._mergeable_ranks
    assert ours.n_vocab == reference.n_vocab
    assert ours.max_token_value == reference.max_token_value
    for text in SAMPLES:
        assert ours.encode(text, allowed_special="all") == reference.encode(
            text, allowed_special="all"
        ), text
        assert ours.encode_ordinary(text) == reference.encode_ordinary(text), text


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_load_encoding_is_cached(name: str) -> None:
    assert load_encoding(name) is load_encoding(name)


def test_unknown_encoding_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="p50k_base"):
        load_encoding("p50k_base")


@pytest.mark.parametrize("name", sorted(ENCODINGS))
@pytest.mark.parametrize("text", SAMPLES[:-1] + LONE_SURROGATES)
def test_count_tokens_equals_tiktoken(name: str, text: str) -> None:
    assert count_tokens(text, name) == len(tiktoken.get_encoding(name).encode(text))


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_count_tokens_rejects_special_token_text_like_tiktoken(name: str) -> None:
    with pytest.raises(ValueError):
        count_tokens("before <|endoftext|> after", name)


def test_num_tokens_from_string_is_ragflows_counter() -> None:
    reference = tiktoken.get_encoding("cl100k_base")
    for text in SAMPLES[:-1] + LONE_SURROGATES:
        assert num_tokens_from_string(text) == len(reference.encode(text))
    # Whatever makes encode raise counts as 0: special-token text, non-strings.
    for special in ["<|endoftext|>", "x<|fim_prefix|>", "<|fim_middle|>", "<|endofprompt|>"]:
        assert num_tokens_from_string(special) == 0
    assert num_tokens_from_string(None) == 0
    assert num_tokens_from_string(123) == 0
    assert num_tokens_from_string(b"bytes") == 0


def test_missing_tiktoken_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tiktoken", None)
    with pytest.raises(ImportError, match=r"ragchunk\[fallback\]"):
        tokens._import_tiktoken()
