"""The WordLlama static-embedding model loaded from the files its wheel ships, offline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.optional import np

__all__ = ["WordLlamaEmbedder", "load_wordllama"]


class WordLlamaEmbedder:
    """WordLlama (``l2_supercat``) as an :class:`~ragchunk.embeddings.Embedder`: token
    embeddings from a table, mean-pooled, float32. Loaded by :func:`load_wordllama`.

    A static model has no input window, so ``max_tokens`` is None.

    >>> e = load_wordllama()  # doctest: +SKIP
    >>> e.embed(["hello world"]).shape  # doctest: +SKIP
    (1, 256)
    """

    max_tokens = None

    def __init__(self, inference: Any, model: str) -> None:
        self.inference = inference
        self.model = model

    def __repr__(self) -> str:
        return f"WordLlamaEmbedder({self.model!r})"

    def embed(self, texts: list[str]) -> Any:
        """``(len(texts), dim)`` float32 vectors."""
        if not texts:
            return np.zeros((0, int(self.inference.embedding.shape[1])), dtype=np.float32)
        return np.asarray(self.inference.embed(list(texts)), dtype=np.float32)


def load_wordllama(dim: int = 256, config: str = "l2_supercat") -> WordLlamaEmbedder:
    """Load the WordLlama model the ``wordllama`` wheel ships (weights
    ``wordllama/weights/{config}_{dim}.safetensors`` and tokenizer
    ``wordllama/tokenizers/{config}_tokenizer_config.json``) without any network access:
    the shipped files are opened explicitly (``WordLlama.load()`` would look elsewhere for the
    tokenizer and then try to download it).

    Raises:
        ImportError: ``wordllama`` (and its ``tokenizers``/``safetensors``) not installed.
        FileNotFoundError: the wheel does not ship the files for ``config`` and ``dim``.

    >>> load_wordllama(dim=3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    FileNotFoundError: WordLlama weights not shipped: .../l2_supercat_3.safetensors
    """
    try:
        import wordllama  # type: ignore[import-untyped]
        from safetensors import safe_open
        from tokenizers import Tokenizer
        from wordllama.inference import WordLlamaInference  # type: ignore[import-untyped]
    except ImportError as exc:
        raise ImportError(
            "load_wordllama needs the wordllama package: pip install wordllama"
        ) from exc
    root = Path(wordllama.__file__).resolve().parent
    weights = root / "weights" / f"{config}_{dim}.safetensors"
    tokenizer_file = root / "tokenizers" / f"{config}_tokenizer_config.json"
    if not weights.is_file():
        raise FileNotFoundError(f"WordLlama weights not shipped: {weights}")
    if not tokenizer_file.is_file():
        raise FileNotFoundError(f"WordLlama tokenizer not shipped: {tokenizer_file}")
    tokenizer = Tokenizer.from_file(str(tokenizer_file))
    with safe_open(str(weights), framework="np", device="cpu") as f:
        table = f.get_tensor("embedding.weight")
    inference = WordLlamaInference(table, tokenizer, binary=False)
    return WordLlamaEmbedder(inference, f"wordllama/{config}_{dim}")
