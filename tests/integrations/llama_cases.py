"""What the LlamaIndex drop-ins' tests compare: a node seen whole (every field, which fields
are set, its related nodes with their hashes and metadata), and the ids they share."""

from __future__ import annotations

from typing import Any


def idf(i: int, doc: Any) -> str:
    """A deterministic ``id_func``: the document's id and the split's index."""
    return f"{doc.id_}-{i}"


def _related(value: Any) -> Any:
    if isinstance(value, list):
        return [_related(v) for v in value]
    return (value.node_id, str(value.node_type), value.metadata, value.hash)


def node_view(nodes: list[Any]) -> list[tuple[Any, ...]]:
    """Everything a node carries, its related nodes as (id, type, metadata, hash)."""
    return [
        (
            type(n).__name__,
            n.id_,
            n.text,
            n.start_char_idx,
            n.end_char_idx,
            n.metadata,
            sorted((str(k), _related(v)) for k, v in n.relationships.items()),
            n.excluded_embed_metadata_keys,
            n.excluded_llm_metadata_keys,
            n.metadata_separator,
            n.metadata_template,
            n.text_template,
            n.embedding,
            sorted(n.model_fields_set),
            n.hash,
        )
        for n in nodes
    ]


def corpus_sample(limit: int | None = None) -> list[tuple[str, str]]:
    """One corpus document per collection (every script), cut to ``limit`` characters."""
    from testdata import corpus_documents

    seen: dict[str, tuple[str, str]] = {}
    for path, text in corpus_documents():
        seen.setdefault(path.split("/")[0], (path, text[:limit]))
    return list(seen.values())
