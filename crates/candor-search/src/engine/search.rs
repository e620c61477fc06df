//! One query's search, as every thread that searches for it sees it: the
//! plan (what to match, fixed), the budgets (the one control of
//! stopping), and the emptied buffers passed from file to file.

use crate::engine::budgets::Budgets;
use crate::engine::plan::Plan;
use crate::engine::spares::Spares;

/// One query's search, shared by every searching thread.
pub(crate) struct QuerySearch<'a> {
    pub(crate) plan: Plan<'a>,
    pub(crate) budgets: Budgets,
    pub(crate) spares: Spares,
}
