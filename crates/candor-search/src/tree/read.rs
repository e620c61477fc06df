//! Reading one file of the tree: a walked file, opened relative to the
//! folder handle the walk listed it through, then searched by the engine;
//! the read rules and the skip for a file that cannot be opened, which a
//! file the caller names shares (see `as_source.rs`); and, in tests, the
//! hook before each read and the input put in place of a file.

use std::ffi::OsStr;
use std::io;

#[cfg(test)]
use super::Hook;
use super::Tree;
use crate::confine::{self, DirHandle};
use crate::engine::{FileOutcome, QuerySearch, search_owned};
use crate::matcher::Matcher;
use crate::reader::{AnyInput, Opened, ReadRules};
use crate::walk::Job;
use crate::{SkipReason, SkippedInput};

impl Tree {
    /// The outcome of one job of the walk.
    pub(super) fn outcome(
        &self,
        search: &QuerySearch<'_>,
        matcher: &Matcher,
        job: Job,
        buffer: &mut Vec<u8>,
    ) -> FileOutcome<'static> {
        match job {
            Job::File { rel, dir, name } => self.process(search, matcher, rel, &dir, &name, buffer),
            Job::Skip(input) => FileOutcome::Skipped(input),
        }
    }

    /// Reads and searches one file.
    fn process(
        &self,
        search: &QuerySearch<'_>,
        matcher: &Matcher,
        rel: String,
        dir: &DirHandle,
        name: &OsStr,
        buffer: &mut Vec<u8>,
    ) -> FileOutcome<'static> {
        #[cfg(test)]
        if let Some(Hook(hook)) = &self.before_read {
            hook(&self.root.join(&rel));
        }
        let open = |rel: &str| self.open_at(rel, dir, name);
        // Owned: the outcome crosses to the thread that orders them.
        let outcome = search_owned(search, matcher, rel, open, buffer);
        // A long line grew the buffer: give the memory back.
        if buffer.len() > self.read_rules().buffer_len() {
            buffer.truncate(self.read_rules().buffer_len());
            buffer.shrink_to_fit();
        }
        outcome
    }

    /// How this tree's files are read.
    pub(super) fn read_rules(&self) -> ReadRules {
        #[cfg(test)]
        if let Some(rules) = self.rules {
            return rules;
        }
        ReadRules::new(self.max_file_size)
    }

    /// Opens the walked file `name` of the folder `dir` (at `rel`) for
    /// reading, or says why it is skipped: relative to the folder the walk
    /// listed, without following a link or blocking on a FIFO swapped in
    /// since the listing. This is the one place a walked file is opened.
    pub(crate) fn open_at(&self, rel: &str, dir: &DirHandle, name: &OsStr) -> Opened<'_> {
        self.opened(rel, confine::open_file(dir, name))
    }

    /// What `open_at` gives for the file at `rel` opened (or not) another
    /// way that follows no link and stays below the root.
    pub(crate) fn opened(&self, rel: &str, file: io::Result<std::fs::File>) -> Opened<'_> {
        match file {
            Ok(file) => Opened::File(self.input(rel, file), self.read_rules()),
            Err(e) => self.open_error(rel, &e),
        }
    }

    /// The input a file opened at `rel` is read from: the file, or in
    /// tests what the test puts in its place.
    pub(super) fn input(
        &self,
        #[cfg_attr(not(test), allow(unused_variables))] rel: &str,
        file: std::fs::File,
    ) -> AnyInput {
        #[cfg(test)]
        if let Some(super::WrapInput(wrap)) = &self.wrap_input {
            return AnyInput::Other(wrap(&self.root.join(rel), Box::new(file)));
        }
        AnyInput::File(file)
    }

    /// The skip for a file that could not be opened.
    pub(super) fn open_error(&self, rel: &str, e: &io::Error) -> Opened<'_> {
        let reason = if e.kind() == io::ErrorKind::NotFound {
            SkipReason::Vanished
        } else if confine::is_swapped(e) {
            SkipReason::Changed
        } else if confine::is_socket(e) {
            return Opened::Skip(SkippedInput::new(rel, SkipReason::Special));
        } else {
            SkipReason::Unreadable
        };
        Opened::Skip(SkippedInput::new(rel, reason).with_detail(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};
    use std::sync::Arc;
    use std::sync::atomic::Ordering as AtomicOrdering;
    use std::time::Duration;

    use super::super::{Hook, Tree, WrapInput, tree_with};
    use crate::reader::{Input, ReadRules, Stat};
    use crate::{Corpus, ErrorKind, Limits, Query, SkipReason};

    #[test]
    fn a_file_deleted_between_walk_and_read_is_counted_as_vanished() {
        for threads in [1, 3] {
            let (_dir, mut tree) =
                tree_with(&[("a.txt", "x\n"), ("b.txt", "x\n"), ("c.txt", "x\n")]);
            tree.threads = threads;
            tree.solo = Duration::ZERO;
            tree.before_read = Some(Hook(Arc::new(|path: &Path| {
                if path.ends_with("b.txt") {
                    let _ = std::fs::remove_file(path);
                }
            })));
            let found = tree
                .search(&Query::literal("x"), &Limits::new(), None)
                .unwrap();
            let paths: Vec<&str> = found.iter().map(|m| m.path.as_str()).collect();
            assert_eq!(paths, ["a.txt", "c.txt"]);
            assert_eq!(found.skipped().count(&SkipReason::Vanished), 1);
            assert_eq!(found.skipped().sample()[0].path(), "b.txt");
            // The answer may be missing b.txt's lines: it must not claim to be complete.
            assert!(found.completeness().is_exact());
            assert!(!found.is_complete());
        }
    }

    #[test]
    fn an_unreadable_file_is_counted_and_the_search_goes_on() {
        // Tests run as root, where permissions do not stop reads: replace the
        // file by a folder between walk and read, which open-for-read refuses.
        let (_dir, mut tree) = tree_with(&[("a.txt", "x\n"), ("b.txt", "x\n")]);
        tree.threads = 2;
        tree.solo = Duration::ZERO;
        tree.before_read = Some(Hook(Arc::new(|path: &Path| {
            if path.ends_with("a.txt") && path.is_file() {
                std::fs::remove_file(path).unwrap();
                std::fs::create_dir(path).unwrap();
            }
        })));
        let found = tree
            .search(&Query::literal("x"), &Limits::new(), None)
            .unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found.items()[0].path, "b.txt");
        assert_eq!(found.skipped().count(&SkipReason::Unreadable), 1);
        assert!(found.skipped().sample()[0].detail().is_some());
        assert!(!found.is_complete());
        let json = serde_json::to_value(&found).unwrap();
        assert_eq!(json["complete"], false);
        assert_eq!(json["skipped"]["by_reason"]["unreadable"], 1);
    }

    /// A tree of one file, read through blocks of `block` bytes.
    fn small_blocks(name: &str, text: &[u8], block: usize) -> (tempfile::TempDir, Tree) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(name), text).unwrap();
        let mut tree = Tree::new(dir.path()).unwrap();
        tree.rules = Some(ReadRules {
            block,
            binary_prefix: block,
            max_line: 4 * block,
            max_file_size: None,
            as_text: false,
        });
        (dir, tree)
    }

    /// A matching line: number, offset, text.
    type NaiveLine = (u64, u64, String);

    /// The lines holding `needle`, by a plain scan: (number, offset,
    /// text), and whether a NUL ended the search before the file's end;
    /// `None` for a file that is binary whole (a NUL in its first
    /// `prefix` bytes, or on its first line).
    fn naive(text: &[u8], needle: &str, prefix: usize) -> Option<(Vec<NaiveLine>, bool)> {
        let nul = text.iter().position(|&b| b == 0);
        let searched = match nul {
            Some(p) if p < prefix => return None,
            Some(p) => match text[..p].iter().rposition(|&b| b == b'\n') {
                Some(i) => &text[..=i],
                None => return None,
            },
            None => text,
        };
        let mut out = Vec::new();
        let mut offset = 0;
        for (i, line) in searched.split_inclusive(|&b| b == b'\n').enumerate() {
            let content = line.strip_suffix(b"\n").unwrap_or(line);
            let content = content.strip_suffix(b"\r").unwrap_or(content);
            let shown = String::from_utf8_lossy(content).into_owned();
            if shown.contains(needle) {
                out.push((i as u64 + 1, offset, shown));
            }
            offset += line.len() as u64;
        }
        Some((out, nul.is_some()))
    }

    #[test]
    fn a_file_that_changes_while_read_is_cut_where_the_change_is_seen() {
        let text = "line with x\n".repeat(100);
        type Change = fn(&Path);
        let changes: [(&str, Change); 3] = [
            ("grown", |path| {
                let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
                std::io::Write::write_all(&mut f, b"x appended\n").unwrap();
            }),
            ("truncated", |path| {
                let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
                f.set_len(200).unwrap();
            }),
            ("rewritten", |path| {
                // The same size, other bytes: only the time of change says so.
                std::thread::sleep(Duration::from_millis(20));
                let text = "LINE WITH Y\n".repeat(100);
                std::fs::write(path, text).unwrap();
            }),
        ];
        for (what, change) in changes {
            for threads in [1, 4] {
                let (_dir, mut tree) = small_blocks("f.txt", text.as_bytes(), 64);
                tree.threads = threads;
                tree.solo = Duration::ZERO;
                let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
                let flag = Arc::clone(&done);
                after_each_read(
                    &mut tree,
                    Arc::new(move |path: &Path| {
                        // Once, after the first read.
                        if !flag.swap(true, AtomicOrdering::SeqCst) {
                            change(path);
                        }
                    }),
                );
                let found = tree
                    .search(&Query::literal("x"), &Limits::new(), None)
                    .unwrap();
                // The lines read before the change was seen are kept: a
                // prefix of the file's lines as it was.
                for (i, m) in found.iter().enumerate() {
                    assert_eq!(
                        (m.line_number, m.byte_offset, m.line.as_str()),
                        (i as u64 + 1, 12 * i as u64, "line with x"),
                        "{what}, {threads} threads"
                    );
                }
                assert!(found.len() < 100, "{what}, {threads} threads");
                assert_eq!(
                    found.skipped().count(&SkipReason::Changed),
                    1,
                    "{what}, {threads} threads"
                );
                assert!(!found.is_complete(), "{what}");
                // Unchanged since, it reads whole.
                tree.wrap_input = None;
                let again = tree
                    .search(&Query::literal("x"), &Limits::new(), None)
                    .unwrap();
                assert!(again.is_complete(), "{what}");
            }
        }
    }

    /// Counts the reads of `tree`'s searches.
    fn count_reads(tree: &mut Tree) -> Arc<std::sync::atomic::AtomicUsize> {
        let reads = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = Arc::clone(&reads);
        after_each_read(
            tree,
            Arc::new(move |_: &Path| {
                counter.fetch_add(1, AtomicOrdering::SeqCst);
            }),
        );
        reads
    }

    /// A file read as it is, `hook` run with its path after each read.
    struct Watched {
        file: Box<dyn Input>,
        path: PathBuf,
        hook: Arc<dyn Fn(&Path) + Send + Sync>,
    }

    impl Input for Watched {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.file.read(buf);
            (self.hook)(&self.path);
            n
        }

        fn seek_to(&mut self, offset: u64) -> std::io::Result<()> {
            self.file.seek_to(offset)
        }

        fn stat(&self) -> std::io::Result<Stat> {
            self.file.stat()
        }
    }

    /// Reads `tree`'s files through `Watched`: `hook` after each read.
    fn after_each_read(tree: &mut Tree, hook: Arc<dyn Fn(&Path) + Send + Sync>) {
        tree.wrap_input = Some(WrapInput(Arc::new(move |path: &Path, file| {
            Box::new(Watched {
                file,
                path: path.to_owned(),
                hook: Arc::clone(&hook),
            })
        })));
    }

    /// Puts `text` in place of the file at `path` as editors save: a new
    /// file (a new inode, so its stamp differs whatever the clock's
    /// grain) renamed over it.
    fn replace(path: &Path, text: &str) {
        let scratch = tempfile::tempdir().unwrap();
        let new = scratch.path().join("new");
        std::fs::write(&new, text).unwrap();
        std::fs::rename(&new, path).unwrap();
    }

    /// `a.txt` as the first page reads it: its third match is where the
    /// second page resumes (byte 8, line 3).
    const OLD: &str = "x a\nx b\nx c\nz\n";

    /// `a.txt` rewritten: one whose line 3 starts where the old one did
    /// (a resume into it would go on silently in other text), and one
    /// where that offset is inside a line.
    const REWRITES: [(&str, &str); 2] = [
        ("lines in place", "x A\nx B\nx C\nz\n"),
        ("lines moved", "x\nx\nxx\nxxxxxx\n"),
    ];

    /// The tree of `a.txt` (`OLD`) and `b.txt`, searched on `threads`.
    fn rewritten_tree(threads: usize) -> (tempfile::TempDir, Tree) {
        let (dir, mut tree) = tree_with(&[("a.txt", OLD), ("b.txt", "x d\n")]);
        tree.threads = threads;
        tree.solo = Duration::ZERO;
        (dir, tree)
    }

    #[test]
    fn a_file_rewritten_after_its_read_and_before_its_page_ends_makes_its_cursor_stale() {
        let query = Query::literal("x");
        let limits = Limits::new().limit(2);
        for threads in [1, 3] {
            // Unchanged, the second page resumes at `x c`.
            let (_dir, tree) = rewritten_tree(threads);
            let first = tree.search(&query, &limits, None).unwrap();
            let cursor = first.next_cursor().unwrap();
            let rest = tree.search(&query, &limits, Some(cursor)).unwrap();
            let lines: Vec<&str> = rest.iter().map(|m| m.line.as_str()).collect();
            assert_eq!(lines, ["x c", "x d"], "{threads} threads");
            for (what, new) in REWRITES {
                let (dir, mut tree) = rewritten_tree(threads);
                let a = dir.path().join("a.txt");
                let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
                let flag = Arc::clone(&done);
                // Once `a.txt` was read, and before the page that ends in
                // it is written.
                after_each_read(
                    &mut tree,
                    Arc::new(move |path: &Path| {
                        if path.ends_with("a.txt") && !flag.swap(true, AtomicOrdering::SeqCst) {
                            replace(path, new);
                        }
                    }),
                );
                let first = tree.search(&query, &limits, None).unwrap();
                assert!(done.load(AtomicOrdering::SeqCst), "{what}");
                let lines: Vec<&str> = first.iter().map(|m| m.line.as_str()).collect();
                assert_eq!(lines, ["x a", "x b"], "{what}, {threads} threads");
                assert_eq!(std::fs::read_to_string(&a).unwrap(), new);
                let cursor = first.next_cursor().unwrap();
                tree.wrap_input = None;
                let err = tree.search(&query, &limits, Some(cursor)).unwrap_err();
                assert!(
                    matches!(err.kind(), ErrorKind::StaleCursor { .. }),
                    "{what}, {threads} threads: {err}"
                );
            }
        }
    }

    #[test]
    #[cfg(unix)]
    fn a_cursor_into_a_file_reached_through_a_link_is_stale_once_the_file_is_rewritten() {
        let query = Query::literal("x");
        let limits = Limits::new().limit(2);
        for (what, new) in REWRITES {
            for threads in [1, 3] {
                // `l.txt` links to `t/a.txt`; the page ends in it.
                let (dir, tree) = tree_with(&[("t/a.txt", OLD)]);
                std::os::unix::fs::symlink("t/a.txt", dir.path().join("l.txt")).unwrap();
                let mut tree = tree.follow_links(true).threads(threads);
                tree.solo = Duration::ZERO;
                let query = query.clone().paths(["l.txt"]);
                let first = tree.search(&query, &limits, None).unwrap();
                let lines: Vec<(&str, &str)> = first
                    .iter()
                    .map(|m| (m.path.as_str(), m.line.as_str()))
                    .collect();
                assert_eq!(lines, [("l.txt", "x a"), ("l.txt", "x b")]);
                let cursor = first.next_cursor().unwrap();
                // Untouched, the link's file resumes.
                let rest = tree.search(&query, &limits, Some(cursor)).unwrap();
                assert_eq!(rest.items()[0].line, "x c", "{what}, {threads} threads");
                // The file the link leads to rewritten: the link is as it
                // was, the text it leads to is not.
                replace(&dir.path().join("t/a.txt"), new);
                let err = tree.search(&query, &limits, Some(cursor)).unwrap_err();
                assert!(
                    matches!(err.kind(), ErrorKind::StaleCursor { .. }),
                    "{what}, {threads} threads: {err}"
                );
            }
        }
    }

    #[test]
    #[cfg(feature = "index")]
    fn an_index_s_cursor_into_a_file_rewritten_after_its_read_is_stale() {
        let query = Query::literal("x");
        let limits = Limits::new().limit(2);
        for (what, new) in REWRITES {
            let (_dir, mut tree) = rewritten_tree(2);
            // Armed once the index is built: the first page's read of
            // `a.txt` rewrites it, once.
            let armed = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let (arm, flag) = (Arc::clone(&armed), Arc::clone(&done));
            after_each_read(
                &mut tree,
                Arc::new(move |path: &Path| {
                    if arm.load(AtomicOrdering::SeqCst)
                        && path.ends_with("a.txt")
                        && !flag.swap(true, AtomicOrdering::SeqCst)
                    {
                        replace(path, new);
                    }
                }),
            );
            let store = tempfile::tempdir().unwrap();
            let index = crate::Index::build(tree, store.path().join("index")).unwrap();
            armed.store(true, AtomicOrdering::SeqCst);
            let first = index.search(&query, &limits, None).unwrap();
            assert!(done.load(AtomicOrdering::SeqCst), "{what}");
            let lines: Vec<&str> = first.iter().map(|m| m.line.as_str()).collect();
            assert_eq!(lines, ["x a", "x b"], "{what}");
            let cursor = first.next_cursor().unwrap();
            let err = index.search(&query, &limits, Some(cursor)).unwrap_err();
            assert!(
                matches!(err.kind(), ErrorKind::StaleCursor { .. }),
                "{what}: {err}"
            );
        }
    }

    #[test]
    fn a_file_rewritten_between_the_cursor_s_check_and_its_read_is_refused_as_stale() {
        let query = Query::literal("x");
        let limits = Limits::new().limit(2);
        for threads in [1, 3] {
            for (what, new) in REWRITES {
                let (_dir, mut tree) = rewritten_tree(threads);
                let first = tree.search(&query, &limits, None).unwrap();
                let cursor = first.next_cursor().unwrap();
                // The cursor's file is checked by its name when the query
                // starts; it is rewritten after that, before it is opened.
                tree.before_read = Some(Hook(Arc::new(move |path: &Path| {
                    if path.ends_with("a.txt") {
                        replace(path, new);
                    }
                })));
                let err = tree.search(&query, &limits, Some(cursor)).unwrap_err();
                assert!(
                    matches!(err.kind(), ErrorKind::StaleCursor { .. }),
                    "{what}, {threads} threads: {err}"
                );
            }
        }
    }

    #[test]
    fn a_page_resumed_inside_a_file_reads_it_from_the_cursor() {
        let text: String = (0..1000).map(|i| format!("x {i:04}\n")).collect();
        let (_dir, mut tree) = small_blocks("f.txt", text.as_bytes(), 64);
        let reads = count_reads(&mut tree);
        let query = Query::literal("x");
        let first = tree
            .search(&query, &Limits::new().limit(990), None)
            .unwrap();
        let whole = reads.swap(0, AtomicOrdering::SeqCst);
        let cursor = first.next_cursor().unwrap();
        let rest = tree.search(&query, &Limits::new(), Some(cursor)).unwrap();
        let resumed = reads.load(AtomicOrdering::SeqCst);
        let lines: Vec<(u64, u64, &str)> = rest
            .iter()
            .map(|m| (m.line_number, m.byte_offset, m.line.as_str()))
            .collect();
        let want: Vec<(u64, u64, String)> = (990..1000)
            .map(|i| (i as u64 + 1, 7 * i as u64, format!("x {i:04}")))
            .collect();
        let want: Vec<(u64, u64, &str)> =
            want.iter().map(|(n, o, t)| (*n, *o, t.as_str())).collect();
        assert_eq!(lines, want);
        assert!(rest.is_complete());
        // 7,000 bytes through 64-byte blocks: the first page read about
        // 110 blocks, the second only the last 70 bytes.
        assert!(whole > 100, "{whole} reads");
        assert!(resumed <= 3, "{resumed} reads to resume");
    }

    #[test]
    fn pages_cut_by_the_scan_budget_inside_a_file_read_it_once() {
        let mut text: String = (0..1000).map(|i| format!("y {i:04}\n")).collect();
        text.push_str("x last\n");
        let (_dir, mut tree) = small_blocks("f.txt", text.as_bytes(), 64);
        let reads = count_reads(&mut tree);
        let query = Query::literal("x");
        let limits = Limits::new().max_scanned_bytes(640);
        let (mut cursor, mut pages, mut found) = (None, 0, Vec::new());
        loop {
            let page = tree.search(&query, &limits, cursor.as_ref()).unwrap();
            pages += 1;
            found.extend(page.iter().map(|m| (m.line_number, m.line.clone())));
            match page.next_cursor() {
                Some(next) => cursor = Some(next.clone()),
                None => break,
            }
            assert!(pages < 100, "the pages do not advance");
        }
        assert_eq!(found, vec![(1001, "x last".to_owned())]);
        // About 7,000 bytes through 64-byte blocks, in pages of about 640
        // bytes: each page reads its own blocks and one more, where
        // counting lines from the file's start each time read about 600.
        let total = reads.load(AtomicOrdering::SeqCst);
        assert!(pages >= 10, "{pages} pages");
        assert!(total <= 115 + 3 * pages, "{total} reads over {pages} pages");
    }

    #[test]
    fn a_line_longer_than_the_most_held_ends_the_file_s_search_as_long_line() {
        let mut text = b"x short\n".to_vec();
        text.extend(std::iter::repeat_n(b'a', 1000));
        text.extend_from_slice(b"x\nx after\n");
        let (_dir, tree) = small_blocks("f.txt", &text, 64); // holds 256 bytes
        let found = tree
            .search(&Query::literal("x"), &Limits::new(), None)
            .unwrap();
        // The lines before the long one are searched; the rest is skipped.
        assert_eq!(found.len(), 1);
        assert_eq!(found.items()[0].line, "x short");
        assert_eq!(found.skipped().count(&SkipReason::LongLine), 1);
        let detail = found.skipped().sample()[0].detail().unwrap();
        assert!(detail.contains("at byte 8"), "{detail}");
        assert!(!found.is_complete());
        // A line of exactly the most held (256 bytes here) is searched.
        let mut text = b"x short\n".to_vec();
        text.extend(std::iter::repeat_n(b'a', 255));
        text.extend_from_slice(b"x\nx after\n");
        let (_dir, tree) = small_blocks("f.txt", &text, 64);
        let found = tree
            .search(&Query::literal("x"), &Limits::new(), None)
            .unwrap();
        assert_eq!(found.len(), 3);
        assert!(found.is_complete());
        // One byte more is not.
        text.insert(8, b'a');
        let (_dir, tree) = small_blocks("f.txt", &text, 64);
        let found = tree
            .search(&Query::literal("x"), &Limits::new(), None)
            .unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found.skipped().count(&SkipReason::LongLine), 1);
        // A long first line skips the file whole.
        let (_dir, tree) = small_blocks("f.txt", &text[8..], 64);
        let found = tree
            .search(&Query::literal("x"), &Limits::new(), None)
            .unwrap();
        assert!(found.is_empty());
        assert_eq!(found.skipped().count(&SkipReason::LongLine), 1);
        // A line that fits once the buffer grows is searched.
        let (_dir, tree) = small_blocks("f.txt", &text, 512);
        let found = tree
            .search(&Query::literal("x"), &Limits::new(), None)
            .unwrap();
        assert_eq!(found.len(), 3);
        assert_eq!(found.items()[1].byte_offset, 8);
        // The same for a last line without a `\n`: 256 bytes are searched,
        // 257 end the search there, the lines before it found.
        for (len, found_lines, long) in [(256, 2, 0), (257, 1, 1)] {
            let mut text = b"x short\n".to_vec();
            text.extend(std::iter::repeat_n(b'a', len - 1));
            text.push(b'x');
            let (_dir, tree) = small_blocks("f.txt", &text, 64);
            let found = tree
                .search(&Query::literal("x"), &Limits::new(), None)
                .unwrap();
            assert_eq!(found.len(), found_lines, "a last line of {len} bytes");
            assert_eq!(found.skipped().count(&SkipReason::LongLine), long);
            assert_eq!(found.is_complete(), long == 0);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 64, ..Default::default() })]

        /// Blocks of a few bytes put chunk ends everywhere: the lines found
        /// are those of a plain scan, with CRLF, no final newline and NULs
        /// at any depth, in every mode, and pages rebuild them.
        #[test]
        fn reading_in_small_blocks_matches_a_naive_scan(
            lines in proptest::collection::vec(
                proptest::string::string_regex("[ax\\r\\x00]{0,40}").unwrap(), 0..40),
            final_newline: bool,
            block in 8usize..48,
            threads in 1usize..=4,
        ) {
            let mut text = lines.join("\n");
            if final_newline && !text.is_empty() {
                text.push('\n');
            }
            let (_dir, mut tree) = small_blocks("f.txt", text.as_bytes(), block);
            tree.threads = threads;
            tree.solo = Duration::ZERO;
            tree.rules = Some(ReadRules {
                block,
                binary_prefix: block,
                max_line: 1 << 20,
                max_file_size: None,
                as_text: false,
            });
            let query = Query::literal("x");
            let found = tree.search(&query, &Limits::new(), None).unwrap();
            let got: Vec<(u64, u64, String)> = found
                .iter()
                .map(|m| (m.line_number, m.byte_offset, m.line.clone()))
                .collect();
            let count = tree.count_per_file(&query, &Limits::new(), None).unwrap();
            let files = tree.files_with_matches(&query, &Limits::new(), None).unwrap();
            match naive(text.as_bytes(), "x", block) {
                None => {
                    proptest::prop_assert!(got.is_empty());
                    proptest::prop_assert_eq!(found.skipped().count(&SkipReason::Binary), 1);
                    proptest::prop_assert_eq!(count.skipped().count(&SkipReason::Binary), 1);
                    proptest::prop_assert_eq!(files.skipped().count(&SkipReason::Binary), 1);
                }
                Some((want, cut)) => {
                    // Binary is a policy: a cut leaves the answer complete.
                    proptest::prop_assert!(found.is_complete());
                    proptest::prop_assert_eq!(&got, &want);
                    proptest::prop_assert_eq!(found.skipped().count(&SkipReason::Binary), u64::from(cut));
                    let n = count.items().first().map_or(0, |c| c.count);
                    proptest::prop_assert_eq!(n, want.len() as u64);
                    proptest::prop_assert_eq!(count.skipped().count(&SkipReason::Binary), u64::from(cut));
                    proptest::prop_assert_eq!(files.len(), usize::from(!want.is_empty()));
                    // A file known to match is read no further.
                    proptest::prop_assert_eq!(
                        files.skipped().count(&SkipReason::Binary),
                        u64::from(cut && want.is_empty())
                    );
                    let mut paged = Vec::new();
                    let mut cursor = None;
                    loop {
                        let page = tree
                            .search(&query, &Limits::new().limit(2), cursor.as_ref())
                            .unwrap();
                        paged.extend(page.iter().map(|m| (m.line_number, m.byte_offset, m.line.clone())));
                        match page.next_cursor() {
                            Some(c) => cursor = Some(c.clone()),
                            None => break,
                        }
                    }
                    proptest::prop_assert_eq!(paged, want);
                }
            }
        }
    }
}
