//! A server's paging policy: the ceilings a client's paging arguments are
//! held to, and the defaults when it gives none.

/// A server's paging policy: the largest `limit` and `max_bytes` a client
/// may ask for, the limit and byte budget when it gives none, and how far
/// `count_total` may count.
///
/// # Example
///
/// ```
/// use candor_mcp::{PageArgs, Policy, json_budget};
/// let policy = Policy::new().ceiling(500).default_limit(50).default_max_bytes(32 * 1024);
/// let limits = PageArgs::default().limits(&policy);
/// assert_eq!(limits.applied_limit().limit(), Some(50));
/// assert_eq!(limits.applied_limit().requested(), None);
/// assert_eq!(PageArgs::default().budget(&policy), 32 * 1024);
/// assert_eq!(limits.get_max_bytes(), Some(json_budget(32 * 1024)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    pub(super) ceiling: usize,
    pub(super) default_limit: usize,
    pub(super) default_max_bytes: usize,
    pub(super) max_bytes_ceiling: usize,
    pub(super) max_counted: Option<u64>,
}

impl Default for Policy {
    fn default() -> Self {
        Policy::new()
    }
}

impl Policy {
    /// Ceiling 1000, default limit 100, default budget 64 KiB, budget
    /// ceiling 1 MiB, counting unbounded (but for the query's own
    /// budgets and deadline).
    ///
    /// # Example
    ///
    /// ```
    /// let limits = candor_mcp::PageArgs::default().limits(&candor_mcp::Policy::new());
    /// assert_eq!(limits.applied_limit().limit(), Some(100));
    /// assert_eq!(limits.applied_limit().requested(), None);
    /// assert_eq!(limits.get_max_counted(), None);
    /// ```
    #[must_use]
    pub fn new() -> Policy {
        Policy {
            ceiling: 1000,
            default_limit: 100,
            default_max_bytes: 64 * 1024,
            max_bytes_ceiling: 1 << 20,
            max_counted: None,
        }
    }

    /// The largest `limit` a client may ask for; a larger one is clamped
    /// and the result says so. Default: 1000.
    ///
    /// # Example
    ///
    /// ```
    /// use candor_mcp::{PageArgs, Policy};
    /// let args = PageArgs { limit: Some(10_000), ..PageArgs::default() };
    /// assert_eq!(args.limits(&Policy::new().ceiling(200)).applied_limit().limit(), Some(200));
    /// assert_eq!(args.limits(&Policy::new().ceiling(200)).applied_limit().requested(), Some(10_000));
    /// ```
    #[must_use]
    pub fn ceiling(mut self, ceiling: usize) -> Policy {
        self.ceiling = ceiling;
        self
    }

    /// The limit when the client gives none (never above the ceiling, so
    /// that no clamp is disclosed that the client did not ask for).
    /// Default: 100.
    ///
    /// # Example
    ///
    /// ```
    /// use candor_mcp::{PageArgs, Policy};
    /// let limits = PageArgs::default().limits(&Policy::new().ceiling(20).default_limit(50));
    /// assert_eq!(limits.applied_limit().limit(), Some(20));
    /// assert_eq!(limits.applied_limit().requested(), None);
    /// ```
    #[must_use]
    pub fn default_limit(mut self, limit: usize) -> Policy {
        self.default_limit = limit;
        self
    }

    /// The byte budget of a whole tool result when the client gives none
    /// (never above [`max_bytes_ceiling`](Self::max_bytes_ceiling)).
    /// Default: 64 KiB.
    ///
    /// # Example
    ///
    /// ```
    /// use candor_mcp::{PageArgs, Policy};
    /// assert_eq!(PageArgs::default().budget(&Policy::new().default_max_bytes(4096)), 4096);
    /// ```
    #[must_use]
    pub fn default_max_bytes(mut self, max_bytes: usize) -> Policy {
        self.default_max_bytes = max_bytes;
        self
    }

    /// The largest byte budget of a whole tool result a client may ask
    /// for: a larger `max_bytes` is lowered to it (the tool's
    /// `inputSchema` says so), which protects the transport and the
    /// reader's context. Default: 1 MiB.
    ///
    /// # Example
    ///
    /// ```
    /// use candor_mcp::{PageArgs, Policy};
    /// let args = PageArgs { max_bytes: Some(1 << 30), ..PageArgs::default() };
    /// assert_eq!(args.budget(&Policy::new().max_bytes_ceiling(100_000)), 100_000);
    /// ```
    #[must_use]
    pub fn max_bytes_ceiling(mut self, max_bytes: usize) -> Policy {
        self.max_bytes_ceiling = max_bytes;
        self
    }

    /// The most items `count_total` counts in all
    /// ([`Limits::max_counted`](candor::Limits::max_counted)); past it the
    /// total stays a lower bound. Default: no bound of its own (counting
    /// still stops at the query's deadline and scan budgets).
    ///
    /// # Example
    ///
    /// ```
    /// use candor_mcp::{PageArgs, Policy};
    /// let args = PageArgs { limit: Some(10), count_total: true, ..PageArgs::default() };
    /// let b = candor::Bounded::collect(0..1000u32, &args.limits(&Policy::new().max_counted(100)))?;
    /// assert_eq!(b.total(), candor::Total::AtLeast(100));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn max_counted(mut self, max_counted: u64) -> Policy {
        self.max_counted = Some(max_counted);
        self
    }

    /// The limit when the client gives none.
    pub(super) fn limit_by_default(&self) -> usize {
        // A default above a low ceiling would disclose a clamp the client
        // never asked for.
        self.default_limit.min(self.ceiling)
    }

    /// The byte budget when the client gives none.
    pub(super) fn max_bytes_by_default(&self) -> usize {
        self.default_max_bytes.min(self.max_bytes_ceiling)
    }
}
