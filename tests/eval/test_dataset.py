"""Datasets: Chroma's layout, ragchunk's JSONL, and validation naming the bad row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ragchunk.eval import Dataset, Question, Reference, load_chroma, load_jsonl, save_jsonl


def _write_chroma(
    tmp: Path, rows: list[tuple[str, list[dict[str, object]], str]], corpora: dict[str, str]
) -> Path:
    import csv

    (tmp / "corpora").mkdir()
    for cid, text in corpora.items():
        (tmp / "corpora" / f"{cid}.md").write_text(text, encoding="utf-8")
    with (tmp / "questions.csv").open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["question", "references", "corpus_id"])
        for q, refs, cid in rows:
            w.writerow([q, json.dumps(refs), cid])
    return tmp


def test_shipped_dataset_loads_and_every_reference_slices(chroma: Dataset) -> None:
    assert len(chroma.questions) == 132
    assert sum(len(q.references) for q in chroma.questions) == 203
    assert {len(t) for t in chroma.corpora.values()} == {48051, 40000}
    for q in chroma.questions:
        for r in q.references:
            assert chroma.corpora[q.corpus_id][r.start : r.end] == r.content


def test_jsonl_round_trip(chroma: Dataset, tmp_path: Path) -> None:
    p = tmp_path / "ds.jsonl"
    save_jsonl(chroma, p)
    back = load_jsonl(p)
    assert back == chroma
    assert back.questions[5].references == chroma.questions[5].references


def test_reference_that_does_not_slice_names_the_row(tmp_path: Path) -> None:
    d = _write_chroma(
        tmp_path,
        [
            ("ok?", [{"content": "abc", "start_index": 0, "end_index": 3}], "c"),
            ("bad?", [{"content": "abd", "start_index": 0, "end_index": 3}], "c"),
        ],
        {"c": "abcdef"},
    )
    with pytest.raises(
        ValueError, match=r"questions\[1\].*references\[0\].*'abc', not the reference content 'abd'"
    ):
        load_chroma(d)


def test_unknown_corpus_and_empty_question(tmp_path: Path) -> None:
    d = _write_chroma(
        tmp_path, [("q?", [{"content": "a", "start_index": 0, "end_index": 1}], "nope")], {"c": "a"}
    )
    with pytest.raises(ValueError, match=r"row 1: unknown corpus id 'nope'"):
        load_chroma(d)
    with pytest.raises(ValueError, match=r"questions\[0\] \(q0\): unknown corpus id 'x'"):
        Dataset({"c": "abc"}, [Question("q?", "x", (Reference(0, 1, "a"),))])
    with pytest.raises(ValueError, match=r"questions\[0\] \(q0\): the question is empty"):
        Dataset({"c": "abc"}, [Question("  ", "c", (Reference(0, 1, "a"),))])
    with pytest.raises(ValueError, match="no references"):
        Dataset({"c": "abc"}, [Question("q?", "c", ())])
    with pytest.raises(ValueError, match=r"span \[2, 9\) is not inside corpus 'c' of 3"):
        Dataset({"c": "abc"}, [Question("q?", "c", (Reference(2, 9, "c"),))])


def test_bad_files(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"no questions\.csv"):
        load_chroma(tmp_path)
    p = tmp_path / "x.jsonl"
    p.write_text('{"type": "corpus", "id": "c", "text": "abc"}\nnot json\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"x\.jsonl line 2: not JSON"):
        load_jsonl(p)


@pytest.mark.single_backend
def test_every_public_name_has_an_example() -> None:
    import doctest
    import inspect

    import ragchunk.eval as ev

    for name in ev.__all__:
        obj = getattr(ev, name)
        docs = [inspect.getdoc(obj) or ""]
        if inspect.isclass(obj):
            docs += [inspect.getdoc(m) or "" for _, m in inspect.getmembers(obj)]
        assert any(doctest.DocTestParser().get_examples(d) for d in docs), name
