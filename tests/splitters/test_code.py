# ruff: noqa: E501  (expected-output tables hold whole chunks, one per line)
"""CodeSplitter: exact chunks per language, invariants on real code from the corpus (fenced
blocks extracted at test time), syntax errors, bad input, batch, and backends agreeing."""

from __future__ import annotations

import doctest
import os
import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from invariants import check_chunks, ordinary_count
from ragchunk import Chunk, CodeSplitter, supported_languages
from ragchunk._pure.splitters import code as pure
from ragchunk.core import dispatch
from ragchunk.splitters import code as code_module
from ragchunk.splitters.code import LANGUAGES
from testdata import corpus_documents

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*\{?\.?([A-Za-z+]*)")
_TAGS = {
    "rust": "rust",
    "python": "python",
    "go": "go",
    "java": "java",
    "js": "javascript",
    "javascript": "javascript",
    "ts": "typescript",
    "typescript": "typescript",
    "c": "c",
    "cpp": "cpp",
}


def _fenced_blocks() -> dict[str, list[str]]:
    """Fenced code blocks of the corpus by language (```rust,ignore and ```{.python .input}
    included), in corpus order."""
    out: dict[str, list[str]] = {}
    for _, text in corpus_documents():
        lines = text.split("\n")
        i = 0
        while i < len(lines):
            m = _FENCE.match(lines[i])
            if not m:
                i += 1
                continue
            fence, tag = m.group(1), m.group(2).lower()
            j = i + 1
            while j < len(lines) and not lines[j].lstrip().startswith(fence):
                j += 1
            lang = _TAGS.get(tag)
            if lang is not None:
                out.setdefault(lang, []).append("\n".join(lines[i + 1 : j]))
            i = j + 1
    return out


def _corpus_files(max_chars: int = 12_000, per_lang: int = 3) -> list[tuple[str, str]]:
    """Up to ``per_lang`` pseudo-files per language: consecutive blocks joined by a blank line."""
    files = []
    for lang, blocks in sorted(_fenced_blocks().items()):
        cur: list[str] = []
        n = 0
        for b in blocks:
            cur.append(b)
            if sum(len(x) for x in cur) >= max_chars:
                files.append((lang, "\n\n".join(cur)))
                cur = []
                n += 1
                if n == per_lang:
                    break
        if cur and n < per_lang:
            files.append((lang, "\n\n".join(cur)))
    return files


CORPUS = _corpus_files()


@pytest.fixture(scope="module")
def cl100k_count() -> Callable[[str], int]:
    import tiktoken

    enc = tiktoken.get_encoding("cl100k_base")
    return lambda t: len(enc.encode_ordinary(t))


def _check(text: str, chunks: list[Chunk], size: int, count: Callable[[str], int]) -> None:
    # Documented overflow: one character alone.
    check_chunks(text, chunks, budget=size, count=count, overflow_ok=lambda c: c.end - c.start == 1)
    prev_end = 0
    for c in chunks:
        assert prev_end <= c.start  # in order, no overlap
        prev_end = c.end
        assert c.metadata["start_line"] == text.count("\n", 0, c.start) + 1
        assert c.metadata["end_line"] == text.count("\n", 0, c.end - 1) + 1
        assert isinstance(c.metadata["symbols"], list)


def _view(chunks: list[Chunk]) -> list[tuple[str, list[str], int, int]]:
    return [
        (c.text, c.metadata["symbols"], c.metadata["start_line"], c.metadata["end_line"])
        for c in chunks
    ]


# --------------------------------------------------------------------------------- behaviour

PY = '''import os

# Helper comment
# second line
def f(a, b):
    """Doc."""
    return a + b


class A:
    """Class doc."""

    def m1(self):
        return 1  # trailing

    @property
    def m2(self):
        x = 1
        y = 2
        z = 3
        return x + y + z
'''


def test_python_whole_when_it_fits() -> None:
    (c,) = CodeSplitter("python", 1000).split(PY)
    assert c.text == PY.rstrip()
    assert c.metadata == {"language": "python", "symbols": ["f", "A.m1", "A.m2"]} | {
        "start_line": 1,
        "end_line": 21,
    }


def test_python_definitions_comments_and_decorators() -> None:
    assert _view(CodeSplitter("py", 12).split(PY)) == [
        ("import os", [], 1, 1),
        ("# Helper comment\n# second line\ndef f", ["f"], 3, 5),
        ("(a, b):", ["f"], 5, 5),
        ('"""Doc."""\n    return a + b', ["f"], 6, 7),
        ('class A:\n    """Class doc."""', ["A"], 10, 11),
        ("def m1(self):\n        return 1  # trailing", ["A.m1"], 13, 14),
        ("@property\n    def m2(self):", ["A.m2"], 16, 17),
        ("x = 1\n        y = 2", ["A.m2"], 18, 19),
        ("z = 3\n        return x + y + z", ["A.m2"], 20, 21),
    ]
    assert _view(CodeSplitter("python", 30).split(PY)) == [
        ('import os\n\n# Helper comment\n# second line\ndef f(a, b):\n    """Doc."""\n    return a + b', ['f'], 1, 7),
        ('class A:\n    """Class doc."""\n\n    def m1(self):\n        return 1  # trailing', ['A.m1'], 10, 14),
        ('@property', ['A'], 16, 16),
        ('def m2(self):\n        x = 1\n        y = 2\n        z = 3\n        return x + y + z', ['A.m2'], 17, 21),
    ]  # fmt: skip


SNIPPETS: dict[str, tuple[str, int, list[tuple[str, list[str], int, int]]]] = {
    "rust": (
        "use std::fmt;\n\n/// A point.\n#[derive(Debug)]\nstruct P { x: i32 }\n\n"
        "impl P {\n    /// New.\n    fn new() -> P {\n        P { x: 0 }\n    }\n\n"
        "    fn get(&self) -> i32 {\n        self.x\n    }\n}\n",
        60,
        [
            ('use std::fmt;', [], 1, 1),
            ('/// A point.\n#[derive(Debug)]\nstruct P { x: i32 }', ['P'], 3, 5),
            ('impl P {', ['P'], 7, 7),
            ('/// New.\n    fn new() -> P {\n        P { x: 0 }\n    }', ['P.new'], 8, 11),
            ('fn get(&self) -> i32 {\n        self.x\n    }\n}', ['P.get'], 13, 16),
        ],
    ),
    "go": (
        "package main\n\n// Srv serves.\ntype Srv struct {\n\tn int\n}\n\n"
        "// Run runs.\nfunc (s *Srv) Run() error {\n\treturn nil\n}\n\n"
        "func main() {\n\tprintln(1)\n}\n",
        60,
        [
            ('package main\n\n// Srv serves.\ntype Srv struct {\n\tn int\n}', ['Srv'], 1, 6),
            ('// Run runs.\nfunc (s *Srv) Run() error {\n\treturn nil\n}', ['Srv.Run'], 8, 11),
            ('func main() {\n\tprintln(1)\n}', ['main'], 13, 15),
        ],
    ),
    "java": (
        "package a;\n\n/** Greeter. */\npublic class G {\n    private int n;\n\n"
        "    /** Hi. */\n    public String hi() {\n        return \"hi\";\n    }\n}\n",
        80,
        [
            ('package a;', [], 1, 1),
            ('/** Greeter. */\npublic class G {\n    private int n;', ['G'], 3, 5),
            ('/** Hi. */\n    public String hi() {\n        return "hi";\n    }\n}', ['G.hi'], 7, 11),
        ],
    ),
    "javascript": (
        "import x from 'x';\n\n// Adds.\nexport function add(a, b) {\n  return a + b;\n}\n\n"
        "const sq = (v) => v * v;\n\nclass K {\n  m() {\n    return 1;\n  }\n}\n",
        60,
        [
            ("import x from 'x';", [], 1, 1),
            ('// Adds.\nexport function add(a, b) {\n  return a + b;\n}', ['add'], 3, 6),
            ('const sq = (v) => v * v;', ['sq'], 8, 8),
            ('class K {\n  m() {\n    return 1;\n  }\n}', ['K.m'], 10, 14),
        ],
    ),
    "typescript": (
        "interface Shape {\n  area(): number;\n}\n\n"
        "export class Sq implements Shape {\n  constructor(private s: number) {}\n"
        "  area(): number {\n    return this.s * this.s;\n  }\n}\n",
        80,
        [
            ('interface Shape {\n  area(): number;\n}', ['Shape'], 1, 3),
            ('export class Sq implements Shape {\n  constructor(private s: number) {}', ['Sq.constructor'], 5, 6),
            ('area(): number {\n    return this.s * this.s;\n  }\n}', ['Sq.area'], 7, 10),
        ],
    ),
    "c": (
        '#include <stdio.h>\n\n/* A pair. */\nstruct pair {\n  int a, b;\n};\n\n'
        '/* Sum. */\nstatic int sum(struct pair *p) {\n  return p->a + p->b;\n}\n',
        80,
        [
            ('#include <stdio.h>\n\n/* A pair. */\nstruct pair {\n  int a, b;\n};', ['pair'], 1, 6),
            ('/* Sum. */\nstatic int sum(struct pair *p) {\n  return p->a + p->b;\n}', ['sum'], 8, 11),
        ],
    ),
    "cpp": (
        "namespace ns {\n// Box.\nclass Box {\n public:\n  int get() const {\n    return v;\n"
        "  }\n  int v = 0;\n};\n}  // namespace ns\n\nint Box::twice() { return 2; }\n",
        60,
        [
            ('namespace ns {', ['ns'], 1, 1),
            ('// Box.\nclass Box {\n public:', ['ns.Box'], 2, 4),
            ('int get() const {\n    return v;\n  }\n  int v = 0;\n}', ['ns.Box.get'], 5, 9),
            (';\n}  // namespace ns', ['ns'], 9, 10),
            ('int Box::twice() { return 2; }', ['Box::twice'], 12, 12),
        ],
    ),
}  # fmt: skip


@pytest.mark.parametrize("lang", sorted(SNIPPETS))
def test_exact_chunks_per_language(lang: str) -> None:
    src, size, want = SNIPPETS[lang]
    splitter = CodeSplitter(lang, size, length="chars")
    got = splitter.split(src)
    assert _view(got) == want
    _check(src, got, size, len)
    assert {c.metadata["language"] for c in got} == {lang}


def test_long_line_falls_back_to_text_splitting() -> None:
    src = "x = '" + "word " * 200 + "'\n"
    chunks = CodeSplitter("python", 10, length="chars").split(src)
    assert "".join(c.text for c in chunks).replace(" ", "") == src.strip().replace(" ", "")
    assert max(c.token_count for c in chunks) <= 10
    _check(src, chunks, 10, len)


def test_syntax_errors_are_best_effort_and_lossless(cl100k_count: Callable[[str], int]) -> None:
    src = "def broken(:\n    return ]]\n\nclass Ok:\n    def m(self): pass\n\n}}}} ¿é🦀\n"
    for size in (3, 10, 1000):
        chunks = CodeSplitter("python", size).split(src)
        _check(src, chunks, size, cl100k_count)
    assert any("Ok.m" in c.metadata["symbols"] for c in CodeSplitter("python", 12).split(src))


def test_tsx_and_aliases() -> None:
    src = "export const App = () => <div className='a'>{1}</div>;\n"
    (c,) = CodeSplitter("TSX", 100).split(src)
    assert c.metadata["symbols"] == ["App"]
    assert c.metadata["language"] == "tsx"
    assert CodeSplitter("c++", 5).language == "cpp"
    assert CodeSplitter("golang", 5).language == "go"


def test_custom_tokenizer_and_split_text() -> None:
    words = CodeSplitter("rust", 6, tokenizer=lambda t: len(t.split()))
    src = SNIPPETS["rust"][0]
    chunks = words.split(src)
    _check(src, chunks, 6, lambda t: len(t.split()))
    assert words.split_text(src) == [c.text for c in chunks]


def test_tokenizer_exception_propagates_and_o200k() -> None:
    def boom(text: str) -> int:
        raise KeyError("counter failed")

    with pytest.raises(KeyError, match="counter failed"):
        CodeSplitter("go", 10, tokenizer=boom).split("package main\n")
    src = SNIPPETS["go"][0]
    import tiktoken

    enc = tiktoken.get_encoding("o200k_base")
    chunks = CodeSplitter("go", 20, tokenizer="o200k_base").split(src)
    _check(src, chunks, 20, lambda t: len(enc.encode_ordinary(t)))


def test_empty_and_whitespace() -> None:
    for lang in supported_languages():
        assert CodeSplitter(lang, 10).split("") == []
        assert CodeSplitter(lang, 10).split("  \n\t\n") == []


def test_deep_nesting_does_not_recurse() -> None:
    src = "x = " + "(" * 2000 + "1" + ")" * 2000 + "\n"
    chunks = CodeSplitter("python", 50, length="chars").split(src)
    _check(src, chunks, 50, len)


def test_split_batch_matches_split(cl100k_count: Callable[[str], int]) -> None:
    docs = [SNIPPETS["rust"][0], "", PY, "fn broken( {"]
    for kwargs in ({}, {"length": "chars"}, {"tokenizer": lambda t: len(t) // 3}):
        s = CodeSplitter("rust", 20, **kwargs)
        assert s.split_batch(docs, workers=2) == [s.split(d) for d in docs]
    assert CodeSplitter("rust", 20).split_batch([]) == []


@pytest.mark.single_backend
def test_split_batch_releases_the_gil() -> None:
    import asyncio

    if dispatch.name() != "rust":
        pytest.skip("the Python backend holds the GIL by nature")
    texts = [t for _, t in CORPUS] * 4
    s = CodeSplitter("rust", 64)

    async def main() -> tuple[int, list[list[Chunk]]]:
        ticks = 0
        task = asyncio.create_task(asyncio.to_thread(s.split_batch, texts))
        while not task.done():
            await asyncio.sleep(0.001)
            ticks += 1
        return ticks, await task

    ticks, result = asyncio.run(main())
    assert len(result) == len(texts)
    assert ticks > 5, "the event loop should keep running while Rust works"


# ----------------------------------------------------------------------------------- corpus


def test_corpus_has_code() -> None:
    langs = {lang for lang, _ in CORPUS}
    assert {"rust", "python", "go", "java", "javascript", "typescript"} <= langs, langs


@pytest.mark.parametrize(
    "lang,text", CORPUS, ids=[f"{lang}{i}" for i, (lang, _) in enumerate(CORPUS)]
)
def test_corpus_invariants(lang: str, text: str, cl100k_count: Callable[[str], int]) -> None:
    for size in (64, 256):
        _check(text, CodeSplitter(lang, size).split(text), size, cl100k_count)


# ------------------------------------------------------------------------------- properties

_ATOMS = st.sampled_from(
    [
        "\n", "\n\n", " ", "    ", "\t", "def ", "class ", "fn ", "func ", "function ", "return ",
        "x", "foo", "(", ")", "{", "}", "[", "]", ":", ";", ",", "=", "#", "//", "/*", "*/",
        '"', "'", "é", "中文", "🦀", "\u00a0", "\u200b", "\r\n", "\\", "<", ">", "@dec\n",
    ]
)  # fmt: skip
_CODE = st.lists(_ATOMS, max_size=80).map("".join)


@given(
    text=_CODE,
    lang=st.sampled_from(LANGUAGES),
    size=st.integers(1, 40),
)
def test_property_lossless_exact_slices(text: str, lang: str, size: int) -> None:
    _check(text, CodeSplitter(lang, size, length="chars").split(text), size, len)


# ------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    "args,kwargs,exc,word",
    [
        (("cobol", 10), {}, ValueError, "python"),
        ((3, 10), {}, TypeError, "language"),
        (("python", 0), {}, ValueError, "chunk_size"),
        (("python", 1.5), {}, TypeError, "chunk_size"),
        (("python", 10), {"length": "bytes"}, ValueError, "length"),
        (("python", 10), {"tokenizer": "nope"}, ValueError, "nope"),
    ],
)
def test_bad_arguments(args: tuple[Any, ...], kwargs: dict[str, Any], exc: type, word: str) -> None:
    with pytest.raises(exc, match=word):
        CodeSplitter(*args, **kwargs)


def test_unknown_language_lists_supported() -> None:
    with pytest.raises(ValueError, match="language 'cobol'") as info:
        CodeSplitter("cobol", 10)
    for lang in supported_languages():
        assert lang in str(info.value)


def test_bad_text() -> None:
    s = CodeSplitter("python", 10)
    with pytest.raises(TypeError, match="text"):
        s.split(b"x = 1")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="surrogate"):
        s.split("x = '\ud800'")
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        s.split_batch(["x", 1])  # type: ignore[list-item]


# ---------------------------------------------------------------------- backends agree

_NO_RUST = pytest.mark.skipif(
    os.environ.get("RAGCHUNK_BACKEND", "").lower() == "python",
    reason="fallback-only run (RAGCHUNK_BACKEND=python): nothing to compare against",
)


@_NO_RUST
@pytest.mark.single_backend
@given(text=_CODE, lang=st.sampled_from(LANGUAGES), size=st.integers(1, 40))
def test_backends_agree_property(text: str, lang: str, size: int) -> None:
    core = dispatch._import_core()
    got = [tuple(c) for c in core.CodeSplitter(lang, size, "chars").split(text)]
    assert got == pure.split_code(text, lang, size, len)


@_NO_RUST
@pytest.mark.single_backend
@pytest.mark.parametrize("lang", sorted(SNIPPETS))
def test_backends_agree_snippets(lang: str, cl100k_count: Callable[[str], int]) -> None:
    core = dispatch._import_core()
    src = SNIPPETS[lang][0] + "\n" + PY
    for size in (1, 3, 8, 20, 100):
        splitter = core.CodeSplitter(lang, size, "tokens", "cl100k_base")
        got = [tuple(c) for c in splitter.split(src)]
        assert got == pure.split_code(src, lang, size, cl100k_count)


@_NO_RUST
@pytest.mark.single_backend
@pytest.mark.parametrize(
    "lang,text", CORPUS, ids=[f"{lang}{i}" for i, (lang, _) in enumerate(CORPUS)]
)
def test_backends_agree_on_corpus(lang: str, text: str) -> None:
    for size in (32, 200):
        splitter = CodeSplitter(lang, size)
        dispatch.set_backend("rust")
        rust = splitter.split(text)
        dispatch.set_backend("python")
        assert splitter.split(text) == rust


@pytest.mark.single_backend
def test_docstrings() -> None:
    result = doctest.testmod(code_module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0


@pytest.mark.parametrize("size", [8, 64])
def test_invariants(size: int) -> None:
    import inspect

    import ragchunk.splitters.recursive as source_module

    source = inspect.getsource(source_module)
    splitter = CodeSplitter("python", chunk_size=size)
    check_chunks(
        source,
        splitter.split(source),
        budget=size,
        count=ordinary_count(),
        overflow_ok=lambda c: c.end - c.start == 1,
    )
