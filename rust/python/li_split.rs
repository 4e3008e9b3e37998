//! LlamaIndex's `SentenceSplitter` and `TokenTextSplitter` algorithms
//! ([`crate::splitters::llama_index`]), configured once, for the drop-ins of
//! `ragchunk.integrations.llama_index`.
//!
//! Counting is a built-in encoding's, in the convention LlamaIndex's tokenizer has (`mode`):
//! `"all"` (`encode(text, allowed_special="all")`, LlamaIndex's default: each special token's
//! text is one token), `"ordinary"` (`encode_ordinary`) or `"exact"` (`encode`: special-token
//! text is refused; the document is then reported so that the facade can let the tokenizer
//! raise its own error).
//!
//! The character facts Punkt needs of non-ASCII characters come from the facade's `classify`
//! callable (`str -> int` flags), asked once per character per process and kept.

use std::collections::HashMap;
use std::sync::{LazyLock, RwLock};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use crate::splitters::llama_index::{
    sentence_split, token_split, CharInfo, LlamaIndexError, SentenceConfig, TokenConfig,
};
use crate::tokenizer::Tokenizer;

use super::counters::encoding;
use super::guard::{contain, detached, map_docs};

/// A document's outcome: its chunks, or why there are none (`SINGLE_TOKEN`: LlamaIndex's
/// "Single token exceeded chunk size"; `SPECIAL`: special-token text under `mode="exact"`).
const OK: u8 = 0;
const SINGLE_TOKEN: u8 = 1;
const SPECIAL: u8 = 2;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    All,
    Ordinary,
    Exact,
}

fn mode(name: &str) -> PyResult<Mode> {
    match name {
        "all" => Ok(Mode::All),
        "ordinary" => Ok(Mode::Ordinary),
        "exact" => Ok(Mode::Exact),
        other => Err(PyValueError::new_err(format!(
            "mode must be 'all', 'ordinary' or 'exact', got {other:?}"
        ))),
    }
}

/// `len(encoding.encode(text, allowed_special="all"))`: the text between special tokens is
/// encoded on its own, and each special token is one token.
fn count_all(tok: &Tokenizer, text: &str) -> usize {
    let mut n = 0;
    let mut rest = text;
    while let Some(r) = tok.find_special(rest) {
        n += tok.count_ordinary(&rest[..r.start]) + 1;
        rest = &rest[r.end..];
    }
    n + tok.count_ordinary(rest)
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

struct Counting {
    tok: &'static Tokenizer,
    mode: Mode,
}

impl Counting {
    fn count(&self, text: &str) -> usize {
        match self.mode {
            Mode::All => count_all(self.tok, text),
            Mode::Ordinary | Mode::Exact => self.tok.count_ordinary(text),
        }
    }

    /// Whether `text` holds special-token text that `mode="exact"` refuses.
    fn refuses(&self, text: &str) -> bool {
        self.mode == Mode::Exact && self.tok.find_special(text).is_some()
    }
}

/// `SentenceSplitter`'s algorithm, configured.
#[pyclass(frozen, module = "ragchunk._core")]
pub(super) struct LlamaIndexSentence {
    cfg: SentenceConfig,
    encoding: String,
    mode: Mode,
    classify: Py<PyAny>,
}

impl LlamaIndexSentence {
    fn one(&self, counting: &Counting, text: &str, chunk_size: usize) -> (Vec<String>, u8) {
        if counting.refuses(text) {
            return (Vec::new(), SPECIAL);
        }
        let info = PyCharInfo {
            classify: &self.classify,
        };
        let count = |s: &str| counting.count(s);
        match sentence_split(&self.cfg, &info, &count, text, chunk_size) {
            Ok(chunks) => (chunks, OK),
            Err(LlamaIndexError::SingleTokenExceeded) => (Vec::new(), SINGLE_TOKEN),
        }
    }
}

#[pymethods]
impl LlamaIndexSentence {
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

    /// `_split_text(text, chunk_size)` of a non-empty text: `(chunks, status)`.
    fn split(
        &self,
        py: Python<'_>,
        text: PyBackedStr,
        chunk_size: usize,
    ) -> PyResult<(Vec<String>, u8)> {
        contain(py, || {
            let counting = Counting {
                tok: encoding(&self.encoding)?,
                mode: self.mode,
            };
            detached(py, || self.one(&counting, &text, chunk_size))
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
    ) -> PyResult<Vec<(Vec<String>, u8)>> {
        contain(py, || {
            if texts.len() != chunk_sizes.len() {
                return Err(PyValueError::new_err(
                    "texts and chunk_sizes must have the same length",
                ));
            }
            let counting = Counting {
                tok: encoding(&self.encoding)?,
                mode: self.mode,
            };
            let docs: Vec<(&str, usize)> = texts
                .iter()
                .map(|t| &**t)
                .zip(chunk_sizes.iter().copied())
                .collect();
            map_docs(py, &docs, workers, |&(t, n)| self.one(&counting, t, n))
        })
    }
}

/// `TokenTextSplitter`'s algorithm, configured.
#[pyclass(frozen, module = "ragchunk._core")]
pub(super) struct LlamaIndexToken {
    cfg: TokenConfig,
    encoding: String,
    mode: Mode,
}

/// A document's outcome for [`LlamaIndexToken`]: chunks, the sizes of oversized splits, status.
type TokenOutcome = (Vec<String>, Vec<usize>, u8);

impl LlamaIndexToken {
    fn one(&self, counting: &Counting, text: &str, chunk_size: usize) -> TokenOutcome {
        if counting.refuses(text) {
            return (Vec::new(), Vec::new(), SPECIAL);
        }
        let count = |s: &str| counting.count(s);
        let r = token_split(&self.cfg, &count, text, chunk_size);
        (r.chunks, r.oversized, OK)
    }
}

#[pymethods]
impl LlamaIndexToken {
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

    /// `_split_text(text, chunk_size)` of a non-empty text: `(chunks, oversized, status)`.
    fn split(
        &self,
        py: Python<'_>,
        text: PyBackedStr,
        chunk_size: usize,
    ) -> PyResult<TokenOutcome> {
        contain(py, || {
            let counting = Counting {
                tok: encoding(&self.encoding)?,
                mode: self.mode,
            };
            detached(py, || self.one(&counting, &text, chunk_size))
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
    ) -> PyResult<Vec<TokenOutcome>> {
        contain(py, || {
            if texts.len() != chunk_sizes.len() {
                return Err(PyValueError::new_err(
                    "texts and chunk_sizes must have the same length",
                ));
            }
            let counting = Counting {
                tok: encoding(&self.encoding)?,
                mode: self.mode,
            };
            let docs: Vec<(&str, usize)> = texts
                .iter()
                .map(|t| &**t)
                .zip(chunk_sizes.iter().copied())
                .collect();
            map_docs(py, &docs, workers, |&(t, n)| self.one(&counting, t, n))
        })
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
            crate::splitters::llama_index::punkt_sentences(&info, &text)
                .into_iter()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })?;
        Ok(out)
    })
}

/// Registers this file's classes and functions (the one line `mod.rs` has for it).
pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<LlamaIndexSentence>()?;
    m.add_class::<LlamaIndexToken>()?;
    m.add_function(wrap_pyfunction!(li_punkt_sentences, m)?)?;
    Ok(())
}
