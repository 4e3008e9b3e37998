"""The drop-ins for LlamaIndex's ``SentenceSplitter`` and ``TokenTextSplitter``: LlamaIndex's
arguments, sizing, events and nodes, with the splitting in the Rust core when it runs the
configuration, else in its Python twin (``ragchunk._pure.splitters.llama_index``)."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.callbacks.base import CallbackManager
from llama_index.core.callbacks.schema import CBEventType, EventPayload
from llama_index.core.constants import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE
from llama_index.core.node_parser.interface import MetadataAwareTextSplitter
from llama_index.core.node_parser.node_utils import default_id_func
from llama_index.core.node_parser.text.sentence import (
    CHUNKING_REGEX,
    DEFAULT_PARAGRAPH_SEP,
    SENTENCE_CHUNK_OVERLAP,
)
from llama_index.core.node_parser.text.token import DEFAULT_METADATA_FORMAT_LEN
from llama_index.core.node_parser.text.utils import (
    split_by_char,
    split_by_regex,
    split_by_sentence_tokenizer,
    split_by_sep,
)
from llama_index.core.schema import BaseNode, Document, MetadataMode
from llama_index.core.utils import get_tokenizer, get_tqdm_iterable

from ragchunk._pure.splitters import llama_index as pure
from ragchunk._pure.splitters.llama_index import SINGLE_TOKEN
from ragchunk.core import dispatch

from ._counting import (
    _builtin_spec,
    _classify,
    _count_fn,
    _default_punkt_in_use,
    _punkt_mirrored,
    _rust_punkt,
)
from ._nodes import FastNodes, build_nodes

__all__ = ["SentenceSplitter", "TokenTextSplitter"]

# The logger LlamaIndex users configure for these drop-ins: the public module's.
_logger = logging.getLogger("ragchunk.integrations.llama_index")


def _metadata_error(metadata_len: int, chunk_size: int) -> ValueError:
    return ValueError(
        f"Metadata length ({metadata_len}) is longer than chunk size "
        f"({chunk_size}). Consider increasing the chunk size or "
        "decreasing the size of your metadata to avoid this."
    )


def _metadata_note(metadata_len: int, chunk_size: int) -> str:
    return (
        f"Metadata length ({metadata_len}) is close to chunk size "
        f"({chunk_size}). Resulting chunks are less than 50 tokens. "
        "Consider increasing the chunk size or decreasing the size of "
        "your metadata to avoid this."
    )


class _DropIn(FastNodes, MetadataAwareTextSplitter):
    """What both drop-ins share: the metadata-aware sizing, batches that run in the Rust core
    when they can, and LlamaIndex's callback events (one ``CHUNKING`` event per non-empty
    text)."""

    _tokenizer: Callable[..., Any] = PrivateAttr()
    _count: Callable[[str], int] = PrivateAttr()
    _spec: tuple[str, str] | None = PrivateAttr(default=None)

    def _set_tokenizer(self, tokenizer: Callable[..., Any] | None) -> None:
        self._tokenizer = tokenizer or get_tokenizer()
        self._spec = _builtin_spec(self._tokenizer)
        self._count = _count_fn(self._tokenizer, self._spec)

    chunk_size: int = Field(default=DEFAULT_CHUNK_SIZE, gt=0)
    chunk_overlap: int = Field(default=0, ge=0)

    # What each drop-in provides: the tokens LlamaIndex adds to the metadata's for its format.
    _metadata_format_len: ClassVar[int] = 0

    def _engine(self, core: Any) -> Any:
        """The configured Rust engine for this splitter in ``core``, or ``None`` when the
        Rust core does not run this configuration."""
        raise NotImplementedError

    def _split_python(self, text: str, chunk_size: int) -> list[str]:
        raise NotImplementedError

    def _finish_rust(
        self, text: str, chunk_size: int, outcome: tuple[Any, ...]
    ) -> list[str] | None:
        raise NotImplementedError

    # the public splitting API
    def split_text(self, text: str) -> list[str]:
        """The chunks of ``text`` (LlamaIndex's ``split_text``)."""
        return self._split_many([text], [self.chunk_size])[0]

    def split_texts(self, texts: list[str]) -> list[str]:
        """The chunks of every text, in order, one flat list; the texts run as one parallel
        batch in the Rust core."""
        texts = list(texts)
        return [
            c for chunks in self._split_many(texts, [self.chunk_size] * len(texts)) for c in chunks
        ]

    def split_text_metadata_aware(self, text: str, metadata_str: str) -> list[str]:
        """The chunks of ``text`` sized to leave room for ``metadata_str``."""
        return self._split_many_aware([text], [metadata_str])[0]

    def split_texts_metadata_aware(self, texts: list[str], metadata_strs: list[str]) -> list[str]:
        """:meth:`split_text_metadata_aware` of each text, one flat list."""
        if len(texts) != len(metadata_strs):
            raise ValueError("Texts and metadata_strs must have the same length")
        return [c for chunks in self._split_many_aware(texts, metadata_strs) for c in chunks]

    def _parse_nodes(
        self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any
    ) -> list[BaseNode]:
        nodes = list(nodes)
        metadata_strs = [self._get_metadata_str(n) for n in nodes]
        texts = [n.get_content(metadata_mode=MetadataMode.NONE) for n in nodes]
        splits = self._split_many_aware(texts, metadata_strs)
        out: list[BaseNode] = []
        for node, chunks in zip(
            get_tqdm_iterable(nodes, show_progress, "Parsing nodes"), splits, strict=True
        ):
            out.extend(build_nodes(chunks, node, id_func=self.id_func))
        return out

    # batches
    def _split_many_aware(self, texts: list[str], metadata_strs: list[str]) -> list[list[str]]:
        plans: list[tuple[int, str | None, Exception | None]] = []
        for metadata_str in metadata_strs:
            try:
                metadata_len = self._count(metadata_str) + self._metadata_format_len
            except Exception as exc:  # raised when this text's turn comes
                plans.append((0, None, exc))
                break
            size = self.chunk_size - metadata_len
            if size <= 0:
                plans.append((0, None, _metadata_error(metadata_len, self.chunk_size)))
                break
            note = _metadata_note(metadata_len, self.chunk_size) if size < 50 else None
            plans.append((size, note, None))
        return self._split_many(texts[: len(plans)], [p[0] for p in plans], plans)

    def _split_many(
        self,
        texts: list[str],
        sizes: list[int],
        plans: list[tuple[int, str | None, Exception | None]] | None = None,
    ) -> list[list[str]]:
        """Each text's chunks, in LlamaIndex's order of events: for each text, its metadata
        error or note, then its ``CHUNKING`` event (or error)."""
        outcomes: list[Any] = dispatch.run_exact(
            lambda core: self._rust_outcomes(core, texts, sizes, plans), lambda: [None] * len(texts)
        )
        out = []
        for i, text in enumerate(texts):
            if plans is not None:
                _, note, error = plans[i]
                if error is not None:
                    raise error
                if note is not None:
                    print(note, flush=True)
            if text == "":
                out.append([text])
                continue
            with self.callback_manager.event(
                CBEventType.CHUNKING, payload={EventPayload.CHUNKS: [text]}
            ) as event:
                chunks = None
                if outcomes[i] is not None:
                    chunks = self._finish_rust(text, sizes[i], outcomes[i])
                if chunks is None:
                    chunks = self._split_python(text, sizes[i])
                event.on_end(payload={EventPayload.CHUNKS: chunks})
            out.append(chunks)
        return out

    def _rust_outcomes(
        self,
        core: Any,
        texts: list[str],
        sizes: list[int],
        plans: list[tuple[int, str | None, Exception | None]] | None,
    ) -> list[Any]:
        """Each text's outcome in the Rust core, ``None`` for a text it does not run (an empty
        one, one whose metadata failed, one with lone surrogates, every one of a configuration
        the core does not run)."""
        outcomes: list[Any] = [None] * len(texts)
        engine = self._engine(core)
        if engine is None:
            return outcomes
        todo = [
            i for i, t in enumerate(texts) if t != "" and (plans is None or plans[i][2] is None)
        ]
        try:
            if len(todo) == 1:
                i = todo[0]
                outcomes[i] = engine.split(texts[i], sizes[i])
            elif todo:
                got = engine.split_batch([texts[i] for i in todo], [sizes[i] for i in todo])
                for i, outcome in zip(todo, got, strict=True):
                    outcomes[i] = outcome
        except UnicodeEncodeError:  # lone surrogates: text by text, some in Python
            for i in todo:
                try:
                    outcomes[i] = engine.split(texts[i], sizes[i])
                except UnicodeEncodeError:
                    outcomes[i] = None
        return outcomes


@functools.cache
def _sentence_engine(core: Any, *config: Any) -> Any:
    return core.LlamaIndexSentence(*config, _classify)


@functools.cache
def _token_engine(core: Any, overlap: int, seps: tuple[str, ...], *config: Any) -> Any:
    return core.LlamaIndexToken(overlap, list(seps), *config)


class SentenceSplitter(_DropIn):
    """LlamaIndex's ``SentenceSplitter``: whole sentences and paragraphs packed to
    ``chunk_size`` tokens, ``chunk_overlap`` tokens of the previous chunk repeated; same
    arguments, same chunks, same nodes.

    A text is cut at ``paragraph_separator``, then into sentences (``chunking_tokenizer_fn``;
    by default NLTK's Punkt, untrained, which the Rust core reproduces), then at
    ``secondary_chunking_regex``, ``separator`` and characters, each only where a piece is
    still too long; pieces are packed greedily and the chunks stripped.

    >>> splitter = SentenceSplitter(chunk_size=12, chunk_overlap=2)
    >>> splitter.split_text("The cat sat. The dog ran off quickly. Birds sang all day long.")
    ['The cat sat. The dog ran off quickly.', 'Birds sang all day long.']
    >>> SentenceSplitter(chunk_size=8, chunk_overlap=9)
    Traceback (most recent call last):
    ...
    ValueError: Got a larger chunk overlap (9) than chunk size (8), should be smaller.
    """

    chunk_size: int = Field(
        default=DEFAULT_CHUNK_SIZE, description="The token chunk size for each chunk.", gt=0
    )
    chunk_overlap: int = Field(
        default=SENTENCE_CHUNK_OVERLAP,
        description="The token overlap of each chunk when splitting.",
        ge=0,
    )
    separator: str = Field(default=" ", description="Default separator for splitting into words")
    paragraph_separator: str = Field(
        default=DEFAULT_PARAGRAPH_SEP, description="Separator between paragraphs."
    )
    secondary_chunking_regex: str | None = Field(
        default=CHUNKING_REGEX, description="Backup regex for splitting into sentences."
    )

    _chunking_tokenizer_fn: Callable[[str], list[str]] | None = PrivateAttr(default=None)
    _split_fns: list[Callable[[str], list[str]]] = PrivateAttr()
    _sub_sentence_split_fns: list[Callable[[str], list[str]]] = PrivateAttr()
    _config: tuple[str, str, bool | None] = PrivateAttr()

    def __init__(
        self,
        separator: str = " ",
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        chunk_overlap: int = SENTENCE_CHUNK_OVERLAP,
        tokenizer: Callable[..., Any] | None = None,
        paragraph_separator: str = DEFAULT_PARAGRAPH_SEP,
        chunking_tokenizer_fn: Callable[[str], list[str]] | None = None,
        secondary_chunking_regex: str | None = CHUNKING_REGEX,
        callback_manager: CallbackManager | None = None,
        include_metadata: bool = True,
        include_prev_next_rel: bool = True,
        id_func: Callable[[int, Document], str] | None = None,
    ) -> None:
        if chunk_overlap > chunk_size:
            raise ValueError(
                f"Got a larger chunk overlap ({chunk_overlap}) than chunk size "
                f"({chunk_size}), should be smaller."
            )
        fields: dict[str, Any] = dict(
            chunk_size=chunk_size,
            chunk_overlap=chunk_overlap,
            secondary_chunking_regex=secondary_chunking_regex,
            separator=separator,
            paragraph_separator=paragraph_separator,
            callback_manager=callback_manager or CallbackManager([]),
            include_metadata=include_metadata,
            include_prev_next_rel=include_prev_next_rel,
            id_func=id_func or default_id_func,
        )
        super().__init__(**fields)
        self._set_tokenizer(tokenizer)
        self._chunking_tokenizer_fn = chunking_tokenizer_fn
        punkt = chunking_tokenizer_fn or split_by_sentence_tokenizer()
        self._split_fns = [split_by_sep(paragraph_separator), punkt]
        subs = [split_by_sep(separator), split_by_char()]
        if secondary_chunking_regex:
            subs.insert(0, split_by_regex(secondary_chunking_regex))
        self._sub_sentence_split_fns = subs
        # The separators in force (LlamaIndex fixes them here) and which secondary regex:
        # True for the default, False for none, None for another (run in Python).
        clause: bool | None = (
            True
            if secondary_chunking_regex == CHUNKING_REGEX
            else (None if secondary_chunking_regex else False)
        )
        self._config = (separator, paragraph_separator, clause)

    @classmethod
    def from_defaults(
        cls,
        separator: str = " ",
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        chunk_overlap: int = SENTENCE_CHUNK_OVERLAP,
        tokenizer: Callable[..., Any] | None = None,
        paragraph_separator: str = DEFAULT_PARAGRAPH_SEP,
        chunking_tokenizer_fn: Callable[[str], list[str]] | None = None,
        secondary_chunking_regex: str = CHUNKING_REGEX,
        callback_manager: CallbackManager | None = None,
        include_metadata: bool = True,
        include_prev_next_rel: bool = True,
    ) -> SentenceSplitter:
        """The splitter for these arguments (LlamaIndex's ``from_defaults``).

        >>> SentenceSplitter.from_defaults(chunk_size=256).chunk_overlap
        200
        """
        return cls(
            separator=separator,
            chunk_size=chunk_size,
            chunk_overlap=chunk_overlap,
            tokenizer=tokenizer,
            paragraph_separator=paragraph_separator,
            chunking_tokenizer_fn=chunking_tokenizer_fn,
            secondary_chunking_regex=secondary_chunking_regex,
            callback_manager=callback_manager or CallbackManager([]),
            include_metadata=include_metadata,
            include_prev_next_rel=include_prev_next_rel,
        )

    @classmethod
    def class_name(cls) -> str:
        """LlamaIndex's name for this transformation, the one its own class has.

        >>> SentenceSplitter.class_name()
        'SentenceSplitter'
        """
        return "SentenceSplitter"

    def _engine(self, core: Any) -> Any:
        separator, paragraph_separator, clause = self._config
        if (
            self._spec is None
            or clause is None
            or self._chunking_tokenizer_fn is not None
            or not separator
            or not paragraph_separator
            or not _punkt_mirrored()
            or not _default_punkt_in_use()
        ):
            return None
        name, mode = self._spec
        return _sentence_engine(
            core, self.chunk_overlap, separator, paragraph_separator, clause, name, mode
        )

    def _finish_rust(
        self, text: str, chunk_size: int, outcome: tuple[Any, ...]
    ) -> list[str] | None:
        chunks, status = outcome
        if status == 1:
            raise ValueError(SINGLE_TOKEN)
        if status == 2:
            self._tokenizer(text)  # raises the tokenizer's own error
            return None
        return list(chunks)

    # The Python path: the algorithm's Python twin, with LlamaIndex's split functions.
    def _split_python(self, text: str, chunk_size: int) -> list[str]:
        split_fns = dispatch.run_exact(self._rust_punkt_fns, lambda: self._split_fns)
        return dispatch.run_exact(
            None,
            lambda: pure.sentence_split(
                self.chunk_overlap,
                split_fns,
                self._sub_sentence_split_fns,
                self._count,
                text,
                chunk_size,
            ),
        )

    def _rust_punkt_fns(self, core: Any) -> list[Callable[[str], list[str]]]:
        """The paragraph and sentence splits with the Rust core's Punkt when the default
        (untrained) Punkt is in use."""
        if self._chunking_tokenizer_fn is None and _punkt_mirrored() and _default_punkt_in_use():
            return [self._split_fns[0], _rust_punkt(core)]
        return self._split_fns

    # LlamaIndex's private steps, with its signatures (its tests call them).
    def _token_size(self, text: str) -> int:
        return self._count(text)

    def _split(self, text: str, chunk_size: int) -> list[pure.Piece]:
        pieces: list[pure.Piece] = []
        self._pieces(text, chunk_size, self._count(text), self._split_fns, pieces)
        return pieces

    def _pieces(
        self,
        text: str,
        chunk_size: int,
        tokens: int,
        split_fns: list[Callable[[str], list[str]]],
        out: list[pure.Piece],
    ) -> None:
        pure.sentence_pieces(
            text, chunk_size, tokens, split_fns, self._sub_sentence_split_fns, self._count, out
        )

    def _merge(self, pieces: list[pure.Piece], chunk_size: int) -> list[str]:
        return pure.sentence_merge(pieces, chunk_size, self.chunk_overlap)


class TokenTextSplitter(_DropIn):
    """LlamaIndex's ``TokenTextSplitter``: windows of ``chunk_size`` tokens over the text cut
    at ``separator`` (then ``backup_separators``, then characters), ``chunk_overlap`` tokens
    repeated; same arguments, same chunks, same nodes.

    >>> TokenTextSplitter(chunk_size=4, chunk_overlap=1).split_text("one two three four five six")
    ['one two three four', 'four five six']
    >>> TokenTextSplitter(chunk_size=4, chunk_overlap=5)
    Traceback (most recent call last):
    ...
    ValueError: Got a larger chunk overlap (5) than chunk size (4), should be smaller.
    """

    chunk_size: int = Field(
        default=DEFAULT_CHUNK_SIZE, description="The token chunk size for each chunk.", gt=0
    )
    chunk_overlap: int = Field(
        default=DEFAULT_CHUNK_OVERLAP,
        description="The token overlap of each chunk when splitting.",
        ge=0,
    )
    separator: str = Field(default=" ", description="Default separator for splitting into words")
    backup_separators: list[Any] = Field(
        default_factory=list, description="Additional separators for splitting."
    )
    keep_whitespaces: bool = Field(
        default=False,
        description="Whether to keep leading/trailing whitespaces in the chunk.",
    )

    _split_fns: list[Callable[[str], list[str]]] = PrivateAttr()
    _separators: tuple[Any, ...] = PrivateAttr()
    _metadata_format_len: ClassVar[int] = DEFAULT_METADATA_FORMAT_LEN

    def __init__(
        self,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
        tokenizer: Callable[..., Any] | None = None,
        callback_manager: CallbackManager | None = None,
        separator: str = " ",
        backup_separators: list[str] | None = ["\n"],  # noqa: B006 - LlamaIndex's default
        keep_whitespaces: bool = False,
        include_metadata: bool = True,
        include_prev_next_rel: bool = True,
        id_func: Callable[[int, Document], str] | None = None,
    ) -> None:
        if chunk_overlap > chunk_size:
            raise ValueError(
                f"Got a larger chunk overlap ({chunk_overlap}) than chunk size "
                f"({chunk_size}), should be smaller."
            )
        fields: dict[str, Any] = dict(
            chunk_size=chunk_size,
            chunk_overlap=chunk_overlap,
            separator=separator,
            backup_separators=backup_separators,
            keep_whitespaces=keep_whitespaces,
            callback_manager=callback_manager or CallbackManager([]),
            include_metadata=include_metadata,
            include_prev_next_rel=include_prev_next_rel,
            id_func=id_func or default_id_func,
        )
        super().__init__(**fields)
        self._set_tokenizer(tokenizer)
        self._separators = (separator, *(backup_separators or []))
        self._split_fns = [split_by_sep(sep) for sep in self._separators] + [split_by_char()]

    @classmethod
    def from_defaults(
        cls,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
        separator: str = " ",
        backup_separators: list[str] | None = ["\n"],  # noqa: B006 - LlamaIndex's default
        callback_manager: CallbackManager | None = None,
        keep_whitespaces: bool = False,
        include_metadata: bool = True,
        include_prev_next_rel: bool = True,
        id_func: Callable[[int, Document], str] | None = None,
    ) -> TokenTextSplitter:
        """The splitter for these arguments (LlamaIndex's ``from_defaults``).

        >>> TokenTextSplitter.from_defaults(chunk_size=64).chunk_overlap
        20
        """
        return cls(
            chunk_size=chunk_size,
            chunk_overlap=chunk_overlap,
            separator=separator,
            backup_separators=backup_separators,
            keep_whitespaces=keep_whitespaces,
            callback_manager=callback_manager or CallbackManager([]),
            include_metadata=include_metadata,
            include_prev_next_rel=include_prev_next_rel,
            id_func=id_func,
        )

    @classmethod
    def class_name(cls) -> str:
        """LlamaIndex's name for this transformation, the one its own class has.

        >>> TokenTextSplitter.class_name()
        'TokenTextSplitter'
        """
        return "TokenTextSplitter"

    def _engine(self, core: Any) -> Any:
        seps = self._separators
        if self._spec is None or not all(isinstance(s, str) and s for s in seps):
            return None
        name, mode = self._spec
        return _token_engine(
            core, self.chunk_overlap, tuple(seps), self.keep_whitespaces, name, mode
        )

    def _finish_rust(
        self, text: str, chunk_size: int, outcome: tuple[Any, ...]
    ) -> list[str] | None:
        chunks, oversized, status = outcome
        if status == 2:
            self._tokenizer(text)  # raises the tokenizer's own error
            return None
        for n in oversized:
            self._warn_oversized(n, chunk_size)
        return list(chunks)

    def _warn_oversized(self, n: int, chunk_size: int) -> None:
        _logger.warning("Got a split of size %d, larger than chunk size %d.", n, chunk_size)

    def _split_python(self, text: str, chunk_size: int) -> list[str]:
        chunks, oversized = dispatch.run_exact(
            None,
            lambda: pure.token_split(
                chunk_size,
                self.chunk_overlap,
                self.keep_whitespaces,
                self._split_fns,
                self._count,
                text,
            ),
        )
        for n in oversized:
            self._warn_oversized(n, chunk_size)
        return chunks

    # LlamaIndex's private steps, with its signatures (its tests call them).
    def _split(self, text: str, chunk_size: int) -> list[str]:
        splits: list[tuple[str, int]] = []
        self._pieces(text, chunk_size, self._count(text), splits)
        return [s for s, _ in splits]

    def _merge(self, splits: list[str], chunk_size: int) -> list[str]:
        chunks, oversized = pure.token_merge(
            [(s, self._count(s)) for s in splits],
            chunk_size,
            self.chunk_overlap,
            self.keep_whitespaces,
        )
        for n in oversized:
            self._warn_oversized(n, chunk_size)
        return chunks

    def _pieces(self, text: str, chunk_size: int, tokens: int, out: list[tuple[str, int]]) -> None:
        pure.token_pieces(text, chunk_size, tokens, self._split_fns, self._count, out)
