"""Smoke test of benches/peers.py: its checks (in _peers_base.py), and every pair whose peer
is installed on a tiny input (a pair whose peer is missing is skipped)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("tiktoken")

import _peers_base as base
import peers

# About 3,000 cl100k_base tokens of Markdown, English and Chinese, so every chunker cuts.
_PARA = (
    "## Section\n\nThe splitter keeps sentences whole. It counts tokens exactly! "
    "Does it cut characters? 分块器保持句子完整，并且精确地计算词元。\n\n"
)
TINY = [_PARA * 40, "# Title\n\n" + _PARA * 25 + "| a | b |\n|---|---|\n" + "| x | y |\n" * 60]

CLASSIC = [
    "chonkie-token",
    "chonkie-sentence",
    "chonkie-recursive",
    "semchunk",
    "text-splitter",
    "text-splitter-markdown",
    "llamaindex-sentence",
    "llamaindex-token",
    "langchain-recursive",
]


def test_lossless_check() -> None:
    doc = "One two.\n\nThree four."
    assert base.lossless(doc, ["One two.", "Three four."]) == "verbatim"
    assert base.lossless(doc, ["One two. Three four."]) == "whitespace"
    assert base.lossless(doc, ["One two.", "Three"]) == "LOSSY"
    assert base.lossless(doc, ["One two.", "One two.", "Three four."]) == "LOSSY"
    assert base.lossless("é", ["\ufffd"]) == "LOSSY"


def test_check_counts_offsets_and_budget() -> None:
    doc = "abc def " + "word " * 600
    out: list[base.Out] = [("abc", 0, 3, ""), ("def", 3, 7, ""), (doc[8:], 8, len(doc), "")]
    result = base.check([doc], [out])
    assert result["offsets_wrong"] == 1  # "def" is not doc[3:7]
    assert result["over_budget"] == 1
    assert result["max_tokens"] == len(base.ENC.encode_ordinary(doc[8:])) > 512
    assert result["lossless"] == "verbatim"
    added: list[base.Out] = [("HEAD abc", 0, 3, "HEAD "), ("def", 4, 7, "")]
    result = base.check(["abc def"], [added])
    assert result["offsets_wrong"] == 0 and result["documented_additions"] == 1


def _run(pair: Any, slices: list[list[str]]) -> dict[str, Any]:
    peers.run_rounds([pair], slices, warm=slices[0][:1])
    return peers.report(pair, slices)


@pytest.mark.parametrize("name", CLASSIC)
def test_classic_pair(name: str) -> None:
    pairs = {p.name: p for p in peers.classic_pairs([])}
    if name not in pairs:
        pytest.skip(f"{name}: peer not installed")
    row = _run(pairs[name], [TINY[:1], TINY[1:]])
    ours, peer = row["ours"], row["peer"]
    assert ours["chunks"] > 2 and peer["chunks"] > 2
    assert ours["lossless"] == "verbatim"
    assert ours["over_budget"] == 0
    assert ours["offsets_wrong"] in (0, None)
    assert len(row["ratios"]) == 2 and row["ratio_median"] > 0


@pytest.mark.parametrize("name", ["chonkie-semantic", "llamaindex-semantic", "langchain-semantic"])
def test_semantic_pair(name: str) -> None:
    pytest.importorskip("numpy")
    pytest.importorskip("wordllama")
    if name not in {n for n, _ in peers._semantic_builders([])}:
        pytest.skip(f"{name}: peer not installed")
    from ragchunk.embeddings import load_wordllama

    docs = [TINY[0][:3000]]
    pairs = peers.semantic_pairs(docs, load_wordllama(), {f"{name}/table"}, [])
    assert [p.name for p in pairs] == [f"{name}/table"]
    row = _run(pairs[0], [docs])
    assert row["peer"]["table_misses"] == 0 and row["ours"]["table_misses"] == 0
    assert row["ours"]["lossless"] in ("verbatim", "whitespace")
    if name == "langchain-semantic":
        assert row["same_chunks"]


def test_late_pair() -> None:
    pytest.importorskip("numpy")
    pytest.importorskip("chonkie")
    pairs = peers.late_pairs([TINY[0]], [])
    row = _run(pairs[0], [[TINY[0]]])
    assert row["ours"]["vectors_wrong"] == 0
    assert row["ours"]["chunks"] > 2


def test_list_runs() -> None:
    script = Path(peers.__file__)
    out = subprocess.run(
        [sys.executable, str(script), "--list"], capture_output=True, text=True, check=True
    ).stdout
    names = {line.split(":")[0] for line in out.splitlines() if not line.startswith("skipped")}
    available = {p.name for p in peers.classic_pairs([])}
    assert available <= names
    assert ("chonkie-late" in names) == ("chonkie-token" in available)
