"""The examples of docs/splitters-structured.md run, and print what the page says they print.

In each ``python`` block, a statement followed by comment lines is an expression whose
``repr`` is those lines (``# `` taken off each, joined): the page shows real output.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "splitters-structured.md"


def _cells(block: str) -> list[tuple[str, str | None]]:
    """``(code, expected repr or None)`` pieces of one block."""
    cells: list[tuple[str, str | None]] = []
    code: list[str] = []
    lines = block.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("# ") and code:
            out = []
            while i < len(lines) and lines[i].startswith("# "):
                out.append(lines[i][2:])
                i += 1
            cells.append(("\n".join(code), "".join(out)))
            code = []
            continue
        code.append(lines[i])
        i += 1
    if code:
        cells.append(("\n".join(code), None))
    return cells


BLOCKS = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)


@pytest.mark.single_backend
@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_page_examples_print_what_the_page_says(block: str) -> None:
    ns: dict[str, object] = {}
    checked = 0
    for code, expected in _cells(block):
        tree = ast.parse(code)
        if expected is None:
            exec(compile(tree, str(PAGE), "exec"), ns)
            continue
        *body, last = tree.body
        assert isinstance(last, ast.Expr), code
        exec(compile(ast.Module(body=body, type_ignores=[]), str(PAGE), "exec"), ns)
        got = eval(compile(ast.Expression(last.value), str(PAGE), "eval"), ns)
        assert repr(got) == expected
        checked += 1
    assert checked


@pytest.mark.single_backend
def test_the_page_has_examples() -> None:
    assert len(BLOCKS) >= 5
