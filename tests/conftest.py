"""Test-suite wiring: every behavioural test runs on both backends, offline.

* ``backend`` (autouse, parametrised): each test runs once on the Rust core and once on the
  pure-Python fallback. A missing compiled core FAILS the Rust half: it is never skipped, so a
  broken build cannot pass CI. ``RAGCHUNK_BACKEND=python`` restricts the run to the fallback.
* tiktoken, the oracle, never downloads: ``TIKTOKEN_CACHE_DIR`` points at a temporary folder
  holding the vocabularies this project ships, under the names tiktoken looks for (the sha1 of
  each file's official URL); tiktoken verifies their sha256 itself.
* ``../shared`` (golden vectors, corpus) is read in place; tests that need it skip with a loud
  reason when it is absent.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import tempfile

import pytest
from testdata import ENCODINGS, VOCAB

_TIKTOKEN_URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"
_CACHE = tempfile.mkdtemp(prefix="ragchunk-tiktoken-")
for _name in ("cl100k_base", "o200k_base"):
    _key = hashlib.sha1(_TIKTOKEN_URL.format(_name).encode()).hexdigest()
    with (
        gzip.open(VOCAB / f"{_name}.tiktoken.gz", "rb") as src,
        open(os.path.join(_CACHE, _key), "wb") as dst,
    ):
        shutil.copyfileobj(src, dst)
os.environ["TIKTOKEN_CACHE_DIR"] = _CACHE

from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile(
    "fast", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "slow", max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))

import ragchunk  # noqa: E402
from ragchunk.core import dispatch  # noqa: E402

_ONLY_PYTHON = os.environ.get("RAGCHUNK_BACKEND", "").strip().lower() == "python"
BACKENDS = ["python"] if _ONLY_PYTHON else ["rust", "python"]


def pytest_report_header(config: pytest.Config) -> list[str]:
    core = "unavailable"
    try:
        from ragchunk import _core

        core = f"ragchunk._core {_core.__version__} ({_core.__file__})"
    except ImportError as exc:
        core = f"ragchunk._core NOT IMPORTABLE: {exc}"
    return [f"ragchunk {ragchunk.__version__}; backends under test: {BACKENDS}; {core}"]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    shutil.rmtree(_CACHE, ignore_errors=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Tests marked single_backend (they compare backends themselves, or test neither) run
    # once: keep only their first backend's copy.
    keep, drop = [], []
    for item in items:
        param = getattr(item, "callspec", None)
        backend_param = param.params.get("backend") if param is not None else None
        if item.get_closest_marker("single_backend") and backend_param not in (None, BACKENDS[0]):
            drop.append(item)
        else:
            keep.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture(params=BACKENDS, autouse=True)
def backend(request: pytest.FixtureRequest) -> object:
    """Run the test on one backend; restore the previous one afterwards."""
    before = dispatch.name()
    dispatch.set_backend(request.param)  # raises ImportError (a failure) if the core is missing
    yield request.param
    dispatch.set_backend(before)


@pytest.fixture(scope="module")
def core() -> object:
    """The compiled core module (for tests of Rust-only entry points)."""
    from ragchunk import _core

    return _core


@pytest.fixture(scope="module", params=ENCODINGS)
def encoding(request: pytest.FixtureRequest) -> object:
    """tiktoken's own encoding (the oracle), once per built-in encoding."""
    import tiktoken

    return tiktoken.get_encoding(request.param)


@pytest.fixture(scope="session")
def tiktoken_cl100k() -> object:
    import tiktoken

    return tiktoken.get_encoding("cl100k_base")


@pytest.fixture
def openai_server() -> object:
    """A local OpenAI-compatible server (``tests/openai_server.py``) on 127.0.0.1, port 0."""
    from openai_server import OpenAIServer

    with OpenAIServer() as server:
        yield server
