"""Token counting for the pure-Python backend.

The encodings are built from the vocabularies shipped inside the package
(``ragchunk/_vocab/<name>.tiktoken.gz``); nothing is ever downloaded. The
``tiktoken`` package does the BPE work, so counts equal ``tiktoken``'s by
construction, from the split patterns and special tokens of
:mod:`ragchunk.core.encodings`.
"""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import importlib.resources
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.encodings import ENCODINGS, EncodingSpec

if TYPE_CHECKING:
    import tiktoken

__all__ = [
    "ENCODINGS",
    "EncodingSpec",
    "count_tokens",
    "load_encoding",
    "num_tokens_from_string",
    "ragflow_counter",
]


def _import_tiktoken() -> Any:
    try:
        import tiktoken
    except ImportError as exc:  # pragma: no cover - exercised only without tiktoken
        raise ImportError(
            "ragchunk's pure-Python backend counts tokens with the 'tiktoken' package, "
            "which is not installed: pip install ragchunk[fallback]"
        ) from exc
    return tiktoken


def _spec(name: str) -> EncodingSpec:
    try:
        return ENCODINGS[name]
    except KeyError:
        known = ", ".join(sorted(ENCODINGS))
        raise ValueError(f"unknown encoding {name!r}; built-in encodings are: {known}") from None


def read_vocab_bytes(name: str) -> bytes:
    """Return the decompressed ``.tiktoken`` vocabulary shipped for ``name``.

    The bytes are checked against the official sha256 before they are returned,
    so a corrupted or substituted file fails loudly instead of miscounting.
    """
    spec = _spec(name)
    try:
        resource = importlib.resources.files("ragchunk") / "_vocab" / spec.vocab_file
        compressed = resource.read_bytes()
    except (ImportError, OSError, TypeError, AttributeError, ValueError):
        # ``ragchunk`` may not resolve as a resource package in odd layouts (a
        # namespace package on Python 3.10, say, when the facade is missing); the
        # vocab directory sits next to this subpackage either way.
        vocab_dir = Path(__file__).resolve().parent.parent / "_vocab"
        compressed = (vocab_dir / spec.vocab_file).read_bytes()
    data = gzip.decompress(compressed)
    digest = hashlib.sha256(data).hexdigest()
    if digest != spec.sha256:
        raise RuntimeError(
            f"shipped vocabulary {spec.vocab_file} has sha256 {digest}, expected {spec.sha256}"
        )
    return data


def _parse_ranks(data: bytes) -> dict[bytes, int]:
    """Parse tiktoken's vocabulary format: one ``<base64 token> <rank>`` pair per line."""
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if not line:
            continue
        token, rank = line.split()
        ranks[base64.b64decode(token)] = int(rank)
    return ranks


@functools.cache
def load_encoding(name: str) -> tiktoken.Encoding:
    """Build the ``tiktoken.Encoding`` ``name`` from the vocabulary shipped with ragchunk.

    Args:
        name: ``"cl100k_base"`` or ``"o200k_base"``.

    Returns:
        An encoding equal to ``tiktoken.get_encoding(name)`` (same split pattern,
        ranks and special tokens), built without any network access. Cached.

    Raises:
        ImportError: ``tiktoken`` is not installed (``pip install ragchunk[fallback]``).
        ValueError: ``name`` is not a built-in encoding.
    """
    if name.startswith("hf:"):
        from ..core.tokenizers import hf_tokenizer

        return _HfEncoding(hf_tokenizer(name))  # type: ignore[return-value]
    tiktoken_module = _import_tiktoken()
    spec = _spec(name)
    ranks = _parse_ranks(read_vocab_bytes(name))
    encoding: tiktoken.Encoding = tiktoken_module.Encoding(
        spec.name,
        pat_str=spec.pat_str,
        mergeable_ranks=ranks,
        special_tokens=dict(spec.special_tokens),
    )
    return encoding


class _HfEncoding:
    """A Hugging Face tokenizer with the part of ``tiktoken.Encoding``'s interface the
    fallback uses: ``encode``/``encode_ordinary`` return the ids (special-token text is
    ordinary text for it)."""

    def __init__(self, tok: Any) -> None:
        self.name = tok.key
        self._tok = tok.python_tokenizer()
        self._special = tok.add_special_tokens

    def encode_ordinary(self, text: str) -> list[int]:
        ids: list[int] = self._tok.encode(text, add_special_tokens=self._special).ids
        return ids

    def encode(self, text: str, **_: Any) -> list[int]:
        return self.encode_ordinary(text)


def count_tokens(text: str, name: str = "cl100k_base") -> int:
    """Return ``len(tiktoken_encoding.encode(text))`` for a built-in encoding.

    This is tiktoken's ``encode`` with its default settings, so it raises
    ``ValueError`` when ``text`` contains the literal text of a special token
    (for example ``"<|endoftext|>"``), and it handles lone surrogates the way
    tiktoken does (re-encoding through UTF-16 with replacement).

    >>> count_tokens("hello world")
    2
    """
    return len(load_encoding(name).encode(text))


def ragflow_counter(name: str = "cl100k_base") -> Callable[[str], int]:
    """A counter with RAGFlow's convention for encoding ``name``: the count, or 0 on failure."""
    encode = load_encoding(name).encode

    def count(text: str) -> int:
        try:
            return len(encode(text))
        except Exception:  # RAGFlow parity: any failure counts as 0 tokens.
            return 0

    return count


def num_tokens_from_string(string: object) -> int:
    """RAGFlow's token counter: ``len(cl100k_base.encode(string))``, or 0 when that raises.

    RAGFlow swallows every exception here, so special-token text and non-``str``
    arguments count as 0 tokens; the merge functions depend on that (a 0-token
    section is never "oversized" and its ``pos`` tag is dropped by the "< 8
    tokens" rule of the older releases).

    >>> num_tokens_from_string("hello world")
    2
    >>> num_tokens_from_string("<|endoftext|>")
    0
    >>> num_tokens_from_string(None)
    0
    """
    encoding = load_encoding("cl100k_base")
    try:
        return len(encoding.encode(string))  # type: ignore[arg-type]
    except Exception:  # RAGFlow parity: any failure counts as 0 tokens.
        return 0
