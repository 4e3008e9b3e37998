//! Parallel map over independent documents, results in input order.
//!
//! Documents share nothing, so a batch is a plain rayon `par_iter().map().collect()`, which
//! keeps input order. `workers` picks the pool: `None` is rayon's global pool (one thread per
//! core), `Some(1)` runs inline on the calling thread, and `Some(n)` a pool of `n` threads
//! built once and cached (building a pool costs far more than chunking a small document).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use rayon::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};

/// Why a batch could not run.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// The thread pool could not be created (for example, the OS refused new threads).
    #[error("could not start {workers} worker threads: {reason}")]
    Pool { workers: usize, reason: String },
}

fn pool(workers: usize) -> Result<Arc<ThreadPool>, BatchError> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<ThreadPool>>>> = OnceLock::new();
    let pools = POOLS.get_or_init(Default::default);
    let mut guard = pools
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(p) = guard.get(&workers) {
        return Ok(Arc::clone(p));
    }
    let built = ThreadPoolBuilder::new()
        .num_threads(workers)
        .thread_name(|i| format!("ragchunk-{i}"))
        .build()
        .map_err(|e| BatchError::Pool {
            workers,
            reason: e.to_string(),
        })?;
    let built = Arc::new(built);
    guard.insert(workers, Arc::clone(&built));
    Ok(built)
}

/// `items.map(f)` in parallel, in input order.
pub fn par_map<T, R, F>(items: &[T], workers: Option<usize>, f: F) -> Result<Vec<R>, BatchError>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync + Send,
{
    match workers {
        Some(0) | Some(1) => Ok(items.iter().map(f).collect()),
        _ if items.len() <= 1 => Ok(items.iter().map(f).collect()),
        None => Ok(items.par_iter().map(f).collect()),
        Some(n) => Ok(pool(n)?.install(|| items.par_iter().map(f).collect())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_kept_for_every_worker_count() {
        let items: Vec<usize> = (0..1000).collect();
        let expected: Vec<usize> = items.iter().map(|x| x * 3).collect();
        for workers in [None, Some(1), Some(2), Some(3), Some(2)] {
            assert_eq!(par_map(&items, workers, |x| x * 3).unwrap(), expected);
        }
    }

    #[test]
    fn empty_and_single() {
        let none: Vec<u8> = Vec::new();
        assert!(par_map(&none, Some(4), |x| *x).unwrap().is_empty());
        assert_eq!(par_map(&[7u8], None, |x| *x).unwrap(), vec![7]);
    }
}
