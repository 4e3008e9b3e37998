"""Resolving the ``tokenizer=`` argument into something both backends can count with.

A tokenizer is one of:

* a built-in encoding name, ``"cl100k_base"`` (RAGFlow's, the default) or ``"o200k_base"``:
  counted entirely in Rust (or with the ``tiktoken`` package by the pure-Python fallback);
* a ``tiktoken.Encoding``: when it is one of the built-in encodings it is treated exactly like
  its name, otherwise every count calls ``len(encoding.encode(text))``;
* ``"hf:<path to tokenizer.json>"`` or a :class:`Tokenizer` (``Tokenizer.from_file(path)``): a
  Hugging Face tokenizer file (WordPiece, BPE, Unigram...), counted in Rust with the
  ``tokenizers`` crate, GIL released (or with the ``tokenizers`` package by the fallback):
  ``len(tok.encode(text, add_special_tokens=False).ids)``;
* a Hugging Face ``tokenizers.Tokenizer`` object: serialised once and counted like its file;
* any callable ``str -> int`` (a word counter, an embedding model's tokenizer...): every count
  comes from it, and it must return a non-negative ``int``.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .encodings import ENCODINGS
from .optional import load

__all__ = [
    "BUILTIN_ENCODINGS",
    "ResolvedTokenizer",
    "Tokenizer",
    "available_tokenizers",
    "builtin_encoding",
    "hf_tokenizer",
    "resolve_tokenizer",
]

BUILTIN_ENCODINGS = ("cl100k_base", "o200k_base")

HF_PREFIX = "hf:"

# Loaded Hugging Face tokenizers by key ("hf:..."), shared by both backends.
_HF: dict[str, Tokenizer] = {}
# Python ``tokenizers.Tokenizer`` objects already serialised: id -> (object, key). The object
# is kept so that its id is never reused for another one.
_FROM_OBJECTS: dict[int, tuple[object, str]] = {}
_LOCK = threading.Lock()


def _restore_tokenizer(
    key: str, json_text: str, source: str, add_special_tokens: bool
) -> Tokenizer:
    with _LOCK:
        known = _HF.get(key)
    if known is not None:
        return known
    return Tokenizer._load(key, json_text, source, add_special_tokens)


class Tokenizer:
    """A Hugging Face tokenizer (a ``tokenizer.json``) that ragchunk counts with in Rust.

    Pass it (or ``"hf:<path>"``) as ``tokenizer=`` to any size-aware chunker, to
    :func:`ragchunk.count_tokens` and to the batch functions. Counts equal the ``tokenizers``
    package's ``len(tok.encode(text, add_special_tokens=False).ids)``, or with
    ``add_special_tokens=True`` the special tokens an embedder sees (``[CLS]``/``[SEP]``).
    Truncation and padding configured in the file are ignored: a chunk is measured whole.

    >>> import json, pathlib, tempfile
    >>> vocab = {"[UNK]": 0, "hello": 1, "world": 2}
    >>> spec = {"version": "1.0", "model": {"type": "WordLevel", "vocab": vocab,
    ...         "unk_token": "[UNK]"}, "pre_tokenizer": {"type": "Whitespace"}}
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tokenizer.json"
    >>> _ = path.write_text(json.dumps(spec))
    >>> tok = Tokenizer.from_file(path)
    >>> tok.count("hello world hello")
    3
    >>> tok.token_offsets("hello world")
    [(0, 5), (6, 11)]
    """

    __slots__ = ("_json", "add_special_tokens", "key", "source")

    def __init__(self, key: str, json_text: str, source: str, add_special_tokens: bool) -> None:
        self.key = key
        """The name this tokenizer is known by (``"hf:..."``, see :func:`available_tokenizers`)."""
        self.source = source
        """Where it came from: the file's path, or ``"<tokenizers.Tokenizer>"``."""
        self.add_special_tokens = add_special_tokens
        """Whether counts include the special tokens the post-processor adds."""
        self._json = json_text

    @classmethod
    def from_file(
        cls, path: str | os.PathLike[str], *, add_special_tokens: bool = False
    ) -> Tokenizer:
        """Load a ``tokenizer.json`` (read once per path and option; nothing is downloaded).

        >>> Tokenizer.from_file("/no/such/tokenizer.json")
        Traceback (most recent call last):
        ...
        ValueError: tokenizer: cannot read '/no/such/tokenizer.json': ...
        """
        full = os.path.abspath(os.path.expanduser(os.fspath(path)))
        key = HF_PREFIX + full + ("#special" if add_special_tokens else "")
        with _LOCK:
            known = _HF.get(key)
        if known is not None:
            return known
        try:
            with open(full, encoding="utf-8") as f:
                text = f.read()
        except OSError as exc:
            raise ValueError(f"tokenizer: cannot read {full!r}: {exc.strerror}") from None
        return cls._load(key, text, full, add_special_tokens)

    @classmethod
    def from_str(cls, json_text: str, *, add_special_tokens: bool = False) -> Tokenizer:
        """A tokenizer from the JSON text of a ``tokenizer.json`` (``Tokenizer.to_str()`` of the
        ``tokenizers`` package).

        >>> Tokenizer.from_str("{")
        Traceback (most recent call last):
        ...
        ValueError: tokenizer: not a valid tokenizer.json: ...
        """
        digest = hashlib.sha256(json_text.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        key = f"{HF_PREFIX}sha256:{digest}" + ("#special" if add_special_tokens else "")
        with _LOCK:
            known = _HF.get(key)
        if known is not None:
            return known
        return cls._load(key, json_text, "<json>", add_special_tokens)

    @classmethod
    def _load(cls, key: str, json_text: str, source: str, add_special_tokens: bool) -> Tokenizer:
        tok = cls(key, json_text, source, add_special_tokens)
        from . import dispatch

        core = dispatch.core()
        if core is not None:
            tok._register(core)
        else:
            tok.python_tokenizer()  # validate the file the same way
        with _LOCK:
            return _HF.setdefault(key, tok)

    def _register(self, core: Any) -> None:
        """Load this tokenizer into the compiled ``core`` under its key."""
        try:
            core.hf_register(self.key, self._json, self.add_special_tokens)
        except ValueError as exc:
            raise ValueError(str(exc)) from None

    def __reduce__(self) -> tuple[Any, tuple[str, str, str, bool]]:
        # A copy in another process registers the same JSON under the same key again.
        return _restore_tokenizer, (self.key, self._json, self.source, self.add_special_tokens)

    def __eq__(self, other: object) -> bool:
        """Equal when known by the same key (the same file, or the same JSON, and option)."""
        if not isinstance(other, Tokenizer):
            return NotImplemented
        return self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def python_tokenizer(self) -> Any:
        """The same tokenizer as a ``tokenizers.Tokenizer`` (the fallback's engine; cached).

        >>> Tokenizer.from_str("{}").python_tokenizer()
        Traceback (most recent call last):
        ...
        ValueError: tokenizer: not a valid tokenizer.json: ...
        """
        return _python_tokenizer(self._json)

    def count(self, text: str) -> int:
        """Number of tokens of ``text``."""
        from . import dispatch

        n: int = dispatch.run(
            lambda core: core.count_ordinary(text, self.key),
            lambda: len(
                self.python_tokenizer().encode(text, add_special_tokens=self.add_special_tokens).ids
            ),
        )
        return n

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        """``(start, end)`` code-point offsets of each token of ``text`` (the package's offsets)."""
        enc = self.python_tokenizer().encode(text, add_special_tokens=self.add_special_tokens)
        return [(int(a), int(b)) for a, b in enc.offsets]

    def __repr__(self) -> str:
        extra = ", add_special_tokens=True" if self.add_special_tokens else ""
        return f"Tokenizer.from_file({self.source!r}{extra})"


_PY_TOKENIZERS: dict[str, Any] = {}


def _python_tokenizer(json_text: str) -> Any:
    known = _PY_TOKENIZERS.get(json_text)
    if known is not None:
        return known
    tokenizers = load("tokenizers", "counting Hugging Face tokenizers on the pure-Python backend")
    try:
        tok = tokenizers.Tokenizer.from_str(json_text)
    except Exception as exc:
        raise ValueError(f"tokenizer: not a valid tokenizer.json: {exc}") from None
    tok.no_truncation()
    tok.no_padding()
    _PY_TOKENIZERS[json_text] = tok
    return tok


def register_loaded(core: Any) -> None:
    """Load every Hugging Face tokenizer known so far into ``core`` (the dispatch module calls
    this when the Rust backend is switched on after tokenizers were loaded without it)."""
    with _LOCK:
        known = list(_HF.values())
    for tok in known:
        tok._register(core)


def _register_on_rust() -> None:
    from . import dispatch

    dispatch.on_rust(register_loaded)


def hf_tokenizer(key: str) -> Tokenizer:
    """The loaded Hugging Face tokenizer named ``key`` (``"hf:..."``).

    >>> hf_tokenizer("hf:/nowhere")
    Traceback (most recent call last):
    ...
    ValueError: tokenizer: cannot read '/nowhere': ...
    """
    with _LOCK:
        known = _HF.get(key)
    if known is not None:
        return known
    path = key[len(HF_PREFIX) :]
    special = path.endswith("#special")
    return Tokenizer.from_file(path.removesuffix("#special"), add_special_tokens=special)


def available_tokenizers() -> list[str]:
    """Names accepted as ``tokenizer=``: the built-in encodings, then loaded Hugging Face files.

    Any ``"hf:<path to tokenizer.json>"`` is accepted too (loaded on first use), as are a
    :class:`Tokenizer`, a ``tiktoken.Encoding``, a ``tokenizers.Tokenizer`` and a callable.

    >>> available_tokenizers()[:2]
    ['cl100k_base', 'o200k_base']
    """
    with _LOCK:
        return [*BUILTIN_ENCODINGS, *sorted(_HF)]


def _from_python_object(tokenizer: Any) -> Tokenizer:
    with _LOCK:
        known = _FROM_OBJECTS.get(id(tokenizer))
    if known is not None and known[0] is tokenizer:
        return hf_tokenizer(known[1])
    tok = Tokenizer.from_str(tokenizer.to_str())
    with _LOCK:
        _FROM_OBJECTS[id(tokenizer)] = (tokenizer, tok.key)
    return tok


@dataclass(frozen=True)
class ResolvedTokenizer:
    """A tokenizer argument after validation.

    Exactly one of ``builtin`` and ``exact`` is set. ``exact(text)`` returns the count or raises
    (like ``len(encoding.encode(text))``); ``ragflow(text)`` is RAGFlow's convention for the
    drop-ins: the count, or 0 when counting raises ``ValueError`` (special-token text).
    """

    builtin: str | None = None
    exact: Callable[[str], int] | None = None
    ragflow: Callable[[str], int] | None = None
    #: The argument this was resolved from (what a pickled copy resolves again).
    source: Any = field(default=None, compare=False)

    def __reduce__(self) -> tuple[Any, tuple[Any]]:
        # The counters are closures, which do not pickle: a copy resolves the original
        # argument again (a built-in name, or a picklable tokenizer object or function).
        arg = self.source if self.builtin is None else self.builtin
        if self.builtin is not None and self.builtin.startswith(HF_PREFIX):
            # The Tokenizer itself, which carries its JSON: a process that never loaded it
            # (a Ray or Spark worker) registers it again under the same key.
            arg = hf_tokenizer(self.builtin)
        return resolve_tokenizer, (arg,)


def _checked(fn: Callable[[str], Any], what: str) -> Callable[[str], int]:
    def count(text: str) -> int:
        n = fn(text)
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"tokenizer: {what} must return an int, got {type(n).__name__}")
        if n < 0:
            raise ValueError(f"tokenizer: {what} returned a negative count ({n})")
        return n

    return count


def _zero_on_value_error(exact: Callable[[str], int]) -> Callable[[str], int]:
    # RAGFlow's num_tokens_from_string wraps encode() in try/except and returns 0; tiktoken
    # signals special-token text with ValueError, which is the case that matters here.
    def count(text: str) -> int:
        try:
            return exact(text)
        except ValueError:
            return 0

    return count


def builtin_encoding(enc: Any) -> str | None:
    """The built-in encoding name (``"cl100k_base"``, ``"o200k_base"``) that the
    ``tiktoken.Encoding`` ``enc`` is equivalent to, if any (then it is counted in Rust).

    An Encoding merely *named* cl100k_base but built with other rules must not take the Rust
    fast path, so the split pattern, special tokens and vocabulary size are compared too.

    >>> builtin_encoding("cl100k_base") is None  # a name, not an Encoding
    True
    """
    name = getattr(enc, "name", None)
    spec = ENCODINGS.get(name) if isinstance(name, str) else None
    if spec is None:
        return None
    try:
        same = (
            enc._pat_str == spec.pat_str
            and dict(enc._special_tokens) == spec.special_tokens
            and enc.n_vocab == max(spec.special_tokens.values()) + 1
        )
    except Exception:
        return None
    return spec.name if same else None


def resolve_tokenizer(tokenizer: object) -> ResolvedTokenizer:
    """Validate ``tokenizer`` and decide how it will be counted.

    Raises:
        ValueError: an unknown encoding name.
        TypeError: anything that is neither a name, an encoding, a tokenizer nor a callable.
    """
    if isinstance(tokenizer, str):
        if tokenizer.startswith(HF_PREFIX):
            return ResolvedTokenizer(builtin=hf_tokenizer(tokenizer).key)
        if tokenizer not in BUILTIN_ENCODINGS:
            raise ValueError(
                f"tokenizer: unknown encoding {tokenizer!r}; available: "
                f'{", ".join(available_tokenizers())}, or "hf:<path to tokenizer.json>" '
                "(or pass a Tokenizer, a tiktoken.Encoding or a callable)"
            )
        return ResolvedTokenizer(builtin=tokenizer)
    if isinstance(tokenizer, Tokenizer):
        return ResolvedTokenizer(builtin=tokenizer.key)
    cls = type(tokenizer)
    module = getattr(cls, "__module__", "") or ""
    if module.startswith("tiktoken") and hasattr(tokenizer, "encode"):
        name = builtin_encoding(tokenizer)
        if name is not None:
            return ResolvedTokenizer(builtin=name)
        encode = tokenizer.encode
        exact = _checked(lambda text: len(encode(text)), "tiktoken.Encoding.encode")
        return ResolvedTokenizer(exact=exact, ragflow=_zero_on_value_error(exact), source=tokenizer)
    if module.startswith("tokenizers") and hasattr(tokenizer, "to_str"):
        return ResolvedTokenizer(builtin=_from_python_object(tokenizer).key)
    if module.startswith("tokenizers") and hasattr(tokenizer, "encode"):
        hf_encode = tokenizer.encode
        exact = _checked(
            lambda text: len(hf_encode(text, add_special_tokens=False).ids),
            "tokenizers.Tokenizer.encode",
        )
        return ResolvedTokenizer(exact=exact, ragflow=exact, source=tokenizer)
    if callable(tokenizer):
        exact = _checked(tokenizer, "the tokenizer callable")
        return ResolvedTokenizer(exact=exact, ragflow=exact, source=tokenizer)
    raise TypeError(
        "tokenizer must be an encoding name (str), a tiktoken.Encoding, a tokenizers.Tokenizer "
        f"or a callable str -> int, got {cls.__name__}"
    )


_register_on_rust()
