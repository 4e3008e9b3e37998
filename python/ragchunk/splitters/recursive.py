"""RecursiveSplitter: LangChain's ``RecursiveCharacterTextSplitter``, in Rust, with offsets."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, Literal

from .._pure.splitters import recursive as _pure
from ..core import dispatch
from ..core.checks import check_text
from ..core.chunk import Chunk, Splitter
from ..core.counting import Counter
from ._common import ChunkTuple, check_batch, check_sizes, configured, measure, to_chunks

__all__ = ["DEFAULT_SEPARATORS", "LANGUAGES", "RecursiveSplitter", "rust_regex"]


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
def rust_regex(pattern: str) -> str | None:
    """``pattern`` rewritten for Rust's regex crate with the same matches, or None.

    Supported: literals, classes (incl. ``\\s``), ``.``, alternation, groups (capturing groups
    do not capture: see :class:`RecursiveSplitter`), greedy/lazy repetition, ``^``/``\\A``,
    ``\\Z``. Anything else (``$``, ``\\b``, ``\\d``/``\\w``, look-around, back-references, flags)
    and patterns that can match the empty string run on the Python backend instead.

    >>> rust_regex(r"\n\n+") is not None, rust_regex(r"\bword")
    (True, None)
    """
    sre = _sre()
    try:
        parsed = sre.parse(pattern)
        if parsed.state.flags & ~re.UNICODE or parsed.getwidth()[0] == 0:
            return None
        return _emit(parsed, sre)
    except (_Untranslatable, AttributeError, TypeError):
        return None


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
        self.chunk_size, self.chunk_overlap = check_sizes(chunk_size, chunk_overlap)
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
        self._encoding, self._resolved = measure(length, tokenizer)
        rust_seps: list[tuple[str, str | None]] | None = []
        for sep in self.separators:
            if not is_separator_regex or not sep:
                rust_seps.append((sep, None))  # type: ignore[union-attr]
                continue
            translated = rust_regex(sep)
            if translated is None:
                rust_seps = None
                break
            rust_seps.append((sep, translated))  # type: ignore[union-attr]
        self._rust_seps = rust_seps

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

    def _core(self, core: Any) -> Any:
        """The Rust splitter configured like this one (built once per core module), or None
        when a separator is a regex only Python runs."""

        def build(compiled: Any) -> Any:
            if self._rust_seps is None:
                return None
            try:
                return compiled.RecursiveSplitter(
                    self.chunk_size,
                    self.chunk_overlap,
                    self._rust_seps,
                    self._keep,
                    self.strip_whitespace,
                    self.length,
                    self._encoding,
                    self._callback(),
                )
            except ValueError:
                # A translated regex Rust's engine will not build (e.g. over its size limit,
                # `a{1000}{1000}`): Python compiled it, so Python runs it.
                return None

        return configured(self, core, build)

    def _pure(self, text: str) -> list[ChunkTuple]:
        return _pure.split(
            text,
            self.chunk_size,
            self.chunk_overlap,
            self._compiled,
            self._keep,
            self.strip_whitespace,
            Counter(self._resolved).pure(),
        )

    def _callback(self) -> Callable[[str], int] | None:
        """The Python counting callable the Rust core needs (custom tokenizers), else None."""
        if self.length == "tokens" and self._encoding is None:
            assert self._resolved is not None
            return self._resolved.exact
        return None

    def _tuples(self, text: str) -> list[ChunkTuple]:
        def rust(core: Any) -> list[ChunkTuple]:
            splitter = self._core(core)
            if splitter is None:
                return self._pure(text)
            return splitter.split(text)  # type: ignore[no-any-return]

        return dispatch.run(rust, lambda: self._pure(text))

    def split(self, text: str) -> list[Chunk]:
        """Chunks of ``text`` with code-point offsets (see the class docstring)."""
        text = check_text(text)
        return to_chunks(text, self._tuples(text))

    def split_text(self, text: str) -> list[str]:
        """Just the chunk strings: LangChain's ``split_text`` output."""
        text = check_text(text)

        def pure() -> list[str]:
            return [text[s:e] if j is None else j for s, e, _, j in self._pure(text)]

        def rust(core: Any) -> list[str]:
            splitter = self._core(core)
            if splitter is None:
                return pure()
            return splitter.split_text(text)  # type: ignore[no-any-return]

        return dispatch.run(rust, pure)

    def split_batch(self, texts: Sequence[str], workers: int | None = None) -> list[list[Chunk]]:
        """:meth:`split` over many texts, in input order; on the Rust backend in parallel with
        the GIL released (built-in tokenizers and ``length="chars"``), or one after another
        inside the core for a Python tokenizer."""
        docs = check_batch(texts, workers)

        def pure() -> list[list[Chunk]]:
            return [self.split(t) for t in docs]

        def rust(core: Any) -> list[list[Chunk]]:
            splitter = self._core(core)
            if splitter is None:
                return pure()
            results = splitter.split_batch(docs, workers)
            return [to_chunks(t, r) for t, r in zip(docs, results, strict=True)]

        return dispatch.run(rust, pure)
