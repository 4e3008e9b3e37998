"""The built-in encodings: split patterns, special tokens and shipped vocabulary files.

Both backends read these facts: the tokenizer resolution compares a ``tiktoken.Encoding``
against them, and the fallback builds its encodings from them. The patterns and special
tokens are the ones ``tiktoken_ext.openai_public`` registers for the same names (a test
checks that).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ENCODINGS", "EncodingSpec"]

_ENDOFTEXT = "<|endoftext|>"
_FIM_PREFIX = "<|fim_prefix|>"
_FIM_MIDDLE = "<|fim_middle|>"
_FIM_SUFFIX = "<|fim_suffix|>"
_ENDOFPROMPT = "<|endofprompt|>"

_CL100K_PAT_STR = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)

_O200K_PAT_STR = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)


@dataclass(frozen=True)
class EncodingSpec:
    """Everything needed to build one encoding from its shipped vocabulary."""

    name: str
    pat_str: str
    special_tokens: dict[str, int]
    vocab_file: str
    sha256: str
    """sha256 of the *decompressed* ``.tiktoken`` file, as published by OpenAI."""


ENCODINGS: dict[str, EncodingSpec] = {
    "cl100k_base": EncodingSpec(
        name="cl100k_base",
        pat_str=_CL100K_PAT_STR,
        special_tokens={
            _ENDOFTEXT: 100257,
            _FIM_PREFIX: 100258,
            _FIM_MIDDLE: 100259,
            _FIM_SUFFIX: 100260,
            _ENDOFPROMPT: 100276,
        },
        vocab_file="cl100k_base.tiktoken.gz",
        sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
    "o200k_base": EncodingSpec(
        name="o200k_base",
        pat_str=_O200K_PAT_STR,
        special_tokens={_ENDOFTEXT: 199999, _ENDOFPROMPT: 200018},
        vocab_file="o200k_base.tiktoken.gz",
        sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
}
