"""RAGFlow drop-ins: ``naive_merge`` and its relatives.

Every function here validates its arguments once (so both backends raise the same errors),
then hands plain lists to the active backend: the Rust core, or the pure-Python fallback.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any, Literal, TypeAlias, overload

from .._pure.ragflow import merge as _pure_merge
from ..core import dispatch
from ..core.counting import Counter
from ..core.images import fold_images
from ..core.optional import load
from ..core.tokenizers import ResolvedTokenizer, resolve_tokenizer
from .positions import Position, extract_positions, remove_tag
from .tokens import ragflow_counter

__all__ = [
    "COMPAT_FAMILIES",
    "DEFAULT_DELIMITER",
    "MergeStrategy",
    "naive_merge",
    "naive_merge_offsets",
    "naive_merge_with_images",
    "naive_merge_with_positions",
]

Section: TypeAlias = "str | tuple[str, str | None]"

DEFAULT_DELIMITER = "\n。；！？"

COMPAT_FAMILIES = ("v0.27", "v0.26", "v0.23", "v0.22")
"""Release families ``compat=`` accepts: v0.27.x (default), v0.26.x, v0.23–v0.25, v0.20–v0.22."""


class MergeStrategy(Enum):
    """How ``naive_merge`` groups paragraphs into chunks (RAGFlow v0.27's ``MergeStrategy``).

    ``OVER_CAP`` (RAGFlow's default) keeps adding paragraphs while the running total has not
    yet passed the threshold, so a chunk may overflow ``chunk_token_num`` by one paragraph.
    ``UNDER_CAP`` adds a paragraph only while the total stays within ``chunk_token_num``.
    A paragraph larger than ``chunk_token_num`` stands alone in both. The strings
    ``"over_cap"`` / ``"under_cap"`` and RAGFlow's own enum members are accepted too.

    ``HARD_CAP`` (``"hard_cap"``) is a ragchunk extension, not in RAGFlow (``compat="v0.27"``
    only): no returned chunk counts more than ``chunk_token_num`` tokens when the returned
    string itself is recounted, overlap prefix and position tags included. Oversized
    paragraphs are cut at sentence ends, then after whitespace, then between characters
    (never inside a position tag); the overlap prefix is shortened to what still fits. The
    one exception: a single character (or position tag) over the cap by itself stands alone.
    Built-in encodings count special-token text as ordinary text here (RAGFlow's counter
    would count it as 0 tokens).

    >>> text = "One two three.\\nFour five six seven.\\nEight nine."
    >>> naive_merge(text, 8, "\\n", strategy=MergeStrategy.OVER_CAP)
    ['\\nOne two three.\\nFour five six seven.', '\\nEight nine.']
    >>> naive_merge(text, 8, "\\n", strategy="under_cap")
    ['\\nOne two three.', '\\nFour five six seven.', '\\nEight nine.']
    """

    OVER_CAP = "over_cap"
    UNDER_CAP = "under_cap"
    HARD_CAP = "hard_cap"


# ---------------------------------------------------------------------------------------------
# Argument validation (shared by both backends, so both raise the same errors)
# ---------------------------------------------------------------------------------------------


def _number(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    as_float = float(value)
    if not math.isfinite(as_float):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return as_float


def _chunk_token_num(value: object) -> float:
    n = _number("chunk_token_num", value)
    if n <= 0:
        raise ValueError(f"chunk_token_num must be > 0, got {value!r}")
    return n


def _overlapped_percent(value: object) -> float:
    p = _number("overlapped_percent", value)
    if not 0 <= p <= 100:
        raise ValueError(f"overlapped_percent must be between 0 and 100, got {value!r}")
    return p


def _delimiter(value: object) -> str:
    # RAGFlow parses a None delimiter field like an empty one (no delimiters at all).
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TypeError(f"delimiter must be a str or None, got {type(value).__name__}")
    return value


def _strategy(value: object) -> str:
    raw = value.value if isinstance(value, Enum) else value
    if raw in ("over_cap", "under_cap", "hard_cap"):
        return str(raw)
    raise ValueError(
        f"strategy must be MergeStrategy.OVER_CAP, MergeStrategy.UNDER_CAP or "
        f"MergeStrategy.HARD_CAP (or 'over_cap' / 'under_cap' / 'hard_cap'), got {value!r}"
    )


_COMPAT_RE = re.compile(r"v?0\.(\d+)(?:\.\d+)?")


def _compat(value: object) -> str:
    if isinstance(value, str):
        m = _COMPAT_RE.fullmatch(value.strip())
        if m:
            minor = int(m.group(1))
            if minor >= 27:
                return "v0.27"
            if minor == 26:
                return "v0.26"
            if 23 <= minor <= 25:
                return "v0.23"
            if 20 <= minor <= 22:
                return "v0.22"
    raise ValueError(
        "compat must name a RAGFlow release family: 'v0.27' (default), 'v0.26', "
        f"'v0.23' (v0.23-v0.25) or 'v0.22' (v0.20-v0.22), got {value!r}"
    )


def _sections(value: object, *, name: str = "sections") -> tuple[list[str], list[str | None]]:
    """Split ``sections`` into parallel lists of texts and ``pos`` tags."""
    if isinstance(value, str):
        return [value], [""]
    if not isinstance(value, (list, tuple)):
        raise TypeError(
            f"{name} must be a str, a list of str or a list of (text, pos) pairs, "
            f"got {type(value).__name__}"
        )
    texts: list[str] = []
    poses: list[str | None] = []
    for i, item in enumerate(value):
        if isinstance(item, str):
            texts.append(item)
            poses.append("")
            continue
        if isinstance(item, (tuple, list)) and len(item) == 2:
            text, pos = item
            if not isinstance(text, str):
                raise TypeError(f"{name}[{i}][0] (text) must be a str, got {type(text).__name__}")
            if pos is not None and not isinstance(pos, str):
                raise TypeError(
                    f"{name}[{i}][1] (pos) must be a str or None, got {type(pos).__name__}"
                )
            texts.append(text)
            poses.append(pos)
            continue
        raise TypeError(
            f"{name}[{i}] must be a str or a (text, pos) pair, got {type(item).__name__}"
            + (f" of length {len(item)}" if isinstance(item, (tuple, list)) else "")
        )
    return texts, poses


def _check_strategy_compat(strategy: str, compat: str) -> None:
    if strategy != "over_cap" and compat != "v0.27":
        raise ValueError(
            f"strategy: RAGFlow {compat} has no merge strategies (they arrived in v0.27); "
            "use the default MergeStrategy.OVER_CAP with this compat"
        )


# ---------------------------------------------------------------------------------------------
# Dispatch
# ---------------------------------------------------------------------------------------------


def _measure_counter(tok: ResolvedTokenizer, strategy: str) -> Callable[[str], int]:
    """The counter the pure-Python merge uses: RAGFlow's, except for HARD_CAP with a built-in
    encoding, which counts ``len(encode_ordinary(text))`` (as the Rust core does) so that
    special-token text cannot count as 0 and slip past the cap."""
    if strategy != "hard_cap" or tok.builtin is None:
        return ragflow_counter(tok)
    return Counter.shared(tok).bind()


def _merge(
    texts: list[str],
    poses: list[str | None],
    chunk_token_num: float,
    delimiter: str,
    overlapped_percent: float,
    strategy: str,
    compat: str,
    tok: ResolvedTokenizer,
    with_sources: bool,
) -> tuple[list[str], list[list[int]] | None]:
    # One tuple shared by both sides: two closures over ten variables each cost more than
    # the rest of the facade on a short document.
    args = (texts, poses, chunk_token_num, delimiter, overlapped_percent, strategy, compat, tok)
    result: tuple[list[str], list[list[int]] | None] = dispatch.run(
        lambda core: core.naive_merge(*args[:7], tok.builtin, tok.ragflow, with_sources),
        lambda: _merge_pure(*args, with_sources),
    )
    return result


def _merge_pure(
    texts: list[str],
    poses: list[str | None],
    chunk_token_num: float,
    delimiter: str,
    overlapped_percent: float,
    strategy: str,
    compat: str,
    tok: ResolvedTokenizer,
    with_sources: bool,
) -> tuple[list[str], list[list[int]] | None]:
    # Also the path of text with lone surrogates on the Rust backend: RAGFlow handles such
    # text (chunks keep the surrogates; counting follows tiktoken's recovery), and so does the
    # reference merge, still counting in Rust.
    chunks, sources = _pure_merge.naive_merge_sources(
        list(zip(texts, poses, strict=True)),
        chunk_token_num,
        delimiter,
        overlapped_percent,
        strategy,
        compat,
        _measure_counter(tok, strategy),
    )
    return chunks, (sources if with_sources else None)


_Prepared = tuple[float, str, float, str, str, ResolvedTokenizer]

# Validated settings of recent calls. Programs chunk millions of documents with the same few
# settings, and validating them took about half of the Python cost of a call (5 of 11 us): a
# small document paid it every time. Only plain values are keys (`bool` is not one: it is
# refused, and `True == 1`), tokenizers only by name (an object may change behind our back),
# and only settings that validated are kept, so every error is still raised on every call.
# Equal keys validate to equal results (`512` and `512.0`, `"over_cap"` and its enum member).
# In front of the table, the plain settings of the last call that validated: a loop over
# documents passes the very same objects every time, and six identity checks are cheaper
# than hashing the key (the same object is the same immutable value, so this is exact).
_PREPARED: dict[tuple[object, ...], _Prepared] = {}
_LAST: tuple[object, object, object, object, object, object, _Prepared | None] = (
    *(object(),) * 6,
    None,
)
_PREPARED_MAX = 64
_PLAIN = frozenset({int, float, str, type(None), MergeStrategy})


def _prepare(
    chunk_token_num: object,
    delimiter: object,
    overlapped_percent: object,
    strategy: object,
    compat: object,
    tokenizer: object,
) -> _Prepared:
    global _LAST
    last = _LAST  # one tuple, replaced whole: threads never see half of one
    if (
        chunk_token_num is last[0]
        and delimiter is last[1]
        and overlapped_percent is last[2]
        and strategy is last[3]
        and compat is last[4]
        and tokenizer is last[5]
        and last[6] is not None
    ):
        return last[6]
    # an enum member hashes in Python code, its value in C
    strategy_key = strategy._value_ if type(strategy) is MergeStrategy else strategy
    key = (chunk_token_num, delimiter, overlapped_percent, strategy_key, compat, tokenizer)
    plain = (
        type(chunk_token_num) in _PLAIN
        and type(delimiter) in _PLAIN
        and type(overlapped_percent) in _PLAIN
        and type(strategy) in _PLAIN
        and type(compat) is str
        and type(tokenizer) is str
    )
    if not plain:
        return _validate(key)
    prepared = _PREPARED.get(key)
    if prepared is None:
        prepared = _validate(key)
        if len(_PREPARED) >= _PREPARED_MAX:
            _PREPARED.clear()
        _PREPARED[key] = prepared
    _LAST = (chunk_token_num, delimiter, overlapped_percent, strategy, compat, tokenizer, prepared)
    return prepared


# A `` `token` `` in the delimiter field: RAGFlow's custom mode.
_CUSTOM_MODE = re.compile(r"`([^`]+)`")


def _validate(args: tuple[object, ...]) -> _Prepared:
    """Validate ``_prepare``'s arguments, in its order; raises what each check raises."""
    chunk_token_num, delimiter, overlapped_percent, strategy, compat, tokenizer = args
    ctn = _chunk_token_num(chunk_token_num)
    delim = _delimiter(delimiter)
    ovl = _overlapped_percent(overlapped_percent)
    strat = _strategy(strategy)
    comp = _compat(compat)
    _check_strategy_compat(strat, comp)
    if strat == "hard_cap" and _CUSTOM_MODE.search(delim) is not None:
        raise ValueError(
            "strategy: MergeStrategy.HARD_CAP cannot be combined with a backtick token in "
            "delimiter (RAGFlow's custom mode makes every segment a chunk, whatever its "
            "size); use bare delimiter characters"
        )
    return ctn, delim, ovl, strat, comp, resolve_tokenizer(tokenizer)


# ---------------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------------


def naive_merge(
    sections: str | Sequence[str | tuple[str, str | None]],
    chunk_token_num: int | float = 128,
    delimiter: str | None = DEFAULT_DELIMITER,
    overlapped_percent: int | float = 0,
    strategy: MergeStrategy | str = MergeStrategy.OVER_CAP,
    *,
    tokenizer: Any = "cl100k_base",
    compat: str = "v0.27",
) -> list[str]:
    """Cut text into chunks exactly as RAGFlow's ``rag.nlp.naive_merge`` does.

    Each section is split at every delimiter (the delimiter text is dropped); each piece
    becomes the paragraph ``"\\n" + piece``; paragraphs are grouped by token count according
    to ``strategy``; a section's ``pos`` tag is appended after its first paragraph in a chunk;
    with ``overlapped_percent > 0`` each chunk after the first starts with the tail of the
    previous chunk's visible text. A delimiter field holding a backtick-wrapped token (for
    example ``"`##`"``) switches to RAGFlow's custom mode: every segment is its own chunk.

    Args:
        sections: a str, a list of str, or a list of ``(text, pos)`` pairs, where ``pos`` is a
            RAGFlow position tag string (``"@@page\\tx0\\tx1\\ttop\\tbottom##"``), ``""`` or None.
        chunk_token_num: the token budget of a chunk (RAGFlow's function default, 128).
        delimiter: RAGFlow's delimiter field: every character is a delimiter, and
            ``` `text` ``` is a multi-character one. None or ``""`` means no splitting.
        overlapped_percent: 0-100; the share of the previous chunk's visible text repeated
            at the start of the next chunk.
        strategy: ``MergeStrategy.OVER_CAP`` (default), ``MergeStrategy.UNDER_CAP``, or the
            ragchunk extension ``MergeStrategy.HARD_CAP`` (v0.27 only; see
            :class:`MergeStrategy`).
        tokenizer: ``"cl100k_base"`` (RAGFlow's), ``"o200k_base"``, a ``tiktoken.Encoding``,
            a ``tokenizers.Tokenizer`` or any callable ``str -> int``.
        compat: the RAGFlow release whose behaviour to reproduce: ``"v0.27"`` (default),
            ``"v0.26"``, ``"v0.23"`` (v0.23-v0.25) or ``"v0.22"`` (v0.20-v0.22).

    Returns:
        The chunk strings, byte for byte what RAGFlow returns (``HARD_CAP``: what the
        strategy documents).

    Raises:
        TypeError: an argument of the wrong type (the message names it).
        ValueError: an argument out of range (the message names it).

    >>> naive_merge("第一句。第二句。", chunk_token_num=128)
    ['\\n第一句\\n第二句']
    >>> naive_merge([("Intro text", "@@1\\t0.0\\t10.0\\t0.0\\t5.0##")])
    ['\\nIntro text@@1\\t0.0\\t10.0\\t0.0\\t5.0##']
    """
    if type(sections) is str:
        texts: list[str] = [sections]
        poses: list[str | None] = [""]
    else:
        texts, poses = _sections(sections)
    ctn, delim, ovl, strat, comp, tok = _prepare(
        chunk_token_num, delimiter, overlapped_percent, strategy, compat, tokenizer
    )
    if not texts or (isinstance(sections, str) and not sections):
        return []  # RAGFlow, every release: `if not sections: return []`
    chunks, _ = _merge(texts, poses, ctn, delim, ovl, strat, comp, tok, with_sources=False)
    return chunks


def naive_merge_with_positions(
    sections: str | Sequence[str | tuple[str, str | None]],
    chunk_token_num: int | float = 128,
    delimiter: str | None = DEFAULT_DELIMITER,
    overlapped_percent: int | float = 0,
    strategy: MergeStrategy | str = MergeStrategy.OVER_CAP,
    *,
    tokenizer: Any = "cl100k_base",
    compat: str = "v0.27",
) -> list[tuple[str, list[Position]]]:
    """:func:`naive_merge`, with each chunk's position tags parsed out of its text.

    Returns a list of ``(chunk_text, positions)``: ``chunk_text`` is the chunk with its
    position tags removed (:func:`remove_tag`) and ``positions`` the tags it carried, parsed
    by :func:`extract_positions`, in order. Arguments are those of :func:`naive_merge`.

    >>> naive_merge_with_positions([("Intro", "@@2\\t1.0\\t9.0\\t3.0\\t4.0##")])
    [('\\nIntro', [([1], 1.0, 9.0, 3.0, 4.0)])]
    """
    chunks = naive_merge(
        sections,
        chunk_token_num,
        delimiter,
        overlapped_percent,
        strategy,
        tokenizer=tokenizer,
        compat=compat,
    )
    return [(remove_tag(c), extract_positions(c)) for c in chunks]


def _numpy() -> Any:
    return load("numpy", "naive_merge_offsets (it returns numpy arrays)")


@overload
def naive_merge_offsets(
    text: str,
    chunk_token_num: int | float = ...,
    delimiter: str | None = ...,
    overlapped_percent: int | float = ...,
    strategy: MergeStrategy | str = ...,
    *,
    tokenizer: Any = ...,
    return_prefix_lengths: Literal[False] = ...,
) -> tuple[Any, Any]: ...


@overload
def naive_merge_offsets(
    text: str,
    chunk_token_num: int | float = ...,
    delimiter: str | None = ...,
    overlapped_percent: int | float = ...,
    strategy: MergeStrategy | str = ...,
    *,
    tokenizer: Any = ...,
    return_prefix_lengths: Literal[True],
) -> tuple[Any, Any, Any]: ...


def naive_merge_offsets(
    text: str,
    chunk_token_num: int | float = 128,
    delimiter: str | None = DEFAULT_DELIMITER,
    overlapped_percent: int | float = 0,
    strategy: MergeStrategy | str = MergeStrategy.OVER_CAP,
    *,
    tokenizer: Any = "cl100k_base",
    return_prefix_lengths: bool = False,
) -> tuple[Any, Any] | tuple[Any, Any, Any]:
    """Where the chunks of ``naive_merge(text, ...)`` come from, without building them.

    For one plain string and RAGFlow v0.27 semantics (default and custom mode, every
    strategy including ``HARD_CAP``), returns numpy int64 arrays ``(starts, ends)`` with one
    entry per chunk ``naive_merge`` returns for the same arguments: ``text[starts[i]:ends[i]]``
    (code-point offsets into the **original** ``text``, CR/CRLF kept) runs from the start of
    the chunk's first piece to the end of its last piece, delimiters between them included.
    The chunk string is then: the overlap prefix (``prefix_lengths[i]`` code points, not part
    of the span), then each piece of the span — the span split at the delimiters, delimiters
    and empty pieces dropped, ``"\\r\\n"``/``"\\r"`` as ``"\\n"`` — after a ``"\\n"``. With
    ``HARD_CAP`` a piece may be cut into several fragments, each after its own ``"\\n"``. No
    position tags are involved (a plain string has no ``pos``).

    Args:
        text: the document.
        return_prefix_lengths: also return the overlap prefix length of every chunk (a
            third array, code points at the start of the chunk string).
        chunk_token_num, delimiter, overlapped_percent, strategy, tokenizer: as for
            :func:`naive_merge`.

    Raises:
        ImportError: numpy is not installed (``pip install 'ragchunk[numpy]'``).

    >>> starts, ends = naive_merge_offsets("one。two", chunk_token_num=128)
    >>> starts.tolist(), ends.tolist()
    ([0], [7])
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    ctn, delim, ovl, strat, _, tok = _prepare(
        chunk_token_num, delimiter, overlapped_percent, strategy, "v0.27", tokenizer
    )
    np = _numpy()

    def rust(core: Any) -> list[Any]:
        buffers = core.naive_merge_offsets(
            text, ctn, delim, ovl, strat, tok.builtin, None if tok.builtin else tok.ragflow
        )
        return [np.frombuffer(b, dtype=np.int64) for b in buffers]

    def pure() -> list[Any]:
        lists = _pure_merge.naive_merge_offsets(
            text, ctn, delim, ovl, strat, _measure_counter(tok, strat)
        )
        return [np.array(values, dtype=np.int64) for values in lists]

    arrays = dispatch.run(rust, pure)
    starts, ends, prefix_lengths = arrays
    if return_prefix_lengths:
        return starts, ends, prefix_lengths
    return starts, ends


def _image_texts(texts: object) -> tuple[list[str], list[str | None]]:
    # naive_merge_with_images accepts what RAGFlow's does: entries are str, None, or
    # (text, pos) pairs whose text may be None; a None text counts as "".
    if not isinstance(texts, (list, tuple)):
        raise TypeError(f"texts must be a list, got {type(texts).__name__}")
    cleaned: list[object] = []
    for item in texts:
        if item is None:
            cleaned.append("")
        elif isinstance(item, (tuple, list)) and len(item) == 2 and item[0] is None:
            cleaned.append(("", item[1]))
        else:
            cleaned.append(item)
    return _sections(cleaned, name="texts")


def naive_merge_with_images(
    texts: Sequence[str | tuple[str | None, str | None] | None],
    images: Sequence[Any],
    chunk_token_num: int | float = 128,
    delimiter: str | None = DEFAULT_DELIMITER,
    overlapped_percent: int | float = 0,
    strategy: MergeStrategy | str = MergeStrategy.OVER_CAP,
    *,
    tokenizer: Any = "cl100k_base",
    compat: str = "v0.27",
) -> tuple[list[str], list[Any]]:
    """RAGFlow's ``naive_merge_with_images``: chunks, and one image (or None) per chunk.

    The images of the paragraphs merged into a chunk are stacked vertically as RAGFlow's
    ``concat_img`` does (same object or identical pixels are not repeated; otherwise a new RGB
    image as wide as the widest and as tall as both). Images may be PIL images, None, or lazy
    images (objects with ``to_pil()`` whose class has a static ``merge(a, b)``, such as
    RAGFlow's ``LazyImage`` or :class:`ragchunk.LazyImage`). Pillow is needed only when two
    different images actually have to be stacked.

    Returns ``([], [])`` when ``texts`` is empty or ``len(texts) != len(images)``, as RAGFlow.
    Other arguments are those of :func:`naive_merge`.

    >>> naive_merge_with_images(["A page.", "Its caption."], ["img-1", None], 128)
    (['\\nA page.\\nIts caption.'], ['img-1'])
    """
    if not isinstance(images, (list, tuple)):
        raise TypeError(f"images must be a list, got {type(images).__name__}")
    norm_texts, poses = _image_texts(texts)
    ctn, delim, ovl, strat, comp, tok = _prepare(
        chunk_token_num, delimiter, overlapped_percent, strategy, compat, tokenizer
    )
    if not norm_texts or len(norm_texts) != len(images):
        return [], []
    chunks, sources = _merge(norm_texts, poses, ctn, delim, ovl, strat, comp, tok, True)
    assert sources is not None
    # RAGFlow v0.27 skips None images when folding; older releases pass them on.
    return chunks, fold_images(images, sources, skip_none=comp == "v0.27")
