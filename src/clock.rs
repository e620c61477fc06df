//! Clocks for deadlines: the system's, and one that tests control.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A monotonic clock, read to enforce a [`Limits::deadline`](crate::Limits::deadline).
///
/// The default is [`SystemClock`]; tests use [`ManualClock`] to make a
/// deadline pass exactly when they choose.
///
/// # Example
///
/// ```
/// use candor::{Clock, SystemClock};
/// let clock = SystemClock;
/// let a = clock.now();
/// assert!(clock.now() >= a);
/// ```
pub trait Clock: Send + Sync + fmt::Debug {
    /// The current instant.
    fn now(&self) -> Instant;
}

/// The operating system's monotonic clock, [`Instant::now`].
///
/// # Example
///
/// ```
/// use std::time::Duration;
/// use candor::{Bounded, Limits, SystemClock};
/// let limits = Limits::new().clock(SystemClock).deadline(Duration::from_secs(60));
/// // A minute is plenty for five items: the answer is whole.
/// assert!(Bounded::collect(0..5u32, &limits)?.is_complete());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// A clock that moves only when told to, for deterministic deadline tests.
///
/// It can also advance by a fixed step on every reading, so that a deadline
/// passes after a known number of steps of work.
///
/// # Example
///
/// ```
/// use std::time::Duration;
/// use candor::{Bounded, BudgetKind, Limits, ManualClock};
///
/// // Each reading of the clock advances it by 10 ms, so a 25 ms deadline
/// // passes after a few items.
/// let clock = ManualClock::new().auto_advance(Duration::from_millis(10));
/// let limits = Limits::new().deadline(Duration::from_millis(25)).clock(clock);
/// let b = Bounded::collect(0..1000u32, &limits)?;
/// assert_eq!(b.completeness().budget().map(|b| b.kind()), Some(BudgetKind::Deadline));
/// assert!(b.len() < 1000);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct ManualClock {
    base: Instant,
    state: Arc<ManualState>,
}

struct ManualState {
    elapsed_nanos: AtomicU64,
    step_nanos: AtomicU64,
}

impl ManualClock {
    /// A clock that stands still until [`advance`](Self::advance)d.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Clock, ManualClock};
    /// let clock = ManualClock::new();
    /// assert_eq!(clock.now(), clock.now());
    /// ```
    #[must_use]
    pub fn new() -> ManualClock {
        ManualClock {
            base: Instant::now(),
            state: Arc::new(ManualState {
                elapsed_nanos: AtomicU64::new(0),
                step_nanos: AtomicU64::new(0),
            }),
        }
    }

    /// Makes every reading advance the clock by `step` (after the reading).
    /// Default: no step.
    ///
    /// # Example
    ///
    /// ```
    /// use std::time::Duration;
    /// use candor::{Clock, ManualClock};
    /// let clock = ManualClock::new().auto_advance(Duration::from_millis(1));
    /// let a = clock.now();
    /// assert_eq!(clock.now() - a, Duration::from_millis(1));
    /// ```
    #[must_use]
    pub fn auto_advance(self, step: Duration) -> ManualClock {
        self.state
            .step_nanos
            .store(saturating_nanos(step), Ordering::SeqCst);
        self
    }

    /// Moves the clock forward by `by`. Clones of the clock move with it.
    ///
    /// # Example
    ///
    /// ```
    /// use std::time::Duration;
    /// use candor::{Clock, ManualClock};
    /// let clock = ManualClock::new();
    /// let a = clock.now();
    /// clock.advance(Duration::from_secs(2));
    /// assert_eq!(clock.now() - a, Duration::from_secs(2));
    /// ```
    pub fn advance(&self, by: Duration) {
        let nanos = saturating_nanos(by);
        let _ = self
            .state
            .elapsed_nanos
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                Some(n.saturating_add(nanos))
            });
    }
}

impl Default for ManualClock {
    fn default() -> Self {
        ManualClock::new()
    }
}

impl fmt::Debug for ManualClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ManualClock")
            .field(
                "elapsed",
                &Duration::from_nanos(self.state.elapsed_nanos.load(Ordering::SeqCst)),
            )
            .field(
                "step",
                &Duration::from_nanos(self.state.step_nanos.load(Ordering::SeqCst)),
            )
            .finish()
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        let step = self.state.step_nanos.load(Ordering::SeqCst);
        let elapsed = self
            .state
            .elapsed_nanos
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                Some(n.saturating_add(step))
            })
            .unwrap_or_else(|n| n);
        self.base + Duration::from_nanos(elapsed)
    }
}

fn saturating_nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}
