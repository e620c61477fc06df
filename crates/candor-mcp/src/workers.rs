//! `Workers`: the blocking queries of a server run on a bounded number of
//! threads, each call waiting its turn within its own deadline, so that
//! what calls in flight hold stays flat however many pile up.

use std::fmt;
use std::sync::Arc;
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
}

/// Why a call's query did not run to its end.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum WorkError {
    /// The call waited its whole deadline for a thread: every thread was
    /// busy with other calls. Nothing was searched; calling again later
    /// may succeed.
    Busy {
        /// How long the call waited.
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
    /// At most `threads` queries at once (at least 1).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor_mcp::Workers::new(4).threads(), 4);
    /// assert_eq!(candor_mcp::Workers::new(0).threads(), 1);
    /// ```
    #[must_use]
    pub fn new(threads: usize) -> Workers {
        let threads = threads.max(1);
        Workers {
            permits: Arc::new(Semaphore::new(threads)),
            threads,
        }
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
        let acquire = Arc::clone(&self.permits).acquire_owned();
        let permit = match tokio::time::timeout(deadline, acquire).await {
            Ok(Ok(permit)) => permit,
            // The semaphore is never closed; a timeout is the busy case.
            Ok(Err(_)) | Err(_) => {
                return Err(WorkError::Busy {
                    waited: queued.elapsed(),
                    threads: self.threads,
                });
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
