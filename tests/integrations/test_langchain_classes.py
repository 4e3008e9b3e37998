"""The LangChain drop-ins are LangChain's classes with the core doing the work: LangChain's own
splitting never runs, subclass hooks are called, the drop-ins pickle; and LangChain's own unit
tests run against them (``langchain_suite.py``)."""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

lc = pytest.importorskip("langchain_text_splitters")
pytest.importorskip("tiktoken")

from langchain_cases import DROPINS, build, quiet_langchain, words  # noqa: E402, F401
from ragchunk.integrations import langchain as rc  # noqa: E402

# ---------------------------------------------------------------------------------------------
# The core does the work; the classes are LangChain's.

RUST_CASES: list[tuple[str, str, dict[str, Any], str]] = [
    ("RecursiveCharacterTextSplitter", "init", {"chunk_size": 40, "chunk_overlap": 10}, "x"),
    (
        "RecursiveCharacterTextSplitter",
        "init",
        {"chunk_size": 40, "chunk_overlap": 40, "keep_separator": False},
        "x",
    ),
    (
        "RecursiveCharacterTextSplitter",
        "init",
        {"chunk_size": 12, "chunk_overlap": 2, "length_function": words},
        "x",
    ),
    ("RecursiveCharacterTextSplitter", "language:markdown", {"chunk_size": 60}, "x"),
    ("RecursiveCharacterTextSplitter", "tiktoken:cl100k_base", {"chunk_size": 16}, "x"),
    ("CharacterTextSplitter", "init", {"separator": " ", "chunk_size": 30}, "x"),
    (
        "CharacterTextSplitter",
        "init",
        {
            "separator": r"\s+",
            "is_separator_regex": True,
            "chunk_size": 30,
            "keep_separator": "end",
        },
        "x",
    ),
    ("CharacterTextSplitter", "tiktoken:o200k_base", {"separator": " ", "chunk_size": 9}, "x"),
    ("TokenTextSplitter", "init", {"encoding_name": "cl100k_base", "chunk_size": 7}, "x"),
]


def test_the_core_splits_without_langchains_code(
    backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if backend != "rust":
        pytest.skip("the pure-Python backend runs LangChain's own code")
    text = (
        "# Title\n\nChunking text for retrieval, exactly as LangChain does it.\n"
        "Second line of the paragraph. 中文。🦀\n\n## More\n\nA last paragraph here."
    )
    want = []
    splitters = []
    for name, how, kwargs, _ in RUST_CASES:
        kwargs = {"chunk_overlap": 0, **kwargs}
        want.append(build(lc, name, how, kwargs).split_text(text))
        splitters.append(build(rc, name, how, kwargs))

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("LangChain's own splitting ran")

    for cls in (lc.RecursiveCharacterTextSplitter, lc.CharacterTextSplitter, lc.TokenTextSplitter):
        monkeypatch.setattr(cls, "split_text", forbidden)
    monkeypatch.setattr(lc.TextSplitter, "_merge_splits", forbidden)
    monkeypatch.setattr(lc.base, "split_text_on_tokens", forbidden)
    for splitter, expected in zip(splitters, want, strict=True):
        assert splitter.split_text(text) == expected


def test_drop_ins_are_langchains_classes() -> None:
    for name in DROPINS:
        ours = getattr(rc, name)
        assert issubclass(ours, getattr(lc, name)) and issubclass(ours, lc.TextSplitter)
        assert ours.__name__ == name
    assert rc.Language is lc.Language
    s = rc.RecursiveCharacterTextSplitter.from_language(
        lc.Language.PYTHON, chunk_size=50, chunk_overlap=0
    )
    assert isinstance(s, rc.RecursiveCharacterTextSplitter)
    assert isinstance(s, lc.RecursiveCharacterTextSplitter)
    t = rc.CharacterTextSplitter.from_tiktoken_encoder(encoding_name="cl100k_base")
    assert isinstance(t, rc.CharacterTextSplitter)
    theirs = lc.CharacterTextSplitter.from_tiktoken_encoder(encoding_name="cl100k_base")
    assert t._length_function("abcdef" * 5) == theirs._length_function("abcdef" * 5) == 5
    w = rc.TokenTextSplitter.from_tiktoken_encoder(model_name="gpt-4o")
    assert isinstance(w, rc.TokenTextSplitter) and w._tokenizer.name == "o200k_base"


class _Shouting:
    """A user's subclass hook: LangChain's split_text calls it, so the drop-in must too."""

    def _join_docs(self, docs: list[str], separator: str) -> str | None:
        text = super()._join_docs(docs, separator)  # type: ignore[misc]
        return None if text is None else text.upper()


def test_subclasses_overriding_langchains_hooks_get_them_called() -> None:
    text = "one two three four five six seven"
    for name, kwargs in [
        ("RecursiveCharacterTextSplitter", {"chunk_size": 10, "chunk_overlap": 0}),
        ("CharacterTextSplitter", {"separator": " ", "chunk_size": 10, "chunk_overlap": 0}),
    ]:
        theirs = type("Theirs", (_Shouting, getattr(lc, name)), {})(**kwargs)
        ours = type("Ours", (_Shouting, getattr(rc, name)), {})(**kwargs)
        want = theirs.split_text(text)
        assert want[0].isupper() and ours.split_text(text) == want


def test_drop_ins_pickle_and_copy() -> None:
    text = "one two three four five six seven eight nine ten"
    for s in (
        rc.RecursiveCharacterTextSplitter(chunk_size=12, chunk_overlap=4),
        rc.CharacterTextSplitter(separator=" ", chunk_size=12, chunk_overlap=4),
    ):
        want = s.split_text(text)
        assert pickle.loads(pickle.dumps(s)).split_text(text) == want
        assert copy.deepcopy(s).split_text(text) == want
    # A splitter whose settings change after use gives the chunks of its new settings.
    s = rc.RecursiveCharacterTextSplitter(chunk_size=12, chunk_overlap=4)
    s.split_text(text)
    s._chunk_size = 20
    assert s.split_text(text) == lc.RecursiveCharacterTextSplitter(
        chunk_size=20, chunk_overlap=4
    ).split_text(text)


@pytest.mark.single_backend
def test_import_ragchunk_does_not_import_langchain() -> None:
    code = "import ragchunk, sys; print(sorted(m for m in sys.modules if 'langchain' in m))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# ---------------------------------------------------------------------------------------------
# LangChain's own unit tests, with the drop-ins in place of LangChain's classes.

#: LangChain tests that pass on LangChain's classes and are expected not to on the drop-ins,
#: with the reason (docs/integrations.md would list them too). There are none.
KNOWN_DIFFERENCES: dict[str, str] = {}


@pytest.fixture(scope="module")
def langchain_sources() -> Path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import langchain_suite

    root = langchain_suite.fetched()
    if root is None:  # the set-up fetches it; the tests download nothing
        pytest.fail(
            f"LangChain's sdist is not in {langchain_suite.SDISTS}: run scripts/setup.sh --dev"
        )
    return root


@pytest.mark.single_backend
def test_langchains_own_unit_tests_pass_on_the_dropins(langchain_sources: Path) -> None:
    import langchain_suite

    theirs = langchain_suite.run(langchain_sources, patched=False)
    ours = langchain_suite.run(langchain_sources, patched=True)
    assert theirs.count("passed") >= 100, theirs.output[-3000:]
    diff = langchain_suite.differences(theirs, ours)
    unexpected = {n: d for n, d in diff.items() if n not in KNOWN_DIFFERENCES}
    assert not unexpected, ours.output[-3000:]
    modules = ours.stats["modules"]
    assert isinstance(modules, dict)
    seen = [v for m, v in modules.items() if m.endswith("test_text_splitters")]
    assert seen and all(all(names.values()) for names in seen), modules
    per_class = langchain_suite.by_class(theirs, ours)
    least = {
        "RecursiveCharacterTextSplitter": 20,
        "CharacterTextSplitter": 20,
        "MarkdownHeaderTextSplitter": 10,
        "RecursiveJsonSplitter": 15,
        "HTMLHeaderTextSplitter": 5,
        "HTMLSectionSplitter": 4,
    }
    for name, at_least in least.items():
        passed, used = per_class[name]
        assert passed == used >= at_least, (name, passed, used)
    calls = ours.stats["calls"]
    assert isinstance(calls, dict) and calls["core"] > calls["langchain"] > 0, calls
    assert os.environ.get("RAGCHUNK_LC_SUITE_STATS") is None
