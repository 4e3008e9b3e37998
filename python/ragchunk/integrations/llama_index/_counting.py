"""How the LlamaIndex drop-ins count and find sentences: a tokenizer callable LlamaIndex would
call as ``len(tokenizer(text))``, recognised when it is a built-in encoding so that ragchunk
counts it; and NLTK's untrained Punkt, which the Rust core mirrors while NLTK's code is the code
it mirrors."""

from __future__ import annotations

import functools
import hashlib
import inspect
import re
from collections.abc import Callable
from typing import Any

from llama_index.core.node_parser.text.utils import split_by_sentence_tokenizer

from ragchunk.core.counting import Counter
from ragchunk.core.encodings import ENCODINGS
from ragchunk.core.tokenizers import builtin_encoding

# ---------------------------------------------------------------------------------------------
# Counting: a tokenizer callable LlamaIndex would call as ``len(tokenizer(text))``.


def _builtin_spec(tokenizer: Any) -> tuple[str, str] | None:
    """``(encoding, mode)`` when ``tokenizer`` is a built-in encoding's ``encode`` (or
    ``encode_ordinary``) with arguments whose count ragchunk reproduces: ``"all"`` (every
    special token allowed: LlamaIndex's default), ``"exact"`` (tiktoken's defaults: special-token
    text raises) or ``"ordinary"`` (special-token text is plain text); else ``None``.

    >>> import tiktoken, functools
    >>> enc = tiktoken.get_encoding("cl100k_base")
    >>> _builtin_spec(functools.partial(enc.encode, allowed_special="all"))
    ('cl100k_base', 'all')
    >>> _builtin_spec(enc.encode), _builtin_spec(enc.encode_ordinary), _builtin_spec(len)
    (('cl100k_base', 'exact'), ('cl100k_base', 'ordinary'), None)
    """
    func, args, keywords = tokenizer, (), {}
    if isinstance(tokenizer, functools.partial):
        func, args, keywords = tokenizer.func, tokenizer.args, dict(tokenizer.keywords)
    enc = getattr(func, "__self__", None)
    method = getattr(func, "__name__", None)
    if args or enc is None or method not in ("encode", "encode_ordinary"):
        return None
    try:
        import tiktoken
    except ImportError:  # pragma: no cover - a tiktoken Encoding implies tiktoken
        return None
    if not isinstance(enc, tiktoken.Encoding):
        return None
    if getattr(type(enc), method) is not getattr(tiktoken.Encoding, method):
        return None  # a subclass that counts its own way
    name = builtin_encoding(enc)
    if name is None:
        return None
    if method == "encode_ordinary":
        return (name, "ordinary") if not keywords else None
    allowed = keywords.pop("allowed_special", set())
    disallowed = keywords.pop("disallowed_special", "all")
    if keywords:
        return None
    specials = frozenset(enc.special_tokens_set)
    if allowed == "all" or (isinstance(allowed, (set, frozenset)) and specials <= allowed):
        if disallowed == "all" or (
            isinstance(disallowed, (set, frozenset, tuple)) and not disallowed
        ):
            return name, "all"
        return None
    if isinstance(allowed, (set, frozenset, tuple)) and not allowed:
        if disallowed == "all" or (
            isinstance(disallowed, (set, frozenset)) and specials <= disallowed
        ):
            return name, "exact"
        if isinstance(disallowed, (set, frozenset, tuple)) and not disallowed:
            return name, "ordinary"
    return None


@functools.cache
def _special_regex(name: str) -> re.Pattern[str]:
    specials = sorted(ENCODINGS[name].special_tokens, key=len, reverse=True)
    return re.compile("|".join(re.escape(s) for s in specials))


def _count_fn(tokenizer: Any, spec: tuple[str, str] | None) -> Callable[[str], int]:
    """``len(tokenizer(text))``, counted by ragchunk when ``spec`` names a built-in encoding."""
    if spec is None:
        return lambda text: len(tokenizer(text))
    name, mode = spec
    ordinary = Counter.shared(name)
    special = _special_regex(name)
    if mode == "ordinary":
        return ordinary
    if mode == "exact":

        def count_exact(text: str) -> int:
            if "<|" in text and special.search(text):
                return len(tokenizer(text))  # the tokenizer raises its own error
            return ordinary(text)

        return count_exact

    def count_all(text: str) -> int:
        if "<|" not in text:
            return ordinary(text)
        parts = special.split(text)
        return len(parts) - 1 + sum(ordinary(p) for p in parts if p)

    return count_all


# ---------------------------------------------------------------------------------------------
# Punkt: the Rust core mirrors NLTK's untrained PunktSentenceTokenizer; the mirror is used only
# while NLTK's code is the code it mirrors (its source and patterns hash to the digest below).

_PUNKT_DIGEST = "d042249474e3096f2f02bd8ac2ec3d64ddb53e67493011c0ec04bb13d31c0fb9"

_PUNKT_METHODS = (
    "span_tokenize",
    "_slices_from_text",
    "_match_potential_end_contexts",
    "_get_last_whitespace_index",
    "_realign_boundaries",
    "text_contains_sentbreak",
    "_annotate_tokens",
    "_annotate_first_pass",
    "_first_pass_annotation",
    "_annotate_second_pass",
    "_second_pass_annotation",
    "_ortho_heuristic",
    "_tokenize_words",
)


def _punkt_fingerprint() -> str | None:
    """A digest of the NLTK code and patterns the Rust mirror reproduces (``None`` when they
    cannot be read)."""
    try:
        import regex  # type: ignore[import-untyped]
        from nltk import redos  # type: ignore[import-untyped]
        from nltk.tokenize import punkt  # type: ignore[import-untyped]
    except ImportError:
        return None
    try:
        lv = punkt.PunktLanguageVars()
        rx = getattr(punkt.PunktToken._RE_NUMERIC, "_rx", None)
        pattern_type = regex.Pattern
        if getattr(redos, "regex", None) is not regex or not isinstance(rx, pattern_type):
            return None
        parts = [
            inspect.getsource(getattr(punkt.PunktSentenceTokenizer, m)) for m in _PUNKT_METHODS
        ]
        parts += [
            inspect.getsource(punkt.PunktToken),
            inspect.getsource(punkt._pair_iter),
            lv._word_tokenizer_re().pattern,
            lv.period_context_re().pattern,
            lv.re_boundary_realignment.pattern,
            str(lv.re_boundary_realignment.flags),
            repr(punkt.PunktSentenceTokenizer.PUNCTUATION),
            repr(lv.sent_end_chars),
        ]
    except (OSError, TypeError, AttributeError):
        return None
    # The non-word class lists "?!" in set order, which varies between processes.
    text = "\n".join(parts).replace("!\\?", "\\?!")
    return hashlib.sha256(text.encode()).hexdigest()


@functools.cache
def _punkt_mirrored() -> bool:
    """Whether the installed NLTK's Punkt is the one the Rust core mirrors."""
    return _punkt_fingerprint() == _PUNKT_DIGEST


def _default_punkt_in_use() -> bool:
    """Whether LlamaIndex's default sentence tokenizer would be an untrained Punkt now."""
    from llama_index.core.utils import globals_helper

    tok = getattr(globals_helper, "_punkt_tokenizer", None)
    if tok is None:
        return True
    from nltk.tokenize import punkt

    params = tok._params
    return (
        type(tok) is punkt.PunktSentenceTokenizer
        and type(tok._lang_vars) is punkt.PunktLanguageVars
        and tok._Token is punkt.PunktToken
        and not params.abbrev_types
        and not params.collocations
        and not params.sent_starters
        and not any(params.ortho_context.values())
    )


def _classify(ch: str) -> int:
    """The facts Punkt uses of one character, for the Rust mirror: ``str.isupper`` (1),
    ``str.islower`` (2), a digit to NLTK's patterns (4), a letter to them (8).

    >>> _classify("É"), _classify("ß"), _classify("٣"), _classify("中")
    (9, 10, 4, 8)
    """
    from nltk.tokenize.punkt import PunktToken  # type: ignore[import-untyped]

    flags = 0
    if ch.isupper():
        flags |= 1
    if ch.islower():
        flags |= 2
    if PunktToken._RE_NUMERIC.match(ch):
        flags |= 4
    if PunktToken._RE_INITIAL.match(ch + "."):
        flags |= 8
    return flags


def _rust_punkt(core: Any) -> Callable[[str], list[str]]:
    fallback = split_by_sentence_tokenizer()

    def sentences(text: str) -> list[str]:
        try:
            return list(core.li_punkt_sentences(text, _classify))
        except UnicodeEncodeError:
            return fallback(text)

    return sentences
