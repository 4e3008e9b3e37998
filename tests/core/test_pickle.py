"""Every public class pickles and unpickles to an equal object that works the same way: the
chunkers are shipped to the workers of Ray, Spark and process pools this way."""

from __future__ import annotations

import copy
import inspect
import json
import pickle
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
import ragchunk
from ragchunk.core.tokenizers import resolve_tokenizer

TEXT = "# Title\n\nOne sentence here. Another one follows.\n\n## Part\n\nMore text, and more.\n"
HTML = "<h1>Title</h1><p>One sentence here. Another one follows.</p><h2>Part</h2><p>More.</p>"
JSON = '{"a": {"b": [1, 2, 3], "c": "text here"}, "d": "more text"}'
# A minimal tokenizer.json (one word per token), for ragchunk.Tokenizer.
_WORD_LEVEL = json.dumps(
    {
        "version": "1.0",
        "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "One": 1}, "unk_token": "[UNK]"},
        "pre_tokenizer": {"type": "Whitespace"},
    }
)
CODE = "def f(x):\n    return x + 1\n\n\nclass A:\n    def g(self):\n        return 2\n"


def _run(obj: Any) -> object:
    """What the object produces, for comparing an original with its copy."""
    if isinstance(obj, ragchunk.HTMLSplitter):
        return obj.split(HTML)
    if isinstance(obj, ragchunk.JSONSplitter):
        return obj.split(JSON)
    if isinstance(obj, ragchunk.CodeSplitter):
        return obj.split(CODE)
    if isinstance(obj, ragchunk.Splitter):
        return obj.split(TEXT)
    if isinstance(obj, ragchunk.SplitterComponent):
        return [c["content"] for c in obj.invoke(TEXT)]
    if isinstance(obj, (ragchunk.TokenChunker, ragchunk.TitleChunker)):
        return obj.invoke({"name": "a.md", "output_format": "markdown", "markdown": TEXT})
    if isinstance(obj, ragchunk.Tokenizer):
        return obj.count(TEXT)
    if isinstance(obj, ragchunk.LazyImage):
        return obj.parts
    if isinstance(obj, BaseException):
        return (type(obj), obj.args)
    return obj


# One instance of every public class, several option sets for the chunkers. A class added to
# ``ragchunk.__all__`` without an entry here fails test_every_public_class_is_covered.
FACTORIES: dict[str, list[Callable[[], Any]]] = {
    "CharacterSplitter": [lambda: ragchunk.CharacterSplitter(20, 5, drop_last=True)],
    "Chunk": [lambda: ragchunk.Chunk("ab", 0, 2, 1, {"headers": ["x"]})],
    "CodeSplitter": [lambda: ragchunk.CodeSplitter("python", 16, length="chars")],
    "HTMLSplitter": [lambda: ragchunk.HTMLSplitter(12, 2)],
    "JSONSplitter": [lambda: ragchunk.JSONSplitter(8)],
    "LazyImage": [lambda: ragchunk.LazyImage([b"<png bytes>"])],
    "MarkdownSplitter": [
        lambda: ragchunk.MarkdownSplitter(12, 2),
        lambda: ragchunk.MarkdownSplitter(40, length="chars", strip_headers=False),
    ],
    "MergeStrategy": [lambda: ragchunk.MergeStrategy.HARD_CAP],
    "PaperChunk": [],  # a TypedDict: its values are plain dicts
    "PaperSection": [
        lambda: ragchunk.PaperSection("figure", "", [(2, 5, 30, 40, 60)], caption="Fig. 1")
    ],
    "PipelineChunk": [],  # a TypedDict: its values are plain dicts
    "RagchunkError": [lambda: ragchunk.RagchunkError("boom")],
    "RecursiveSplitter": [
        lambda: ragchunk.RecursiveSplitter(12, 3),
        lambda: ragchunk.RecursiveSplitter.from_language("python", chunk_size=30),
        lambda: ragchunk.RecursiveSplitter(30, 0, length="chars"),
    ],
    "SentenceSplitter": [lambda: ragchunk.SentenceSplitter(10, 1)],
    "Splitter": [],  # abstract: covered by every subclass
    "TitleTreeChunker": [lambda: ragchunk.TitleTreeChunker(20)],
    "SplitterComponent": [
        lambda: ragchunk.SplitterComponent(16, overlapped_percent=10),
        lambda: ragchunk.SplitterComponent.from_preset("legal", delimiters=["\n", "##"]),
    ],
    "TitleChunker": [
        lambda: ragchunk.TitleChunker({"method": "hierarchy", "hierarchy": 2, "levels": [["^#"]]}),
        lambda: ragchunk.TitleChunker({"method": "group", "levels": [["^#", "^##"]]}),
    ],
    "TokenChunker": [
        lambda: ragchunk.TokenChunker({"chunk_token_size": 16, "overlapped_percent": 0.1}),
        lambda: ragchunk.TokenChunker({"delimiters": ["`##`"]}, max_tokens=8, offsets=True),
    ],
    "Tokenizer": [
        lambda: ragchunk.Tokenizer.from_str(_WORD_LEVEL),
        lambda: ragchunk.Tokenizer.from_str(_WORD_LEVEL, add_special_tokens=True),
    ],
    "TokenWindowSplitter": [lambda: ragchunk.TokenWindowSplitter(8, 2, tokenizer="o200k_base")],
}


def _public_classes() -> list[str]:
    return sorted(n for n in ragchunk.__all__ if inspect.isclass(getattr(ragchunk, n)))


def _cases() -> list[Any]:
    return [
        pytest.param(make, id=f"{name}-{i}")
        for name in _public_classes()
        for i, make in enumerate(FACTORIES.get(name, []))
    ]


@pytest.mark.single_backend
def test_every_public_class_is_covered() -> None:
    missing = [n for n in _public_classes() if n not in FACTORIES]
    assert not missing, f"add a pickling case for {missing}"


@pytest.mark.parametrize("make", _cases())
def test_round_trip_is_equal_and_works(make: Callable[[], Any]) -> None:
    original = make()
    expected = _run(original)  # used once, so the copy is made from a warm object too
    for copied in (pickle.loads(pickle.dumps(original)), copy.deepcopy(original)):
        assert type(copied) is type(original)
        if not isinstance(original, (BaseException, ragchunk.LazyImage)):
            assert copied == original
            if isinstance(original, (ragchunk.Splitter, ragchunk.SplitterComponent)):
                assert hash(copied) == hash(original)
        assert _run(copied) == expected


def test_unequal_options_compare_unequal() -> None:
    assert ragchunk.RecursiveSplitter(12, 3) != ragchunk.RecursiveSplitter(12, 2)
    assert ragchunk.SplitterComponent(16) != ragchunk.SplitterComponent(17)
    assert ragchunk.TokenChunker({"chunk_token_size": 16}) != ragchunk.TokenChunker()
    assert ragchunk.MarkdownSplitter(12) != ragchunk.HTMLSplitter(12)


def test_custom_tokenizer_survives_pickling() -> None:
    splitter = ragchunk.RecursiveSplitter(5, 0, tokenizer=len)
    copied = pickle.loads(pickle.dumps(splitter))
    assert copied == splitter
    assert copied.split_text("abcdefghij klmno") == splitter.split_text("abcdefghij klmno")


def test_hugging_face_tokenizer_survives_pickling_into_a_fresh_process() -> None:
    tokenizer = ragchunk.Tokenizer.from_str(_WORD_LEVEL)
    splitter = ragchunk.RecursiveSplitter(2, 0, tokenizer=tokenizer)
    component = ragchunk.SplitterComponent(2, tokenizer=tokenizer)
    # What the chunkers hold once configured; unpickled first, before anything else has
    # registered the tokenizer in the child.
    resolved = resolve_tokenizer(tokenizer)
    text = "One One One two One"
    script = (
        "import pickle, sys, ragchunk; r, s, c = pickle.loads(sys.stdin.buffer.read()); "
        f"print([c.text for c in s.split({text!r})], [d['content'] for d in c.invoke({text!r})], "
        f"ragchunk.count_tokens({text!r}, tokenizer=r.builtin))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        input=pickle.dumps((resolved, splitter, component)),
        capture_output=True,
        check=True,
        timeout=120,
    ).stdout.decode()
    chunks = [c.text for c in splitter.split(text)]
    contents = [d["content"] for d in component.invoke(text)]
    assert out.strip() == f"{chunks!r} {contents!r} {tokenizer.count(text)}"
