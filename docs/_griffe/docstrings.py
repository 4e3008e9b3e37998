"""Griffe extension: render the package's docstrings as the reference pages need them.

The docstrings are Google style, written for ``help()`` and run as doctests. Two of their
habits mean nothing to Markdown, so this extension rewrites them once the package is loaded
(docs only: the package itself is never changed):

* Doctest blocks (a ``>>>`` line, its ``...`` continuation lines and its expected output, up
  to a blank line) become ``pycon`` code fences. Markdown would read ``>>>`` as nested block
  quotes, and ``[a]`` followed by ``[b]`` on the next line as a reference link.
* An ``Args:`` entry naming several parameters (``rows, header, caption: as for ...``)
  becomes one entry per parameter with the same description, so each one gets its row and
  its type from the signature.
* Sphinx roles (``:func:`naive_merge```, ``:meth:`split```, ...) become links to the
  reference entry when the name is one of the public names (``ragchunk.__all__``) or a
  member of a public class, else inline code.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

FENCE = "```"
_ARGS_HEADER = re.compile(r"^(\s*)(?:Args|Arguments|Parameters|Params):\s*$")
_MULTI_ARG = re.compile(r"^(\s+)(\w+(?:\s*,\s*\w+)+)\s*:(.*)$")
_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|data|mod|attr|exc|obj|const):`(~?)([^`]+)`")


def fence_doctests(text: str) -> str:
    """Return ``text`` with each doctest block wrapped in a ``pycon`` fence."""
    out: list[str] = []
    in_fence = False
    in_block = False
    indent = ""
    for line in text.split("\n"):
        stripped = line.lstrip(" ")
        if in_block:
            if stripped == "":
                out.append(indent + FENCE)
                in_block = False
            else:
                out.append(line)
                continue
        if stripped.startswith(FENCE):
            in_fence = not in_fence
        elif not in_fence and (stripped == ">>>" or stripped.startswith(">>> ")):
            indent = line[: len(line) - len(stripped)]
            out.append(indent + FENCE + "pycon")
            in_block = True
        out.append(line)
    if in_block:
        out.append(indent + FENCE)
    return "\n".join(out)


def split_multi_args(text: str) -> str:
    """Return ``text`` with ``a, b: description`` Args entries written once per parameter."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    section_indent: int | None = None
    while i < len(lines):
        line = lines[i]
        header = _ARGS_HEADER.match(line)
        if header:
            section_indent = len(header.group(1))
            out.append(line)
            i += 1
            continue
        indent = len(line) - len(line.lstrip(" "))
        if section_indent is not None and line.strip() and indent <= section_indent:
            section_indent = None
        entry = _MULTI_ARG.match(line) if section_indent is not None else None
        if entry:
            # The entry's continuation lines are those indented deeper than the entry.
            body = [entry.group(3)]
            j = i + 1
            while j < len(lines) and (
                (not lines[j].strip() and j + 1 < len(lines) and _deeper(lines[j + 1], indent))
                or (lines[j].strip() and _deeper(lines[j], indent))
            ):
                body.append(lines[j])
                j += 1
            for name in re.split(r"\s*,\s*", entry.group(2)):
                out.append(f"{entry.group(1)}{name}:{body[0]}")
                out.extend(body[1:])
            i = j
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def _deeper(line: str, indent: int) -> bool:
    return len(line) - len(line.lstrip(" ")) > indent


class DocstringMarkdown(griffe.Extension):
    """Rewrite doctest blocks and Sphinx roles in every docstring of the loaded package."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        # Public names, and the public name of each exported object's canonical path.
        self.public: dict[str, griffe.Object | griffe.Alias] = {}
        self.public_of: dict[str, str] = {}
        for name in pkg.exports or ():
            name = str(name)
            member = pkg.members.get(name)
            if member is None:
                continue
            self.public[name] = member
            try:
                target = member.final_target if member.is_alias else member
            except griffe.AliasResolutionError:
                continue
            self.public_of[target.path] = name
        self._walk(pkg, set())

    def _walk(self, obj: griffe.Object, seen: set[str]) -> None:
        if obj.path in seen:
            return
        seen.add(obj.path)
        if obj.docstring is not None:
            value = obj.docstring.value
            if ">>>" in value:
                value = fence_doctests(value)
            if "," in value:
                value = split_multi_args(value)
            if "`" in value:
                value = _ROLE.sub(lambda m: self._role(obj, m), value)
            obj.docstring.value = value
        for member in obj.members.values():
            if not member.is_alias:
                self._walk(member, seen)  # type: ignore[arg-type]

    def _role(self, where: griffe.Object, match: re.Match[str]) -> str:
        short, name = match.group(1) == "~", match.group(2).strip()
        label = name.rsplit(".", 1)[-1] if short else name
        target = self._public_path(where, name.removesuffix("()"))
        code = f"`{label}`"
        return f"[{code}][{target}]" if target else code

    def _public_path(self, where: griffe.Object, name: str) -> str | None:
        rest = name.removeprefix("ragchunk.")
        head, _, member = rest.partition(".")
        if head in self.public:
            return f"ragchunk.{rest}" if self._has(self.public[head], member) else None
        # A bare member name (":meth:`split`") inside a public class or one of its methods.
        owner: griffe.Object | None = where
        while owner is not None and not owner.is_class:
            owner = owner.parent
        if owner is not None and owner.path in self.public_of and "." not in rest:
            cls = self.public_of[owner.path]
            if self._has(self.public[cls], rest):
                return f"ragchunk.{cls}.{rest}"
        return None

    @staticmethod
    def _has(obj: griffe.Object | griffe.Alias, member: str) -> bool:
        if not member:
            return True
        try:
            current: Any = obj
            for part in member.split("."):
                if part.startswith("_"):
                    return False
                current = current.all_members[part]
            # Only documented members get a reference entry (show_if_no_docstring: false).
            return bool(current.docstring)
        except (KeyError, griffe.AliasResolutionError):
            return False
