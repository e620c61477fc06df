//! The seam between the index and the engine: what a corpus on disk is
//! made of, and all that the index (`index/`, feature `index`) uses of
//! the crate's private items. Everything else it uses is public (`Tree`,
//! `Query`, `Limits`, `Error`, ...) or its own.
//!
//! The index is a corpus like the tree: it yields its files in path
//! order through `Source` and lets the engine search them, so that its
//! answers are the tree's, byte for byte. For that it needs:
//!
//! - **what a corpus implements** (`Source`, `Entry`, `Resolved`): the
//!   runner asks it for its files and hands each to the per-file
//!   searcher;
//! - **the confined root** (`DirHandle` and the `open_*`/`stamp_at`
//!   helpers of `confine.rs`): it opens and stamps files below the tree's
//!   root exactly as the tree's walk does, never through a link;
//! - **the walk's folder job** (`Job`) and **the path helpers**
//!   (`path.rs`): its record of the walk names and orders entries as the
//!   tree writes them;
//! - **the per-file searcher** (`QuerySearch`, `Plan`, `Budgets`,
//!   `search_file`, `no_match`, `FileOutcome`, `PartsScan`) and **the
//!   reader's rules** (`Opened`, `BINARY_PREFIX`, `MAX_LINE`): a file it
//!   reads is read and searched as the tree reads and searches it;
//! - **the matcher** (`Matcher`) and **its syntax tree** (`parse`,
//!   `literals_hir`): the index plans a query's trigrams from the same
//!   syntax tree the matcher compiles.
//!
//! The tree's own settings that the index reads are methods of `Tree`
//! (`tree/index_access.rs`). Nothing here is public; the index imports
//! nothing else of the engine, so a change behind these names is a
//! change of the index's inputs, and shows here.

#[cfg(target_os = "linux")]
pub(crate) use crate::confine::open_file_beneath;
#[cfg(test)]
pub(crate) use crate::confine::open_root;
pub(crate) use crate::confine::{DirHandle, mix, mtime_at, open_dir, open_file, stamp_at};
pub(crate) use crate::engine::searcher::PartsScan;
pub(crate) use crate::engine::{Budgets, FileOutcome, Plan, QuerySearch, no_match, search_file};
pub(crate) use crate::matcher::Matcher;
pub(crate) use crate::matcher::build::{literals_hir, parse};
pub(crate) use crate::path::{
    cmp_paths, is_plain_position, is_position, is_within, os_name, parse_position, push_name,
};
pub(crate) use crate::position::{Order, Position};
pub(crate) use crate::reader::{BINARY_PREFIX, MAX_LINE, Opened};
pub(crate) use crate::source::{Entry, Resolved, Source, walk_order_before};
pub(crate) use crate::walk::Job;

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// The names that follow `crate::` in `code` (each path's first
    /// segment, and each name of a group).
    fn crate_names(code: &str) -> Vec<String> {
        let mut names = Vec::new();
        for (at, _) in code.match_indices("crate::") {
            let rest = &code[at + "crate::".len()..];
            let group = rest
                .strip_prefix('{')
                .map(|g| &g[..g.find('}').unwrap_or(g.len())]);
            let heads: Vec<&str> = match group {
                Some(g) => g.split(',').collect(),
                None => vec![rest],
            };
            for head in heads {
                let head = head.trim_start();
                let end = head
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(head.len());
                if end > 0 {
                    names.push(head[..end].to_owned());
                }
            }
        }
        names
    }

    fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("a folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    /// The index names no module of the crate but its own and this one,
    /// and the crate's root re-exports nothing private: every private
    /// item the index uses is named here.
    #[test]
    fn the_index_reaches_the_engine_only_through_the_seam() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let lib = std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
        assert!(
            !lib.contains("pub(crate) use"),
            "lib.rs re-exports a private item"
        );
        let modules: Vec<&str> = lib
            .lines()
            .filter_map(|l| l.trim().strip_prefix("mod "))
            .map(|m| m.trim_end_matches(';'))
            .collect();
        assert!(
            modules.contains(&"engine") && modules.contains(&"seam"),
            "{modules:?}"
        );
        let mut files = Vec::new();
        rust_files(&src.join("index"), &mut files);
        assert!(files.len() > 10, "the index's sources were found");
        let mut reached = Vec::new();
        for file in &files {
            let code = std::fs::read_to_string(file).expect("a source");
            for name in crate_names(&code) {
                if modules.contains(&name.as_str()) && name != "index" && name != "seam" {
                    reached.push(format!("{} names crate::{name}", file.display()));
                }
            }
        }
        assert!(reached.is_empty(), "{reached:#?}");
    }
}
