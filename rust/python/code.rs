//! `CodeSplitter`, configured once, with the grammars of the `code` feature.

use crate::splitters::code::{self, Lang};
use crate::tokenizer::TokenCounter;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::arrow::{ArrowJob, CharCursor, DocRows};
use super::chunker::chunker_class;
use super::guard::contain;
use super::job::{checked_size, Measure, PerDoc};

/// `(start, end, size, symbols, start_line, end_line)`, code points, lines 1-based inclusive.
type CodeChunkPy = (usize, usize, usize, Vec<String>, usize, usize);

fn code_lang(language: &str) -> PyResult<Lang> {
    Lang::from_name(language).ok_or_else(|| {
        PyValueError::new_err(format!(
            "language {language:?} is not supported; supported: {}",
            code::LANGUAGES.join(", ")
        ))
    })
}

/// One source file of the code splitter.
pub(super) struct CodeDoc {
    lang: Lang,
    /// The language's canonical name, as the facade's chunks carry it.
    language: String,
    chunk_size: usize,
}

impl PerDoc for CodeDoc {
    type Doc = str;
    type Out = Vec<CodeChunkPy>;

    fn run<C: TokenCounter>(&self, text: &str, counter: &C) -> Result<Self::Out, C::Error> {
        let chunks = code::split_code(text, self.lang, self.chunk_size, counter)?;
        Ok(code::chunks_in_chars(text, chunks)
            .into_iter()
            .map(|c| {
                (
                    c.span.start,
                    c.span.end,
                    c.span.size,
                    c.symbols,
                    c.start_line,
                    c.end_line,
                )
            })
            .collect())
    }
}

impl ArrowJob for CodeDoc {
    fn rows<'a>(&self, doc: &'a str, out: &'a Self::Out, rows: &mut DocRows<'a>) {
        let mut starts = CharCursor::new(doc);
        let mut ends = CharCursor::new(doc);
        for (start, end, size, symbols, first, last) in out {
            let body = &doc[starts.byte(*start)..ends.byte(*end)];
            rows.push((*start, *end, *size), ["", "", body], |m| {
                m.str("language", &self.language);
                m.strs("symbols", symbols);
                m.int("start_line", *first);
                m.int("end_line", *last);
            });
        }
    }
}

chunker_class! {
    /// `CodeSplitter`, configured once: `(start, end, size, symbols, start_line, end_line)` chunks.
    PyCode("CodeSplitter"): CodeDoc {
        #[new]
        #[pyo3(signature = (language, chunk_size, length="tokens", encoding_name=None, counter=None))]
        fn new(
            py: Python<'_>,
            language: &str,
            chunk_size: usize,
            length: &str,
            encoding_name: Option<&str>,
            counter: Option<Bound<'_, PyAny>>,
        ) -> PyResult<Self> {
            contain(py, || {
                Ok(PyCode {
                    job: CodeDoc {
                        lang: code_lang(language)?,
                        language: language.to_owned(),
                        chunk_size: checked_size(chunk_size)?,
                    },
                    measure: Measure::new(length, encoding_name, counter)?,
                })
            })
        }
    }
}
