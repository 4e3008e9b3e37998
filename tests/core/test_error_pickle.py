"""Every exception class ragchunk defines pickles and unpickles to an equal error: a worker
process's error must reach the parent intact (a class that cannot be rebuilt breaks the whole
process pool). The classes are found by reading the package's source, so a new one without an
example here fails the coverage test."""

from __future__ import annotations

import ast
import importlib
import pickle
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import ragchunk

PACKAGE = Path(ragchunk.__file__).parent


def _defined_exceptions() -> list[tuple[str, str]]:
    """(module, class name) of every class in the package's source that subclasses an
    exception (resolved by importing its module)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.bases]
        if not names:
            continue
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        module_name = ".".join(parts)
        module = importlib.import_module(module_name)
        for name in names:
            cls = getattr(module, name, None)
            if isinstance(cls, type) and issubclass(cls, BaseException):
                found.append((module_name, name))
    return found


def _cls(dotted: str) -> type[BaseException]:
    module, _, name = dotted.rpartition(".")
    cls = getattr(importlib.import_module(module), name)
    assert isinstance(cls, type) and issubclass(cls, BaseException)
    return cls


# One construction per class (by class name, wherever the class lives), with the attributes
# its copy must keep.
EXAMPLES: dict[str, tuple[tuple[Any, ...], dict[str, Any], dict[str, Any]]] = {
    "RagchunkError": (("core panicked",), {}, {}),
    "DocumentError": (
        ("truncated.pdf", "not a readable PDF file"),
        {"page": 3},
        {"filename": "truncated.pdf", "page": 3, "reason": "not a readable PDF file"},
    ),
    "HTTPError": (
        ("POST /v1/embeddings: HTTP 429",),
        {"status": 429, "retryable": True, "body": "slow down", "url": "http://h/v1"},
        {"status": 429, "retryable": True, "body": "slow down", "url": "http://h/v1"},
    ),
    "_Transient": (("HTTP 503", 503, "busy", 2.0), {}, {"status": 503, "retry_after": 2.0}),
    "LLMError": (
        ("timed out",),
        {"document": 2, "chunk": 5},
        {"document": 2, "chunk": 5, "reason": "timed out"},
    ),
    "RulesError": ((7, "a continuation line before any key"), {}, {"line": 7}),
    "IngestLockedError": (("store.lance is locked by pid 12",), {}, {}),
    "UpstreamError": (("1 validation error for Upstream",), {}, {}),
    "_FailFast": ((), {}, {}),
    "_Untranslatable": ((), {}, {}),
    "_Inexact": ((), {}, {}),
}


def _all() -> list[tuple[str, str]]:
    return _defined_exceptions()


def test_every_exception_class_has_an_example() -> None:
    found = {name for _, name in _all()}
    assert found, "no exception class found: the source scan is broken"
    missing = found - set(EXAMPLES)
    assert not missing, f"exception classes without a pickle example: {missing}"
    assert {"DocumentError", "RulesError", "HTTPError", "LLMError"} <= found


def _make(module: str, name: str) -> BaseException:
    args, kwargs, _ = EXAMPLES[name]
    return _cls(f"{module}.{name}")(*args, **kwargs)


@pytest.mark.parametrize(("module", "name"), _all(), ids=lambda v: v)
def test_exception_round_trips_through_pickle(module: str, name: str) -> None:
    err = _make(module, name)
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        copy = pickle.loads(pickle.dumps(err, protocol=protocol))
        assert type(copy) is type(err)
        assert str(copy) == str(err)
        assert copy.args == err.args
        for attr, value in EXAMPLES[name][2].items():
            assert getattr(copy, attr) == value, (name, attr)


def test_document_error_names_the_file_once() -> None:
    from ragchunk.documents import DocumentError

    err = DocumentError("truncated.pdf", "not a readable PDF file", page=2)
    assert str(err) == "truncated.pdf, page 2: not a readable PDF file"
    assert str(err).count("truncated.pdf") == 1


def _raise_document_error(name: str) -> None:
    from ragchunk.documents import DocumentError

    raise DocumentError(name, "the PDF is encrypted: pass password=")


def test_document_error_crosses_a_process_pool() -> None:
    from ragchunk.documents import DocumentError

    with ProcessPoolExecutor(max_workers=1) as pool:
        future = pool.submit(_raise_document_error, "secret.pdf")
        with pytest.raises(DocumentError) as info:
            future.result()
        # the pool is still usable: the error did not break it
        assert pool.submit(len, "abc").result() == 3
    assert info.value.filename == "secret.pdf"
    assert str(info.value) == "secret.pdf: the PDF is encrypted: pass password="
