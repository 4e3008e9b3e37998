"""Code in a PDF keeps its indentation (from the characters' x positions in the fixed-pitch
font) and stays one block across blank lines and a page break."""

from __future__ import annotations

import pytest
from docfiles import simple_pdf
from ragchunk.documents import parse

pytest.importorskip("pypdfium2")

ADVANCE = 10 * 0.6  # Courier: 600/1000 of the font size per character
YAML = [
    "exporters:",
    "  otlp/1:",
    "    endpoint: collector:4317",
    "    tls:",
    "      insecure: true",
]
PYTHON = ["def f(x):", "    if x:", "        return 1", "", "    return 2"]


def _lines(
    code: list[str], top: float, x: float = 72.0
) -> list[tuple[str, float, float, float, str]]:
    out = []
    for i, line in enumerate(code):
        if line.strip():
            indent = len(line) - len(line.lstrip(" "))
            out.append(("F3", 10, x + indent * ADVANCE, top + 12 * i, line.strip()))
    return out


def _code(doc: object) -> list[str]:
    return [s.text for s in doc.sections if s.kind == "code"]  # type: ignore[attr-defined]


def test_indentation_is_kept() -> None:
    body = [("F1", 10, 72, 72, "The configuration and the function below.")]
    data = simple_pdf([body + _lines(YAML, 100) + [("F1", 10, 72, 200, "Then more prose.")]])
    assert _code(parse(data)) == ["\n".join(YAML)]


def test_a_blank_line_does_not_cut_code() -> None:
    body = [("F1", 10, 72, 72, "A function.")]
    data = simple_pdf([body + _lines(PYTHON, 100) + [("F1", 10, 72, 200, "Then more prose.")]])
    assert _code(parse(data)) == ["\n".join(line for line in PYTHON if line)]


def test_code_runs_on_across_a_page_break() -> None:
    first = [("F1", 10, 72, 72, "The configuration:"), *_lines(YAML[:2], 780)]
    second = [*_lines(YAML[2:], 72), ("F1", 10, 72, 140, "Then more prose.")]
    assert _code(parse(simple_pdf([first, second]))) == ["\n".join(YAML)]
