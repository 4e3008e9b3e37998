"""The fuzzing harness (``fuzz/harness.py``) inside the test suite: every input of the
committed corpus (seeds, inputs the coverage-guided fuzzer found interesting, and every
input that ever failed) replayed, then a short seeded run of fresh inputs. Both compare the
two backends themselves, so they run once."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "fuzz"))
sys.path.insert(0, str(ROOT / "tests" / "documents"))

import harness  # noqa: E402

pytestmark = pytest.mark.single_backend

CORPUS = sorted(harness.CORPUS.iterdir())
# Bytes the text parts are drawn from: markup, brackets, separators, multi-byte and
# invalid UTF-8 (lone surrogates once decoded).
ALPHABET = [*b'ab \n\t.,;:!?()[]{}<>/="#-*|`\\0x', 0xC3, 0xA9, 0xE3, 0x80, 0x82, 0xFF]


def test_corpus_is_committed() -> None:
    assert len(CORPUS) >= 40
    assert any(p.name.startswith("regression-") for p in CORPUS)


@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_replay(path: Path) -> None:
    harness.check(path.read_bytes())


@pytest.mark.parametrize("seed", range(4))
def test_seeded(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(40):
        head = bytes(rng.randrange(256) for _ in range(4))
        body = bytes(rng.choice(ALPHABET) for _ in range(rng.randrange(80)))
        data = head + body
        try:
            harness.check(data)
        except AssertionError as exc:  # keep the failing input in the report
            raise AssertionError(f"input {data!r}: {exc}") from exc


def test_decode_shapes() -> None:
    name, _, text, budget, opts = harness.decode(bytes([7, 9, 1, 2 + 7]) + b"1")
    assert name == "JSONSplitter" and budget == 10 and opts["length"] == "tokens"
    assert text == '{"a": ' * 50 + "1" + "}" * 50
    _, _, text, _, _ = harness.decode(bytes([0, 0, 0, 1]) + b"ab")
    assert text == "ab" * 7
    _, _, text, _, _ = harness.decode(bytes([0, 0, 0, 0]) + b"\xff")
    assert text == "\udcff"


def _document_seeds() -> list[bytes]:
    from importlib import resources

    from docfiles import simple_pdf

    pdf = (resources.files("ragchunk") / "data" / "sample.pdf").read_bytes()
    # A page with a ruled table, a figure with its caption and two columns of text.
    grid = [("line", 72, 100 + 20 * r, 300, 100 + 20 * r) for r in range(3)]
    grid += [("line", x, 100, x, 140) for x in (72, 180, 300)]
    laid_out = simple_pdf(
        [
            [("F1", 9, 76, 105, "Key"), ("F1", 9, 184, 105, "Value"), ("F1", 9, 76, 125, "a")]
            + [("F1", 9, 184, 125, "1"), ("F1", 9, 72, 260, "Figure 1: A picture")]
            + [("F1", 9, 72 + 250 * (i % 2), 300 + 12 * (i // 2), f"col {i}") for i in range(16)]
        ],
        drawings=[[*grid, ("image", 72, 160, 200, 250)]],
    )
    files = {
        "pdf": pdf,
        "pdf ": laid_out,
        "csv": b"a,b\n1,2\n",
        "html": b"<h1>x</h1><table><tr><td>a</td></tr></table><p>y</p>",
        "markdown": b"# x\n\n- a\n- b\n\n```py\nz\n```\n| a |\n|---|\n| 1 |\n",
        "json": b'{"a": [1, 2, {"b": "c"}]}',
        "jsonl": b'{"a": 1}\n{"b": 2}\n',
        "text": "T\u00eate \u4e2d\u6587 text.\n\nMore.".encode(),
    }
    return [bytes([harness.DOCUMENT_FORMATS.index(f.strip())]) + data for f, data in files.items()]


@pytest.mark.parametrize("seed", range(3))
def test_documents_seeded(seed: int) -> None:
    pytest.importorskip("pypdfium2")
    rng = random.Random(seed)
    for data in _document_seeds():
        harness.check_document(data)  # the seed itself parses
        for _ in range(15):
            b = bytearray(data)
            if rng.random() < 0.4:
                del b[rng.randrange(2, len(b)) :]
            for _ in range(rng.randint(1, 8)):
                i = rng.randrange(1, len(b))
                b[i] ^= 1 << rng.randrange(8)
            try:
                harness.check_document(bytes(b))
            except AssertionError as exc:
                raise AssertionError(f"input {bytes(b)[:60]!r}...: {exc}") from exc
