"""Pure-Python twin of ``rust/splitters/code.rs``: the same syntax-tree walk and packing.

The tree comes from the ``tree-sitter`` PyPI package and the per-language grammar wheels, pinned
(pyproject ``fallback``/``test`` extras) to the grammar versions the Rust crates compile in, so
both backends see the same tree. Every rule below mirrors the Rust code; see that file's module
docs for the algorithm. Structure is walked in byte offsets (tree-sitter's), atoms are handed to
the shared packer (``packer.pack_spans``) in code points.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from ...core import rules
from .packer import pack_spans

__all__ = ["MAX_DEPTH", "CodeChunkRaw", "split_code"]

#: ``(start, end, size, symbols, start_line, end_line)``, code points, lines 1-based inclusive.
CodeChunkRaw = tuple[int, int, int, list[str], int, int]

#: canonical name -> (grammar module, function returning the language pointer); the names are
#: the data file's ``code.languages`` (a test holds them equal).
_GRAMMARS: dict[str, tuple[str, str]] = {
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "go": ("tree_sitter_go", "language"),
    "java": ("tree_sitter_java", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "python": ("tree_sitter_python", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
}


#: Per language: node kinds that define a named symbol, and wrappers that start a new chunk
#: when cut, like definitions (a decorated or exported or templated definition keeps its
#: decoration with its first part). With the two kind sets below they come from the data file
#: both backends read (see ``ragchunk.core.rules``).
_DEFS: dict[str, frozenset[str]] = {lang: rules.code_defs(lang) for lang in _GRAMMARS}
_WRAPPERS: dict[str, frozenset[str]] = {lang: rules.code_wrappers(lang) for lang in _GRAMMARS}

#: Kinds that are definitions only with a body (``struct s *p;`` is a reference).
_NEED_BODY = rules.need_body_kinds()
#: Values that make a ``variable_declarator`` a definition (``const f = () => ...``).
_FN_VALUES = rules.fn_value_kinds()

#: How deep the walk goes into the syntax tree (``MAX_DEPTH`` of the Rust module): a node this
#: many levels below the root that does not fit is one atom, cut as text by the packer.
MAX_DEPTH = 64

#: What is dropped around text between siblings: ASCII whitespace (a subset of ``str.isspace``),
#: the data file's ``chars.whitespace.code`` (ASCII, so it can be compared with bytes).
_GAP_WS = bytes(sorted(ord(c) for c in rules.char_set("chars.whitespace.code")))

_parsers: dict[str, Any] = {}


def _parser(lang: str) -> Any:
    parser = _parsers.get(lang)
    if parser is None:
        try:
            import tree_sitter

            mod_name, fn = _GRAMMARS[lang]
            grammar = importlib.import_module(mod_name)
        except ImportError as exc:
            raise ImportError(
                f"the pure-Python CodeSplitter needs the 'tree-sitter' package and the "
                f"grammar wheel for {lang!r} (pip install 'ragchunk[fallback]'): {exc}"
            ) from exc
        parser = tree_sitter.Parser(tree_sitter.Language(getattr(grammar, fn)()))
        _parsers[lang] = parser
    return parser


def _is_leading(kind: str) -> bool:
    """Comments (and Rust attributes) attach to the node after them."""
    return "comment" in kind or kind == "attribute_item"


class _Unit:
    __slots__ = ("leading_only", "members")

    def __init__(self, node: Any) -> None:
        self.members = [node]
        self.leading_only = _is_leading(node.type)


def _units(children: list[Any], src: bytes) -> list[_Unit]:
    """Group siblings: a comment on the line where the previous sibling ends stays with it;
    a run of comments (or attributes) with no blank line before the next sibling goes with it."""
    units: list[_Unit] = []
    for ch in children:
        kind = ch.type
        if units:
            last = units[-1]
            nl = src.count(b"\n", last.members[-1].end_byte, ch.start_byte)
            if ("comment" in kind and nl == 0 and not last.leading_only) or (
                last.leading_only and nl <= 1
            ):
                last.members.append(ch)
                last.leading_only = last.leading_only and _is_leading(kind)
                continue
        units.append(_Unit(ch))
    return units


def _name(node: Any, src: bytes) -> str | None:
    kind = node.type
    if kind in _NEED_BODY and node.child_by_field_name("body") is None:
        return None
    if kind == "variable_declarator":
        value = node.child_by_field_name("value")
        if value is None or value.type not in _FN_VALUES:
            return None
    n = node.child_by_field_name("type" if kind == "impl_item" else "name")
    if n is None:
        n = node.child_by_field_name("declarator")
        while n is not None:
            inner = n.child_by_field_name("declarator")
            if inner is None:
                break
            n = inner
    if n is None:
        return None
    name = src[n.start_byte : n.end_byte].decode("utf-8", "replace")
    if kind == "method_declaration":
        receiver = node.child_by_field_name("receiver")
        if receiver is not None:  # Go: qualify with the receiver's type name
            stack = [receiver]
            while stack:
                r = stack.pop()
                if r.type == "type_identifier":
                    name = src[r.start_byte : r.end_byte].decode("utf-8", "replace") + "." + name
                    break
                stack.extend(reversed(r.children))
    return name


def _definitions(root: Any, src: bytes, defs: frozenset[str]) -> list[tuple[int, int, str, int]]:
    """``(start_byte, end_byte, qualified name, parent index or -1)`` in pre-order."""
    out: list[tuple[int, int, str, int]] = []
    stack: list[tuple[Any, int]] = [(root, -1)]
    while stack:
        node, parent = stack.pop()
        if node.type in defs:
            name = _name(node, src)
            if name is not None:
                if parent >= 0:
                    name = out[parent][2] + "." + name
                out.append((node.start_byte, node.end_byte, name, parent))
                parent = len(out) - 1
        for ch in reversed(node.children):
            stack.append((ch, parent))
    return out


def _atom_groups(
    root: Any, src: bytes, lang: str, fits: Callable[[int, int], bool]
) -> list[list[tuple[int, int]]]:
    """Byte-offset atoms, grouped: the packer never joins atoms of different groups."""
    defs, wrappers = _DEFS[lang], _WRAPPERS[lang]
    groups: list[list[tuple[int, int]]] = []
    cur: list[tuple[int, int]] = []

    def gap(a: int, b: int) -> None:
        """Adds ``[a, b)`` as an atom, ASCII whitespace trimmed (nodes can end in a newline)."""
        while a < b and src[a] in _GAP_WS:
            a += 1
        while b > a and src[b - 1] in _GAP_WS:
            b -= 1
        if a < b:
            cur.append((a, b))

    # Work stack, popped from the end: ("seq", children, lo, hi, in_wrapper, depth)
    # | ("gap", a, b) | ("place", unit, in_wrapper, depth) | ("expand", node, known_big, depth)
    # | ("barrier",)
    stack: list[tuple[Any, ...]] = [("seq", root.children, 0, len(src), False, 1)]
    while stack:
        op = stack.pop()
        tag = op[0]
        if tag == "seq":
            _, children, lo, hi, in_wrapper, depth = op
            todo: list[tuple[Any, ...]] = []
            pos = lo
            for u in _units(children, src):
                todo.append(("gap", pos, u.members[0].start_byte))
                todo.append(("place", u, in_wrapper, depth))
                pos = u.members[-1].end_byte
            todo.append(("gap", pos, hi))
            stack.extend(reversed(todo))
        elif tag == "gap":
            gap(op[1], op[2])
        elif tag == "barrier":
            if cur:
                groups.append(cur)
                cur = []
        elif tag == "place":
            _, u, in_wrapper, depth = op
            s, e = u.members[0].start_byte, u.members[-1].end_byte
            if fits(s, e):
                gap(s, e)
                continue
            todo = []
            pos = s
            for m in u.members:
                todo.append(("gap", pos, m.start_byte))
                # A lone member is known not to fit: expand it without counting it again.
                todo.append(("expand", m, len(u.members) == 1, depth))
                pos = m.end_byte
            # A definition that does not fit starts and ends its own chunks (not the
            # definition inside a wrapper: it stays with the decorator/export/template).
            if not in_wrapper and any(m.type in defs or m.type in wrappers for m in u.members):
                todo = [("barrier",), *todo, ("barrier",)]
            stack.extend(reversed(todo))
        else:  # expand
            _, node, known_big, depth = op
            s, e = node.start_byte, node.end_byte
            # Deeper than MAX_DEPTH: cut as text, never walked into (bounded work per byte).
            if depth >= MAX_DEPTH or node.child_count == 0 or (not known_big and fits(s, e)):
                gap(s, e)
                continue
            stack.append(("seq", node.children, s, e, node.type in wrappers, depth + 1))
    if cur:
        groups.append(cur)
    return groups


def split_code(
    text: str, lang: str, budget: int, count: Callable[[str], int]
) -> list[CodeChunkRaw]:
    """Twin of the Rust ``split_code``: chunks of ``text`` (``lang`` canonical)."""
    if not text:
        return []
    src = text.encode("utf-8")
    ascii_only = len(src) == len(text)
    if ascii_only:
        b2c: list[int] | None = None
    else:
        b2c = [0] * (len(src) + 1)
        pos = 0
        for i, ch in enumerate(text):
            b2c[pos] = i
            o = ord(ch)
            pos += 1 if o < 0x80 else 2 if o < 0x800 else 3 if o < 0x10000 else 4
        b2c[pos] = len(text)

    def c(b: int) -> int:
        return b if b2c is None else b2c[b]

    budget = max(budget, 1)

    def fits(s: int, e: int) -> bool:
        return count(text[c(s) : c(e)]) <= budget

    tree = _parser(lang).parse(src)
    root = tree.root_node
    groups = _atom_groups(root, src, lang, fits)
    spans: list[tuple[int, int, int]] = []
    for g in groups:
        spans.extend(pack_spans(text, [(c(s), c(e)) for s, e in g], 0, budget, count))
    defs = _definitions(root, src, _DEFS[lang])
    defs_c = [(c(s), c(e), name, parent) for s, e, name, parent in defs]
    out: list[CodeChunkRaw] = []
    nxt = 0
    active: list[int] = []
    line, line_at = 1, 0  # line number of code point line_at
    for s, e, size in spans:
        while nxt < len(defs_c) and defs_c[nxt][0] < e:
            active.append(nxt)
            nxt += 1
        active = [d for d in active if defs_c[d][1] > s]
        parents = {defs_c[d][3] for d in active}
        symbols = [defs_c[d][2] for d in active if d not in parents]
        line += text.count("\n", line_at, s)
        start_line = line
        end_line = start_line + text.count("\n", s, e - 1)
        line_at = s
        out.append((s, e, size, symbols, start_line, end_line))
    return out
