//! Paging an `Index` while the tree changes: a cursor resumes as a
//! tree's does, whatever updates, compactions, watchers or reopenings
//! happened in between, and is refused as stale only when the file it
//! resumes in changed.
//!
//! The oracle is a naive one, written here: the files as the test reads
//! them from disk when each page is asked (a recursive listing, sorted
//! by path order), each line searched alone (`oracle.rs`). Each page
//! must hold the first items of that answer after where its cursor
//! resumes, so that a walk holds each file's matches as of the page that
//! read it, once each.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use candor_search::{
    Bounded, Completeness, Corpus, Cursor, Disclosure, ErrorKind, Excerpt, Index, Limits, Query,
    Scope, Total, Tree,
};
use proptest::prelude::*;

use crate::fixture::written_path;
use crate::oracle::{LineSpans, literal_spans, matching_lines, regex_spans, searched};

/// A file's path as its names' bytes, from the root: its place in path
/// order (component by component, each name by its bytes).
type Names = Vec<Vec<u8>>;

/// One item of an answer, as the oracle and the index both give it:
/// where it is (the file's names, the line's offset: `0` for a per-file
/// item) and what it shows.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Row {
    names: Names,
    offset: u64,
    shown: String,
}

/// The queries of this module: a search, or a per-file answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Search,
    Files,
    Counts,
}

/// What is matched.
#[derive(Debug, Clone)]
enum Pattern {
    Literal(&'static str, bool),
    Regex(&'static str),
}

impl Pattern {
    fn query(&self) -> Query {
        match self {
            Pattern::Literal(text, ci) => Query::literal(*text).case_insensitive(*ci),
            Pattern::Regex(re) => Query::regex(*re),
        }
    }

    /// The oracle's search of one line.
    fn spans(&self) -> Box<LineSpans> {
        match *self {
            Pattern::Literal(text, ci) => {
                let needles = [text.to_owned()];
                Box::new(move |line: &[u8]| literal_spans(line, &needles, ci, false))
            }
            Pattern::Regex(re) => regex_spans(re, false, false).expect("a valid regex"),
        }
    }
}

#[cfg(unix)]
fn os(bytes: &[u8]) -> std::ffi::OsString {
    std::os::unix::ffi::OsStringExt::from_vec(bytes.to_vec())
}

#[cfg(not(unix))]
fn os(bytes: &[u8]) -> std::ffi::OsString {
    String::from_utf8_lossy(bytes).into_owned().into()
}

#[cfg(unix)]
fn bytes_of(name: &std::ffi::OsStr) -> Vec<u8> {
    std::os::unix::ffi::OsStrExt::as_bytes(name).to_vec()
}

#[cfg(not(unix))]
fn bytes_of(name: &std::ffi::OsStr) -> Vec<u8> {
    name.to_string_lossy().into_owned().into_bytes()
}

fn join(root: &Path, names: &Names) -> PathBuf {
    let mut path = root.to_path_buf();
    for n in names {
        path.push(os(n));
    }
    path
}

/// The regular files below `root` and their bytes, by path order (no
/// file here is hidden, ignored or a link).
fn files_now(root: &Path) -> BTreeMap<Names, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![Vec::new()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(join(root, &folder))
            .expect("a folder")
            .flatten()
        {
            let mut names = folder.clone();
            names.push(bytes_of(&entry.file_name()));
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(names),
                Ok(t) if t.is_file() => {
                    if let Ok(bytes) = std::fs::read(entry.path()) {
                        out.insert(names, bytes);
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// The whole answer of `kind` over `files`, in order.
fn answer(files: &BTreeMap<Names, Vec<u8>>, kind: Kind, pattern: &Pattern) -> Vec<Row> {
    let spans = pattern.spans();
    let mut rows = Vec::new();
    for (names, bytes) in files {
        let Some(text) = searched(bytes) else {
            continue;
        };
        let hits = matching_lines(text, &spans);
        let path = written_path(names);
        match kind {
            Kind::Search => rows.extend(hits.iter().map(|h| Row {
                names: names.clone(),
                offset: h.offset,
                shown: format!("{path}:{}:{}:{:?}", h.number, h.line, h.spans),
            })),
            Kind::Files if !hits.is_empty() => rows.push(Row {
                names: names.clone(),
                offset: 0,
                shown: path,
            }),
            Kind::Counts if !hits.is_empty() => rows.push(Row {
                names: names.clone(),
                offset: 0,
                shown: format!("{path}:{}", hits.len()),
            }),
            _ => {}
        }
    }
    rows
}

/// The index's page, its items as rows (their names read back from the
/// oracle's listing, by the path the tree writes).
fn ask(
    index: &Index,
    kind: Kind,
    pattern: &Pattern,
    limits: &Limits,
    cursor: Option<&Cursor>,
    paths: &BTreeMap<String, Names>,
) -> Result<(Vec<Row>, Disclosure), candor_search::Error> {
    let query = pattern.query();
    let names = |path: &str| {
        paths
            .get(path)
            .unwrap_or_else(|| panic!("{path:?} is no file of the tree"))
            .clone()
    };
    Ok(match kind {
        Kind::Search => {
            let (items, d) = index.search(&query, limits, cursor)?.into_parts();
            let rows = items
                .iter()
                .map(|m| {
                    assert!(m.line_cut.is_none(), "{m:?}");
                    let spans: Vec<(usize, usize)> =
                        m.matches.iter().map(|s| (s.start, s.end)).collect();
                    Row {
                        names: names(&m.path),
                        offset: m.byte_offset,
                        shown: format!("{}:{}:{}:{spans:?}", m.path, m.line_number, m.line),
                    }
                })
                .collect();
            (rows, d)
        }
        Kind::Files => {
            let (items, d) = index
                .files_with_matches(&query, limits, cursor)?
                .into_parts();
            let rows = items
                .into_iter()
                .map(|p| Row {
                    names: names(&p),
                    offset: 0,
                    shown: p,
                })
                .collect();
            (rows, d)
        }
        Kind::Counts => {
            let (items, d) = index.count_per_file(&query, limits, cursor)?.into_parts();
            let rows = items
                .into_iter()
                .map(|c| Row {
                    names: names(&c.path),
                    offset: 0,
                    shown: format!("{}:{}", c.path, c.count),
                })
                .collect();
            (rows, d)
        }
    })
}

/// Sets the modification time of every file and folder below `root`
/// an hour back, so that a build trusts what it records (a change
/// within its clock tick would be read by every query).
fn age_all(root: &Path) {
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(entry.path());
            } else if let Ok(f) = std::fs::File::open(entry.path()) {
                let _ = f.set_modified(hour_ago);
            }
        }
        if let Ok(f) = std::fs::File::open(&dir) {
            let _ = f.set_modified(hour_ago);
        }
    }
}

/// Writes `text` at `names` below `root` as an editor saves: into a new
/// file beside the tree (in `scratch`), renamed over the old one, so
/// that the file's stamp moves whatever its size and the clock's tick
/// (a new inode). Returns false when the path cannot be a file (a file
/// where a folder of it would be, or a folder at it).
fn save(root: &Path, scratch: &Path, names: &Names, text: &[u8]) -> bool {
    let path = join(root, names);
    if path.is_dir() {
        return false;
    }
    if let Some(parent) = path.parent() {
        if std::fs::create_dir_all(parent).is_err() {
            return false;
        }
    }
    let tmp = scratch.join(format!("save-{}", SAVES.fetch_add(1, Ordering::Relaxed)));
    std::fs::write(&tmp, text).is_ok() && std::fs::rename(&tmp, &path).is_ok()
}

static SAVES: AtomicU64 = AtomicU64::new(0);

/// A tree of generated files, its index, and the walk rules both use.
struct Setup {
    dir: tempfile::TempDir,
    scratch: tempfile::TempDir,
    store: tempfile::TempDir,
    tree: Tree,
}

impl Setup {
    fn new(files: &[(Names, Vec<u8>)], threads: usize) -> Setup {
        let dir = tempfile::tempdir().expect("a folder");
        let scratch = tempfile::tempdir_in(dir.path().parent().expect("a parent"))
            .expect("a scratch folder on the same file system");
        let store = tempfile::tempdir().expect("a folder");
        for (names, text) in files {
            save(dir.path(), scratch.path(), names, text);
        }
        age_all(dir.path());
        let tree = Tree::new(dir.path())
            .expect("a tree")
            .threads(threads)
            .parent_ignores(false);
        Setup {
            dir,
            scratch,
            store,
            tree,
        }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn index_dir(&self) -> PathBuf {
        self.store.path().join("idx")
    }

    fn build(&self) -> Index {
        Index::build(self.tree.clone(), self.index_dir()).expect("an index")
    }

    fn reopen(&self) -> Index {
        Index::open(self.tree.clone(), self.index_dir()).expect("the index opens")
    }
}

// ---------------------------------------------------------------------
// The property: pages against the oracle while the tree changes.

fn name() -> impl Strategy<Value = Vec<u8>> {
    let mut names: Vec<Vec<u8>> = [
        "a",
        "b",
        "a b",
        "a-c",
        "a.txt",
        "é.rs",
        "日本.txt",
        "Z",
        "z.md",
        "m",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    if cfg!(unix) {
        names.push(b"back\\slash".to_vec());
        names.push(b"bad\xff".to_vec());
    }
    prop::sample::select(names)
}

fn names() -> impl Strategy<Value = Names> {
    prop::collection::vec(name(), 1..=3)
}

fn text() -> impl Strategy<Value = Vec<u8>> {
    let line = prop::sample::select(vec![
        "foo",
        "foo bar foo",
        "nothing here",
        "héllo foo",
        "FOO",
        "",
        "日本 foo 日本",
        "foo\r",
        "fooo ba",
    ]);
    (
        any::<bool>(),
        prop::collection::vec(line, 0..8),
        any::<bool>(),
    )
        .prop_map(|(bom, lines, end)| {
            let mut text = if bom {
                "\u{FEFF}".to_owned()
            } else {
                String::new()
            };
            text.push_str(&lines.join("\n"));
            if end && !lines.is_empty() {
                text.push('\n');
            }
            text.into_bytes()
        })
}

/// Which side of the cursor's file an edit picks a file on, in path
/// order (the cursor's file itself is on neither).
#[derive(Debug, Clone, Copy)]
enum Side {
    Before,
    After,
}

/// A change made between two pages.
#[derive(Debug, Clone)]
enum Edit {
    /// A file written at a path (new, or rewriting one), unless it is
    /// the cursor's.
    Put(Names, Vec<u8>),
    /// A file on one side removed.
    Remove(Side, prop::sample::Index),
    /// A file on one side rewritten.
    Rewrite(Side, prop::sample::Index, Vec<u8>),
}

fn side() -> impl Strategy<Value = Side> {
    prop_oneof![Just(Side::Before), Just(Side::After)]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (names(), text()).prop_map(|(n, t)| Edit::Put(n, t)),
        (side(), any::<prop::sample::Index>()).prop_map(|(s, i)| Edit::Remove(s, i)),
        (side(), any::<prop::sample::Index>(), text()).prop_map(|(s, i, t)| Edit::Rewrite(s, i, t)),
    ]
}

/// What is done to the index between two pages, after the edits.
#[derive(Debug, Clone, Copy)]
enum Upkeep {
    Nothing,
    Update,
    UpdateAsSeen,
    /// Another process's view: the index opened again from disk (and
    /// watched again, in the watched mode).
    Reopen,
}

/// What happens to the file the cursor resumes in.
#[derive(Debug, Clone)]
enum Touch {
    Rewrite(Vec<u8>),
    Remove,
    /// Renamed to a name after its own (`~` appended), past the cursor.
    RenameOn,
    /// Left out by an ignore file in its folder that ignores all of it.
    Ignored,
}

#[derive(Debug, Clone)]
struct Step {
    edits: Vec<Edit>,
    upkeep: Upkeep,
    touch: Option<Touch>,
}

fn step() -> impl Strategy<Value = Step> {
    (
        prop::collection::vec(edit(), 0..4),
        prop_oneof![
            2 => Just(Upkeep::Nothing),
            2 => Just(Upkeep::Update),
            1 => Just(Upkeep::UpdateAsSeen),
            1 => Just(Upkeep::Reopen),
        ],
        prop_oneof![
            20 => Just(None),
            1 => text().prop_map(|t| Some(Touch::Rewrite(t))),
            1 => Just(Some(Touch::Remove)),
            1 => Just(Some(Touch::RenameOn)),
            1 => Just(Some(Touch::Ignored)),
        ],
    )
        .prop_map(|(edits, upkeep, touch)| Step {
            edits,
            upkeep,
            touch,
        })
}

#[derive(Debug, Clone)]
struct Case {
    files: Vec<(Names, Vec<u8>)>,
    watched: bool,
    threads: usize,
    kind: Kind,
    pattern: Pattern,
    limit: usize,
    count_total: bool,
    steps: Vec<Step>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec((names(), text()), 2..14),
        any::<bool>(),
        prop_oneof![Just(1usize), Just(2)],
        prop_oneof![
            3 => Just(Kind::Search),
            1 => Just(Kind::Files),
            1 => Just(Kind::Counts)
        ],
        prop_oneof![
            Just(Pattern::Literal("foo", false)),
            Just(Pattern::Literal("foo", true)),
            Just(Pattern::Regex("fo+ ?b?")),
        ],
        1usize..4,
        any::<bool>(),
        prop::collection::vec(step(), 0..10),
    )
        .prop_map(
            |(files, watched, threads, kind, pattern, limit, count_total, steps)| Case {
                files,
                watched,
                threads,
                kind,
                pattern,
                limit,
                count_total,
                steps,
            },
        )
}

/// The files on one side of `at` in path order, now.
fn side_of(root: &Path, at: &Names, side: Side) -> Vec<Names> {
    files_now(root)
        .into_keys()
        .filter(|n| match side {
            Side::Before => n < at,
            Side::After => n > at,
        })
        .collect()
}

/// Makes the changes of `step` around the file `at` (the cursor's, whose
/// page listed some of it); returns whether the cursor is stale now: that
/// file changed, when the cursor resumes `inside` it, or was removed (its
/// listed items would be counted wrongly), or a file before it was added
/// or removed (their rewrites leave it good).
fn apply(setup: &Setup, at: &Names, step: &Step, inside: bool) -> bool {
    let (root, scratch) = (setup.root(), setup.scratch.path());
    let before = side_of(root, at, Side::Before);
    for edit in &step.edits {
        match edit {
            Edit::Put(names, text) => {
                // A folder of the cursor's file stays one.
                if names != at && !at.starts_with(names) {
                    save(root, scratch, names, text);
                }
            }
            Edit::Remove(side, pick) => {
                let files = side_of(root, at, *side);
                if !files.is_empty() {
                    let victim = &files[pick.index(files.len())];
                    std::fs::remove_file(join(root, victim)).expect("a removal");
                }
            }
            Edit::Rewrite(side, pick, text) => {
                let files = side_of(root, at, *side);
                if !files.is_empty() {
                    save(root, scratch, &files[pick.index(files.len())], text);
                }
            }
        }
    }
    let reordered = side_of(root, at, Side::Before) != before;
    let (touched, removed) = match &step.touch {
        Some(Touch::Rewrite(text)) => (save(root, scratch, at, text), false),
        Some(Touch::Remove) => {
            std::fs::remove_file(join(root, at)).expect("a removal");
            (true, true)
        }
        Some(Touch::RenameOn) => {
            let mut on = at.clone();
            if let Some(last) = on.last_mut() {
                last.push(b'~');
            }
            std::fs::rename(join(root, at), join(root, &on)).expect("a rename");
            (true, true)
        }
        Some(Touch::Ignored) => {
            let folder = join(root, &at[..at.len() - 1].to_vec());
            std::fs::write(folder.join(".ignore"), "*\n").expect("an ignore file");
            (true, true)
        }
        None => (false, false),
    };
    (touched && inside) || removed || reordered
}

/// Checks one page against the oracle of the tree now: the first items
/// after `after` (the last item of the page before), `start` the items
/// before, and the total and completeness that follow.
fn check_page(
    what: &str,
    rows: &[Row],
    d: &Disclosure,
    expected_all: &[Row],
    after: Option<&Row>,
    start: u64,
    limits: &Limits,
) {
    let rest: Vec<&Row> = expected_all
        .iter()
        .filter(|r| after.is_none_or(|a| (&r.names, r.offset) > (&a.names, a.offset)))
        .collect();
    let limit = limits.get_limit().expect("a limit");
    let want: Vec<&Row> = rest.iter().take(limit).copied().collect();
    let got: Vec<&Row> = rows.iter().collect();
    assert_eq!(got, want, "{what}: items");
    assert_eq!(d.start(), start, "{what}: start");
    assert!(d.skipped().total() == 0, "{what}: {:?}", d.skipped());
    let rest_len = rest.len() as u64;
    if rest.len() > limit {
        assert!(
            matches!(d.completeness(), Completeness::TruncatedByLimit { .. }),
            "{what}: {:?}",
            d.completeness()
        );
        assert!(d.next_cursor().is_some(), "{what}: a cursor");
        if limits.get_count_total() {
            assert_eq!(d.total(), Total::Exact(start + rest_len), "{what}: total");
        } else {
            // At least one more than the page holds, and no more than
            // there are.
            let at_least = match d.total() {
                Total::AtLeast(n) => n,
                other => panic!("{what}: total {other:?}"),
            };
            let bound = start + limit as u64 + 1..=start + rest_len;
            assert!(
                bound.contains(&at_least),
                "{what}: total {at_least}, {bound:?}"
            );
        }
    } else {
        assert_eq!(d.completeness(), &Completeness::Exact, "{what}");
        assert!(d.next_cursor().is_none(), "{what}: no cursor");
        assert_eq!(d.total(), Total::Exact(start + rest_len), "{what}: total");
    }
}

fn watch(index: &Index, watched: bool) {
    if watched {
        // Where the tree cannot be watched, the index stays checked:
        // the answers are the same.
        let _ = index.watch().expect("watching starts or is declined");
    }
}

fn run_case(case: &Case) {
    let setup = Setup::new(&case.files, case.threads);
    let mut index = setup.build();
    watch(&index, case.watched);
    let limits = Limits::new()
        .limit(case.limit)
        .count_total(case.count_total);
    let mut cursor: Option<String> = None;
    let mut last: Option<Row> = None;
    let mut start = 0u64;
    let mut touched = false;
    for page in 0..400 {
        let what = format!("page {page}");
        let files = files_now(setup.root());
        let paths: BTreeMap<String, Names> =
            files.keys().map(|n| (written_path(n), n.clone())).collect();
        let expected_all = answer(&files, case.kind, &case.pattern);
        // The token as a client sends it back.
        let parsed = cursor
            .as_deref()
            .map(|t| Cursor::parse(t).expect("the token parses"));
        let asked = ask(
            &index,
            case.kind,
            &case.pattern,
            &limits,
            parsed.as_ref(),
            &paths,
        );
        if touched {
            let err = asked
                .expect_err("the cursor's file changed, or a file before it came or went: stale");
            assert!(
                matches!(err.kind(), ErrorKind::StaleCursor { .. }),
                "{what}: {err}"
            );
            return;
        }
        let (rows, d) = asked.unwrap_or_else(|e| panic!("{what}: refused: {e}"));
        check_page(
            &what,
            &rows,
            &d,
            &expected_all,
            last.as_ref(),
            start,
            &limits,
        );
        let Some(next) = d.next_cursor() else {
            return;
        };
        cursor = Some(next.to_string());
        start += rows.len() as u64;
        let mut at = rows
            .last()
            .expect("a page with a cursor holds items")
            .clone();
        // A search's cursor resumes inside its file when the file holds
        // more of the answer (a matching line, or a rest past a NUL byte
        // that is skipped); the others', and a search's after its file's
        // last, past its end, whatever it holds now: the later pages take
        // none of that file's items, as for a file before the cursor.
        let more_of_file = expected_all
            .iter()
            .any(|r| r.names == at.names && r.offset > at.offset)
            || files
                .get(&at.names)
                .and_then(|bytes| searched(bytes).map(|s| s.len() < bytes.len()))
                .unwrap_or(false);
        let inside = case.kind == Kind::Search && more_of_file;
        if let Some(step) = case.steps.get(page) {
            touched = apply(&setup, &at.names, step, inside);
            match step.upkeep {
                Upkeep::Nothing => {}
                Upkeep::Update => {
                    index.update().expect("an update");
                }
                Upkeep::UpdateAsSeen => {
                    index.update_as_seen().expect("an update");
                }
                Upkeep::Reopen => {
                    drop(index);
                    index = setup.reopen();
                    watch(&index, case.watched);
                }
            }
        }
        if !inside {
            at.offset = u64::MAX;
        }
        last = Some(at);
    }
    panic!("more than 400 pages");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Pages follow the tree as it changes around the cursor (files
    /// added, removed and rewritten before and after the cursor's, the
    /// index updated, its delta grown, opened again, checked or
    /// watched); a cursor is refused only when its file changed or a
    /// file before it was added or removed, as stale.
    #[test]
    fn a_walk_pages_to_the_answer_while_files_elsewhere_change(case in case()) {
        run_case(&case);
    }
}

// ---------------------------------------------------------------------
// Deterministic cases.

/// `n` files `f000.txt`.. in folders `d0`..`d3`, each with `per` lines
/// that match `needle`, and lines that do not.
fn numbered(n: usize, per: usize) -> Vec<(Names, Vec<u8>)> {
    (0..n)
        .map(|i| {
            let mut text = String::new();
            for k in 0..per {
                text.push_str(&format!("needle {i} {k}\nother {i} {k}\n"));
            }
            (
                vec![
                    format!("d{}", i % 4).into_bytes(),
                    format!("f{i:03}.txt").into_bytes(),
                ],
                text.into_bytes(),
            )
        })
        .collect()
}

/// The items of every page of a walk from `cursor` on, checked against
/// the oracle of the tree as each page reads it.
fn walk_from(
    setup: &Setup,
    index: &Index,
    limits: &Limits,
    mut cursor: Option<Cursor>,
    mut last: Option<Row>,
    mut start: u64,
) -> u64 {
    let pattern = Pattern::Literal("needle", false);
    for page in 0..1000 {
        let files = files_now(setup.root());
        let paths: BTreeMap<String, Names> =
            files.keys().map(|n| (written_path(n), n.clone())).collect();
        let expected_all = answer(&files, Kind::Search, &pattern);
        let (rows, d) = ask(
            index,
            Kind::Search,
            &pattern,
            limits,
            cursor.as_ref(),
            &paths,
        )
        .unwrap_or_else(|e| panic!("page {page}: {e}"));
        check_page(
            &format!("page {page}"),
            &rows,
            &d,
            &expected_all,
            last.as_ref(),
            start,
            limits,
        );
        start += rows.len() as u64;
        match d.next_cursor() {
            Some(next) => {
                cursor = Some(next.clone());
                last = rows.last().cloned();
            }
            None => return start,
        }
    }
    panic!("more than 1000 pages");
}

/// The first page, and the row its cursor resumes after.
fn first_page(index: &Index, setup: &Setup, limits: &Limits) -> (Cursor, Row, u64) {
    let files = files_now(setup.root());
    let paths: BTreeMap<String, Names> =
        files.keys().map(|n| (written_path(n), n.clone())).collect();
    let (rows, d) = ask(
        index,
        Kind::Search,
        &Pattern::Literal("needle", false),
        limits,
        None,
        &paths,
    )
    .expect("a first page");
    let cursor = d.next_cursor().expect("more pages").clone();
    (
        cursor,
        rows.last().expect("items").clone(),
        rows.len() as u64,
    )
}

fn base_files(store: &Path) -> BTreeSet<String> {
    std::fs::read_dir(store)
        .expect("the index's folder")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("base-") && n.ends_with(".grams"))
        .collect()
}

/// A cursor issued before each kind of index upkeep resumes after it:
/// an update, an update as seen, a compaction into a new base, another
/// process opening the index from disk, a watched index updated.
#[test]
fn an_issued_cursor_resumes_across_updates_compaction_and_a_reopen() {
    let setup = Setup::new(&numbered(40, 3), 2);
    let index = setup.build();
    let limits = Limits::new().limit(5).count_total(true);
    let scratch = setup.scratch.path();
    let put = |name: &str, text: &str| {
        let names = name.split('/').map(|n| n.as_bytes().to_vec()).collect();
        assert!(save(setup.root(), scratch, &names, text.as_bytes()));
    };
    let generation = index.generation();

    // An update between pages, after edits before and after the cursor
    // (the first page ends in d0/f004.txt; files come only after it).
    let (cursor, last, start) = first_page(&index, &setup, &limits);
    put("d0/f000.txt", "needle before\n");
    put("d3/f039.txt", "needle rewritten\n");
    put("d2/new.txt", "needle new\n");
    assert!(index.update().expect("an update"));
    assert!(index.generation() > generation);
    walk_from(&setup, &index, &limits, Some(cursor), Some(last), start);

    // A query that meets a change, then `update_as_seen` (as the grep
    // example does after each answer).
    let (cursor, last, start) = first_page(&index, &setup, &limits);
    put("d1/late.txt", "needle late\n");
    let _ = index
        .search(&Query::literal("needle"), &Limits::new(), None)
        .expect("a query");
    assert!(index.is_behind());
    assert!(index.update_as_seen().expect("an update"));
    walk_from(&setup, &index, &limits, Some(cursor), Some(last), start);

    // A delta large enough to be compacted into a new base.
    let (cursor, last, start) = first_page(&index, &setup, &limits);
    let bases = base_files(&setup.index_dir());
    for i in 0..300 {
        put(
            &format!("d{}/zbulk{i:03}.txt", i % 4),
            &format!("bulk {i}\n"),
        );
    }
    put("d2/f010.txt", "needle compacted\n");
    assert!(index.update().expect("an update"));
    assert_ne!(
        base_files(&setup.index_dir()),
        bases,
        "the update compacted"
    );
    walk_from(&setup, &index, &limits, Some(cursor), Some(last), start);

    // Another process: the index opened from disk, after an update made
    // by this one; the token carried across as text.
    let (cursor, last, start) = first_page(&index, &setup, &limits);
    put("d3/other.txt", "needle other\n");
    assert!(index.update().expect("an update"));
    let reopened = setup.reopen();
    let token: Cursor = cursor.to_string().parse().expect("a token");
    walk_from(&setup, &reopened, &limits, Some(token), Some(last), start);

    // Watched: the watcher reports, an update records, the cursor goes on.
    let (cursor, last, start) = first_page(&reopened, &setup, &limits);
    let _ = reopened.watch().expect("watching");
    put("d1/watched.txt", "needle watched\n");
    put("d0/f000.txt", "needle edited while watched\n");
    let _ = reopened.update().expect("an update");
    walk_from(&setup, &reopened, &limits, Some(cursor), Some(last), start);
}

/// The cursor's own file changed: refused as stale, after an update or
/// without one, and never resumed at an offset of its old text.
#[test]
fn a_cursor_is_stale_when_its_file_changed_and_only_then() {
    let setup = Setup::new(&numbered(12, 3), 1);
    let index = setup.build();
    let limits = Limits::new().limit(2);
    let (cursor, last, start) = first_page(&index, &setup, &limits);
    // Other files change; an update: it resumes.
    assert!(save(
        setup.root(),
        setup.scratch.path(),
        &vec![b"d0".to_vec(), b"f004.txt".to_vec()],
        b"needle x\n"
    ));
    assert!(index.update().expect("an update"));
    let resumed = index
        .search(&Query::literal("needle"), &limits, Some(&cursor))
        .expect("resumes");
    assert_eq!(resumed.start(), start);
    // Its own file changes (same size, same text): stale, with or
    // without an update.
    let at = join(setup.root(), &last.names);
    let text = std::fs::read(&at).expect("the cursor's file");
    assert!(save(setup.root(), setup.scratch.path(), &last.names, &text));
    for update in [false, true] {
        if update {
            let _ = index.update().expect("an update");
        }
        let err = index
            .search(&Query::literal("needle"), &limits, Some(&cursor))
            .expect_err("stale");
        assert!(matches!(err.kind(), ErrorKind::StaleCursor { .. }), "{err}");
    }
    // Removed: stale too.
    std::fs::remove_file(&at).expect("a removal");
    let err = index
        .search(&Query::literal("needle"), &limits, Some(&cursor))
        .expect_err("stale");
    assert!(matches!(err.kind(), ErrorKind::StaleCursor { .. }), "{err}");
}

/// A page whose last item is its file's last match resumes after that
/// file: an edit to it (more matches, another size) leaves the cursor
/// good, on the index (updated or not) and on the tree, and the walk
/// takes none of that file's new lines, as for any file before the
/// cursor. The file gone from the walk (removed, renamed past the cursor,
/// turned into a folder, ignored) makes it stale: the pages after it
/// would count its listed lines wrongly, or list them twice.
#[test]
fn a_cursor_after_its_files_last_match_resumes_after_the_file_edited() {
    let setup = Setup::new(&numbered(12, 2), 1);
    let index = setup.build();
    let limits = Limits::new().limit(2);
    let query = Query::literal("needle");
    let (cursor, mut last, start) = first_page(&index, &setup, &limits);
    assert_eq!(last.names, vec![b"d0".to_vec(), b"f000.txt".to_vec()]);
    // The page held the file's two matches: the cursor is past its end.
    last.offset = u64::MAX;
    let edited = b"needle new 1\nneedle new 2\nneedle new 3\n";
    assert!(save(
        setup.root(),
        setup.scratch.path(),
        &last.names,
        edited
    ));
    let first_of =
        |page: &Bounded<candor_search::Match>| page.items().first().map(|m| m.path.clone());
    let on_tree = setup
        .tree
        .search(&query, &limits, Some(&cursor))
        .expect("the tree resumes after the edited file");
    assert_eq!(first_of(&on_tree).as_deref(), Some("d0/f004.txt"));
    assert_eq!(on_tree.start(), start);
    let token: Cursor = cursor.to_string().parse().expect("a token");
    walk_from(
        &setup,
        &index,
        &limits,
        Some(token),
        Some(last.clone()),
        start,
    );
    let _ = index.update().expect("an update");
    walk_from(
        &setup,
        &index,
        &limits,
        Some(cursor.clone()),
        Some(last.clone()),
        start,
    );
    // Gone from the walk: stale, on the tree and the index, updated or
    // not. Each change is undone before the next.
    let own = join(setup.root(), &last.names);
    let stale = |what: &str| {
        for (corpus, result) in [
            ("tree", setup.tree.search(&query, &limits, Some(&cursor))),
            ("index", index.search(&query, &limits, Some(&cursor))),
        ] {
            let err = result.expect_err(what);
            assert!(
                matches!(err.kind(), ErrorKind::StaleCursor { .. }),
                "{what}, {corpus}: {err}"
            );
        }
        let _ = index.update().expect("an update");
        let err = index
            .search(&query, &limits, Some(&cursor))
            .expect_err(what);
        assert!(
            matches!(err.kind(), ErrorKind::StaleCursor { .. }),
            "{what}, updated: {err}"
        );
    };
    let renamed = join(setup.root(), &vec![b"d3".to_vec(), b"z.txt".to_vec()]);
    std::fs::rename(&own, &renamed).expect("a rename");
    stale("renamed past the cursor");
    std::fs::rename(&renamed, &own).expect("a rename back");
    std::fs::write(setup.root().join(".ignore"), "f000.txt\n").expect("an ignore file");
    stale("ignored");
    std::fs::remove_file(setup.root().join(".ignore")).expect("a removal");
    std::fs::remove_file(&own).expect("a removal");
    std::fs::create_dir(&own).expect("a folder");
    std::fs::write(own.join("needle.txt"), "needle\n").expect("a file");
    stale("a folder now");
    std::fs::remove_dir_all(&own).expect("a removal");
    stale("removed");
}

/// A cursor stays bound to its query and to the index's tree: the tree's
/// own cursors and the index's are one (each resumes on the other, where
/// the same page follows), and another query's, or an index's of other
/// walk rules, is refused as foreign; a page fitted to `max_bytes` is cut where the tree's is
/// (the cursors are as long).
#[test]
fn a_cursor_is_bound_to_its_query_and_its_tree() {
    let setup = Setup::new(&numbered(10, 2), 1);
    let index = setup.build();
    let limits = Limits::new().limit(3);
    let query = Query::literal("needle");
    let from_index = index.search(&query, &limits, None).expect("a page");
    let from_tree = setup.tree.search(&query, &limits, None).expect("a page");
    let foreign = |r: Result<Bounded<candor_search::Match>, candor_search::Error>| {
        let err = r.expect_err("foreign");
        assert!(
            matches!(err.kind(), ErrorKind::ForeignCursor { .. }),
            "{err}"
        );
    };
    // A scan may answer while its index builds, and the index the next
    // page: the cursors of the two resume on each other.
    let next_on_tree = setup.tree.search(&query, &limits, from_index.next_cursor());
    let next_on_index = index.search(&query, &limits, from_tree.next_cursor());
    let next_on_tree = next_on_tree.expect("the index's cursor resumes on the tree");
    let next_on_index = next_on_index.expect("the tree's cursor resumes on the index");
    assert_eq!(next_on_tree.items(), next_on_index.items());
    assert_eq!(next_on_tree.start(), 3);
    foreign(index.search(&Query::literal("other"), &limits, from_index.next_cursor()));
    let hidden_store = tempfile::tempdir().expect("a folder");
    let hidden =
        Index::build(setup.tree.clone().hidden(true), hidden_store.path()).expect("an index");
    foreign(hidden.search(&query, &limits, from_index.next_cursor()));
    assert_eq!(
        from_index.next_cursor().map(|c| c.as_str().len()),
        from_tree.next_cursor().map(|c| c.as_str().len()),
        "the index's cursor is as long as the tree's"
    );
    // Pages fitted to a byte budget: the same pages as the tree's.
    for max_bytes in [300, 450, 700, 1200] {
        let limits = Limits::new().limit(4).max_bytes(max_bytes);
        let (mut a, mut b): (Option<Cursor>, Option<Cursor>) = (None, None);
        for page in 0..200 {
            let t = setup.tree.search(&query, &limits, a.as_ref());
            let i = index.search(&query, &limits, b.as_ref());
            let (t, i) = match (t, i) {
                (Ok(t), Ok(i)) => (t, i),
                (Err(t), Err(i)) => {
                    assert_eq!(t.to_string(), i.to_string(), "{max_bytes}: page {page}");
                    break;
                }
                (t, i) => panic!("{max_bytes}: page {page}: {:?} {:?}", t.err(), i.err()),
            };
            assert_eq!(t.items(), i.items(), "{max_bytes}: page {page}");
            assert_eq!(
                t.completeness(),
                i.completeness(),
                "{max_bytes}: page {page}"
            );
            assert_eq!(t.total(), i.total(), "{max_bytes}: page {page}");
            assert_eq!(
                t.to_json().expect("json").len(),
                i.to_json().expect("json").len(),
                "{max_bytes}: page {page}"
            );
            (a, b) = (t.next_cursor().cloned(), i.next_cursor().cloned());
            if a.is_none() {
                assert!(b.is_none(), "{max_bytes}: page {page}");
                break;
            }
        }
    }
}

/// A cursor an earlier version issued, which named the index's
/// generation beside the same key, resumes as today's does; after its
/// file changed it is refused as stale, as today's is.
#[test]
fn a_cursor_that_names_a_generation_resumes_as_one_that_does_not() {
    type Key = (String, (u64, u64), Vec<u8>);
    let setup = Setup::new(&numbered(12, 3), 1);
    let index = setup.build();
    let limits = Limits::new().limit(4).count_total(true);
    let query = Query::literal("needle");
    let first = index.search(&query, &limits, None).expect("a page");
    let today = first.next_cursor().expect("more").clone();
    // The same key and start, under the same query, with the generation
    // it was issued at: the shape of the earlier cursors.
    let key: Key = Scope::new(today.fingerprint())
        .resume(&today)
        .expect("a search cursor's key");
    let earlier = Scope::new(today.fingerprint())
        .generation(index.generation())
        .cursor(&key, today.start());
    assert_ne!(earlier.as_str(), today.as_str());
    std::fs::write(setup.root().join("d1/new.txt"), "needle new\n").expect("a write");
    assert!(index.update().expect("an update"));
    let a = index
        .search(&query, &limits, Some(&today))
        .expect("resumes");
    let b = index
        .search(&query, &limits, Some(&earlier))
        .expect("resumes");
    assert_eq!(a, b);
    assert_eq!(a.start(), 4);
    // An excerpt's cursor of that shape resumes too.
    let excerpt = Excerpt::new("d2/f002.txt", 1..=6);
    let lines = index
        .excerpt(&excerpt, &Limits::new().limit(2), None)
        .expect("an excerpt");
    let excerpt_today = lines.next_cursor().expect("more lines").clone();
    // The line it resumes after, and its file's stamp.
    let after: (u64, u64) = Scope::new(excerpt_today.fingerprint())
        .resume(&excerpt_today)
        .expect("an excerpt cursor's key");
    let excerpt_earlier = Scope::new(excerpt_today.fingerprint())
        .generation(index.generation())
        .cursor(&after, excerpt_today.start());
    assert_eq!(
        index
            .excerpt(&excerpt, &Limits::new(), Some(&excerpt_today))
            .expect("resumes"),
        index
            .excerpt(&excerpt, &Limits::new(), Some(&excerpt_earlier))
            .expect("resumes"),
    );
    // Its file rewritten: both stale.
    let text = std::fs::read(setup.root().join(&key.0)).expect("the cursor's file");
    let names = key.0.split('/').map(|n| n.as_bytes().to_vec()).collect();
    assert!(save(setup.root(), setup.scratch.path(), &names, &text));
    for cursor in [&today, &earlier] {
        let err = index
            .search(&query, &limits, Some(cursor))
            .expect_err("stale");
        assert!(matches!(err.kind(), ErrorKind::StaleCursor { .. }), "{err}");
    }
    // The excerpt's file rewritten: its cursors stale too.
    let text = std::fs::read(setup.root().join("d2/f002.txt")).expect("the excerpt's file");
    let names = vec![b"d2".to_vec(), b"f002.txt".to_vec()];
    assert!(save(setup.root(), setup.scratch.path(), &names, &text));
    for cursor in [&excerpt_today, &excerpt_earlier] {
        let err = index
            .excerpt(&excerpt, &Limits::new(), Some(cursor))
            .expect_err("stale");
        assert!(matches!(err.kind(), ErrorKind::StaleCursor { .. }), "{err}");
    }
}

// ---------------------------------------------------------------------
// Concurrent writers.

/// Files that no writer touches, and files the writers rewrite, remove
/// and make again all the while, side by side in each folder.
const FOLDERS: usize = 4;
const STABLE: [&str; 4] = ["f0.txt", "f2.txt", "f4.txt", "f6.txt"];
const CHURN: [&str; 4] = ["f1.txt", "f3.txt", "f5.txt", "f7.txt"];

fn stable_text(folder: usize, file: usize) -> String {
    (0..3)
        .map(|k| format!("needle {folder} {file} {k}\nquiet line\n"))
        .collect()
}

/// Writes to churn files: each write counted before and after (an odd
/// count: a write under way), so that a reader can tell whether a file
/// could have changed within a span of time.
struct Writes {
    counts: BTreeMap<String, AtomicU64>,
    /// Writes done, all files together.
    done: AtomicU64,
    stop: AtomicBool,
}

impl Writes {
    fn snapshot(&self) -> BTreeMap<String, u64> {
        self.counts
            .iter()
            .map(|(p, c)| (p.clone(), c.load(Ordering::SeqCst)))
            .collect()
    }

    /// The writer `me` of `writers`: rewrites, removes and makes its
    /// own churn files, a pseudo-random one at a time, until stopped.
    fn write(&self, root: &Path, scratch: &Path, me: usize, writers: usize) {
        let mine: Vec<&String> = self
            .counts
            .keys()
            .enumerate()
            .filter(|(i, _)| i % writers == me)
            .map(|(_, p)| p)
            .collect();
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64 ^ me as u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        while !self.stop.load(Ordering::SeqCst) {
            let r = next();
            let path = mine[(r % mine.len() as u64) as usize];
            let count = &self.counts[path];
            count.fetch_add(1, Ordering::SeqCst);
            let names: Names = path.split('/').map(|n| n.as_bytes().to_vec()).collect();
            match (r >> 8) % 4 {
                // Emptied, not removed: a file that comes or goes before a
                // cursor makes it stale (the property above tests that),
                // and these walks are to end.
                0 => {
                    save(root, scratch, &names, b"");
                }
                _ => {
                    let lines = (r >> 16) % 5;
                    let text: String = (0..lines)
                        .map(|k| {
                            if (r >> (20 + k)) % 3 == 0 {
                                format!("needle churn {k}\n")
                            } else {
                                "churn\n".to_owned()
                            }
                        })
                        .collect();
                    save(root, scratch, &names, text.as_bytes());
                }
            }
            count.fetch_add(1, Ordering::SeqCst);
            self.done.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// Sets its flag when dropped, unwinding or not.
struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Walks pages while writers change the churn files (at least two
/// writes between any two pages, and more during them), and an
/// updater, when asked, updates the index all the while. Every
/// complete walk holds each stable file's matches once, in order; every
/// refusal is stale and names (by the page before it) a churn file
/// written since that page began.
fn walk_under_writers(watched: bool, updater: bool) {
    let mut files = Vec::new();
    for folder in 0..FOLDERS {
        for (i, name) in STABLE.iter().enumerate() {
            let names = vec![format!("d{folder}").into_bytes(), name.as_bytes().to_vec()];
            files.push((names, stable_text(folder, i).into_bytes()));
        }
    }
    let stable: BTreeSet<String> = files.iter().map(|(n, _)| written_path(n)).collect();
    let pattern = Pattern::Literal("needle", false);
    let stable_files: BTreeMap<Names, Vec<u8>> = files.iter().cloned().collect();
    let want = answer(&stable_files, Kind::Search, &pattern);
    let writes = Writes {
        counts: (0..FOLDERS)
            .flat_map(|f| CHURN.iter().map(move |c| format!("d{f}/{c}")))
            .chain(["d1/g-new.txt".to_owned(), "d9/new.txt".to_owned()])
            .map(|p| (p, AtomicU64::new(0)))
            .collect(),
        done: AtomicU64::new(0),
        stop: AtomicBool::new(false),
    };
    // The churn files are there from the start, and stay: their content
    // changes, and the files before a cursor stay the same files.
    for path in writes.counts.keys() {
        let names: Names = path.split('/').map(|n| n.as_bytes().to_vec()).collect();
        files.push((names, b"churn\n".to_vec()));
    }
    let setup = Setup::new(&files, 2);
    let index = setup.build();
    watch(&index, watched);
    let updates_failed = std::sync::Mutex::new(Vec::new());
    let limits = Limits::new().limit(3);
    let query = Query::literal("needle");
    let (mut complete, mut refusals) = (0, 0);
    std::thread::scope(|s| {
        for me in 0..2 {
            let (writes, root, scratch) = (&writes, setup.root(), setup.scratch.path());
            s.spawn(move || writes.write(root, scratch, me, 2));
        }
        if updater {
            s.spawn(|| {
                while !writes.stop.load(Ordering::SeqCst) {
                    if let Err(e) = index.update() {
                        updates_failed.lock().unwrap().push(e.to_string());
                    }
                    std::thread::yield_now();
                }
            });
        }
        // However the reader ends (a failed check too), the writers stop.
        let _stop = StopOnDrop(&writes.stop);
        'walks: for _ in 0..60 {
            let mut items: Vec<candor_search::Match> = Vec::new();
            let mut cursor: Option<Cursor> = None;
            let mut before_last_page = writes.snapshot();
            for _ in 0..500 {
                if cursor.is_some() {
                    let done = writes.done.load(Ordering::SeqCst);
                    while writes.done.load(Ordering::SeqCst) < done + 2 {
                        std::thread::yield_now();
                    }
                }
                let before = writes.snapshot();
                match index.search(&query, &limits, cursor.as_ref()) {
                    Ok(page) => {
                        assert_eq!(page.start(), items.len() as u64, "start");
                        items.extend(page.iter().cloned());
                        cursor = page.next_cursor().cloned();
                        before_last_page = before;
                        if cursor.is_none() {
                            break;
                        }
                    }
                    Err(err) => {
                        // Stale, whenever the file was written: the
                        // cursor records the stamp of the version the
                        // page read, so a file rewritten after its read
                        // (before the page ended, or before the resume
                        // opened it) is refused, never resumed at an
                        // offset of its old text.
                        assert!(matches!(err.kind(), ErrorKind::StaleCursor { .. }), "{err}");
                        let file = &items.last().expect("a page before").path;
                        let now = writes.snapshot();
                        let (Some(&then), Some(&now)) = (before_last_page.get(file), now.get(file))
                        else {
                            panic!("refused in {file}, which no writer touches: {err}");
                        };
                        assert!(
                            then % 2 == 1 || now != then,
                            "refused in {file}, not written since its page: {err}"
                        );
                        refusals += 1;
                        continue 'walks;
                    }
                }
            }
            assert!(cursor.is_none(), "a walk of more than 500 pages");
            // No duplicate, no step back: path order, then offset.
            for pair in items.windows(2) {
                let key = |m: &candor_search::Match| {
                    let names: Names = m.path.split('/').map(|n| n.as_bytes().to_vec()).collect();
                    (names, m.byte_offset)
                };
                assert!(
                    key(&pair[0]) < key(&pair[1]),
                    "{:?} then {:?}",
                    pair[0],
                    pair[1]
                );
            }
            // No gap: the stable files' matches, every one.
            let got: Vec<Row> = items
                .iter()
                .filter(|m| stable.contains(&m.path))
                .map(|m| {
                    let spans: Vec<(usize, usize)> =
                        m.matches.iter().map(|s| (s.start, s.end)).collect();
                    Row {
                        names: m.path.split('/').map(|n| n.as_bytes().to_vec()).collect(),
                        offset: m.byte_offset,
                        shown: format!("{}:{}:{}:{spans:?}", m.path, m.line_number, m.line),
                    }
                })
                .collect();
            assert_eq!(got, want, "the stable files' matches");
            complete += 1;
            if complete == 2 {
                break;
            }
        }
    });
    assert!(
        updates_failed.lock().unwrap().is_empty(),
        "{:?}",
        updates_failed.lock().unwrap()
    );
    assert_eq!(complete, 2, "complete walks ({refusals} refused)");
}

#[test]
fn pages_read_while_other_files_are_written_lose_nothing_checked() {
    walk_under_writers(false, false);
}

#[test]
fn pages_read_while_other_files_are_written_and_indexed_lose_nothing() {
    walk_under_writers(false, true);
}

#[test]
fn pages_read_while_other_files_are_written_lose_nothing_watched() {
    walk_under_writers(true, true);
}

/// Watched, a cursor's count of the files before it is kept while the
/// watcher reports nothing; an ignore file above the root, which no
/// watcher watches, that lets a file before the cursor in makes it stale
/// all the same, at once.
#[test]
fn an_ignore_file_above_the_root_that_lets_a_file_in_before_a_watched_cursor_makes_it_stale() {
    let top = tempfile::tempdir().expect("a folder");
    let root = top.path().join("sub");
    std::fs::create_dir(&root).expect("a folder");
    std::fs::write(top.path().join(".ignore"), "a.txt\n").expect("an ignore file");
    for name in ["a.txt", "b.txt", "c.txt"] {
        std::fs::write(root.join(name), "needle\nneedle\n").expect("a file");
    }
    let store = tempfile::tempdir().expect("a folder");
    let index = Index::build(Tree::new(&root).expect("a tree"), store.path()).expect("built");
    if !index.watch().expect("watching starts or is declined") {
        return;
    }
    let query = Query::literal("needle");
    let limits = Limits::new().limit(3);
    let first = index.search(&query, &limits, None).expect("a page");
    assert_eq!(first.items()[0].path, "b.txt", "a.txt is ignored");
    let cursor = first.next_cursor().expect("more").clone();
    // Resumed with nothing changed: it goes on (the kept count serves).
    let rest = index
        .search(&query, &limits, Some(&cursor))
        .expect("resumes");
    assert_eq!((rest.start(), rest.len()), (3, 1));
    std::fs::write(top.path().join(".ignore"), "zzz\n").expect("an ignore file");
    let err = index
        .search(&query, &limits, Some(&cursor))
        .expect_err("a.txt came in before the cursor");
    assert!(matches!(err.kind(), ErrorKind::StaleCursor { .. }), "{err}");
}

/// Watched, a cursor's count of the files before it is kept across an
/// update that only changed texts (an agent edits a file it paged
/// through): the cursor resumes. An update after a file came in before
/// the cursor does not keep it: stale, with the update or without one.
#[test]
fn a_watched_cursor_outlives_an_update_of_texts_and_not_one_that_adds_a_file_before_it() {
    let root = tempfile::tempdir().expect("a folder");
    for name in ["b.txt", "c.txt", "d.txt"] {
        std::fs::write(root.path().join(name), "needle\nneedle\n").expect("a file");
    }
    let store = tempfile::tempdir().expect("a folder");
    let tree = Tree::new(root.path()).expect("a tree");
    let index = Index::build(tree, store.path()).expect("built");
    if !index.watch().expect("watching starts or is declined") {
        return;
    }
    let query = Query::literal("needle");
    let limits = Limits::new().limit(3);
    let first = index.search(&query, &limits, None).expect("a page");
    let cursor = first.next_cursor().expect("more").clone();
    let resume = || index.search(&query, &limits, Some(&cursor));
    for round in 0..3 {
        // The text of a file before the cursor, longer each round.
        let text = "needle\n".repeat(3 + round);
        std::fs::write(root.path().join("b.txt"), text).expect("an edit");
        for updated in [false, true] {
            if updated {
                let _ = index.update().expect("an update");
            }
            let rest = resume().unwrap_or_else(|e| panic!("round {round}: {e}"));
            assert_eq!((rest.start(), rest.len()), (3, 3), "round {round}");
        }
    }
    std::fs::write(root.path().join("a.txt"), "other\n").expect("a file before it");
    for updated in [false, true] {
        if updated {
            let _ = index.update().expect("an update");
        }
        let err = resume().expect_err("a file came in before the cursor");
        assert!(
            matches!(err.kind(), ErrorKind::StaleCursor { .. }),
            "updated {updated}: {err}"
        );
    }
}

/// A cursor inside a file that an ignore file then leaves out is stale,
/// on the tree and on the index, checked or updated: the rest of the
/// file's lines would be lost, and the lines listed counted wrongly. Once
/// the rule is gone, it resumes.
#[test]
fn a_cursor_inside_a_file_that_becomes_ignored_is_stale() {
    let setup = Setup::new(&numbered(12, 3), 1);
    let index = setup.build();
    let limits = Limits::new().limit(2);
    let query = Query::literal("needle");
    let (cursor, last, _) = first_page(&index, &setup, &limits);
    assert_eq!(last.names, vec![b"d0".to_vec(), b"f000.txt".to_vec()]);
    let ignore = setup.root().join("d0").join(".ignore");
    std::fs::write(&ignore, "f000.txt\n").expect("an ignore file");
    for update in [false, true] {
        if update {
            let _ = index.update().expect("an update");
        }
        for (corpus, result) in [
            ("tree", setup.tree.search(&query, &limits, Some(&cursor))),
            ("index", index.search(&query, &limits, Some(&cursor))),
        ] {
            let err = result.expect_err("the cursor's file is ignored");
            assert!(
                matches!(err.kind(), ErrorKind::StaleCursor { .. }),
                "{corpus}, updated {update}: {err}"
            );
        }
    }
    std::fs::remove_file(&ignore).expect("a removal");
    let rest = setup
        .tree
        .search(&query, &limits, Some(&cursor))
        .expect("resumes once the rule is gone");
    assert_eq!(rest.start(), 2);
    assert_eq!(rest.items()[0].path, "d0/f000.txt");
}
