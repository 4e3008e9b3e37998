"""Hugging Face tokenizer files as ``tokenizer=``: counts equal the ``tokenizers`` package's.

The WordPiece, BPE and Unigram files are trained here, with the package's own trainers, on
corpus text (small vocabularies, a few seconds in all); the Llama-style file shipped inside the
``wordllama`` package is used too. Nothing is downloaded.
"""

from __future__ import annotations

import importlib.util
import itertools
import pickle
from pathlib import Path
from typing import Any

import pytest
import ragchunk
from ragchunk import RecursiveSplitter, Tokenizer, TokenWindowSplitter, available_tokenizers
from testdata import corpus_documents

tokenizers = pytest.importorskip("tokenizers")


def _training_text() -> list[str]:
    docs = corpus_documents()
    if docs:
        lines: list[str] = []
        for _, text in docs[::7]:
            lines.extend(line for line in text.splitlines() if line.strip())
        return lines[:6000]
    # Without the shared corpus: a small mixed-language stand-in.
    return ["Chunking text for retrieval, 检索增强生成, naïve café — 42 tokens!"] * 50


def _train(kind: str, lines: list[str]) -> Any:
    from tokenizers import Tokenizer as HfTokenizer
    from tokenizers import decoders, models, normalizers, pre_tokenizers, processors, trainers

    if kind == "wordpiece":
        tok = HfTokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.normalizer = normalizers.BertNormalizer(lowercase=True)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        trainer = trainers.WordPieceTrainer(
            vocab_size=3000, special_tokens=["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"]
        )
        tok.train_from_iterator(lines, trainer)
        cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]",
            pair="[CLS] $A [SEP] $B [SEP]",
            special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
        )
    elif kind == "bpe":
        tok = HfTokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(
            vocab_size=3000,
            special_tokens=["<|endoftext|>"],
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        )
        tok.train_from_iterator(lines, trainer)
        tok.post_processor = processors.ByteLevel(trim_offsets=False)
    else:
        tok = HfTokenizer(models.Unigram())
        tok.normalizer = normalizers.NFKC()
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        tok.decoder = decoders.Metaspace()
        trainer = trainers.UnigramTrainer(
            vocab_size=2000, special_tokens=["<unk>", "<s>", "</s>"], unk_token="<unk>"
        )
        tok.train_from_iterator(lines, trainer)
    return tok


def _wordllama_file() -> Path | None:
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        path = Path(root) / "tokenizers" / "l2_supercat_tokenizer_config.json"
        if path.is_file():
            return path
    return None


@pytest.fixture(scope="session")
def hf_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Trained tokenizer.json files by kind, plus the shipped wordllama one when present."""
    out = tmp_path_factory.mktemp("hf")
    lines = _training_text()
    files: dict[str, Path] = {}
    for kind in ("wordpiece", "bpe", "unigram"):
        path = out / f"{kind}.json"
        _train(kind, lines).save(str(path))
        files[kind] = path
    shipped = _wordllama_file()
    if shipped is not None:
        files["wordllama"] = shipped
    return files


KINDS = ["wordpiece", "bpe", "unigram", "wordllama"]


def _file(hf_files: dict[str, Path], kind: str) -> Path:
    if kind not in hf_files:
        pytest.skip(f"{kind} tokenizer file not available (wordllama not installed)")
    return hf_files[kind]


def _sample_texts() -> list[str]:
    docs = corpus_documents()
    texts = [text[:20_000] for _, text in docs[::5]] if docs else []
    texts += [
        "",
        " ",
        "Hello, world!",
        "naïve café 检索增强生成 🙂 <|endoftext|> [CLS]",
        "a" * 3000,
        "\n\n  indented\tcode()\n",
    ]
    return texts


@pytest.mark.parametrize("kind", KINDS)
def test_counts_equal_the_package(hf_files: dict[str, Path], kind: str) -> None:
    path = _file(hf_files, kind)
    ref = tokenizers.Tokenizer.from_file(str(path))
    ref.no_truncation()
    ref.no_padding()
    texts = _sample_texts()
    for special in (False, True):
        want = [len(ref.encode(t, add_special_tokens=special).ids) for t in texts]
        tok = Tokenizer.from_file(path, add_special_tokens=special)
        assert [tok.count(t) for t in texts] == want
        name = f"hf:{path}" + ("#special" if special else "")
        got = ragchunk.count_tokens_batch(texts, tokenizer=name, workers=2)
        assert got == want


@pytest.mark.parametrize("kind", ["wordpiece", "bpe", "unigram"])
def test_splitters_count_in_the_files_tokens(hf_files: dict[str, Path], kind: str) -> None:
    path = hf_files[kind]
    ref = tokenizers.Tokenizer.from_file(str(path))
    text = "\n\n".join(_sample_texts()[:3])[:30_000] or "Hello world. " * 500
    by_name = RecursiveSplitter(chunk_size=96, tokenizer=f"hf:{path}")
    by_object = RecursiveSplitter(chunk_size=96, tokenizer=ref)
    by_callable = RecursiveSplitter(
        chunk_size=96, tokenizer=lambda s: len(ref.encode(s, add_special_tokens=False).ids)
    )
    chunks = by_name.split(text)
    assert chunks, "no chunks"
    for c in chunks:
        assert c.token_count == len(ref.encode(c.text, add_special_tokens=False).ids)
        assert c.token_count <= 96 or len(c.text) == 1
    assert [c.text for c in by_object.split(text)] == [c.text for c in chunks]
    assert [c.text for c in by_callable.split(text)] == [c.text for c in chunks]
    assert by_name.tokenizer_name == f"hf:{path}"
    assert by_object.tokenizer_name.startswith("hf:sha256:")
    assert by_callable.tokenizer_name == "callable"
    # A pickled chunker (a worker process) finds its tokenizer again.
    again = pickle.loads(pickle.dumps(by_name))
    assert [c.text for c in again.split(text)] == [c.text for c in chunks]


def test_token_offsets_and_names(hf_files: dict[str, Path]) -> None:
    path = hf_files["wordpiece"]
    tok = Tokenizer.from_file(path)
    ref = tokenizers.Tokenizer.from_file(str(path))
    text = "Hello world, naïve café!"
    assert tok.token_offsets(text) == ref.encode(text, add_special_tokens=False).offsets
    assert tok.key in available_tokenizers()
    assert Tokenizer.from_file(path) is tok
    assert "Tokenizer.from_file" in repr(tok)


@pytest.mark.single_backend
def test_unknown_names_list_the_available_ones() -> None:
    with pytest.raises(ValueError, match=r"available: cl100k_base, o200k_base"):
        RecursiveSplitter(chunk_size=10, tokenizer="p50k_base")
    with pytest.raises(ValueError, match="cannot read"):
        RecursiveSplitter(chunk_size=10, tokenizer="hf:/no/such/tokenizer.json")
    with pytest.raises(ValueError, match=r"not a valid tokenizer\.json"):
        Tokenizer.from_str('{"model": 3}')
    assert available_tokenizers()[:2] == ["cl100k_base", "o200k_base"]
    assert RecursiveSplitter(chunk_size=10).tokenizer_name == "cl100k_base"
    assert RecursiveSplitter(chunk_size=10, length="chars").tokenizer_name == "chars"


@pytest.mark.parametrize("kind", ["wordpiece", "bpe", "unigram"])
@pytest.mark.parametrize(("size", "overlap"), [(16, 0), (16, 5), (1, 0)])
def test_token_windows_over_the_files_tokens(
    hf_files: dict[str, Path], kind: str, size: int, overlap: int
) -> None:
    path = hf_files[kind]
    ref = tokenizers.Tokenizer.from_file(str(path))
    text = "\n\n".join(_sample_texts()[:2])[:4000] + " naïve café 检索增强生成 🙂 end"
    offsets = ref.encode(text, add_special_tokens=False).offsets
    starts = [0] + [a for a, _ in offsets[1:]] + [len(text)]
    step = size - overlap
    # Every window starts where a token starts (text between tokens goes with the first) and
    # holds ``size`` tokens; the windows cover the text, in order.
    want = []
    for first in range(0, len(offsets), step):
        last = min(first + size, len(offsets))
        want.append((starts[first], starts[last], last - first))
        if last == len(offsets):
            break
    distinct = all(a < b for a, b in itertools.pairwise(starts))
    for tokenizer in (f"hf:{path}", ref, Tokenizer.from_file(path)):
        splitter = TokenWindowSplitter(size, overlap, tokenizer=tokenizer)
        chunks = splitter.split(text)
        assert all(c.text == text[c.start : c.end] for c in chunks)
        assert splitter.split_batch([text, text], workers=2) == [chunks, chunks]
        if distinct:
            assert [(c.start, c.end, c.token_count) for c in chunks] == want
            continue
        # Byte-level tokens inside one character share its offsets: windows then snap to
        # character boundaries, still starting at token starts and covering the text.
        assert chunks[0].start == 0 and chunks[-1].end == len(text)
        edges = set(starts)
        for prev, c in itertools.pairwise(chunks):
            assert c.start <= prev.end and c.start > prev.start
        assert all(c.start in edges and c.end in edges for c in chunks)
