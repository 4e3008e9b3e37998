"""Bad and hostile files: clear DocumentErrors naming the file, never a dependency's exception,
zip bombs and entity expansion refused within the fixed limits."""

from __future__ import annotations

import io
import random
import re
import time
import zipfile
from importlib import resources

import pytest
import ragchunk
from docfiles import BILLION_LAUGHS, rezip, sample_docx, sample_xlsx
from ragchunk.documents import LIMITS, Document, DocumentError, parse

pytestmark = pytest.mark.single_backend

_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def test_document_error_is_a_ragchunk_error_and_a_value_error() -> None:
    with pytest.raises(DocumentError) as info:
        parse(b"PK\x03\x04 definitely not a zip", filename="broken.docx")
    assert isinstance(info.value, ragchunk.RagchunkError)
    assert isinstance(info.value, ValueError)
    assert info.value.filename == "broken.docx"
    assert str(info.value).startswith("broken.docx: ")


@pytest.mark.parametrize("cut", [0.1, 0.5, 0.9, 0.999])
def test_truncated_docx_and_xlsx(cut: float) -> None:
    for data, name in ((sample_docx(), "t.docx"), (sample_xlsx(), "t.xlsx")):
        with pytest.raises(DocumentError, match=rf"^{name}: not a readable"):
            parse(data[: int(len(data) * cut)], filename=name)


def test_corrupt_xml_part() -> None:
    bad = rezip(sample_docx(), {"word/document.xml": b"<w:document><unclosed>"})
    with pytest.raises(DocumentError, match=r"^c\.docx: not a readable DOCX file"):
        parse(bad, filename="c.docx")
    bad = rezip(sample_xlsx(), {"xl/worksheets/sheet1.xml": b"<worksheet><sheetData><row>"})
    with pytest.raises(DocumentError, match=r"^c\.xlsx: not a readable XLSX file"):
        parse(bad, filename="c.xlsx")


def test_a_missing_part() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("word/document.xml", b"<x/>")
    with pytest.raises(DocumentError, match=r"^m\.docx: "):
        parse(buf.getvalue(), filename="m.docx")


def test_a_plain_zip_is_refused() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("notes.txt", b"hello")
    with pytest.raises(DocumentError, match="neither a DOCX nor an XLSX"):
        parse(buf.getvalue(), filename="a.zip")


def test_billion_laughs_is_refused_before_parsing() -> None:
    bad = rezip(sample_docx(), {"word/document.xml": BILLION_LAUGHS})
    t0 = time.perf_counter()
    with pytest.raises(DocumentError, match=r"^lol\.docx: refused: .*declares a DTD"):
        parse(bad, filename="lol.docx")
    assert time.perf_counter() - t0 < 5
    bad = rezip(sample_xlsx(), {"xl/workbook.xml": BILLION_LAUGHS})
    with pytest.raises(DocumentError, match="declares a DTD"):
        parse(bad, filename="lol.xlsx")


def test_external_entities_are_refused() -> None:
    xxe = (
        b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        b"<w:body><w:p><w:r><w:t>&x;</w:t></w:r></w:p></w:body></w:document>"
    )
    with pytest.raises(DocumentError, match="declares a DTD"):
        parse(rezip(sample_docx(), {"word/document.xml": xxe}), filename="x.docx")


def test_a_dtd_in_utf16_is_refused_too() -> None:
    xml = '<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE a [<!ENTITY b "c">]><a/>'
    bad = rezip(sample_docx(), {"word/styles.xml": xml.encode("utf-16-le")})
    with pytest.raises(DocumentError, match="declares a DTD"):
        parse(bad, filename="u.docx")


def test_zip_bomb_by_ratio() -> None:
    # 16 MiB of zeros deflate to ~16 KiB: a ratio of about 1000, past the limit of 200.
    bomb = rezip(sample_docx(), {"word/media/filler.bin": bytes(16 * 1024 * 1024)})
    assert len(bomb) < 200_000
    with pytest.raises(DocumentError, match=r"^bomb\.docx: refused: .*ratio limit"):
        parse(bomb, filename="bomb.docx")


def test_zip_bomb_by_size(monkeypatch: pytest.MonkeyPatch) -> None:
    # The limits are fixed; lowered here so the test stays small.
    monkeypatch.setitem(LIMITS, "max_member", 4000)
    with pytest.raises(DocumentError, match=r"inflates to .* bytes \(limit 4000\)"):
        parse(sample_docx(), filename="big.docx")
    monkeypatch.setitem(LIMITS, "max_member", 256 * 1024 * 1024)
    monkeypatch.setitem(LIMITS, "max_uncompressed", 10_000)
    with pytest.raises(DocumentError, match="more than 10000 bytes"):
        parse(sample_docx(), filename="big.docx")
    monkeypatch.setitem(LIMITS, "max_uncompressed", 512 * 1024 * 1024)
    monkeypatch.setitem(LIMITS, "max_members", 3)
    with pytest.raises(DocumentError, match=r"members \(limit 3\)"):
        parse(sample_xlsx(), filename="many.xlsx")


def test_encrypted_office_file_names_password() -> None:
    encrypted = _OLE + bytes(504) + "EncryptionInfo".encode("utf-16-le") + bytes(64)
    with pytest.raises(DocumentError, match=r"^secret\.docx: the file is encrypted.*password="):
        parse(encrypted, filename="secret.docx")
    with pytest.raises(DocumentError, match="decrypting password-protected Office files"):
        parse(encrypted, filename="secret.docx", password="pw")
    with pytest.raises(DocumentError, match="encrypted"):
        parse(encrypted)  # found by its signature


def test_legacy_binary_office_file() -> None:
    with pytest.raises(DocumentError, match=r"^old\.doc: a legacy binary Office file"):
        parse(_OLE + bytes(1024), filename="old.doc")


def test_bad_json() -> None:
    with pytest.raises(DocumentError, match=r"^d\.json: not a readable JSON file"):
        parse(b'{"a": ', filename="d.json")
    with pytest.raises(DocumentError, match=r"^d\.jsonl: .*line 2"):
        parse(b'{"a": 1}\n{oops}\n', filename="d.jsonl")
    t0 = time.perf_counter()
    with pytest.raises(DocumentError, match=r"^d\.json: "):
        parse(b"[" * 200_000 + b"]" * 200_000, filename="d.json")
    assert time.perf_counter() - t0 < 5


def test_csv_field_past_the_csv_modules_limit() -> None:
    with pytest.raises(DocumentError, match=r"^big\.csv: not a readable CSV file"):
        parse(b'a\n"' + b"x" * 200_000 + b'"\n', filename="big.csv")


def test_a_million_characters_parse_in_linear_time() -> None:
    line = "word " * 20 + "\n"
    text = (line * (1_000_000 // len(line))).encode()
    t0 = time.perf_counter()
    doc = parse(text, format="text")
    one = time.perf_counter() - t0
    assert len(doc.text) > 990_000
    t0 = time.perf_counter()
    parse(text[: len(text) // 4], format="text")
    quarter = time.perf_counter() - t0
    assert one < 5 and one < 10 * quarter + 0.5


def _mutations(data: bytes, seed: int, n: int) -> list[bytes]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        b = bytearray(data)
        if rng.random() < 0.4:
            del b[rng.randrange(1, len(b)) :]
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        out.append(bytes(b))
    return out


@pytest.mark.parametrize("fmt", ["pdf", "docx", "xlsx", "csv", "html", "markdown", "json", "jsonl"])
def test_fuzzed_files_parse_or_fail_clearly(fmt: str) -> None:
    seeds = {
        "pdf": (resources.files("ragchunk") / "data" / "sample.pdf").read_bytes(),
        "docx": sample_docx(),
        "xlsx": sample_xlsx(),
        "csv": b"a,b\n1,2\n",
        "html": b"<h1>x</h1><table><tr><td>a</td></tr></table><p>y</p>",
        "markdown": b"# x\n\n- a\n- b\n\n```py\nz\n```\n| a |\n|---|\n| 1 |\n",
        "json": b'{"a": [1, 2, {"b": "c"}]}',
        "jsonl": b'{"a": 1}\n{"b": 2}\n',
    }
    for data in _mutations(seeds[fmt], seed=len(fmt), n=40):
        try:
            doc = parse(data, format=fmt, filename=f"fuzz.{fmt}", ocr=False)
        except DocumentError as e:
            # the file's name, and the page where one page is the damaged part
            assert re.match(rf"fuzz\.{fmt}(, page \d+)?: ", str(e)), str(e)
            continue
        assert isinstance(doc, Document)
        doc.markdown()
        doc.pipeline_upstream()
        doc.ragflow_sections()


@pytest.mark.parametrize(
    ("fmt", "part"), [("docx", "word/document.xml"), ("xlsx", "xl/worksheets/sheet1.xml")]
)
def test_fuzzed_xml_parts_parse_or_fail_clearly(fmt: str, part: str) -> None:
    # Mutating inside the package keeps the zip valid, so the XML parsers see the damage.
    data = sample_docx() if fmt == "docx" else sample_xlsx()
    xml = zipfile.ZipFile(io.BytesIO(data)).read(part)
    for mutated in _mutations(xml, seed=11, n=40):
        try:
            parse(rezip(data, {part: mutated}), format=fmt, filename=f"fuzz.{fmt}")
        except DocumentError as e:
            assert str(e).startswith(f"fuzz.{fmt}: ")
