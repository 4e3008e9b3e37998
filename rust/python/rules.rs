//! The data file's character sets as the compiled core holds them, so the test suite can show
//! that the two backends' sets have not drifted apart (`tests/core/test_rules.py` compares
//! them with the fallback's, `ragchunk.core.rules`).

use std::collections::BTreeMap;

use pyo3::prelude::*;

use crate::text::boundaries::boundaries;

use super::guard::{contain, detached};

/// Every `chars.*` set of the data file, by key: the code points, ascending, for which the
/// built set's membership test (the one the splitters' loops call) answers yes, every code
/// point tested.
#[pyfunction]
pub(super) fn _char_sets(py: Python<'_>) -> PyResult<BTreeMap<&'static str, Vec<u32>>> {
    contain(py, || {
        detached(py, || {
            let all: Vec<char> = (0..=0x10_FFFF).filter_map(char::from_u32).collect();
            boundaries()
                .by_key()
                .into_iter()
                .map(|(key, set)| {
                    let members = all.iter().filter(|&&c| set.contains(c));
                    (key, members.map(|&c| c as u32).collect())
                })
                .collect()
        })
    })
}
