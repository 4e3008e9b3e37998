"""PropositionChunker: passages decomposed into propositions by the model, then grouped by topic."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..core.checks import check_int, check_text
from ..core.chunk import Chunk, check_texts
from ..core.counting import Counter
from ..splitters.sentence import SentenceSplitter
from .base import LLM, Estimate, LLMError, Price, Prompt, as_llm
from .prompts import GROUPING_PROMPT, PROPOSITION_PROMPT, PromptTemplate, as_template
from .runner import Job, ModelChunker, json_payload

__all__ = ["PropositionChunker", "parse_groups", "parse_propositions"]

_REASK = (
    "\n\nYour previous answer could not be used ({reason}). Answer again with only the JSON "
    "value asked for."
)


def parse_propositions(answer: str) -> list[str]:
    """The propositions of a model answer: a JSON list of non-empty strings (possibly fenced
    or inside prose). Raises ``ValueError`` saying why otherwise.

    >>> parse_propositions('Sure:\\n```json\\n["Ada wrote code.", "Ada was a poet."]\\n```')
    ['Ada wrote code.', 'Ada was a poet.']
    """
    if not isinstance(answer, str):
        raise ValueError(f"the answer is {type(answer).__name__}, not text")
    value = json_payload(answer, "[")
    if not isinstance(value, list) or not value:
        raise ValueError("the answer is not a non-empty JSON list")
    out = []
    for item in value:
        if isinstance(item, dict) and len(item) == 1:
            (item,) = item.values()
        if not isinstance(item, str):
            raise ValueError(f"not a string: {item!r}")
        if item.strip():
            out.append(item.strip())
    if not out:
        raise ValueError("the list holds no proposition")
    return out


def parse_groups(answer: str, first: int, last: int) -> list[tuple[str, list[int]]]:
    """``(title, proposition numbers)`` pairs of a grouping answer (a JSON object mapping
    titles to lists of numbers). Numbers outside ``first..last`` make the answer invalid; a
    number listed twice stays in its first group; numbers left out come back as one-member
    groups titled ``""``.

    >>> parse_groups('{"Cats": [0, 2], "Dogs": [1]}', 0, 3)
    [('Cats', [0, 2]), ('Dogs', [1]), ('', [3])]
    """
    if not isinstance(answer, str):
        raise ValueError(f"the answer is {type(answer).__name__}, not text")
    value = json_payload(answer, "{")
    if not isinstance(value, dict) or not value:
        raise ValueError("the answer is not a non-empty JSON object")
    seen: set[int] = set()
    groups: list[tuple[str, list[int]]] = []
    for title, members in value.items():
        if not isinstance(members, list):
            raise ValueError(f"topic {title!r} does not map to a list")
        kept = []
        for m in members:
            if isinstance(m, str) and m.strip().isdigit():
                m = int(m)
            if isinstance(m, bool) or not isinstance(m, int):
                raise ValueError(f"not a proposition number: {m!r}")
            if not first <= m <= last:
                raise ValueError(f"number {m} out of range {first}..{last}")
            if m not in seen:
                seen.add(m)
                kept.append(m)
        if kept:
            groups.append((str(title).strip(), kept))
    if not groups:
        raise ValueError("no proposition was grouped")
    groups.extend(("", [m]) for m in range(first, last + 1) if m not in seen)
    return groups


@dataclass
class _Proposition:
    text: str
    passage: int
    tokens: int


def _as_embed(embedder: Any) -> Callable[[list[str]], list[list[float]]]:
    from ..embeddings import as_embedder

    try:
        coerced = as_embedder(embedder)
    except ImportError:  # numpy, which the embedder protocol needs, is missing: coerce here
        coerced = None
    if coerced is not None:
        embed_fn = coerced.embed
        return lambda texts: [list(map(float, v)) for v in embed_fn(texts)]
    method = getattr(embedder, "embed", None)
    fn = method if callable(method) else embedder
    if not callable(fn):
        raise TypeError(
            "embedder must have an .embed(list[str]) method or be a callable list[str] -> vectors"
        )
    return lambda texts: [list(map(float, v)) for v in fn(texts)]


def _unit(v: Sequence[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / norm for x in v]


class PropositionChunker(ModelChunker):
    """Agentic chunking: the model rewrites each passage as simple, self-contained
    propositions, which are then grouped by topic into chunks of at most ``chunk_size`` tokens.

    Passages are ragchunk sentence-packed spans of at most ``passage_size`` tokens; one call
    per passage returns a JSON list of strings (``prompt``; the default follows the rules of
    proposition (agentic) chunking: simple sentences, entities with their descriptions, pronouns
    replaced, JSON list). Grouping (``group_by``):

    * ``"embeddings"`` (the default when ``embedder`` is given: an object with
      ``.embed(list[str])`` or a callable): each proposition joins the most similar topic
      (cosine to the topic's mean vector) when the similarity is at least ``similarity`` and
      the topic has room, else it starts a new topic. Related propositions far apart in the
      document end up together.
    * ``"llm"``: the model groups ``group_batch`` numbered propositions per call (never one
      call per proposition), seeing the topic titles found so far (``grouping_prompt``).

    A chunk's text is model-written (the propositions, one per line), so ``metadata`` carries
    where it came from: ``propositions``, ``passages`` (indices), ``source_spans`` (the
    ``(start, end)`` of those passages in the source) and ``title``; ``start``/``end`` span
    them; ``metadata["generated"]`` is ``True``. An answer that cannot be parsed is asked
    again up to ``max_reasks`` times, then the passage's own sentences stand in for its
    propositions (``metadata["fallback"]``). A call that fails after its retries raises
    :class:`~ragchunk.llm.LLMError` with the document and passage index, or, with
    ``on_error="keep"``, falls back the same way and records ``metadata["llm_error"]``.

    >>> answers = {"Cats": '["Cats purr.", "Cats nap."]', "Dogs": '["Dogs bark."]'}
    >>> model = lambda p: answers["Dogs" if "Dogs bark" in p.split("Passage:")[-1] else "Cats"]
    >>> embed = lambda texts: [[1.0, 0.0] if "Cat" in t else [0.0, 1.0] for t in texts]
    >>> chunker = PropositionChunker(model, embedder=embed, passage_size=8)
    >>> [c.text for c in chunker.split("Cats purr and nap. Dogs bark.")]
    ['Cats purr.\\nCats nap.', 'Dogs bark.']
    """

    def __init__(
        self,
        llm: Any,
        chunk_size: int = 256,
        *,
        embedder: Any = None,
        group_by: Literal["embeddings", "llm"] | None = None,
        similarity: float = 0.5,
        passage_size: int = 256,
        group_batch: int = 60,
        max_reasks: int = 1,
        prompt: PromptTemplate | str | None = None,
        grouping_prompt: PromptTemplate | str | None = None,
        tokenizer: Any = "cl100k_base",
        on_error: Literal["raise", "keep"] = "raise",
    ) -> None:
        self.llm: LLM = as_llm(llm)
        self.chunk_size = check_int("chunk_size", chunk_size, 1)
        if group_by is None:
            group_by = "embeddings" if embedder is not None else "llm"
        if group_by not in ("embeddings", "llm"):
            raise ValueError(f"group_by must be 'embeddings' or 'llm', got {group_by!r}")
        if group_by == "embeddings" and embedder is None:
            raise ValueError("group_by='embeddings' needs an embedder")
        self.group_by = group_by
        self.embedder = embedder
        self._embed = _as_embed(embedder) if embedder is not None else None
        if not isinstance(similarity, (int, float)) or not -1.0 <= similarity <= 1.0:
            raise ValueError(f"similarity must be a number in [-1, 1], got {similarity!r}")
        self.similarity = float(similarity)
        self.passage_size = check_int("passage_size", passage_size, 1)
        self.group_batch = check_int("group_batch", group_batch, 1)
        self.max_reasks = check_int("max_reasks", max_reasks, 0)
        self.prompt = as_template(prompt, PROPOSITION_PROMPT, PROPOSITION_PROMPT.fields)
        self.grouping_prompt = as_template(grouping_prompt, GROUPING_PROMPT, GROUPING_PROMPT.fields)
        if on_error not in ("raise", "keep"):
            raise ValueError(f"on_error must be 'raise' or 'keep', got {on_error!r}")
        self.on_error = on_error
        self.tokenizer = tokenizer
        self._count = Counter(tokenizer)
        self._passages = SentenceSplitter(chunk_size=self.passage_size, tokenizer=tokenizer)

    def __repr__(self) -> str:
        return (
            f"PropositionChunker({self.llm!r}, chunk_size={self.chunk_size}, "
            f"group_by={self.group_by!r}, passage_size={self.passage_size})"
        )

    def passages(self, text: str) -> list[Chunk]:
        """The passages sent to the model, exact spans of ``text``.

        >>> [c.text for c in PropositionChunker(str, passage_size=4).passages("A b c. D e f.")]
        ['A b c.', 'D e f.']
        """
        return self._passages.split(check_text(text))

    # -- the work -----------------------------------------------------------------------------

    def _job(self, text: str, document: int) -> Job[list[Chunk]]:
        passages = self.passages(text)
        if not passages:
            return []
        base = [self.prompt.render(passage=p.text) for p in passages]
        found: dict[int, list[str]] = {}
        notes: dict[int, str] = {}
        errors: dict[int, str] = {}
        todo = list(range(len(passages)))
        prompts: list[Prompt] = list(base)
        for round_ in range(self.max_reasks + 1):
            answers = yield prompts
            retry: list[int] = []
            retry_prompts: list[Prompt] = []
            for k, answer in zip(todo, answers, strict=True):
                if isinstance(answer, BaseException):
                    if self.on_error == "raise":
                        raise LLMError(
                            f"passage {k}: the model call failed: {answer}",
                            document=document,
                            chunk=k,
                        ) from answer
                    errors[k] = f"{type(answer).__name__}: {answer}"
                    continue
                try:
                    found[k] = parse_propositions(answer)
                except ValueError as why:
                    if round_ < self.max_reasks:
                        retry.append(k)
                        messages = [dict(m) for m in base[k]]
                        messages[-1]["content"] += _REASK.format(reason=why)
                        retry_prompts.append(messages)
                    else:
                        notes[k] = str(why)
            if not retry:
                break
            todo, prompts = retry, retry_prompts
        props: list[_Proposition] = []
        for k, passage in enumerate(passages):
            texts = found.get(k)
            if texts is None:  # the passage's own sentences stand in
                texts = SentenceSplitter.sentences(passage.text) or [passage.text]
            props.extend(_Proposition(t, k, self._count(t)) for t in texts)
        if self.group_by == "embeddings":
            groups = self._group_by_embeddings(props)
        else:
            groups = yield from self._group_by_llm(props)
        return self._chunks(passages, props, groups, notes, errors)

    def _fits(self, members: list[int], props: list[_Proposition], extra: int) -> bool:
        if not members:
            return True
        return sum(props[m].tokens + 1 for m in members) + props[extra].tokens <= self.chunk_size

    def _group_by_embeddings(self, props: list[_Proposition]) -> list[tuple[str, list[int]]]:
        assert self._embed is not None
        vectors = [_unit(v) for v in self._embed([p.text for p in props])]
        if len(vectors) != len(props):
            raise LLMError(f"the embedder returned {len(vectors)} vectors for {len(props)} texts")
        groups: list[list[int]] = []
        sums: list[list[float]] = []
        for i, v in enumerate(vectors):
            best, best_sim = -1, -2.0
            for g, total in enumerate(sums):
                if not self._fits(groups[g], props, i):
                    continue
                sim = sum(a * b for a, b in zip(_unit(total), v, strict=True))
                if sim > best_sim:
                    best, best_sim = g, sim
            if best >= 0 and best_sim >= self.similarity:
                groups[best].append(i)
                sums[best] = [a + b for a, b in zip(sums[best], v, strict=True)]
            else:
                groups.append([i])
                sums.append(list(v))
        return [("", g) for g in groups]

    def _group_by_llm(self, props: list[_Proposition]) -> Job[list[tuple[str, list[int]]]]:
        titles: list[str] = []
        groups: list[list[int]] = []
        by_title: dict[str, int] = {}
        for a in range(0, len(props), self.group_batch):
            b = min(len(props), a + self.group_batch)
            prompt = self._grouping_prompt(props, titles, a, b)
            parsed: list[tuple[str, list[int]]] | None = None
            for _attempt in range(self.max_reasks + 1):
                (answer,) = yield [prompt]
                if isinstance(answer, BaseException):
                    if self.on_error == "raise":
                        raise LLMError(f"grouping propositions {a}-{b - 1} failed: {answer}")
                    break
                try:
                    parsed = parse_groups(answer, a, b - 1)
                    break
                except ValueError as why:
                    prompt = [dict(m) for m in prompt]
                    prompt[-1]["content"] += _REASK.format(reason=why)
            if parsed is None:  # fall back to document order
                parsed = [("", list(range(a, b)))]
            for title, members in parsed:
                for m in members:
                    key = title.casefold()
                    g = by_title.get(key) if title else None
                    if g is None or not self._fits(groups[g], props, m):
                        if (
                            not title
                            and groups
                            and self._fits(groups[-1], props, m)
                            and not titles[-1]
                        ):
                            groups[-1].append(m)
                            continue
                        groups.append([m])
                        titles.append(title)
                        if title:
                            by_title[key] = len(groups) - 1
                    else:
                        groups[g].append(m)
        return list(zip(titles, groups, strict=True))

    def _grouping_prompt(
        self, props: list[_Proposition], titles: list[str], a: int, b: int
    ) -> list[dict[str, str]]:
        known = sorted({t for t in titles if t})
        topics = "\n".join(f"- {t}" for t in known) if known else "(none yet)"
        listing = "\n".join(f"[{i}] {props[i].text}" for i in range(a, b))
        return self.grouping_prompt.render(
            topics=topics, propositions=listing, first=str(a), last=str(b - 1)
        )

    def _chunks(
        self,
        passages: list[Chunk],
        props: list[_Proposition],
        groups: list[tuple[str, list[int]]],
        notes: dict[int, str],
        errors: dict[int, str],
    ) -> list[Chunk]:
        chunks = []
        for title, members in groups:
            if not members:
                continue
            members = sorted(members)
            texts = [props[m].text for m in members]
            used = sorted({props[m].passage for m in members})
            spans = [(passages[k].start, passages[k].end) for k in used]
            text = "\n".join(texts)
            meta: dict[str, Any] = {
                "generated": True,
                "title": title,
                "propositions": texts,
                "passages": used,
                "source_spans": spans,
                "fallback": any(k in notes or k in errors for k in used),
            }
            failures = [errors[k] for k in used if k in errors]
            if failures:
                meta["llm_error"] = "; ".join(failures)
            start, end = spans[0][0], max(e for _, e in spans)
            chunks.append(Chunk(text, start, end, self._count(text), meta))
        chunks.sort(key=lambda c: (c.start, c.end))
        return chunks

    # -- public -------------------------------------------------------------------------------

    def estimate(self, texts: str | Sequence[str], price: Price | None = None) -> Estimate:
        """The calls and tokens :meth:`split_batch` would use, without calling the model.

        Decomposition prompts are counted exactly; each answer is allowed as many tokens as
        its passage plus a quarter. With ``group_by="llm"``, grouping calls are estimated from
        one proposition per 20 passage tokens.

        >>> e = PropositionChunker(str, passage_size=5).estimate("One two. Three four five six.")
        >>> e.calls >= 2, e.details["passages"]
        (True, 2)
        """
        docs = [texts] if isinstance(texts, str) else check_texts(texts)
        calls = p_tokens = c_tokens = n_passages = 0
        grouping_calls = 0
        for text in docs:
            passages = self.passages(text)
            n_passages += len(passages)
            doc_props = 0
            for p in passages:
                calls += 1
                p_tokens += self.llm.prompt_tokens(self.prompt.render(passage=p.text))
                c_tokens += p.token_count + p.token_count // 4 + 2
                doc_props += max(1, p.token_count // 20)
            if self.group_by == "llm" and doc_props:
                batches = math.ceil(doc_props / self.group_batch)
                grouping_calls += batches
                overhead = self.llm.prompt_tokens(
                    self.grouping_prompt.render(topics="", propositions="", first="0", last="0")
                )
                body = sum(p.token_count for p in passages) * 5 // 4 + 4 * doc_props
                p_tokens += batches * overhead + body + batches * 8 * min(doc_props, 50)
                c_tokens += 6 * doc_props
        return Estimate(
            calls + grouping_calls,
            p_tokens,
            c_tokens,
            price,
            len(docs),
            {"passages": n_passages, "grouping_calls": grouping_calls},
        )
