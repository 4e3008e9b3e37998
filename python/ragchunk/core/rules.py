"""The splitters' language data, read from the data file both backends share.

``ragchunk/data/splitter_rules.txt`` holds the sentence splitter's abbreviations and clause
separators, the code splitter's languages, aliases and tree-sitter node kinds, and the
splitters' character sets (which characters are whitespace, which end a sentence). The Rust core
embeds the same file at compile time and parses it with the same rules
(``rust/text/rules.rs``), so the two backends cannot drift apart; the file's header documents
its line format. It is parsed once, on first use.

>>> "mr" in abbreviations()
True
>>> code_aliases()["py"]
'python'
>>> sorted(code_wrappers("python"))
['decorated_definition']
>>> sorted(char_set("chars.terminators.ascii"))
['!', '.', '?']
"""

from __future__ import annotations

import functools
import importlib.resources
import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from .errors import reduce_error

__all__ = [
    "CHAR_KEYS",
    "CodeLanguage",
    "Rules",
    "RulesError",
    "abbreviations",
    "char_set",
    "code_aliases",
    "code_defs",
    "code_languages",
    "code_wrappers",
    "fn_value_kinds",
    "load_rules",
    "need_body_kinds",
    "parse_rules",
    "sentence_separators",
]

#: The data file, inside the ``ragchunk`` package.
FILE_NAME = "splitter_rules.txt"

_SPACE = " \t"
_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t"}
#: Characters of a language name or alias (lookups lowercase the name, so an uppercase letter
#: would never match).
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789+#_-.")
_FIXED_KEYS = (
    "sentence.abbreviations",
    "sentence.separators",
    "code.languages",
    "code.need_body",
    "code.fn_values",
)
#: The records every language in ``code.languages`` has: ``code.<name>.<field>``.
_FIELDS = ("aliases", "defs", "wrappers")
#: The character sets (``chars.*`` records), in file order; the data file says what each is.
CHAR_KEYS = (
    "chars.whitespace.hard_cap",
    "chars.whitespace.langchain",
    "chars.whitespace.packer",
    "chars.whitespace.html",
    "chars.whitespace.code",
    "chars.terminators.ascii",
    "chars.terminators.packer_cjk",
    "chars.terminators.hard_cap_cjk",
    "chars.terminators.sentence_latin",
    "chars.terminators.sentence_cjk",
    "chars.terminators.flow",
    "chars.closers.sentence",
    "chars.openers.sentence",
)
#: The sets a splitter compares with bytes, which must therefore be ASCII.
_ASCII_CHAR_KEYS = frozenset({"chars.whitespace.code"})
_HEX = frozenset("0123456789ABCDEF")


class RulesError(ValueError):
    """A malformed data file; ``line`` is the 1-based line to blame, or ``None``.

    >>> parse_rules("  mr")
    Traceback (most recent call last):
    ...
    ragchunk.core.rules.RulesError: splitter_rules.txt, line 1: a continuation line ...
    """

    def __init__(self, line: int | None, message: str) -> None:
        where = f"{FILE_NAME}, line {line}" if line is not None else FILE_NAME
        super().__init__(f"{where}: {message}")
        self.line = line

    __reduce__ = reduce_error


@dataclass(frozen=True)
class CodeLanguage:
    """One language of the code splitter: canonical name, aliases, node kinds."""

    name: str
    #: Other accepted names (lowercase; callers strip and lowercase what they look up).
    aliases: tuple[str, ...]
    #: Node kinds that define a named symbol.
    defs: frozenset[str]
    #: Node kinds that get barriers like definitions (decorated, exported, templated ones).
    wrappers: frozenset[str]


@dataclass(frozen=True)
class Rules:
    """The parsed data file (see the module docs)."""

    #: ``sentence.abbreviations``: lowercase words after which a single ``.`` never ends a
    #: sentence.
    abbreviations: frozenset[str]
    #: ``sentence.separators``: how an over-long sentence is cut, coarsest first.
    sentence_separators: tuple[str, ...]
    #: ``code.languages`` with each language's ``code.<name>.*`` records, sorted by name.
    code_languages: Mapping[str, CodeLanguage]
    #: ``code.need_body``: kinds that are definitions only with a body.
    need_body: frozenset[str]
    #: ``code.fn_values``: values that make a ``variable_declarator`` a definition.
    fn_values: frozenset[str]
    #: The ``chars.*`` records (:data:`CHAR_KEYS`, in that order): each set's characters.
    chars: Mapping[str, frozenset[str]]


def _values(text: str, line: int, out: list[str]) -> None:
    """Appends one line's values (after the key, or a continuation line) to ``out``."""
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in _SPACE:
            i += 1
        if i == n:
            return
        chars: list[str] = []
        if text[i] == '"':
            i += 1
            while True:
                if i == n:
                    raise RulesError(line, "unterminated quoted string")
                c = text[i]
                i += 1
                if c == '"':
                    break
                if c == "\\":
                    if i == n:
                        raise RulesError(line, "unterminated quoted string")
                    e = text[i]
                    i += 1
                    if e not in _ESCAPES:
                        raise RulesError(line, f"unknown escape `\\{e}`")
                    chars.append(_ESCAPES[e])
                else:
                    chars.append(c)
            if i < n and text[i] not in _SPACE:
                raise RulesError(line, "a quoted string must be followed by a space")
        else:
            while i < n and text[i] not in _SPACE:
                chars.append(text[i])
                i += 1
            bare = "".join(chars)
            if '"' in bare or "\\" in bare:
                raise RulesError(line, f'`"` or `\\` in the bare value `{bare}` (quote the value)')
        out.append("".join(chars))


def _code_point(text: str) -> int | None:
    """The code point of ``U+XXXX`` (4 to 6 uppercase hex digits; range not checked)."""
    if not text.startswith("U+"):
        return None
    digits = text[2:]
    if not 4 <= len(digits) <= 6 or not all(c in _HEX for c in digits):
        return None
    return int(digits, 16)


def _is_scalar(cp: int) -> bool:
    """Whether ``cp`` is a Unicode scalar value (not a surrogate, at most U+10FFFF)."""
    return cp <= 0x10FFFF and not 0xD800 <= cp <= 0xDFFF


def _char_set(key: str, values: list[str], line: int) -> list[str]:
    """The characters of a ``chars.*`` record's values (see the file's header), checked."""
    out: list[str] = []
    seen: set[str] = set()
    for v in values:
        if len(v) == 1:
            lo = hi = ord(v)
        else:
            if ".." in v:
                a, _, b = v.partition("..")
                first, last = _code_point(a), _code_point(b)
                ends = None if first is None or last is None else (first, last)
            else:
                cp = _code_point(v)
                ends = None if cp is None else (cp, cp)
            if ends is None:
                raise RulesError(
                    line, f"`{v}` in `{key}` is not one character, `U+XXXX` or `U+XXXX..U+YYYY`"
                )
            lo, hi = ends
            if ".." in v and lo >= hi:
                raise RulesError(line, f"`{v}` in `{key}`: a range must go upwards")
            if not _is_scalar(lo) or not _is_scalar(hi) or (lo < 0xD800 and hi > 0xDFFF):
                raise RulesError(
                    line,
                    f"`{v}` in `{key}`: surrogates and code points above U+10FFFF are not "
                    "characters",
                )
        for cp in range(lo, hi + 1):
            c = chr(cp)
            if c in seen:
                raise RulesError(line, f"U+{cp:04X} is twice in `{key}`")
            if cp >= 0x80 and key in _ASCII_CHAR_KEYS:
                raise RulesError(
                    line, f"`{key}` must be ASCII (its splitter compares bytes): U+{cp:04X}"
                )
            seen.add(c)
            out.append(c)
    return out


def _check_unique(key: str, values: list[str], start: int, line: int) -> None:
    """Raises on a value of ``values[start:]`` that already appears earlier in ``values``."""
    for i in range(start, len(values)):
        if values[i] in values[:i]:
            raise RulesError(line, f"duplicate value `{values[i]}` in `{key}`")


def _records(text: str) -> dict[str, tuple[int, list[str]]]:
    """The file's records, ``key -> (line, values)`` in file order."""
    out: dict[str, tuple[int, list[str]]] = {}
    last: str | None = None
    # Lines end at "\n" only (not str.splitlines' other breaks), as in the Rust loader.
    for index, raw in enumerate(text.split("\n")):
        line = index + 1
        body = raw[:-1] if raw.endswith("\r") else raw
        rest = body.lstrip(_SPACE)
        if not rest or rest.startswith("#"):
            continue
        if len(rest) < len(body):
            if last is None:
                raise RulesError(line, "a continuation line (indented) before any key")
            values = out[last][1]
            start = len(values)
            _values(rest, line, values)
            _check_unique(last, values, start, line)
            continue
        values = []
        _values(rest, line, values)
        if rest.startswith('"'):
            raise RulesError(line, "a key must be a bare word, not a quoted string")
        key = values.pop(0)
        if key in out:
            raise RulesError(line, f"duplicate key `{key}` (first at line {out[key][0]})")
        _check_unique(key, values, 0, line)
        out[key] = (line, values)
        last = key
    return out


def parse_rules(text: str) -> Rules:
    """Parses the data file's ``text`` (the format is in the file's header).

    Checks that every expected key is there once, with values where values are required, that
    there is no unknown key, and that no list repeats a value and no language name is given
    twice. The checks, their order and their messages are the Rust loader's.

    Raises:
        RulesError: the file is malformed; the message names the line when one is to blame.
    """
    recs = _records(text)
    if "code.languages" not in recs:
        raise RulesError(None, "missing key `code.languages`")
    names = list(recs["code.languages"][1])
    known = set(_FIXED_KEYS) | set(CHAR_KEYS)
    known.update(f"code.{name}.{field}" for name in names for field in _FIELDS)
    for key, (line, _) in recs.items():
        if key not in known:
            raise RulesError(line, f"unknown key `{key}`")

    def take(key: str, may_be_empty: bool) -> tuple[list[str], int]:
        if key not in recs:
            raise RulesError(None, f"missing key `{key}`")
        line, values = recs.pop(key)
        if not values and not may_be_empty:
            raise RulesError(line, f"`{key}` needs at least one value")
        return values, line

    abbrevs, _ = take("sentence.abbreviations", False)
    separators, _ = take("sentence.separators", False)
    _, langs_line = take("code.languages", False)
    if any(a >= b for a, b in itertools.pairwise(names)):
        raise RulesError(langs_line, "`code.languages` must be sorted")
    need_body, _ = take("code.need_body", False)
    fn_values, _ = take("code.fn_values", False)
    langs: list[tuple[CodeLanguage, int]] = []
    for name in names:
        aliases, aliases_line = take(f"code.{name}.aliases", True)
        defs, _ = take(f"code.{name}.defs", False)
        wrappers, _ = take(f"code.{name}.wrappers", True)
        langs.append(
            (CodeLanguage(name, tuple(aliases), frozenset(defs), frozenset(wrappers)), aliases_line)
        )
    owner: dict[str, str] = {}
    for lang, aliases_line in langs:
        own = [(lang.name, langs_line)] + [(a, aliases_line) for a in lang.aliases]
        for n, line in own:
            if not all(c in _NAME_CHARS for c in n):
                raise RulesError(
                    line, f"`{n}`: a language name is lowercase ASCII letters, digits or `+#_-.`"
                )
            if n in owner:
                raise RulesError(line, f"`{n}` already names `{owner[n]}`")
            owner[n] = lang.name
    chars: dict[str, frozenset[str]] = {}
    for key in CHAR_KEYS:
        values, line = take(key, False)
        chars[key] = frozenset(_char_set(key, values, line))
    return Rules(
        abbreviations=frozenset(abbrevs),
        sentence_separators=tuple(separators),
        code_languages=MappingProxyType({lang.name: lang for lang, _ in langs}),
        need_body=frozenset(need_body),
        fn_values=frozenset(fn_values),
        chars=MappingProxyType(chars),
    )


@functools.cache
def load_rules() -> Rules:
    """The shipped data file, parsed on first use and kept.

    Raises:
        RulesError: the shipped file is malformed (a broken build or install).
    """
    resource = importlib.resources.files("ragchunk") / "data" / FILE_NAME
    return parse_rules(resource.read_text(encoding="utf-8"))


def abbreviations() -> frozenset[str]:
    """Lowercase abbreviations (no final dot) after which ``.`` never ends a sentence."""
    return load_rules().abbreviations


def sentence_separators() -> tuple[str, ...]:
    """Separators for cutting one over-long sentence, coarsest first (``""``: characters).

    >>> sentence_separators()[:3]
    ('; ', ': ', ', ')
    """
    return load_rules().sentence_separators


def code_languages() -> tuple[str, ...]:
    """The code splitter's canonical language names, sorted.

    >>> code_languages()
    ('c', 'cpp', 'go', 'java', 'javascript', 'python', 'rust', 'tsx', 'typescript')
    """
    return tuple(load_rules().code_languages)


@functools.cache
def code_aliases() -> Mapping[str, str]:
    """Alias -> canonical name (``"py" -> "python"``), sorted by alias; read-only."""
    langs = load_rules().code_languages.values()
    return MappingProxyType(dict(sorted((a, lang.name) for lang in langs for a in lang.aliases)))


def _language(language: str) -> CodeLanguage:
    try:
        return load_rules().code_languages[language]
    except KeyError:
        raise ValueError(
            f"unknown code language {language!r} (canonical names: {', '.join(code_languages())})"
        ) from None


def code_defs(language: str) -> frozenset[str]:
    """Node kinds that define a named symbol in ``language`` (a canonical name).

    Raises:
        ValueError: ``language`` is not a canonical name.
    """
    return _language(language).defs


def code_wrappers(language: str) -> frozenset[str]:
    """Node kinds of ``language`` (canonical) that get barriers like definitions; may be empty.

    Raises:
        ValueError: ``language`` is not a canonical name.
    """
    return _language(language).wrappers


def need_body_kinds() -> frozenset[str]:
    """Node kinds that are definitions only with a body (``struct s *p;`` is a reference)."""
    return load_rules().need_body


def fn_value_kinds() -> frozenset[str]:
    """Values that make a ``variable_declarator`` a definition (``const f = () => ...``)."""
    return load_rules().fn_values


def char_set(key: str) -> frozenset[str]:
    """The characters of the data file's set ``key`` (one of :data:`CHAR_KEYS`).

    Raises:
        KeyError: ``key`` is not a character set of the data file.
    """
    return load_rules().chars[key]
