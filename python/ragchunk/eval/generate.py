"""Question sets generated from your own corpus: a model proposes a question and the excerpts
that answer it, every excerpt is located in the corpus exactly, and Chroma's two filters drop
poor excerpts and near-duplicate questions.

The generation follows Chroma's ``chunking_evaluation`` framework: for each proposal a window
of ``window`` characters is drawn at a random (seeded) position in the corpus and sent with up
to 20 earlier questions of that corpus (so that the model does not repeat itself); the model
answers with a JSON object ``{"question": ..., "references": ["excerpt", ...]}``. Then:

* every excerpt is located in the corpus: exactly (in the window first, then anywhere), else
  after normalising whitespace, quotes, dashes and case (:func:`locate_excerpt`), else by a
  fuzzy search whose score is kept and must reach ``min_score``. The reference is the corpus
  text found, so its offsets slice the corpus exactly. A proposal with an excerpt that cannot
  be found is dropped and counted, never kept with invented offsets;
* with an ``embedder``, the question and its excerpts are embedded and a question whose least
  similar excerpt has a cosine similarity below ``excerpt_threshold`` (0.36) is dropped, then
  within each corpus repeated questions and questions more similar than
  ``duplicate_threshold`` (0.78) to an earlier kept one are dropped
  (:func:`filter_poor_excerpts`, :func:`filter_duplicates`).

Model calls go through :class:`ragchunk.llm.LLM` (retries, concurrency bound, cache: a re-run
with the same cache makes no request, and a run interrupted part-way resumes from what the
cache holds); embeddings through :func:`ragchunk.embeddings.as_embedder` (de-duplication,
batching, its cache).

>>> import json
>>> corpus = "Cats purr when they are content. Dogs bark at strangers. Fish swim in schools."
>>> answer = json.dumps({"question": "When do cats purr?",
...                      "references": ["Cats  purr when they are content"]})
>>> ds = generate_questions({"pets": corpus}, lambda prompt: answer, per_corpus=1)
>>> r = ds.questions[0].references[0]
>>> (r.start, r.end, r.content), ds.metadata["report"]["normalised"]
((0, 31, 'Cats purr when they are content'), 1)
"""

from __future__ import annotations

import difflib
import os
import random
import re
import sys
from collections import Counter
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..llm.base import LLM, Estimate, Price, as_llm
from ..llm.prompts import PromptTemplate, as_template
from ..llm.runner import drive, json_payload
from .dataset import Dataset, Question, Reference

__all__ = [
    "QUESTION_PROMPT",
    "ExcerptMatch",
    "GenerationReport",
    "estimate_questions",
    "filter_duplicates",
    "filter_poor_excerpts",
    "generate_questions",
    "locate_excerpt",
    "read_corpora",
]

QUESTION_PROMPT = PromptTemplate(
    system=(
        "You write evaluation questions for a search system. Each question is answered by "
        "excerpts copied word for word from a document. You answer with JSON only."
    ),
    user=(
        "Read the document below and write question number {number} about it: ONE new "
        "question that a user of this document might ask, together with the excerpts of the "
        "document that answer it.\n"
        "Rules:\n"
        "1. The question must be answerable from the document alone and must be specific: "
        "avoid questions about the document itself (its title, its author, its structure).\n"
        "2. Each excerpt must be copied exactly from the document, character for character, "
        "without any change, ellipsis or paraphrase; use one to five excerpts, each as short "
        "as it can be while still answering its part of the question.\n"
        "3. Do not repeat or rephrase any of the questions already written.\n"
        "4. Write the question in the language of the document.\n"
        'Answer with a JSON object and nothing else: {"question": "...", "references": '
        '["first excerpt", "second excerpt"]}\n\n'
        "Questions already written:\n{previous}\n\n"
        "Document:\n{document}"
    ),
    fields=("previous", "document"),
)

#: Completion tokens allowed per generation call in estimates (a question and a few excerpts).
COMPLETION_ALLOWANCE = 200
#: Tokens allowed per earlier question listed in a prompt, in estimates.
QUESTION_ALLOWANCE = 25
_PREVIOUS = 20


def read_corpora(
    path: str | os.PathLike[str], patterns: Sequence[str] = ("*.md", "*.txt")
) -> dict[str, str]:
    """The UTF-8 files of a folder matching ``patterns`` (recursively, in sorted order), by
    their path relative to the folder (``/``-separated), or one file by its name.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        ValueError: no file matches.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()); (d / "sub").mkdir()
    >>> _ = (d / "a.md").write_text("A", encoding="utf-8")
    >>> _ = (d / "sub" / "b.txt").write_text("B", encoding="utf-8")
    >>> read_corpora(d)
    {'a.md': 'A', 'sub/b.txt': 'B'}
    """
    root = Path(path)
    if root.is_file():
        with root.open(encoding="utf-8", newline="") as f:
            return {root.name: f.read()}
    if not root.is_dir():
        raise FileNotFoundError(f"corpora: no such file or folder {root}")
    files = sorted({p for pat in patterns for p in root.rglob(pat) if p.is_file()})
    if not files:
        raise ValueError(f"corpora: no file in {root} matches {', '.join(patterns)}")
    out = {}
    for p in files:
        with p.open(encoding="utf-8", newline="") as f:
            out[p.relative_to(root).as_posix()] = f.read()
    return out


# -- locating excerpts --------------------------------------------------------------------

_FOLD = {
    "\u2018": "'",
    "\u2019": "'",
    "\u201a": "'",
    "\u201b": "'",
    "\u2032": "'",
    "`": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u201e": '"',
    "\u201f": '"',
    "\u2033": '"',
    "\u00ab": '"',
    "\u00bb": '"',
    "\u2010": "-",
    "\u2011": "-",
    "\u2012": "-",
    "\u2013": "-",
    "\u2014": "-",
    "\u2015": "-",
    "\u2212": "-",
    "\u2026": "...",
}


def _normalise(text: str) -> tuple[str, list[int]]:
    """``text`` with whitespace runs as one space (none at the ends), quotes and dashes
    folded, lowercased; and for each character of the result the index it comes from."""
    out: list[str] = []
    where: list[int] = []
    space = True
    for i, ch in enumerate(text):
        if ch.isspace():
            if not space:
                out.append(" ")
                where.append(i)
                space = True
            continue
        for c in _FOLD.get(ch, ch).lower():
            out.append(c)
            where.append(i)
        space = False
    if out and out[-1] == " ":
        out.pop()
        where.pop()
    return "".join(out), where


@dataclass(frozen=True)
class ExcerptMatch:
    """Where an excerpt was found: ``corpus[start:end]``, how (``exact``, ``normalised`` or
    ``fuzzy``) and the score (1.0 unless fuzzy: difflib's ratio of the normalised texts).

    >>> ExcerptMatch(0, 4, "exact", 1.0).method
    'exact'
    """

    start: int
    end: int
    method: str
    score: float


class _Corpus:
    """A corpus with its normalised form and word spans, computed once."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._norm: tuple[str, list[int]] | None = None
        self._words: tuple[list[tuple[int, int]], list[str]] | None = None

    @property
    def norm(self) -> tuple[str, list[int]]:
        if self._norm is None:
            self._norm = _normalise(self.text)
        return self._norm

    @property
    def words(self) -> tuple[list[tuple[int, int]], list[str]]:
        if self._words is None:
            norm = self.norm[0]
            spans = [(m.start(), m.end()) for m in re.finditer(r"\S+", norm)]
            self._words = spans, [norm[s:e] for s, e in spans]
        return self._words


def _norm_pos(where: list[int], index: int) -> int:
    """The first normalised position whose source index is >= ``index``."""
    lo, hi = 0, len(where)
    while lo < hi:
        mid = (lo + hi) // 2
        if where[mid] < index:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _fuzzy(c: _Corpus, target: str, min_score: float) -> ExcerptMatch | None:
    spans, words = c.words
    want = target.split()
    n = len(want)
    if not n or not words:
        return None
    need = Counter(want)
    # bag-of-words overlap of every window of n words, updated as the window slides
    have: Counter[str] = Counter()
    overlap = 0
    scores: list[tuple[int, int]] = []
    for i, w in enumerate(words):
        have[w] += 1
        if have[w] <= need.get(w, 0):
            overlap += 1
        if i >= n:
            old = words[i - n]
            if have[old] <= need.get(old, 0):
                overlap -= 1
            have[old] -= 1
        if i >= n - 1 or i == len(words) - 1:
            scores.append((overlap, -(max(0, i - n + 1))))
    if not scores or max(scores)[0] == 0:
        return None
    starts = [-s for _, s in sorted(scores, reverse=True)[:8]]
    norm, where = c.norm
    best: tuple[float, int, int] | None = None
    for base in starts:
        for first in range(max(0, base - 1), min(len(words), base + 2)):
            for length in range(max(1, n - 2), n + 3):
                last = first + length - 1
                if last >= len(words):
                    break
                s, e = spans[first][0], spans[last][1]
                ratio = difflib.SequenceMatcher(None, target, norm[s:e], autojunk=False).ratio()
                if best is None or ratio > best[0]:
                    best = (ratio, s, e)
    if best is None or best[0] < min_score:
        return None
    ratio, s, e = best
    return ExcerptMatch(where[s], where[e - 1] + 1, "fuzzy", ratio)


def locate_excerpt(
    corpus: str,
    excerpt: str,
    *,
    near: tuple[int, int] | None = None,
    min_score: float = 0.9,
    _cached: _Corpus | None = None,
) -> ExcerptMatch | None:
    """Find ``excerpt`` in ``corpus``: exactly, else with whitespace runs, quotes, dashes and
    case normalised, else by a fuzzy search over word windows scored with difflib's ratio of
    the normalised texts (kept when at least ``min_score``). The first occurrence at or after
    ``near[0]`` wins, then the first anywhere. ``None`` when not found.

    >>> text = "He said \u201cyes\u201d.\\nThen   he left the room."
    >>> locate_excerpt(text, "Then he left")
    ExcerptMatch(start=15, end=29, method='normalised', score=1.0)
    >>> m = locate_excerpt(text, "Then he left teh room.")
    >>> m.method, text[m.start:m.end], round(m.score, 3)
    ('fuzzy', 'Then   he left the room.', 0.955)
    >>> locate_excerpt(text, "an invented sentence") is None
    True
    """
    if not isinstance(excerpt, str) or not excerpt.strip():
        return None
    lo, hi = near if near is not None else (0, len(corpus))
    at = corpus.find(excerpt, lo, max(hi, lo + len(excerpt)))
    if at < 0:
        at = corpus.find(excerpt)
    if at >= 0:
        return ExcerptMatch(at, at + len(excerpt), "exact", 1.0)
    c = _cached if _cached is not None else _Corpus(corpus)
    norm, where = c.norm
    target, _ = _normalise(excerpt)
    if not target:
        return None
    pos = norm.find(target, _norm_pos(where, lo))
    if pos < 0:
        pos = norm.find(target)
    if pos >= 0:
        return ExcerptMatch(where[pos], where[pos + len(target) - 1] + 1, "normalised", 1.0)
    return _fuzzy(c, target, min_score)


# -- Chroma's filters ---------------------------------------------------------------------


def filter_poor_excerpts(
    similarities: Sequence[Sequence[float]], threshold: float = 0.36
) -> list[bool]:
    """Which questions to keep: those whose least similar excerpt reaches ``threshold``
    (Chroma's ``filter_poor_excerpts``: ``min(similarities) >= threshold``).

    >>> filter_poor_excerpts([[0.5, 0.4], [0.9, 0.35], [0.36]])
    [True, False, True]
    """
    return [bool(s) and min(s) >= threshold for s in similarities]


def filter_duplicates(
    questions: Sequence[str], similarity: Sequence[Sequence[float]], threshold: float = 0.78
) -> list[bool]:
    """Which questions to keep (Chroma's ``filter_duplicates``): a question repeated word for
    word is dropped after its first occurrence; then, in order, each question still kept
    drops every later kept question more similar to it than ``threshold``.

    >>> sim = [[1, 0.8, 0.1], [0.8, 1, 0.9], [0.1, 0.9, 1]]
    >>> filter_duplicates(["a", "b", "c"], sim)
    [True, False, True]
    """
    n = len(questions)
    if len(similarity) != n or any(len(row) != n for row in similarity):
        raise ValueError(f"similarity must be a {n} x {n} matrix for {n} questions")
    keep = [True] * n
    seen: set[str] = set()
    for i, q in enumerate(questions):
        if q in seen:
            keep[i] = False
        seen.add(q)
    for i in range(n):
        if keep[i]:
            for j in range(i + 1, n):
                if keep[j] and similarity[i][j] > threshold:
                    keep[j] = False
    return keep


# -- generation ---------------------------------------------------------------------------


@dataclass
class GenerationReport:
    """What a generation did: ``proposed`` questions (one per call), ``kept``, and why the
    others went: ``failed`` calls, ``unparsable`` answers, ``too_many_references``,
    ``not_found`` (an excerpt could not be located), ``poor_excerpts``, ``duplicates``; how
    the kept excerpts were found (``exact``, ``normalised``, ``fuzzy``); the model's usage.

    >>> GenerationReport(proposed=3, kept=2, not_found=1).dropped
    1
    """

    proposed: int = 0
    kept: int = 0
    failed: int = 0
    unparsable: int = 0
    too_many_references: int = 0
    not_found: int = 0
    poor_excerpts: int = 0
    duplicates: int = 0
    exact: int = 0
    normalised: int = 0
    fuzzy: int = 0
    usage: dict[str, int] = field(default_factory=dict)

    @property
    def dropped(self) -> int:
        """Proposals not kept, for any reason."""
        return self.proposed - self.kept


@dataclass
class _Proposal:
    corpus_id: str
    index: int
    question: str
    matches: list[ExcerptMatch]
    excerpts: list[str]


def _parse(answer: str, max_references: int) -> tuple[str, list[str]] | str:
    """``(question, excerpts)`` or the name of the report counter the answer falls under."""
    try:
        obj = json_payload(answer, "{")
    except ValueError:
        return "unparsable"
    if not isinstance(obj, dict):
        return "unparsable"
    question, refs = obj.get("question"), obj.get("references")
    if not isinstance(question, str) or not question.strip() or not isinstance(refs, list):
        return "unparsable"
    excerpts = []
    for r in refs:
        if isinstance(r, dict):  # {"content": ...}, as in Chroma's answers with offsets
            r = r.get("content")
        if not isinstance(r, str) or not r.strip():
            return "unparsable"
        excerpts.append(r)
    if not excerpts:
        return "unparsable"
    if len(excerpts) > max_references:
        return "too_many_references"
    return question.strip(), excerpts


_Job = Generator[list[Any], list[Any], list[Any]]


def _corpus_job(
    cid: str,
    text: str,
    template: PromptTemplate,
    per_corpus: int,
    window: int,
    seed: int,
    settle: Callable[[str, int, Any, tuple[int, int]], str | None],
) -> _Job:
    rng = random.Random(f"{seed}\0{cid}")
    previous: list[str] = []
    for i in range(per_corpus):
        start = rng.randint(0, len(text) - window) if len(text) > window else 0
        shown = rng.sample(previous, _PREVIOUS) if len(previous) > _PREVIOUS else previous
        prompt = template.render(
            document=text[start : start + window],
            previous="\n".join(shown) or "(none)",
            number=str(i + 1),
        )
        (answer,) = yield [prompt]
        question = settle(cid, i, answer, (start, start + window))
        if question is not None:
            previous.append(question)
    return []


def _check_corpora(corpora: object) -> dict[str, str]:
    if isinstance(corpora, (str, os.PathLike)):
        return read_corpora(corpora)
    if isinstance(corpora, Dataset):
        return dict(corpora.corpora)
    if not isinstance(corpora, Mapping):
        raise TypeError(
            "corpora must be a mapping {corpus_id: text}, a Dataset or a folder path, "
            f"got {type(corpora).__name__}"
        )
    out = {}
    for cid, text in corpora.items():
        if not isinstance(cid, str) or not isinstance(text, str):
            raise TypeError(f"corpora[{cid!r}] must map a str id to a str text")
        out[cid] = text
    if not out:
        raise ValueError("corpora must not be empty")
    return out


def _check_int(value: object, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    return value


def _check_unit(value: object, name: str, low: float = -1.0) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (low <= value <= 1):
        raise ValueError(f"{name} must be a number between {low:g} and 1, got {value!r}")
    return float(value)


def estimate_questions(
    corpora: Mapping[str, str] | str | os.PathLike[str],
    llm: Any = None,
    *,
    per_corpus: int = 5,
    seed: int = 0,
    window: int = 4000,
    prompt: PromptTemplate | str | None = None,
    price: Price | None = None,
    tokenizer: Any = "cl100k_base",
) -> Estimate:
    """The calls and tokens :func:`generate_questions` would spend, without any call: the
    exact prompts of every proposal (the same seeded windows), plus
    :data:`QUESTION_ALLOWANCE` tokens per earlier question listed and
    :data:`COMPLETION_ALLOWANCE` completion tokens per call. Tokens are counted with ``llm``'s
    tokenizer when given, else ``tokenizer``.

    >>> e = estimate_questions({"d": "Some text. " * 100}, per_corpus=3, tokenizer=len)
    >>> e.calls, e.completion_tokens, e.details["earlier_questions"]
    (3, 600, 3)
    """
    docs = _check_corpora(corpora)
    _check_int(per_corpus, "per_corpus", 1)
    _check_int(window, "window", 1)
    template = as_template(prompt, QUESTION_PROMPT, ("previous", "document"))
    counter = as_llm(llm) if llm is not None else LLM(_no_call, tokenizer=tokenizer)
    calls = prompt_tokens = earlier = 0
    for cid, text in docs.items():
        prompts = _prompts(cid, text, template, per_corpus, window, seed)
        calls += len(prompts)
        prompt_tokens += sum(counter.prompt_tokens(p) for p in prompts)
        # the i-th prompt of a corpus lists up to i earlier questions (at most 20)
        earlier += sum(min(i, _PREVIOUS) for i in range(len(prompts)))
    prompt_tokens += QUESTION_ALLOWANCE * earlier
    return Estimate(
        calls,
        prompt_tokens,
        COMPLETION_ALLOWANCE * calls,
        price,
        len(docs),
        {"earlier_questions": earlier},
    )


def _prompts(
    cid: str, text: str, template: PromptTemplate, per_corpus: int, window: int, seed: int
) -> list[Any]:
    out: list[Any] = []
    job = _corpus_job(cid, text, template, per_corpus, window, seed, lambda *a: None)
    try:
        prompts = next(job)
        while True:
            out.extend(prompts)
            prompts = job.send([""])
    except StopIteration:
        pass
    return out


def _no_call(prompt: str) -> str:
    raise RuntimeError("an estimate never calls the model")


def generate_questions(
    corpora: Mapping[str, str] | str | os.PathLike[str],
    llm: Any,
    *,
    per_corpus: int = 5,
    embedder: Any = None,
    seed: int = 0,
    window: int = 4000,
    prompt: PromptTemplate | str | None = None,
    max_references: int = 5,
    min_score: float = 0.9,
    excerpt_threshold: float = 0.36,
    duplicate_threshold: float = 0.78,
    progress: bool | None = None,
) -> Dataset:
    """A question set over ``corpora`` (a mapping ``{corpus_id: text}``, a Dataset's corpora,
    or a folder read by :func:`read_corpora`), written by ``llm``.

    Args:
        corpora: the documents.
        llm: a :class:`ragchunk.llm.LLM` (such as :class:`~ragchunk.llm.OpenAICompatible`,
            with its cache) or a callable ``prompt -> str``.
        per_corpus: proposals (model calls) per corpus; dropped ones are not replaced.
        embedder: any embedder :func:`ragchunk.embeddings.as_embedder` takes; enables the two
            filters. Without it no proposal is filtered (the report says so).
        seed: the windows' and earlier questions' random draws.
        window: characters of the corpus shown per proposal (Chroma: 4000).
        prompt: a :class:`~ragchunk.llm.PromptTemplate` or user-message string with the
            ``{document}`` and ``{previous}`` fields, and optionally ``{number}`` (the
            proposal's number in its corpus, which keeps two prompts over the same window
            apart) (default :data:`QUESTION_PROMPT`).
        max_references: a proposal with more excerpts is dropped (Chroma: 5).
        min_score: the least fuzzy score an excerpt may be located with.
        excerpt_threshold, duplicate_threshold: Chroma's filter thresholds.
        progress: a line per corpus on stderr (default: when stderr is a terminal).

    Returns:
        A :class:`~ragchunk.eval.Dataset` of the kept questions (ids ``<corpus id>#<n>``, n
        the proposal number), whose ``metadata`` holds the settings, the
        :class:`GenerationReport` (``metadata["report"]``), how each reference was located,
        and each question's least excerpt similarity.

    >>> reply = '{"question": "What do dogs do?", "references": ["Dogs bark."]}'
    >>> ds = generate_questions({"d": "Cats purr. Dogs bark."}, lambda prompt: reply)
    >>> [(q.id, q.references[0].start) for q in ds.questions]
    [('d#0', 11), ('d#1', 11), ('d#2', 11), ('d#3', 11), ('d#4', 11)]
    >>> ds.metadata["settings"]["filters"]
    False
    """
    docs = _check_corpora(corpora)
    model = as_llm(llm)
    _check_int(per_corpus, "per_corpus", 1)
    _check_int(window, "window", 200)
    _check_int(max_references, "max_references", 1)
    _check_unit(min_score, "min_score", 0.0)
    _check_unit(excerpt_threshold, "excerpt_threshold")
    _check_unit(duplicate_threshold, "duplicate_threshold")
    template = as_template(prompt, QUESTION_PROMPT, ("previous", "document"))
    show = sys.stderr.isatty() if progress is None else progress
    report = GenerationReport()
    cached = {cid: _Corpus(text) for cid, text in docs.items()}
    proposals: list[_Proposal] = []
    before = (model.usage.calls, model.usage.cache_hits, model.usage.prompt_tokens)
    before_c = model.usage.completion_tokens

    def settle(cid: str, index: int, answer: Any, near: tuple[int, int]) -> str | None:
        report.proposed += 1
        if isinstance(answer, BaseException):
            report.failed += 1
            return None
        parsed = _parse(answer, max_references)
        if isinstance(parsed, str):
            setattr(report, parsed, getattr(report, parsed) + 1)
            return None
        question, excerpts = parsed
        matches = []
        for ex in excerpts:
            m = locate_excerpt(docs[cid], ex, near=near, min_score=min_score, _cached=cached[cid])
            if m is None:
                report.not_found += 1
                return question  # the model wrote it: listed so that it is not repeated
            matches.append(m)
        proposals.append(_Proposal(cid, index, question, matches, excerpts))
        return question

    jobs = [
        _corpus_job(cid, text, template, per_corpus, window, seed, settle)
        for cid, text in docs.items()
    ]
    drive(model, jobs)
    if show:
        print(f"{report.proposed} proposals, {len(proposals)} located", file=sys.stderr)
    keep = [True] * len(proposals)
    worst: list[float | None] = [None] * len(proposals)
    if embedder is not None and proposals:
        keep, worst = _filter(
            proposals, docs, embedder, excerpt_threshold, duplicate_threshold, report
        )
    questions = []
    located: dict[str, Any] = {}
    for p, k, w in zip(proposals, keep, worst, strict=True):
        if not k:
            continue
        refs: dict[tuple[int, int], ExcerptMatch] = {}
        for m in p.matches:
            refs.setdefault((m.start, m.end), m)
        ordered = sorted(refs.values(), key=lambda m: (m.start, m.end))
        qid = f"{p.corpus_id}#{p.index}"
        questions.append(
            Question(
                p.question,
                p.corpus_id,
                tuple(
                    Reference(m.start, m.end, docs[p.corpus_id][m.start : m.end]) for m in ordered
                ),
                qid,
            )
        )
        for m in p.matches:
            setattr(report, m.method, getattr(report, m.method) + 1)
        located[qid] = {
            "references": [
                {"method": m.method, "score": round(m.score, 6), "excerpt": ex}
                for m, ex in zip(p.matches, p.excerpts, strict=True)
            ],
            "excerpt_similarity": None if w is None else round(w, 6),
        }
    report.kept = len(questions)
    report.usage = {
        "calls": model.usage.calls - before[0],
        "cache_hits": model.usage.cache_hits - before[1],
        "prompt_tokens": model.usage.prompt_tokens - before[2],
        "completion_tokens": model.usage.completion_tokens - before_c,
    }
    settings = {
        "model": model.model,
        "per_corpus": per_corpus,
        "seed": seed,
        "window": window,
        "max_references": max_references,
        "min_score": min_score,
        "filters": embedder is not None,
        "excerpt_threshold": excerpt_threshold,
        "duplicate_threshold": duplicate_threshold,
        "embedder": None if embedder is None else _embedder_name(embedder),
        "prompt": {"system": template.system, "user": template.user},
    }
    metadata = {
        "generator": "ragchunk.eval.generate_questions",
        "settings": settings,
        "report": {**asdict(report), "dropped": report.dropped},
        "questions": located,
    }
    return Dataset(docs, questions, name="generated", metadata=metadata)


def _embedder_name(embedder: Any) -> str:
    from ..embeddings import as_embedder

    return str(as_embedder(embedder).model)


def _filter(
    proposals: list[_Proposal],
    docs: Mapping[str, str],
    embedder: Any,
    excerpt_threshold: float,
    duplicate_threshold: float,
    report: GenerationReport,
) -> tuple[list[bool], list[float | None]]:
    from ..embeddings import as_embedder

    emb = as_embedder(embedder)
    texts: list[str] = []
    for p in proposals:
        texts.append(p.question)
        texts.extend(docs[p.corpus_id][m.start : m.end] for m in p.matches)
    vectors = emb.embed(texts)
    from ..core.optional import np

    v = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    v = np.divide(v, norms, out=np.zeros_like(v), where=norms > 0)
    sims: list[list[float]] = []
    qrows: list[int] = []
    at = 0
    for p in proposals:
        q = v[at]
        qrows.append(at)
        sims.append([float(q @ v[at + 1 + j]) for j in range(len(p.matches))])
        at += 1 + len(p.matches)
    keep = filter_poor_excerpts(sims, excerpt_threshold)
    report.poor_excerpts = keep.count(False)
    worst: list[float | None] = [min(s) if s else None for s in sims]
    for cid in docs:
        idx = [i for i, p in enumerate(proposals) if p.corpus_id == cid and keep[i]]
        if len(idx) < 2:
            continue
        qv = v[[qrows[i] for i in idx]]
        matrix = (qv @ qv.T).tolist()
        kept = filter_duplicates([proposals[i].question for i in idx], matrix, duplicate_threshold)
        for i, k in zip(idx, kept, strict=True):
            if not k:
                keep[i] = False
                report.duplicates += 1
    return keep, worst
