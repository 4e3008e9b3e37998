"""Every argument that takes a file path accepts ``~`` (expanded to the home folder, never a
literal ``./~`` folder) and an :class:`os.PathLike`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from ragchunk import TokenWindowSplitter
from ragchunk.core.checks import check_path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh home folder; the working folder is another one, where no ``~`` may appear."""
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    yield home
    assert not (work / "~").exists(), "a literal ~ folder was made"


def _both(name: str) -> list[str | os.PathLike[str]]:
    return [f"~/{name}", Path("~") / f"pl-{name}"]


def _made(home: Path, spec: str | os.PathLike[str]) -> Path:
    return home / os.path.basename(os.fspath(spec))


def test_check_path() -> None:
    assert check_path("~/a") == os.path.join(os.path.expanduser("~"), "a")
    assert check_path(Path("x") / "y") == os.path.join("x", "y")
    with pytest.raises(TypeError, match=r"cache must be a str or os\.PathLike"):
        check_path(b"~/a", "cache")


def test_embedding_cache(home: Path) -> None:
    np = pytest.importorskip("numpy")
    from ragchunk.embeddings import EmbeddingCache, as_embedder

    for spec in _both("vectors.sqlite"):
        cache = EmbeddingCache(spec)
        cache.put("m", ["a"], np.ones((1, 2), dtype=np.float32))
        assert _made(home, spec).is_file()
    managed = as_embedder(lambda texts: np.ones((len(texts), 2)), cache="~/managed.sqlite")
    managed.embed(["one", "two"])
    assert (home / "managed.sqlite").is_file()


def test_llm_cache(home: Path) -> None:
    from ragchunk.llm import LLMCache

    for spec in _both("answers.sqlite"):
        LLMCache(spec).put("k", "m", "an answer", 1, 1)
        assert _made(home, spec).is_file()


def test_parse(home: Path) -> None:
    from ragchunk.documents import parse

    (home / "doc.md").write_text("# Title\n\nBody.\n", encoding="utf-8")
    for spec in ("~/doc.md", Path("~") / "doc.md"):
        assert "Body." in parse(spec).text


def test_hf_tokenizer_file(home: Path) -> None:
    from ragchunk.core.tokenizers import Tokenizer

    tok = {
        "version": "1.0",
        "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "a": 1}, "unk_token": "[UNK]"},
        "pre_tokenizer": {"type": "Whitespace"},
    }
    (home / "tokenizer.json").write_text(json.dumps(tok), encoding="utf-8")
    assert Tokenizer.from_file("~/tokenizer.json").count("a a a") == 3
    assert Tokenizer.from_file(Path("~") / "tokenizer.json").count("a a") == 2


def test_eval_datasets_and_results(home: Path) -> None:
    from ragchunk.eval import Dataset, Question, Reference, evaluate, load_jsonl, save_jsonl
    from ragchunk.eval.generate import read_corpora

    text = "Cats purr softly. Dogs bark loudly at night."
    data = Dataset({"a": text}, [Question("Who barks?", "a", (Reference(18, 44, text[18:44]),))])
    for spec in _both("ds.jsonl"):
        save_jsonl(data, spec)
        assert _made(home, spec).is_file()
        assert load_jsonl(spec).questions == data.questions
    (home / "corpus").mkdir()
    (home / "corpus" / "a.md").write_text(text, encoding="utf-8")
    assert read_corpora("~/corpus") == {"a.md": text}
    result = evaluate(data, [TokenWindowSplitter(chunk_size=8)], k=[1])
    for spec in _both("r.csv"):
        result.to_csv(spec)
        assert _made(home, spec).is_file()
    result.to_json("~/r.json")
    assert (home / "r.json").is_file()


def test_eval_load_chroma(home: Path) -> None:
    from ragchunk.eval import load_chroma

    folder = home / "chroma"
    (folder / "corpora").mkdir(parents=True)
    (folder / "corpora" / "c.md").write_text("Cats purr softly.", encoding="utf-8")
    refs = json.dumps([{"content": "purr", "start_index": 5, "end_index": 9}])
    with (folder / "questions.csv").open("w", encoding="utf-8", newline="") as f:
        import csv

        csv.writer(f).writerows([["question", "references", "corpus_id"], ["Q?", refs, "c"]])
    assert len(load_chroma("~/chroma").questions) == 1


def test_viz_save(home: Path) -> None:
    from ragchunk.viz import View

    view = View("One. Two.", TokenWindowSplitter(chunk_size=2))
    for spec in _both("page.html"):
        view.save(spec)
        assert _made(home, spec).read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_store_urls(home: Path) -> None:
    pytest.importorskip("pyarrow")
    from ragchunk.ingest import open_store

    store = open_store("parquet:~/store")
    assert os.path.samefile(store.path, home / "store")  # type: ignore[attr-defined]
    store.close()


def test_ingest_manifest(home: Path) -> None:
    pytest.importorskip("pyarrow")
    from ragchunk.ingest import ingest

    (home / "a.md").write_text("# A\n\ntext", encoding="utf-8")
    for spec in _both("manifest.sqlite"):
        report = ingest(
            [str(home / "a.md")],
            "parquet:~/store",
            TokenWindowSplitter(16),
            manifest=spec,
            workers=1,
        )
        assert report.ok and report.added == 1, report.summary()
        assert _made(home, spec).is_file()


def test_ingest_sources(home: Path) -> None:
    from ragchunk.ingest.sources import iter_inputs

    (home / "notes").mkdir()
    (home / "notes" / "a.md").write_text("x", encoding="utf-8")
    found: list[Any] = list(iter_inputs(["~/notes"], "*.md"))
    assert [os.path.basename(f.path) for f in found] == ["a.md"]


def test_semantic_plot(home: Path) -> None:
    pytest.importorskip("matplotlib")
    from ragchunk.semantic import SemanticAnalysis
    from ragchunk.semantic.plot import plot

    analysis = SemanticAnalysis([(0, 1), (2, 3), (4, 5)], [0.2, 0.8], 0.5, [1])
    for spec in _both("curve.png"):
        plot(analysis, spec)
        assert _made(home, spec).stat().st_size > 0
