"""LangChain text splitters backed by ragchunk, of two kinds.

**Drop-ins**, named and configured exactly like LangChain's classes and subclasses of them:
:class:`RecursiveCharacterTextSplitter`, :class:`CharacterTextSplitter`,
:class:`TokenTextSplitter`, :class:`MarkdownTextSplitter` and :class:`PythonCodeTextSplitter`
(split in the Rust core), and the structure splitters :class:`MarkdownHeaderTextSplitter`,
:class:`HTMLHeaderTextSplitter`, :class:`HTMLSectionSplitter` and
:class:`RecursiveJsonSplitter` (LangChain's algorithms without their overheads). Change the
import and nothing else: the same arguments, defaults and error messages, the same chunk
strings, the same ``Document`` metadata and the same ``start_index`` (LangChain's own
``create_documents`` computes it). The splitting runs in
ragchunk's Rust core; whatever the core cannot reproduce exactly runs LangChain's own code
(see below), so the answer is LangChain's either way.

>>> from ragchunk.integrations.langchain import RecursiveCharacterTextSplitter
>>> splitter = RecursiveCharacterTextSplitter(chunk_size=10, chunk_overlap=1)
>>> splitter.split_text("Hi.\\n\\nI'm Harrison.\\n\\nHow? Are? You?")
['Hi.', "I'm", 'Harrison.', 'How? Are?', 'You?']

``start_index`` is LangChain's, on purpose: LangChain finds each chunk with
``text.find(chunk, offset)`` from an estimate of where it should be, which can land on an
earlier copy of repeated text, and gives ``-1`` for a chunk re-joined with
``keep_separator=False`` that is not in the source; the drop-ins give the same numbers. For
true offsets use the adapters below.

>>> s = RecursiveCharacterTextSplitter(
...     chunk_size=10, chunk_overlap=0, separators=["-"], keep_separator=False,
...     add_start_index=True)
>>> [(d.page_content, d.metadata["start_index"]) for d in s.create_documents(["a--b"])]
[('a-b', -1)]

The Rust core runs a call when the text is a ``str`` without lone surrogates, the sizes are
ints, the separators are literals or regexes the Rust engine matches exactly as Python's
``re`` does (no look-around, ``$``, ``\\b``, ``\\d``, back-references, capturing groups or
flags), and the length function is ``len``, a built-in encoding's tiktoken length from
``from_tiktoken_encoder`` (``cl100k_base``, ``o200k_base``) on text without special-token
strings, or any other callable returning ints (called from Rust, with the GIL held). Anything
else, every call on ragchunk's pure-Python backend, any call whose length function raises
or returns something other than a non-negative int, and a subclass that overrides
``_split_text``, ``_merge_splits`` or ``_join_docs`` run LangChain's own method instead
(which then raises, or not, as LangChain does).

**Adapters**: :class:`RagchunkTextSplitter` and its subclasses put any ragchunk chunker behind
LangChain's ``TextSplitter`` interface, with ragchunk's chunking and exact offsets:
``start_index`` (on by default) is the chunk's true offset in the document, and the chunk's
ragchunk metadata (Markdown ``headers``, code ``language``...) and ``end_index`` are added to
each document's metadata.

>>> splitter = CharacterWindowTextSplitter(chunk_size=6)
>>> docs = splitter.create_documents(["Same. Same. Same. "])
>>> [(d.page_content, d.metadata["start_index"]) for d in docs]
[('Same. ', 0), ('Same. ', 6), ('Same. ', 12)]

Needs ``langchain-text-splitters`` (``pip install 'ragchunk[langchain]'``); ``import
ragchunk`` never imports it.
"""

from __future__ import annotations

import importlib
import re
import weakref
from collections.abc import Callable, Collection, Iterable, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, Literal

import langchain_text_splitters as _lc
from langchain_core.documents import Document
from langchain_text_splitters import Language, TextSplitter
from typing_extensions import Self

from ragchunk._pure.tokenizer import load_encoding
from ragchunk.core import dispatch
from ragchunk.core.encodings import ENCODINGS
from ragchunk.core.tokenizers import builtin_encoding
from ragchunk.integrations._langchain_adapters import (
    CharacterWindowTextSplitter,
    CodeTextSplitter,
    HTMLTextSplitter,
    JSONTextSplitter,
    MarkdownSectionTextSplitter,
    RagchunkTextSplitter,
    RecursiveTextSplitter,
    SentenceTextSplitter,
    TitleTreeTextSplitter,
    TokenWindowTextSplitter,
)
from ragchunk.integrations._langchain_html import HTMLHeaderTextSplitter, HTMLSections
from ragchunk.integrations._langchain_structured import (
    MarkdownHeaderTextSplitter,
    RecursiveJsonSplitter,
)
from ragchunk.splitters.recursive import rust_regex

__all__ = [
    "CharacterTextSplitter",
    "CharacterWindowTextSplitter",
    "CodeTextSplitter",
    "HTMLHeaderTextSplitter",
    "HTMLSectionSplitter",
    "HTMLTextSplitter",
    "JSONTextSplitter",
    "Language",
    "MarkdownHeaderTextSplitter",
    "MarkdownSectionTextSplitter",
    "MarkdownTextSplitter",
    "PythonCodeTextSplitter",
    "RagchunkTextSplitter",
    "RecursiveCharacterTextSplitter",
    "RecursiveJsonSplitter",
    "RecursiveTextSplitter",
    "SentenceTextSplitter",
    "TitleTreeTextSplitter",
    "TokenTextSplitter",
    "TokenWindowTextSplitter",
]

# ----------------------------------------------------------------------------------------------
# The drop-ins' machinery: when the core gives LangChain's answer, and the core splitter then.

#: Counts above this run LangChain's code (Rust adds counts up in 64-bit integers).
_MAX_COUNT = 1 << 40
#: LangChain's CharacterTextSplitter re-joins nothing for separators starting with these.
_LOOKAROUND = ("(?=", "(?<!", "(?<=", "(?!")


class _Inexact(Exception):
    """A length the core would not add up as LangChain does: LangChain's code runs instead."""


class _TiktokenLength:
    """LangChain's tiktoken length function (what ``from_tiktoken_encoder`` builds), called as
    it is, with what the core needs to count the same tokens in Rust: the built-in encoding it
    is equivalent to, if any, and the special-token strings (text holding one goes to
    LangChain's code, where tiktoken refuses it or counts it as one token)."""

    __slots__ = ("builtin", "function", "special")

    def __init__(self, function: Callable[[str], int], encoding: Any) -> None:
        self.function = function
        self.builtin = builtin_encoding(encoding)
        self.special = tuple(sorted(encoding.special_tokens_set))

    def __call__(self, text: str) -> int:
        return self.function(text)


def _tiktoken_encoding(encoding_name: str, model_name: str | None) -> Any:
    """The ``tiktoken.Encoding`` LangChain's code would get for these arguments: for the
    built-in encodings (or a model using one) built from the vocabularies ragchunk ships,
    so nothing is downloaded; any other name is tiktoken's (and its errors)."""
    try:
        tiktoken: Any = importlib.import_module("tiktoken")
    except ImportError as exc:
        raise ImportError(
            "Could not import tiktoken python package. Please install it with "
            "`pip install tiktoken`."
        ) from exc
    name = encoding_name
    if model_name is not None:
        name = tiktoken.model.encoding_name_for_model(model_name)  # tiktoken's KeyError
    if isinstance(name, str) and name in ENCODINGS:
        return load_encoding(name)
    return tiktoken.get_encoding(name)


def _tiktoken_length_function(
    encoding_name: str = "gpt2",
    model_name: str | None = None,
    allowed_special: Literal["all"] | AbstractSet[str] | None = None,
    disallowed_special: Literal["all"] | Collection[str] = "all",
) -> _TiktokenLength:
    """LangChain's tiktoken length function (``len(enc.encode(text, allowed_special=...,
    disallowed_special=...))``) on :func:`_tiktoken_encoding`'s encoding, marked for the core."""
    allowed: Literal["all"] | AbstractSet[str] = (
        set() if allowed_special is None else allowed_special
    )
    encoding = _tiktoken_encoding(encoding_name, model_name)

    def length(text: str) -> int:
        return len(
            encoding.encode(text, allowed_special=allowed, disallowed_special=disallowed_special)
        )

    return _TiktokenLength(length, encoding)


def _keep_mode(keep: object) -> str:
    # LangChain tests truthiness, then `== "end"`: any other true value keeps at the start.
    if not keep:
        return "none"
    return "end" if keep == "end" else "start"


def _exact_counts(
    function: Callable[[str], Any], positive: bool, exempt: frozenset[str]
) -> Callable[[str], int]:
    """``function`` as the core's counter: a result other than a non-negative int (or, with
    ``positive``, 0 for text other than ``exempt``) raises :class:`_Inexact`."""

    def count(text: str) -> int:
        n = function(text)
        if n.__class__ is not int or not 0 <= n <= _MAX_COUNT:
            raise _Inexact
        if positive and n == 0 and text not in exempt:
            raise _Inexact
        return n

    return count


#: The methods LangChain's ``split_text`` goes through: a subclass that overrides one of them
#: gets LangChain's code, which calls it.
_HOOKS = {
    False: ("_split_text", "_merge_splits", "_join_docs"),
    True: ("_merge_splits", "_join_docs"),
}
_CUSTOMISED: dict[tuple[type, bool], bool] = {}


def _customised(cls: type, character: bool) -> bool:
    key = (cls, character)
    hit = _CUSTOMISED.get(key)
    if hit is None:
        base = _lc.CharacterTextSplitter if character else _lc.RecursiveCharacterTextSplitter
        hit = any(getattr(cls, name) is not getattr(base, name) for name in _HOOKS[character])
        _CUSTOMISED[key] = hit
    return hit


# One core splitter per drop-in, rebuilt when its configuration or the core module changes.
# Kept beside the splitters so that they still pickle and copy.
_PLANS: weakref.WeakKeyDictionary[TextSplitter, tuple[tuple[Any, ...], Any, Any]] = (
    weakref.WeakKeyDictionary()
)


def _core_splitter(
    splitter: TextSplitter,
    core: Any,
    text: str,
    separators: Sequence[object],
    is_regex: bool,
    character: bool,
) -> Any | None:
    """The core's ``RecursiveSplitter`` that gives LangChain's chunks of ``text`` for
    ``splitter``'s configuration, or None when only LangChain's code does.

    ``character``: LangChain's ``CharacterTextSplitter`` (one separator, every piece merged,
    an oversized piece stripped), which is the recursive splitter over that one separator with
    every chunk stripped afterwards, as long as every piece measures at least 1 (the core
    then keeps an oversized piece apart exactly as LangChain's merge does). An overlap equal
    to the chunk size (LangChain allows it) behaves as one less under the same condition.
    """
    if _customised(type(splitter), character):
        return None
    size, overlap = splitter._chunk_size, splitter._chunk_overlap
    if type(size) is not int or type(overlap) is not int or not 0 <= overlap <= size:
        return None
    if size > _MAX_COUNT:
        return None
    keep = _keep_mode(splitter._keep_separator)
    strip = bool(splitter._strip_whitespace)
    function = splitter._length_function
    positive = character or overlap == size
    builtin = None
    if function is len:
        length: str = "chars"
    elif isinstance(function, _TiktokenLength) and function.builtin is not None:
        if any(token in text for token in function.special):
            return None
        length, builtin = "tokens", function.builtin
    else:
        # LangChain measures the join string "" when separators are kept; the core adds 0.
        if keep != "none" and function("") != 0:
            return None
        length = "tokens"
    seps = tuple(separators)
    key = (core, size, overlap, seps, bool(is_regex), keep, strip, length, builtin)
    hit = _PLANS.get(splitter)
    if hit is not None and hit[2] is function and hit[0] == key:
        return hit[1]
    rust_seps: list[tuple[str, str | None]] = []
    for sep in seps:
        if not isinstance(sep, str):
            return None
        if not is_regex or not sep:
            rust_seps.append((sep, None))
            continue
        if character and sep.startswith(_LOOKAROUND):
            return None
        if re.compile(sep).groups:  # re.split would put the groups' text among the pieces
            return None
        translated = rust_regex(sep)
        if translated is None:
            return None
        rust_seps.append((sep, translated))
    counter = None
    if length == "tokens" and builtin is None:
        exempt = (
            frozenset(s for s, _ in rust_seps)
            if character and keep == "none" and not is_regex
            else frozenset()
        )
        counter = _exact_counts(function, positive, exempt)
    built = core.RecursiveSplitter(
        size, min(overlap, size - 1), rust_seps, keep, strip, length, builtin, counter
    )
    _PLANS[splitter] = (key, built, function)
    return built


def _split(
    splitter: TextSplitter,
    text: str,
    separators: Callable[[], tuple[Sequence[object], object]],
    character: bool,
    langchain: Callable[[str], list[str]],
) -> list[str]:
    """``splitter.split_text(text)``: the core's chunks, or LangChain's own ``langchain``.
    ``separators()`` reads the splitter's separators and ``is_separator_regex``."""

    def rust(core: Any) -> list[str]:
        if not isinstance(text, str):
            return langchain(text)
        try:
            seps, is_regex = separators()
            built = _core_splitter(splitter, core, text, seps, bool(is_regex), character)
            if built is None:
                return langchain(text)
            chunks: list[str] = built.split_text(text)
        except Exception:
            # A length function that raised or returned what the core does not add up as
            # LangChain does, text with a lone surrogate, a regex the Rust engine will not
            # build: LangChain's code gives the answer, or raises its own error.
            return langchain(text)
        if character and splitter._strip_whitespace:
            # LangChain strips a piece longer than the chunk size too; the core emits it whole.
            return [c for c in (chunk.strip() for chunk in chunks) if c]
        return chunks

    return dispatch.run_exact(rust, lambda: langchain(text))


_TOKENIZERS: dict[int, tuple[Any, str | None, tuple[str, ...]]] = {}


def _token_windows(splitter: TextSplitter, core: Any, text: str) -> list[str] | None:
    """LangChain's ``TokenTextSplitter`` chunks of ``text`` from the core, or None when only
    LangChain's code gives them (an encoding other than the built-in ones, special-token
    text, an overlap LangChain refuses with its own error)."""
    size, overlap = splitter._chunk_size, splitter._chunk_overlap
    if type(size) is not int or type(overlap) is not int or not 0 <= overlap < size:
        return None
    encoding = splitter._tokenizer  # type: ignore[attr-defined]
    known = _TOKENIZERS.get(id(encoding))
    if known is None or known[0] is not encoding:
        known = (encoding, builtin_encoding(encoding), tuple(encoding.special_tokens_set))
        _TOKENIZERS[id(encoding)] = known
    _, builtin, special = known
    if builtin is None or any(token in text for token in special):
        return None
    return core.lc_token_windows(text, builtin, size, size - overlap)  # type: ignore[no-any-return]


# ----------------------------------------------------------------------------------------------
# The drop-ins.


class RecursiveCharacterTextSplitter(_lc.RecursiveCharacterTextSplitter):
    """LangChain's ``RecursiveCharacterTextSplitter``, split by ragchunk's Rust core: a
    drop-in, and a subclass of LangChain's class.

    The same constructor and defaults: ``separators`` (``["\\n\\n", "\\n", " ", ""]``),
    ``keep_separator`` (``True`` = ``"start"``, ``"end"``, ``False``), ``is_separator_regex``,
    and ``TextSplitter``'s ``chunk_size=4000``, ``chunk_overlap=200``, ``length_function=len``,
    ``add_start_index=False``, ``strip_whitespace=True``; the same classmethods
    (:meth:`from_language`, :meth:`from_tiktoken_encoder`, ``from_huggingface_tokenizer``);
    LangChain's ``get_separators_for_language``, inherited and so read from the installed
    LangChain when called (every ``Language`` member it has); LangChain's chunks,
    ``create_documents``/``split_documents`` metadata and ``start_index``.

    Regex separators the Rust engine lacks run LangChain's code: ``Language.LATEX`` (its
    ``"$$"`` and ``"$"`` are end-of-text anchors as regexes) and ``Language.VISUALBASIC6``
    (look-ahead).

    >>> s = RecursiveCharacterTextSplitter(
    ...     chunk_size=10, chunk_overlap=0, separators=[",", "."], keep_separator="end")
    >>> s.split_text("Apple,banana,orange and tomato.")
    ['Apple,', 'banana,', 'orange and tomato.']
    >>> isinstance(s, _lc.RecursiveCharacterTextSplitter)
    True
    """

    def split_text(self, text: str) -> list[str]:
        """LangChain's chunks of ``text``.

        >>> RecursiveCharacterTextSplitter(chunk_size=6, chunk_overlap=0).split_text(
        ...     "w1 w1 w1 w1 w1")
        ['w1 w1', 'w1 w1', 'w1']
        """
        return _split(
            self,
            text,
            lambda: (self._separators, self._is_separator_regex),
            False,
            super().split_text,
        )

    @classmethod
    def from_language(cls, language: Language, **kwargs: Any) -> Self:
        """A splitter with LangChain's separators for ``language`` (regexes), as LangChain's
        ``from_language``.

        >>> code = "def a():\\n    return 1\\n\\ndef b():\\n    return 2\\n"
        >>> RecursiveCharacterTextSplitter.from_language(
        ...     Language.PYTHON, chunk_size=24, chunk_overlap=0).split_text(code)
        ['def a():\\n    return 1', 'def b():\\n    return 2']
        """
        splitter = super().from_language(language, **kwargs)
        assert isinstance(splitter, cls)
        return splitter

    @classmethod
    def from_tiktoken_encoder(
        cls,
        encoding_name: str = "gpt2",
        model_name: str | None = None,
        allowed_special: Literal["all"] | AbstractSet[str] | None = None,
        disallowed_special: Literal["all"] | Collection[str] = "all",
        **kwargs: Any,
    ) -> Self:
        """A splitter measuring in tiktoken tokens, as LangChain's ``from_tiktoken_encoder``
        (LangChain's own length function, so the same errors on special-token text). For
        ``cl100k_base`` and ``o200k_base`` (or a model using one) the vocabulary is the one
        ragchunk ships (nothing is downloaded) and the core counts in Rust.

        >>> s = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
        ...     encoding_name="cl100k_base", chunk_size=4, chunk_overlap=0)
        >>> s.split_text("one two three four five six")
        ['one two three four', 'five six']
        """
        length = _tiktoken_length_function(
            encoding_name, model_name, allowed_special, disallowed_special
        )
        return cls(length_function=length, **kwargs)


class CharacterTextSplitter(_lc.CharacterTextSplitter):
    """LangChain's ``CharacterTextSplitter``, split by ragchunk's Rust core: a drop-in, and a
    subclass of LangChain's class. Splits at every match of one separator, then merges the
    pieces up to ``chunk_size`` with LangChain's overlap rule.

    The same constructor and defaults: ``separator="\\n\\n"``, ``is_separator_regex=False``,
    and ``TextSplitter``'s ``chunk_size=4000``, ``chunk_overlap=200``, ``length_function=len``,
    ``keep_separator=False`` (or ``True``/``"start"``, ``"end"``), ``add_start_index=False``,
    ``strip_whitespace=True``; :meth:`from_tiktoken_encoder` and
    ``from_huggingface_tokenizer``; LangChain's chunks, metadata and ``start_index``. A
    look-around regex separator runs LangChain's code (it is never re-inserted).

    Fixed windows of characters are :class:`CharacterWindowTextSplitter`.

    >>> CharacterTextSplitter(separator=" ", chunk_size=7, chunk_overlap=3).split_text(
    ...     "foo bar baz 123")
    ['foo bar', 'bar baz', 'baz 123']
    """

    def split_text(self, text: str) -> list[str]:
        """LangChain's chunks of ``text``.

        >>> CharacterTextSplitter(separator=".", keep_separator="end", chunk_size=1,
        ...     chunk_overlap=0).split_text("foo.bar.baz")
        ['foo.', 'bar.', 'baz']
        """
        return _split(
            self,
            text,
            lambda: ([self._separator], self._is_separator_regex),
            True,
            super().split_text,
        )

    @classmethod
    def from_tiktoken_encoder(
        cls,
        encoding_name: str = "gpt2",
        model_name: str | None = None,
        allowed_special: Literal["all"] | AbstractSet[str] | None = None,
        disallowed_special: Literal["all"] | Collection[str] = "all",
        **kwargs: Any,
    ) -> Self:
        """A splitter measuring in tiktoken tokens, as LangChain's ``from_tiktoken_encoder``
        (see :meth:`RecursiveCharacterTextSplitter.from_tiktoken_encoder`).

        >>> s = CharacterTextSplitter.from_tiktoken_encoder(
        ...     encoding_name="cl100k_base", separator=" ", chunk_size=3, chunk_overlap=0)
        >>> s.split_text("one two three")
        ['one two', 'three']
        """
        length = _tiktoken_length_function(
            encoding_name, model_name, allowed_special, disallowed_special
        )
        return cls(length_function=length, **kwargs)


class TokenTextSplitter(_lc.TokenTextSplitter):
    """LangChain's ``TokenTextSplitter``, windowed by ragchunk's Rust core: a drop-in, and a
    subclass of LangChain's class.

    The same constructor and defaults (``encoding_name="gpt2"``, ``model_name``,
    ``allowed_special``, ``disallowed_special="all"``, ``chunk_size=4000``,
    ``chunk_overlap=200``...) and LangChain's chunks: windows of ``chunk_size`` token ids,
    each ``chunk_size - chunk_overlap`` after the previous, decoded as tiktoken decodes them,
    so a window may start or end inside a character (its bytes there become U+FFFD), as
    LangChain's do. The windows come from the core for ``cl100k_base`` and ``o200k_base`` on
    text without special-token strings; anything else runs LangChain's code. (ragchunk's own
    :class:`TokenWindowTextSplitter` never cuts a character.)

    >>> s = TokenTextSplitter(encoding_name="cl100k_base", chunk_size=2, chunk_overlap=1)
    >>> s.split_text("one two three")
    ['one two', ' two three']
    >>> TokenTextSplitter(encoding_name="cl100k_base", chunk_size=2, chunk_overlap=0
    ...     ).split_text("🦀 crab")
    ['\ufffd', '\ufffd crab']
    """

    def __init__(
        self,
        encoding_name: str = "gpt2",
        model_name: str | None = None,
        allowed_special: Literal["all"] | AbstractSet[str] | None = None,
        disallowed_special: Literal["all"] | Collection[str] = "all",
        **kwargs: Any,
    ) -> None:
        # LangChain's constructor, with the built-in encodings read from ragchunk's own
        # vocabularies (tiktoken would download them).
        TextSplitter.__init__(self, **kwargs)  # its argument errors come first, as there
        self._tokenizer = _tiktoken_encoding(encoding_name, model_name)
        self._allowed_special = set() if allowed_special is None else allowed_special
        self._disallowed_special = disallowed_special

    @classmethod
    def from_tiktoken_encoder(
        cls,
        encoding_name: str = "gpt2",
        model_name: str | None = None,
        allowed_special: Literal["all"] | AbstractSet[str] | None = None,
        disallowed_special: Literal["all"] | Collection[str] = "all",
        **kwargs: Any,
    ) -> Self:
        """A splitter windowing tiktoken tokens and measuring in them, as LangChain's
        ``from_tiktoken_encoder`` (the built-in encodings from ragchunk's vocabularies).

        >>> s = TokenTextSplitter.from_tiktoken_encoder(
        ...     encoding_name="cl100k_base", chunk_size=2, chunk_overlap=0)
        >>> s.split_text("one two three")
        ['one two', ' three']
        """
        length = _tiktoken_length_function(
            encoding_name, model_name, allowed_special, disallowed_special
        )
        return cls(
            length_function=length,
            encoding_name=encoding_name,
            model_name=model_name,
            allowed_special=allowed_special,
            disallowed_special=disallowed_special,
            **kwargs,
        )

    def split_text(self, text: str) -> list[str]:
        """LangChain's chunks of ``text``.

        >>> TokenTextSplitter(encoding_name="o200k_base", chunk_size=3, chunk_overlap=0
        ...     ).split_text("one two three four")
        ['one two three', ' four']
        """
        langchain = super().split_text

        def rust(core: Any) -> list[str]:
            if not isinstance(text, str):
                return langchain(text)
            try:
                windows = _token_windows(self, core, text)
            except Exception:  # a lone surrogate, a size beyond 64 bits: LangChain's code
                return langchain(text)
            return langchain(text) if windows is None else windows

        return dispatch.run_exact(rust, lambda: langchain(text))


class MarkdownTextSplitter(RecursiveCharacterTextSplitter, _lc.MarkdownTextSplitter):
    """LangChain's ``MarkdownTextSplitter`` (:class:`RecursiveCharacterTextSplitter` with
    LangChain's Markdown separators), split by ragchunk's Rust core: a drop-in, and a subclass
    of LangChain's class.

    >>> s = MarkdownTextSplitter(chunk_size=12, chunk_overlap=0)
    >>> s.split_text("# A\\n\\nSome text.\\n## B")
    ['# A', 'Some text.', '## B']
    >>> isinstance(MarkdownTextSplitter(), _lc.MarkdownTextSplitter)
    True
    """

    def __init__(self, **kwargs: Any) -> None:
        separators = self.get_separators_for_language(Language.MARKDOWN)
        RecursiveCharacterTextSplitter.__init__(self, separators=separators, **kwargs)


class PythonCodeTextSplitter(RecursiveCharacterTextSplitter, _lc.PythonCodeTextSplitter):
    """LangChain's ``PythonCodeTextSplitter`` (:class:`RecursiveCharacterTextSplitter` with
    LangChain's Python separators), split by ragchunk's Rust core: a drop-in, and a subclass
    of LangChain's class.

    >>> code = "def a():\\n    return 1\\n\\ndef b():\\n    return 2\\n"
    >>> PythonCodeTextSplitter(chunk_size=24, chunk_overlap=0).split_text(code)
    ['def a():\\n    return 1', 'def b():\\n    return 2']
    """

    def __init__(self, **kwargs: Any) -> None:
        separators = self.get_separators_for_language(Language.PYTHON)
        RecursiveCharacterTextSplitter.__init__(self, separators=separators, **kwargs)


class HTMLSectionSplitter(HTMLSections):
    """LangChain's ``HTMLSectionSplitter``: a drop-in, and a subclass of LangChain's class.
    The same arguments (``headers_to_split_on`` and the keyword arguments of the recursive
    splitter ``split_documents`` applies), LangChain's XSLT step (lxml) that turns large-font
    text into headers, then LangChain's sections (a section's text is every string from its
    header, the header's own included, to the next header, and the first section is the
    ``#TITLE#`` one), read in one pass of ``html.parser`` instead of a BeautifulSoup tree;
    ``split_documents`` splits the sections with ragchunk's
    :class:`~ragchunk.integrations.langchain.RecursiveCharacterTextSplitter`.

    >>> s = HTMLSectionSplitter([("h1", "H1"), ("h2", "H2")])
    >>> page = "<html><body><p>Lead</p><h1>Intro</h1><p>Hello</p><h2>Part</h2><p>a</p></body>"
    >>> for d in s.split_text(page):
    ...     print(repr(d.page_content), d.metadata)
    'Lead' {'H1': '#TITLE#'}
    'Intro \\n Hello' {'H1': 'Intro'}
    'Part \\n a' {'H2': 'Part'}

    A subclass overriding ``split_html_by_headers`` keeps it.
    """

    def split_documents(self, documents: Iterable[Document]) -> list[Document]:
        """LangChain's ``split_documents``: the sections of each document, split by ragchunk's
        recursive drop-in with this splitter's keyword arguments.

        >>> s = HTMLSectionSplitter([("h1", "H1")], chunk_size=10, chunk_overlap=0)
        >>> [d.page_content for d in s.split_documents(
        ...     [Document("<h1>T</h1><p>one two three</p>", metadata={"Title": "x"})])]
        ['T', 'one two', 'three']
        """
        texts, metadatas = [], []
        for doc in documents:
            texts.append(doc.page_content)
            metadatas.append(doc.metadata)
        results = self.create_documents(texts, metadatas=metadatas)
        return RecursiveCharacterTextSplitter(**self.kwargs).split_documents(results)


def __getattr__(name: str) -> Any:
    """``SemanticChunker`` (needs ``langchain-experimental``), imported when first asked for."""
    if name == "SemanticChunker":
        from ragchunk.integrations.langchain_semantic import SemanticChunker

        return SemanticChunker
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
