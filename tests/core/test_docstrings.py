"""Docstring examples are tests: every module of the package runs its ``>>>`` examples, and
every public name's docstring has one."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil

import pytest
import ragchunk

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(ragchunk.__path__, "ragchunk.")
    if info.name != "ragchunk.__main__"
)


@pytest.mark.parametrize("name", MODULES)
def test_module_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{name}: {result}"


@pytest.mark.single_backend
@pytest.mark.parametrize(
    "name", [n for n in ragchunk.__all__ if n not in ("__version__", "backend")]
)
def test_public_names_have_examples(name: str) -> None:
    obj = getattr(ragchunk, name)
    if not (inspect.isclass(obj) or inspect.isroutine(obj) or inspect.ismodule(obj)):
        return  # data (a tuple of names, a type alias): documented where it is defined
    doc = inspect.getdoc(obj) or ""
    examples = doctest.DocTestParser().get_examples(doc)
    if inspect.isclass(obj) and not examples:  # a class may show itself in a method
        examples = [
            ex
            for _, member in inspect.getmembers(obj)
            for ex in doctest.DocTestParser().get_examples(inspect.getdoc(member) or "")
        ]
    assert examples, f"ragchunk.{name} has no >>> example in its docstring"
