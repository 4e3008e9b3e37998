"""ragchunk.documents.parse: every format into sections, formats detected, arguments checked."""

from __future__ import annotations

import doctest
import inspect
import io
import json

import pytest
from docfiles import sample_docx, sample_xlsx
from ragchunk import HTMLSplitter
from ragchunk.documents import (
    Document,
    Section,
    detect_format,
    parse,
)

# Parsing is backend-independent (the block scanners are the same in both backends); the
# chunker tests in test_chunk.py run on both.
pytestmark = pytest.mark.single_backend


def kinds(doc: Document) -> list[tuple[str, str]]:
    return [(s.kind, s.text) for s in doc.sections]


@pytest.fixture(scope="module")
def doc() -> Document:
    return parse(sample_docx(), filename="guide.docx")


class TestDocx:
    def test_reading_order_and_kinds(self, doc: Document) -> None:
        assert [s.kind for s in doc.sections] == [
            "header",
            "title",
            "text",
            "title",
            "list",
            "list",
            "list",
            "code",
            "title",
            "caption",
            "table",
            "figure",
            "caption",
            "title",
            "text",
            "footer",
        ]
        assert doc.format == "docx" and doc.filename == "guide.docx"

    def test_heading_levels_follow_styles_and_their_bases(self, doc: Document) -> None:
        titles = [(s.level, s.text) for s in doc.sections if s.kind == "title"]
        # "Title" is level 1; "Chapter Heading" is based on "Heading 2".
        assert titles == [(1, "Field guide"), (1, "Install"), (2, "Usage"), (3, "Deep detail")]
        assert doc.metadata["outline"] == titles

    def test_lists_from_styles_and_numbering(self, doc: Document) -> None:
        items = [s for s in doc.sections if s.kind == "list"]
        assert [s.text for s in items] == ["First bullet", "Second bullet", "Numbered by hand"]
        assert items[2].metadata["list_level"] == 1

    def test_code_style_and_monospace_runs_make_one_code_section(self, doc: Document) -> None:
        (code,) = [s for s in doc.sections if s.kind == "code"]
        assert code.text == "pip install thing\nthing --help\nprint('mono')"

    def test_merged_cells_appear_once(self, doc: Document) -> None:
        (table,) = [s for s in doc.sections if s.kind == "table"]
        assert table.rows == [
            ["Options"],
            ["Name", "Default", "Meaning"],
            ["depth", "3", "how deep"],
            ["width", "", "how wide"],
        ]
        assert table.text == "\n".join(" | ".join(r) for r in table.rows)

    def test_headers_and_footers_stay_out_of_the_body(self, doc: Document) -> None:
        assert doc.sections[0].text == "Field guide (running header)"
        assert doc.sections[-1].text == "Confidential footer"
        assert "running header" not in doc.text and "footer" not in doc.text
        assert "running header" not in doc.markdown()

    def test_metadata(self, doc: Document) -> None:
        assert doc.metadata["title"] == "Field guide"
        assert doc.metadata["author"] == "A. Writer"
        assert doc.metadata["page_count"] is None and doc.pages == []
        assert all(s.page is None and s.bbox is None for s in doc.sections)

    def test_markdown_view(self, doc: Document) -> None:
        md = doc.markdown()
        assert md.startswith("# Field guide\n\nAn opening paragraph.\n\n# Install\n\n")
        assert "- First bullet\n- Second bullet\n- Numbered by hand" in md
        assert "```\npip install thing\nthing --help\nprint('mono')\n```" in md
        assert "| Name | Default | Meaning |" in md and "### Deep detail" in md

    def test_content_controls_are_read_through(self) -> None:
        from docfiles import rezip

        data = sample_docx()
        import zipfile

        xml = zipfile.ZipFile(io.BytesIO(data)).read("word/document.xml").decode()
        sdt = (
            "<w:sdt><w:sdtContent><w:p><w:r><w:t>Inside a control</w:t></w:r></w:p>"
            "</w:sdtContent></w:sdt>"
        )
        xml = xml.replace("<w:sectPr", sdt + "<w:sectPr", 1)
        doc = parse(rezip(data, {"word/document.xml": xml.encode()}), format="docx")
        assert ("text", "Inside a control") in kinds(doc)


def test_docx_oracle_scores_at_the_targets() -> None:
    """The shared documents oracle, scored by the shared scorer (imported in place)."""
    import importlib.util

    from testdata import SHARED, require_shared

    golden = require_shared(SHARED / "golden" / "documents")
    scorer = require_shared(SHARED / "eval" / "documents" / "docs_score.py")
    spec = importlib.util.spec_from_file_location("docs_score", scorer)
    assert spec is not None and spec.loader is not None
    ds = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ds)
    truths = ds.load_truths(str(golden), "docx")
    assert len(truths) >= 15
    results = [
        ds.score_document(t, [s.to_dict() for s in parse(path).sections], None)
        for t, path in truths
    ]
    agg = ds.aggregate(results)
    assert agg["text_f1"] >= 0.995, agg
    assert agg["heading_f1"] >= 0.98 and agg["heading_levels"] >= 0.98, agg
    assert agg["cell_f1"] >= 0.98, agg
    assert agg["leak"] <= 0.01 and agg["order"] >= 0.98 and agg["kind_acc"] >= 0.9, agg


class TestSheets:
    def test_xlsx_one_table_per_sheet(self) -> None:
        doc = parse(sample_xlsx(), filename="stock.xlsx")
        assert [(s.kind, s.metadata["sheet"], s.rows) for s in doc.sections] == [
            (
                "table",
                "Sheet1",
                [["name", "qty", "when"], ["bolt", "3", "2024-05-01"], ["nut", "2"], ["washer"]],
            ),
            ("table", "prices", [["item", "price"], ["bolt", "0.25"]]),
        ]
        assert doc.metadata["sheets"] == ["Sheet1", "prices"]

    def test_xlsx_rows_as_sentences(self) -> None:
        doc = parse(sample_xlsx(), filename="stock.xlsx", rows_as_sentences=True)
        assert [s.text for s in doc.sections] == [
            "name：bolt; qty：3; when：2024-05-01",
            "name：nut; qty：2",
            "name：washer",
            "item：bolt; price：0.25 ——prices",
        ]

    def test_csv_dialect_is_sniffed(self) -> None:
        doc = parse(b"a;b;c\n1;2;3\n\n4;;6\n", filename="x.csv")
        assert doc.sections[0].rows == [["a", "b", "c"], ["1", "2", "3"], ["4", "", "6"]]
        doc = parse("名前,値\nりんご,3\n".encode(), format="csv", rows_as_sentences=True)
        assert [s.text for s in doc.sections] == ["名前：りんご; 値：3"]


class TestMarkup:
    HTML = (
        "<html><head><title>The  page</title><style>p{}</style></head><body>"
        "<h1>Top</h1><p>One <b>bold</b>\n word.</p><h3>Sub</h3>"
        "<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>"
        "<ul><li>x</li><li>y</li></ul><pre>  keep\n   this</pre></body></html>"
    )

    def test_html_blocks(self) -> None:
        doc = parse(self.HTML.encode(), filename="p.html")
        # The <title> is laid out as text, as HTMLSplitter lays it out; it is the metadata too.
        assert kinds(doc) == [
            ("text", "The page"),
            ("title", "Top"),
            ("text", "One bold word."),
            ("title", "Sub"),
            ("table", "k | v\na | 1"),
            ("text", "x"),
            ("text", "y"),
            ("text", "keep\n   this"),
        ]
        assert [s.level for s in doc.sections][1:4] == [1, None, 3]
        assert doc.sections[4].rows == [["k", "v"], ["a", "1"]]
        assert doc.metadata["title"] == "The page"

    def test_html_text_is_the_splitters_layout(self) -> None:
        html = "<h2>A</h2><p>b  c</p><div>d<br>e</div><script>x()</script><p>f</p>"
        doc = parse(html.encode(), format="html")
        assert doc.text == HTMLSplitter(chunk_size=64).extract_text(html)

    def test_markdown_blocks(self) -> None:
        md = (
            "---\ntitle: x\n---\n# Guide\n\nIntro *text*.\n\n## Install\n\n"
            "```bash\npip install it\n```\n\n"
            "| a | b |\n|---|---|\n| 1 | 2 \\| 3 |\n\n"
            "- one\n- two\n  continued\n1. three\n\n> quoted\n> more\n\n    indented code\n"
        )
        doc = parse(md.encode(), filename="g.md")
        assert kinds(doc) == [
            ("title", "Guide"),
            ("text", "Intro *text*."),
            ("title", "Install"),
            ("code", "pip install it"),
            ("table", "a | b\n1 | 2 | 3"),
            ("list", "one"),
            ("list", "two\ncontinued"),
            ("list", "three"),
            ("text", "quoted\nmore"),
            ("code", "indented code"),
        ]
        assert doc.sections[3].metadata == {"language": "bash"}
        assert doc.sections[4].rows == [["a", "b"], ["1", "2 | 3"]]
        assert doc.metadata["front_matter"] == "title: x"
        assert doc.metadata["title"] == "Guide"


class TestPlain:
    def test_text_paragraphs(self) -> None:
        doc = parse(b"First para\nsame para.\n\n\n  Second.\n", filename="a.txt")
        assert kinds(doc) == [("text", "First para\nsame para."), ("text", "Second.")]

    def test_code_file_has_its_language(self) -> None:
        doc = parse(b"def f():\n    return 1\n", filename="m.py")
        assert doc.format == "code"
        assert kinds(doc) == [("code", "def f():\n    return 1")]
        assert doc.sections[0].metadata == {"language": "python"}

    def test_json_array_and_object(self) -> None:
        doc = parse(json.dumps([{"a": 1}, "b"]).encode(), filename="x.json")
        assert [(s.text, s.metadata["json_path"]) for s in doc.sections] == [
            ('{"a": 1}', "[0]"),
            ('"b"', "[1]"),
        ]
        doc = parse('{"k": {"z": "é"}, "n": 2}'.encode())
        assert [s.text for s in doc.sections] == ['{"k": {"z": "é"}}', '{"n": 2}']

    def test_jsonl_lines(self) -> None:
        doc = parse(b'{"a": 1}\n\n{"b": 2}\n', filename="x.jsonl")
        assert [(s.text, s.metadata["line"]) for s in doc.sections] == [
            ('{"a": 1}', 1),
            ('{"b": 2}', 3),
        ]

    def test_encodings(self) -> None:
        assert parse("ça va".encode("utf-16"), format="text").text == "ça va"
        assert parse(b"\xef\xbb\xbfbom", format="text").text == "bom"
        assert parse("中文".encode("gb18030"), format="text").text == "中文"


class TestSources:
    def test_path_bytes_and_file_object(self, tmp_path: object) -> None:
        from pathlib import Path

        path = Path(str(tmp_path)) / "guide.docx"
        data = sample_docx()
        path.write_bytes(data)
        by_path = parse(path)
        by_str = parse(str(path))
        by_bytes = parse(data)
        with open(path, "rb") as f:
            by_file = parse(f)
        assert by_path.sections == by_str.sections == by_bytes.sections == by_file.sections
        assert by_path.filename == str(path) and by_file.filename == str(path)
        assert by_bytes.filename is None and by_bytes.format == "docx"

    @pytest.mark.parametrize(
        ("data", "name", "fmt"),
        [
            (b"%PDF-1.4\n", None, "pdf"),
            (b"<!DOCTYPE html><p>x</p>", None, "html"),
            (b'{"a": 1}\n{"b": 2}\n', None, "jsonl"),
            (b"[1, 2]", None, "json"),
            (b"hello", None, "text"),
            (b"hello", "x.md", "markdown"),
            (b"x", "x.TSV", "csv"),
            (b"x", "x.rs", "code"),
        ],
    )
    def test_detect_format(self, data: bytes, name: str | None, fmt: str) -> None:
        assert detect_format(data, name) == fmt

    def test_zip_parts_decide(self) -> None:
        assert detect_format(sample_docx()) == "docx"
        assert detect_format(sample_xlsx()) == "xlsx"
        assert detect_format(sample_xlsx(), "renamed.bin") == "xlsx"

    def test_explicit_format_wins(self) -> None:
        assert parse(b"# not a heading", filename="a.md", format="text").sections[0].kind == "text"


class TestArguments:
    def test_source_type(self) -> None:
        with pytest.raises(TypeError, match="source"):
            parse(12)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="binary file object"):
            parse(io.StringIO("text"))

    def test_missing_path(self, tmp_path: object) -> None:
        with pytest.raises(FileNotFoundError, match="source"):
            parse(f"{tmp_path}/nope.docx")

    def test_bad_options(self) -> None:
        with pytest.raises(ValueError, match="format must be one of"):
            parse(b"x", format="rtf")
        with pytest.raises(TypeError, match="format"):
            parse(b"x", format=3)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="pages applies to paged formats"):
            parse(b"x", format="text", pages=[1])
        with pytest.raises(TypeError, match=r"pages\[0\]"):
            parse(b"%PDF-1.4", pages=["1"])  # type: ignore[list-item]
        with pytest.raises(ValueError, match=r"pages\[1\] must be >= 1"):
            parse(b"%PDF-1.4", pages=[1, 0])
        with pytest.raises(TypeError, match="password"):
            parse(b"x", password=b"pw")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="filename"):
            parse(b"x", filename=1)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="rows_as_sentences"):
            parse(b"a,b", format="csv", rows_as_sentences=1)  # type: ignore[arg-type]

    def test_section_checks(self) -> None:
        with pytest.raises(ValueError, match="kind must be one of"):
            Section("paragraph", "x")
        with pytest.raises(ValueError, match="level"):
            Section("text", "x", level=2)
        with pytest.raises(TypeError, match="text"):
            Section("text", None)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"sections\[0\]"):
            Document(["x"])  # type: ignore[list-item]


def test_doctests_and_examples_on_every_public_name() -> None:
    import ragchunk.documents as documents
    from ragchunk.documents import _chunk, _markup, _model, _parse, _safety, _sheets

    for module in (documents, _chunk, _markup, _model, _parse, _safety, _sheets):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, (module.__name__, result)
    for name in documents.__all__:
        obj = getattr(documents, name)
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        docs = [inspect.getdoc(obj) or ""]
        if inspect.isclass(obj):
            docs += [inspect.getdoc(m) or "" for _, m in inspect.getmembers(obj)]
        assert any(doctest.DocTestParser().get_examples(d) for d in docs), name
