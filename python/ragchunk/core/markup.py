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
# Elements whose content is raw text up to their end tag.
_RAW = frozenset("script style xmp iframe noembed noframes textarea title".split())
# Where an end tag stops looking for its element (the spec's default scope boundaries).
_SCOPE = frozenset("applet caption html table td th marquee object template".split())
# How far below the top of the estimated stack an end tag may find its element.
_END_REACH = 8
# A start or end tag up to the first ">" (quotes are not tracked: a ">" inside an attribute
# value ends the tag early, which only matters for a tag that is removed), or a comment or
# CDATA section skipped whole. Matched only up to the last ">" of the document, so every
# match succeeds at the first try and the scan is linear.
_TAG = re.compile(
    r"<!--.*?(?:-->|\Z)|<!\[CDATA\[.*?(?:\]\]>|\Z)|<(/?)([A-Za-z][^\t\n\f\r />]*)[^>]*?(/?)>",
    re.DOTALL,
)


def bound_depth(html: str) -> str:
    """``html`` with the start tags that would nest past :data:`MAX_DEPTH` replaced by a space
    (and so are their end tags); ``html`` itself when nothing is that deep (nearly always).

    The depth is estimated from the tags alone in one linear pass: a start tag opens an
    element (except void elements and those a repeat of themselves closes, such as ``p``,
    ``li``, ``td``); an end tag closes its element when it is among the top few open ones
    with no table/cell boundary in between (and no block, for an inline element's end
    tag: the parser ignores those); comments and raw-text elements (``script``,
    ``style``, ``textarea``, ...) are skipped. Run by the facade, so both backends parse the
    same markup. Idempotent: the result has nothing to remove.
    """
    if html.count("<") <= MAX_DEPTH:
        return html
    stack: list[str] = []
    excess: dict[str, int] = {}
    cut: list[tuple[int, int]] = []
    skip_to = 0  # inside a raw-text element until here
    for m in _TAG.finditer(html, 0, html.rfind(">") + 1):
        slash, name, closed = m.group(1, 2, 3)
        if name is None or m.start() < skip_to:
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
        if name in _RAW and not closed:
            close = re.compile(r"</" + re.escape(name) + r"[\t\n\f\r />]", re.IGNORECASE)
            found = close.search(html, m.end())
            skip_to = len(html) if found is None else found.start()
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
