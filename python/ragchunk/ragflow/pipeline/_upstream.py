"""The upstream payload of a pipeline chunker, validated like RAGFlow's pydantic model.

RAGFlow validates the keyword arguments of ``_invoke`` with a pydantic model (``extra="forbid"``)
and reports a failure as the output ``_ERROR = "Input error: " + str(ValidationError)``. This
module reproduces that check and the message layout without depending on pydantic: the first
line (``1 validation error for TokenChunkerFromUpstream``), the field line and the error line
follow pydantic 2's wording.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Upstream", "UpstreamError", "validate_upstream"]

_FORMATS = ("json", "markdown", "text", "html", "chunks")
_PYDANTIC_DOCS = "https://errors.pydantic.dev/2.12/v/"

# (field name, alias, kind); a key may be given by either.
_FIELDS: tuple[tuple[str, str, str], ...] = (
    ("created_time", "_created_time", "float"),
    ("elapsed_time", "_elapsed_time", "float"),
    ("name", "name", "str_required"),
    ("output_format", "output_format", "format"),
    ("json_result", "json", "list_dict"),
    ("markdown_result", "markdown", "str"),
    ("text_result", "text", "str"),
    ("html_result", "html", "str"),
    ("chunks", "chunks", "list_dict"),
    ("file", "file", "dict"),
)
_KNOWN = {n for f in _FIELDS for n in f[:2]}


class UpstreamError(ValueError):
    """The upstream payload does not fit the component's input model."""


@dataclass(frozen=True)
class Upstream:
    """A validated upstream payload."""

    name: str
    output_format: str | None
    json_result: list[dict[str, Any]] | None
    markdown_result: str | None
    text_result: str | None
    html_result: str | None
    chunks: list[dict[str, Any]] | None
    file: dict[str, Any] | None


def _repr(value: object) -> str:
    text = repr(value)
    if len(text) > 50:
        text = text[:25] + "..." + text[-24:]
    return text


def _err(loc: str, msg: str, kind: str, value: object) -> str:
    return (
        f"{loc}\n  {msg} [type={kind}, input_value={_repr(value)}, "
        f"input_type={type(value).__name__}]\n    For further information visit "
        f"{_PYDANTIC_DOCS}{kind}"
    )


def _float_error(loc: str, value: object) -> str | None:
    if value is None or isinstance(value, (int, float)):
        return None
    if isinstance(value, str):
        try:
            float(value.strip())
        except ValueError:
            return _err(
                loc,
                "Input should be a valid number, unable to parse string as a number",
                "float_parsing",
                value,
            )
        return None
    return _err(loc, "Input should be a valid number", "float_type", value)


def _check(loc: str, kind: str, value: object) -> list[str]:
    if kind == "float":
        e = _float_error(loc, value)
        return [e] if e else []
    if value is None and kind != "str_required":
        return []
    if kind in ("str", "str_required"):
        if not isinstance(value, str):
            return [_err(loc, "Input should be a valid string", "string_type", value)]
        return []
    if kind == "format":
        if value not in _FORMATS or not isinstance(value, str):
            return [
                _err(
                    loc,
                    "Input should be 'json', 'markdown', 'text', 'html' or 'chunks'",
                    "literal_error",
                    value,
                )
            ]
        return []
    if kind == "dict":
        if not isinstance(value, Mapping):
            return [_err(loc, "Input should be a valid dictionary", "dict_type", value)]
        return []
    # list of dicts
    if not isinstance(value, (list, tuple)):
        return [_err(loc, "Input should be a valid list", "list_type", value)]
    return [
        _err(f"{loc}.{i}", "Input should be a valid dictionary", "dict_type", v)
        for i, v in enumerate(value)
        if type(v) is not dict and not isinstance(v, Mapping)
    ]


def validate_upstream(kwargs: Mapping[str, Any], model: str) -> Upstream:
    """Validate ``kwargs`` like ``<model>.model_validate``; raise :class:`UpstreamError` with
    pydantic's message layout on failure."""
    if not isinstance(kwargs, Mapping):
        raise UpstreamError(
            f"1 validation error for {model}\n  Input should be a valid dictionary or instance "
            f"of {model} [type=model_type, input_value={_repr(kwargs)}, "
            f"input_type={type(kwargs).__name__}]\n    For further information visit "
            f"{_PYDANTIC_DOCS}model_type"
        )
    errors: list[str] = []
    values: dict[str, Any] = {}
    for field, alias, kind in _FIELDS:
        if alias in kwargs:
            loc, value = alias, kwargs[alias]
        elif field in kwargs:
            loc, value = field, kwargs[field]
        elif kind == "str_required":
            errors.append(_err(alias, "Field required", "missing", dict(kwargs)))
            continue
        else:
            values[field] = None
            continue
        errors.extend(_check(loc, kind, value))
        values[field] = value
    for key, value in kwargs.items():
        if key not in _KNOWN:
            errors.append(
                _err(str(key), "Extra inputs are not permitted", "extra_forbidden", value)
            )
    if errors:
        n = len(errors)
        head = f"{n} validation error{'s' if n > 1 else ''} for {model}"
        raise UpstreamError(head + "\n" + "\n".join(errors))
    for key in ("json_result", "chunks"):
        if values[key] is not None:
            values[key] = [dict(v) for v in values[key]]
    return Upstream(
        name=values["name"],
        output_format=values["output_format"],
        json_result=values["json_result"],
        markdown_result=values["markdown_result"],
        text_result=values["text_result"],
        html_result=values["html_result"],
        chunks=values["chunks"],
        file=dict(values["file"]) if values["file"] is not None else None,
    )
