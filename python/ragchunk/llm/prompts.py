"""Prompt templates: plain text with ``{name}`` fields, replaceable by the user.

Only the declared fields are substituted, so a template may contain JSON examples with
braces without escaping them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "BOUNDARY_PROMPT",
    "CONTEXT_PROMPT",
    "GROUPING_PROMPT",
    "PROPOSITION_PROMPT",
    "PromptTemplate",
]

_FIELD = re.compile(r"\{([a-z_]+)\}")


@dataclass(frozen=True)
class PromptTemplate:
    """A prompt: an optional ``system`` message and a ``user`` message with ``{field}`` slots.

    ``fields`` lists the names a chunker fills; each must appear in ``user`` (or ``system``),
    and nothing else in braces is touched.

    >>> t = PromptTemplate("Summarise:\\n{text}\\nAnswer as {\\"summary\\": ...}", fields=("text",))
    >>> t.render(text="Cats purr.")[-1]["content"]
    'Summarise:\\nCats purr.\\nAnswer as {"summary": ...}'
    """

    user: str
    system: str | None = None
    fields: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.user, str) or not self.user.strip():
            raise ValueError("PromptTemplate: user must be a non-empty string")
        if self.system is not None and not isinstance(self.system, str):
            raise TypeError("PromptTemplate: system must be a string or None")
        both = self.user + (self.system or "")
        missing = [f for f in self.fields if "{" + f + "}" not in both]
        if missing:
            raise ValueError(f"PromptTemplate: the template has no {{{missing[0]}}} field")

    def with_fields(self, *fields: str) -> PromptTemplate:
        """The same text, checked for ``fields`` (what a chunker does with a user template).

        >>> PromptTemplate("no slot").with_fields("text")
        Traceback (most recent call last):
        ...
        ValueError: PromptTemplate: the template has no {text} field
        """
        return PromptTemplate(self.user, self.system, tuple(fields))

    def render(self, **values: str) -> list[dict[str, str]]:
        """The chat messages, fields replaced by ``values`` (in one pass: values are verbatim).

        >>> PromptTemplate("A {x} B", system="S {x}").render(x="{y}")
        [{'role': 'system', 'content': 'S {y}'}, {'role': 'user', 'content': 'A {y} B'}]
        """

        def fill(text: str) -> str:
            return _FIELD.sub(
                lambda m: values[m.group(1)] if m.group(1) in values else m.group(0), text
            )

        messages = []
        if self.system:
            messages.append({"role": "system", "content": fill(self.system)})
        messages.append({"role": "user", "content": fill(self.user)})
        return messages


def as_template(value: object, default: PromptTemplate, fields: tuple[str, ...]) -> PromptTemplate:
    """``None`` (the default), a :class:`PromptTemplate` or a ``str`` (the user message)."""
    if value is None:
        return default.with_fields(*fields)
    if isinstance(value, str):
        return PromptTemplate(value, default.system, fields)
    if isinstance(value, PromptTemplate):
        return value.with_fields(*fields)
    raise TypeError(f"prompt must be None, a str or a PromptTemplate, got {type(value).__name__}")


BOUNDARY_PROMPT = PromptTemplate(
    system=(
        "You segment documents for a search index. You read numbered pieces of a document and "
        "say where a new topic begins. You never rewrite the text."
    ),
    user=(
        "Below are consecutive pieces of a document, each preceded by its number in square "
        "brackets. Decide where the subject changes: list the number of every piece that "
        "starts a new topic, section or idea, compared with the piece just before it.\n"
        "Only use numbers from {first} to {last}, in increasing order; do not list {first} "
        "unless it clearly starts something new. If the whole window is one topic, answer [].\n"
        "Answer with a JSON list of integers and nothing else, for example [{example}].\n\n"
        "{pieces}"
    ),
    fields=("first", "last", "example", "pieces"),
)

# The usual rules of proposition (agentic) chunking, in the library's own words.
PROPOSITION_PROMPT = PromptTemplate(
    system=(
        "You break passages into propositions: short, simple statements that each make sense "
        "on their own, without the rest of the passage."
    ),
    user=(
        "Decompose the passage below into clear and simple propositions.\n"
        "1. Split compound sentences into simple sentences; keep the original wording where "
        "possible.\n"
        "2. When a named entity comes with a description, state the description as its own "
        "proposition about that entity.\n"
        "3. Replace pronouns and other references (it, they, this, the former...) with the "
        "full name of what they refer to, so that every proposition stands alone.\n"
        "4. Keep every fact of the passage; add nothing that it does not say.\n"
        "5. Write the propositions in the language of the passage.\n"
        'Answer with a JSON list of strings and nothing else, e.g. ["A is B.", "A has C."].\n\n'
        "Passage:\n{passage}"
    ),
    fields=("passage",),
)

GROUPING_PROMPT = PromptTemplate(
    system="You organise statements into topics for a search index.",
    user=(
        "Group the numbered propositions below by topic. Propositions about the same subject "
        "belong together even when they are far apart.\n"
        "Topics found so far (reuse one of these titles when a proposition fits it):\n"
        "{topics}\n\n"
        "Propositions:\n{propositions}\n\n"
        "Answer with a JSON object mapping a short topic title to the list of proposition "
        'numbers in it, e.g. {"Solar panels: cost": [0, 3], "Solar panels: lifetime": [1, 2]}. '
        "Every number from {first} to {last} must appear exactly once. Answer with the JSON "
        "object only."
    ),
    fields=("topics", "propositions", "first", "last"),
)

# Situating a chunk in its document, in the style of contextual retrieval: the document comes
# first and identically for every chunk, so that providers with prompt caching reuse it.
CONTEXT_PROMPT = PromptTemplate(
    user=(
        "<document>\n{document}\n</document>\n\n"
        "Here is a passage taken from the document above:\n"
        "<passage>\n{chunk}\n</passage>\n\n"
        "Write a short context (one to three sentences, 50 to 100 words at most) that places "
        "this passage within the whole document, so that a search for the passage's subject "
        "finds it: name the document's subject and the section or argument the passage "
        "belongs to, and resolve what its pronouns and abbreviations refer to. Write in the "
        "language of the passage. Answer with the context only, with no preamble."
    ),
    fields=("document", "chunk"),
)
