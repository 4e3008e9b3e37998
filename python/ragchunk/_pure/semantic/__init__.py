"""The fallback of ``rust/semantic/``: the same distances, statistics and pooling with numpy,
function for function."""
