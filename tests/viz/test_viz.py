"""The viewer's data and outputs without a browser: argument checks, the page's escaping and
offsets, the overlay, the terminal view (also in a pty) and ``ragchunk view``."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest
from ragchunk import Chunk, MarkdownSplitter, RecursiveSplitter, SplitterComponent
from ragchunk.cli import main
from ragchunk.eval import Dataset, Question, Reference
from ragchunk.viz import View, print_chunks, render
from ragchunk.viz._model import Utf16, build_columns

TEXT = "# Head\n\nFirst paragraph here.\n\n## Sub\n\nSecond 😀 paragraph, longer than the first.\n"


def page_data(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="ragchunk-data">(.*?)</script>', page, re.S)
    assert m is not None
    return json.loads(m.group(1))


def test_columns_accept_chunkers_chunk_lists_and_mappings() -> None:
    chunks = RecursiveSplitter(8).split(TEXT)
    cols = build_columns(TEXT, [RecursiveSplitter(8), chunks, RecursiveSplitter(8)])
    assert [c.name for c in cols] == [
        "RecursiveSplitter(chunk_size=8)",
        "chunks chunkers[1]",
        "RecursiveSplitter(chunk_size=8) #2",
    ]
    assert cols[0].chunks == chunks and cols[0].budget == 8 and cols[1].budget is None
    assert [c.name for c in build_columns(TEXT, {"a": chunks})] == ["a"]
    assert build_columns(TEXT, chunks)[0].chunks == chunks


@pytest.mark.parametrize(
    ("chunkers", "error", "message"),
    [
        ([], ValueError, "at least one"),
        ([RecursiveSplitter(8)] * 5, ValueError, "at most 4"),
        ("text", TypeError, "chunkers must be a chunker or a list of Chunk, got str"),
        (SplitterComponent(), TypeError, "gives no offsets"),
        ([[Chunk("x", 0, 500, 1)]], ValueError, r"chunkers\[0\]\[0\]: span \[0, 500\)"),
        ({"m": [Chunk("x", 0, 1, True)]}, TypeError, "token_count must be an int"),
        ([["not a chunk"]], TypeError, r"chunkers\[0\]\[0\] must be a Chunk"),
    ],
)
def test_bad_chunkers_are_named(chunkers: object, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        render(TEXT, chunkers)


def test_bad_source_title_and_questions_are_named() -> None:
    with pytest.raises(TypeError, match="source must be a str"):
        render(b"x", RecursiveSplitter(8))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="title must be a str"):
        render(TEXT, RecursiveSplitter(8), title=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"questions\[0\] references\[0\]"):
        render(
            TEXT, RecursiveSplitter(8), questions=[Question("q?", "d", (Reference(0, 3, "zz"),))]
        )
    with pytest.raises(TypeError, match="questions must be a Dataset"):
        render(TEXT, RecursiveSplitter(8), questions="q")
    other = Dataset({"d": "other text"}, [Question("q?", "d", (Reference(0, 5, "other"),))])
    with pytest.raises(ValueError, match="no corpus of the dataset is the source"):
        render(TEXT, RecursiveSplitter(8), questions=other)
    with pytest.raises(ValueError, match="k must be"):
        render(TEXT, RecursiveSplitter(8), questions=[], k=0)


def test_the_page_carries_utf16_and_code_point_offsets() -> None:
    chunks = RecursiveSplitter(8).split(TEXT)
    data = page_data(render(TEXT, RecursiveSplitter(8)))
    assert data["text"] == TEXT
    to16 = Utf16(TEXT)
    emoji = TEXT.index("😀")
    assert to16(emoji) == emoji and to16(emoji + 1) == emoji + 2
    rows = data["columns"][0]["chunks"]
    assert rows == [[to16(c.start), to16(c.end), c.start, c.end, c.token_count] for c in chunks]
    # the JavaScript slice by UTF-16 offsets is the Python slice by code points
    encoded = TEXT.encode("utf-16-le")
    for (s16, e16, s, e, _), c in zip(rows, chunks, strict=True):
        assert encoded[2 * s16 : 2 * e16].decode("utf-16-le") == TEXT[s:e] == c.text


def test_markup_never_reaches_the_page_unescaped() -> None:
    hostile = "</script><script>alert(1)</script> <img onerror=x> \u2028 & \ud800 lone"
    page = render(
        hostile, {"</script>": [Chunk(hostile, 0, len(hostile), 1, {"<b>": "</x>"})]}, title="<t>"
    )
    body = page.split('id="ragchunk-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in body and ">" not in body and "&" not in body and "\u2028" not in body
    data = json.loads(body)
    assert data["text"] == hostile and data["columns"][0]["meta"][0] == {"<b>": "</x>"}
    assert "<title>&lt;t&gt;</title>" in page and '<h2 class="name">&lt;/script&gt;</h2>' in page
    page.encode("utf-8")  # the lone surrogate travels as an escape
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert not re.search(r"(src|href)=\"(https?:)?//", page)


def test_the_page_flags_budget_and_draws_a_histogram() -> None:
    page = render(TEXT, RecursiveSplitter(4))
    over = [c for c in RecursiveSplitter(4).split(TEXT) if c.token_count > 4]
    assert f'<span class="overcount{" some" if over else ""}">{len(over)} over</span>' in page
    assert page.count('<rect class="bar') == 16 and 'class="budget"' in page


def test_the_overlay_ranks_and_recall() -> None:
    text = "Apples are red. Bananas are yellow. Cherries are dark red."
    ref = Reference(16, 35, text[16:35])
    ds = Dataset(
        {"fruit": text, "other": "x"},
        [
            Question("Which fruit is yellow?", "fruit", (ref,)),
            Question("x?", "other", (Reference(0, 1, "x"),)),
        ],
    )
    view = View(text, [RecursiveSplitter(6), RecursiveSplitter(100)], questions=ds, k=2)
    assert view.overlay is not None and [q.id for q in view.overlay.questions] == ["q0"]
    q = view.overlay.questions[0]
    small = RecursiveSplitter(6).split(text)
    assert q.retrieved[0][0] == next(i for i, c in enumerate(small) if "Bananas" in c.text)
    assert q.recall == [
        pytest.approx(
            sum(max(0, min(small[i].end, 35) - max(small[i].start, 16)) for i in q.retrieved[0])
            / 19
        ),
        1.0,
    ]
    data = page_data(view.html())
    assert data["overlay"]["questions"][0]["retrieved"] == q.retrieved
    assert data["overlay"]["retriever"] == "bm25"


def test_repr_html_is_a_sandboxed_frame() -> None:
    frame = View(TEXT, RecursiveSplitter(8))._repr_html_()
    assert frame.startswith("<iframe srcdoc=") and 'sandbox="allow-scripts"' in frame
    assert "<script" not in frame  # all of it escaped inside the attribute


def test_print_chunks_plain_markers_frame_the_source(capsys: pytest.CaptureFixture[str]) -> None:
    chunker = RecursiveSplitter(10, chunk_overlap=4)
    print_chunks(TEXT, chunker)  # captured output is not a terminal: plain markers
    out = capsys.readouterr().out
    head, body = out.split("\n", 1)
    chunks = chunker.split(TEXT)
    assert head.startswith(
        f"== RecursiveSplitter(chunk_size=10, chunk_overlap=4): {len(chunks)} chunks"
    )
    assert "\x1b[" not in out
    assert re.sub(r"\[\d+>|<\d+\]", "", body) == TEXT + "\n"
    for k, c in enumerate(chunks):
        m = re.search(rf"\[{k}>(.*?)<{k}\]", body, re.S)
        assert m and re.sub(r"\[\d+>|<\d+\]", "", m.group(1)) == TEXT[c.start : c.end]


def test_print_chunks_colours_when_asked() -> None:
    import io

    out = io.StringIO()
    print_chunks(TEXT, MarkdownSplitter(8), file=out, color=True)
    text = out.getvalue()
    assert "\x1b[" in text
    body = re.sub(r"\x1b\[[0-9;]*m", "", text).split("\n", 1)[1]
    assert re.sub(r"\d+\u25b8", "", body) == TEXT + "\n"


def run_in_pty(args: list[str]) -> str:
    master, slave = pty.openpty()
    env = dict(os.environ, COLUMNS="200", TERM="xterm-256color")
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragchunk", *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        close_fds=True,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.wait(timeout=60) == 0
    return b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


@pytest.mark.single_backend
def test_ragchunk_view_terminal_in_a_pty_and_in_a_pipe(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(TEXT, encoding="utf-8")
    coloured = run_in_pty(
        ["view", str(doc), "--terminal", "--chunker", "markdown", "--chunk-size", "8"]
    )
    assert "\x1b[" in coloured
    plain = re.sub(r"\x1b\[[0-9;]*m", "", coloured)
    assert re.sub(r"\d+\u25b8", "", plain.split("\n", 1)[1]) == TEXT + "\n"
    piped = subprocess.run(
        [
            sys.executable,
            "-m",
            "ragchunk",
            "view",
            str(doc),
            "--terminal",
            "--chunker",
            "markdown",
            "--chunk-size",
            "8",
        ],
        capture_output=True,
        text=True,
        check=True,
        encoding="utf-8",
    ).stdout
    assert "\x1b[" not in piped and "[0>" in piped
    assert re.sub(r"\[\d+>|<\d+\]", "", piped.split("\n", 1)[1]) == TEXT + "\n"


def test_ragchunk_view_writes_the_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(TEXT, encoding="utf-8")
    out = tmp_path / "v.html"
    assert (
        main(
            [
                "view",
                str(doc),
                "--chunk-size",
                "20",
                "--chunker",
                "markdown",
                "--chunker",
                "token",
                "-o",
                "chunk_overlap=2",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    data = page_data(out.read_text(encoding="utf-8"))
    names = [c["name"] for c in data["columns"]]
    assert names == [
        "MarkdownSplitter(chunk_size=20)",
        "TokenWindowSplitter(chunk_size=20, chunk_overlap=2)",
    ]
    assert "wrote" in capsys.readouterr().err
    # without --chunker, the options are the one recursive column's
    for first in ([], ["--chunker", "recursive"]):  # options before --chunker are its own
        assert main(["view", str(doc), "-o", "length=chars", *first, "--out", str(out)]) == 0
        cols = page_data(out.read_text(encoding="utf-8"))["columns"]
        assert [(c["name"], c["unit"]) for c in cols] == [
            ("RecursiveSplitter(chunk_size=512)", "chars")
        ]


def test_ragchunk_view_with_a_dataset(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(TEXT, encoding="utf-8")
    start = TEXT.index("Second")
    ds = Dataset(
        {"doc": TEXT},
        [Question("Which paragraph is longer?", "doc", (Reference(start, start + 6, "Second"),))],
    )
    ds.save_jsonl(tmp_path / "ds.jsonl")
    out = tmp_path / "v.html"
    assert (
        main(
            [
                "view",
                str(doc),
                "--dataset",
                str(tmp_path / "ds.jsonl"),
                "--k",
                "2",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    overlay = page_data(out.read_text(encoding="utf-8"))["overlay"]
    assert overlay["k"] == 2 and overlay["questions"][0]["text"] == "Which paragraph is longer?"
    (tmp_path / "other.md").write_text("other", encoding="utf-8")
    assert main(["view", str(tmp_path / "other.md"), "--dataset", str(tmp_path / "ds.jsonl")]) == 2


def test_ragchunk_view_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(TEXT, encoding="utf-8")
    assert main(["view", str(doc), "--chunker", "nope"]) == 2
    assert "unknown chunker 'nope'" in capsys.readouterr().err
    five = [a for _ in range(5) for a in ("--chunker", "recursive")]
    assert main(["view", str(doc), *five, "--out", str(tmp_path / "x.html")]) == 2
    assert "at most 4" in capsys.readouterr().err
