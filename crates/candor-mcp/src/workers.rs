//! `Workers`: the blocking queries of a server run on a bounded number of
//! threads, each call waiting its turn within its own deadline, so that
//! what calls in flight hold stays flat however many pile up.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

/// Runs the blocking queries of a server (searches read files, and run
/// their own threads) on at most a fixed number of threads at once.
///
/// A call waits its turn in a queue that holds only the waiting calls'
/// futures, and the wait counts against the call's own deadline: a call
/// that waited its whole deadline gets [`WorkError::Busy`], a clear,
/// retryable error (nothing was searched), never an empty page that
/// looks like an answer. Without such a bound every call takes a thread
/// of tokio's blocking pool (up to 512), and what the searches in flight
/// hold grows with the calls.
///
/// At most [`max_waiting`](Workers::max_waiting) calls wait at once; one
/// more is told at once that the server is busy, so that the queue itself
/// stays bounded too.
///
/// Dropping the future of [`run`](Workers::run) while it waits takes the
/// call out of the queue; once its query runs, cancel it with the
/// query's [`CancelToken`](candor::CancelToken) (see
/// [`cancel_on_drop`](candor::CancelToken::cancel_on_drop)).
///
/// # Example
///
/// ```
/// use std::time::Duration;
/// use candor_mcp::{WorkError, Workers};
///
/// # tokio::runtime::Runtime::new()?.block_on(async {
/// let workers = Workers::new(1);
/// let deadline = Duration::from_secs(10);
/// // The query is given the time it waited, to take from its deadline.
/// let answer = workers.run(deadline, move |waited| deadline.saturating_sub(waited)).await?;
/// assert!(answer <= deadline);
/// # Ok::<(), WorkError>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Workers {
    permits: Arc<Semaphore>,
    threads: usize,
    /// Calls waiting for a thread now.
    waiting: Arc<AtomicUsize>,
    max_waiting: usize,
}

/// Why a call's query did not run to its end.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum WorkError {
    /// The call waited its whole deadline for a thread: every thread was
    /// busy with other calls. Nothing was searched; calling again later
    /// may succeed.
    Busy {
        /// How long the call waited (zero when the queue was full).
        waited: Duration,
        /// The threads, all busy.
        threads: usize,
    },
    /// The query panicked: a bug, reported as a failed call; the server
    /// goes on serving.
    Panicked {
        /// The panic's message, when it had one.
        message: String,
    },
}

impl fmt::Display for WorkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkError::Busy { waited, threads } if waited.is_zero() => write!(
                f,
                "busy: all {threads} search threads are taken and too many calls wait for one, \
                 so nothing was searched; call again"
            ),
            WorkError::Busy { waited, threads } => write!(
                f,
                "busy: all {threads} search threads were taken by other calls for the {} ms this \
                 call could wait (its deadline), so nothing was searched; call again",
                waited.as_millis()
            ),
            WorkError::Panicked { message } => {
                write!(f, "the query failed unexpectedly: {message}")
            }
        }
    }
}

impl std::error::Error for WorkError {}

impl Workers {
    /// At most `threads` queries at once (at least 1), and at most 32 calls
    /// waiting for each thread.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor_mcp::Workers::new(4).threads(), 4);
    /// assert_eq!(candor_mcp::Workers::new(0).threads(), 1);
    /// assert_eq!(candor_mcp::Workers::new(4).get_max_waiting(), 128);
    /// ```
    #[must_use]
    pub fn new(threads: usize) -> Workers {
        let threads = threads.max(1);
        Workers {
            permits: Arc::new(Semaphore::new(threads)),
            threads,
            waiting: Arc::new(AtomicUsize::new(0)),
            max_waiting: threads.saturating_mul(32),
        }
    }

    /// The most calls that may wait for a thread at once; one more gets
    /// [`WorkError::Busy`] at once. Default: 32 for each thread.
    ///
    /// # Example
    ///
    /// ```
    /// let workers = candor_mcp::Workers::new(2).max_waiting(10);
    /// assert_eq!(workers.get_max_waiting(), 10);
    /// ```
    #[must_use]
    pub fn max_waiting(mut self, calls: usize) -> Workers {
        self.max_waiting = calls;
        self
    }

    /// See [`max_waiting`](Workers::max_waiting).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor_mcp::Workers::new(1).get_max_waiting(), 32);
    /// ```
    #[must_use]
    pub fn get_max_waiting(&self) -> usize {
        self.max_waiting
    }

    /// How many queries may run at once.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor_mcp::Workers::new(2).threads(), 2);
    /// ```
    #[must_use]
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Runs `query` on a thread of its own once one of the `threads` is
    /// free, waiting at most `deadline` for it; `query` is given how long
    /// the call waited, to take from its deadline.
    ///
    /// # Errors
    ///
    /// [`WorkError::Busy`] when no thread was free within `deadline`
    /// (`query` did not run); [`WorkError::Panicked`] when `query`
    /// panicked.
    ///
    /// # Example
    ///
    /// ```
    /// use std::time::Duration;
    /// use candor_mcp::{WorkError, Workers};
    ///
    /// # tokio::runtime::Runtime::new()?.block_on(async {
    /// let workers = Workers::new(1);
    /// // One long query takes the only thread...
    /// let busy = workers.clone();
    /// let long = tokio::spawn(async move {
    ///     busy.run(Duration::from_secs(5), |_| std::thread::sleep(Duration::from_millis(300))).await
    /// });
    /// tokio::time::sleep(Duration::from_millis(50)).await;
    /// // ...so a call that may wait 20 ms is told to come back.
    /// let late = workers.run(Duration::from_millis(20), |_| ()).await;
    /// assert!(matches!(late, Err(WorkError::Busy { threads: 1, .. })));
    /// assert!(long.await.expect("the long query").is_ok());
    /// # });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub async fn run<T, Q>(&self, deadline: Duration, query: Q) -> Result<T, WorkError>
    where
        T: Send + 'static,
        Q: FnOnce(Duration) -> T + Send + 'static,
    {
        let queued = Instant::now();
        let busy = WorkError::Busy {
            waited: Duration::ZERO,
            threads: self.threads,
        };
        // A free thread takes the call at once; else it waits in the
        // queue, if there is room.
        let permit = match Arc::clone(&self.permits).try_acquire_owned().ok() {
            Some(permit) => permit,
            None => {
                let waiting = QueueSlot::enter(&self.waiting, self.max_waiting).ok_or(busy)?;
                let acquire = Arc::clone(&self.permits).acquire_owned();
                let acquired = tokio::time::timeout(deadline, acquire).await;
                drop(waiting);
                self.acquired(acquired, queued)?
            }
        };
        let waited = queued.elapsed();
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            query(waited)
        })
        .await
        .map_err(|e| WorkError::Panicked {
            message: panic_message(e),
        })
    }

    /// The permit a wait ended with, or why there is none.
    fn acquired(
        &self,
        acquired: Result<
            Result<tokio::sync::OwnedSemaphorePermit, tokio::sync::AcquireError>,
            tokio::time::error::Elapsed,
        >,
        queued: Instant,
    ) -> Result<tokio::sync::OwnedSemaphorePermit, WorkError> {
        match acquired {
            Ok(Ok(permit)) => Ok(permit),
            // The semaphore is never closed; a timeout is the busy case.
            Ok(Err(_)) | Err(_) => Err(WorkError::Busy {
                waited: queued.elapsed().max(Duration::from_nanos(1)),
                threads: self.threads,
            }),
        }
    }
}

/// A place in the queue of waiting calls, given back when dropped (the
/// call got its thread, or gave up, or its future was dropped).
struct QueueSlot<'a>(&'a AtomicUsize);

impl<'a> QueueSlot<'a> {
    /// A place, when fewer than `most` calls wait.
    fn enter(waiting: &'a AtomicUsize, most: usize) -> Option<QueueSlot<'a>> {
        waiting
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < most).then_some(n + 1)
            })
            .ok()
            .map(|_| QueueSlot(waiting))
    }
}

impl Drop for QueueSlot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The message of a task's panic, when it had one.
fn panic_message(error: tokio::task::JoinError) -> String {
    match error.try_into_panic() {
        Ok(payload) => payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_owned()),
        Err(e) => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With every thread taken and the queue full, a call is told at once,
    /// and the queue's places are given back when calls leave it.
    #[test]
    fn a_full_queue_refuses_at_once_and_frees_its_places() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(async {
            let workers = Workers::new(1).max_waiting(1);
            let (release, held) = std::sync::mpsc::channel::<()>();
            let busy = workers.clone();
            let long = tokio::spawn(async move {
                busy.run(Duration::from_secs(30), move |_| held.recv().ok())
                    .await
            });
            while workers.permits.available_permits() > 0 {
                tokio::task::yield_now().await;
            }
            let queue = workers.clone();
            let waiting =
                tokio::spawn(async move { queue.run(Duration::from_secs(30), |_| 7).await });
            while workers.waiting.load(Ordering::Acquire) == 0 {
                tokio::task::yield_now().await;
            }
            let refused = workers.run(Duration::from_secs(30), |_| 0).await;
            assert_eq!(
                refused,
                Err(WorkError::Busy {
                    waited: Duration::ZERO,
                    threads: 1
                })
            );
            assert!(
                refused
                    .unwrap_err()
                    .to_string()
                    .contains("too many calls wait")
            );
            release.send(()).expect("the long query waits");
            assert_eq!(long.await.expect("a task"), Ok(Some(())));
            assert_eq!(waiting.await.expect("a task"), Ok(7));
            assert_eq!(workers.waiting.load(Ordering::Acquire), 0);
            assert_eq!(workers.run(Duration::from_secs(1), |_| 1).await, Ok(1));
        });
    }
}
