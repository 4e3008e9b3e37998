//! The only module that touches PyO3: the compiled module `ragchunk._core`.
//!
//! Every entry point follows the same three steps — borrow the arguments, run the pure-Rust
//! core (GIL released when no Python callback is involved), convert the result — and every
//! one runs inside [`guard::contain`], so a Rust panic surfaces as `ragchunk.RagchunkError`,
//! never as an abort or a `PanicException`. Domain rules live in the core; this module only
//! converts.
//!
//! * [`guard`]: panic containment, GIL release, internal errors, the batch helper;
//! * [`strings`]: CPython's string layout (every `unsafe` of the bindings);
//! * [`counters`]: the token-count entry points and the counter that calls Python;
//! * [`job`]: a chunker's options checked once (its measure, its sizes) and the one generic
//!   path that runs its per-document work over one document or a batch;
//! * [`arrow`]: Arrow string buffers in, chunk column buffers out (over [`job`]);
//! * [`chunker`]: the `chunker_class!` macro that gives every configured chunker class its
//!   `split`, `split_batch` and `split_arrow` (over [`job`] and [`arrow`]);
//! * [`ragflow`], [`classic`], [`structured`], [`code`]: one file per facade area; each
//!   chunker is a configured `#[pyclass(frozen)]` named like its Python class.
//! * [`li_split`], [`lc_tokens`]: the LlamaIndex engines (through their own
//!   `llama_index_class!` macro) and LangChain's token windows, over the core's
//!   `splitters::llama_index` and `splitters::langchain_tokens`;
//! * [`markup`]: the HTML nesting bound the facade applies before parsing.
//! * [`documents`]: a PDF page read from the PDFium library `pypdfium2` loaded (the GIL held:
//!   PDFium is not thread-safe), as characters and graphics or laid out into lines, tables
//!   and figures in reading order (the layout run with the GIL released).

mod arrow;
mod chonkie;
mod chunker;
mod classic;
#[cfg(feature = "code")]
mod code;
mod counters;
mod documents;
mod eval;
mod flow;
mod guard;
mod job;
mod late;
mod lc_tokens;
mod li_split;
mod markup;
mod ragflow;
mod rules;
mod semantic;
mod strings;
mod structured;

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(guard::_panic_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(rules::_char_sets, m)?)?;

    m.add_function(wrap_pyfunction!(counters::count_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(counters::count_or_zero, m)?)?;
    m.add_function(wrap_pyfunction!(counters::count_ordinary, m)?)?;
    m.add_function(wrap_pyfunction!(counters::count_ordinary_resume, m)?)?;
    m.add_function(wrap_pyfunction!(counters::encode_ordinary, m)?)?;
    m.add_function(wrap_pyfunction!(counters::count_ordinary_batch, m)?)?;
    m.add_function(wrap_pyfunction!(counters::count_ordinary_spans, m)?)?;
    m.add_function(wrap_pyfunction!(counters::count_batch, m)?)?;
    m.add_function(wrap_pyfunction!(counters::hf_register, m)?)?;
    m.add_function(wrap_pyfunction!(counters::token_edges, m)?)?;
    m.add_function(wrap_pyfunction!(lc_tokens::lc_token_windows, m)?)?;
    // The Chonkie drop-ins.
    m.add_function(wrap_pyfunction!(chonkie::chonkie_token_windows, m)?)?;
    m.add_function(wrap_pyfunction!(chonkie::chonkie_sentence_chunks, m)?)?;
    m.add_function(wrap_pyfunction!(chonkie::chonkie_recursive_chunks, m)?)?;
    m.add_function(wrap_pyfunction!(chonkie::chonkie_table_chunks, m)?)?;

    m.add_function(wrap_pyfunction!(ragflow::naive_merge, m)?)?;
    m.add_function(wrap_pyfunction!(ragflow::naive_merge_batch, m)?)?;
    m.add_function(wrap_pyfunction!(ragflow::naive_merge_offsets, m)?)?;
    m.add_function(wrap_pyfunction!(ragflow::count_paragraphs, m)?)?;
    m.add_function(wrap_pyfunction!(ragflow::remove_tag, m)?)?;
    m.add_function(wrap_pyfunction!(ragflow::extract_positions, m)?)?;
    m.add_function(wrap_pyfunction!(ragflow::parse_delimiter_field, m)?)?;
    m.add_function(wrap_pyfunction!(flow::flow_split_on_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(flow::flow_take_sentences, m)?)?;
    m.add_function(wrap_pyfunction!(flow::flow_merge_run, m)?)?;
    m.add_function(wrap_pyfunction!(flow::flow_cap_split, m)?)?;
    m.add_function(wrap_pyfunction!(flow::flow_finalize_boxes, m)?)?;

    m.add_class::<classic::PyCharacter>()?;
    m.add_class::<classic::PyTokenWindow>()?;
    m.add_class::<classic::PyRecursive>()?;
    m.add_class::<classic::PySentence>()?;
    m.add_function(wrap_pyfunction!(classic::sentences, m)?)?;

    m.add_class::<structured::PyMarkdown>()?;
    m.add_class::<structured::PyHtml>()?;
    m.add_class::<structured::PyTitleTree>()?;
    m.add_function(wrap_pyfunction!(structured::html_text, m)?)?;
    m.add_function(wrap_pyfunction!(structured::markdown_blocks, m)?)?;
    m.add_function(wrap_pyfunction!(markup::bound_depth, m)?)?;

    #[cfg(feature = "code")]
    m.add_class::<code::PyCode>()?;

    m.add_class::<eval::PyBm25Index>()?;
    m.add_function(wrap_pyfunction!(eval::bm25_tokenize, m)?)?;
    m.add_function(wrap_pyfunction!(semantic::semantic_distances, m)?)?;
    m.add_function(wrap_pyfunction!(semantic::semantic_similarity_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(semantic::semantic_stats, m)?)?;
    m.add_function(wrap_pyfunction!(semantic::semantic_percentiles, m)?)?;
    m.add_function(wrap_pyfunction!(semantic::semantic_gradient, m)?)?;
    m.add_function(wrap_pyfunction!(semantic::semantic_mean_pool, m)?)?;
    m.add_function(wrap_pyfunction!(late::late_pool, m)?)?;
    m.add_function(wrap_pyfunction!(late::late_char_offsets, m)?)?;
    m.add_function(wrap_pyfunction!(semantic::semantic_rows_f32, m)?)?;
    m.add_function(wrap_pyfunction!(semantic::semantic_lc_sentences, m)?)?;
    m.add_function(wrap_pyfunction!(documents::pdf_page_content, m)?)?;
    m.add_function(wrap_pyfunction!(documents::pdf_page_items, m)?)?;
    m.add_function(wrap_pyfunction!(documents::pdf_text_quarter, m)?)?;
    m.add_function(wrap_pyfunction!(documents::pdf_layout_items, m)?)?;
    li_split::register(m)?;
    Ok(())
}
