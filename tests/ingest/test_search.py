"""search() over the stores ingest builds: a sentence finds its chunk, PDF hits cite pages
and boxes, filters, hybrid fusion, bad arguments, and the ``ragchunk search`` command."""

from __future__ import annotations

import itertools
import json
import random
import re
from pathlib import Path
from typing import Any

import ingest_helpers as h
import pytest
import ragchunk
from ragchunk.cli import main
from ragchunk.ingest import Source, ingest, search

pytest.importorskip("pyarrow")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

WORDS = (
    "river mountain lantern copper violin orchard glacier harbor meadow falcon thunder marble "
    "saddle canyon ember quartz willow beacon tundra pepper walnut cobalt prairie juniper "
    "mosaic nectar saffron timber velvet zephyr anchor bamboo cedar dune fjord garnet heron "
    "ivory jasmine kelp lagoon mango nickel olive pelican quiver raven sierra tulip umber"
).split()


def _corpus(n: int, seed: int = 7) -> list[Source]:
    rng = random.Random(seed)
    docs = []
    for i in range(n):
        sentences = []
        for _ in range(6):
            words = [rng.choice(WORDS) for _ in range(rng.randint(8, 14))]
            sentences.append(" ".join(words).capitalize() + ".")
        docs.append(Source(f"doc{i:03d}.md", " ".join(sentences)))
    return docs


def _store(kind: str, tmp_path: Path, docs: list[Source], **kw: Any) -> str:
    if kind == "lancedb":
        pytest.importorskip("lancedb")
    if kind == "chroma":
        pytest.importorskip("chromadb")
        kw.setdefault("embedder", h.embed)
    url = f"{kind}:{tmp_path / kind}"
    ingest(docs, url, ragchunk.SentenceSplitter(40), **kw)
    return url


@pytest.mark.parametrize("kind", ["parquet", "lancedb", "chroma"])
def test_a_sentence_of_a_chunk_finds_that_chunk_first(kind: str, tmp_path: Path) -> None:
    url = _store(kind, tmp_path, _corpus(60))
    rows = h.rows(url)
    rng = random.Random(3)
    sample = rng.sample(rows, 50)
    first = 0
    for row in sample:
        sentences = re.findall(r"[^.]+\.", row["text"])
        query = rng.choice(sentences).strip()
        hits = search(url, query, k=5, mode="bm25")
        assert hits and all(a.score >= b.score for a, b in itertools.pairwise(hits))
        first += hits[0].id == row["id"]
    assert first / len(sample) >= 0.9, first


@pytest.mark.parametrize("kind", ["parquet", "lancedb"])
def test_hits_carry_their_rows_and_filters_apply(kind: str, tmp_path: Path) -> None:
    url = _store(kind, tmp_path, _corpus(20))
    rows = {r["id"]: r for r in h.rows(url)}
    hits = search(url, "copper violin lantern", k=7)
    assert len(hits) == 7
    for hit in hits:
        row = rows[hit.id]
        assert (hit.source_id, hit.text, hit.start, hit.end) == (
            row["source_id"],
            row["text"],
            row["start"],
            row["end"],
        )
    only = search(url, "copper violin lantern", k=5, filter={"source_id": ["doc003.md"]})
    assert only and {hit.source_id for hit in only} == {"doc003.md"}
    assert search(url, "copper", k=3, filter={"source_id": "nosuch"}) == []


@pytest.mark.parametrize("kind", ["parquet", "lancedb", "chroma"])
def test_vector_and_hybrid_modes(kind: str, tmp_path: Path) -> None:
    url = _store(kind, tmp_path, _corpus(20), embedder=h.embed)
    target = h.rows(url)[5]
    vector = search(url, target["text"], k=3, mode="vector", embedder=h.embed)
    assert vector[0].id == target["id"] and vector[0].score == pytest.approx(1.0, abs=1e-5)
    hybrid = search(url, target["text"], k=3, embedder=h.embed)
    assert hybrid[0].id == target["id"]
    bm25 = [x.id for x in search(url, target["text"], k=50, mode="bm25")]
    vec = [x.id for x in search(url, target["text"], k=50, mode="vector", embedder=h.embed)]
    fused: dict[str, float] = {}
    for ranked in (bm25, vec):
        for rank, key in enumerate(ranked, 1):
            fused[key] = fused.get(key, 0.0) + 1 / (60 + rank)
    best = sorted(fused, key=lambda key: -fused[key])[:3]
    assert [x.id for x in hybrid] == best


def test_hits_from_a_pdf_cite_pages_and_boxes(tmp_path: Path) -> None:
    pytest.importorskip("pypdfium2")
    src = tmp_path / "src"
    src.mkdir()
    lines = ["Annual report of the harbor office.", "Cargo volumes rose by a third."]
    (src / "report.pdf").write_bytes(h.text_pdf(lines))
    (src / "notes.md").write_text("# Notes\n\nThe harbor was quiet.", encoding="utf-8")
    (src / "other.md").write_text("# Other\n\nNothing to see.", encoding="utf-8")
    url = f"parquet:{tmp_path / 'store'}"
    ingest([src], url, ragchunk.RecursiveSplitter(64), base=src)
    hits = search(url, "harbor cargo volumes", k=5)
    pdf = [x for x in hits if x.source_id == "report.pdf"]
    assert pdf and hits[0].source_id == "report.pdf"
    for hit in pdf:
        assert hit.pages == [1] and hit.boxes
        x0, top, x1, bottom = hit.boxes[0]
        assert x0 < x1 and top < bottom  # (x0, top, x1, bottom)
        assert hit.citation().startswith("report.pdf, page 1")


def test_bad_search_arguments(tmp_path: Path) -> None:
    url = _store("parquet", tmp_path, _corpus(3))
    with pytest.raises(ValueError, match=r"^query"):
        search(url, "   ")
    with pytest.raises(ValueError, match=r"^k must"):
        search(url, "river", k=0)
    with pytest.raises(ValueError, match=r"^mode"):
        search(url, "river", mode="fuzzy")
    with pytest.raises(ValueError, match=r"^embedder"):
        search(url, "river", mode="vector")
    with pytest.raises(ValueError, match=r"^filter"):
        search(url, "river", filter={"vector": 1})
    with pytest.raises(ValueError, match=r"^store must be"):
        search("nosuch:x", "river")


def test_the_search_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = _store("parquet", tmp_path, _corpus(10))
    assert main(["search", url, "copper violin", "-k", "3"]) == 0
    out = capsys.readouterr().out
    assert re.match(r"1\. doc\d{3}\.md  \(score \d+\.\d{3}\)\n   \S", out), out
    assert main(["search", url, "copper violin", "-k", "2", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 2 and {"source_id", "text", "pages", "boxes", "citation"} <= set(rows[0])
    assert main(["search", url, "zzzz", "--mode", "bm25"]) == 1


def test_view_of_a_search_shows_the_hits_on_their_document(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("pypdfium2")
    src = tmp_path / "src"
    src.mkdir()
    lines = ["Annual report of the harbor office.", "Cargo volumes rose by a third."]
    (src / "report.pdf").write_bytes(h.text_pdf(lines))
    (src / "other.md").write_text("# Other\n\nNothing to see.", encoding="utf-8")
    (src / "more.md").write_text("# More\n\nStill nothing.", encoding="utf-8")
    url = f"parquet:{tmp_path / 'store'}"
    ingest([src], url, ragchunk.RecursiveSplitter(64), base=src)
    out = tmp_path / "view.html"
    args = ["view", url, "--query", "harbor cargo", "--base", str(src), "--out", str(out)]
    assert main(args) == 0
    page = out.read_text(encoding="utf-8")
    assert "in report.pdf" in page and "Cargo volumes rose" in page
    assert "data:image/png;base64," in page  # the PDF's page image
    wrong = ["view", url, "--query", "harbor", "--base", str(tmp_path), "--out", str(out)]
    assert main(wrong) == 2
    assert "--base: the hit's source 'report.pdf' is not a file" in capsys.readouterr().err
