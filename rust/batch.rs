//! Parallel map over independent documents, results in input order.
//!
//! Documents share nothing, so a batch is a plain rayon `par_iter().map().collect()`, which
//! keeps input order. `workers` picks the pool: `None` is a pool of one thread per core (the
//! size rayon's own global pool would have, `RAYON_NUM_THREADS` included), `Some(1)` runs
//! inline on the calling thread, and `Some(n)` a pool of `n` threads. Each pool is built on
//! first use and cached (building a pool costs far more than chunking a small document).
//!
//! [`pipeline`] is the streaming form for callers whose inputs and outputs must be prepared
//! and consumed on the calling thread (the Python bindings: both need the GIL): the workers
//! compute while the calling thread converts earlier results and prepares later inputs, so
//! no core waits for a serial phase, and a bounded amount of work is in flight at any time.
//!
//! Every parallel path of the crate goes through this module's `pool`, which is safe after
//! `fork()` (`multiprocessing`'s fork start method, gunicorn `--preload`, Celery's prefork
//! pool). A forked child has none of its parent's threads but a copy of its memory, so a job
//! sent to an inherited pool would wait forever. The pools are therefore kept per process
//! (`Pools`, tagged with the id of the process they belong to): a process that finds another
//! process's pools starts an empty set of its own, built lazily, and leaves the inherited set
//! untouched: never locked (its lock may have been copied while held by a thread that does not
//! exist in the child) and never dropped (dropping a pool signals its threads, through locks
//! the fork may have copied held too), only leaked. rayon's global pool cannot be replaced
//! that way, so it is never used: rayon's parallel iterators run in this module only, always
//! inside one of these pools.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};

use rayon::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};

/// Why a batch could not run.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// The thread pool could not be created (for example, the OS refused new threads).
    #[error("could not start {} worker threads: {reason}", threads_wanted(*.workers))]
    Pool {
        /// The pool asked for (`None`: one thread per core).
        workers: Option<usize>,
        reason: String,
    },
}

fn threads_wanted(workers: Option<usize>) -> String {
    workers.map_or_else(|| "the".to_owned(), |n| n.to_string())
}

/// The thread pools of one process, by `workers` (`None`: one thread per core).
struct Pools {
    /// The process the pools belong to ([`std::process::id`]).
    pid: u32,
    by_workers: Mutex<HashMap<Option<usize>, Arc<ThreadPool>>>,
}

/// The pools of this process, or, in a forked child that has not run a batch yet, its
/// parent's (then replaced, see `pools_of`). Null until the first parallel batch.
static POOLS: AtomicPtr<Pools> = AtomicPtr::new(ptr::null_mut());

/// The pools of process `pid` held in `slot`: the set there when it belongs to `pid`, else a
/// new, empty set put in its place (the set replaced, another process's, is leaked, never
/// locked or dropped). Lock-free, so a lock copied by `fork()` in its held state is never
/// waited on; threads racing to replace a set agree on one.
fn pools_of(slot: &AtomicPtr<Pools>, pid: u32) -> &'static Pools {
    let mut seen = slot.load(Ordering::Acquire);
    loop {
        // SAFETY: a non-null pointer in a slot comes from `Box::into_raw` below, and no set
        // is ever freed once it was stored.
        if let Some(pools) = unsafe { seen.as_ref() } {
            if pools.pid == pid {
                return pools;
            }
        }
        let fresh = Box::into_raw(Box::new(Pools {
            pid,
            by_workers: Mutex::default(),
        }));
        match slot.compare_exchange(seen, fresh, Ordering::AcqRel, Ordering::Acquire) {
            // SAFETY: `fresh` is stored in the slot from now on, never freed.
            Ok(_) => return unsafe { &*fresh },
            Err(current) => {
                // SAFETY: another thread stored its set first; `fresh` was never shared.
                drop(unsafe { Box::from_raw(fresh) });
                seen = current;
            }
        }
    }
}

/// The pool for `workers` of the calling process, built on first use.
fn pool(workers: Option<usize>) -> Result<Arc<ThreadPool>, BatchError> {
    pool_in(pools_of(&POOLS, std::process::id()), workers)
}

fn pool_in(pools: &Pools, workers: Option<usize>) -> Result<Arc<ThreadPool>, BatchError> {
    let mut guard = pools
        .by_workers
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(p) = guard.get(&workers) {
        return Ok(Arc::clone(p));
    }
    let mut builder = ThreadPoolBuilder::new().thread_name(|i| format!("ragchunk-{i}"));
    if let Some(n) = workers {
        builder = builder.num_threads(n);
    }
    let built = builder.build().map_err(|e| BatchError::Pool {
        workers,
        reason: e.to_string(),
    })?;
    let built = Arc::new(built);
    guard.insert(workers, Arc::clone(&built));
    Ok(built)
}

/// The number of threads a batch with `workers` runs on (starting its pool if need be).
pub fn threads(workers: Option<usize>) -> Result<usize, BatchError> {
    match workers {
        Some(0) | Some(1) => Ok(1),
        _ => Ok(pool(workers)?.current_num_threads()),
    }
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
        _ => Ok(pool(workers)?.install(|| items.par_iter().map(f).collect())),
    }
}

/// An item handed back by [`pipeline`]: the input itself (so the caller drops it where it
/// must, e.g. with the GIL held) and `f`'s result, or the message of the panic `f` raised.
pub type Done<T, R> = (T, Result<R, String>);

/// Why [`pipeline`] stopped early: the error its turn returned, and the inputs that were
/// in flight (their results discarded), handed back for the caller to drop.
pub struct Stopped<E, T> {
    pub error: E,
    pub leftover: Vec<T>,
}

/// Consecutive items are sent to a worker in groups of about this much weight (bytes), so a
/// corpus of tiny documents does not pay one task and one message per document.
const GROUP_WEIGHT: usize = 64 << 10;

/// Where a turn puts new inputs. Items are grouped and a full group goes to the workers at
/// once, while the turn is still running, so the workers start without waiting for it.
pub struct Feed<'a, T> {
    budget: usize,
    in_flight: &'a mut usize,
    group: Vec<T>,
    group_weight: usize,
    send: &'a mut dyn FnMut(Vec<T>, usize),
}

impl<'a, T> Feed<'a, T> {
    fn new(
        budget: usize,
        in_flight: &'a mut usize,
        send: &'a mut dyn FnMut(Vec<T>, usize),
    ) -> Self {
        Feed {
            budget,
            in_flight,
            group: Vec::new(),
            group_weight: 0,
            send,
        }
    }

    /// Whether another item may be pushed: the weight pushed and not yet handed back is under
    /// the budget (always true when nothing is in flight, so any single item fits).
    pub fn has_room(&self) -> bool {
        *self.in_flight < self.budget
    }

    /// Queues `item`, which counts as `weight` against the budget until it is handed back.
    pub fn push(&mut self, item: T, weight: usize) {
        *self.in_flight += weight;
        self.group.push(item);
        self.group_weight += weight;
        if self.group_weight >= GROUP_WEIGHT {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if !self.group.is_empty() {
            (self.send)(std::mem::take(&mut self.group), self.group_weight);
            self.group_weight = 0;
        }
    }
}

/// A group's items with their results (or panic messages), in the group's order.
type GroupDone<T, R> = (Vec<T>, Vec<Result<R, String>>);
/// A finished group and its sequence number.
type Message<T, R> = (u64, GroupDone<T, R>);

fn run_group<T, R>(items: &[T], f: &impl Fn(&T) -> R) -> Vec<Result<R, String>> {
    // Caught per item: a panic must reach the caller as that item's error. Uncaught, it would
    // abort the process from a pool thread, or leave the caller waiting for a lost message.
    items
        .iter()
        .map(|t| catch_unwind(AssertUnwindSafe(|| f(t))).map_err(|p| panic_message(p.as_ref())))
        .collect()
}

/// The text of a panic payload (`panic!` with a literal or a formatted message).
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_owned()
    }
}

/// A streaming, order-keeping map with bounded memory.
///
/// `turn` runs on the calling thread, repeatedly: it receives the next results in input
/// order (each pushed item exactly once, with `f`'s result or its panic message), pushes new
/// inputs into the [`Feed`] while it has room, and returns whether inputs remain. Meanwhile
/// the workers run `f` over the pushed items; between turns the calling thread only waits
/// (so a caller that holds a lock such as Python's GIL inside `turn` releases it there).
/// The weight pushed and not yet handed back stays under `budget` plus one item, which bounds
/// the inputs and results alive at once. Ends when the turn has no more inputs and every
/// result has been handed back, or at the first turn error ([`Stopped`]).
///
/// With `Some(0)` / `Some(1)` workers nothing runs in parallel: between turns `f` runs on
/// the calling thread over everything the previous turn pushed.
pub fn pipeline<T, R, E, F, S>(
    workers: Option<usize>,
    budget: usize,
    f: F,
    turn: S,
) -> Result<Result<(), Stopped<E, T>>, BatchError>
where
    T: Send,
    R: Send,
    F: Fn(&T) -> R + Sync,
    S: FnMut(Vec<Done<T, R>>, &mut Feed<'_, T>) -> Result<bool, E>,
{
    // `in_place_scope_fifo`: the calling thread runs the turns itself (it is not a pool
    // thread, so waiting there never blocks a worker) and jobs start in the order sent.
    match workers {
        Some(0) | Some(1) => Ok(pipeline_inline(budget, &f, turn)),
        _ => Ok(pool(workers)?.in_place_scope_fifo(|scope| {
            pipeline_pooled(budget, &f, turn, |job| scope.spawn_fifo(|_| job()))
        })),
    }
}

fn pipeline_inline<T, R, E, F, S>(budget: usize, f: &F, mut turn: S) -> Result<(), Stopped<E, T>>
where
    F: Fn(&T) -> R,
    S: FnMut(Vec<Done<T, R>>, &mut Feed<'_, T>) -> Result<bool, E>,
{
    let mut ready: Vec<Done<T, R>> = Vec::new();
    loop {
        let mut in_flight = 0; // everything earlier is in `ready`, handed back below
        let mut groups: Vec<Vec<T>> = Vec::new();
        let mut send = |group: Vec<T>, _weight: usize| groups.push(group);
        let mut feed = Feed::new(budget, &mut in_flight, &mut send);
        let more = turn(std::mem::take(&mut ready), &mut feed);
        feed.flush();
        match more {
            Err(error) => {
                let leftover = groups.into_iter().flatten().collect();
                return Err(Stopped { error, leftover });
            }
            Ok(more) if groups.is_empty() => {
                assert!(!more, "pipeline: the turn has more input but pushed none");
                return Ok(());
            }
            Ok(_) => {}
        }
        for items in groups {
            let results = run_group(&items, f);
            ready.extend(items.into_iter().zip(results));
        }
    }
}

fn pipeline_pooled<'scope, T, R, E, F, S>(
    budget: usize,
    f: &'scope F,
    mut turn: S,
    spawn: impl Fn(Box<dyn FnOnce() + Send + 'scope>),
) -> Result<(), Stopped<E, T>>
where
    T: Send + 'scope,
    R: Send + 'scope,
    F: Fn(&T) -> R + Sync,
    S: FnMut(Vec<Done<T, R>>, &mut Feed<'_, T>) -> Result<bool, E>,
{
    let (tx, rx) = mpsc::channel::<Message<T, R>>();
    let mut in_flight = 0; // weight pushed and not yet handed back
    let mut weights: VecDeque<usize> = VecDeque::new(); // of the groups not yet handed back
    let mut sent: u64 = 0; // groups sent to the workers
    let mut next: u64 = 0; // the next group to hand back; all before it were
    let mut pending: BTreeMap<u64, GroupDone<T, R>> = BTreeMap::new();
    let mut ready: Vec<Done<T, R>> = Vec::new();
    loop {
        let mut send = |items: Vec<T>, weight: usize| {
            weights.push_back(weight);
            let tx = tx.clone();
            let seq = sent;
            sent += 1;
            spawn(Box::new(move || {
                let results = run_group(&items, f);
                // Fails only when the caller unwinds from a panic in its turn: the items
                // are then dropped here.
                let _ = tx.send((seq, (items, results)));
            }));
        };
        let mut feed = Feed::new(budget, &mut in_flight, &mut send);
        let more = turn(std::mem::take(&mut ready), &mut feed);
        feed.flush();
        let more = match more {
            Ok(more) => more,
            Err(error) => {
                // Wait for the jobs still running: their items go back to the caller, to be
                // dropped there (a worker thread must not drop, e.g., Python objects).
                let mut leftover: Vec<T> = Vec::new();
                let mut received = next + pending.len() as u64;
                for (items, _) in std::mem::take(&mut pending).into_values() {
                    leftover.extend(items);
                }
                while received < sent {
                    let (_, (items, _)) = rx.recv().expect("this function holds a sender");
                    received += 1;
                    leftover.extend(items);
                }
                return Err(Stopped { error, leftover });
            }
        };
        if next == sent {
            assert!(!more, "pipeline: the turn has more input but pushed none");
            return Ok(());
        }
        // Wait until the next group in input order is done (a group done out of order only
        // waits: a turn could not use it), take every other one already done, and hand
        // back the run of groups that continues the input order.
        while !pending.contains_key(&next) {
            let mut message = Ok(rx.recv().expect("this function holds a sender"));
            while let Ok((seq, group)) = message {
                pending.insert(seq, group);
                message = rx.try_recv();
            }
        }
        while let Some((items, results)) = pending.remove(&next) {
            next += 1;
            in_flight -= weights.pop_front().expect("one weight per group sent");
            ready.extend(items.into_iter().zip(results));
        }
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
    fn a_process_keeps_its_pools() {
        static SLOT: AtomicPtr<Pools> = AtomicPtr::new(ptr::null_mut());
        let pools = pools_of(&SLOT, 10);
        assert_eq!(pools.pid, 10);
        assert!(ptr::eq(pools, pools_of(&SLOT, 10)));
        let two = pool_in(pools, Some(2)).unwrap();
        assert!(Arc::ptr_eq(&two, &pool_in(pools, Some(2)).unwrap()));
        assert_eq!(two.current_num_threads(), 2);
    }

    #[test]
    fn a_forked_child_starts_pools_of_its_own() {
        static SLOT: AtomicPtr<Pools> = AtomicPtr::new(ptr::null_mut());
        let parent = pools_of(&SLOT, 10);
        let inherited = pool_in(parent, Some(2)).unwrap();
        // As if the fork copied the lock while one of the parent's threads held it.
        std::mem::forget(parent.by_workers.lock().unwrap());
        let child = pools_of(&SLOT, 11);
        assert_eq!(child.pid, 11);
        assert!(!ptr::eq(parent, child));
        let own = pool_in(child, Some(2)).unwrap();
        assert!(!Arc::ptr_eq(&inherited, &own));
        assert_eq!(own.install(|| (0..100).into_par_iter().sum::<i32>()), 4950);
        assert!(ptr::eq(child, pools_of(&SLOT, 11)));
        // A grandchild replaces the child's set in turn.
        let grandchild = pools_of(&SLOT, 12);
        assert!(!ptr::eq(child, grandchild));
        assert!(ptr::eq(grandchild, pools_of(&SLOT, 12)));
    }

    #[test]
    fn threads_replacing_a_set_at_once_agree_on_one() {
        static SLOT: AtomicPtr<Pools> = AtomicPtr::new(ptr::null_mut());
        pools_of(&SLOT, 1);
        let seen: Vec<usize> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| s.spawn(|| pools_of(&SLOT, 2) as *const Pools as usize))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(seen.windows(2).all(|w| w[0] == w[1]));
        assert_eq!(seen[0], pools_of(&SLOT, 2) as *const Pools as usize);
    }

    #[test]
    fn every_parallel_path_runs_on_ragchunks_own_threads() {
        // Never on rayon's global pool, which a forked child could not replace.
        let on_ours = || {
            let name = std::thread::current().name().map(str::to_owned);
            name.is_some_and(|n| n.starts_with("ragchunk-"))
        };
        let items: Vec<usize> = (0..64).collect();
        for workers in [None, Some(2)] {
            assert!(par_map(&items, workers, |_| on_ours())
                .unwrap()
                .iter()
                .all(|&b| b));
            let mut next = 0;
            let mut all = true;
            let turn = |done: Vec<Done<usize, bool>>, feed: &mut Feed<'_, usize>| {
                all &= done.iter().all(|(_, r)| *r == Ok(true));
                while next < 64 && feed.has_room() {
                    feed.push(next, GROUP_WEIGHT);
                    next += 1;
                }
                Ok::<bool, ()>(next < 64)
            };
            let f = |_: &usize| on_ours();
            assert!(pipeline(workers, 4 * GROUP_WEIGHT, f, turn)
                .unwrap()
                .is_ok());
            assert!(all);
        }
        assert!(threads(None).unwrap() >= 1);
        assert_eq!(threads(Some(3)).unwrap(), 3);
        assert_eq!(threads(Some(1)).unwrap(), 1);
    }

    #[test]
    fn empty_and_single() {
        let none: Vec<u8> = Vec::new();
        assert!(par_map(&none, Some(4), |x| *x).unwrap().is_empty());
        assert_eq!(par_map(&[7u8], None, |x| *x).unwrap(), vec![7]);
    }

    /// Runs `pipeline` over `0..n` (item `i` weighs `weight(i)`, `f` doubles and panics on
    /// multiples of 97), checking the budget; returns what the turns received, in order.
    fn run_pipeline(
        workers: Option<usize>,
        n: usize,
        budget: usize,
        weight: impl Fn(usize) -> usize,
    ) -> Vec<(usize, Result<usize, String>)> {
        let mut next = 0;
        let mut got = Vec::new();
        let mut outstanding = 0; // weight pushed and not handed back, as the turn sees it
        let f = |x: &usize| {
            if x % 97 == 96 {
                panic!("item {x}");
            }
            // Uneven work, so that the workers finish out of order.
            std::thread::sleep(std::time::Duration::from_micros((x % 7 * 50) as u64));
            x * 2
        };
        let turn = |done: Vec<Done<usize, usize>>, feed: &mut Feed<'_, usize>| {
            for (x, r) in done {
                outstanding -= weight(x);
                got.push((x, r));
            }
            while next < n && feed.has_room() {
                assert!(outstanding < budget, "pushed over the budget");
                feed.push(next, weight(next));
                outstanding += weight(next);
                next += 1;
            }
            Ok::<bool, ()>(next < n)
        };
        assert!(pipeline(workers, budget, f, turn).unwrap().is_ok());
        got
    }

    #[test]
    fn pipeline_hands_back_everything_in_order() {
        for workers in [None, Some(1), Some(2), Some(3)] {
            for (n, budget, big) in [(0, 100, 1), (1, 100, 1), (500, 200_000, 40_000)] {
                let weight = |i: usize| if i % 5 == 0 { big } else { i % 3 * 1000 };
                let got = run_pipeline(workers, n, budget, weight);
                assert_eq!(got.len(), n);
                for (i, (x, r)) in got.into_iter().enumerate() {
                    assert_eq!(x, i);
                    match r {
                        Ok(y) => assert_eq!(y, 2 * i),
                        Err(msg) => assert_eq!((i % 97, msg), (96, format!("item {i}"))),
                    }
                }
            }
        }
    }

    #[test]
    fn pipeline_stops_at_a_turn_error_and_returns_the_leftover() {
        for workers in [Some(1), Some(2)] {
            let mut next = 0;
            let mut seen = 0;
            let turn = |done: Vec<Done<usize, usize>>, feed: &mut Feed<'_, usize>| {
                seen += done.len();
                if seen >= 100 {
                    return Err("stop");
                }
                while next < 1000 && feed.has_room() {
                    feed.push(next, 10_000);
                    next += 1;
                }
                Ok(next < 1000)
            };
            let stopped = pipeline(workers, 300_000, |x: &usize| *x, turn)
                .unwrap()
                .unwrap_err();
            assert_eq!(stopped.error, "stop");
            // Every pushed item came back exactly once: to a turn, or as leftover.
            let mut leftover = stopped.leftover;
            leftover.sort_unstable();
            assert_eq!(leftover, (seen..next).collect::<Vec<_>>());
        }
    }
}
