//! `Tree::max_depth`, ripgrep's `--max-depth`, over generated trees (hidden
//! names, ignore files, names that are not UTF-8, links followed or not,
//! binary files, paths named): against a naive recursive walk written
//! here, for every query kind, page by page, on one thread and several,
//! through the index, and against `rg` itself when it is on PATH (see
//! `binary_named::ripgrep`); and the grep example's `--max-depth`.
#![cfg(all(feature = "tree", unix))]

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use candor_search::{Bounded, Corpus, Limits, Query, SkipReason, Tree};
use proptest::prelude::*;

use crate::binary_named::ripgrep;
use crate::examples_cli::example;
use crate::fixture::{threaded, written_path};
use crate::pages::pages;

// ---------------------------------------------------------------------------
// The oracle: a naive recursive walk

/// Matching lines by path (as candor writes a tree's paths), each path's
/// line numbers in order.
type Lines = BTreeMap<String, Vec<u64>>;

/// The walk's rules, as the tree is set.
struct Oracle<'a> {
    root: &'a Path,
    hidden: bool,
    follow: bool,
    max_depth: usize,
}

/// What the oracle found: the matching lines, and how many folders the
/// depth limit kept out.
#[derive(Default)]
struct Found {
    lines: Lines,
    not_entered: u64,
}

fn os(name: &[u8]) -> &OsStr {
    OsStr::from_bytes(name)
}

fn full(root: &Path, names: &[Vec<u8>]) -> PathBuf {
    names.iter().fold(root.to_path_buf(), |p, n| p.join(os(n)))
}

/// The rules of the `.gitignore` in the folder at `dir`, if any: each a
/// name, `name/` (folders only) or `*.ext`.
fn rules_in(dir: &Path) -> Vec<String> {
    let Ok(meta) = std::fs::symlink_metadata(dir.join(".gitignore")) else {
        return Vec::new();
    };
    if !meta.is_file() {
        return Vec::new();
    }
    std::fs::read_to_string(dir.join(".gitignore"))
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Whether a rule of a folder above leaves out an entry named `name`.
fn ignored(rules: &[String], name: &[u8], is_dir: bool) -> bool {
    rules.iter().any(|rule| {
        if let Some(ext) = rule.strip_prefix('*') {
            name.ends_with(ext.as_bytes())
        } else if let Some(dir) = rule.strip_suffix('/') {
            is_dir && name == dir.as_bytes()
        } else {
            name == rule.as_bytes()
        }
    })
}

impl Oracle<'_> {
    /// The walk of the whole tree (`named` empty), or of each path named.
    fn run(&self, named: &[Vec<Vec<u8>>]) -> Found {
        let mut found = Found::default();
        let root = self.root.canonicalize().unwrap();
        if named.is_empty() {
            self.walk(&[], 0, rules_in(self.root), vec![root], &mut found);
            return found;
        }
        for path in named {
            let at = full(self.root, path);
            let Ok(meta) = std::fs::symlink_metadata(&at) else {
                continue;
            };
            if meta.is_file() {
                self.search(path, true, &mut found);
            } else if meta.is_dir() {
                // The rules and folders on the way to it.
                let mut rules = rules_in(self.root);
                let mut chain = vec![root.clone()];
                for k in 1..=path.len() {
                    let folder = full(self.root, &path[..k]);
                    rules.extend(rules_in(&folder));
                    chain.push(folder.canonicalize().unwrap());
                }
                chain.pop();
                self.walk(path, 0, rules, chain, &mut found);
            }
        }
        found
    }

    /// The folder at `rel`, `depth` below the path named (or the root):
    /// its rules already in `rules` (those above it too), `chain` the
    /// folders the walk is in.
    fn walk(
        &self,
        rel: &[Vec<u8>],
        depth: usize,
        rules: Vec<String>,
        mut chain: Vec<PathBuf>,
        found: &mut Found,
    ) {
        if depth >= self.max_depth {
            found.not_entered += 1;
            return;
        }
        let dir = full(self.root, rel);
        if let Ok(here) = dir.canonicalize() {
            if chain.last() != Some(&here) {
                chain.push(here);
            }
        }
        let mut names: Vec<Vec<u8>> = std::fs::read_dir(&dir)
            .map(|list| {
                list.flatten()
                    .map(|e| e.file_name().as_bytes().to_vec())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        for name in names {
            let mut child = rel.to_vec();
            child.push(name.clone());
            let at = full(self.root, &child);
            let Ok(meta) = std::fs::symlink_metadata(&at) else {
                continue;
            };
            if !self.hidden && name.starts_with(b".") {
                continue;
            }
            if ignored(&rules, &name, meta.is_dir()) {
                continue;
            }
            let inner = |found: &mut Found, chain: Vec<PathBuf>| {
                let mut below = rules.clone();
                below.extend(rules_in(&at));
                self.walk(&child, depth + 1, below, chain, found);
            };
            if meta.is_file() {
                self.search(&child, false, found);
            } else if meta.is_dir() {
                inner(found, chain.clone());
            } else if meta.file_type().is_symlink() && self.follow {
                // Followed only inside the root, never into a folder the
                // walk is in; the limit is asked first.
                let Ok(target) = at.canonicalize() else {
                    continue;
                };
                if !target.starts_with(&chain[0]) {
                    continue;
                }
                if target.is_file() {
                    self.search(&child, false, found);
                } else if target.is_dir() {
                    if depth + 1 >= self.max_depth {
                        found.not_entered += 1;
                    } else if !chain.contains(&target) {
                        let mut chain = chain.clone();
                        chain.push(target);
                        inner(found, chain);
                    }
                }
            }
        }
    }

    /// The matching lines of the file at `rel`: all of them when it is
    /// named, none when a walk meets it binary (a NUL byte: these files
    /// are small).
    fn search(&self, rel: &[Vec<u8>], named: bool, found: &mut Found) {
        let bytes = std::fs::read(full(self.root, rel)).unwrap_or_default();
        if !named && bytes.contains(&0) {
            return;
        }
        let mut numbers = Vec::new();
        let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
        if bytes.ends_with(b"\n") || bytes.is_empty() {
            lines.pop();
        }
        for (i, line) in lines.iter().enumerate() {
            if line.windows(6).any(|w| w == b"needle") {
                numbers.push(i as u64 + 1);
            }
        }
        if !numbers.is_empty() {
            found.lines.insert(written_path(rel), numbers);
        }
    }
}

// ---------------------------------------------------------------------------
// Generated trees

/// A name: plain, spaced, accented, hidden, with a backslash, not UTF-8,
/// or one an ignore rule names.
fn name() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(b"a".to_vec()),
        Just(b"b".to_vec()),
        Just(b"c d".to_vec()),
        Just(b".h".to_vec()),
        Just("\u{e9}".as_bytes().to_vec()),
        Just(b"x\\y".to_vec()),
        Just(vec![0xff, b'n']),
        Just(b"k.log".to_vec()),
        Just(b"z.txt".to_vec()),
    ]
}

/// Where a link points.
#[derive(Debug, Clone)]
enum Target {
    /// Another entry of the tree (a file or a folder), by index.
    Entry(usize),
    /// The folder that holds the link's folder: a loop when followed.
    Up,
    /// Nothing.
    Broken,
    /// A folder outside the root.
    Outside,
}

#[derive(Debug, Clone)]
enum Node {
    File(Vec<u8>),
    Dir,
    Link(Target),
}

fn text() -> impl Strategy<Value = Vec<u8>> {
    let line = prop_oneof![
        3 => Just(&b"needle here"[..]),
        2 => Just(&b"other"[..]),
        2 => Just(&b"needle"[..]),
        1 => Just(&b""[..]),
        1 => Just(&b"bin\0ary needle"[..]),
    ];
    (prop::collection::vec(line, 1..4), any::<bool>()).prop_map(|(lines, end)| {
        let mut text = lines.join(&b'\n');
        if end {
            text.push(b'\n');
        }
        text
    })
}

fn node() -> impl Strategy<Value = Node> {
    prop_oneof![
        7 => text().prop_map(Node::File),
        1 => Just(Node::Dir),
        2 => prop_oneof![
            3 => any::<prop::sample::Index>().prop_map(|i| Target::Entry(i.index(64))),
            1 => Just(Target::Up),
            1 => Just(Target::Broken),
            1 => Just(Target::Outside),
        ]
        .prop_map(Node::Link),
    ]
}

#[derive(Debug, Clone)]
struct Spec {
    entries: Vec<(Vec<Vec<u8>>, Node)>,
    /// `.gitignore` files: the folder (an entry's folder, by index; the
    /// root when none) and its rules.
    ignores: Vec<(Option<usize>, Vec<&'static str>)>,
    hidden: bool,
    follow: bool,
    max_depth: usize,
    /// Paths named: entries, by index, and whether a missing one too.
    named: Vec<usize>,
    missing: bool,
    limit: usize,
}

fn spec() -> impl Strategy<Value = Spec> {
    let rule = prop::sample::select(vec!["k.log", "b", "b/", "*.log", ".h", "z.txt", "c d"]);
    (
        prop::collection::vec((prop::collection::vec(name(), 1..5), node()), 3..20),
        prop::collection::vec(
            (
                prop::option::of(any::<prop::sample::Index>().prop_map(|i| i.index(64))),
                prop::collection::vec(rule, 1..3),
            ),
            0..3,
        ),
        (any::<bool>(), any::<bool>(), 0usize..5),
        (
            prop_oneof![
                2 => Just(Vec::new()),
                1 => prop::collection::vec(any::<prop::sample::Index>().prop_map(|i| i.index(64)), 1..3),
            ],
            prop_oneof![4 => Just(false), 1 => Just(true)],
            1usize..4,
        ),
    )
        .prop_map(
            |(entries, ignores, (hidden, follow, max_depth), (named, missing, limit))| Spec {
                entries,
                ignores,
                hidden,
                follow,
                max_depth,
                named,
                missing,
                limit,
            },
        )
}

/// The tree of a spec, written: files and folders first (a path a file
/// blocks is passed over), then the links, then the ignore files. Returns
/// the paths named that are there as files or folders (none through a
/// link, none inside another), and whether a link leads out of the root.
fn build(spec: &Spec, root: &Path, outside: &Path) -> (Vec<Vec<Vec<u8>>>, bool) {
    for (names, node) in &spec.entries {
        let path = full(root, names);
        match node {
            Node::File(text) => {
                if path
                    .parent()
                    .is_some_and(|p| std::fs::create_dir_all(p).is_ok())
                    && std::fs::symlink_metadata(&path).is_err()
                {
                    let _ = std::fs::write(&path, text);
                }
            }
            Node::Dir => {
                let _ = std::fs::create_dir_all(&path);
            }
            Node::Link(_) => {}
        }
    }
    let mut leaves = false;
    for (names, node) in &spec.entries {
        let Node::Link(target) = node else { continue };
        let path = full(root, names);
        let Some(parent) = path.parent() else {
            continue;
        };
        if std::fs::create_dir_all(parent).is_err() || std::fs::symlink_metadata(&path).is_ok() {
            continue;
        }
        let to: PathBuf = match target {
            Target::Entry(i) => {
                let (other, _) = &spec.entries[i % spec.entries.len()];
                let up = "../".repeat(names.len() - 1);
                PathBuf::from(up).join(full(Path::new(""), other))
            }
            Target::Up => PathBuf::from(".."),
            Target::Broken => PathBuf::from("missing-target"),
            Target::Outside => {
                leaves = true;
                outside.to_path_buf()
            }
        };
        let _ = std::os::unix::fs::symlink(&to, &path);
    }
    for (folder, rules) in &spec.ignores {
        let dir = match folder {
            Some(i) => {
                let (names, _) = &spec.entries[i % spec.entries.len()];
                full(root, &names[..names.len() - 1])
            }
            None => root.to_path_buf(),
        };
        if std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
            let _ = std::fs::write(dir.join(".gitignore"), rules.join("\n") + "\n");
        }
    }
    // Paths named: there, through no link, none inside another.
    let mut named: Vec<Vec<Vec<u8>>> = Vec::new();
    for i in &spec.named {
        let (names, _) = &spec.entries[i % spec.entries.len()];
        let plain = (1..=names.len()).all(|k| {
            std::fs::symlink_metadata(full(root, &names[..k]))
                .is_ok_and(|m| !m.file_type().is_symlink())
        });
        let nested = named
            .iter()
            .any(|n| names.starts_with(n) || n.starts_with(names));
        if plain && !nested {
            named.push(names.clone());
        }
    }
    (named, leaves)
}

// ---------------------------------------------------------------------------
// The checks

fn lines_of(pages: &[Bounded<candor_search::Match>]) -> Lines {
    let mut lines = Lines::new();
    for m in pages.iter().flat_map(|p| p.iter()) {
        lines.entry(m.path.clone()).or_default().push(m.line_number);
    }
    lines
}

fn not_entered<T>(pages: &[Bounded<T>]) -> u64 {
    pages
        .iter()
        .map(|p| p.skipped().count(&SkipReason::MaxDepth))
        .sum()
}

/// Every query kind on `tree`, whole and page by page, against the
/// oracle's `want`.
fn check_tree(
    what: &str,
    tree: &Tree,
    query: &Query,
    limit: usize,
    want: &Found,
) -> Result<(), TestCaseError> {
    let whole = tree.search(query, &Limits::new(), None).unwrap();
    prop_assert_eq!(
        lines_of(std::slice::from_ref(&whole)),
        want.lines.clone(),
        "{}",
        what
    );
    prop_assert_eq!(
        not_entered(std::slice::from_ref(&whole)),
        want.not_entered,
        "{}",
        what
    );
    let limits = Limits::new().limit(limit);
    let walked = pages(what, 500, |c| tree.search(query, &limits, c));
    let items: Vec<_> = walked.iter().flat_map(|p| p.iter().cloned()).collect();
    prop_assert_eq!(items, whole.items().to_vec(), "{}: pages", what);
    prop_assert_eq!(not_entered(&walked), want.not_entered, "{}: pages", what);

    let counts: BTreeMap<String, u64> = want
        .lines
        .iter()
        .map(|(p, l)| (p.clone(), l.len() as u64))
        .collect();
    let walked = pages(what, 500, |c| tree.count_per_file(query, &limits, c));
    let got: BTreeMap<String, u64> = walked
        .iter()
        .flat_map(|p| p.iter().map(|c| (c.path.clone(), c.count)))
        .collect();
    prop_assert_eq!(got, counts, "{}: counts", what);
    prop_assert_eq!(not_entered(&walked), want.not_entered, "{}: counts", what);

    let walked = pages(what, 500, |c| tree.files_with_matches(query, &limits, c));
    let mut got: Vec<String> = walked.iter().flat_map(|p| p.iter().cloned()).collect();
    got.sort();
    prop_assert_eq!(
        got,
        want.lines.keys().cloned().collect::<Vec<_>>(),
        "{}: files",
        what
    );
    prop_assert_eq!(not_entered(&walked), want.not_entered, "{}: files", what);
    Ok(())
}

/// Decodes standard base64 (ripgrep's `--json` writes a path that is not
/// UTF-8 so).
fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let digits: Vec<u8> = text.bytes().filter(|&c| c != b'=').map(value).collect();
    let mut out = Vec::new();
    for group in digits.chunks(4) {
        let n = group
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, d)| n | u32::from(*d) << (18 - 6 * i));
        out.extend(&n.to_be_bytes()[1..group.len()]);
    }
    out
}

/// The matching lines `rg --json` finds, run in `root` with `args`.
fn by_ripgrep(rg: &Path, root: &Path, args: &[&OsStr]) -> Lines {
    let out = Command::new(rg)
        .args([
            "--no-config",
            "--json",
            "--mmap",
            "--no-require-git",
            "--no-ignore-global",
        ])
        .args(args)
        .current_dir(root)
        .output()
        .unwrap();
    let mut lines = Lines::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        if value["type"] != "match" {
            continue;
        }
        let path = &value["data"]["path"];
        let raw = match path["text"].as_str() {
            Some(text) => text.as_bytes().to_vec(),
            None => base64(path["bytes"].as_str().unwrap_or_default()),
        };
        let names: Vec<Vec<u8>> = raw.split(|&b| b == b'/').map(<[u8]>::to_vec).collect();
        let number = value["data"]["line_number"].as_u64().unwrap_or(0);
        lines.entry(written_path(&names)).or_default().push(number);
    }
    for numbers in lines.values_mut() {
        numbers.sort_unstable();
    }
    lines
}

/// `rg`, found once.
fn rg() -> Option<&'static Path> {
    static RG: OnceLock<Option<PathBuf>> = OnceLock::new();
    RG.get_or_init(|| ripgrep("tree_depth")).as_deref()
}

fn check(spec: &Spec) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("out.txt"), "needle outside\n").unwrap();
    let root = dir.path();
    let (mut named, leaves) = build(spec, root, outside.path());
    if spec.missing {
        named.push(vec![b"nope".to_vec(), b"missing.txt".to_vec()]);
    }
    let paths: Vec<String> = named.iter().map(|n| written_path(n)).collect();
    let oracle = Oracle {
        root,
        hidden: spec.hidden,
        follow: spec.follow,
        max_depth: spec.max_depth,
    };
    let want = oracle.run(&named);
    let query = Query::literal("needle").paths(paths.clone());
    let tree = Tree::new(root)
        .unwrap()
        .hidden(spec.hidden)
        .follow_links(spec.follow)
        .max_depth(spec.max_depth);
    prop_assert_eq!(tree.get_max_depth(), Some(spec.max_depth));
    let [one, _, four] = threaded(tree.clone());
    for (what, t) in [one, four] {
        check_tree(&format!("{what}, {spec:?}"), &t, &query, spec.limit, &want)?;
    }
    // Without a limit, the same tree answers as without `max_depth` where
    // the limit is deeper than the tree.
    if spec.max_depth == 4 {
        let deep = Tree::new(root)
            .unwrap()
            .hidden(spec.hidden)
            .follow_links(spec.follow)
            .max_depth(64);
        let unlimited = Tree::new(root)
            .unwrap()
            .hidden(spec.hidden)
            .follow_links(spec.follow);
        let (a, b) = (
            deep.search(&query, &Limits::new(), None).unwrap(),
            unlimited.search(&query, &Limits::new(), None).unwrap(),
        );
        prop_assert_eq!(a.items(), b.items());
        prop_assert_eq!(a.skipped().count(&SkipReason::MaxDepth), 0);
    }
    #[cfg(feature = "index")]
    {
        let store = tempfile::tempdir().unwrap();
        let index = candor_search::Index::build(tree.clone(), store.path()).unwrap();
        crate::index_corpus::compare_all(&tree, &index, &query, &Limits::new().limit(spec.limit));
    }
    // ripgrep, where it would not follow a link out of the root.
    if let Some(rg) = rg().filter(|_| !(leaves && spec.follow)) {
        let depth = spec.max_depth.to_string();
        let mut args: Vec<&OsStr> = vec![OsStr::new("--max-depth"), OsStr::new(&depth)];
        if spec.hidden {
            args.push(OsStr::new("--hidden"));
        }
        if spec.follow {
            args.push(OsStr::new("-L"));
        }
        args.push(OsStr::new("needle"));
        let raw: Vec<PathBuf> = named.iter().map(|n| full(Path::new(""), n)).collect();
        args.extend(raw.iter().map(|p| p.as_os_str()));
        prop_assert_eq!(
            by_ripgrep(rg, root, &args),
            want.lines.clone(),
            "rg, {:?}",
            spec
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// The depth limit as the naive walk applies it, for every query kind
    /// and page by page, and as ripgrep applies it.
    #[test]
    fn the_depth_limit_walks_as_a_naive_walk_and_as_ripgrep(spec in spec()) {
        check(&spec)?;
    }
}

// ---------------------------------------------------------------------------
// Named paths and the depth limit

/// A tree three folders deep, a file at each level.
fn layered() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("top.txt", "needle 0\n"),
        ("a/one.txt", "needle 1\n"),
        ("a/b/two.txt", "needle 2\n"),
        ("a/b/c/three.txt", "needle 3\n"),
        ("a/b/c/.deep.txt", "needle 3, hidden\n"),
        ("z/one.txt", "needle 1\n"),
    ] {
        crate::fixture::write(dir.path(), name, text.as_bytes());
    }
    dir
}

#[test]
fn a_folder_on_the_way_to_a_path_named_is_counted_once_at_the_limit() {
    let dir = layered();
    let tree = Tree::new(dir.path()).unwrap().max_depth(1);
    // "a" is walked one level down; "a/b" is at the limit from "a", and
    // on the way to the file named below it: counted once, and only the
    // way to the file walked.
    let query = Query::literal("needle").paths(["a", "a/b/c/three.txt"]);
    let found = tree.search(&query, &Limits::new(), None).unwrap();
    let paths: Vec<&str> = found.iter().map(|m| m.path.as_str()).collect();
    assert_eq!(paths, ["a/b/c/three.txt", "a/one.txt"]);
    assert_eq!(found.skipped().count(&SkipReason::MaxDepth), 1);
    assert_eq!(found.skipped().sample()[0].path(), "a/b");
    assert!(found.is_complete());
    // Page by page, told once, whichever page resumes inside "a/b".
    let walked = pages("on the way", 10, |c| {
        tree.search(&query, &Limits::new().limit(1), c)
    });
    assert_eq!(not_entered(&walked), 1);
    // Depth 0: only the files named; a folder named is not entered.
    let zero = Tree::new(dir.path()).unwrap().max_depth(0);
    let found = zero
        .search(
            &Query::literal("needle").paths(["a", "top.txt"]),
            &Limits::new(),
            None,
        )
        .unwrap();
    let paths: Vec<&str> = found.iter().map(|m| m.path.as_str()).collect();
    assert_eq!(paths, ["top.txt"]);
    assert_eq!(found.skipped().count(&SkipReason::MaxDepth), 1);
    // The folder named is not entered, as the depth asked: policy.
    assert!(found.is_complete());
    // The root itself, with no path named.
    let found = zero
        .search(&Query::literal("needle"), &Limits::new(), None)
        .unwrap();
    assert!(found.is_empty() && found.is_complete());
    assert_eq!(found.skipped().sample()[0].path(), "");
    assert_eq!(found.skipped().sample()[0].reason(), &SkipReason::MaxDepth);
    // find_in_file and excerpt name their file: no depth applies.
    let deep = zero
        .find_in_file(
            "a/b/c/three.txt",
            &Query::literal("needle"),
            &Limits::new(),
            None,
        )
        .unwrap();
    assert_eq!(deep.len(), 1);
    // A cursor of one depth is refused by a tree of another.
    let one = Tree::new(dir.path()).unwrap().max_depth(2);
    let two = Tree::new(dir.path()).unwrap().max_depth(3);
    let page = one
        .search(&Query::literal("needle"), &Limits::new().limit(1), None)
        .unwrap();
    let cursor = page.next_cursor().expect("more than one match");
    assert!(
        two.search(
            &Query::literal("needle"),
            &Limits::new().limit(1),
            Some(cursor)
        )
        .is_err()
    );
}

#[test]
fn the_grep_example_s_max_depth_is_ripgrep_s() {
    let dir = layered();
    let rg = ripgrep("tree_depth: grep --max-depth");
    let cases: &[&[&str]] = &[
        &["--max-depth", "0"],
        &["--max-depth", "1"],
        &["--max-depth", "2"],
        &["--max-depth", "0", "a"],
        &["--max-depth", "1", "a"],
        &["--max-depth", "1", "a", "z"],
        &["--max-depth", "0", "a/one.txt", "a/b"],
        &["--max-depth", "1", "a/b", "top.txt"],
    ];
    for case in cases {
        let (flags, paths) = case.split_at(2);
        let out = Command::new(example("grep"))
            .args(flags)
            .arg("needle")
            .args(paths)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let mut got: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| l.split(':').take(2).collect::<Vec<_>>().join(":"))
            .collect();
        got.sort();
        // The oracle's answer, as `path:line` from the current folder.
        let depth: usize = flags[1].parse().unwrap();
        let named: Vec<Vec<Vec<u8>>> = paths
            .iter()
            .map(|p| p.split('/').map(|n| n.as_bytes().to_vec()).collect())
            .collect();
        let oracle = Oracle {
            root: dir.path(),
            hidden: false,
            follow: false,
            max_depth: depth,
        };
        let mut want: Vec<String> = oracle
            .run(&named)
            .lines
            .iter()
            .flat_map(|(p, lines)| lines.iter().map(move |n| format!("{p}:{n}")))
            .collect();
        want.sort();
        assert_eq!(
            got,
            want,
            "grep {case:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Complete: 0 with a match, 1 without (the depth limit is policy).
        let status = if want.is_empty() { 1 } else { 0 };
        assert_eq!(out.status.code(), Some(status), "grep {case:?}");
        if let Some(rg) = &rg {
            let by_rg = Command::new(rg)
                .args(["--no-config", "-n", "--with-filename", "--no-heading"])
                .args(flags)
                .arg("needle")
                .args(paths)
                .current_dir(dir.path())
                .output()
                .unwrap();
            let mut rg_lines: Vec<String> = String::from_utf8_lossy(&by_rg.stdout)
                .lines()
                .map(|l| l.split(':').take(2).collect::<Vec<_>>().join(":"))
                .collect();
            rg_lines.sort();
            assert_eq!(rg_lines, want, "rg {case:?}");
        }
    }
    // A bad depth is a usage error.
    let out = Command::new(example("grep"))
        .args(["--max-depth", "-1", "needle"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
