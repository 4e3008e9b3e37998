"""The LangChain drop-ins' tiktoken encodings come from the vocabularies ragchunk ships: with
no tiktoken cache and no network, ``from_tiktoken_encoder`` (and ``TokenTextSplitter``) with
``cl100k_base``, ``o200k_base`` or a model using one give LangChain's chunks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

lc = pytest.importorskip("langchain_text_splitters")
tiktoken = pytest.importorskip("tiktoken")

TEXT = "The quick brown fox jumps over the lazy dog. " * 8 + "\n\n" + "Pack my box. " * 10

# Runs in a fresh interpreter: every socket connection fails, tiktoken's cache is empty.
SCRIPT = r"""
import json, socket, sys

def refuse(*args, **kwargs):
    raise OSError("network access attempted")

socket.socket.connect = refuse
socket.create_connection = refuse
from ragchunk.integrations import langchain as rc

text = sys.argv[1]
out = {}
for name in ("RecursiveCharacterTextSplitter", "CharacterTextSplitter", "TokenTextSplitter"):
    cls = getattr(rc, name)
    extra = {"separator": " "} if name == "CharacterTextSplitter" else {}
    for kw in ({"encoding_name": "cl100k_base"}, {"encoding_name": "o200k_base"},
               {"model_name": "gpt-4"}, {"model_name": "gpt-4o"}):
        s = cls.from_tiktoken_encoder(chunk_size=20, chunk_overlap=5, **kw, **extra)
        out[f"{name} {kw}"] = s.split_text(text)
for enc in ("cl100k_base", "o200k_base"):
    out[f"TokenTextSplitter() {enc}"] = rc.TokenTextSplitter(
        encoding_name=enc, chunk_size=20, chunk_overlap=5).split_text(text)
print(json.dumps(out))
"""


def _expected() -> dict[str, list[str]]:
    """LangChain's own chunks (its tiktoken reads the vocabularies the test set-up prepared)."""
    out = {}
    for name in ("RecursiveCharacterTextSplitter", "CharacterTextSplitter", "TokenTextSplitter"):
        cls = getattr(lc, name)
        extra = {"separator": " "} if name == "CharacterTextSplitter" else {}
        for kw in (
            {"encoding_name": "cl100k_base"},
            {"encoding_name": "o200k_base"},
            {"model_name": "gpt-4"},
            {"model_name": "gpt-4o"},
        ):
            s = cls.from_tiktoken_encoder(chunk_size=20, chunk_overlap=5, **kw, **extra)
            out[f"{name} {kw}"] = s.split_text(TEXT)
    for enc in ("cl100k_base", "o200k_base"):
        out[f"TokenTextSplitter() {enc}"] = lc.TokenTextSplitter(
            encoding_name=enc, chunk_size=20, chunk_overlap=5
        ).split_text(TEXT)
    return out


def test_from_tiktoken_encoder_offline(backend: str, tmp_path: Path) -> None:
    empty = tmp_path / "tiktoken-cache"
    empty.mkdir()
    env = dict(os.environ, RAGCHUNK_BACKEND=backend, TIKTOKEN_CACHE_DIR=str(empty))
    env.pop("DATA_GYM_CACHE_DIR", None)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, TEXT], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout)
    assert got == _expected()
    assert not list(empty.iterdir()), "tiktoken downloaded into its cache"
    assert all(len(chunks) > 1 for chunks in got.values())


def test_other_encodings_still_go_to_tiktoken(tmp_path: Path) -> None:
    from ragchunk.integrations import langchain as rc

    with pytest.raises(ValueError, match="Unknown encoding"):
        rc.TokenTextSplitter(encoding_name="no-such-encoding")
    with pytest.raises(KeyError):
        rc.RecursiveCharacterTextSplitter.from_tiktoken_encoder(model_name="no-such-model")
