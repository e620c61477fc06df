//! Paging, in one place: walking `next_cursor` gives the whole answer
//! exactly once, every page discloses where it starts and what it left
//! out, and a cursor that no longer fits its query or corpus is refused.
//!
//! - `contract.rs`: pages under tight byte budgets, and the disclosure's
//!   rules as `Bounded::from_parts` and the decoder apply them;
//! - `corpora.rs`: pages and cursors on every corpus (excerpt and
//!   `find_in_file` pages, cursors bound to their query and corpus, the
//!   item limit);
//! - `index.rs`: an `Index` paged while its tree changes;
//! - `grep_index.rs`: the grep example with `--index`, paged with
//!   `--cursor` while the tree is edited.

mod contract;
mod corpora;
#[cfg(feature = "index")]
mod grep_index;
#[cfg(feature = "index")]
mod index;
