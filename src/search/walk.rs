//! The directory walk: depth first, each folder's entries in name order
//! (which is path order), yielding the files to search and the inputs
//! left out on the way.
//!
//! The walk lists each folder once, with `read_dir`, and learns from that
//! listing which ignore files the folder holds, so that it asks the file
//! system nothing more for folders without any. Entries are checked in
//! this order: the resume point and path filters (the query's scope), the
//! globs (also scope, not counted), hidden names and ignore files (policy,
//! counted), then symbolic links (followed only while they stay inside the
//! root, and never into a folder the walk is already in).

use std::ffi::OsString;
use std::fs::{self, FileType};
use std::io;
use std::path::{Path, PathBuf};

use ignore::Match as Verdict;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::overrides::{Override, OverrideBuilder};

use crate::error::Error;
use crate::search::path::{cmp_paths, is_within, may_hold};
use crate::{SkipReason, SkippedInput};

/// What the walk hands on: a file to search, or an input left out.
pub(crate) enum Job {
    File { rel: String, abs: PathBuf },
    Skip(SkippedInput),
}

/// What the walk needs to know of the tree and the query.
pub(crate) struct WalkOptions<'a> {
    pub(crate) root: &'a Path,
    pub(crate) hidden: bool,
    pub(crate) gitignore: bool,
    pub(crate) globs: &'a [String],
    /// Where to resume: entries before this path are passed over.
    pub(crate) start: Option<&'a str>,
    /// Normalized path filters; empty for the whole corpus.
    pub(crate) filters: &'a [String],
}

/// A folder the walk is in.
struct Frame {
    abs: PathBuf,
    /// The path relative to the root, `/`-separated; empty for the root.
    rel: String,
    /// The folder's real path (symbolic links resolved), to tell a link
    /// back into it.
    real: PathBuf,
    /// The rules of its `.gitignore`, `.ignore` (and, at a repository's
    /// root, `.git/info/exclude`), if any.
    rules: Option<Gitignore>,
    /// Its entries not yet visited, in name order.
    entries: std::vec::IntoIter<(OsString, FileType)>,
}

/// The walk, as an iterator of jobs in path order.
pub(crate) struct Walk<'a> {
    options: WalkOptions<'a>,
    overrides: Option<Override>,
    /// The rules above the root: those of the root's folder and its
    /// parents up to the repository's root, innermost first.
    base_rules: Vec<Gitignore>,
    /// The folders being walked, innermost last.
    stack: Vec<Frame>,
    /// A skip found while entering the root, handed on first.
    pending: Option<SkippedInput>,
}

impl<'a> Walk<'a> {
    /// Starts a walk at the root.
    ///
    /// # Errors
    ///
    /// An invalid argument when a glob does not parse.
    pub(crate) fn new(options: WalkOptions<'a>) -> Result<Walk<'a>, Error> {
        let overrides = if options.globs.is_empty() {
            None
        } else {
            let mut builder = OverrideBuilder::new(options.root);
            for glob in options.globs {
                builder.add(glob).map_err(|e| {
                    Error::invalid_argument("globs", format!("bad glob {glob:?}: {e}"))
                })?;
            }
            let built = builder
                .build()
                .map_err(|e| Error::invalid_argument("globs", e.to_string()))?;
            Some(built)
        };
        let base_rules = if options.gitignore {
            rules_above(options.root)
        } else {
            Vec::new()
        };
        let mut walk = Walk {
            options,
            overrides,
            base_rules,
            stack: Vec::new(),
            pending: None,
        };
        let root = walk.options.root.to_path_buf();
        match list(&root) {
            Ok(entries) => walk.stack.push(Frame {
                real: root.clone(),
                abs: root,
                rel: String::new(),
                // The root's own rules are among those above it.
                rules: None,
                entries: entries.into_iter(),
            }),
            Err(e) => walk.pending = Some(unlisted(String::new(), &e)),
        }
        Ok(walk)
    }

    /// Checks one entry of the innermost folder: the job it makes, if any,
    /// and whether the walk descends into it (then it is pushed).
    fn visit(&mut self, name: OsString, file_type: FileType) -> Option<Job> {
        let frame = self.stack.last()?;
        let name_text = name.to_string_lossy();
        let rel = if frame.rel.is_empty() {
            name_text.into_owned()
        } else {
            let mut rel = String::with_capacity(frame.rel.len() + 1 + name_text.len());
            rel.push_str(&frame.rel);
            rel.push('/');
            rel.push_str(&name_text);
            rel
        };
        let mut abs = PathBuf::with_capacity(frame.abs.as_os_str().len() + 1 + name.len());
        abs.push(&frame.abs);
        abs.push(&name);
        let is_link = file_type.is_symlink();
        // A link is taken for what it points to.
        let (is_dir, is_file) = if is_link {
            match fs::metadata(&abs) {
                Ok(m) => (m.is_dir(), m.is_file()),
                Err(e) => {
                    let reason = if e.kind() == io::ErrorKind::NotFound {
                        SkipReason::BrokenLink
                    } else if links_loop(&abs) {
                        SkipReason::SymlinkLoop
                    } else {
                        SkipReason::Unreadable
                    };
                    return Some(Job::Skip(
                        SkippedInput::new(rel, reason).with_detail(e.to_string()),
                    ));
                }
            }
        } else {
            (file_type.is_dir(), file_type.is_file())
        };
        // The query's scope: before the resume point, or outside the path
        // filters, an entry is passed over without a word.
        if let Some(start) = self.options.start {
            if cmp_paths(&rel, start) == std::cmp::Ordering::Less
                && !(is_dir && is_within(start, &rel))
            {
                return None;
            }
        }
        let filters = self.options.filters;
        if is_dir {
            if !may_hold(&rel, filters) {
                return None;
            }
        } else if !filters.is_empty() && !filters.iter().any(|f| is_within(&rel, f)) {
            return None;
        }
        if let Some(overrides) = &self.overrides {
            if overrides.matched(&abs, is_dir).is_ignore() {
                return None;
            }
        }
        // Policy: left out, and counted.
        if !self.options.hidden && name.as_encoded_bytes().starts_with(b".") {
            return Some(Job::Skip(SkippedInput::new(rel, SkipReason::Hidden)));
        }
        if self.options.gitignore && self.is_ignored(&abs, is_dir) {
            return Some(Job::Skip(SkippedInput::new(rel, SkipReason::Ignored)));
        }
        let real = if is_link {
            match self.link_target(&abs) {
                Ok(real) => Some(real),
                Err((reason, detail)) => {
                    let input = SkippedInput::new(rel, reason);
                    return Some(Job::Skip(match detail {
                        Some(detail) => input.with_detail(detail),
                        None => input,
                    }));
                }
            }
        } else {
            None
        };
        if is_dir {
            let frame = self.stack.last()?;
            let real = real.unwrap_or_else(|| frame.real.join(&name));
            // A link back into a folder the walk is in would never end.
            if is_link && self.stack.iter().any(|f| f.real == real) {
                return Some(Job::Skip(SkippedInput::new(rel, SkipReason::SymlinkLoop)));
            }
            let entries = match list(&abs) {
                Ok(entries) => entries,
                Err(e) => return Some(Job::Skip(unlisted(rel, &e))),
            };
            let rules = if self.options.gitignore {
                rules_of(&abs, &entries)
            } else {
                None
            };
            self.stack.push(Frame {
                abs,
                rel,
                real,
                rules,
                entries: entries.into_iter(),
            });
            return None;
        }
        is_file.then_some(Job::File { rel, abs })
    }

    /// Returns true when the entry at `abs` is ignored: the rules of the
    /// nearest folder that has a say decide (a `!` rule there lets it back
    /// in).
    fn is_ignored(&self, abs: &Path, is_dir: bool) -> bool {
        let inner = self.stack.iter().rev().filter_map(|f| f.rules.as_ref());
        for rules in inner.chain(self.base_rules.iter()) {
            match rules.matched(abs, is_dir) {
                Verdict::Ignore(_) => return true,
                Verdict::Whitelist(_) => return false,
                Verdict::None => {}
            }
        }
        false
    }

    /// Where the link at `abs` leads, if it stays inside the root.
    fn link_target(&self, abs: &Path) -> Result<PathBuf, (SkipReason, Option<String>)> {
        match abs.canonicalize() {
            Ok(target) if target.starts_with(self.options.root) => Ok(target),
            Ok(_) => Err((SkipReason::OutsideRoot, None)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Err((SkipReason::BrokenLink, None)),
            Err(e) => Err((SkipReason::SymlinkLoop, Some(e.to_string()))),
        }
    }
}

impl Iterator for Walk<'_> {
    type Item = Job;

    fn next(&mut self) -> Option<Job> {
        if let Some(input) = self.pending.take() {
            return Some(Job::Skip(input));
        }
        loop {
            let frame = self.stack.last_mut()?;
            let Some((name, file_type)) = frame.entries.next() else {
                self.stack.pop();
                continue;
            };
            if let Some(job) = self.visit(name, file_type) {
                return Some(job);
            }
        }
    }
}

/// Returns true when following the link at `abs`, link after link, comes
/// back to one already followed, or goes on further than any system
/// allows: a loop of links, which leads to nothing to search.
fn links_loop(abs: &Path) -> bool {
    let mut followed: Vec<PathBuf> = Vec::new();
    let mut at = abs.to_path_buf();
    for _ in 0..64 {
        if followed.contains(&at) {
            return true;
        }
        let Ok(target) = fs::read_link(&at) else {
            return false;
        };
        // A relative target is relative to the link's folder; joining an
        // absolute one replaces the path.
        let next = at
            .parent()
            .map_or_else(|| target.clone(), |p| p.join(&target));
        followed.push(at);
        at = next;
    }
    true
}

/// A folder's entries, in name order.
fn list(dir: &Path) -> io::Result<Vec<(OsString, FileType)>> {
    let mut entries = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        entries.push((entry.file_name(), entry.file_type()?));
    }
    entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Ok(entries)
}

/// The skip for a folder that could not be listed.
fn unlisted(rel: String, e: &io::Error) -> SkippedInput {
    let reason = if e.kind() == io::ErrorKind::NotFound {
        SkipReason::Vanished
    } else {
        SkipReason::Unreadable
    };
    SkippedInput::new(rel, reason).with_detail(e.to_string())
}

/// The rules of the folders above the walk: the root's and its parents',
/// up to the first that holds a `.git` (the repository's root), or to the
/// top when there is none; innermost first.
fn rules_above(root: &Path) -> Vec<Gitignore> {
    let mut rules = Vec::new();
    for dir in root.ancestors() {
        let is_repo = dir.join(".git").exists();
        let names = [".gitignore", ".ignore"]
            .into_iter()
            .filter(|name| dir.join(name).is_file());
        if let Some(found) = build_rules(dir, is_repo, names) {
            rules.push(found);
        }
        if is_repo {
            break;
        }
    }
    rules
}

/// The rules of a folder the walk enters, from its listing: no file
/// system call at all for a folder without ignore files.
fn rules_of(dir: &Path, entries: &[(OsString, FileType)]) -> Option<Gitignore> {
    let listed = |name: &str| entries.iter().any(|(n, _)| n == name);
    let is_repo = listed(".git");
    let names = [".gitignore", ".ignore"]
        .into_iter()
        .filter(|name| listed(name));
    build_rules(dir, is_repo, names)
}

/// Builds the rules of `dir` from its ignore files named `names` (a later
/// file wins over an earlier one) and, for a repository's root,
/// `.git/info/exclude` first; `None` when there are none.
fn build_rules<'n>(
    dir: &Path,
    is_repo: bool,
    names: impl Iterator<Item = &'n str>,
) -> Option<Gitignore> {
    let mut builder = GitignoreBuilder::new(dir);
    let mut any = false;
    if is_repo {
        let exclude = dir.join(".git").join("info").join("exclude");
        if exclude.is_file() {
            // A bad line is skipped; the rest of the file still applies.
            let _ = builder.add(&exclude);
            any = true;
        }
    }
    for name in names {
        let _ = builder.add(dir.join(name));
        any = true;
    }
    if !any {
        return None;
    }
    builder.build().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(root: &Path) -> WalkOptions<'_> {
        WalkOptions {
            root,
            hidden: false,
            gitignore: true,
            globs: &[],
            start: None,
            filters: &[],
        }
    }

    fn describe(job: &Job) -> String {
        match job {
            Job::File { rel, .. } => rel.clone(),
            Job::Skip(input) => format!("{} ({})", input.path(), input.reason()),
        }
    }

    #[test]
    fn a_folder_removed_before_the_walk_reaches_it_is_counted_as_vanished() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for file in ["a.txt", "b/x.txt", "c.txt"] {
            let path = root.join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, "x\n").unwrap();
        }
        let mut walk = Walk::new(options(&root)).unwrap();
        // Folders are listed when the walk reaches them, not before.
        assert_eq!(walk.next().map(|j| describe(&j)).as_deref(), Some("a.txt"));
        fs::remove_dir_all(root.join("b")).unwrap();
        let rest: Vec<String> = walk.map(|j| describe(&j)).collect();
        assert_eq!(rest, ["b (vanished)", "c.txt"]);
    }

    #[test]
    fn files_and_folders_interleave_in_name_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for file in ["b.txt", "a/z.txt", "a/b/c.txt", "a.txt", "_/x", ".h/y"] {
            let path = root.join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, "x\n").unwrap();
        }
        let walk = Walk::new(options(&root)).unwrap();
        let jobs: Vec<String> = walk.map(|j| describe(&j)).collect();
        assert_eq!(
            jobs,
            [
                ".h (hidden)",
                "_/x",
                "a/b/c.txt",
                "a/z.txt",
                "a.txt",
                "b.txt"
            ]
        );
    }
}
