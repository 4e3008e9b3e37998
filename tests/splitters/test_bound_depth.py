"""The Rust core's ``bound_depth`` (``rust/splitters/html_depth.rs``) against the facade's
(``python/ragchunk/core/markup.py``): the same string, and the argument itself exactly when
the Python function returns it, on generated deep HTML, on every corpus document, on probes of
each element set and on hand-written edge cases.

The two must agree byte for byte, so that an Arrow batch of HTML can be bounded and chunked in
Rust alone. Tag names are generated from characters whose case mapping is the same in every
Unicode version since 14.0 (Python 3.11's): ``str.lower()`` follows the interpreter's Unicode
database and Rust's ``to_lowercase`` the compiler's, and the two differ on the few dozen
letters given case pairs since (Garay, Kirat Rai, some Latin), which Python itself lowercases
differently from one release to the next.
"""

from __future__ import annotations

import re
import sys
from typing import Any

import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st
from ragchunk.core import dispatch, markup
from testdata import CORPUS, corpus_documents

pytestmark = pytest.mark.single_backend  # compares the backends itself

LIMIT = markup.MAX_DEPTH


def _check(html: str) -> str:
    """Asserts that both functions give the same string, and the argument itself alike."""
    core: Any = dispatch._import_core()
    got = core.bound_depth(html)
    want = markup.bound_depth(html)
    assert type(got) is str
    if got != want:
        at = next((i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), None)
        at = min(len(got), len(want)) if at is None else at
        pytest.fail(
            f"outputs differ at {at} (lengths {len(got)} / {len(want)}): "
            f"rust {got[max(0, at - 40) : at + 40]!r} python {want[max(0, at - 40) : at + 40]!r}"
        )
    assert (got is html) == (want is html), "the argument itself comes back in one only"
    return want


# --- generated HTML -------------------------------------------------------------------

_NAMES = [
    "div", "span", "p", "li", "td", "th", "tr", "table", "caption", "b", "i", "em", "a",
    "section", "ul", "template", "object", "svg", "br", "img", "hr",
    "script", "style", "textarea", "title", "xmp", "iframe",
]  # fmt: skip
# Non-ASCII names (a tag name starts with an ASCII letter; the rest is anything but
# whitespace, "/" and ">"), and strings that start no tag at all.
_ODD_NAMES = [
    "aärger", "aÄRGER", "aσ", "aΣ", "aς", "xΣy", "aİ", "ai\u0307", "aı", "lin\u212a",
    "trac\u212a", "a中文", "d\u00a0iv", "div<b", "div\x0b", "d\x00", "ſcript", "Äb", "ключ",
]  # fmt: skip
_RAW_NAMES = sorted(markup._RAW)


@st.composite
def _cased(draw: st.DrawFn, name: str) -> str:
    how = draw(st.sampled_from(["lower", "upper", "mixed"]))
    if how == "lower":
        return name
    if how == "upper":
        return name.upper()
    flips = draw(st.lists(st.booleans(), min_size=len(name), max_size=len(name)))
    return "".join(c.upper() if f else c for c, f in zip(name, flips, strict=True))


_NAME = st.sampled_from(_NAMES + _ODD_NAMES).flatmap(_cased)
_ATTRS = st.sampled_from(
    ["", " a=1", ' title="x>y"', " b='>'", " c", "\tid=x", " /", " x=/", "\n", " a='</div>'"]
)
_START = st.builds(
    lambda n, a, s: f"<{n}{a}{s}>", _NAME, _ATTRS, st.sampled_from(["", "", "", "/"])
)
_END = st.builds(
    lambda n, e: f"</{n}{e}", _NAME, st.sampled_from([">", ">", " >", "\t>", "/>", " x>", ""])
)
_TEXT = st.text(
    alphabet=st.sampled_from(list("ab  <>/!-=\"'\n\t\r\x0b\x0c&;?[]") + list("éΣς中文🦀")),
    max_size=12,
)


@st.composite
def _raw_element(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(_RAW_NAMES))
    opened = draw(_cased(name))
    body = draw(st.lists(st.one_of(_TEXT, _START, _END), max_size=4))
    body_repeat = draw(st.sampled_from([1, 1, 2, 600]))
    close = draw(
        st.sampled_from(
            [
                f"</{name}>",
                f"</{name.upper()} >",
                f"</{name}\t",
                f"</{name}/>",
                f"</{name}x>",
                f"</{name.replace('s', 'ſ').replace('i', 'ı')}>",
                f"</{name.replace('i', 'İ').upper()}>",
                f"</{name}\x0b>",
                "",
            ]
        )
    )
    return f"<{opened}{draw(_ATTRS)}>" + "".join(body) * body_repeat + close


_OTHER = st.one_of(
    st.builds(lambda t, e: "<!--" + t + e, _TEXT, st.sampled_from(["-->", "--!>", "->", ""])),
    st.builds(lambda t, e: "<![CDATA[" + t + e, _TEXT, st.sampled_from(["]]>", "]>", ""])),
    st.sampled_from(
        ["<br/>", "<br>", "<img src='a>b'>", "<", ">", "</", "</>", "<!", "<?x?>", "< div>"]
    ),
)
_ATOM = st.one_of(_START, _END, _START, _END, _TEXT, _OTHER, _raw_element())
# Nested fragments: start tag, children, end tag (with the end tag's name drawn apart, so
# that many do not match).
_FRAGMENT = st.recursive(
    _ATOM,
    lambda inner: st.builds(
        lambda s, kids, e: s + "".join(kids) + e, _START, st.lists(inner, max_size=4), _END
    ),
    max_leaves=12,
)
# Repetition reaches the depths a grammar alone would not: a run of one start tag, and
# fragments repeated hundreds of times.
_PREFIX = st.builds(
    lambda tag, n: tag * n,
    st.sampled_from(
        ["<div>", "<span>", "<b>", "<DiV a=1>", "<section>", "<table>", "<td>", "<ul><li>"]
    ),
    st.one_of(st.just(0), st.integers(0, 30), st.integers(LIMIT - 20, LIMIT + 300)),
)
_SEGMENT = st.builds(
    lambda parts, n: "".join(parts) * n,
    st.lists(_FRAGMENT, min_size=1, max_size=3),
    st.one_of(st.just(1), st.integers(1, 20), st.integers(100, 700)),
)
_DOC = st.builds(lambda p, s: p + "".join(s), _PREFIX, st.lists(_SEGMENT, max_size=4))


@given(html=_DOC)
def test_generated_html(html: str) -> None:
    _check(html)


# (find() reports the example it returns: a few hundred kB of repr, once.)
@pytest.mark.filterwarnings("ignore:Generating overly large repr")
def test_generated_html_reaches_the_cut() -> None:
    # The grammar produces documents deep enough to be cut, with raw text and non-ASCII
    # names among them (else test_generated_html would compare two copies of the input).
    def cut_with(pattern: str) -> Any:
        return lambda h: re.search(pattern, h) is not None and markup.bound_depth(h) != h

    quick = settings(max_examples=2000, phases=[Phase.generate], database=None)
    for pattern in ["", "(?i)<script", "<a[^\x00-\x7f]"]:
        html = find(_DOC, cut_with(pattern), settings=quick)  # the first one, unshrunk
        assert _check(html) != html


# --- the corpus -----------------------------------------------------------------------


def _render(md: str) -> str:
    from markdown_it import MarkdownIt

    return str(MarkdownIt("commonmark").enable("table").render(md))


_DOCS = corpus_documents()


def _rendered_sample() -> list[tuple[str, str]]:
    """The two smallest documents of every corpus folder, rendered to HTML (rendering all of
    them would take a minute)."""
    by_dir: dict[str, list[tuple[str, str]]] = {}
    for name, text in _DOCS:
        by_dir.setdefault(name.split("/")[0], []).append((name, text))
    return [
        (name, _render(md))
        for docs in by_dir.values()
        for name, md in sorted(docs, key=lambda d: len(d[1]))[:2]
    ]


def _wrapped(html: str) -> list[str]:
    """``html`` as is, and below enough nesting that its own tags are cut (or fill the last
    levels), so that every document is scanned whole and cut."""
    return [
        html,
        "<div>" * (LIMIT + 88) + html + "</div>" * (LIMIT + 88),
        "<section><b>" * (LIMIT // 2 - 4) + html,
    ]


@pytest.mark.skipif(not _DOCS, reason=f"SHARED TEST DATA MISSING: {CORPUS} not found")
@pytest.mark.parametrize("name,text", _DOCS, ids=[n for n, _ in _DOCS])
def test_corpus_document(name: str, text: str) -> None:
    # Markdown, with inline HTML, comments and code full of "<" and ">".
    for html in _wrapped(text):
        _check(html)


@pytest.mark.skipif(not _DOCS, reason=f"SHARED TEST DATA MISSING: {CORPUS} not found")
def test_corpus_rendered() -> None:
    sample = _rendered_sample()
    assert sample
    for _, html in sample:
        for doc in _wrapped(html):
            _check(doc)


# --- probes of every element set --------------------------------------------------------

# Every name of the four sets, written out here (not read from markup.py, so that a name
# dropped from a set there is still probed), and a few names in none of them.
_SET_NAMES = """
    address article aside blockquote body caption center dd details dialog dir div dl dt
    fieldset figcaption figure footer form head header hgroup hr html legend li listing main
    menu nav ol option p plaintext search section summary table tbody td tfoot th thead title
    tr ul xmp
    area base basefont bgsound br col embed frame img input keygen link meta param source
    track wbr optgroup rb rt rp rtc colgroup a nobr button
    script style iframe noembed noframes textarea
    applet marquee object template
    span b x svg
"""
_ALL_NAMES = sorted(
    set(_SET_NAMES.split()) | markup.BLOCK | markup._NOT_NESTING | markup._RAW | markup._SCOPE
)
_DEEP = "<div>" * LIMIT
_NEAR = "<div>" * (LIMIT - 7)


def _probes(n: str) -> list[str]:
    return [
        _DEEP + f"<{n}>x</{n}>",  # nesting or not
        _DEEP + f"<{n}/>x</{n}>",  # self-closing: only blocks and span nest
        f"<{n}>" + "<div>" * (LIMIT + 88) + f"</{n}>" + "<i>" * 9,  # raw text or not
        _NEAR + f"<{n}><b></div>" + "<i>" * 20,  # scope boundary under a block's end tag
        _NEAR + f"<b><{n}></b>" + "<i>" * 20,  # block or boundary under an inline end tag
        _NEAR + f"<{n}><b></{n}>" + "<i>" * 20,  # its own end tag, inline or block
        _NEAR + f"<table><{n}></table>" + "<i>" * 20,
        _NEAR + f"<td><{n}><span></td>" + "<i>" * 20,
    ]


@pytest.mark.parametrize("name", _ALL_NAMES)
def test_element_sets(name: str) -> None:
    for variant in {name, name.upper(), name.capitalize()}:
        for html in _probes(variant):
            _check(html)


def test_end_reach() -> None:
    # Shallow enough that the elements above all fit, and then the open count decides how
    # many of the 40 after fit.
    base = "<div>" * (LIMIT - 30)
    for above in range(12):
        for tag in ["b", "div", "table", "td", "object"]:
            _check(base + "<div>" + f"<{tag}>" * above + "</div>" + "<i>" * 40)
            _check(base + "<span>" + f"<{tag}>" * above + "</span>" + "<b>" * 40)


# --- the raw-text close, matched as Python's re.IGNORECASE ------------------------------


def _ignorecase_candidates() -> dict[str, list[str]]:
    """For each letter of the raw-text element names: every character Python's
    ``re.IGNORECASE`` matches it with, and every other character whose case mappings
    contain it (which must then not match in either)."""
    cased = [
        c
        for c in map(chr, range(0x80, sys.maxunicode + 1))
        if not 0xD800 <= ord(c) < 0xE000 and (c.lower() != c or c.upper() != c or c.isupper())
    ]
    everything = "".join(cased)
    out: dict[str, list[str]] = {}
    for letter in sorted(set("".join(markup._RAW))):
        matched = {m.group() for m in re.finditer(letter, everything, re.IGNORECASE)}
        related = {c for c in cased if letter in (c.lower() + c.upper() + c.casefold()).lower()}
        out[letter] = sorted(matched | related | {letter, letter.upper()})
    return out


def test_raw_close_case_insensitive() -> None:
    candidates = _ignorecase_candidates()
    assert "\u017f" in candidates["s"] and "\u0131" in candidates["i"]  # ſ, ı
    rest = "<div>" * (LIMIT + 9)
    for raw in markup._RAW:
        for at, letter in enumerate(raw):
            for c in candidates[letter]:
                close = raw[:at] + c + raw[at + 1 :]
                _check(f"<{raw}>x</{close}>" + rest)
                _check(f"<{raw.upper()}>x</{close}\t<b>" + rest)


# --- hand-written edge cases --------------------------------------------------------------

_EDGE = {
    "empty": "",
    "lt only": "<" * 2000,
    "gt only": ">" * 2000,
    "empty tags": "<>" * 2000,
    "exactly the limit": "<div>" * LIMIT,
    "one past": "<div>" * (LIMIT + 1),
    "one past, closed": "<div>" * (LIMIT + 1) + "x" + "</div>" * (LIMIT + 1),
    "2000 divs": "<div>" * 2000 + "x" + "</div>" * 2000,
    "no gt after the last tags": "<div>" * 600 + "<b" + "<i" * 10,
    "one long name": "<div" * 600 + ">",
    "stray end tags": "</div>" * 1000 + "<div>" * 600,
    "end tags with slash": "<div>" * 600 + "</div/>" * 600,
    "unclosed comment": "<div>" * 600 + "<!--" + "<div>" * 10,
    "short comments": "<div>" * 600 + "<!--><i><!---><i><!----><i>",
    "comment in the cut": "<div>" * 600 + "<!-- <div> -->" + "</div>" * 600,
    "cdata": "<div>" * 600 + "<![CDATA[<div>]]>" + "<![CDATA[<div>" + "</div>" * 3,
    "script at depth": "<div>" * 600 + "<script>" + "<div>" * 10 + "</script>" + "<div>" * 10,
    "script close after the last gt": "<div>" * 600 + "<script>x</script " + "<b",
    "script close swallowed by a comment": "<script><!--</script><div>-->" + "<div>" * 600,
    "script close swallowed by a tag": "<script>x</script\t<div>" + "<div>" * 600,
    "unclosed script": "<div>" * 600 + "<script>" + "</div>" * 600,
    "textarea in the cut": "<div>" * LIMIT + "<textarea>" + "</div>" * 5 + "</textarea>",
    "title self-closing": "<div>" * LIMIT + "<title/>x</title>",
    "xmp": "<div>" * 600 + "<xmp><div></xmp>" + "</div>" * 600,
    "tables": "<table>" * 600 + "</table>" * 600,
    "cells": "<td>" * 1000 + "<table><td><span>" * 300 + "</span></td></table>" * 300,
    "span across div": "<span><div></span>" * 400,
    "inline across p": "<b><p></b>" * 600,
    "inline runs": "<b><i>" * 300 + "</b>" * 300 + "</i>" * 300,
    "attribute gt": "<div>" * LIMIT + "<div title='a>b'>x</div>",
    "self-closing inline": "<div>" * LIMIT + "<b/><span/><div/><i / >",
    "sigma": "<aΣ>" * 600 + "</aς>" * 600 + "<aς>" * 10 + "</AΣ>" * 10,
    "dotted I": "<aİ>" * 600 + "</ai\u0307>" * 600 + "<AI>" * 9,
    "kelvin": "<lin\u212a>" * 600 + "<trac\u212a>" * 600 + "<\u212a>" * 600,
    "non-breaking space in a name": "<d\u00a0iv>" * 600 + "</d\u00a0iv>" * 600,
    "control characters": "<div\x0b>" * 600 + "<d\x00>" * 10 + "</DIV\x0b>" * 600,
    "wide text": "<div>中文" * 600 + "🦀" + "</div>é" * 600,
    "crlf": "<div\r\n class=x>\r\n" * 600 + "</div\r\n>" * 600,
    "mixed case": "<DiV>" * 300 + "<dIv>" * 300 + "</DIV>" * 600,
}


@pytest.mark.parametrize("name", list(_EDGE))
def test_edge_case(name: str) -> None:
    _check(_EDGE[name])


def test_edge_cases_are_cut() -> None:
    # Most edge cases are deep enough to be cut: equality is no comparison of two copies.
    cut = [n for n, html in _EDGE.items() if markup.bound_depth(html) != html]
    assert len(cut) >= len(_EDGE) // 2, cut
    assert "2000 divs" in cut and "unclosed script" in cut


def test_nothing_cut_gives_the_argument() -> None:
    core: Any = dispatch._import_core()
    ordinary = "<ul>" + "<li><p>a<b>b</b>" * 2000 + "</ul><script>" + "<div>" * 900 + "</script>"
    assert core.bound_depth(ordinary) is ordinary
    deep = "<div>" * 600
    assert core.bound_depth(deep) == "<div>" * LIMIT + " " * 88
