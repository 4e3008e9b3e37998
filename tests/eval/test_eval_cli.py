"""The two commands a new user runs: ``ragchunk eval generate`` on a folder, then the
answer-level sweep, against the local server with the fake evaluation model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_eval_server import respond
from openai_server import OpenAIServer
from ragchunk.cli import main
from ragchunk.eval import load_jsonl

pytest.importorskip("numpy")

pytestmark = pytest.mark.single_backend

DOCS = {
    "solar.md": (
        "# Solar panels\n\nSolar panels turn sunlight into electricity for homes. A typical "
        "panel lasts between 25 and 30 years. Its output falls by about half a percent every "
        "year. Panels still work on cloudy days, with a lower output. Installers mount most "
        "panels on roofs facing south.\n"
    ),
    "bees.txt": (
        "Honey bees live in colonies of up to sixty thousand workers. The queen lays up to two "
        "thousand eggs a day in spring. Workers forage up to five kilometres from the hive. "
        "Drones die after mating with the queen. Bees store honey in wax combs for winter.\n"
    ),
}


@pytest.fixture
def fake():  # type: ignore[no-untyped-def]
    with OpenAIServer(respond) as server:
        yield server


def test_generate_then_sweep_answers(fake, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    out = tmp_path / "set.jsonl"
    cache = tmp_path / "llm.sqlite"
    common = ["--base-url", fake.base_url, "--model", "fake", "--cache", str(cache)]
    assert main(["eval", "generate", str(docs), "--out", str(out), "--dry-run"]) == 0
    assert "10 calls" in capsys.readouterr().out and fake.requests == []
    assert main(["eval", "generate", str(docs), "--out", str(out), *common]) == 0
    printed = capsys.readouterr()
    assert "8 questions kept of 10 proposed over 2 documents" in printed.out
    assert "2 not found" in printed.out
    ds = load_jsonl(out)
    assert len(ds.questions) == 8 and ds.metadata["settings"]["per_corpus"] == 5
    for q in ds.questions:
        for r in q.references:
            assert ds.corpora[q.corpus_id][r.start : r.end] == r.content
    fake.reset()
    assert main(["eval", "generate", str(docs), "--out", str(out), *common]) == 0
    assert fake.requests == [] and "10 from the cache" in capsys.readouterr().err

    sweep = ["eval", "--dataset", str(out), "--chunk-size", "32,64", "--k", "2", "--answers"]
    assert main([*sweep, *common, "--dry-run"]) == 0
    assert "dry run of the answers stage (2 rows)" in capsys.readouterr().out
    assert fake.requests == []
    result = tmp_path / "answers.json"
    assert main([*sweep, *common, "--json", str(result), "--csv", str(tmp_path / "a.csv")]) == 0
    table = capsys.readouterr().out
    assert "token_f1_mean" in table and "faithfulness_mean" in table
    rows = json.loads(result.read_text(encoding="utf-8"))
    assert len(rows) == 2 and 0 <= rows[0]["token_f1_mean"] <= 1
    assert rows[0]["answers"]["solar.md#0"]["judges"]["faithfulness"]["verdicts"]
    assert "answer_relevance_mean" not in rows[0]  # no --judge-embedder


def test_usage_errors(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["eval", "--chunk-size", "10"]) == 2
    assert "--dataset is required" in capsys.readouterr().err
    (tmp_path / "a.md").write_text("Some text here.", encoding="utf-8")
    out = str(tmp_path / "o.jsonl")
    assert main(["eval", "generate", str(tmp_path), "--out", out]) == 2
    assert "--base-url and --model" in capsys.readouterr().err
    assert main(["eval", "generate", str(tmp_path / "nope"), "--out", out]) == 2
    assert "no such file or folder" in capsys.readouterr().err
