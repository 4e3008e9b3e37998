"""kill -9 at seeded points of a run, then a re-run: the store must equal one clean run's.

Each store is checked at 20 points drawn (seeded) from the sequence of named points of two
runs: a first run into an empty store, and a second run after files were modified, added,
deleted and renamed (``cleanup="full"``). Every stage is among them: reading, parsing,
chunking, embedding, the pending record, the store writes, the manifest commit, the deletes.
The killed run is a child process that sends itself SIGKILL at its chosen point; the re-run
and the comparison happen here."""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import ingest_helpers as h
import pytest

pytest.importorskip("pyarrow")
pytestmark = [
    pytest.mark.single_backend,
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]

POINTS = 20
SEED = 20240917
STAGES = {"read", "parse", "chunk", "embed", "begin", "upsert", "commit", "delete", "remove"}


def pick_points(first: list[str], second: list[str]) -> list[tuple[int, int]]:
    """``(run, point)`` pairs: one of every stage of either run, the rest at random."""
    rng = random.Random(SEED)
    all_points = [(1, i + 1) for i in range(len(first))] + [(2, i + 1) for i in range(len(second))]
    name = {(1, i + 1): n for i, n in enumerate(first)}
    name.update({(2, i + 1): n for i, n in enumerate(second)})
    chosen: set[tuple[int, int]] = set()
    for stage in sorted(set(name.values())):
        chosen.add(rng.choice([p for p in all_points if name[p] == stage]))
    rest = [p for p in all_points if p not in chosen]
    chosen.update(rng.sample(rest, POINTS - len(chosen)))
    return sorted(chosen)


class Scenario:
    """The corpora, the clean runs' rows, a first-run template store and the kill points."""

    def __init__(self, kind: str, root: Path, url: Any) -> None:
        self.kind = kind
        self.root = root
        self.url = url  # name -> (store URL, manifest or None)
        self.v1 = root / "v1"
        self.v2 = root / "v2"
        h.write_corpus(self.v1, 1)
        h.write_corpus(self.v2, 2)
        store, manifest = url("clean1")
        h.run_ingest(store, str(self.v1), "full", manifest)
        self.clean1 = h.rows(store)
        store, manifest = url("clean2")
        h.run_ingest(store, str(self.v2), "full", manifest)
        self.clean2 = h.rows(store)
        # the named points of both runs, from a traced child process each
        store, manifest = url("trace")
        first, second = root / "trace1", root / "trace2"
        self.src = root / "src"
        shutil.copytree(self.v1, self.src)
        assert h.child(store, self.src, "full", trace=first, manifest=manifest).returncode == 0
        self.template = None
        if manifest is None:  # a local store: its folder is the first run's whole state
            self.template = root / "template1"
            shutil.copytree(store.split(":", 1)[1], self.template)
        shutil.rmtree(self.src)
        shutil.copytree(self.v2, self.src)
        assert h.child(store, self.src, "full", trace=second, manifest=manifest).returncode == 0
        self.first = first.read_text().split()
        self.second = second.read_text().split()
        self.points = pick_points(self.first, self.second)


def _local(kind: str, root: Path) -> Any:
    def url(name: str) -> tuple[str, None]:
        return f"{kind}:{root / name}", None

    return url


@pytest.fixture(scope="module", params=["lancedb", "parquet", "chroma"])
def scenario(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    kind = request.param
    if kind == "lancedb":
        pytest.importorskip("lancedb")
    if kind == "chroma":
        pytest.importorskip("chromadb")
    root = tmp_path_factory.mktemp(f"crash-{kind}")
    return Scenario(kind, root, _local(kind, root))


def crash_and_rerun(sc: Scenario, index: int, make_v1: Any) -> None:
    run, point = sc.points[index]
    name = (sc.first if run == 1 else sc.second)[point - 1]
    store, manifest = sc.url(f"kill{index}")
    src = sc.root / f"src{index}"
    shutil.copytree(sc.v1, src)
    if run == 2:
        make_v1(store, src, manifest)
        shutil.rmtree(src)
        shutil.copytree(sc.v2, src)
    killed = h.child(store, src, "full", kill_at=point, manifest=manifest)
    assert killed.returncode == -9, f"run {run} was not killed at point {point} ({name})"
    report = h.run_ingest(store, str(src), "full", manifest)
    want = sc.clean1 if run == 1 else sc.clean2
    got = h.rows(store)
    assert len({r["id"] for r in got}) == len(got), "duplicate ids"
    assert got == want, f"store differs from a clean run after a kill at {name} (run {run})"
    again = h.run_ingest(store, str(src), "full", manifest)
    assert again.chunks_written == again.chunks_deleted == 0
    assert again.unchanged == report.added + report.changed + report.unchanged


def test_points_cover_every_stage(scenario: Scenario) -> None:
    names = {(scenario.first if r == 1 else scenario.second)[p - 1] for r, p in scenario.points}
    assert names >= STAGES, STAGES - names
    assert len(scenario.points) == POINTS
    assert {r for r, _ in scenario.points} == {1, 2}


@pytest.mark.parametrize("index", range(POINTS))
def test_kill_then_rerun_equals_clean_run(scenario: Scenario, index: int) -> None:
    def make_v1(store: str, src: Path, manifest: str | None) -> None:
        # a copy of the first run's store, made by a child: this process must not hold a
        # store open while another process writes it (Chroma's client caches what it read)
        assert scenario.template is not None
        shutil.copytree(scenario.template, store.split(":", 1)[1])

    crash_and_rerun(scenario, index, make_v1)


@pytest.fixture(scope="module")
def server_scenario(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    pytest.importorskip("chromadb")
    from chroma_server import ChromaServer

    root = tmp_path_factory.mktemp("crash-chroma-server")
    with ChromaServer(root / "data") as server:

        def url(name: str) -> tuple[str, str]:
            return server.url(name), str(root / f"{name}.sqlite")

        sc = Scenario("chroma+http", root, url)
        sc.server = server  # type: ignore[attr-defined]
        yield sc


@pytest.mark.parametrize("index", range(POINTS))
def test_kill_then_rerun_equals_clean_run_on_server(server_scenario: Scenario, index: int) -> None:
    def make_v1(store: str, src: Path, manifest: str | None) -> None:
        h.run_ingest(store, str(src), "full", manifest)

    crash_and_rerun(server_scenario, index, make_v1)
