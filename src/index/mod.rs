//! The index: trigram posting lists of a tree's files, and query plans
//! that read them to narrow which files a search reads.

pub(crate) mod grams;
pub(crate) mod plan;
