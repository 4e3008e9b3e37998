"""HTML facts both backends and the facade share: the block-level elements, and the nesting
bound applied before parsing (:func:`bound_depth`), so both backends parse the same markup."""

from __future__ import annotations

import re

__all__ = ["BLOCK", "MAX_DEPTH", "bound_depth"]

BLOCK = frozenset(
    """address article aside blockquote body caption center dd details dialog dir div dl dt
    fieldset figcaption figure footer form head header hgroup hr html legend li listing main
    menu nav ol option p plaintext search section summary table tbody td tfoot th thead title
    tr ul xmp""".split()
)

#: The deepest element nesting laid out as structure. Past it, start tags (and their end
#: tags) are removed before parsing, so the deepest content is laid out as the text of the
#: element at this depth: WHATWG parsers spend time proportional to the depth of the open
#: elements on many tags, so unbounded nesting would cost quadratic time. The same limit as
#: Blink's HTML parser (which attaches deeper elements as siblings instead).
MAX_DEPTH = 512

# Elements whose start tag opens nothing deeper than what an estimate should count: void
# elements, and elements with optional end tags that a repeat of themselves closes.
_NOT_NESTING = frozenset(
    """area base basefont bgsound br col embed frame hr img input keygen link meta param
    source track wbr p li dt dd option optgroup rb rt rp rtc tr td th thead tbody tfoot
    colgroup caption html head body a nobr button""".split()
)
# Elements whose content is raw text up to their end tag (plaintext: to the end).
_RAW = frozenset("script style xmp iframe noembed noframes textarea title plaintext".split())
# Where an end tag stops looking for its element (the spec's default scope boundaries).
_SCOPE = frozenset("applet caption html table td th marquee object template".split())
# How far below the top of the estimated stack an end tag may find its element.
_END_REACH = 8
# What the scan stops at, in order: a comment (ended by "-->" or "--!>", or at once by the
# abrupt "<!-->" and "<!--->", as HTML ends them; unclosed, it runs to the end), the opener of
# a CDATA section (where it ends depends on the content, see below), any other "<!" or "<?"
# markup (a bogus comment, ended by the first ">"), and a start or end tag up to the first ">"
# (quotes are not tracked: a ">" inside an attribute value ends the tag early, which only
# matters for a tag that is removed). Searched only up to the last ">" of the document, so
# every match succeeds at the first try and the scan is linear.
_TAG = re.compile(
    r"<!--(?:-?>|.*?(?:--!?>|\Z))|<!\[CDATA\[|<[!?][^>]*>"
    r"|<(/?)([A-Za-z][^\t\n\f\r />]*)[^>]*?(/?)>",
    re.DOTALL,
)
_CDATA = "<![CDATA["
# Elements whose content is foreign (SVG, MathML): there a CDATA section runs to "]]>" and no
# element's content is raw text.
_FOREIGN = ("svg", "math")


def _raw_end(html: str, name: str, at: int) -> int:
    """Where the raw text of ``name`` opened at ``at`` ends: its end tag, else the end."""
    if name == "plaintext":  # never ends
        return len(html)
    close = re.compile(r"</" + re.escape(name) + r"[\t\n\f\r />]", re.IGNORECASE)
    found = close.search(html, at)
    return len(html) if found is None else found.start()


def bound_depth(html: str) -> str:
    """``html`` with the start tags that would nest past :data:`MAX_DEPTH` replaced by a space
    (and so are their end tags); ``html`` itself when nothing is that deep (nearly always).

    The depth is estimated from the tags alone in one linear pass: a start tag opens an
    element (except void elements and those a repeat of themselves closes, such as ``p``,
    ``li``, ``td``); an end tag closes its element when it is among the top few open ones
    with no table/cell boundary in between (and no block, for an inline element's end
    tag: the parser ignores those); comments and bogus comments are skipped as HTML ends
    them, and so is the content of raw-text elements (``script``, ``style``, ``textarea``,
    ``plaintext``, ...; a ``/`` before the ``>`` does not close them) and CDATA sections
    (to the first ``>`` in HTML content, to ``]]>`` inside ``svg`` or ``math``, where no
    element is raw text). Applied by both backends before parsing, so both parse the same
    markup. Idempotent: the result has nothing to remove.
    """
    if html.count("<") <= MAX_DEPTH:
        return html
    stack: list[str] = []
    excess: dict[str, int] = {}
    cut: list[tuple[int, int]] = []
    end = html.rfind(">") + 1
    pos = 0
    while True:
        m = _TAG.search(html, pos, end)
        if m is None:
            break
        pos = m.end()
        slash, name, closed = m.group(1, 2, 3)
        if name is None:
            if m.group() == _CDATA:
                foreign = any(n in _FOREIGN for n in stack)
                close = html.find("]]>" if foreign else ">", pos)
                pos = len(html) if close < 0 else close + (3 if foreign else 1)
            continue
        name = name.lower()
        if slash:  # an end tag
            if excess.get(name):  # closes a removed start tag (the innermost are removed)
                excess[name] -= 1
                cut.append(m.span())
            elif stack and stack[-1] == name:
                stack.pop()
            else:
                inline = name not in BLOCK
                for i in range(len(stack) - 2, max(-1, len(stack) - 1 - _END_REACH), -1):
                    above = stack[i + 1]  # would be closed too: a boundary, or a block
                    if above in _SCOPE or (inline and above in BLOCK):  # under an inline
                        break  # (the parser ignores such an end tag)
                    if stack[i] == name:
                        del stack[i:]
                        break
            continue
        if name in _NOT_NESTING:
            continue
        if name in _RAW and not any(n in _FOREIGN for n in stack):
            pos = _raw_end(html, name, pos)
            continue
        if closed and name not in BLOCK and name != "span":
            continue
        if len(stack) < MAX_DEPTH:
            stack.append(name)
        else:
            excess[name] = excess.get(name, 0) + 1
            cut.append(m.span())
    if not cut:
        return html
    parts: list[str] = []
    at = 0
    for a, b in cut:
        parts.append(html[at:a])
        at = b
    parts.append(html[at:])
    return " ".join(parts)  # a space for each removed tag keeps words apart
