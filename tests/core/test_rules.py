"""The splitters' shared data file (``ragchunk/data/splitter_rules.txt``) and its Python loader.

The Rust loader's own tests (``rust/text/rules.rs``) check the same file, the same known values
and the same error messages for the same corrupt inputs; here the Python loader is checked, the
pure-Python splitters are shown to use exactly its values, the character sets are shown to be
the same code points in both backends (what the compiled core built, every code point asked),
and the abbreviations are shown to behave the same on both backends (the character sets'
behaviour: ``test_char_sets.py``).
"""

from __future__ import annotations

import importlib.resources
import re
from typing import Any

import pytest
from ragchunk._pure.ragflow import flow as pure_flow
from ragchunk._pure.ragflow.merge import hard_cap as pure_hard_cap
from ragchunk._pure.splitters import code as pure_code
from ragchunk._pure.splitters import html as pure_html
from ragchunk._pure.splitters import packer as pure_packer
from ragchunk._pure.splitters import recursive as pure_recursive
from ragchunk._pure.splitters import sentence as pure_sentence
from ragchunk.core import rules
from ragchunk.core.rules import RulesError, parse_rules
from ragchunk.splitters import code as facade_code
from ragchunk.splitters.sentence import SentenceSplitter

LANGUAGES = ("c", "cpp", "go", "java", "javascript", "python", "rust", "tsx", "typescript")


def _shipped_text() -> str:
    return (importlib.resources.files("ragchunk") / "data" / rules.FILE_NAME).read_text("utf-8")


@pytest.mark.single_backend
def test_shipped_file_parses_and_is_cached() -> None:
    assert rules.load_rules() is rules.load_rules()
    assert parse_rules(_shipped_text()) == rules.load_rules()


@pytest.mark.single_backend
def test_every_list_is_non_empty_and_duplicate_free() -> None:
    records = rules._records(_shipped_text())
    may_be_empty = {f"code.{n}.{f}" for n in LANGUAGES for f in ("aliases", "wrappers")}
    for key, (line, values) in records.items():
        assert len(set(values)) == len(values), f"line {line}: {key}"
        assert values or key in may_be_empty, f"line {line}: {key} is empty"
    assert set(records) == set(rules._FIXED_KEYS) | set(rules.CHAR_KEYS) | {
        f"code.{n}.{f}" for n in LANGUAGES for f in rules._FIELDS
    }
    assert [k for k in records if k.startswith("chars.")] == list(rules.CHAR_KEYS)


@pytest.mark.single_backend
def test_known_values() -> None:
    abbrevs = rules.abbreviations()
    assert {"mr", "dr", "fig", "eq", "eds"} <= abbrevs
    assert not {"etc", "inc", "ltd"} & abbrevs  # for these the lowercase-next-word rule decides
    assert rules.sentence_separators() == ("; ", ": ", ", ", "，", "、", "：", " ", "")
    assert rules.code_languages() == LANGUAGES
    assert dict(rules.code_aliases()) == {
        "c++": "cpp",
        "golang": "go",
        "js": "javascript",
        "jsx": "javascript",
        "py": "python",
        "rs": "rust",
        "ts": "typescript",
    }
    assert rules.code_wrappers("python") == {"decorated_definition"}
    assert rules.code_defs("python") == {"function_definition", "class_definition"}
    assert rules.code_wrappers("rust") == rules.code_wrappers("java") == frozenset()
    assert rules.code_wrappers("cpp") == {"type_definition", "template_declaration"}
    assert rules.code_defs("c") < rules.code_defs("cpp")
    assert rules.code_defs("javascript") < rules.code_defs("typescript") == rules.code_defs("tsx")
    assert "impl_item" in rules.code_defs("rust")
    assert rules.need_body_kinds() == {
        "struct_specifier",
        "union_specifier",
        "enum_specifier",
        "class_specifier",
    }
    assert "arrow_function" in rules.fn_value_kinds()
    with pytest.raises(ValueError, match="unknown code language 'py'"):
        rules.code_defs("py")


@pytest.mark.single_backend
def test_pure_modules_use_the_loaders_values() -> None:
    assert pure_sentence.ABBREVIATIONS == rules.abbreviations()
    assert pure_sentence.SENTENCE_SEPARATORS == rules.sentence_separators()
    assert tuple(pure_code._GRAMMARS) == rules.code_languages()
    assert pure_code._DEFS == {n: rules.code_defs(n) for n in rules.code_languages()}
    assert pure_code._WRAPPERS == {n: rules.code_wrappers(n) for n in rules.code_languages()}
    assert pure_code._NEED_BODY == rules.need_body_kinds()
    assert pure_code._FN_VALUES == rules.fn_value_kinds()


@pytest.mark.single_backend
def test_pure_modules_use_the_loaders_character_sets() -> None:
    def chars(key: str) -> frozenset[str]:
        return rules.char_set(key)

    assert pure_packer._WS == chars("chars.whitespace.packer")
    assert pure_packer._CJK_STOP == chars("chars.terminators.packer_cjk")
    assert pure_packer._ASCII_STOP == chars("chars.terminators.ascii")
    assert pure_hard_cap._WS == chars("chars.whitespace.hard_cap")
    assert pure_hard_cap._CJK_TERM == chars("chars.terminators.hard_cap_cjk")
    assert pure_hard_cap._TERM == chars("chars.terminators.ascii") | pure_hard_cap._CJK_TERM
    assert set(pure_html._HTML_WS) == chars("chars.whitespace.html")
    assert {chr(b) for b in pure_code._GAP_WS} == chars("chars.whitespace.code")
    assert set(pure_recursive.STRIP) == chars("chars.whitespace.langchain")
    assert pure_sentence._SPACE == chars("chars.whitespace.langchain")
    assert pure_sentence._CJK_TERMINATORS == chars("chars.terminators.sentence_cjk")
    assert pure_sentence._LATIN_TERMINATORS == chars("chars.terminators.sentence_latin")
    assert pure_sentence._CLOSERS == chars("chars.closers.sentence")
    assert set(pure_sentence._OPENERS) == chars("chars.openers.sentence")
    flow = "".join(re.escape(c) for c in sorted(chars("chars.terminators.flow")))
    assert pure_flow._SENTENCE.pattern == f"([{flow}]|\\. )"


@pytest.mark.single_backend
def test_character_sets_are_the_same_code_points_in_both_backends(core: Any) -> None:
    # What the compiled core's sets (its bitmaps and ranges) answer for every code point,
    # against the fallback's sets read from the same file: a drift in either loader, in the
    # Rust set structure or in the embedded copy of the file fails here.
    python = {key: sorted(ord(c) for c in rules.char_set(key)) for key in rules.CHAR_KEYS}
    assert core._char_sets() == python


@pytest.mark.single_backend
def test_whitespace_sets_are_the_rules_they_are_named_after() -> None:
    every = [chr(cp) for cp in range(0x110000)]
    langchain = rules.char_set("chars.whitespace.langchain")
    # Python's str.isspace, exactly (this Python's Unicode tables).
    assert langchain == {c for c in every if c.isspace()}
    # Unicode White_Space (Rust's char::is_whitespace; its own test is in Rust): isspace less
    # the information separators U+001C..U+001F.
    assert rules.char_set("chars.whitespace.hard_cap") == langchain - set("\x1c\x1d\x1e\x1f")
    for key in ("chars.whitespace.packer", "chars.whitespace.html", "chars.whitespace.code"):
        assert rules.char_set(key) < rules.char_set("chars.whitespace.hard_cap"), key
    assert all(c.isascii() for c in rules.char_set("chars.whitespace.code"))


@pytest.mark.single_backend
def test_facade_language_names_agree() -> None:
    assert tuple(facade_code.supported_languages()) == rules.code_languages()
    for alias, name in rules.code_aliases().items():
        assert facade_code.canonical_language(f" {alias.upper()} ") == name
    with pytest.raises(ValueError, match="not supported"):
        facade_code.canonical_language("cobol")


@pytest.mark.parametrize("abbrev", sorted(rules.abbreviations()))
def test_every_abbreviation_holds_on_both_backends(abbrev: str) -> None:
    # Capitalised, so the lowercase-next-word rule cannot be what keeps the sentence whole.
    word = abbrev.capitalize()
    assert SentenceSplitter.sentences(f"See {word}. Next one. End.") == [
        f"See {word}. Next one.",
        "End.",
    ]


def test_a_plain_word_still_breaks() -> None:
    assert SentenceSplitter.sentences("See Word. Next one.") == ["See Word.", "Next one."]


#: Every character set holding `a`, one line each (the end of a minimal file).
_CHARS = "".join(f"{key} a\n" for key in rules.CHAR_KEYS)


#: A minimal valid file, with something inserted (its lines: 1 abbreviations, 2 separators,
#: 3 languages, 4 need_body, 5 fn_values, 6-8 the language's records, then ``extra``, then
#: every character set, from line 9 when ``extra`` is one line or none).
def _file(extra: str = "") -> str:
    return (
        'sentence.abbreviations mr\nsentence.separators " " ""\ncode.languages x\n'
        "code.need_body a\ncode.fn_values b\ncode.x.aliases\ncode.x.defs d\ncode.x.wrappers\n"
        + extra
        + _CHARS
    )


def _with_set(key: str, values: str) -> str:
    """The minimal file with the set ``key`` holding ``values`` instead of ``a``."""
    return _file().replace(f"\n{key} a\n", f"\n{key} {values}\n")


def test_format_quoting_continuations_and_comments() -> None:
    text = (
        "# head\n\nsentence.abbreviations a\n  # between\n\tb  c\r\n"
        'sentence.separators "; " "\\"\\\\\\n\\t" ""\n'
        "code.languages x\ncode.need_body a\ncode.fn_values b\n"
        "code.x.aliases y\ncode.x.defs d\ncode.x.wrappers\n" + _CHARS
    )
    r = parse_rules(text)
    assert r.abbreviations == {"a", "b", "c"}
    assert r.sentence_separators == ("; ", '"\\\n\t', "")
    assert r.code_languages["x"].aliases == ("y",)
    assert parse_rules(_file()).code_languages["x"].wrappers == frozenset()


# The same inputs and messages as the Rust loader's test `corrupt_lines_are_named`.
@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (_file("code.x.defs e\n"), 9, "duplicate key `code.x.defs` (first at line 7)"),
        (_file("code.y.defs e\n"), 9, "unknown key `code.y.defs`"),
        ("  mr\n", 1, "a continuation line (indented) before any key"),
        ("sentence.abbreviations mr\n  ms mr\n", 2,
         "duplicate value `mr` in `sentence.abbreviations`"),
        ('sentence.separators "; \n', 1, "unterminated quoted string"),
        ('sentence.separators "\\x"\n', 1, "unknown escape `\\x`"),
        ('sentence.separators "a"b\n', 1, "a quoted string must be followed by a space"),
        ('sentence.separators a"b\n', 1, '`"` or `\\` in the bare value `a"b` (quote the value)'),
        ('"key" a\n', 1, "a key must be a bare word, not a quoted string"),
        (_file().replace("code.x.defs d", "code.x.defs"), 7,
         "`code.x.defs` needs at least one value"),
        (_file().replace("code.x.aliases", "code.x.aliases x"), 6, "`x` already names `x`"),
        (_file().replace("code.x.aliases", "code.x.aliases Y"), 6,
         "`Y`: a language name is lowercase ASCII letters, digits or `+#_-.`"),
        (_file().replace("code.languages x", "code.languages x w"), 3,
         "`code.languages` must be sorted"),
        (_file().replace("code.fn_values b\n", ""), None, "missing key `code.fn_values`"),
        ("sentence.abbreviations mr\n", None, "missing key `code.languages`"),
    ],
)  # fmt: skip
@pytest.mark.single_backend
def test_corrupt_lines_are_named(text: str, line: int | None, message: str) -> None:
    with pytest.raises(RulesError) as info:
        parse_rules(text)
    where = f"splitter_rules.txt, line {line}" if line is not None else "splitter_rules.txt"
    assert str(info.value) == f"{where}: {message}"
    assert info.value.line == line
    assert isinstance(info.value, ValueError)


def test_character_sets_literal_code_points_and_ranges() -> None:
    text = _with_set(
        "chars.whitespace.hard_cap", 'U+0009 "\\"" é U+0041..U+0043 U+10FFFF\n  " " U+1F600'
    )
    r = parse_rules(text)
    assert r.chars["chars.whitespace.hard_cap"] == set('\t"éABC\U0010ffff 😀')
    assert r.chars["chars.openers.sentence"] == {"a"}
    assert tuple(r.chars) == rules.CHAR_KEYS


_HC = "chars.whitespace.hard_cap"
_NOT_A_CHAR = "is not one character, `U+XXXX` or `U+XXXX..U+YYYY`"
_NO_SCALAR = "surrogates and code points above U+10FFFF are not characters"


# The same inputs and messages as the Rust loader's test `corrupt_character_sets_are_named`.
@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        *[(_with_set(_HC, v), 9, f"`{v}` in `{_HC}` {_NOT_A_CHAR}") for v in (
            "U+00e9", "ab", "U+41", "U+0000041", "U+0041..", "..", "u+0041", "U+0041-U+0042",
            "U+0041..U+0042..U+0043", "U+00G1", "e\u0301",
        )],
        (_with_set(_HC, '""'), 9, f"`` in `{_HC}` {_NOT_A_CHAR}"),
        *[(_with_set(_HC, v), 9, f"`{v}` in `{_HC}`: a range must go upwards")
          for v in ("U+0042..U+0041", "U+0041..U+0041")],
        *[(_with_set(_HC, v), 9, f"`{v}` in `{_HC}`: {_NO_SCALAR}")
          for v in ("U+D800", "U+DFFF", "U+110000", "U+D7FF..U+E000", "U+0041..U+D800")],
        (_with_set(_HC, "a U+0061"), 9, f"U+0061 is twice in `{_HC}`"),
        (_with_set(_HC, "U+0040..U+0042\n  A"), 9, f"U+0041 is twice in `{_HC}`"),
        (_with_set(_HC, "a a"), 9, f"duplicate value `a` in `{_HC}`"),
        (_with_set("chars.whitespace.code", "U+0020 U+00A0"), 13,
         "`chars.whitespace.code` must be ASCII (its splitter compares bytes): U+00A0"),
        (_file().replace(f"{_HC} a", _HC), 9, f"`{_HC}` needs at least one value"),
        (_file().replace("chars.openers.sentence a\n", ""), None,
         "missing key `chars.openers.sentence`"),
        (_file("chars.whitespace.nbsp U+00A0\n"), 9, "unknown key `chars.whitespace.nbsp`"),
    ],
)  # fmt: skip
@pytest.mark.single_backend
def test_corrupt_character_sets_are_named(text: str, line: int | None, message: str) -> None:
    with pytest.raises(RulesError) as info:
        parse_rules(text)
    where = f"splitter_rules.txt, line {line}" if line is not None else "splitter_rules.txt"
    assert str(info.value) == f"{where}: {message}"
    assert info.value.line == line
