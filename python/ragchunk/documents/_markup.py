"""HTML, Markdown, plain text, source code and JSON into sections.

HTML and Markdown reuse the block parsers behind :class:`ragchunk.HTMLSplitter` and
:class:`ragchunk.MarkdownSplitter` (the HTML5 layout and the line-based Markdown block
scanner, with the same rules in both backends), so a document parsed here has the blocks those
splitters see. The compiled core has no call that returns those blocks with their kinds, so
their Python twins (``_pure.splitters.html`` and ``_pure.splitters.markdown``, equal to the
Rust scanners block for block) run on both backends, through ``dispatch`` like every other
backend choice.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .._pure.splitters import html as _html
from .._pure.splitters import markdown as _md
from ..core import dispatch
from ._model import Section, table_text

__all__ = ["parse_code", "parse_html", "parse_json", "parse_jsonl", "parse_markdown", "parse_text"]

_LIST_ITEM = re.compile(r"^( {0,3})([-+*]|\d{1,9}[.)])(\s+|$)")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)")
_PARAGRAPHS = re.compile(r"\n[ \t\r\f\v]*\n\s*")


def parse_html(text: str) -> tuple[list[Section], dict[str, Any]]:
    """Headings, paragraphs and tables of an HTML document, as HTMLSplitter lays it out."""
    layout = dispatch.run_exact(None, lambda: _html.layout_html(text))
    laid = layout.text
    sections: list[Section] = []
    for b in layout.blocks:
        body = laid[b.start : b.end]
        if b.kind == "heading":
            sections.append(Section("title", " ".join(body.split()), level=b.level))
        elif b.kind == "table":
            rows = [line.split("\t") for line in body.split("\n")]
            sections.append(Section("table", table_text(rows), rows=rows))
        elif body.strip():
            sections.append(Section("text", body.strip()))
    m = re.search(r"<title[^>]*>(.*?)</title>", text[:65536], re.IGNORECASE | re.DOTALL)
    meta = {"title": " ".join(m.group(1).split()) or None} if m else {}
    return sections, meta


def _md_table(lines: list[str]) -> list[list[str]]:
    rows = []
    for i, line in enumerate(lines):
        if i == 1:
            continue  # the delimiter row
        s = line.strip()
        if s.startswith("|"):
            s = s[1:]
        if s.endswith("|") and not s.endswith("\\|"):
            s = s[:-1]
        cells = re.split(r"(?<!\\)\|", s)
        rows.append([c.strip().replace("\\|", "|") for c in cells])
    return rows


def _md_list(lines: list[str]) -> list[str]:
    items: list[list[str]] = []
    base: int | None = None
    for line in lines:
        m = _LIST_ITEM.match(line)
        if m and (base is None or len(m.group(1)) <= base):
            base = len(m.group(1)) if base is None else base
            items.append([line[m.end() :]])
        elif items:
            items[-1].append(line.strip())
        else:
            items.append([line.strip()])
    return ["\n".join(x for x in item if x).strip() for item in items]


def parse_markdown(text: str) -> tuple[list[Section], dict[str, Any]]:
    """The blocks of a Markdown document, as MarkdownSplitter's scanner finds them."""
    sections: list[Section] = []
    meta: dict[str, Any] = {}
    if not text:
        return sections, meta
    for b in dispatch.run_exact(None, lambda: _md.scan_blocks(text)):
        body = text[b.start : b.end]
        lines = body.split("\n")
        if b.kind == "heading":
            sections.append(Section("title", b.text.strip(), level=b.level))
        elif b.kind == "fence":
            m = _FENCE.match(lines[0])
            inner = lines[1:]
            if len(inner) and m and inner[-1].strip().startswith(m.group(1)[0] * 3):
                inner = inner[:-1]
            lang = {"language": m.group(2)} if m and m.group(2) else {}
            if any(line.strip() for line in inner):  # an empty fence has nothing to keep
                sections.append(Section("code", "\n".join(inner), metadata=lang))
        elif b.kind == "indented_code":
            sections.append(Section("code", "\n".join(line[4:] for line in lines)))
        elif b.kind == "table":
            rows = _md_table(lines)
            sections.append(Section("table", table_text(rows), rows=rows))
        elif b.kind == "list":
            sections += [Section("list", item) for item in _md_list(lines) if item]
        elif b.kind == "quote":
            quoted = "\n".join(re.sub(r"^ {0,3}> ?", "", line) for line in lines)
            sections.append(Section("text", quoted.strip()))
        elif b.kind == "front_matter":
            meta["front_matter"] = "\n".join(lines[1:-1])
        elif b.kind == "break":
            continue
        elif body.strip():
            sections.append(Section("text", body.strip()))
    titles = [s for s in sections if s.kind == "title"]
    if titles:
        meta["title"] = titles[0].text
    return sections, meta


def parse_text(text: str) -> tuple[list[Section], dict[str, Any]]:
    """Paragraphs of a plain-text file (blocks between blank lines).

    >>> [s.text for s in parse_text("One\\nline.\\n\\n  \\nTwo.")[0]]
    ['One\\nline.', 'Two.']
    """
    parts = (p.strip() for p in _PARAGRAPHS.split(text))
    return [Section("text", p) for p in parts if p], {}


def parse_code(text: str, language: str | None) -> tuple[list[Section], dict[str, Any]]:
    """A source file: one code section (the code chunkers cut it by its syntax)."""
    meta = {"language": language} if language else {}
    body = text.strip("\n")
    return ([Section("code", body, metadata=meta)] if body.strip() else []), dict(meta)


def _json_text(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, indent=None)


def parse_json(text: str) -> tuple[list[Section], dict[str, Any]]:
    """A JSON document: a top-level array gives one section per element, an object one
    section per top-level key (``{"key": value}``), anything else one section."""
    value = json.loads(text)
    if isinstance(value, list):
        items: list[tuple[str, object]] = [(f"[{i}]", v) for i, v in enumerate(value)]
    elif isinstance(value, dict):
        items = [(f".{k}", {k: v}) for k, v in value.items()]
    else:
        items = [("", value)]
    return [Section("text", _json_text(v), metadata={"json_path": p}) for p, v in items], {}


def parse_jsonl(text: str) -> tuple[list[Section], dict[str, Any]]:
    """JSON Lines: one section per non-blank line (``metadata["line"]``, 1-based)."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                value = json.loads(line)
            except ValueError as exc:
                raise ValueError(f"line {n}: {exc}") from exc
            out.append(Section("text", _json_text(value), metadata={"line": n}))
    return out, {}
