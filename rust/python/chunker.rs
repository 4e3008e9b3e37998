//! What every configured chunker class shares: the [`Configured`] trait and the
//! [`chunker_class!`] macro that gives each class its entry points (`split`, `split_batch`,
//! `split_arrow`) over its [`PerDoc`] job ([`super::job`]).

use super::arrow::ArrowJob;
use super::job::{Measure, PerDoc};

/// A configured chunker class: its per-document job and how it measures. Every chunker
/// `#[pyclass]` implements it and gets its entry points from [`chunker_class!`], so every
/// chunker has the same `split`, `split_batch` and `split_arrow`.
pub(super) trait Configured {
    type Job: ArrowJob;
    fn job(&self) -> &Self::Job;
    fn measure(&self) -> &Measure;
}

/// One document's result of a configured chunker class, in its Python shape.
pub(super) type Out<C> = <<C as Configured>::Job as PerDoc>::Out;

/// A configured chunker class of the core: the `#[pyclass]` (`job`: the per-document work as
/// configured, `measure`: how it counts), its [`Configured`] impl, and its `#[pymethods]`: the
/// methods given (its constructor and any of its own), then the three entry points every
/// chunker has: `split` (one text), `split_batch` (many, in input order) and `split_arrow` (a
/// string array's buffers in, the chunk columns' buffers out: see `arrow::split_arrow`).
macro_rules! chunker_class {
    ($(#[$doc:meta])* $class:ident($name:literal): $job:ty { $($own:tt)* }) => {
        $(#[$doc])*
        #[pyclass(frozen, module = "ragchunk._core", name = $name)]
        pub(super) struct $class {
            job: $job,
            measure: super::job::Measure,
        }

        impl super::chunker::Configured for $class {
            type Job = $job;
            fn job(&self) -> &$job {
                &self.job
            }
            fn measure(&self) -> &super::job::Measure {
                &self.measure
            }
        }

        #[pymethods]
        impl $class {
            $($own)*

            /// Chunks of one text.
            fn split(
                &self,
                py: Python<'_>,
                text: pyo3::pybacked::PyBackedStr,
            ) -> PyResult<super::chunker::Out<Self>> {
                use super::chunker::Configured;
                super::guard::contain(py, || {
                    super::job::split_one(py, self.job(), &text, self.measure())
                })
            }

            /// `split` over many texts, in input order.
            #[pyo3(signature = (texts, workers=None))]
            fn split_batch(
                &self,
                py: Python<'_>,
                texts: Vec<pyo3::pybacked::PyBackedStr>,
                workers: Option<usize>,
            ) -> PyResult<Vec<super::chunker::Out<Self>>> {
                use super::chunker::Configured;
                super::guard::contain(py, || {
                    super::job::split_many(py, self.job(), &texts, self.measure(), workers)
                })
            }

            /// The Arrow path: a string array's buffers in, the chunk columns' buffers out.
            #[pyo3(signature = (data, offsets, offset, len, large, workers=None))]
            #[allow(clippy::too_many_arguments)]
            fn split_arrow<'py>(
                &self,
                py: Python<'py>,
                data: &Bound<'py, PyAny>,
                offsets: &Bound<'py, PyAny>,
                offset: usize,
                len: usize,
                large: bool,
                workers: Option<usize>,
            ) -> PyResult<super::arrow::ArrowChunks<'py>> {
                use super::chunker::Configured;
                super::guard::contain(py, || {
                    super::arrow::split_arrow(
                        py,
                        self.job(),
                        self.measure(),
                        data,
                        offsets,
                        offset,
                        len,
                        large,
                        workers,
                    )
                })
            }
        }
    };
}
pub(super) use chunker_class;
