//! The classic splitters, each a configured class: character windows, token windows,
//! LangChain-compatible recursive splitting and whole sentences. Chunks go back as
//! `(start, end, size, joined)` with code-point offsets (`joined` is the chunk text only when
//! it is not `source[start:end]`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyList, PyString};

use crate::splitters::recursive::{self, KeepSeparator, MeasuredChunk, RecursiveConfig, Separator};
use crate::splitters::{character, sentence, spans_in_chars, token_window, Span};
use crate::text::CharIndex;
use crate::tokenizer::{TokenCounter, Tokenizer, UnitCount};

use super::arrow::{tuple_rows, ArrowJob, ChunkTuple, DocRows};
use super::chunker::chunker_class;
use super::counters::encoding;
use super::guard::{contain, detached};
use super::job::{checked_size, checked_sizes, split_one, Measure, PerDoc};
use super::strings::substring;

/// Code-point spans as chunk tuples.
fn tuples(spans: Vec<Span>) -> Vec<ChunkTuple> {
    spans
        .into_iter()
        .map(|s| (s.start, s.end, s.size, None))
        .collect()
}

/// The measure of the fixed-window splitters, which size their windows themselves (code
/// points, or the tokenizer's own token edges) and never call a counter: a built-in unit,
/// so that they run with the GIL released like every other built-in measure.
const WINDOWS: Measure = Measure::Builtin(UnitCount::Chars);

/// The classic splitters' chunks are `(start, end, size, joined)` tuples, as Arrow rows too.
macro_rules! classic_rows {
    ($($job:ty),*) => {$(
        impl ArrowJob for $job {
            fn rows<'a>(&self, doc: &'a str, out: &'a Self::Out, rows: &mut DocRows<'a>) {
                tuple_rows(doc, out, rows);
            }
        }
    )*};
}

classic_rows!(Recursive, CharacterDoc, TokenWindowDoc, SentenceDoc);

/// One document of the recursive splitter (`with_counts`: see
/// [`recursive::split_measured`]).
struct RecursiveDoc<'a> {
    cfg: &'a RecursiveConfig,
    with_counts: bool,
}

fn measured_tuples(chunks: Vec<MeasuredChunk>) -> Vec<ChunkTuple> {
    chunks
        .into_iter()
        .map(|c| (c.start, c.end, c.size, c.joined))
        .collect()
}

impl PerDoc for RecursiveDoc<'_> {
    type Doc = str;
    type Out = Vec<ChunkTuple>;

    fn run<C: TokenCounter>(&self, text: &str, counter: &C) -> Result<Self::Out, C::Error> {
        let index = CharIndex::new(text);
        let chunks = recursive::split_measured(&index, self.cfg, counter, self.with_counts)?;
        Ok(measured_tuples(chunks))
    }

    fn run_builtin(&self, text: &str, unit: UnitCount) -> Self::Out {
        let chunks = recursive::split_measured_builtin(text, self.cfg, unit, self.with_counts);
        measured_tuples(chunks)
    }
}

/// The recursive splitter's job as its class keeps it: sizes counted.
pub(super) struct Recursive(RecursiveConfig);

impl PerDoc for Recursive {
    type Doc = str;
    type Out = Vec<ChunkTuple>;

    fn run<C: TokenCounter>(&self, text: &str, counter: &C) -> Result<Self::Out, C::Error> {
        self.counted().run(text, counter)
    }

    fn run_builtin(&self, text: &str, unit: UnitCount) -> Self::Out {
        self.counted().run_builtin(text, unit)
    }
}

impl Recursive {
    fn counted(&self) -> RecursiveDoc<'_> {
        RecursiveDoc {
            cfg: &self.0,
            with_counts: true,
        }
    }
}

fn keep_separator(value: &str) -> PyResult<KeepSeparator> {
    match value {
        "start" => Ok(KeepSeparator::Start),
        "end" => Ok(KeepSeparator::End),
        "none" => Ok(KeepSeparator::Drop),
        other => Err(PyValueError::new_err(format!(
            "keep_separator must be 'start', 'end' or 'none', got {other:?}"
        ))),
    }
}

chunker_class! {
    /// LangChain's `RecursiveCharacterTextSplitter`, configured once (regexes compiled here).
    PyRecursive("RecursiveSplitter"): Recursive {
        /// `separators`: `(text, rust_regex)` pairs; `rust_regex` is `None` for a literal.
        #[new]
        #[pyo3(signature = (chunk_size, chunk_overlap, separators, keep_separator, strip_whitespace, length="tokens", encoding_name=None, counter=None))]
        #[allow(clippy::too_many_arguments)]
        fn new(
            py: Python<'_>,
            chunk_size: usize,
            chunk_overlap: usize,
            separators: Vec<(String, Option<String>)>,
            keep_separator: &str,
            strip_whitespace: bool,
            length: &str,
            encoding_name: Option<&str>,
            counter: Option<Bound<'_, PyAny>>,
        ) -> PyResult<Self> {
            contain(py, || {
                let (chunk_size, chunk_overlap) = checked_sizes(chunk_size, chunk_overlap)?;
                if separators.is_empty() {
                    return Err(PyValueError::new_err("separators must not be empty"));
                }
                let keep_separator = self::keep_separator(keep_separator)?;
                let mut seps = Vec::with_capacity(separators.len());
                for (i, (text, pattern)) in separators.iter().enumerate() {
                    seps.push(match pattern {
                        None => Separator::literal(text),
                        Some(p) => {
                            let re = regex::Regex::new(p).map_err(|e| {
                                PyValueError::new_err(format!("separators[{i}]: invalid regex: {e}"))
                            })?;
                            Separator::regex(text, re)
                        }
                    });
                }
                Ok(PyRecursive {
                    job: Recursive(RecursiveConfig {
                        chunk_size,
                        chunk_overlap,
                        separators: seps,
                        keep_separator,
                        strip_whitespace,
                    }),
                    measure: Measure::new(length, encoding_name, counter)?,
                })
            })
        }

        /// Just the chunk strings of one text (LangChain's `split_text`), built here: slices of
        /// `text` (or the re-joined text), with no tuples or counts crossing into Python.
        fn split_text<'py>(
            &self,
            py: Python<'py>,
            text: Bound<'py, PyString>,
        ) -> PyResult<Bound<'py, PyList>> {
            contain(py, || {
                let job = RecursiveDoc {
                    cfg: &self.job.0,
                    with_counts: false,
                };
                let chunks = split_one(py, &job, text.to_str()?, &self.measure)?;
                let mut strings = Vec::with_capacity(chunks.len());
                for (start, end, _, joined) in chunks {
                    strings.push(match joined {
                        Some(j) => PyString::new(py, &j).into_any(),
                        None => substring(&text, start, end)?,
                    });
                }
                PyList::new(py, strings)
            })
        }
    }
}

/// One document of the character splitter.
pub(super) struct CharacterDoc {
    chunk_size: usize,
    chunk_overlap: usize,
    drop_last: bool,
}

impl PerDoc for CharacterDoc {
    type Doc = str;
    type Out = Vec<ChunkTuple>;

    fn run<C: TokenCounter>(&self, text: &str, _: &C) -> Result<Self::Out, C::Error> {
        let spans = character::split(text, self.chunk_size, self.chunk_overlap, self.drop_last);
        Ok(tuples(spans_in_chars(text, spans)))
    }
}

chunker_class! {
    /// Fixed windows of characters, configured once: `(start, end, size, None)` per window.
    PyCharacter("CharacterSplitter"): CharacterDoc {
        #[new]
        fn new(
            py: Python<'_>,
            chunk_size: usize,
            chunk_overlap: usize,
            drop_last: bool,
        ) -> PyResult<Self> {
            contain(py, || {
                let (chunk_size, chunk_overlap) = checked_sizes(chunk_size, chunk_overlap)?;
                Ok(PyCharacter {
                    job: CharacterDoc {
                        chunk_size,
                        chunk_overlap,
                        drop_last,
                    },
                    measure: WINDOWS,
                })
            })
        }
    }
}

/// One document of the token window splitter.
pub(super) struct TokenWindowDoc {
    tok: &'static Tokenizer,
    chunk_size: usize,
    chunk_overlap: usize,
}

impl PerDoc for TokenWindowDoc {
    type Doc = str;
    type Out = Vec<ChunkTuple>;

    fn run<C: TokenCounter>(&self, text: &str, _: &C) -> Result<Self::Out, C::Error> {
        let spans = token_window::split(self.tok, text, self.chunk_size, self.chunk_overlap);
        Ok(tuples(spans_in_chars(text, spans)))
    }
}

chunker_class! {
    /// Token windows over a built-in encoding, cut at character boundaries, configured once:
    /// `(start, end, tokens, None)` per window.
    PyTokenWindow("TokenWindowSplitter"): TokenWindowDoc {
        #[new]
        fn new(
            py: Python<'_>,
            chunk_size: usize,
            chunk_overlap: usize,
            encoding_name: &str,
        ) -> PyResult<Self> {
            contain(py, || {
                let (chunk_size, chunk_overlap) = checked_sizes(chunk_size, chunk_overlap)?;
                Ok(PyTokenWindow {
                    job: TokenWindowDoc {
                        tok: encoding(encoding_name)?,
                        chunk_size,
                        chunk_overlap,
                    },
                    measure: WINDOWS,
                })
            })
        }
    }
}

/// One document of the sentence splitter.
pub(super) struct SentenceDoc(sentence::SentenceConfig);

impl PerDoc for SentenceDoc {
    type Doc = str;
    type Out = Vec<ChunkTuple>;

    fn run<C: TokenCounter>(&self, text: &str, counter: &C) -> Result<Self::Out, C::Error> {
        let spans = sentence::split(text, self.0, counter)?;
        Ok(tuples(spans_in_chars(text, spans)))
    }

    fn run_builtin(&self, text: &str, unit: UnitCount) -> Self::Out {
        let spans = sentence::split_builtin(text, self.0, unit);
        tuples(spans_in_chars(text, spans))
    }
}

chunker_class! {
    /// Whole sentences packed up to `chunk_size`, configured once: `(start, end, size, None)`
    /// per chunk.
    PySentence("SentenceSplitter"): SentenceDoc {
        #[new]
        #[pyo3(signature = (chunk_size, chunk_overlap_sentences, length="tokens", encoding_name=None, counter=None))]
        fn new(
            py: Python<'_>,
            chunk_size: usize,
            chunk_overlap_sentences: usize,
            length: &str,
            encoding_name: Option<&str>,
            counter: Option<Bound<'_, PyAny>>,
        ) -> PyResult<Self> {
            contain(py, || {
                let config = sentence::SentenceConfig {
                    chunk_size: checked_size(chunk_size)?,
                    overlap_sentences: chunk_overlap_sentences,
                };
                Ok(PySentence {
                    job: SentenceDoc(config),
                    measure: Measure::new(length, encoding_name, counter)?,
                })
            })
        }
    }
}

/// Sentence spans `(start, end)` in code points.
#[pyfunction]
#[pyo3(name = "sentence_spans")]
pub(super) fn sentences(py: Python<'_>, text: PyBackedStr) -> PyResult<Vec<(usize, usize)>> {
    contain(py, || {
        detached(py, || {
            spans_in_chars(&text, sentence::sentences(&text))
                .into_iter()
                .map(|s| (s.start, s.end))
                .collect()
        })
    })
}
