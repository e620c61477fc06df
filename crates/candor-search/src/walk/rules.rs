//! Ignore rules: a folder's `.gitignore` and `.ignore` (and, at a
//! repository's root, `.git/info/exclude`), each read through the
//! folder's handle, never through a link, only when regular and within a
//! size cap; those of the folders above the root, read as git does; and
//! the verdict, which the nearest folder with a say gives (a `!` rule lets
//! an entry in, a hidden one too).

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use ignore::Match as Verdict;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::confine::{self, DirHandle, Kind};

/// What the ignore files say of an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Say {
    /// A rule leaves it out.
    Ignored,
    /// A `!` rule lets it in: it is searched even if hidden, as in
    /// ripgrep.
    LetIn,
    /// No rule names it.
    Nothing,
}

/// What one folder's `rules` say of the entry at `path` (below that
/// folder for the rules of a folder inside the root, which are built
/// with `.` as their root; from the file system's root for those above
/// it): `None` when they have no say. The walk asks the innermost
/// folder's first: the nearest folder that has a say decides (a `!` rule
/// there lets it back in).
pub(super) fn say(rules: &Gitignore, path: &Path, is_dir: bool) -> Option<Say> {
    match rules.matched(path, is_dir) {
        Verdict::Ignore(_) => Some(Say::Ignored),
        Verdict::Whitelist(_) => Some(Say::LetIn),
        Verdict::None => None,
    }
}

/// The rules of a folder above the root, and the root's path below that
/// folder: they match an entry's path below the root put after it.
pub(super) struct Above {
    pub(super) rules: Gitignore,
    pub(super) root_below: PathBuf,
}

/// The rules of the folders above the root: its parents', up to the
/// first that holds a `.git` (the repository's root), or to the top when
/// there is none; innermost first. Their ignore files are outside the
/// root, and read as the ones inside are: through the folder's handle,
/// never through a link, only when regular, and within a size cap.
pub(super) fn rules_above(root: &Path) -> Vec<Above> {
    let mut rules = Vec::new();
    for dir in root.ancestors().skip(1) {
        let Ok(handle) = confine::open_root(dir) else {
            break;
        };
        let is_repo = confine::kind_at(&handle, OsStr::new(".git")).is_ok();
        let names = [".gitignore", ".ignore"].into_iter();
        let root_below = root.strip_prefix(dir).unwrap_or(root).to_path_buf();
        if let Some(found) = build_rules(&handle, Path::new("."), is_repo, names) {
            rules.push(Above {
                rules: found,
                root_below,
            });
        }
        if is_repo {
            break;
        }
    }
    rules
}

/// The rules of a folder the walk enters, from its listing: no file
/// system call at all for a folder without ignore files. Their root is
/// `.`: they match the paths below the folder (see `raw.rs`).
pub(super) fn rules_of(dir: &DirHandle, entries: &[(OsString, Kind)]) -> Option<Gitignore> {
    let listed = |name: &str| entries.iter().any(|(n, _)| n == name);
    let is_repo = listed(".git");
    let names = [".gitignore", ".ignore"]
        .into_iter()
        .filter(|name| listed(name));
    build_rules(dir, Path::new("."), is_repo, names)
}

/// Builds the rules of the folder `dir` from its ignore files named
/// `names` (a later file wins over an earlier one) and, for a
/// repository's root, `.git/info/exclude` first, with `root` as the path
/// they match paths below; `None` when there are none, or when they hold
/// no rule (nothing to ask then). Each file is read through `dir`'s
/// handle, without following a link, only when regular and no larger
/// than `confine::MAX_IGNORE_FILE`.
fn build_rules<'n>(
    dir: &DirHandle,
    root: &Path,
    is_repo: bool,
    names: impl Iterator<Item = &'n str>,
) -> Option<Gitignore> {
    let mut builder = GitignoreBuilder::new(root);
    let mut any = false;
    if is_repo {
        let exclude = confine::open_dir(dir, OsStr::new(".git"))
            .and_then(|git| confine::open_dir(&git, OsStr::new("info")))
            .ok()
            .and_then(|info| confine::read_small(&info, OsStr::new("exclude")));
        if let Some(bytes) = exclude {
            add_lines(&mut builder, &root.join(".git/info/exclude"), &bytes);
            any = true;
        }
    }
    for name in names {
        if let Some(bytes) = confine::read_small(dir, OsStr::new(name)) {
            add_lines(&mut builder, &root.join(name), &bytes);
            any = true;
        }
    }
    if !any {
        return None;
    }
    builder.build().ok().filter(|rules| !rules.is_empty())
}

/// Adds an ignore file's lines; a bad line is skipped, the rest applies.
fn add_lines(builder: &mut GitignoreBuilder, from: &Path, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    for (i, line) in text.lines().enumerate() {
        let line = if i == 0 {
            line.trim_start_matches('\u{feff}')
        } else {
            line
        };
        let _ = builder.add_line(Some(from.to_path_buf()), line);
    }
}
