//! The directory walk: depth first, each folder's entries in name order
//! (which is path order), yielding the files to search and the inputs
//! left out on the way.
//!
//! The walk holds a handle of each folder it is in (see `confine.rs`),
//! lists the folder through it once, and hands each file on as its
//! folder's handle and its name, so that the file is opened relative to
//! the folder the walk listed, never by a path that a concurrent swap
//! could redirect. The listing also tells which ignore files a folder
//! holds, so the walk asks the file system nothing more for folders
//! without any. Entries are checked in this order: the resume point and
//! path filters (the query's scope), the globs (also scope, not counted),
//! hidden names and ignore files (policy, counted; not for a path the
//! caller named; a hidden name that an ignore file lets in with a `!` rule
//! is not left out, as in ripgrep), FIFOs, sockets and devices (never opened, counted),
//! then symbolic links (counted and not followed, unless the tree follows
//! them; then only while they stay inside the root, and never into a
//! folder the walk is already in).
//!
//! A path the caller names that the walk cannot reach is counted where it
//! would have been met (`named.rs`).
//!
//! **The depth limit**, as ripgrep's `--max-depth`: depth counts from each
//! path the caller names (a named path is depth 0), or from the root when
//! none is named; files down to the limit are searched, and a folder at
//! the limit is not entered, and counted once as `max_depth`. The folders
//! on the way to a named path are entered whatever their depth (one at
//! or past the limit only on the way: it is counted, once, at the limit,
//! and nothing else below it is walked).
//!
//! The query's scope is `scope.rs`, the ignore rules are `rules.rs`, the
//! paths named that the walk cannot reach are `named.rs`, and the bound
//! on the folder handles held is `handles.rs`.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ignore::gitignore::Gitignore;

use crate::Error;
use crate::confine::{self, DirHandle, Identity, Kind, Unresolved};
use crate::path::push_name;
use crate::{SkipReason, SkippedInput};

mod handles;
#[cfg(test)]
pub(crate) use handles::MAX_HANDLES;
mod named;
mod raw;
mod rules;
mod scope;

use raw::{Mark, RawPath};
use rules::{Above, Say, rules_above, rules_of};
use scope::QueryScope;

/// What the walk hands on: a file to search (its folder's handle and its
/// name there), or an input left out.
pub(crate) enum Job {
    File {
        rel: String,
        dir: Arc<DirHandle>,
        name: OsString,
    },
    Skip(SkippedInput),
}

/// What the walk needs to know of the tree and the query.
pub(crate) struct WalkOptions<'a> {
    /// The root's absolute path (symbolic links resolved).
    pub(crate) root: &'a Path,
    /// The root's handle.
    pub(crate) root_dir: &'a Arc<DirHandle>,
    pub(crate) hidden: bool,
    pub(crate) gitignore: bool,
    /// Reads the ignore files of the folders above the root.
    pub(crate) parent_ignores: bool,
    pub(crate) follow_links: bool,
    pub(crate) globs: &'a [String],
    /// Where to resume, as the names (bytes) from the root of the input
    /// to begin with: inputs before it, in walk order, are passed over.
    /// The walk's scope takes it.
    pub(crate) start: Option<Vec<Vec<u8>>>,
    /// Normalized path filters; empty for the whole corpus.
    pub(crate) filters: &'a [String],
    /// The depth limit: files this many folders below the paths named (or
    /// the root) are searched, folders there are not entered.
    pub(crate) max_depth: Option<usize>,
    /// The depth counts from the root, whatever the filters: they are not
    /// paths the caller named, only where to walk (an index walking a
    /// folder again).
    pub(crate) depth_from_root: bool,
}

/// How deep an entry is, for the depth limit.
#[derive(Clone, Copy)]
struct Depth {
    /// Folders below the path named that holds it (or the root); `None`
    /// when none holds it.
    level: Option<usize>,
    /// It holds a path named, and is not one.
    on_the_way: bool,
    /// The walk resumes inside it.
    resumed_inside: bool,
}

/// A folder the walk is in.
struct Frame {
    /// Its handle; `None` once closed to bound the handles held.
    dir: Option<Arc<DirHandle>>,
    /// Its name in its parent folder; empty for the root.
    name: OsString,
    /// Entered through a followed link, or the root: its handle is kept
    /// and not counted in `Walk::open` (a link's name does not lead to
    /// its folder without following the link).
    via_link: bool,
    /// Where its path ends in the walk's path (see `raw.rs`).
    mark: Mark,
    /// The path relative to the root, `/`-separated; empty for the root.
    rel: String,
    /// Its device and inode, to tell a link back into it (only when links
    /// are followed).
    id: Option<Identity>,
    /// The rules of its `.gitignore`, `.ignore` (and, at a repository's
    /// root, `.git/info/exclude`), if any.
    rules: Option<Gitignore>,
    /// Its entries not yet visited, in name order.
    entries: std::vec::IntoIter<(OsString, Kind)>,
    /// The paths the caller names below it that its listing shows no way
    /// to, each with the name missing here, in walk order.
    missing: VecDeque<(Vec<u8>, String)>,
    /// Its path is a prefix of the resume point's: its entries before
    /// the resume point's are passed over.
    on_start_path: bool,
    /// How many folders below the path named that holds it (or the root)
    /// it is; `None` when no such path holds it (a folder on the way to
    /// one).
    level: Option<usize>,
}

/// The walk, as an iterator of jobs in path order.
pub(crate) struct Walk<'a> {
    options: WalkOptions<'a>,
    /// The resume point, the path filters and the globs.
    scope: QueryScope<'a>,
    /// The rules above the root: those of the root's parents up to the
    /// repository's root, innermost first.
    base_rules: Vec<Above>,
    /// An entry's path below a folder above the root, for its rules.
    above_path: PathBuf,
    /// The path of the entry being visited, below the root, for the
    /// ignore rules of the folders on its way.
    raw: RawPath,
    /// The folders being walked, innermost last.
    stack: Vec<Frame>,
    /// How many frames hold a handle that may be closed.
    open: usize,
    /// Skips found on the way (entering the root; the paths the caller
    /// names below an entry that is no folder), handed on next.
    pending: VecDeque<SkippedInput>,
    /// The listing buffer, reused from folder to folder.
    buffer: Vec<std::mem::MaybeUninit<u8>>,
    /// The folders entered since last asked, when recorded (an index
    /// keeps each folder's stamp, to tell later whether its entries
    /// changed).
    entered: Option<Vec<Entered>>,
}

/// A folder the walk entered: its path, its handle, and whether it was
/// reached through a followed link.
#[cfg_attr(not(feature = "index"), allow(dead_code))]
pub(crate) struct Entered {
    pub(crate) rel: String,
    pub(crate) dir: Arc<DirHandle>,
    pub(crate) via_link: bool,
}

impl<'a> Walk<'a> {
    /// Starts a walk at the root.
    ///
    /// # Errors
    ///
    /// An invalid argument when a glob does not parse.
    pub(crate) fn new(mut options: WalkOptions<'a>) -> Result<Walk<'a>, Error> {
        let scope = QueryScope::new(options.globs, options.start.take(), options.filters)?;
        let mut walk = Walk {
            scope,
            base_rules: Vec::new(),
            above_path: PathBuf::new(),
            raw: RawPath::default(),
            stack: Vec::new(),
            open: 0,
            pending: VecDeque::new(),
            buffer: Vec::new(),
            entered: None,
            options,
        };
        // A handle of its own: listing moves a handle's position, and the
        // tree's handle is shared by every search and clone.
        let level = (walk.options.filters.is_empty() || walk.options.depth_from_root).then_some(0);
        if level.is_some() && walk.options.max_depth == Some(0) {
            // The root is the folder at the limit: not entered.
            let input = SkippedInput::new(String::new(), SkipReason::MaxDepth);
            walk.pending.push_back(input);
            return Ok(walk);
        }
        let listed = confine::open_dir(walk.options.root_dir, OsStr::new("."))
            .and_then(|root_dir| Ok((sorted(&root_dir, &mut walk.buffer)?, root_dir)));
        match listed {
            Ok((entries, root_dir)) => {
                let root_dir = Arc::new(root_dir);
                let is_repo = entries.iter().any(|(n, _)| n == ".git");
                if walk.options.gitignore && walk.options.parent_ignores && !is_repo {
                    walk.base_rules = rules_above(walk.options.root);
                }
                let rules = if walk.options.gitignore {
                    rules_of(&root_dir, &entries)
                } else {
                    None
                };
                let id = if walk.options.follow_links {
                    confine::identity(&root_dir).ok()
                } else {
                    None
                };
                let missing = walk.missing_in("", 0, &entries);
                walk.stack.push(Frame {
                    dir: Some(root_dir),
                    name: OsString::new(),
                    via_link: true,
                    mark: Mark::ROOT,
                    rel: String::new(),
                    id,
                    rules,
                    entries: entries.into_iter(),
                    missing,
                    on_start_path: walk.scope.resumes(),
                    level,
                });
            }
            Err(e) => walk.pending.push_back(unlisted(String::new(), &e)),
        }
        Ok(walk)
    }

    /// Enters a folder: lists it through `dir` and pushes it.
    #[allow(clippy::too_many_arguments)]
    fn enter(
        &mut self,
        dir: Arc<DirHandle>,
        name: OsString,
        rel: String,
        via_link: bool,
        on_start_path: bool,
        level: Option<usize>,
    ) -> Option<Job> {
        let id = if self.options.follow_links {
            match confine::identity(&dir) {
                Ok(id) => {
                    // A link back into a folder the walk is in would never end.
                    if via_link && self.stack.iter().any(|f| f.id == Some(id)) {
                        return Some(Job::Skip(SkippedInput::new(rel, SkipReason::SymlinkLoop)));
                    }
                    Some(id)
                }
                Err(e) => return Some(Job::Skip(unlisted(rel, &e))),
            }
        } else {
            None
        };
        let entries = match sorted(&dir, &mut self.buffer) {
            Ok(entries) => entries,
            Err(e) => return Some(Job::Skip(unlisted(rel, &e))),
        };
        let rules = if self.options.gitignore {
            rules_of(&dir, &entries)
        } else {
            None
        };
        let missing = self.missing_in(&rel, self.stack.len(), &entries);
        // The walk's path is this folder's (see `visit`).
        let mark = self.raw.mark();
        self.stack.push(Frame {
            dir: Some(dir),
            name,
            via_link,
            mark,
            rel,
            id,
            rules,
            entries: entries.into_iter(),
            missing,
            on_start_path,
            level,
        });
        if let Some(entered) = &mut self.entered {
            if let Some(Frame {
                dir: Some(dir),
                rel,
                ..
            }) = self.stack.last()
            {
                entered.push(Entered {
                    rel: rel.clone(),
                    dir: Arc::clone(dir),
                    via_link,
                });
            }
        }
        if !via_link {
            self.open += 1;
            self.close_extra();
        }
        None
    }

    /// Records the folders the walk enters from now on (and the root, if
    /// it was listed), for [`take_entered`](Self::take_entered).
    #[cfg_attr(not(feature = "index"), allow(dead_code))]
    pub(crate) fn recording(mut self) -> Self {
        let mut entered = Vec::new();
        if let Some(Frame { dir: Some(dir), .. }) = self.stack.first() {
            entered.push(Entered {
                rel: String::new(),
                dir: Arc::clone(dir),
                via_link: false,
            });
        }
        self.entered = Some(entered);
        self
    }

    /// The folders entered since last asked, in walk order: each before
    /// the jobs within it.
    #[cfg_attr(not(feature = "index"), allow(dead_code))]
    pub(crate) fn take_entered(&mut self) -> Vec<Entered> {
        self.entered
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Checks one entry of the innermost folder: the job it makes, if any,
    /// and whether the walk descends into it (then it is pushed).
    fn visit(&mut self, name: OsString, kind: Kind) -> Option<Job> {
        let frame = self.stack.last()?;
        let mut rel = String::with_capacity(frame.rel.len() + 1 + name.len());
        if !frame.rel.is_empty() {
            rel.push_str(&frame.rel);
            rel.push('/');
        }
        push_name(name.as_encoded_bytes(), &mut rel);
        self.raw.set(frame.mark, &name);
        let is_dir = kind == Kind::Dir;
        let parent_level = frame.level;
        // A link the walk follows may lead to a folder.
        let may_be_dir = is_dir || (kind == Kind::Link && self.options.follow_links);
        // The query's scope: before the resume point, or outside the path
        // filters or the globs, an entry is passed over without a word.
        let depth = self.stack.len() - 1;
        let on_start_path =
            self.scope
                .after_start(depth, &name, frame.on_start_path, may_be_dir)?;
        if !may_be_dir {
            self.unreachable_below(&rel, kind);
        }
        if !self
            .scope
            .admits(&rel, &self.raw.below(Mark::ROOT), is_dir, may_be_dir)
        {
            return None;
        }
        // A path the caller names, and the folders on the way to it, are
        // searched whatever the hidden and ignore rules say.
        let named = self.scope.names(&rel);
        // The depth limit: past it, only the way to a path named is
        // walked, without a word (the folder at the limit was counted).
        let level = if !self.options.depth_from_root && self.scope.is_named(&rel) {
            Some(0)
        } else {
            parent_level.map(|d| d + 1)
        };
        let on_the_way = named && !self.scope.is_named(&rel);
        if let (Some(max), Some(d)) = (self.options.max_depth, level) {
            if d > max && !on_the_way {
                return None;
            }
        }
        let deep = Depth {
            level,
            on_the_way,
            resumed_inside: on_start_path,
        };
        // Policy: left out, and counted. A hidden entry that an ignore
        // file lets in by name (a `!` rule) is searched, as in ripgrep.
        if !named {
            let say = if self.options.gitignore {
                self.verdict(is_dir)
            } else {
                Say::Nothing
            };
            let hidden = !self.options.hidden && name.as_encoded_bytes().starts_with(b".");
            if hidden && say != Say::LetIn {
                return Some(Job::Skip(SkippedInput::new(rel, SkipReason::Hidden)));
            }
            if say == Say::Ignored {
                return Some(Job::Skip(SkippedInput::new(rel, SkipReason::Ignored)));
            }
        }
        let dir = match self.top_handle() {
            Ok(dir) => dir,
            Err(e) => {
                // The folder changed under the walk: the rest of it is
                // left out, and counted once.
                let frame = self.stack.last_mut()?;
                frame.entries = Vec::new().into_iter();
                let input = SkippedInput::new(frame.rel.clone(), SkipReason::Changed);
                return Some(Job::Skip(input.with_detail(e.to_string())));
            }
        };
        match kind {
            Kind::Special => Some(Job::Skip(SkippedInput::new(rel, SkipReason::Special))),
            Kind::File => Some(Job::File { rel, dir, name }),
            Kind::Dir => {
                if let Some(job) = self.at_the_limit(&rel, deep) {
                    return job;
                }
                match confine::open_dir(&dir, &name) {
                    Ok(handle) => self.enter(
                        Arc::new(handle),
                        name,
                        rel,
                        false,
                        on_start_path,
                        deep.level,
                    ),
                    Err(e) => Some(Job::Skip(changed_or_unlisted(rel, &e))),
                }
            }
            Kind::Link if !self.options.follow_links => {
                Some(Job::Skip(SkippedInput::new(rel, SkipReason::Symlink)))
            }
            Kind::Link => self.follow(name, rel, on_start_path, deep),
        }
    }

    /// A folder at `rel`, as deep as `deep` says, about to be entered:
    /// `Some(job)` when the depth limit keeps it out (its skip, counted
    /// once), `None` when it is entered; one on the way to a path named
    /// is entered, and counted first when it is at the limit (unless the
    /// walk resumes inside it: an earlier page counted it).
    fn at_the_limit(&mut self, rel: &str, deep: Depth) -> Option<Option<Job>> {
        let (Some(max), Some(d)) = (self.options.max_depth, deep.level) else {
            return None;
        };
        if d < max {
            return None;
        }
        let skip = || SkippedInput::new(rel, SkipReason::MaxDepth);
        if !deep.on_the_way {
            return Some(Some(Job::Skip(skip())));
        }
        if d == max && !deep.resumed_inside {
            self.pending.push_back(skip());
        }
        None
    }

    /// Follows the link `name` of the innermost folder, within the root.
    fn follow(
        &mut self,
        name: OsString,
        rel: String,
        on_start_path: bool,
        deep: Depth,
    ) -> Option<Job> {
        let mut components: Vec<OsString> =
            self.stack[1..].iter().map(|f| f.name.clone()).collect();
        components.push(name.clone());
        let root_dir = Arc::clone(self.options.root_dir);
        let skip = |reason: SkipReason, detail: Option<String>| {
            let input = SkippedInput::new(rel.clone(), reason);
            Some(Job::Skip(match detail {
                Some(detail) => input.with_detail(detail),
                None => input,
            }))
        };
        let target = match confine::resolve(&root_dir, self.options.root, components, true) {
            Ok(target) => target,
            Err(Unresolved::Outside) => return skip(SkipReason::OutsideRoot, None),
            Err(Unresolved::Loop) => return skip(SkipReason::SymlinkLoop, None),
            Err(Unresolved::Missing(e)) if e.kind() == io::ErrorKind::NotFound => {
                return skip(SkipReason::BrokenLink, Some(e.to_string()));
            }
            Err(Unresolved::Missing(e)) => {
                return skip(SkipReason::Unreadable, Some(e.to_string()));
            }
            Err(Unresolved::Link) => return skip(SkipReason::Symlink, None),
        };
        if target.kind == Kind::Dir {
            if let Some(job) = self.at_the_limit(&rel, deep) {
                return job;
            }
        }
        match (target.kind, target.name) {
            (Kind::File, Some(file)) => Some(Job::File {
                rel,
                dir: Arc::new(target.parent),
                name: file,
            }),
            (Kind::Dir, None) => self.enter(
                Arc::new(target.parent),
                name,
                rel,
                true,
                on_start_path,
                deep.level,
            ),
            (Kind::Dir, Some(dir)) => match confine::open_dir(&target.parent, &dir) {
                Ok(handle) => {
                    self.enter(Arc::new(handle), name, rel, true, on_start_path, deep.level)
                }
                Err(e) => skip(SkipReason::Changed, Some(e.to_string())),
            },
            _ => skip(SkipReason::Special, None),
        }
    }

    /// What the ignore files of the folders the walk is in, or of those
    /// above the root, say of the entry the walk's path names: each
    /// folder's rules match the part of it below that folder.
    fn verdict(&mut self, is_dir: bool) -> Say {
        for frame in self.stack.iter().rev() {
            if let Some(rules) = &frame.rules {
                if let Some(say) = rules::say(rules, &self.raw.below(frame.mark), is_dir) {
                    return say;
                }
            }
        }
        let below_root = self.raw.below(Mark::ROOT);
        for above in &self.base_rules {
            self.above_path.clear();
            self.above_path.push(&above.root_below);
            self.above_path.push(&below_root);
            if let Some(say) = rules::say(&above.rules, &self.above_path, is_dir) {
                return say;
            }
        }
        Say::Nothing
    }
}

impl Iterator for Walk<'_> {
    type Item = Job;

    fn next(&mut self) -> Option<Job> {
        loop {
            if let Some(input) = self.pending.pop_front() {
                return Some(Job::Skip(input));
            }
            match self.next_missing() {
                Some(Some(job)) => return Some(job),
                Some(None) => continue,
                None => {}
            }
            let frame = self.stack.last_mut()?;
            let Some((name, kind)) = frame.entries.next() else {
                if let Some(frame) = self.stack.pop() {
                    if frame.dir.is_some() && !frame.via_link {
                        self.open -= 1;
                    }
                }
                continue;
            };
            if let Some(job) = self.visit(name, kind) {
                return Some(job);
            }
        }
    }
}

/// A folder's entries, in name order.
fn sorted(
    dir: &DirHandle,
    buffer: &mut Vec<std::mem::MaybeUninit<u8>>,
) -> io::Result<Vec<(OsString, Kind)>> {
    // Most names differ in their first eight bytes: compared as one
    // number, they are sorted with few calls to compare bytes, which took
    // a fortieth of a search's time. The number is taken again at each
    // comparison rather than kept beside each name: keeping it took two
    // more allocations per folder, one of them a copy of the list.
    let mut entries = confine::list(dir, buffer)?;
    entries.sort_unstable_by(|a, b| {
        let (a, b) = (a.0.as_encoded_bytes(), b.0.as_encoded_bytes());
        prefix(a).cmp(&prefix(b)).then_with(|| a.cmp(b))
    });
    Ok(entries)
}

/// A name's first eight bytes as a number that sorts as they do (a
/// shorter name padded with zeros, which no name holds, sorts first).
fn prefix(name: &[u8]) -> u64 {
    let mut bytes = [0u8; 8];
    let n = name.len().min(8);
    bytes[..n].copy_from_slice(&name[..n]);
    u64::from_be_bytes(bytes)
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

/// The skip for a folder that could not be opened: replaced by a link or
/// a file since it was listed, gone, or unreadable.
fn changed_or_unlisted(rel: String, e: &io::Error) -> SkippedInput {
    if confine::is_swapped(e) {
        SkippedInput::new(rel, SkipReason::Changed).with_detail(e.to_string())
    } else {
        unlisted(rel, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn options<'a>(root: &'a Path, root_dir: &'a Arc<DirHandle>) -> WalkOptions<'a> {
        WalkOptions {
            root,
            root_dir,
            hidden: false,
            gitignore: true,
            parent_ignores: true,
            follow_links: false,
            globs: &[],
            start: None,
            filters: &[],
            max_depth: None,
            depth_from_root: false,
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
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x\n").unwrap();
        }
        let handle = Arc::new(confine::open_root(&root).unwrap());
        let mut walk = Walk::new(options(&root, &handle)).unwrap();
        // Folders are listed when the walk reaches them, not before.
        assert_eq!(walk.next().map(|j| describe(&j)).as_deref(), Some("a.txt"));
        std::fs::remove_dir_all(root.join("b")).unwrap();
        let rest: Vec<String> = walk.map(|j| describe(&j)).collect();
        assert_eq!(rest, ["b (vanished)", "c.txt"]);
    }

    /// The walk of `root` as the `ignore` crate documents its rules: each
    /// folder's built with the folder's absolute path as their root and
    /// asked with an entry's absolute path, the nearest folder with a say
    /// deciding, then those of the folders above the root up to the
    /// repository's; a hidden name left out unless a rule lets it in; in
    /// name order. Each file's path below the root, or a skip as
    /// `describe` writes it.
    fn naive_walk(root: &Path) -> Vec<String> {
        use ignore::Match;
        use ignore::gitignore::{Gitignore, GitignoreBuilder};

        fn rules_of(dir: &Path) -> Option<Gitignore> {
            let mut builder = GitignoreBuilder::new(dir);
            let mut any = false;
            let exclude = dir.join(".git/info/exclude");
            for file in [exclude, dir.join(".gitignore"), dir.join(".ignore")] {
                if file.is_file() {
                    any = true;
                    let _ = builder.add(file);
                }
            }
            any.then(|| builder.build().unwrap())
        }

        fn walk(dir: &Path, rel: &str, stack: &mut Vec<Gitignore>, out: &mut Vec<String>) {
            let pushed = match rules_of(dir) {
                Some(rules) => {
                    stack.push(rules);
                    true
                }
                None => false,
            };
            let mut names: Vec<OsString> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            names.sort();
            for name in names {
                let abs = dir.join(&name);
                let path = if rel.is_empty() {
                    name.to_string_lossy().into_owned()
                } else {
                    format!("{rel}/{}", name.to_string_lossy())
                };
                let is_dir = abs.is_dir();
                let say = stack
                    .iter()
                    .rev()
                    .map(|rules| rules.matched(&abs, is_dir))
                    .find(|m| !m.is_none());
                let let_in = matches!(say, Some(Match::Whitelist(_)));
                if name.as_encoded_bytes().starts_with(b".") && !let_in {
                    out.push(format!("{path} (hidden)"));
                } else if matches!(say, Some(Match::Ignore(_))) {
                    out.push(format!("{path} (ignored)"));
                } else if is_dir {
                    walk(&abs, &path, stack, out);
                } else {
                    out.push(path);
                }
            }
            if pushed {
                stack.pop();
            }
        }

        // The folders above the root, up to the repository's, outermost
        // first: asked after those inside the root.
        let mut stack = Vec::new();
        for dir in root.ancestors().skip(1) {
            stack.extend(rules_of(dir));
            if dir.join(".git").exists() {
                break;
            }
        }
        stack.reverse();
        let mut out = Vec::new();
        walk(root, "", &mut stack, &mut out);
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 256, ..Default::default() })]

        /// Rules anchored to their folder, nested, negated, for folders
        /// only, or in a folder above the root decide as the `ignore`
        /// crate decides given absolute paths: each folder's rules match
        /// an entry's path below that folder, and those above the root its
        /// path below theirs.
        #[test]
        fn ignore_rules_decide_as_for_absolute_paths(
            files in proptest::collection::vec(
                proptest::collection::vec(
                    proptest::sample::select(vec!["a", "x", "d.txt", "c.log", ".h"]),
                    1..4,
                ),
                1..20,
            ),
            ignores in proptest::collection::vec(
                (
                    proptest::collection::vec(proptest::sample::select(vec!["a", "x"]), 0..3),
                    proptest::collection::vec(
                        proptest::sample::select(vec![
                            "/x/d.txt", "a/d.txt", "/a", "x/", "*.log", "!c.log", "/d.txt",
                            "**/a/*.log", "!.h", "/x/a/", "a/x/*", "!/a/x/d.txt",
                        ]),
                        1..4,
                    ),
                ),
                0..5,
            ),
            root in proptest::collection::vec(proptest::sample::select(vec!["a", "x"]), 0..3),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let repo = dir.path().canonicalize().unwrap().join("repo");
            std::fs::create_dir_all(repo.join(".git/info")).unwrap();
            for names in &files {
                let path = names.iter().fold(repo.clone(), |p, n| p.join(n));
                if std::fs::create_dir_all(path.parent().unwrap()).is_ok() && !path.is_dir() {
                    let _ = std::fs::write(&path, "x\n");
                }
            }
            for (folder, lines) in &ignores {
                let path = folder.iter().fold(repo.clone(), |p, n| p.join(n));
                if std::fs::create_dir_all(&path).is_ok() {
                    let _ = std::fs::write(path.join(".gitignore"), lines.join("\n"));
                }
            }
            // The repository, or the deepest folder on the chosen way.
            let mut root = root.iter().fold(repo.clone(), |p, n| p.join(n));
            while !root.is_dir() {
                root.pop();
            }
            let handle = Arc::new(confine::open_root(&root).unwrap());
            let walk = Walk::new(options(&root, &handle)).unwrap();
            let got: Vec<String> = walk.map(|j| describe(&j)).collect();
            proptest::prop_assert_eq!(got, naive_walk(&root));
        }
    }

    #[test]
    fn files_and_folders_interleave_in_name_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for file in ["b.txt", "a/z.txt", "a/b/c.txt", "a.txt", "_/x", ".h/y"] {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x\n").unwrap();
        }
        let handle = Arc::new(confine::open_root(&root).unwrap());
        let walk = Walk::new(options(&root, &handle)).unwrap();
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
