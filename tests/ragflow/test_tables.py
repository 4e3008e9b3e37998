"""table_to_text and chunk_table: one sentence per cell, whole rows per chunk."""

from __future__ import annotations

import doctest
import itertools

import pytest
import ragchunk
from ragchunk import tables
from ragchunk.ragflow.tables import chunk_table, table_to_text

# A financial-report style table: two header rows with merged cells, a caption, a data cell
# spanning two rows and one spanning two columns, entities and a line break in a cell.
REPORT_HTML = """
<table class="fin">
  <caption>Table 4: Revenue by region (USD m)</caption>
  <thead>
    <tr><th rowspan="2">Region</th><th colspan="2">FY2023</th><th colspan="2">FY2024</th></tr>
    <tr><th>H1</th><th>H2</th><th>H1</th><th>H2</th></tr>
  </thead>
  <tbody>
    <tr><td>Europe &amp; Africa</td><td>120.5</td><td>131.0</td><td>140.2</td><td>151.9</td></tr>
    <tr><td>Americas<br/>(incl. Canada)</td><td>98.1</td><td>101.4</td>
        <td colspan="2">restated, see note 7</td></tr>
    <tr><td>Asia&nbsp;Pacific</td><td rowspan="2">77.0</td><td>80.3</td><td>85.0</td>
        <td>90.6</td></tr>
    <tr><td>Other</td><td></td><td>4.1</td><td>4.4</td></tr>
  </tbody>
</table>
"""


# ---------------------------------------------------------------------------------------------
# table_to_text
# ---------------------------------------------------------------------------------------------


def test_html_with_merged_header_cells() -> None:
    assert table_to_text(REPORT_HTML).split("\n") == [
        "Table 4: Revenue by region (USD m)",
        "Row 1, Region: Europe & Africa",
        "Row 1, FY2023 / H1: 120.5",
        "Row 1, FY2023 / H2: 131.0",
        "Row 1, FY2024 / H1: 140.2",
        "Row 1, FY2024 / H2: 151.9",
        "Row 2, Region: Americas (incl. Canada)",
        "Row 2, FY2023 / H1: 98.1",
        "Row 2, FY2023 / H2: 101.4",
        "Row 2, FY2024 / H1, H2: restated, see note 7",
        "Row 3, Region: Asia Pacific",  # &nbsp; is whitespace too
        "Row 3, FY2023 / H1: 77.0",
        "Row 3, FY2023 / H2: 80.3",
        "Row 3, FY2024 / H1: 85.0",
        "Row 3, FY2024 / H2: 90.6",
        "Row 4, Region: Other",
        "Row 4, FY2023 / H1: 77.0",  # the rowspan cell reads in both rows
        "Row 4, FY2024 / H1: 4.1",
        "Row 4, FY2024 / H2: 4.4",
    ]


def test_html_without_header_markup_uses_first_row() -> None:
    html = (
        "<table><tr><td>Name</td><td>Role</td></tr><tr><td>Ada</td><td>Engineer</td></tr></table>"
    )
    assert table_to_text(html) == "Row 1, Name: Ada\nRow 1, Role: Engineer"


def test_html_leading_th_rows_are_header_and_th_row_headers_are_data() -> None:
    html = (
        "<table><tr><th>Metric</th><th>Value</th></tr>"
        "<tr><th>Latency</th><td>12 ms</td></tr></table>"
    )
    assert table_to_text(html) == "Row 1, Metric: Latency\nRow 1, Value: 12 ms"


def test_html_header_argument_renames_columns() -> None:
    no_markup = "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>"
    assert table_to_text(no_markup, header=["X", "Y"]).split("\n") == [
        "Row 1, X: a",
        "Row 1, Y: b",
        "Row 2, X: c",
        "Row 2, Y: d",
    ]
    # Rows marked up as header stay out of the data even when header= renames the columns.
    assert table_to_text(REPORT_HTML, header=["R", "a", "b", "c", "d"]).split("\n")[1:3] == [
        "Row 1, R: Europe & Africa",
        "Row 1, a: 120.5",
    ]


def test_html_nested_table_is_cell_text_and_text_outside_ignored() -> None:
    html = (
        "<p>intro</p><table><tr><th>K</th><th>V</th></tr>"
        "<tr><td>k1</td><td><table><tr><td>x</td><td>y</td></tr></table></td></tr>"
        "</table><p>outro</p>"
    )
    assert table_to_text(html) == "Row 1, K: k1\nRow 1, V: x y"


def test_html_unclosed_cells_and_rows() -> None:
    html = "<table><tr><th>A<th>B<tr><td>1<td>2<tr><td>3<td>4</table>"
    assert table_to_text(html).split("\n") == [
        "Row 1, A: 1",
        "Row 1, B: 2",
        "Row 2, A: 3",
        "Row 2, B: 4",
    ]


def test_html_bad_span_values_count_as_one() -> None:
    html = (
        "<table><tr><th colspan='x'>A</th><th colspan='0'>B</th></tr>"
        "<tr><td>1</td><td>2</td></tr></table>"
    )
    assert table_to_text(html) == "Row 1, A: 1\nRow 1, B: 2"


def test_list_of_dicts() -> None:
    rows = [
        {"Name": "Alice", "Age": 30, "City": "Paris"},
        {"Name": "Bob", "City": None, "Notes": "joined\n2024"},
        {},
        {"Name": "Chen", "Age": 41.5},
    ]
    assert table_to_text(rows).split("\n") == [
        "Row 1, Name: Alice",
        "Row 1, Age: 30",
        "Row 1, City: Paris",
        "Row 2, Name: Bob",
        "Row 2, Notes: joined 2024",
        "Row 4, Name: Chen",  # the empty row keeps its number
        "Row 4, Age: 41.5",
    ]


def test_list_of_dicts_header_orders_and_keeps_extra_keys() -> None:
    rows = [{"b": 1, "a": 2, "z": 3}]
    assert table_to_text(rows, header=["a", "b"]) == "Row 1, a: 2\nRow 1, b: 1\nRow 1, z: 3"


def test_list_of_lists_header_row_ragged_rows() -> None:
    rows = [["Item", "", "Qty"], ["Bolt", "M6", 200, "spare"], ("Nut",)]
    assert table_to_text(rows).split("\n") == [
        "Row 1, Item: Bolt",
        "Row 1, Column 2: M6",
        "Row 1, Qty: 200",
        "Row 1, Column 4: spare",
        "Row 2, Item: Nut",
    ]


def test_list_of_lists_with_header_argument() -> None:
    assert table_to_text([["x", 1]], header=["key", "value"]) == "Row 1, key: x\nRow 1, value: 1"


def test_chinese_table_and_caption() -> None:
    rows = [["城市", "人口（万）", "面积"], ["北京", "2185", "16410 km²"], ["深圳", "1779", None]]
    assert table_to_text(rows, caption="表2：城市数据").split("\n") == [
        "表2：城市数据",
        "Row 1, 城市: 北京",
        "Row 1, 人口（万）: 2185",
        "Row 1, 面积: 16410 km²",
        "Row 2, 城市: 深圳",
        "Row 2, 人口（万）: 1779",
    ]


def test_caption_argument_replaces_html_caption() -> None:
    assert table_to_text(REPORT_HTML, caption="Revenue").split("\n")[0] == "Revenue"


def test_empty_tables() -> None:
    assert table_to_text([]) == ""
    assert table_to_text([["A", "B"]]) == ""
    assert table_to_text("<table></table>") == ""


def test_every_cell_value_appears() -> None:
    rows = [{"id": i, "label": f"item-{i}", "price": f"{i * 1.5:.2f}"} for i in range(50)]
    text = table_to_text(rows)
    for row in rows:
        for value in row.values():
            assert str(value) in text


@pytest.mark.parametrize(
    ("rows", "header", "exc", "message"),
    [
        (42, None, TypeError, "rows must be a list of dicts"),
        (b"<table>", None, TypeError, "rows must be"),
        ([{"a": 1}, 5], None, TypeError, r"rows\[1\] must be a dict like rows\[0\]"),
        ([["a"], "bc"], None, TypeError, r"rows\[1\] must be a list of cells"),
        ("no table here", None, ValueError, "found none"),
        ("<table></table><table></table>", None, ValueError, "2 top-level <table>"),
        ([["a"]], "a,b", TypeError, "header must be a list of str"),
        ([["a"]], ["a", 2], TypeError, r"header\[1\] must be a str"),
    ],
)
def test_table_to_text_errors(rows: object, header: object, exc: type, message: str) -> None:
    with pytest.raises(exc, match=message):
        table_to_text(rows, header)  # type: ignore[arg-type]
    with pytest.raises(exc, match=message):
        chunk_table(rows, 100, header)  # type: ignore[arg-type]


def test_caption_must_be_str() -> None:
    with pytest.raises(TypeError, match="caption must be a str or None"):
        table_to_text([["a"], ["b"]], caption=3)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# chunk_table
# ---------------------------------------------------------------------------------------------


def _inventory(n: int) -> list[dict[str, object]]:
    return [
        {"SKU": f"A-{i:04d}", "Description": f"Hex bolt M{6 + i % 5} x {20 + i}", "Stock": i * 7}
        for i in range(1, n + 1)
    ]


@pytest.mark.parametrize("budget", [40, 64, 128, 512])
def test_chunk_table_rows_whole_header_repeated_within_budget(budget: int) -> None:
    rows = _inventory(60)
    chunks = chunk_table(rows, budget)
    lines = table_to_text(rows).split("\n")
    seen: list[str] = []
    for chunk in chunks:
        head, *body = chunk.split("\n")
        assert head == "Columns: SKU | Description | Stock"
        numbers = {line.split(",")[0] for line in body}
        # within budget, unless a single row does not fit even alone
        assert ragchunk.count_tokens(chunk) <= budget or len(numbers) == 1
        # whole rows: each row's three lines are in this chunk
        assert len(body) == 3 * len(numbers)
        seen += body
    assert seen == lines  # every row once, in order, nothing lost or repeated


def test_chunk_table_fills_chunks_greedily() -> None:
    rows = _inventory(60)
    chunks = chunk_table(rows, 128)
    for chunk, following in itertools.pairwise(chunks):
        next_row = "\n".join(following.split("\n")[1:4])
        assert ragchunk.count_tokens(chunk + "\n" + next_row) > 128


def test_chunk_table_oversized_row_stands_alone() -> None:
    rows = [
        {"k": "a", "v": "short"},
        {"k": "b", "v": "long " * 80},
        {"k": "c", "v": "short"},
    ]
    chunks = chunk_table(rows, 30)
    assert len(chunks) == 3
    assert chunks[1].startswith("Columns: k | v\nRow 2, k: b\nRow 2, v: long long")
    assert ragchunk.count_tokens(chunks[1]) > 30
    assert ragchunk.count_tokens(chunks[0]) <= 30


def test_chunk_table_html_caption_in_every_chunk() -> None:
    chunks = chunk_table(REPORT_HTML, 200)
    assert len(chunks) == 2
    assert "Row 2, FY2024 / H1, H2: restated, see note 7" in chunks[0]
    assert chunks[1].split("\n")[2] == "Row 3, Region: Asia Pacific"
    for chunk in chunks:
        assert chunk.startswith(
            "Table 4: Revenue by region (USD m)\n"
            "Columns: Region | FY2023 / H1 | FY2023 / H2 | FY2024 / H1 | FY2024 / H2\n"
        )
        assert ragchunk.count_tokens(chunk) <= 200


def test_chunk_table_chinese_and_custom_tokenizer() -> None:
    rows = [["产品", "销量"]] + [[f"产品{i}号", str(i * 10)] for i in range(1, 21)]
    words = chunk_table(rows, 20, tokenizer=lambda s: len(s.split()))
    for chunk in words:
        assert len(chunk.split()) <= 20 or chunk.count("\n") == 3
    chars = chunk_table(rows, 60, tokenizer=len)
    assert all(len(c) <= 60 for c in chars)
    assert "\n".join(c.split("\n", 1)[1] for c in chars) == table_to_text(rows)


def test_chunk_table_empty() -> None:
    assert chunk_table([]) == []
    assert chunk_table([{"a": None}]) == []


@pytest.mark.parametrize(
    ("kwargs", "exc", "message"),
    [
        ({"chunk_token_size": 0}, ValueError, "chunk_token_size must be > 0"),
        ({"chunk_token_size": -5}, ValueError, "chunk_token_size must be > 0"),
        ({"chunk_token_size": 12.5}, TypeError, "chunk_token_size must be an int"),
        ({"chunk_token_size": True}, TypeError, "chunk_token_size must be an int"),
        ({"tokenizer": "gpt2"}, ValueError, "tokenizer"),
        ({"tokenizer": 3}, TypeError, "tokenizer"),
    ],
)
def test_chunk_table_argument_errors(kwargs: dict, exc: type, message: str) -> None:
    with pytest.raises(exc, match=message):
        chunk_table([["a"], ["b"]], **kwargs)


def test_docstring_examples() -> None:
    result = doctest.testmod(tables, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, result
