"""LlamaIndex node parsers: drop-ins for LlamaIndex's own splitters, and one backed by any
ragchunk chunker.

* :class:`SentenceSplitter` and :class:`TokenTextSplitter` take the arguments of
  ``llama_index.core.node_parser.SentenceSplitter`` / ``TokenTextSplitter`` and return the
  same ``split_text`` chunks and the same nodes (text, ``start_char_idx``/``end_char_idx``,
  relationships, metadata), with LlamaIndex's metadata-aware sizing. With a built-in encoding
  as the tokenizer (LlamaIndex's default, tiktoken's ``cl100k_base`` ``encode`` with
  ``allowed_special="all"``, is one) the whole split runs in Rust, Punkt's sentence
  boundaries included; any other tokenizer or ``chunking_tokenizer_fn`` is called as
  LlamaIndex calls it. Change one import::

      # from llama_index.core.node_parser import SentenceSplitter
      from ragchunk.integrations.llama_index import SentenceSplitter

* :class:`RagchunkNodeParser` turns any ragchunk chunker into a ``NodeParser`` whose nodes
  carry the chunk's exact offsets (LlamaIndex's own parsers search for each node's text in
  the document).

They work wherever LlamaIndex takes a transformation:
``IngestionPipeline(transformations=[...])``,
``VectorStoreIndex.from_documents(..., transformations=[...])``.

Needs ``llama-index-core`` (``pip install 'ragchunk[llama-index]'``).

>>> from llama_index.core import Document
>>> parser = RagchunkNodeParser.from_chunker(ragchunk.CharacterSplitter(6))
>>> nodes = parser.get_nodes_from_documents([Document(text="Same. Same. Same. ")])
>>> [(n.text, n.start_char_idx, n.end_char_idx) for n in nodes]
[('Same. ', 0, 6), ('Same. ', 6, 12), ('Same. ', 12, 18)]
>>> SentenceSplitter(chunk_size=5, chunk_overlap=0).split_text("One two. Three four five six.")
['One two.', 'Three four five six.']
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.callbacks.base import CallbackManager
from llama_index.core.callbacks.schema import CBEventType, EventPayload
from llama_index.core.constants import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE
from llama_index.core.node_parser.interface import MetadataAwareTextSplitter, NodeParser
from llama_index.core.node_parser.node_utils import build_nodes_from_splits, default_id_func
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
from llama_index.core.schema import BaseNode, Document, MetadataMode, NodeRelationship, TextNode
from llama_index.core.utils import get_tokenizer, get_tqdm_iterable

import ragchunk
from ragchunk.core import dispatch
from ragchunk.core.chunk import Splitter
from ragchunk.core.counting import Counter
from ragchunk.core.encodings import ENCODINGS
from ragchunk.core.tokenizers import _is_builtin_encoding

__all__ = ["RagchunkNodeParser", "SentenceSplitter", "TokenTextSplitter"]

_logger = logging.getLogger(__name__)

# ---------------------------------------------------------------------------------------------
# Counting: a tokenizer callable LlamaIndex would call as ``len(tokenizer(text))``.


def _builtin_spec(tokenizer: Any) -> tuple[str, str] | None:
    """``(encoding, mode)`` when ``tokenizer`` is a built-in encoding's ``encode`` (or
    ``encode_ordinary``) with arguments whose count ragchunk reproduces: ``"all"`` (every
    special token allowed: LlamaIndex's default), ``"exact"`` (tiktoken's defaults: special-token
    text raises) or ``"ordinary"`` (special-token text is plain text); else ``None``.

    >>> import tiktoken, functools
    >>> enc = tiktoken.get_encoding("cl100k_base")
    >>> _builtin_spec(functools.partial(enc.encode, allowed_special="all"))
    ('cl100k_base', 'all')
    >>> _builtin_spec(enc.encode), _builtin_spec(enc.encode_ordinary), _builtin_spec(len)
    (('cl100k_base', 'exact'), ('cl100k_base', 'ordinary'), None)
    """
    func, args, keywords = tokenizer, (), {}
    if isinstance(tokenizer, functools.partial):
        func, args, keywords = tokenizer.func, tokenizer.args, dict(tokenizer.keywords)
    enc = getattr(func, "__self__", None)
    method = getattr(func, "__name__", None)
    if args or enc is None or method not in ("encode", "encode_ordinary"):
        return None
    try:
        import tiktoken
    except ImportError:  # pragma: no cover - a tiktoken Encoding implies tiktoken
        return None
    if not isinstance(enc, tiktoken.Encoding):
        return None
    if getattr(type(enc), method) is not getattr(tiktoken.Encoding, method):
        return None  # a subclass that counts its own way
    name = _is_builtin_encoding(enc)
    if name is None:
        return None
    if method == "encode_ordinary":
        return (name, "ordinary") if not keywords else None
    allowed = keywords.pop("allowed_special", set())
    disallowed = keywords.pop("disallowed_special", "all")
    if keywords:
        return None
    specials = frozenset(enc.special_tokens_set)
    if allowed == "all" or (isinstance(allowed, (set, frozenset)) and specials <= allowed):
        if disallowed == "all" or (
            isinstance(disallowed, (set, frozenset, tuple)) and not disallowed
        ):
            return name, "all"
        return None
    if isinstance(allowed, (set, frozenset, tuple)) and not allowed:
        if disallowed == "all" or (
            isinstance(disallowed, (set, frozenset)) and specials <= disallowed
        ):
            return name, "exact"
        if isinstance(disallowed, (set, frozenset, tuple)) and not disallowed:
            return name, "ordinary"
    return None


@functools.cache
def _special_regex(name: str) -> re.Pattern[str]:
    specials = sorted(ENCODINGS[name].special_tokens, key=len, reverse=True)
    return re.compile("|".join(re.escape(s) for s in specials))


def _count_fn(tokenizer: Any, spec: tuple[str, str] | None) -> Callable[[str], int]:
    """``len(tokenizer(text))``, counted by ragchunk when ``spec`` names a built-in encoding."""
    if spec is None:
        return lambda text: len(tokenizer(text))
    name, mode = spec
    ordinary = Counter.shared(name)
    special = _special_regex(name)
    if mode == "ordinary":
        return ordinary
    if mode == "exact":

        def count_exact(text: str) -> int:
            if "<|" in text and special.search(text):
                return len(tokenizer(text))  # the tokenizer raises its own error
            return ordinary(text)

        return count_exact

    def count_all(text: str) -> int:
        if "<|" not in text:
            return ordinary(text)
        parts = special.split(text)
        return len(parts) - 1 + sum(ordinary(p) for p in parts if p)

    return count_all


# ---------------------------------------------------------------------------------------------
# Punkt: the Rust core mirrors NLTK's untrained PunktSentenceTokenizer; the mirror is used only
# while NLTK's code is the code it mirrors (its source and patterns hash to the digest below).

_PUNKT_DIGEST = "d042249474e3096f2f02bd8ac2ec3d64ddb53e67493011c0ec04bb13d31c0fb9"

_PUNKT_METHODS = (
    "span_tokenize",
    "_slices_from_text",
    "_match_potential_end_contexts",
    "_get_last_whitespace_index",
    "_realign_boundaries",
    "text_contains_sentbreak",
    "_annotate_tokens",
    "_annotate_first_pass",
    "_first_pass_annotation",
    "_annotate_second_pass",
    "_second_pass_annotation",
    "_ortho_heuristic",
    "_tokenize_words",
)


def _punkt_fingerprint() -> str | None:
    """A digest of the NLTK code and patterns the Rust mirror reproduces (``None`` when they
    cannot be read)."""
    try:
        import regex  # type: ignore[import-untyped]
        from nltk import redos  # type: ignore[import-untyped]
        from nltk.tokenize import punkt  # type: ignore[import-untyped]
    except ImportError:
        return None
    try:
        lv = punkt.PunktLanguageVars()
        rx = getattr(punkt.PunktToken._RE_NUMERIC, "_rx", None)
        pattern_type = regex.Pattern
        if getattr(redos, "regex", None) is not regex or not isinstance(rx, pattern_type):
            return None
        parts = [
            inspect.getsource(getattr(punkt.PunktSentenceTokenizer, m)) for m in _PUNKT_METHODS
        ]
        parts += [
            inspect.getsource(punkt.PunktToken),
            inspect.getsource(punkt._pair_iter),
            lv._word_tokenizer_re().pattern,
            lv.period_context_re().pattern,
            lv.re_boundary_realignment.pattern,
            str(lv.re_boundary_realignment.flags),
            repr(punkt.PunktSentenceTokenizer.PUNCTUATION),
            repr(lv.sent_end_chars),
        ]
    except (OSError, TypeError, AttributeError):
        return None
    # The non-word class lists "?!" in set order, which varies between processes.
    text = "\n".join(parts).replace("!\\?", "\\?!")
    return hashlib.sha256(text.encode()).hexdigest()


@functools.cache
def _punkt_mirrored() -> bool:
    """Whether the installed NLTK's Punkt is the one the Rust core mirrors."""
    return _punkt_fingerprint() == _PUNKT_DIGEST


def _default_punkt_in_use() -> bool:
    """Whether LlamaIndex's default sentence tokenizer would be an untrained Punkt now."""
    from llama_index.core.utils import globals_helper

    tok = getattr(globals_helper, "_punkt_tokenizer", None)
    if tok is None:
        return True
    from nltk.tokenize import punkt

    params = tok._params
    return (
        type(tok) is punkt.PunktSentenceTokenizer
        and type(tok._lang_vars) is punkt.PunktLanguageVars
        and tok._Token is punkt.PunktToken
        and not params.abbrev_types
        and not params.collocations
        and not params.sent_starters
        and not any(params.ortho_context.values())
    )


def _classify(ch: str) -> int:
    """The facts Punkt uses of one character, for the Rust mirror: ``str.isupper`` (1),
    ``str.islower`` (2), a digit to NLTK's patterns (4), a letter to them (8).

    >>> _classify("É"), _classify("ß"), _classify("٣"), _classify("中")
    (9, 10, 4, 8)
    """
    from nltk.tokenize.punkt import PunktToken  # type: ignore[import-untyped]

    flags = 0
    if ch.isupper():
        flags |= 1
    if ch.islower():
        flags |= 2
    if PunktToken._RE_NUMERIC.match(ch):
        flags |= 4
    if PunktToken._RE_INITIAL.match(ch + "."):
        flags |= 8
    return flags


def _rust_punkt(core: Any) -> Callable[[str], list[str]]:
    fallback = split_by_sentence_tokenizer()

    def sentences(text: str) -> list[str]:
        try:
            return list(core.li_punkt_sentences(text, _classify))
        except UnicodeEncodeError:
            return fallback(text)

    return sentences


# ---------------------------------------------------------------------------------------------
# The algorithms in Python, for what the Rust core does not run (a Python tokenizer or sentence
# tokenizer, another secondary regex, the pure-Python backend). The Rust core runs the same
# steps (rust/splitters/llama_index.rs).


@dataclass
class _Piece:
    text: str
    is_sentence: bool
    token_size: int


_SINGLE_TOKEN = "Single token exceeded chunk size"


def _strip_chunks(chunks: list[str]) -> list[str]:
    return [s for s in (c.strip() for c in chunks) if s]


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


class _DropIn(MetadataAwareTextSplitter):
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

    def _engine(self) -> Any:
        """The configured Rust engine for this splitter, or ``None``."""
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
            out.extend(build_nodes_from_splits(chunks, node, id_func=self.id_func))
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
        outcomes: list[Any] = [None] * len(texts)
        engine = self._engine()
        if engine is not None:
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

    def _engine(self) -> Any:
        core = dispatch.core()
        separator, paragraph_separator, clause = self._config
        if (
            core is None
            or self._spec is None
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
            raise ValueError(_SINGLE_TOKEN)
        if status == 2:
            self._tokenizer(text)  # raises the tokenizer's own error
            return None
        return list(chunks)

    # The Python path.
    def _split_python(self, text: str, chunk_size: int) -> list[str]:
        split_fns = self._split_fns
        core = dispatch.core()
        if (
            core is not None
            and self._chunking_tokenizer_fn is None
            and _punkt_mirrored()
            and _default_punkt_in_use()
        ):
            split_fns = [split_fns[0], _rust_punkt(core)]
        pieces: list[_Piece] = []
        self._pieces(text, chunk_size, self._count(text), split_fns, pieces)
        return self._merge(pieces, chunk_size)

    # LlamaIndex's private steps, with its signatures (its tests call them).
    def _token_size(self, text: str) -> int:
        return self._count(text)

    def _split(self, text: str, chunk_size: int) -> list[_Piece]:
        pieces: list[_Piece] = []
        self._pieces(text, chunk_size, self._count(text), self._split_fns, pieces)
        return pieces

    def _pieces(
        self,
        text: str,
        chunk_size: int,
        tokens: int,
        split_fns: list[Callable[[str], list[str]]],
        out: list[_Piece],
    ) -> None:
        if tokens <= chunk_size:
            out.append(_Piece(text, True, tokens))
            return
        parts: list[str] = []
        is_sentence = True
        for fn in split_fns:
            parts = fn(text)
            if len(parts) > 1:
                break
        else:
            is_sentence = False
            for fn in self._sub_sentence_split_fns:
                parts = fn(text)
                if len(parts) > 1:
                    break
        for part in parts:
            n = self._count(part)
            if n <= chunk_size or len(parts) == 1:
                out.append(_Piece(part, is_sentence, n))
            else:
                self._pieces(part, chunk_size, n, split_fns, out)

    def _merge(self, pieces: list[_Piece], chunk_size: int) -> list[str]:
        chunks: list[str] = []
        cur: list[_Piece] = []
        cur_len = 0
        fresh = True
        i = 0
        while i < len(pieces):
            piece = pieces[i]
            if piece.token_size > chunk_size:
                raise ValueError(_SINGLE_TOKEN)
            if cur_len + piece.token_size > chunk_size and not fresh:
                chunks.append("".join(p.text for p in cur))
                last, cur, cur_len, fresh = cur, [], 0, True
                for p in reversed(last):
                    if cur_len + p.token_size > self.chunk_overlap:
                        break
                    cur_len += p.token_size
                    cur.insert(0, p)
                continue
            if fresh:
                while cur and cur_len + piece.token_size > chunk_size:
                    cur_len -= cur.pop(0).token_size
            # Not fresh means the piece fits, so LlamaIndex's "close the chunk when a clause
            # does not fit" branch is never taken.
            cur_len += piece.token_size
            cur.append(piece)
            i += 1
            fresh = False
        if not fresh:
            chunks.append("".join(p.text for p in cur))
        return _strip_chunks(chunks)


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

    def _engine(self) -> Any:
        core = dispatch.core()
        seps = self._separators
        if core is None or self._spec is None or not all(isinstance(s, str) and s for s in seps):
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
        splits: list[tuple[str, int]] = []
        self._pieces(text, chunk_size, self._count(text), splits)
        return self._merge_counted(splits, chunk_size)

    # LlamaIndex's private steps, with its signatures (its tests call them).
    def _split(self, text: str, chunk_size: int) -> list[str]:
        splits: list[tuple[str, int]] = []
        self._pieces(text, chunk_size, self._count(text), splits)
        return [s for s, _ in splits]

    def _merge(self, splits: list[str], chunk_size: int) -> list[str]:
        return self._merge_counted([(s, self._count(s)) for s in splits], chunk_size)

    def _merge_counted(self, splits: list[tuple[str, int]], chunk_size: int) -> list[str]:
        chunks: list[str] = []
        cur: list[tuple[str, int]] = []
        cur_len = 0

        def finish() -> None:
            joined = "".join(s for s, _ in cur)
            chunk = joined if self.keep_whitespaces else joined.strip()
            if chunk:
                chunks.append(chunk)

        for split, n in splits:
            if n > chunk_size:
                self._warn_oversized(n, chunk_size)
            if cur_len + n > chunk_size:
                finish()
                while cur and (cur_len > self.chunk_overlap or cur_len + n > chunk_size):
                    cur_len -= cur.pop(0)[1]
            cur.append((split, n))
            cur_len += n
        finish()
        return chunks

    def _pieces(self, text: str, chunk_size: int, tokens: int, out: list[tuple[str, int]]) -> None:
        if tokens <= chunk_size:
            out.append((text, tokens))
            return
        parts: list[str] = []
        for fn in self._split_fns:
            parts = fn(text)
            if len(parts) > 1:
                break
        for part in parts:
            n = self._count(part)
            if n <= chunk_size or len(parts) == 1:
                out.append((part, n))
            else:
                self._pieces(part, chunk_size, n, out)


# ---------------------------------------------------------------------------------------------
# Any ragchunk chunker as a node parser.


class RagchunkNodeParser(NodeParser):
    """Nodes from a ragchunk chunker, with exact character offsets.

    Each node has a ``SOURCE`` relationship to its document, ``PREVIOUS``/``NEXT``
    relationships to its neighbours in the same document, the document's metadata and the
    chunk's own (Markdown ``headers``...). ``id_func(i, document)`` gets the chunk's index
    within its own document, so a node's id does not depend on the other documents of the
    batch.

    ``start_char_idx``/``end_char_idx`` are the chunk's offsets where the node text is the
    document slice ``document.text[start:end]``, and ``None`` where it is not: HTML chunks
    (their offsets index the extracted text), JSON chunks (re-serialized), a Markdown or HTML
    table continued with its header repeated, chunks re-joined without their separators
    (``RecursiveSplitter(keep_separator=False)``).

    >>> parser = RagchunkNodeParser.from_chunker(ragchunk.RecursiveSplitter(8, 0))
    >>> parser.chunker == ragchunk.RecursiveSplitter(8, 0)
    True
    >>> parser.split_text("One sentence here. Another one there, and more words.")
    ['One sentence here. Another one there,', 'and more words.']
    """

    chunker: Any = Field(description="the ragchunk chunker (a ragchunk.Splitter)")
    workers: int | None = Field(default=None, description="threads per batch of documents")

    @classmethod
    def from_chunker(
        cls, chunker: Splitter, *, workers: int | None = None, **kwargs: Any
    ) -> RagchunkNodeParser:
        """A parser for ``chunker``; ``kwargs`` are NodeParser options
        (``include_metadata``, ``include_prev_next_rel``, ``id_func``...).

        >>> RagchunkNodeParser.from_chunker(ragchunk.SentenceSplitter(64)).workers is None
        True
        """
        if not isinstance(chunker, Splitter):
            raise TypeError(f"chunker must be a ragchunk chunker, got {type(chunker).__name__}")
        return cls(chunker=chunker, workers=workers, **kwargs)

    @classmethod
    def class_name(cls) -> str:
        """LlamaIndex's name for this transformation.

        >>> RagchunkNodeParser.class_name()
        'RagchunkNodeParser'
        """
        return "RagchunkNodeParser"

    def split_text(self, text: str) -> list[str]:
        """The chunk texts of ``text``.

        >>> RagchunkNodeParser.from_chunker(ragchunk.CharacterSplitter(4)).split_text("abcdefgh")
        ['abcd', 'efgh']
        """
        return [c.text for c in self.chunker.split(text)]

    def split_texts(self, texts: list[str]) -> list[str]:
        """The chunk texts of every text, in order, one flat list (one parallel batch).

        >>> parser = RagchunkNodeParser.from_chunker(ragchunk.CharacterSplitter(4))
        >>> parser.split_texts(["abcdef", "xy"])
        ['abcd', 'ef', 'xy']
        """
        return [
            c.text for chunks in self.chunker.split_batch(list(texts), self.workers) for c in chunks
        ]

    def _parse_nodes(
        self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any
    ) -> list[BaseNode]:
        texts = [n.get_content(metadata_mode=MetadataMode.NONE) for n in nodes]
        out: list[BaseNode] = []
        for parent, text, chunks in zip(
            nodes, texts, self.chunker.split_batch(texts, self.workers), strict=True
        ):
            source = parent.as_related_node_info()
            for i, chunk in enumerate(chunks):
                exact = text[chunk.start : chunk.end] == chunk.text
                node = TextNode(
                    id_=self.id_func(i, parent),
                    text=chunk.text,
                    start_char_idx=chunk.start if exact else None,
                    end_char_idx=chunk.end if exact else None,
                    metadata=dict(chunk.metadata) if self.include_metadata else {},
                    excluded_embed_metadata_keys=list(parent.excluded_embed_metadata_keys),
                    excluded_llm_metadata_keys=list(parent.excluded_llm_metadata_keys),
                    relationships={NodeRelationship.SOURCE: source},
                )
                out.append(node)
        return out

    def _postprocess_parsed_nodes(
        self, nodes: list[BaseNode], parent_doc_map: dict[str, Document]
    ) -> list[BaseNode]:
        # The base class searches each node's text in its document (str.find) and overwrites
        # the offsets with what it finds; the chunker's offsets are exact where they slice the
        # document, and there is no offset where they do not, so both are kept.
        exact = [
            (n.start_char_idx, n.end_char_idx) if isinstance(n, TextNode) else None for n in nodes
        ]
        nodes = super()._postprocess_parsed_nodes(nodes, parent_doc_map)
        for node, span in zip(nodes, exact, strict=True):
            if span is not None and isinstance(node, TextNode):
                node.start_char_idx, node.end_char_idx = span
        return nodes


_ = ragchunk  # the doctests name ragchunk's chunkers
