//! Posting lists.
