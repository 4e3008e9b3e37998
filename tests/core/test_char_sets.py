"""Each character set of the data file (``chars.*`` in ``ragchunk/data/splitter_rules.txt``)
decides where its splitter cuts, the same on both backends.

Every test runs on the Rust core and on the pure-Python fallback (the autouse ``backend``
fixture) against one expected result, so both backends give these very chunks. Each puts a
character that is in the set next to one that is in a neighbouring set but not in this one
(U+001C is Python's whitespace but not Unicode's, U+2003 is Unicode's but not the packer's,
``；`` ends a packer sentence but not a HARD_CAP one, ...), so the result shows which set was
used. That the two backends hold the same code points is ``test_rules.py``'s check.
"""

from __future__ import annotations

import pytest
import ragchunk
from ragchunk import (
    CodeSplitter,
    HTMLSplitter,
    MarkdownSplitter,
    RecursiveSplitter,
    SentenceSplitter,
)
from ragchunk.ragflow.pipeline import _kernels


def _hard_cap(text: str, cap: int) -> list[str]:
    return ragchunk.naive_merge(text, cap, "", 0, "hard_cap", tokenizer=len)


def _markdown(text: str, size: int) -> list[str]:
    return [c.text for c in MarkdownSplitter(chunk_size=size, length="chars").split(text)]


# --- chars.whitespace.hard_cap: Unicode White_Space -------------------------------------------


@pytest.mark.parametrize("ws", [" ", "\t", "\x85", "\xa0", "\u2003", "\u3000"])
def test_hard_cap_cuts_words_at_unicode_white_space(ws: str) -> None:
    assert _hard_cap(f"a{ws}bbbbbbb", 6) == [f"\na{ws}", "\nbbbbb", "\nbb"]


@pytest.mark.parametrize("other", ["\x1c", "\x1f", "\u200b"])
def test_hard_cap_does_not_cut_at_pythons_extra_space_or_zero_width(other: str) -> None:
    assert _hard_cap(f"a{other}bbbbbbb", 6) == [f"\na{other}bbb", "\nbbbb"]


# --- chars.terminators.ascii and chars.terminators.hard_cap_cjk --------------------------------


@pytest.mark.parametrize("term", ["。", "！", "？"])
def test_hard_cap_full_width_terminators_need_no_space(term: str) -> None:
    assert _hard_cap(f"x{term}yyyy", 6) == [f"\nx{term}", "\nyyyy"]


@pytest.mark.parametrize("other", ["；", ".", "!", "?", "‼", "｡"])
def test_hard_cap_other_terminators_need_a_space(other: str) -> None:
    # `；` ends a packer sentence, `‼` and `｡` a sentence splitter one: not HARD_CAP's.
    assert _hard_cap(f"x{other}yyyy", 6) == [f"\nx{other}yyy", "\ny"]


def test_hard_cap_ascii_terminator_before_space_ends_a_sentence() -> None:
    assert _hard_cap("x. yyyy", 6) == ["\nx. ", "\nyyyy"]


# --- chars.whitespace.packer (Markdown, HTML, code, title tree) --------------------------------


@pytest.mark.parametrize("ws", [" ", "\t", "\x0b", "\xa0", "\u3000"])
def test_packer_cuts_words_at_its_whitespace(ws: str) -> None:
    assert _markdown(f"a{ws}bbbbb", 5) == ["a", "bbbbb"]


@pytest.mark.parametrize("other", ["\x1c", "\x85", "\u2003"])
def test_packer_does_not_cut_at_other_whitespace(other: str) -> None:
    assert _markdown(f"a{other}bbbbb", 5) == [f"a{other}bbb", "bb"]


def test_packer_trims_only_its_whitespace() -> None:
    chunks = _markdown("aa\u3000bb\xa0cc\u2003dd\x1cee", 3)
    assert chunks == ["aa", "bb", "cc\u2003", "dd\x1c", "ee"]


# --- chars.terminators.packer_cjk and chars.terminators.ascii ----------------------------------


@pytest.mark.parametrize("term", ["。", "！", "？", "；"])
def test_packer_full_width_terminators_need_no_space(term: str) -> None:
    assert _markdown(f"x{term}yyyy", 5) == [f"x{term}", "yyyy"]


@pytest.mark.parametrize("other", [".", "!", "?", "‼", "｡"])
def test_packer_other_terminators_need_a_space(other: str) -> None:
    assert _markdown(f"x{other}yyyy", 5) == [f"x{other}yyy", "y"]


def test_title_tree_sentences_are_the_packers() -> None:
    chunker = ragchunk.TitleTreeChunker(5, length="chars", title_source="markdown")
    chunks = chunker.split("# T\n\nx；yyyy x‼yyyy")
    assert [c.text for c in chunks] == ["# T", "x；", "yyyy", "x‼yyy", "y"]


# --- chars.whitespace.html ----------------------------------------------------------------------


def test_html_collapses_only_its_ascii_whitespace() -> None:
    html = (
        "<p>a \t\n\x0c b\xa0\xa0c\u3000\u3000d\x0be\u2003\u2003f</p>"
        "<pre>x\n \x0c\t\n</pre><pre>y\xa0\n</pre>"
    )
    text = HTMLSplitter(chunk_size=100).extract_text(html)
    assert text == "a b\xa0\xa0c\u3000\u3000d\x0be\u2003\u2003f\n\nx\n\ny\xa0"


# --- chars.whitespace.code ----------------------------------------------------------------------


def test_code_gaps_lose_ascii_whitespace_only() -> None:
    src = "def f():\n    return 1\n\x0c\x0b \n\xa0\ndef g():\n    return 2\n"
    chunks = CodeSplitter("python", chunk_size=21, length="chars").split(src)
    assert [c.text for c in chunks] == ["def f():\n    return 1", "\xa0", "def g():\n    return 2"]


# --- chars.whitespace.langchain: Python's str.isspace ------------------------------------------


def test_recursive_strips_what_str_strip_strips() -> None:
    text = "\x1cab\x1d cd\x85\u200b ef\x1f\u3000"
    chunks = RecursiveSplitter(chunk_size=4, chunk_overlap=0, length="chars").split(text)
    assert [c.text for c in chunks] == ["ab", "cd", "\u200b", "ef"]


def test_sentence_space_is_pythons() -> None:
    # U+001C after a terminator is a space (a break, and stripped); U+200B is not.
    assert SentenceSplitter.sentences("Stop.\x1cGo on.\u200bNo. Yes.\u3000Ok.") == [
        "Stop.",
        "Go on.\u200bNo.",
        "Yes.",
        "Ok.",
    ]


# --- chars.terminators.sentence_latin / sentence_cjk, chars.closers / openers.sentence ---------


def test_sentence_terminators() -> None:
    text = "Yes‼ Ok｡Then﹗Done… Next；Last; not yet. End"
    assert SentenceSplitter.sentences(text) == [
        "Yes‼",
        "Ok｡",
        "Then﹗",
        "Done…",
        "Next；",
        "Last; not yet.",
        "End",
    ]


def test_sentence_closers_and_openers() -> None:
    text = "He said \"Stop!\" Then left. She said 'Go.' Then [Fig. 3] here. Next 「好。」Done"
    assert SentenceSplitter.sentences(text) == [
        'He said "Stop!"',
        "Then left.",
        "She said 'Go.'",
        "Then [Fig. 3] here.",
        "Next 「好。」",
        "Done",
    ]


# --- chars.terminators.flow: RAGFlow's ingestion pipeline ---------------------------------------


def test_flow_sentences() -> None:
    # `;` is not a cut, `；` is; `.` only before a space; the line feed is.
    text = "A;B；C!D?E.F. G\nH。I"
    assert [_kernels.take_sentences(text, need, False) for need in range(1, 9)] == [
        "A;B；",
        "A;B；",
        "A;B；",
        "A;B；",
        "A;B；C!",
        "A;B；C!",
        "A;B；C!D?",
        "A;B；C!D?",
    ]
    assert [_kernels.take_sentences(text, need, True) for need in (1, 2, 4, 6)] == [
        "I",
        "H。I",
        "G\nH。I",
        "E.F. G\nH。I",
    ]
