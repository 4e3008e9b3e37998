"""Evaluation datasets: corpora, questions and the reference character spans that answer them.

Offsets are code points (Python ``str`` indices) into each corpus, half-open ``[start, end)``,
like every :class:`ragchunk.Chunk`. A dataset is checked when it is built: every reference must
slice its corpus exactly, so a metric never silently scores against the wrong text.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.checks import check_path

__all__ = ["Dataset", "Question", "Reference", "load_chroma", "load_jsonl", "save_jsonl"]


@dataclass(frozen=True)
class Reference:
    """One reference excerpt: ``corpus[start:end] == content``.

    >>> Reference(6, 11, "world").end
    11
    """

    start: int
    end: int
    content: str


@dataclass(frozen=True)
class Question:
    """A question, the corpus it is about, and the excerpts that answer it.

    >>> Question("Who?", "doc", (Reference(0, 5, "Hello"),)).corpus_id
    'doc'
    """

    text: str
    corpus_id: str
    references: tuple[Reference, ...]
    id: str = ""


@dataclass(frozen=True)
class Dataset:
    """Corpora (``{corpus_id: text}``) and questions whose references slice them.

    Building one validates it (:meth:`validate`). ``metadata`` (JSON-able, not compared) says
    where the set comes from, for example the settings of
    :func:`~ragchunk.eval.generate_questions`; the JSONL format keeps it.

    >>> q = Question("Greeting?", "doc", (Reference(0, 5, "Hello"),))
    >>> ds = Dataset({"doc": "Hello world"}, [q])
    >>> len(ds.questions), ds.questions[0].id
    (1, 'q0')
    """

    corpora: Mapping[str, str]
    questions: Sequence[Question]
    name: str = field(default="", compare=False)
    metadata: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.corpora, Mapping):
            raise TypeError(
                f"corpora must be a mapping of corpus id to text, got {type(self.corpora).__name__}"
            )
        qs = list(self.questions)
        fixed = [
            q if q.id else Question(q.text, q.corpus_id, tuple(q.references), f"q{i}")
            for i, q in enumerate(qs)
        ]
        if not isinstance(self.metadata, Mapping):
            raise TypeError(f"metadata must be a mapping, got {type(self.metadata).__name__}")
        object.__setattr__(self, "metadata", dict(self.metadata))
        object.__setattr__(self, "corpora", dict(self.corpora))
        object.__setattr__(self, "questions", tuple(fixed))
        self.validate()

    def validate(self) -> None:
        """Check every question and reference, naming the first bad row.

        Raises:
            ValueError: an empty question, an unknown corpus id, a question without references,
                a reference outside its corpus or whose content is not ``corpus[start:end]``,
                a repeated question id.
            TypeError: a corpus text that is not a str.

        >>> Dataset({"d": "abc"}, [Question("q?", "d", (Reference(0, 2, "ab"),))]).validate()
        >>> Dataset({"d": "abc"}, [Question("q?", "d", (Reference(0, 2, "xx"),))])
        Traceback (most recent call last):
        ...
        ValueError: questions[0] (q0) references[0]: corpus 'd'[0:2] is 'ab', not the reference \
content 'xx'
        """
        for cid, text in self.corpora.items():
            if not isinstance(cid, str) or not isinstance(text, str):
                raise TypeError(f"corpora[{cid!r}] must map a str id to a str text")
        seen: set[str] = set()
        for i, q in enumerate(self.questions):
            where = f"questions[{i}] ({q.id})"
            if q.id in seen:
                raise ValueError(f"{where}: question id {q.id!r} is repeated")
            seen.add(q.id)
            if not isinstance(q.text, str) or not q.text.strip():
                raise ValueError(f"{where}: the question is empty")
            if q.corpus_id not in self.corpora:
                known = ", ".join(sorted(self.corpora)) or "none"
                raise ValueError(f"{where}: unknown corpus id {q.corpus_id!r} (known: {known})")
            if not q.references:
                raise ValueError(f"{where}: the question has no references")
            corpus = self.corpora[q.corpus_id]
            for j, r in enumerate(q.references):
                rw = f"{where} references[{j}]"
                for name, v in (("start", r.start), ("end", r.end)):
                    if isinstance(v, bool) or not isinstance(v, int):
                        raise TypeError(f"{rw}: {name} must be an int, got {type(v).__name__}")
                if not 0 <= r.start <= r.end <= len(corpus):
                    raise ValueError(
                        f"{rw}: span [{r.start}, {r.end}) is not inside corpus {q.corpus_id!r} "
                        f"of {len(corpus)} characters"
                    )
                if corpus[r.start : r.end] != r.content:
                    raise ValueError(
                        f"{rw}: corpus {q.corpus_id!r}[{r.start}:{r.end}] is "
                        f"{_short(corpus[r.start : r.end])}, "
                        f"not the reference content {_short(r.content)}"
                    )
            if sum(r.end - r.start for r in q.references) == 0:
                raise ValueError(f"{where}: every reference is empty")

    def save_jsonl(self, path: str | os.PathLike[str]) -> None:
        """Write the dataset in ragchunk's JSONL format (see :func:`load_jsonl`)."""
        save_jsonl(self, path)


def _short(s: str, n: int = 40) -> str:
    return repr(s if len(s) <= n else s[:n] + "...")


def _references(raw: object, where: str) -> tuple[Reference, ...]:
    if not isinstance(raw, list):
        raise ValueError(f"{where}: references must be a JSON list, got {type(raw).__name__}")
    out = []
    for j, r in enumerate(raw):
        if not isinstance(r, Mapping) or not {"content", "start_index", "end_index"} <= set(r):
            raise ValueError(f"{where} references[{j}]: needs content, start_index and end_index")
        try:
            start, end = int(r["start_index"]), int(r["end_index"])
        except (TypeError, ValueError):
            raise ValueError(
                f"{where} references[{j}]: start_index and end_index must be integers"
            ) from None
        out.append(Reference(start, end, str(r["content"])))
    return tuple(out)


def load_chroma(path: str | os.PathLike[str]) -> Dataset:
    """Load a dataset in the layout of Chroma's chunking evaluation: ``questions.csv`` (columns
    ``question``, ``references`` as a JSON list of ``{content, start_index, end_index}``,
    ``corpus_id``) beside ``corpora/<corpus_id>.md`` (UTF-8).

    Only the corpora the questions name are read; the corpus id may also be a path ending in the
    file name (Chroma's own CSVs sometimes carry the path).

    Raises:
        FileNotFoundError: no ``questions.csv`` or a corpus file is missing.
        ValueError: a bad row (the message names the CSV line).

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()); (d / "corpora").mkdir()
    >>> _ = (d / "corpora" / "doc.md").write_text("Hello world", encoding="utf-8")
    >>> _ = (d / "questions.csv").write_text(
    ...     'question,references,corpus_id\\nWho?,"[{""content"": ""world"", ""start_index"": 6,'
    ...     ' ""end_index"": 11}]",doc\\n', encoding="utf-8")
    >>> load_chroma(d).questions[0].references[0].content
    'world'
    """
    root = Path(check_path(path))
    csv_path = root / "questions.csv"
    if not csv_path.is_file():
        raise FileNotFoundError(f"path: no questions.csv in {root}")
    corpora: dict[str, str] = {}
    questions = []
    with csv_path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        missing = {"question", "references", "corpus_id"} - set(reader.fieldnames or ())
        if missing:
            raise ValueError(f"{csv_path}: missing columns {sorted(missing)}")
        for i, row in enumerate(reader):
            where = f"{csv_path.name} row {i + 1}"
            cid = (row["corpus_id"] or "").strip()
            if cid not in corpora:
                name = Path(cid).name
                file = root / "corpora" / (name if name.endswith(".md") else name + ".md")
                if not file.is_file():
                    raise ValueError(f"{where}: unknown corpus id {cid!r} (no file {file})")
                with file.open(encoding="utf-8", newline="") as cf:
                    corpora[cid] = cf.read()
            try:
                raw = json.loads(row["references"] or "")
            except json.JSONDecodeError as exc:
                raise ValueError(f"{where}: references is not JSON ({exc})") from None
            questions.append(Question(row["question"] or "", cid, _references(raw, where), f"q{i}"))
    try:
        return Dataset(corpora, questions, name=root.name)
    except ValueError as exc:
        raise ValueError(f"{csv_path.name}: {exc}") from None


def save_jsonl(dataset: Dataset, path: str | os.PathLike[str]) -> None:
    """Write ``dataset`` as JSONL: one ``{"type": "corpus", "id", "text"}`` line per corpus, then
    one ``{"type": "question", "id", "question", "corpus_id", "references": [{"start", "end",
    "content"}]}`` line per question; a first ``{"type": "metadata", ...}`` line holds
    ``dataset.metadata`` when there is any.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "ds.jsonl")
    >>> ds = Dataset({"d": "abc"}, [Question("q?", "d", (Reference(1, 3, "bc"),))])
    >>> save_jsonl(ds, p); load_jsonl(p) == ds
    True
    """
    with open(check_path(path), "w", encoding="utf-8") as f:
        if dataset.metadata:
            meta = {"type": "metadata", **dataset.metadata}
            f.write(json.dumps(meta, ensure_ascii=False) + "\n")
        for cid, text in dataset.corpora.items():
            f.write(
                json.dumps({"type": "corpus", "id": cid, "text": text}, ensure_ascii=False) + "\n"
            )
        for q in dataset.questions:
            refs = [{"start": r.start, "end": r.end, "content": r.content} for r in q.references]
            line = {
                "type": "question",
                "id": q.id,
                "question": q.text,
                "corpus_id": q.corpus_id,
                "references": refs,
            }
            f.write(json.dumps(line, ensure_ascii=False) + "\n")


def load_jsonl(path: str | os.PathLike[str]) -> Dataset:
    """Read a dataset written by :func:`save_jsonl`.

    Raises:
        ValueError: a line that is not JSON or lacks a field (the message names the line).

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "bad.jsonl")
    >>> with open(p, "w") as f:
    ...     _ = f.write('{"type": "corpus", "id": "d"}\\n')
    >>> load_jsonl(p)
    Traceback (most recent call last):
    ...
    ValueError: bad.jsonl line 1: missing field 'text'
    """
    corpora: dict[str, str] = {}
    questions = []
    metadata: dict[str, Any] = {}
    path = check_path(path)
    name = os.path.basename(path)
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{name} line {n}"
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{where}: not JSON ({exc})") from None
            kind = obj.get("type") if isinstance(obj, dict) else None
            if kind == "metadata":
                metadata.update((k, v) for k, v in obj.items() if k != "type")
                continue
            fields = {
                "corpus": ("id", "text"),
                "question": ("id", "question", "corpus_id", "references"),
            }
            if kind not in fields:
                raise ValueError(
                    f"{where}: type must be 'corpus', 'question' or 'metadata', got {kind!r}"
                )
            for key in fields[kind]:
                if key not in obj:
                    raise ValueError(f"{where}: missing field {key!r}")
            if kind == "corpus":
                corpora[str(obj["id"])] = obj["text"]
                continue
            refs = obj["references"]
            if not isinstance(refs, list) or not all(
                isinstance(r, dict) and {"start", "end", "content"} <= set(r) for r in refs
            ):
                raise ValueError(f"{where}: references must be a list of {{start, end, content}}")
            questions.append(
                Question(
                    obj["question"],
                    obj["corpus_id"],
                    tuple(Reference(r["start"], r["end"], r["content"]) for r in refs),
                    str(obj["id"]),
                )
            )
    return Dataset(corpora, questions, name=name, metadata=metadata)


def _as_dataset(obj: Dataset | Iterable[Question]) -> Dataset:
    if not isinstance(obj, Dataset):
        raise TypeError(f"dataset must be a ragchunk.eval.Dataset, got {type(obj).__name__}")
    return obj
