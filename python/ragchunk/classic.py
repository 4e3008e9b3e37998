"""The classic splitters: character windows, token windows, and recursive splitting.

* :class:`RecursiveSplitter` gives the chunks LangChain's ``RecursiveCharacterTextSplitter``
  gives (``length="chars"``) or its ``from_tiktoken_encoder`` (``length="tokens"``), for the
  same parameters, with offsets into the source.
* :class:`CharacterSplitter`: fixed windows of characters.
* :class:`TokenWindowSplitter`: sliding windows of tokens that never cut a character in half.

All of them are configured once and applied to many documents (``split``, ``split_text``,
``split_batch``) and run in Rust when the compiled core is available.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, Literal

from . import _backend
from ._chunk import Chunk, Splitter, check_texts, check_workers
from ._pure import classic as _pure
from ._tokenizers import ResolvedTokenizer, resolve_tokenizer

__all__ = ["CharacterSplitter", "RecursiveSplitter", "SentenceSplitter", "TokenWindowSplitter"]

_ChunkTuple = tuple[int, int, int, "str | None"]

DEFAULT_SEPARATORS = ("\n\n", "\n", " ", "")

# The separator lists of LangChain's ``RecursiveCharacterTextSplitter.get_separators_for_language``
# (langchain-text-splitters 1.x), all regexes: coarsest structure first, then blank lines,
# lines, words, characters. The test suite checks them against LangChain's.
_LANG_SEPARATORS: dict[str, tuple[str, ...]] = {
    "c": (
        "\nclass ", "\nvoid ", "\nint ", "\nfloat ", "\ndouble ",
        "\nif ", "\nfor ", "\nwhile ", "\nswitch ", "\ncase ",
        "\n\n", "\n", " ", "",
    ),
    "go": (
        "\nfunc ", "\nvar ", "\nconst ", "\ntype ",
        "\nif ", "\nfor ", "\nswitch ", "\ncase ",
        "\n\n", "\n", " ", "",
    ),
    "java": (
        "\nclass ", "\npublic ", "\nprotected ", "\nprivate ", "\nstatic ",
        "\nif ", "\nfor ", "\nwhile ", "\nswitch ", "\ncase ",
        "\n\n", "\n", " ", "",
    ),
    "js": (
        "\nfunction ", "\nconst ", "\nlet ", "\nvar ", "\nclass ",
        "\nif ", "\nfor ", "\nwhile ", "\nswitch ", "\ncase ", "\ndefault ",
        "\n\n", "\n", " ", "",
    ),
    "ts": (
        "\nenum ", "\ninterface ", "\nnamespace ", "\ntype ",
        "\nclass ", "\nfunction ", "\nconst ", "\nlet ", "\nvar ",
        "\nif ", "\nfor ", "\nwhile ", "\nswitch ", "\ncase ", "\ndefault ",
        "\n\n", "\n", " ", "",
    ),
    "python": ("\nclass ", "\ndef ", "\n\tdef ", "\n\n", "\n", " ", ""),
    "rust": (
        "\nfn ", "\nconst ", "\nlet ",
        "\nif ", "\nwhile ", "\nfor ", "\nloop ", "\nmatch ",
        "\n\n", "\n", " ", "",
    ),
    "markdown": (
        "\n#{1,6} ", "```\n", "\n\\*\\*\\*+\n", "\n---+\n", "\n___+\n",
        "\n\n", "\n", " ", "",
    ),
    "latex": (
        "\n\\\\chapter{", "\n\\\\section{", "\n\\\\subsection{", "\n\\\\subsubsection{",
        "\n\\\\begin{enumerate}", "\n\\\\begin{itemize}", "\n\\\\begin{description}",
        "\n\\\\begin{list}", "\n\\\\begin{quote}", "\n\\\\begin{quotation}",
        "\n\\\\begin{verse}", "\n\\\\begin{verbatim}", "\n\\\\begin{align}",
        "$$", "$", " ", "",
    ),
    "html": (
        "<body", "<div", "<p", "<br", "<li",
        "<h1", "<h2", "<h3", "<h4", "<h5", "<h6",
        "<span", "<table", "<tr", "<td", "<th", "<ul", "<ol",
        "<header", "<footer", "<nav", "<head", "<style", "<script", "<meta", "<title",
        "",
    ),
}  # fmt: skip
_LANG_SEPARATORS["cpp"] = _LANG_SEPARATORS["c"]
_LANG_ALIASES = {
    "javascript": "js",
    "typescript": "ts",
    "c++": "cpp",
    "golang": "go",
    "py": "python",
    "md": "markdown",
    "tex": "latex",
}
LANGUAGES = tuple(sorted(_LANG_SEPARATORS))


def _check_int(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def _check_sizes(chunk_size: object, chunk_overlap: object) -> tuple[int, int]:
    size = _check_int("chunk_size", chunk_size, 1)
    overlap = _check_int("chunk_overlap", chunk_overlap, 0)
    if overlap >= size:
        raise ValueError(f"chunk_overlap must be smaller than chunk_size, got {overlap} >= {size}")
    return size, overlap


def _check_text(text: object) -> str:
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return text


def _check_texts(texts: object, workers: object) -> list[str]:
    check_workers(workers)
    return check_texts(texts)


def _rust_or_pure(rust: Callable[[], Any], pure: Callable[[], Any]) -> Any:
    """Run the Rust path; text with lone surrogates cannot cross into Rust as UTF-8 (the
    conversion raises UnicodeEncodeError before any work), so it takes the Python path."""
    try:
        return rust()
    except UnicodeEncodeError:
        return pure()


def _chunks(text: str, tuples: Sequence[_ChunkTuple]) -> list[Chunk]:
    out = []
    for s, e, n, joined in tuples:
        if joined is None:
            out.append(Chunk(text[s:e], s, e, n))
        else:
            out.append(Chunk(joined, s, e, n, {"rejoined": True}))
    return out


# ----------------------------------------------------------------------------------------------
# Python regex -> Rust regex, for the subset where both engines agree match for match.


def _sre() -> Any:
    try:
        return importlib.import_module("re._parser")
    except ImportError:  # Python 3.10
        return importlib.import_module("sre_parse")


@lru_cache(maxsize=1)
def _space_class() -> str:
    # Python's `\s` for str patterns is str.isspace(), which is not Rust's `\s` (U+001C..U+001F).
    return "".join(f"\\x{{{c:x}}}" for c in range(0x110000) if chr(c).isspace())


class _Untranslatable(Exception):
    pass


def _class_item(op: Any, arg: Any, c: Any) -> str:
    if op is c.LITERAL:
        return _lit(arg)
    if op is c.RANGE:
        return f"{_lit(arg[0])}-{_lit(arg[1])}"
    if op is c.CATEGORY and arg is c.CATEGORY_SPACE:
        return _space_class()
    if op is c.CATEGORY and arg is c.CATEGORY_NOT_SPACE:
        return f"[^{_space_class()}]"
    raise _Untranslatable


def _lit(cp: int) -> str:
    if 0xD800 <= cp <= 0xDFFF:
        raise _Untranslatable
    return f"\\x{{{cp:x}}}"


def _emit(items: Any, c: Any) -> str:
    out = []
    for op, arg in items:
        if op is c.LITERAL:
            out.append(_lit(arg))
        elif op is c.NOT_LITERAL:
            out.append(f"[^{_lit(arg)}]")
        elif op is c.ANY:
            out.append(".")
        elif op is c.IN:
            negate = bool(arg) and arg[0][0] is c.NEGATE
            body = "".join(_class_item(o, a, c) for o, a in (arg[1:] if negate else arg))
            out.append(f"[{'^' if negate else ''}{body}]")
        elif op is c.BRANCH:
            out.append("(?:" + "|".join(_emit(alt, c) for alt in arg[1]) + ")")
        elif op is c.SUBPATTERN:
            _group, add_flags, del_flags, sub = arg
            if add_flags or del_flags:
                raise _Untranslatable
            out.append(f"(?:{_emit(sub, c)})")
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT):
            lo, hi, sub = arg
            bound = f"{{{lo},}}" if hi is c.MAXREPEAT else f"{{{lo},{hi}}}"
            out.append(f"(?:{_emit(sub, c)}){bound}{'?' if op is c.MIN_REPEAT else ''}")
        elif op is c.AT and arg in (c.AT_BEGINNING, c.AT_BEGINNING_STRING):
            out.append(r"\A")
        elif op is c.AT and arg is c.AT_END_STRING:
            out.append(r"\z")
        else:
            raise _Untranslatable
    return "".join(out)


@lru_cache(maxsize=256)
def _rust_regex(pattern: str) -> str | None:
    """``pattern`` rewritten for Rust's regex crate with the same matches, or None.

    Supported: literals, classes (incl. ``\\s``), ``.``, alternation, groups (capturing groups
    do not capture: see :class:`RecursiveSplitter`), greedy/lazy repetition, ``^``/``\\A``,
    ``\\Z``. Anything else (``$``, ``\\b``, ``\\d``/``\\w``, look-around, back-references, flags)
    and patterns that can match the empty string run on the Python backend instead.
    """
    sre = _sre()
    try:
        parsed = sre.parse(pattern)
        if parsed.state.flags & ~re.UNICODE or parsed.getwidth()[0] == 0:
            return None
        return _emit(parsed, sre)
    except (_Untranslatable, AttributeError, TypeError):
        return None


# ----------------------------------------------------------------------------------------------


def _measure(length: str, tokenizer: object) -> tuple[str | None, ResolvedTokenizer | None]:
    """(built-in encoding name or None, resolved tokenizer or None for chars)."""
    if length not in ("tokens", "chars"):
        raise ValueError(f"length must be 'tokens' or 'chars', got {length!r}")
    if length == "chars":
        return None, None
    resolved = resolve_tokenizer(tokenizer)
    return resolved.builtin, resolved


def _pure_counter(length: str, resolved: ResolvedTokenizer | None) -> Callable[[str], int]:
    if length == "chars" or resolved is None:
        return len
    if resolved.builtin is not None:
        from ._pure.tokens import load_encoding

        encode = load_encoding(resolved.builtin).encode_ordinary
        return lambda s: len(encode(s))
    assert resolved.exact is not None
    return resolved.exact


class RecursiveSplitter(Splitter):
    """LangChain's ``RecursiveCharacterTextSplitter``, in Rust, with offsets.

    Splits at the first separator found in the text (``"\\n\\n"``, then ``"\\n"``, ``" "``,
    ``""`` = between characters, by default), recursing into pieces still too long with the
    separators after it, then merges neighbouring pieces up to ``chunk_size`` with
    LangChain's overlap rule. For the same parameters the chunk strings are LangChain's:
    ``length="chars"`` is ``RecursiveCharacterTextSplitter(chunk_size=..., chunk_overlap=...)``
    and ``length="tokens"`` is ``RecursiveCharacterTextSplitter.from_tiktoken_encoder(
    encoding_name=tokenizer, ...)``. Like LangChain, sizes are sums over pieces; each chunk's
    ``token_count`` is the exact count of its own text.

    Args:
        chunk_size: the budget (an int >= 1) in ``length`` units.
        chunk_overlap: at most this much of a chunk's end is repeated at the next one's start
            (LangChain's rule); ``0 <= chunk_overlap < chunk_size``.
        separators: non-empty list of str, coarsest first.
        keep_separator: ``True``/``"start"`` (the separator begins the next piece), ``"end"``
            (it ends the previous one) or ``False`` (dropped: pieces are re-joined with the
            separator string, as LangChain does).
        is_separator_regex: the separators are Python regexes.
        length: ``"tokens"`` (default) or ``"chars"``.
        tokenizer: for ``length="tokens"``: a built-in encoding name, a ``tiktoken.Encoding``,
            a ``tokenizers.Tokenizer`` or a callable ``str -> int``.
        strip_whitespace: ``str.strip()`` each chunk (LangChain's default, True).

    Chunks: ``text == source[start:end]`` always, except with ``keep_separator=False`` when
    LangChain's text (pieces re-joined with the separator string) differs from the source
    (where a run of separators or a regex match stood between pieces): then the chunk's text
    is LangChain's, ``metadata["rejoined"]`` is True and ``[start, end)`` the source range.

    Budget: no chunk exceeds ``chunk_size`` except a piece that no remaining separator can cut
    (with the default separators, a single character worth more than ``chunk_size`` tokens),
    emitted whole and unstripped, as LangChain does.

    Deliberate differences from LangChain: text holding special-token strings
    (``<|endoftext|>``) is counted as ordinary text where LangChain's tiktoken length raises
    ``ValueError``; capturing groups in regex separators do not insert their text into the
    chunks. Regex separators outside the subset both engines agree on (``$``, ``\\b``,
    ``\\d``, look-around, flags, patterns matching "") make the splitter run in Python.

    >>> s = RecursiveSplitter(chunk_size=10, chunk_overlap=1, length="chars")
    >>> s.split_text("Hi.\\n\\nI'm Harrison.\\n\\nHow? Are? You?")
    ['Hi.', "I'm", 'Harrison.', 'How? Are?', 'You?']
    >>> s.split("Hi.\\n\\nI'm Harrison.")[1]
    Chunk(text="I'm", start=5, end=8, token_count=3, metadata={})
    """

    def __init__(
        self,
        chunk_size: int = 512,
        chunk_overlap: int = 0,
        separators: Sequence[str] | None = None,
        keep_separator: bool | Literal["start", "end"] = True,
        is_separator_regex: bool = False,
        length: Literal["tokens", "chars"] = "tokens",
        tokenizer: Any = "cl100k_base",
        strip_whitespace: bool = True,
    ) -> None:
        self.chunk_size, self.chunk_overlap = _check_sizes(chunk_size, chunk_overlap)
        if separators is None:
            separators = DEFAULT_SEPARATORS
        if isinstance(separators, (str, bytes)) or not isinstance(separators, Sequence):
            raise TypeError(f"separators must be a list of str, got {type(separators).__name__}")
        if len(separators) == 0:
            raise ValueError("separators must not be empty")
        for i, sep in enumerate(separators):
            if not isinstance(sep, str):
                raise TypeError(f"separators[{i}] must be a str, got {type(sep).__name__}")
        self.separators = tuple(separators)
        if keep_separator is True or keep_separator == "start":
            keep = "start"
        elif keep_separator is False:
            keep = "none"
        elif keep_separator == "end":
            keep = "end"
        else:
            raise ValueError(
                f"keep_separator must be True, False, 'start' or 'end', got {keep_separator!r}"
            )
        self.keep_separator = keep_separator
        self._keep = keep
        if not isinstance(is_separator_regex, bool):
            raise TypeError("is_separator_regex must be a bool")
        if not isinstance(strip_whitespace, bool):
            raise TypeError("strip_whitespace must be a bool")
        self.is_separator_regex = is_separator_regex
        self.strip_whitespace = strip_whitespace
        compiled = []
        for i, sep in enumerate(self.separators):
            try:
                compiled.append(re.compile(sep if is_separator_regex else re.escape(sep)))
            except re.error as exc:
                raise ValueError(f"separators[{i}]: invalid regex {sep!r}: {exc}") from None
        self._compiled = tuple(zip(self.separators, compiled, strict=True))
        if not isinstance(length, str):
            raise TypeError(f"length must be a str, got {type(length).__name__}")
        self.length = length
        self.tokenizer = tokenizer
        self._encoding, self._resolved = _measure(length, tokenizer)
        rust_seps: list[tuple[str, str | None]] | None = []
        for sep in self.separators:
            if not is_separator_regex or not sep:
                rust_seps.append((sep, None))  # type: ignore[union-attr]
                continue
            translated = _rust_regex(sep)
            if translated is None:
                rust_seps = None
                break
            rust_seps.append((sep, translated))  # type: ignore[union-attr]
        self._rust_seps = rust_seps
        self._rust: Any = None
        self._rust_of: object = None

    @classmethod
    def from_language(cls, language: Any, **kwargs: Any) -> RecursiveSplitter:
        """A splitter with LangChain's separators for a programming or markup language.

        ``language`` is one of ``"python"``, ``"js"`` (``"javascript"``), ``"ts"``
        (``"typescript"``), ``"rust"``, ``"go"``, ``"java"``, ``"c"``, ``"cpp"``,
        ``"markdown"``, ``"html"``, ``"latex"``, or LangChain's ``Language`` member of the
        same value. The separators are regexes (``is_separator_regex=True``), as LangChain's.

        >>> RecursiveSplitter.from_language("python", chunk_size=64).separators[:3]
        ('\\nclass ', '\\ndef ', '\\n\\tdef ')
        """
        return cls(separators=cls.language_separators(language), is_separator_regex=True, **kwargs)

    @staticmethod
    def language_separators(language: Any) -> list[str]:
        """The separator list of a language preset (see :meth:`from_language`)."""
        name = getattr(language, "value", language)
        if not isinstance(name, str):
            raise TypeError(f"language must be a str, got {type(language).__name__}")
        key = _LANG_ALIASES.get(name.lower(), name.lower())
        if key not in _LANG_SEPARATORS:
            raise ValueError(f"language: unknown {name!r}; known: {', '.join(LANGUAGES)}")
        return list(_LANG_SEPARATORS[key])

    def __repr__(self) -> str:
        return (
            f"RecursiveSplitter(chunk_size={self.chunk_size}, chunk_overlap={self.chunk_overlap}, "
            f"separators={list(self.separators)!r}, keep_separator={self.keep_separator!r}, "
            f"is_separator_regex={self.is_separator_regex}, length={self.length!r}, "
            f"tokenizer={self.tokenizer!r})"
        )

    def _core(self) -> Any:
        core = _backend.core()
        if core is None or self._rust_seps is None:
            return None
        if self._rust_of is not core:
            try:
                self._rust = core.RecursiveCore(
                    self.chunk_size,
                    self.chunk_overlap,
                    self._rust_seps,
                    self._keep,
                    self.strip_whitespace,
                    self.length,
                    self._encoding,
                )
            except ValueError:
                # A translated regex Rust's engine will not build (e.g. over its size limit,
                # `a{1000}{1000}`): Python compiled it, so Python runs it.
                self._rust_seps = None
                return None
            self._rust_of = core
        return self._rust

    def _pure(self, text: str) -> list[_ChunkTuple]:
        return _pure.recursive_split(
            text,
            self.chunk_size,
            self.chunk_overlap,
            self._compiled,
            self._keep,
            self.strip_whitespace,
            _pure_counter(self.length, self._resolved),
        )

    def _callback(self) -> Callable[[str], int] | None:
        """The Python counting callable the Rust core needs (custom tokenizers), else None."""
        if self.length == "tokens" and self._encoding is None:
            assert self._resolved is not None
            return self._resolved.exact
        return None

    def _tuples(self, text: str) -> list[_ChunkTuple]:
        core = self._core()
        if core is None:
            return self._pure(text)
        callback = self._callback()
        result: list[_ChunkTuple] = _rust_or_pure(
            lambda: core.split(text, callback), lambda: self._pure(text)
        )
        return result

    def split(self, text: str) -> list[Chunk]:
        """Chunks of ``text`` with code-point offsets (see the class docstring)."""
        text = _check_text(text)
        return _chunks(text, self._tuples(text))

    def split_text(self, text: str) -> list[str]:
        """Just the chunk strings: LangChain's ``split_text`` output."""
        text = _check_text(text)

        def pure() -> list[str]:
            return [text[s:e] if j is None else j for s, e, _, j in self._pure(text)]

        core = self._core()
        if core is None:
            return pure()
        callback = self._callback()
        result: list[str] = _rust_or_pure(lambda: core.split_text(text, callback), pure)
        return result

    def split_batch(self, texts: Sequence[str], workers: int | None = None) -> list[list[Chunk]]:
        """:meth:`split` over many texts; in parallel with the GIL released on the Rust
        backend (built-in tokenizers and ``length="chars"``), in input order."""
        docs = _check_texts(texts, workers)
        core = self._core()
        callback = self.length == "tokens" and self._encoding is None
        if core is None or callback:
            return [self.split(t) for t in docs]
        try:
            results = core.split_batch(docs, workers)
        except UnicodeEncodeError:
            return [self.split(t) for t in docs]
        return [_chunks(t, r) for t, r in zip(docs, results, strict=True)]


class _WindowSplitter(Splitter):
    """What the two fixed-window splitters share: chunks are ``_tuples(text)`` slices."""

    def _tuples(self, text: str) -> list[_ChunkTuple]:
        raise NotImplementedError

    def split(self, text: str) -> list[Chunk]:
        """Windows of ``text``; ``token_count`` is the window's size in the splitter's unit."""
        text = _check_text(text)
        return _chunks(text, self._tuples(text))

    def split_text(self, text: str) -> list[str]:
        """Just the window strings."""
        text = _check_text(text)
        return [text[s:e] for s, e, _, _ in self._tuples(text)]


class CharacterSplitter(_WindowSplitter):
    """Fixed windows of ``chunk_size`` characters (code points), stepping by
    ``chunk_size - chunk_overlap``.

    The trailing partial window is kept (``drop_last=False``, the default), so no text is
    lost; ``drop_last=True`` drops it, as the textbook loop
    ``for i in range(0, len(text) - chunk_size + 1, step)`` does. A window is only added when
    it reaches text the previous one did not cover.

    >>> t = "Clouds come floating into my life, no longer to carry rain or usher storm, "
    >>> t += "but to add color to my sunset sky."
    >>> CharacterSplitter(35, 5, drop_last=True).split_text(t)
    ['Clouds come floating into my life, ', 'ife, no longer to carry rain or ush', \
'r usher storm, but to add color to ']
    >>> CharacterSplitter(35, 5).split_text(t)[-1]
    'r to my sunset sky.'
    """

    def __init__(self, chunk_size: int, chunk_overlap: int = 0, drop_last: bool = False) -> None:
        self.chunk_size, self.chunk_overlap = _check_sizes(chunk_size, chunk_overlap)
        if not isinstance(drop_last, bool):
            raise TypeError(f"drop_last must be a bool, got {type(drop_last).__name__}")
        self.drop_last = drop_last

    def __repr__(self) -> str:
        return (
            f"CharacterSplitter(chunk_size={self.chunk_size}, "
            f"chunk_overlap={self.chunk_overlap}, drop_last={self.drop_last})"
        )

    def _tuples(self, text: str) -> list[_ChunkTuple]:
        core = _backend.core()
        args = (self.chunk_size, self.chunk_overlap, self.drop_last)
        if core is None:
            return _pure.character_split(text, *args)
        result: list[_ChunkTuple] = _rust_or_pure(
            lambda: core.character_split(text, *args),
            lambda: _pure.character_split(text, *args),
        )
        return result

    def split_batch(self, texts: Sequence[str], workers: int | None = None) -> list[list[Chunk]]:
        """:meth:`split` over many texts, in parallel on the Rust backend, in input order."""
        docs = _check_texts(texts, workers)
        core = _backend.core()
        if core is None:
            return [self.split(t) for t in docs]
        try:
            results = core.character_split_batch(
                docs, self.chunk_size, self.chunk_overlap, self.drop_last, workers
            )
        except UnicodeEncodeError:
            return [self.split(t) for t in docs]
        return [_chunks(t, r) for t, r in zip(docs, results, strict=True)]


class TokenWindowSplitter(_WindowSplitter):
    """Sliding windows of ``chunk_size`` tokens stepping by ``chunk_size - chunk_overlap``.

    The text is encoded once (``encode_ordinary``: special-token strings are ordinary text);
    windows are cut at token edges, but never inside a character: where byte-level BPE splits
    one character's bytes over several tokens, a window ends at the previous token edge that
    is a character boundary (so it holds fewer tokens), and the next one starts no later than
    that. Only a run of tokens with no character boundary inside (one character, or two whose
    bytes share a token) worth more than ``chunk_size`` tokens makes a longer window.
    Offsets are code points of the source and ``text == source[start:end]``. Where every token
    edge is a character boundary the windows are LangChain's ``TokenTextSplitter``'s.

    Args:
        chunk_size: tokens per window (default 512).
        chunk_overlap: tokens shared by consecutive windows (``< chunk_size``).
        stride: alternatively, the step between window starts (``chunk_overlap =
            chunk_size - stride``).
        tokenizer: a built-in encoding name or a ``tiktoken.Encoding`` (windows need token
            ids, so a counting callable is not enough).

    >>> s = TokenWindowSplitter(chunk_size=2, chunk_overlap=1)
    >>> s.split_text("a b c d")
    ['a b', ' b c', ' c d']
    """

    def __init__(
        self,
        chunk_size: int = 512,
        chunk_overlap: int = 0,
        tokenizer: Any = "cl100k_base",
        *,
        stride: int | None = None,
    ) -> None:
        if stride is not None:
            step = _check_int("stride", stride, 1)
            size = _check_int("chunk_size", chunk_size, 1)
            if chunk_overlap:
                raise ValueError("give either chunk_overlap or stride, not both")
            if step > size:
                raise ValueError(f"stride must be <= chunk_size, got {step} > {size}")
            chunk_overlap = size - step
        self.chunk_size, self.chunk_overlap = _check_sizes(chunk_size, chunk_overlap)
        self.tokenizer = tokenizer
        self._encoding: str | None = None
        self._enc: Any = None
        if isinstance(tokenizer, str):
            self._encoding = resolve_tokenizer(tokenizer).builtin
        elif type(tokenizer).__module__.startswith("tiktoken") and hasattr(
            tokenizer, "encode_ordinary"
        ):
            self._encoding = resolve_tokenizer(tokenizer).builtin
            self._enc = tokenizer
        else:
            raise TypeError(
                "tokenizer must be a built-in encoding name or a tiktoken.Encoding (windows "
                f"need token ids), got {type(tokenizer).__name__}"
            )

    def __repr__(self) -> str:
        return (
            f"TokenWindowSplitter(chunk_size={self.chunk_size}, "
            f"chunk_overlap={self.chunk_overlap}, tokenizer={self.tokenizer!r})"
        )

    def _pure_enc(self) -> Any:
        if self._encoding is not None:
            from ._pure.tokens import load_encoding

            return load_encoding(self._encoding)
        return self._enc

    def _tuples(self, text: str) -> list[_ChunkTuple]:
        core = _backend.core()

        def pure() -> list[_ChunkTuple]:
            enc = self._pure_enc()
            return _pure.token_window_split(
                text,
                self.chunk_size,
                self.chunk_overlap,
                enc.encode_ordinary,
                enc.decode_single_token_bytes,
            )

        if core is None or self._encoding is None:
            return pure()
        result: list[_ChunkTuple] = _rust_or_pure(
            lambda: core.token_window_split(
                text, self.chunk_size, self.chunk_overlap, self._encoding
            ),
            pure,
        )
        return result

    def split_batch(self, texts: Sequence[str], workers: int | None = None) -> list[list[Chunk]]:
        """:meth:`split` over many texts, in parallel on the Rust backend, in input order."""
        docs = _check_texts(texts, workers)
        core = _backend.core()
        if core is None or self._encoding is None:
            return [self.split(t) for t in docs]
        try:
            results = core.token_window_split_batch(
                docs, self.chunk_size, self.chunk_overlap, self._encoding, workers
            )
        except UnicodeEncodeError:
            return [self.split(t) for t in docs]
        return [_chunks(t, r) for t, r in zip(docs, results, strict=True)]


class SentenceSplitter(Splitter):
    """Whole sentences packed into chunks of at most ``chunk_size``.

    Sentence rules (Latin scripts, Chinese/Japanese and mixed text): ``. ! ? …`` end a
    sentence when followed by whitespace and a word that does not start in lowercase, except
    after an abbreviation (``Mr.``, ``Dr.``, ``vs.``, ``Fig.``...), an initial (``J. K.``) or a
    dotted abbreviation (``U.S.``, ``e.g.``); decimals never; closing quotes and brackets stay
    with their sentence; ``。！？；`` and their full-width forms end a sentence with no space
    needed; a line break ends a sentence. Sentences are packed greedily and every chunk is
    measured on its own text, so no chunk exceeds ``chunk_size``; a sentence longer than the
    budget is cut at the finest separator that fits (clauses ``; : ,`` and ``，、：``, then
    words, then characters), and only a single character worth more than ``chunk_size``
    tokens can exceed it. Chunks are source ranges: ``text == source[start:end]``.

    Args:
        chunk_size: the budget (int >= 1) in ``length`` units.
        chunk_overlap_sentences: how many sentences of a chunk's end also start the next one
            (fewer when they would not leave room for a new sentence).
        length: ``"tokens"`` (default) or ``"chars"``.
        tokenizer: as :class:`RecursiveSplitter`'s.

    >>> s = SentenceSplitter(chunk_size=20, length="chars")
    >>> s.split_text("Dr. Who arrived. He left.\\n你好。再见！")
    ['Dr. Who arrived.', 'He left.\\n你好。再见！']
    >>> SentenceSplitter.sentences("Mr. J. K. Smith paid $3.50. Then he left.")
    ['Mr. J. K. Smith paid $3.50.', 'Then he left.']
    """

    def __init__(
        self,
        chunk_size: int = 512,
        chunk_overlap_sentences: int = 0,
        length: Literal["tokens", "chars"] = "tokens",
        tokenizer: Any = "cl100k_base",
    ) -> None:
        self.chunk_size = _check_int("chunk_size", chunk_size, 1)
        self.chunk_overlap_sentences = _check_int(
            "chunk_overlap_sentences", chunk_overlap_sentences, 0
        )
        if not isinstance(length, str):
            raise TypeError(f"length must be a str, got {type(length).__name__}")
        self.length = length
        self.tokenizer = tokenizer
        self._encoding, self._resolved = _measure(length, tokenizer)

    def __repr__(self) -> str:
        return (
            f"SentenceSplitter(chunk_size={self.chunk_size}, "
            f"chunk_overlap_sentences={self.chunk_overlap_sentences}, length={self.length!r}, "
            f"tokenizer={self.tokenizer!r})"
        )

    @staticmethod
    def sentence_spans(text: str) -> list[tuple[int, int]]:
        """``(start, end)`` code-point offsets of the sentences of ``text``."""
        text = _check_text(text)
        core = _backend.core()
        if core is None:
            return _pure.sentences(text)
        spans: list[tuple[int, int]] = _rust_or_pure(
            lambda: core.sentence_spans(text), lambda: _pure.sentences(text)
        )
        return spans

    @classmethod
    def sentences(cls, text: str) -> list[str]:
        """The sentences of ``text`` (surrounding whitespace removed)."""
        return [text[s:e] for s, e in cls.sentence_spans(text)]

    def _pure(self, text: str) -> list[_ChunkTuple]:
        return _pure.sentence_split(
            text,
            self.chunk_size,
            self.chunk_overlap_sentences,
            _pure_counter(self.length, self._resolved),
        )

    def _tuples(self, text: str) -> list[_ChunkTuple]:
        core = _backend.core()
        if core is None:
            return self._pure(text)
        callback = None
        if self.length == "tokens" and self._encoding is None:
            assert self._resolved is not None
            callback = self._resolved.exact
        result: list[_ChunkTuple] = _rust_or_pure(
            lambda: core.sentence_split(
                text,
                self.chunk_size,
                self.chunk_overlap_sentences,
                self.length,
                self._encoding,
                callback,
            ),
            lambda: self._pure(text),
        )
        return result

    def split(self, text: str) -> list[Chunk]:
        """Chunks of whole sentences with code-point offsets."""
        text = _check_text(text)
        return _chunks(text, self._tuples(text))

    def split_batch(self, texts: Sequence[str], workers: int | None = None) -> list[list[Chunk]]:
        """:meth:`split` over many texts; in parallel with the GIL released on the Rust
        backend (built-in tokenizers and ``length="chars"``), in input order."""
        docs = _check_texts(texts, workers)
        core = _backend.core()
        if core is None or (self.length == "tokens" and self._encoding is None):
            return [self.split(t) for t in docs]
        try:
            results = core.sentence_split_batch(
                docs,
                self.chunk_size,
                self.chunk_overlap_sentences,
                self.length,
                self._encoding,
                workers,
            )
        except UnicodeEncodeError:
            return [self.split(t) for t in docs]
        return [_chunks(t, r) for t, r in zip(docs, results, strict=True)]
