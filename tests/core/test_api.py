"""The public API's contract beyond the golden vectors: argument handling, errors, tokenizers."""

from __future__ import annotations

import doctest
import os
import subprocess
import sys
from enum import Enum

import pytest
import ragchunk
from ragchunk import MergeStrategy, naive_merge

# ---------------------------------------------------------------------------------------------
# Bad input: a clear TypeError / ValueError naming the argument
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sections", "exc", "needle"),
    [
        (None, TypeError, "sections"),
        (b"bytes", TypeError, "sections"),
        (42, TypeError, "sections"),
        (3.5, TypeError, "sections"),
        ({"a": 1}, TypeError, "sections"),
        ([b"bytes"], TypeError, r"sections\[0\]"),
        ([["a", "b", "c"]], TypeError, r"sections\[0\]"),
        ([[["nested"], "pos"]], TypeError, r"sections\[0\]\[0\]"),
        ([("text", 5)], TypeError, r"sections\[0\]\[1\] \(pos\)"),
        (["ok", None], TypeError, r"sections\[1\]"),
    ],
)
def test_bad_sections(sections: object, exc: type[Exception], needle: str) -> None:
    with pytest.raises(exc, match=needle):
        naive_merge(sections)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "exc", "needle"),
    [
        ({"chunk_token_num": 0}, ValueError, "chunk_token_num"),
        ({"chunk_token_num": -5}, ValueError, "chunk_token_num"),
        ({"chunk_token_num": "128"}, TypeError, "chunk_token_num"),
        ({"chunk_token_num": True}, TypeError, "chunk_token_num"),
        ({"chunk_token_num": float("nan")}, ValueError, "chunk_token_num"),
        ({"chunk_token_num": float("inf")}, ValueError, "chunk_token_num"),
        ({"overlapped_percent": -1}, ValueError, "overlapped_percent"),
        ({"overlapped_percent": 100.5}, ValueError, "overlapped_percent"),
        ({"overlapped_percent": "10"}, TypeError, "overlapped_percent"),
        ({"overlapped_percent": None}, TypeError, "overlapped_percent"),
        ({"delimiter": 5}, TypeError, "delimiter"),
        ({"delimiter": b"\n"}, TypeError, "delimiter"),
        ({"strategy": "fastest"}, ValueError, "strategy"),
        ({"strategy": 1}, ValueError, "strategy"),
        ({"tokenizer": "gpt2"}, ValueError, "tokenizer"),
        ({"tokenizer": 12}, TypeError, "tokenizer"),
        ({"compat": "v0.19"}, ValueError, "compat"),
        ({"compat": "latest"}, ValueError, "compat"),
        ({"compat": "v0.22", "strategy": MergeStrategy.UNDER_CAP}, ValueError, "strategy"),
    ],
)
def test_bad_arguments(kwargs: dict[str, object], exc: type[Exception], needle: str) -> None:
    with pytest.raises(exc, match=needle):
        naive_merge("some text。more text", **kwargs)  # type: ignore[arg-type]


def test_remembered_settings_still_refuse_bad_arguments() -> None:
    # Validated settings are remembered between calls: a value equal to a remembered one
    # (True == 1, 0.0 == False) must still be refused, and equal numbers agree.
    text = "some text。more text"
    assert naive_merge(text, chunk_token_num=1, overlapped_percent=0) == naive_merge(
        text, chunk_token_num=1.0, overlapped_percent=0.0
    )
    with pytest.raises(TypeError, match="chunk_token_num"):
        naive_merge(text, chunk_token_num=True)
    with pytest.raises(TypeError, match="overlapped_percent"):
        naive_merge(text, chunk_token_num=1, overlapped_percent=False)
    assert naive_merge(text, strategy="under_cap") == naive_merge(
        text, strategy=MergeStrategy.UNDER_CAP
    )


def test_tokenizer_callable_must_return_int() -> None:
    with pytest.raises(TypeError, match="tokenizer"):
        naive_merge("a\nb", tokenizer=lambda s: "three")
    with pytest.raises(ValueError, match="tokenizer"):
        naive_merge("a\nb", tokenizer=lambda s: -1)


def test_tokenizer_callable_exception_propagates() -> None:
    class Boom(Exception):
        pass

    def counter(text: str) -> int:
        raise Boom(text)

    with pytest.raises(Boom):
        naive_merge("a\nb", tokenizer=counter)


def test_count_tokens_rejects_non_str() -> None:
    with pytest.raises(TypeError, match="text"):
        ragchunk.count_tokens(b"abc")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="txt"):
        ragchunk.remove_tag(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="txt"):
        ragchunk.extract_positions(3)  # type: ignore[arg-type]


def test_images_argument_types() -> None:
    with pytest.raises(TypeError, match="images"):
        ragchunk.naive_merge_with_images(["a"], None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="texts"):
        ragchunk.naive_merge_with_images("abc", [None])  # type: ignore[arg-type]
    assert ragchunk.naive_merge_with_images(["a", "b"], [None]) == ([], [])
    assert ragchunk.naive_merge_with_images([], []) == ([], [])


# ---------------------------------------------------------------------------------------------
# Accepted forms
# ---------------------------------------------------------------------------------------------


def test_empty_inputs() -> None:
    assert naive_merge("") == []
    assert naive_merge([]) == []
    assert naive_merge(()) == []


def test_settings_of_the_last_call_are_not_reused_for_others() -> None:
    # The settings of the last call are matched by identity before the table: alternating
    # settings must each get their own chunks.
    text = "alpha beta gamma。" * 30
    small, large = naive_merge(text, 8), naive_merge(text, 256)
    assert small != large
    for _ in range(2):
        assert naive_merge(text, 8) == small
        assert naive_merge(text, 256) == large
        assert naive_merge(text, 8, strategy=MergeStrategy.UNDER_CAP) != small


def test_strategy_forms_agree() -> None:
    text = "alpha beta。" * 40

    class ForeignStrategy(Enum):  # RAGFlow's own enum, as a caller would import it
        UNDER_CAP = "under_cap"
        OVER_CAP = "over_cap"

    a = naive_merge(text, 16, strategy=MergeStrategy.UNDER_CAP)
    assert a == naive_merge(text, 16, strategy="under_cap")
    assert a == naive_merge(text, 16, strategy=ForeignStrategy.UNDER_CAP)
    assert a != naive_merge(text, 16, strategy=MergeStrategy.OVER_CAP)


def test_compat_aliases() -> None:
    text = "one。two。" * 50
    assert naive_merge(text, 8, compat="v0.24.0") == naive_merge(text, 8, compat="v0.23")
    assert naive_merge(text, 8, compat="0.21") == naive_merge(text, 8, compat="v0.22")
    assert naive_merge(text, 8, compat="v0.27.0") == naive_merge(text, 8)


def test_pairs_as_lists_and_mixed_sections() -> None:
    pos = "@@1\t0.0\t1.0\t2.0\t3.0##"
    assert naive_merge([["text", pos]]) == naive_merge([("text", pos)])
    assert naive_merge(["plain", ("tagged", pos)]) == ["\nplain\ntagged" + pos]


def test_float_chunk_token_num_and_overlap() -> None:
    text = "a sentence here。" * 30
    assert naive_merge(text, 16.0, overlapped_percent=10.0) == naive_merge(text, 16, "\n。", 10)


# ---------------------------------------------------------------------------------------------
# Tokenizers
# ---------------------------------------------------------------------------------------------


def test_count_tokens_matches_tiktoken(tiktoken_cl100k: object) -> None:
    enc = tiktoken_cl100k
    for text in ["", "hello world", "你好，世界", "  \n\n\t x", "1234567", "🦀🦀 rust"]:
        assert ragchunk.count_tokens(text) == len(enc.encode(text))  # type: ignore[attr-defined]


def test_special_tokens() -> None:
    with pytest.raises(ValueError, match="endoftext"):
        ragchunk.count_tokens("a <|endoftext|> b")
    assert ragchunk.num_tokens_from_string("a <|endoftext|> b") == 0
    assert ragchunk.num_tokens_from_string(None) == 0
    assert ragchunk.num_tokens_from_string(123) == 0
    # Near-misses are ordinary text.
    assert ragchunk.count_tokens("<|endoftext|") > 0
    assert ragchunk.count_tokens("<|EndOfText|>") > 0


def test_o200k(tiktoken_cl100k: object) -> None:
    import tiktoken

    enc = tiktoken.get_encoding("o200k_base")
    text = "Tokenizers differ: 分词器不同 — don't they? 12345"
    assert ragchunk.count_tokens(text, "o200k_base") == len(enc.encode(text))
    assert ragchunk.count_tokens(text, enc) == len(enc.encode(text))


def test_tiktoken_encoding_and_callables_match_builtin(tiktoken_cl100k: object) -> None:
    text = "Chunking is counting. 分块就是计数。\n" * 30
    expected = naive_merge(text, 32)
    enc = tiktoken_cl100k
    assert naive_merge(text, 32, tokenizer=enc) == expected
    assert naive_merge(text, 32, tokenizer=lambda s: len(enc.encode(s))) == expected  # type: ignore[attr-defined]


def test_word_counter_tokenizer() -> None:
    words = naive_merge("a b c\nd e\nf g h i", 3, tokenizer=lambda s: len(s.split()))
    # OVER_CAP: "a b c" (3) does not pass the cap, so "d e" joins; "f g h i" (4) stands alone.
    assert words == ["\na b c\nd e", "\nf g h i"]


def test_lone_surrogates_keep_text() -> None:
    text = "before \ud800 after。second \udfff part"
    chunks = naive_merge(text, 128)
    assert chunks == ["\nbefore \ud800 after\nsecond \udfff part"]
    assert ragchunk.count_tokens("\ud800") == ragchunk.count_tokens("\ufffd")
    # A valid pair written as two surrogates counts as the character it encodes (tiktoken).
    assert ragchunk.count_tokens("\ud83e\udd80") == ragchunk.count_tokens("🦀")
    assert ragchunk.remove_tag("x\ud800@@1\t2\t3\t4\t5##") == "x\ud800"


def test_large_single_section_keeps_all_text() -> None:
    text = ("word " * 1000 + "\n") * 10_000  # 50 MB, one section
    chunks = naive_merge(text, 512)
    assert "".join(c.replace("\n", "") for c in chunks) == text.replace("\n", "")


# ---------------------------------------------------------------------------------------------
# Backend selection
# ---------------------------------------------------------------------------------------------


def test_backend_attribute(backend: str) -> None:
    assert ragchunk.backend == backend


def _run(code: str, env_backend: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, RAGCHUNK_BACKEND=env_backend)
    return subprocess.run(
        [sys.executable, "-W", "error", "-c", code], env=env, capture_output=True, text=True
    )


@pytest.mark.single_backend
def test_env_forces_python_backend() -> None:
    out = _run("import ragchunk; print(ragchunk.backend)", "python")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "python"


@pytest.mark.single_backend
def test_env_rejects_unknown_backend() -> None:
    out = _run("import ragchunk", "fortran")
    assert out.returncode != 0
    assert "RAGCHUNK_BACKEND" in out.stderr


@pytest.mark.single_backend
def test_core_version_matches_package() -> None:
    if os.environ.get("RAGCHUNK_BACKEND", "").lower() == "python":
        pytest.skip("fallback-only run (RAGCHUNK_BACKEND=python): no compiled core to check")
    from ragchunk import _core

    assert _core.__version__ == ragchunk.__version__


@pytest.mark.single_backend
@pytest.mark.parametrize("detach", [False, True])
def test_rust_panic_becomes_ragchunk_error(detach: bool) -> None:
    if os.environ.get("RAGCHUNK_BACKEND", "").lower() == "python":
        pytest.skip("fallback-only run (RAGCHUNK_BACKEND=python): no compiled core")
    from ragchunk import _core

    with pytest.raises(ragchunk.RagchunkError, match="deliberate panic"):
        _core._panic_for_tests(detach)
    assert issubclass(ragchunk.RagchunkError, RuntimeError)
    assert ragchunk.naive_merge("still alive") == ["\nstill alive"]


# ---------------------------------------------------------------------------------------------
# Docstring examples are tests
# ---------------------------------------------------------------------------------------------


def test_docstring_examples() -> None:
    from ragchunk.ragflow import merge as _naive

    for module in (ragchunk, _naive):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, f"{module.__name__}: {result}"
