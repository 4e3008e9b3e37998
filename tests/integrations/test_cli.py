"""The ragchunk command: inputs, formats, per-file errors, progress bar, closed pipes."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import ragchunk
from ragchunk import cli

pytestmark = pytest.mark.single_backend

PYTHONPATH = str(Path(ragchunk.__file__).resolve().parents[1])
DOC_A = "# Alpha\n\nFirst paragraph of the first file. " * 20
DOC_B = "第二个文件。它有中文。\n\nAnd English too."


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = PYTHONPATH + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "ragchunk", *args]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "a.md").write_text(DOC_A, encoding="utf-8")
    (root / "sub" / "b.txt").write_text(DOC_B, encoding="utf-8")
    (root / "skip.bin").write_bytes(b"\x00\x01")
    return root


def _jsonl(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines()]


def test_directory_to_jsonl_matches_the_chunker(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["chunk", str(corpus), "--chunk-size", "32", "-o", "chunk_overlap=4"]) == 0
    rows = _jsonl(capsys.readouterr().out)
    splitter = ragchunk.RecursiveSplitter(32, 4)
    expected = [(str(corpus / "a.md"), c.text, c.start) for c in splitter.split(DOC_A)] + [
        (str(corpus / "sub" / "b.txt"), c.text, c.start) for c in splitter.split(DOC_B)
    ]
    assert [(r["source"], r["text"], r["start"]) for r in rows] == expected
    assert [r["chunk_index"] for r in rows if r["source"].endswith("b.txt")] == list(
        range(len(splitter.split(DOC_B)))
    )


def test_globs_text_format_and_other_chunkers(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pattern = str(corpus / "**" / "*.txt")
    assert (
        cli.main(
            ["chunk", pattern, "--chunker", "character", "--chunk-size", "8", "--format", "text"]
        )
        == 0
    )
    out = capsys.readouterr().out
    texts = ragchunk.CharacterSplitter(8).split_text(DOC_B)
    assert out == "".join(
        f"--- {corpus / 'sub' / 'b.txt'} [{k}] ---\n{t}\n" for k, t in enumerate(texts)
    )


def test_parquet_output(corpus: Path, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "chunks.parquet"
    assert (
        cli.main(
            [
                "chunk",
                str(corpus),
                "--format",
                "parquet",
                "--out",
                str(out),
                "-q",
                "--chunker",
                "sentence",
                "--chunk-size",
                "16",
            ]
        )
        == 0
    )
    table = pq.read_table(out)
    splitter = ragchunk.SentenceSplitter(16)
    assert table.column("text").to_pylist() == splitter.split_text(DOC_A) + splitter.split_text(
        DOC_B
    )
    assert set(table.column("source").to_pylist()) == {
        str(corpus / "a.md"),
        str(corpus / "sub" / "b.txt"),
    }


def test_per_file_errors_do_not_stop_the_run(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = corpus / "bad.md"
    bad.write_bytes(b"\xff\xfe not utf-8")
    missing = corpus / "missing.md"
    code = cli.main(["chunk", str(missing), str(bad), str(corpus / "a.md"), "--chunk-size", "64"])
    captured = capsys.readouterr()
    assert code == 1
    assert "missing.md: no such file" in captured.err
    assert "bad.md" in captured.err
    assert {r["source"] for r in _jsonl(captured.out)} == {str(corpus / "a.md")}

    code = cli.main(["chunk", str(bad), str(corpus / "a.md"), "--fail-fast"])
    captured = capsys.readouterr()
    assert code == 1
    assert captured.out == ""


def test_bad_chunker_and_option_are_usage_errors(
    capsys: pytest.CaptureFixture[str], corpus: Path
) -> None:
    assert cli.main(["chunk", str(corpus), "--chunker", "nope"]) == 2
    assert "unknown chunker 'nope'" in capsys.readouterr().err
    assert cli.main(["chunk", str(corpus), "-o", "bogus=1"]) == 2
    assert "bogus" in capsys.readouterr().err


def test_count(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["count", str(corpus)]) == 0
    lines = capsys.readouterr().out.splitlines()
    na, nb = ragchunk.count_tokens(DOC_A), ragchunk.count_tokens(DOC_B)
    assert lines == [
        f"{na}\t{corpus / 'a.md'}",
        f"{nb}\t{corpus / 'sub' / 'b.txt'}",
        f"{na + nb}\ttotal",
    ]


def test_stdin_and_the_single_file_command() -> None:
    run = subprocess.run(
        _cmd("chunk", "-", "--chunker", "token-window", "--chunk-size", "4"),
        input=DOC_B,
        capture_output=True,
        text=True,
        env=_env(),
        timeout=60,
        check=True,
    )
    rows = _jsonl(run.stdout)
    assert [r["text"] for r in rows] == ragchunk.TokenWindowSplitter(4).split_text(DOC_B)
    assert {r["source"] for r in rows} == {"<stdin>"}
    assert run.stderr == ""  # not a terminal: no progress bar
    legacy = subprocess.run(
        _cmd("-", "--json"),
        input=DOC_B,
        capture_output=True,
        text=True,
        env=_env(),
        timeout=60,
        check=True,
    )
    assert json.loads(legacy.stdout) == ragchunk.naive_merge(DOC_B)


def test_closed_pipe_exits_cleanly(tmp_path: Path) -> None:
    big = tmp_path / "big.md"
    big.write_text("A sentence of text.\n\n" * 40000, encoding="utf-8")
    proc = subprocess.Popen(
        _cmd("chunk", str(big), "--chunker", "character", "--chunk-size", "8"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()  # the reader goes away, as `| head -1` does
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 0
    assert "Traceback" not in err and "BrokenPipe" not in err


def test_progress_bar_in_a_terminal(corpus: Path) -> None:
    # stderr is a pseudo-terminal: the bar is drawn there; stdout (a pipe) gets the chunks.
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        _cmd("chunk", str(corpus), "--chunk-size", "64"),
        stdout=subprocess.PIPE,
        stderr=slave,
        env=_env(),
    )
    os.close(slave)
    screen = b""
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            data = os.read(master, 4096)
        except OSError:  # the terminal's other end closed
            break
        if not data:
            break
        screen += data
    out, _ = proc.communicate(timeout=60)
    os.close(master)
    assert proc.returncode == 0
    text = screen.decode()
    size = (len(DOC_A.encode()) + len(DOC_B.encode())) / 1e6
    assert f"{size:.1f}/{size:.1f} MB 2/2 docs" in text
    assert "MB/s" in text and "ETA 0:00:00" in text and "[" + "#" * 24 + "]" in text
    assert len(_jsonl(out.decode())) > 0
    quiet = subprocess.run(
        _cmd("chunk", str(corpus), "--quiet"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=_env(),
        timeout=60,
        check=True,
    )
    assert quiet.stderr == b""


def test_plugin_commands_register_from_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "fake_eval_cli.py").write_text(
        textwrap.dedent(
            """
            def add_arguments(parser):
                parser.add_argument("--k", type=int, default=1)

            def run(args):
                print("ran with", args.k)
                return 3
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(cli.PLUGINS, "eval", ("fake_eval_cli", "evaluate"))
    monkeypatch.setitem(cli.PLUGINS, "estimate", ("not_installed_module.cli", "estimate"))
    assert cli.main(["eval", "--k", "5"]) == 3
    assert "ran with 5" in capsys.readouterr().out
    assert cli.main(["estimate"]) == 2
    assert "not installed" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    helptext = capsys.readouterr().out
    assert "eval" in helptext and "estimate" not in helptext


def test_processes_give_the_threads_output(tmp_path: Path) -> None:
    """A chunker that holds the GIL is chunked in worker processes; the output is the same,
    in the same order, as on threads."""
    for i in range(7):
        (tmp_path / f"doc{i}.md").write_text(f"# Doc {i}\n\n" + "Words of a sentence. " * (40 + i))
    base = [sys.executable, "-m", "ragchunk", "chunk", str(tmp_path), "--chunker", "token", "-q"]
    threads = subprocess.run(
        [*base, "--parallel", "threads"], capture_output=True, text=True, check=True
    )
    processes = subprocess.run(
        [*base, "--parallel", "processes", "--workers", "2"],
        capture_output=True,
        text=True,
        check=True,
    )
    records = [json.loads(line) for line in processes.stdout.splitlines()]
    assert len({r["source"] for r in records}) == 7
    assert processes.stdout == threads.stdout


@pytest.mark.single_backend
def test_auto_parallelism_follows_the_gil() -> None:
    from ragchunk.cli import holds_gil

    assert holds_gil(ragchunk.SplitterComponent())
    assert holds_gil(ragchunk.RecursiveSplitter(64, tokenizer=lambda s: len(s.split())))
    assert not holds_gil(ragchunk.RecursiveSplitter(64)) or ragchunk.backend == "python"
