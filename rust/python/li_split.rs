//! LlamaIndex's `SentenceSplitter` and `TokenTextSplitter` algorithms
//! ([`crate::splitters::llama_index`]), configured once, for the drop-ins of
//! `ragchunk.integrations.llama_index`. Counting is a built-in encoding's, in the convention
//! LlamaIndex's tokenizer has (`mode_name`: see [`Mode`]); a document's outcome comes back as
//! its chunks and a status (`OK`, `SINGLE_TOKEN`, `SPECIAL`: see [`Outcome`]).
//!
//! The character facts Punkt needs of non-ASCII characters come from the facade's `classify`
//! callable (`str -> int` flags), asked once per character per process and kept.

use std::collections::HashMap;
use std::sync::{LazyLock, RwLock};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use crate::splitters::llama_index::counting::{
    sentence_outcome, token_outcome, Counting, Mode, Outcome,
};
use crate::splitters::llama_index::markdown::{markdown_sections, Section};
use crate::splitters::llama_index::{punkt_sentences, CharInfo, SentenceConfig, TokenConfig};

use super::counters::encoding;
use super::guard::{contain, detached, map_docs};

/// A document's status for the facade: its chunks, or why there are none (`SINGLE_TOKEN`:
/// LlamaIndex's "Single token exceeded chunk size"; `SPECIAL`: special-token text under
/// `mode="exact"`).
const OK: u8 = 0;
const SINGLE_TOKEN: u8 = 1;
const SPECIAL: u8 = 2;

fn mode(name: &str) -> PyResult<Mode> {
    Mode::from_name(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "mode must be 'all', 'ordinary' or 'exact', got {name:?}"
        ))
    })
}

/// An outcome as the facade reads it: `(chunks, status)`, or `(chunks, oversized, status)`
/// with `D` the oversized sizes.
fn status<T: Default>(outcome: Outcome<T>) -> (T, u8) {
    match outcome {
        Outcome::Chunks(t) => (t, OK),
        Outcome::SingleToken => (T::default(), SINGLE_TOKEN),
        Outcome::Special => (T::default(), SPECIAL),
    }
}

/// The flags of every non-ASCII character asked about so far in this process.
static FLAGS: LazyLock<RwLock<HashMap<char, u8>>> = LazyLock::new(|| RwLock::new(HashMap::new()));

/// [`CharInfo`] answered by the facade's `classify`, memoised in [`FLAGS`].
struct PyCharInfo<'a> {
    classify: &'a Py<PyAny>,
}

impl CharInfo for PyCharInfo<'_> {
    fn flags(&self, c: char) -> u8 {
        if let Some(&f) = FLAGS.read().ok().and_then(|m| m.get(&c).copied()).as_ref() {
            return f;
        }
        let f = Python::attach(|py| {
            self.classify
                .call1(py, (c.to_string(),))
                .and_then(|v| v.extract::<u8>(py))
        })
        .unwrap_or_else(|e| panic!("classify({c:?}) failed: {e}"));
        if let Ok(mut m) = FLAGS.write() {
            m.insert(c, f);
        }
        f
    }
}

/// A configured LlamaIndex engine class: the `#[pyclass]` (its configuration, and the
/// built-in encoding and [`Mode`] it counts with), and its `#[pymethods]`: the constructor
/// given, then the two entry points both engines have, `split(text, chunk_size)` and
/// `split_batch(texts, chunk_sizes, workers=None)`, over the class's own
/// `one(&self, counting, text, chunk_size)` (one document's outcome, in its Python shape).
macro_rules! llama_index_class {
    ($(#[$doc:meta])* $class:ident { $($field:ident: $ty:ty),* $(,)? } -> $out:ty { $($own:tt)* }) => {
        $(#[$doc])*
        #[pyclass(frozen, module = "ragchunk._core")]
        pub(super) struct $class {
            $($field: $ty,)*
            encoding: String,
            mode: Mode,
        }

        impl $class {
            fn counting(&self) -> PyResult<Counting<'static>> {
                Ok(Counting {
                    tok: encoding(&self.encoding)?,
                    mode: self.mode,
                })
            }
        }

        #[pymethods]
        impl $class {
            $($own)*

            /// `_split_text(text, chunk_size)` of a non-empty text.
            fn split(&self, py: Python<'_>, text: PyBackedStr, chunk_size: usize) -> PyResult<$out> {
                contain(py, || {
                    let counting = self.counting()?;
                    detached(py, || self.one(counting, &text, chunk_size))
                })
            }

            /// [`split`](Self::split) of each text with its own chunk size, in parallel.
            #[pyo3(signature = (texts, chunk_sizes, workers=None))]
            fn split_batch(
                &self,
                py: Python<'_>,
                texts: Vec<PyBackedStr>,
                chunk_sizes: Vec<usize>,
                workers: Option<usize>,
            ) -> PyResult<Vec<$out>> {
                contain(py, || {
                    if texts.len() != chunk_sizes.len() {
                        return Err(PyValueError::new_err(
                            "texts and chunk_sizes must have the same length",
                        ));
                    }
                    let counting = self.counting()?;
                    let docs: Vec<(&str, usize)> = texts
                        .iter()
                        .map(|t| &**t)
                        .zip(chunk_sizes.iter().copied())
                        .collect();
                    map_docs(py, &docs, workers, |&(t, n)| self.one(counting, t, n))
                })
            }
        }
    };
}

llama_index_class! {
    /// `SentenceSplitter`'s algorithm, configured.
    LlamaIndexSentence { cfg: SentenceConfig, classify: Py<PyAny> } -> (Vec<String>, u8) {
        #[new]
        #[allow(clippy::too_many_arguments)] // the Python constructor's arguments, one by one
        #[pyo3(signature = (chunk_overlap, separator, paragraph_separator, clause_regex, encoding_name, mode_name, classify))]
        fn new(
            py: Python<'_>,
            chunk_overlap: usize,
            separator: String,
            paragraph_separator: String,
            clause_regex: bool,
            encoding_name: String,
            mode_name: &str,
            classify: Py<PyAny>,
        ) -> PyResult<Self> {
            contain(py, || {
                encoding(&encoding_name)?;
                if separator.is_empty() || paragraph_separator.is_empty() {
                    return Err(PyValueError::new_err("separators must not be empty"));
                }
                Ok(LlamaIndexSentence {
                    cfg: SentenceConfig {
                        chunk_overlap,
                        separator,
                        paragraph_separator,
                        clause_regex,
                    },
                    encoding: encoding_name,
                    mode: mode(mode_name)?,
                    classify,
                })
            })
        }
    }
}

impl LlamaIndexSentence {
    fn one(&self, counting: Counting<'_>, text: &str, chunk_size: usize) -> (Vec<String>, u8) {
        let info = PyCharInfo {
            classify: &self.classify,
        };
        status(sentence_outcome(
            &self.cfg, &info, counting, text, chunk_size,
        ))
    }
}

llama_index_class! {
    /// `TokenTextSplitter`'s algorithm, configured.
    LlamaIndexToken { cfg: TokenConfig } -> (Vec<String>, Vec<usize>, u8) {
        #[new]
        #[pyo3(signature = (chunk_overlap, separators, keep_whitespaces, encoding_name, mode_name))]
        fn new(
            py: Python<'_>,
            chunk_overlap: usize,
            separators: Vec<String>,
            keep_whitespaces: bool,
            encoding_name: String,
            mode_name: &str,
        ) -> PyResult<Self> {
            contain(py, || {
                encoding(&encoding_name)?;
                if separators.iter().any(String::is_empty) {
                    return Err(PyValueError::new_err("separators must not be empty"));
                }
                Ok(LlamaIndexToken {
                    cfg: TokenConfig {
                        chunk_overlap,
                        separators,
                        keep_whitespaces,
                    },
                    encoding: encoding_name,
                    mode: mode(mode_name)?,
                })
            })
        }
    }
}

impl LlamaIndexToken {
    /// `(chunks, oversized, status)`: the chunks and the sizes of the oversized splits.
    fn one(
        &self,
        counting: Counting<'_>,
        text: &str,
        chunk_size: usize,
    ) -> (Vec<String>, Vec<usize>, u8) {
        let ((chunks, oversized), status) =
            status(token_outcome(&self.cfg, counting, text, chunk_size));
        (chunks, oversized, status)
    }
}

/// Punkt's sentences of `text` as LlamaIndex's default `chunking_tokenizer_fn` returns them
/// (for the tests, which compare them with NLTK's).
#[pyfunction]
pub(super) fn li_punkt_sentences(
    py: Python<'_>,
    text: PyBackedStr,
    classify: Py<PyAny>,
) -> PyResult<Vec<String>> {
    contain(py, || {
        let info = PyCharInfo {
            classify: &classify,
        };
        let out = detached(py, || {
            punkt_sentences(&info, &text)
                .into_iter()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })?;
        Ok(out)
    })
}

/// `MarkdownNodeParser`'s sections of each text ([`markdown_sections`]): per text, a list of
/// `(section text, header path)`, the texts split in parallel with the GIL released.
#[pyfunction]
#[pyo3(signature = (texts, separator, workers=None))]
pub(super) fn li_markdown_sections(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    separator: PyBackedStr,
    workers: Option<usize>,
) -> PyResult<Vec<Vec<Section>>> {
    contain(py, || {
        map_docs(py, &texts, workers, |text| {
            markdown_sections(text, &separator)
        })
    })
}

/// Registers this file's classes and functions (the one line `mod.rs` has for it).
pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<LlamaIndexSentence>()?;
    m.add_class::<LlamaIndexToken>()?;
    m.add_function(wrap_pyfunction!(li_punkt_sentences, m)?)?;
    m.add_function(wrap_pyfunction!(li_markdown_sections, m)?)?;
    Ok(())
}
