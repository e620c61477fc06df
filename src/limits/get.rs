//! The getters of `Limits`: each setting's value, named for its setter
//! with `get_`.

use std::sync::Arc;
use std::time::Duration;

use super::{Enclosing, Limits};
use crate::{CancelToken, Clock};

impl Limits {
    /// The item limit as set (see [`limit`](Self::limit)), before the
    /// clamp to the ceiling; [`applied_limit`](Self::applied_limit) gives
    /// the limit in force.
    ///
    /// # Example
    ///
    /// ```
    /// let limits = candor::Limits::new().ceiling(10).limit(40);
    /// assert_eq!(limits.get_limit(), Some(40));
    /// assert_eq!(limits.applied_limit().limit(), Some(10));
    /// ```
    #[must_use]
    pub fn get_limit(&self) -> Option<usize> {
        self.limit
    }

    /// The engine's ceiling for the item limit, if one is set (see
    /// [`ceiling`](Self::ceiling)).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::Limits::new().ceiling(500).get_ceiling(), Some(500));
    /// assert_eq!(candor::Limits::new().get_ceiling(), None);
    /// ```
    #[must_use]
    pub fn get_ceiling(&self) -> Option<usize> {
        self.ceiling
    }

    /// The output-bytes budget of the JSON, if one is set (see
    /// [`max_bytes`](Self::max_bytes)); with an
    /// [`enclosing`](Self::enclosing) budget, the JSON's share of it.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::Limits::new().max_bytes(100).get_max_bytes(), Some(100));
    /// ```
    #[must_use]
    pub fn get_max_bytes(&self) -> Option<usize> {
        self.max_bytes
    }

    /// The budget of the response that encloses the JSON, if one is set
    /// (see [`enclosing`](Self::enclosing)); [`get_max_bytes`](Self::get_max_bytes)
    /// is then the JSON's share of it.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Enclosing, Limits};
    /// let enclosing = Enclosing::new(3000, 3, 672)?;
    /// let limits = Limits::new().enclosing(enclosing);
    /// assert_eq!(limits.get_enclosing(), Some(enclosing));
    /// assert_eq!(limits.get_max_bytes(), Some(776));
    /// assert_eq!(limits.max_bytes(500).get_enclosing(), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn get_enclosing(&self) -> Option<Enclosing> {
        self.enclosing
    }

    /// The scanned-bytes budget, if one is set (see
    /// [`max_scanned_bytes`](Self::max_scanned_bytes)).
    ///
    /// # Example
    ///
    /// ```
    /// let limits = candor::Limits::new().max_scanned_bytes(1 << 20);
    /// assert_eq!(limits.get_max_scanned_bytes(), Some(1 << 20));
    /// ```
    #[must_use]
    pub fn get_max_scanned_bytes(&self) -> Option<u64> {
        self.max_scanned_bytes
    }

    /// The files budget, if one is set (see [`max_files`](Self::max_files)).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::Limits::new().max_files(50).get_max_files(), Some(50));
    /// ```
    #[must_use]
    pub fn get_max_files(&self) -> Option<u64> {
        self.max_files
    }

    /// The deadline, if one is set (see [`deadline`](Self::deadline)).
    ///
    /// # Example
    ///
    /// ```
    /// use std::time::Duration;
    /// let limits = candor::Limits::new().deadline(Duration::from_millis(250));
    /// assert_eq!(limits.get_deadline(), Some(Duration::from_millis(250)));
    /// ```
    #[must_use]
    pub fn get_deadline(&self) -> Option<Duration> {
        self.deadline
    }

    /// The instant the deadline counts from, if set before the query (see
    /// [`deadline_from`](Self::deadline_from)).
    ///
    /// # Example
    ///
    /// ```
    /// let now = std::time::Instant::now();
    /// assert_eq!(candor::Limits::new().deadline_from(now).get_deadline_from(), Some(now));
    /// assert_eq!(candor::Limits::new().get_deadline_from(), None);
    /// ```
    #[must_use]
    pub fn get_deadline_from(&self) -> Option<std::time::Instant> {
        self.started
    }

    /// Whether counting past the limit for an exact total is on (see
    /// [`count_total`](Self::count_total)).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(candor::Limits::new().count_total(true).get_count_total());
    /// assert!(!candor::Limits::new().get_count_total());
    /// ```
    #[must_use]
    pub fn get_count_total(&self) -> bool {
        self.count_total
    }

    /// The budget for counting past the limit, if one is set (see
    /// [`max_counted`](Self::max_counted)).
    ///
    /// # Example
    ///
    /// ```
    /// let limits = candor::Limits::new().count_total(true).max_counted(10_000);
    /// assert_eq!(limits.get_max_counted(), Some(10_000));
    /// ```
    #[must_use]
    pub fn get_max_counted(&self) -> Option<u64> {
        self.max_counted
    }

    /// The clock that measures the deadline (see [`clock`](Self::clock)):
    /// the system's unless set.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Clock, Limits};
    /// let clock = Limits::new().get_clock();
    /// let before = clock.now();
    /// assert!(clock.now() >= before);
    /// ```
    #[must_use]
    pub fn get_clock(&self) -> Arc<dyn Clock> {
        Arc::clone(&self.clock)
    }

    /// The cancellation token, if one is set (see
    /// [`cancel_token`](Self::cancel_token)).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{CancelToken, Limits};
    /// let token = CancelToken::new();
    /// let limits = Limits::new().cancel_token(token.clone());
    /// token.cancel();
    /// assert!(limits.get_cancel_token().is_some_and(CancelToken::is_cancelled));
    /// ```
    #[must_use]
    pub fn get_cancel_token(&self) -> Option<&CancelToken> {
        self.cancel.as_ref()
    }
}
