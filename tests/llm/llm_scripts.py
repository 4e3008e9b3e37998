"""A deterministic stand-in for a language model: it reads the chunkers' default prompts and
answers them the way a sensible model would, so tests can run the chunkers end to end."""

from __future__ import annotations

import json
import re
from pathlib import Path

from openai_server import CHAT_PATH, RecordedRequest, Reply, _default_reply, chat
from testdata import CORPUS, ROOT

_PIECE = re.compile(r"^\[(\d+)\] (.*)$", re.MULTILINE)
_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]*")


def corpus_text(source: str, name: str = "0000.md", size: int = 6000) -> str | None:
    """The first ``size`` characters of a corpus document, or ``None`` when absent."""
    for corpus in (CORPUS, ROOT.parent.parent / "shared" / "corpus"):
        path = Path(corpus) / source / name
        if path.is_file():
            return path.read_text(encoding="utf-8")[:size]
    return None


def kind(prompt: str) -> str:
    if "<document>" in prompt and "<passage>" in prompt:
        return "context"
    if "Decompose the passage" in prompt:
        return "propositions"
    if "Group the numbered propositions" in prompt:
        return "grouping"
    if "starts a new topic" in prompt:
        return "boundary"
    return "other"


def boundary_answer(prompt: str) -> str:
    """A new topic at every piece that is a Markdown heading, and every 6th piece."""
    pieces = [(int(n), t) for n, t in _PIECE.findall(prompt)]
    if not pieces:
        return "[]"
    first = pieces[0][0]
    cuts = [n for n, t in pieces if n > first and (t.startswith("#") or n % 6 == 0)]
    return json.dumps(cuts)


def passage_of(prompt: str) -> str:
    return prompt.split("Passage:\n", 1)[-1].split("\n\nYour previous answer", 1)[0]


def proposition_answer(prompt: str) -> str:
    """The passage's sentences, each one proposition."""
    passage = passage_of(prompt)
    sentences = [s.strip() for s in _SENTENCE.findall(passage) if s.strip()]
    return json.dumps(sentences or [passage.strip() or "(empty)"], ensure_ascii=False)


def grouping_answer(prompt: str) -> str:
    """Propositions grouped five by five, titled by their first number."""
    listing = prompt.split("Propositions:\n", 1)[-1]
    numbers = [int(n) for n, _ in _PIECE.findall(listing)]
    groups: dict[str, list[int]] = {}
    for n in numbers:
        groups.setdefault(f"Topic {numbers[0] + (n - numbers[0]) // 5 * 5}", []).append(n)
    return json.dumps(groups)


def context_answer(prompt: str) -> str:
    chunk = prompt.split("<passage>\n", 1)[-1].split("\n</passage>", 1)[0]
    words = chunk.split()[:6]
    return "Context: this passage covers " + " ".join(words)


def answer(prompt: str) -> str:
    """What the stand-in model answers to ``prompt``."""
    k = kind(prompt)
    if k == "context":
        return context_answer(prompt)
    if k == "propositions":
        return proposition_answer(prompt)
    if k == "grouping":
        return grouping_answer(prompt)
    if k == "boundary":
        return boundary_answer(prompt)
    return "ok"


def responder(request: RecordedRequest) -> Reply:
    """The test server's answer to a chat request (usage counted as words); other routes
    (embeddings) get the server's default answers."""
    if request.path != CHAT_PATH:
        return _default_reply(request)
    prompt = request.prompt
    content = answer(prompt)
    return chat(content, prompt_tokens=len(prompt.split()), completion_tokens=len(content.split()))
