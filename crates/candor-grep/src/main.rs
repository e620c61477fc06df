//! A small grep built on candor, with ripgrep's conventions where they apply.
//!
//! ```text
//! cargo run --release -p candor-grep -- [OPTIONS] PATTERN [PATH ...]
//! cargo run --release -p candor-grep -- --limit 20 -w -F Typography src
//! cargo run --release -p candor-grep -- --json --limit 5 'fn \w+' .
//! cargo run --release -p candor-grep --features index -- --index DIR ...
//! ```
//!
//! Human output is `path:line:text` on standard output, then one last line
//! on standard error that says whether the answer is complete, and if not,
//! why, how many there are (exactly, or at least), and the `--cursor` flag
//! that resumes it. `--json` prints the wire shape instead: one JSON object,
//! disclosure first, the matches last (held meanwhile in a temporary file,
//! so memory does not grow with their number).
//!
//! A PATH that cannot be searched (missing, unreadable) is reported on
//! standard error, as ripgrep does, and the others are searched; the
//! answer then says it is incomplete.
//!
//! A file named as a PATH that holds NUL bytes is searched as text, as
//! ripgrep searches a file named on its command line, and the library's
//! answer (`--json`) holds every matching line of it and says it is
//! binary (`binary_as_text`). The human output prints such a file's
//! matches as ripgrep does by default (with memory maps, as it searches a
//! few named files): none when the file's first NUL lies in its first
//! 64 KiB, else those before the first matching line that holds a NUL;
//! then, if it held any back, `PATH: binary file matches (found "\0" byte
//! around offset N)`. The last line on standard error says how many
//! matching lines were held back. Files found by walking a folder keep
//! the binary rule: a binary file is skipped, and counted.
//!
//! `--max-depth N` is ripgrep's: 0 searches only the files named, 1 the
//! direct children of each folder named (or of the current folder), and
//! so on; each folder not entered is counted as skipped (`max_depth`).
//!
//! Exit status, as ripgrep's: 2 when an error occurred (a bad argument,
//! or an input that could not be searched; the matches found elsewhere
//! are still printed), else 0 when something matched and 1 when nothing
//! did. An answer cut short (a deadline, a budget) before any match exits
//! with 2, not 1: nothing matched in what was searched, but the rest was
//! not searched.

use std::ffi::OsString;
use std::io::{self, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use candor_search::{Corpus, Cursor, JsonStream, Limits, Match, Query, Skipped, Tree};
use clap::{CommandFactory, Parser};

/// Search a directory tree for PATTERN, and say whether the answer is
/// complete.
///
/// PATTERN is a regular expression (Rust `regex` syntax) unless -F is given.
/// The last line on standard error tells whether the output holds every
/// match, and if not, the --cursor flag that resumes it.
#[derive(Debug, Parser)]
#[command(name = "grep", version, max_term_width = 100)]
struct Args {
    /// The pattern to look for (omit it when -e is given: then every
    /// positional argument is a PATH).
    #[arg(value_name = "PATTERN")]
    pattern: Option<OsString>,

    /// Files or folders to search. Default: the current folder.
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,

    /// A pattern to look for; repeat to match any of them. It may start
    /// with a `-` (`-e -x`).
    #[arg(
        short = 'e',
        long = "regexp",
        value_name = "PATTERN",
        allow_hyphen_values = true
    )]
    regexps: Vec<String>,

    /// Treat the patterns as literal strings, not regular expressions.
    #[arg(short = 'F', long = "fixed-strings")]
    fixed_strings: bool,

    /// Match case-insensitively.
    #[arg(short = 'i', long = "ignore-case")]
    ignore_case: bool,

    /// Match whole words only.
    #[arg(short = 'w', long = "word-regexp")]
    word_regexp: bool,

    /// Return at most N matching lines. Default: no limit.
    #[arg(long, value_name = "N")]
    limit: Option<usize>,

    /// Keep the JSON response (the wire shape, envelope included) within N
    /// bytes. Default: no budget.
    #[arg(long, value_name = "N")]
    max_bytes: Option<usize>,

    /// Cut matched lines longer than N bytes around their first match (the
    /// cut is marked). Default: no cut.
    #[arg(long, value_name = "N")]
    max_columns: Option<usize>,

    /// Skip files larger than SIZE (bytes, or with a K, M or G suffix); they
    /// are counted as skipped.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    max_filesize: Option<u64>,

    /// Stop after N milliseconds; the answer then says it was cut short.
    #[arg(long, value_name = "N")]
    deadline_ms: Option<u64>,

    /// Keep counting past the limit so that the total is exact.
    #[arg(long)]
    count_total: bool,

    /// Resume where an earlier run of the same command stopped.
    #[arg(long, value_name = "TOKEN")]
    cursor: Option<String>,

    /// The number of threads that search. Default: one per CPU.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,

    /// Follow symbolic links, only while they stay inside the folder
    /// searched: a lone folder PATH, else the deepest folder that holds
    /// every PATH as its real path (the current folder when none is given;
    /// `/` for PATHs such as `src /etc/hosts`). By default, links are counted as skipped and not followed;
    /// a link named as a PATH beside others, or a file link named alone,
    /// is then an input asked for and not searched, so the answer is
    /// incomplete and the exit status 2. A lone folder PATH is the root of
    /// the search, and is searched whether or not it is a link.
    #[arg(short = 'L', long = "follow")]
    follow: bool,

    /// Search hidden files and folders too.
    #[arg(long)]
    hidden: bool,

    /// Do not respect .gitignore and .ignore files.
    #[arg(long)]
    no_ignore: bool,

    /// Descend at most N folders below each PATH (below the current
    /// folder when none is given): 0 searches only the files named, 1
    /// the direct children of the folders named. The folders not entered
    /// are counted as skipped (`max_depth`).
    #[arg(long, value_name = "N")]
    max_depth: Option<usize>,

    /// Include (or, with a leading `!`, exclude) files whose path matches
    /// GLOB; repeatable.
    #[arg(short = 'g', long = "glob", value_name = "GLOB")]
    globs: Vec<String>,

    /// Print the result as one JSON object in candor's wire shape.
    #[arg(long)]
    json: bool,

    /// Answer from the index in the folder INDEX (feature `index`): built
    /// there when missing or unusable, then asked, checked against the
    /// tree as it is (a changed file is read, a changed folder walked
    /// again), and updated after the answer when the query met a change.
    /// The output is the same as without it, cursors included: a cursor of
    /// either resumes on the other, across the index's updates, and is
    /// stale only as a tree's is: the file it resumes inside changed, a
    /// file before it came or went, or the file its page listed left the
    /// walk.
    #[arg(long, value_name = "INDEX")]
    index: Option<PathBuf>,

    /// With --index: answer from the index as its last build or update
    /// recorded the tree, without checking the tree (no stat of every
    /// file; the answer costs the files that may match). The answer says
    /// so, and as of when: the last line on standard error ("As of
    /// TIME"), `"as_of"` with --json. A file changed since is read as it
    /// is now where the index finds it may match; one added since is
    /// missed. Bring the index up to date with --update-index.
    #[arg(long, requires = "index")]
    trust: bool,

    /// With --index: bring the index up to date with the tree (read what
    /// changed since it was last updated) before answering.
    #[arg(long, requires = "index")]
    update_index: bool,
}

/// Parses `1234`, `50K`, `8M` or `1G` (powers of 1024).
fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let (digits, unit) = match text.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&text[..i], c.to_ascii_uppercase()),
        _ => (text, 'B'),
    };
    let shift = match unit {
        'B' => 0,
        'K' => 10,
        'M' => 20,
        'G' => 30,
        other => return Err(format!("unknown size suffix {other:?}; use K, M or G")),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("{text:?} is not a size such as 4096, 50K, 8M or 1G"))?;
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("{text:?} is too large"))
}

/// What went wrong, for the message on standard error.
struct Failure(String);

impl From<candor_search::Error> for Failure {
    fn from(e: candor_search::Error) -> Failure {
        Failure(chain(&e))
    }
}

/// The error and its causes, joined: "cannot read x: No such file".
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// Where the search runs: one root folder, the paths under it to confine
/// the search to, and how to show the root in front of each result path.
struct SearchScope {
    root: PathBuf,
    filters: Vec<String>,
    display_prefix: String,
    /// Some PATH names a file (searched as text, whatever NUL bytes it
    /// holds).
    names_a_file: bool,
}

/// Maps the PATH arguments onto one tree. A single folder becomes the root
/// (so the JSON paths are relative to it, as the library returns them);
/// otherwise the root is the folder the paths share, and the paths become
/// the query's path filter. A path that cannot be found stays a filter:
/// the library counts it as skipped, and searches the others.
fn target(paths: &[PathBuf]) -> Result<SearchScope, Failure> {
    let given_default = paths.is_empty();
    let paths: Vec<PathBuf> = if given_default {
        vec![PathBuf::from(".")]
    } else {
        paths.to_vec()
    };
    let single = paths.len() == 1;
    let canonical = paths
        .iter()
        .map(|p| {
            let is_link = p
                .symlink_metadata()
                .is_ok_and(|m| m.file_type().is_symlink());
            // A link named here is not resolved here: it keeps its own name
            // under its real folder, and the tree's link policy decides
            // (followed only with -L, and never out of the root). Only a
            // lone folder argument, which becomes the root, is resolved.
            let resolved = match (p.parent(), p.file_name()) {
                (Some(parent), Some(name)) if is_link && !(single && p.is_dir()) => {
                    let parent = if parent.as_os_str().is_empty() {
                        Path::new(".")
                    } else {
                        parent
                    };
                    parent.canonicalize().map(|folder| folder.join(name))
                }
                _ => p.canonicalize().or_else(|_| nearest_existing(p)),
            };
            resolved.map_err(|e| Failure(format!("{}: {e}", p.display())))
        })
        .collect::<Result<Vec<_>, _>>()?;

    if let [only] = canonical.as_slice() {
        if only.is_dir() && !only.is_symlink() {
            let display_prefix = if given_default {
                String::new()
            } else {
                let text = paths[0].to_string_lossy();
                let trimmed = text.trim_end_matches('/');
                if trimmed.is_empty() { "/" } else { trimmed }.to_owned()
            };
            return Ok(SearchScope {
                root: only.clone(),
                filters: Vec::new(),
                display_prefix,
                names_a_file: false,
            });
        }
    }

    let folder_of = |p: &Path| -> PathBuf {
        if p.is_dir() && !p.is_symlink() {
            p.to_owned()
        } else {
            p.parent().map_or_else(|| p.to_owned(), Path::to_owned)
        }
    };
    let mut root = folder_of(&canonical[0]);
    for p in &canonical[1..] {
        while !p.starts_with(&root) {
            if !root.pop() {
                break;
            }
        }
    }
    // Paths that do not exist may share a folder that does not either.
    while !root.is_dir() {
        if !root.pop() {
            break;
        }
    }
    let filters = canonical
        .iter()
        .map(|p| corpus_path(p.strip_prefix(&root).unwrap_or(p)))
        .collect();
    let cwd = std::env::current_dir().and_then(|d| d.canonicalize()).ok();
    let display_prefix = match cwd.as_deref().and_then(|cwd| root.strip_prefix(cwd).ok()) {
        Some(rel) => rel.to_string_lossy().into_owned(),
        None => root.to_string_lossy().into_owned(),
    };
    let names_a_file = canonical.iter().any(|p| !p.is_dir());
    Ok(SearchScope {
        root,
        filters,
        display_prefix,
        names_a_file,
    })
}

/// A path that cannot be resolved (it does not exist, say) made absolute:
/// its longest prefix that resolves, then the rest of its names as given.
fn nearest_existing(path: &Path) -> io::Result<PathBuf> {
    let names: Vec<_> = path.components().collect();
    for kept in (0..names.len()).rev() {
        let prefix: PathBuf = names[..kept].iter().collect();
        let prefix = if prefix.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            prefix
        };
        if let Ok(mut found) = prefix.canonicalize() {
            found.extend(&names[kept..]);
            return Ok(found);
        }
    }
    Err(io::Error::new(
        io::ErrorKind::NotFound,
        "no part of it exists",
    ))
}

/// A path under the root as the library writes a tree's paths (see
/// `Match::path`): names joined by `/`, and in a name that is not UTF-8 or
/// holds a `\`, each `\` written `\\` and each byte outside valid UTF-8
/// written `\xhh`.
fn corpus_path(relative: &Path) -> String {
    let mut out = String::new();
    for (i, name) in relative.iter().enumerate() {
        if i > 0 {
            out.push('/');
        }
        #[cfg(unix)]
        let bytes = std::os::unix::ffi::OsStrExt::as_bytes(name);
        #[cfg(not(unix))]
        let lossy = name.to_string_lossy();
        #[cfg(not(unix))]
        let bytes = lossy.as_bytes();
        match std::str::from_utf8(bytes) {
            Ok(text) if !text.contains('\\') => out.push_str(text),
            _ => {
                for chunk in bytes.utf8_chunks() {
                    for c in chunk.valid().chars() {
                        match c {
                            '\\' => out.push_str("\\\\"),
                            c => out.push(c),
                        }
                    }
                    for b in chunk.invalid() {
                        out.push_str(&format!("\\x{b:02x}"));
                    }
                }
            }
        }
    }
    out
}

fn build_query(args: &Args, patterns: Vec<String>, filters: Vec<String>) -> Query {
    let query = if args.fixed_strings {
        match <[String; 1]>::try_from(patterns) {
            Ok([one]) => Query::literal(one),
            Err(many) => Query::literals(many),
        }
    } else {
        match <[String; 1]>::try_from(patterns) {
            Ok([one]) => Query::regex(one),
            // Any of several regexes: one alternation, each kept whole.
            Err(many) => Query::regex(
                many.iter()
                    .map(|p| format!("(?:{p})"))
                    .collect::<Vec<_>>()
                    .join("|"),
            ),
        }
    };
    let query = query
        .case_insensitive(args.ignore_case)
        .whole_word(args.word_regexp)
        .paths(filters);
    match args.max_columns {
        Some(n) => query.max_columns(n),
        None => query,
    }
}

fn build_limits(args: &Args) -> Limits {
    let mut limits = Limits::new().count_total(args.count_total);
    if let Some(n) = args.limit {
        limits = limits.limit(n);
    }
    if let Some(n) = args.max_bytes {
        limits = limits.max_bytes(n);
    }
    if let Some(ms) = args.deadline_ms {
        limits = limits.deadline(Duration::from_millis(ms));
    }
    limits
}

fn build_tree(args: &Args, root: &Path) -> Result<Tree, Failure> {
    let mut tree = Tree::new(root)?
        .hidden(args.hidden)
        .follow_links(args.follow)
        .gitignore(!args.no_ignore)
        .globs(args.globs.iter().cloned());
    if let Some(max) = args.max_filesize {
        tree = tree.max_file_size(max);
    }
    if let Some(depth) = args.max_depth {
        tree = tree.max_depth(depth);
    }
    if let Some(n) = args.threads {
        tree = tree.threads(usize::from(n));
        if tree.get_threads() < usize::from(n) {
            eprintln!(
                "grep: note: --threads {n} is more than the most a search uses here \
                 (8 per core); searching with {}",
                tree.get_threads()
            );
        }
    }
    Ok(tree)
}

/// The corpus to ask: the tree, or its index (`--index`), which the
/// query checks against the tree as it goes; when it met changes, the
/// index is brought up to date after the output is written.
fn corpus(args: &Args, tree: Tree) -> Result<Searched, Failure> {
    match &args.index {
        None => Ok(Searched::Tree(tree)),
        #[cfg(feature = "index")]
        Some(path) => {
            let index = match candor_search::Index::open_or_build(tree.clone(), path) {
                Ok(index) => index.check_tree(!args.trust),
                // An index that cannot be written (a full or read-only
                // disk) is no reason to answer nothing: the tree answers.
                Err(e) if matches!(e.kind(), candor_search::ErrorKind::Write { .. }) => {
                    eprintln!(
                        "grep: note: the index cannot be written ({}); the tree is searched instead",
                        chain(&e)
                    );
                    return Ok(Searched::Tree(tree));
                }
                Err(e) => return Err(e.into()),
            };
            if args.update_index {
                index.update()?;
            }
            Ok(Searched::Index(std::mem::ManuallyDrop::new(Box::new(
                index,
            ))))
        }
        #[cfg(not(feature = "index"))]
        Some(_) => Err(Failure(
            "--index needs the `index` feature (cargo run -p candor-grep --features index ...)"
                .to_owned(),
        )),
    }
}

/// What a search asks: a tree, or its index.
enum Searched {
    Tree(Tree),
    /// Left to the end of the process, as results are (see
    /// `leak_at_exit`): freeing its list of the tree's entries one by one
    /// would cost more than some queries. Boxed: an index is much larger
    /// than a tree.
    #[cfg(feature = "index")]
    Index(std::mem::ManuallyDrop<Box<candor_search::Index>>),
}

impl Searched {
    fn as_ref(&self) -> &dyn Corpus {
        match self {
            Searched::Tree(tree) => tree,
            #[cfg(feature = "index")]
            Searched::Index(index) => &***index,
        }
    }
}

/// Once the answer is written (the search is dropped at the end of
/// `run`), an index that a checked query found behind the tree is
/// brought up to date as the query saw it (its stats are not taken
/// again), so the next process checks and reads less (an answer that
/// trusted the index took no stats, and leaves it as it is:
/// --update-index updates it). A failure here changes no answer, and is
/// only noted. The index itself is never dropped (see `Searched::Index`).
impl Drop for Searched {
    fn drop(&mut self) {
        #[cfg(feature = "index")]
        if let Searched::Index(index) = self {
            if index.is_behind() && index.get_check_tree() {
                if let Err(e) = index.update_as_seen() {
                    eprintln!("grep: note: the index was not updated: {}", chain(&e));
                }
            }
        }
    }
}

/// One `path:line:text` line; a cut line says where it was cut.
///
/// Written piece by piece rather than with one `write!`: this runs once
/// per matching line, and formatting machinery shows in a large listing.
fn write_match(out: &mut impl Write, prefix: &str, m: &Match) -> io::Result<()> {
    write_prefixed(out, prefix, &m.path)?;
    out.write_all(b":")?;
    write_number(out, m.line_number)?;
    out.write_all(b":")?;
    out.write_all(m.line.as_bytes())?;
    if let Some(cut) = &m.line_cut {
        write!(
            out,
            " [line cut: {} bytes shown from byte {} of {}]",
            m.line.len(),
            cut.kept_from,
            cut.original_bytes
        )?;
    }
    out.write_all(b"\n")
}

/// The human output of a collected answer: each match as `write_match`
/// writes it, but for the lines of a binary file named (one the answer
/// says is `binary_as_text`) that ripgrep holds back when it searches a
/// file named on its command line (with memory maps, as it searches a
/// few named files): every line when the file's first NUL byte lies in
/// its first 64 KiB (ripgrep looks there first), else those from the
/// first matching line that holds a NUL on. After a file's lines, one
/// `PATH: binary file matches (found "\0" byte around offset N)` line
/// says lines were held back, as ripgrep's does.
struct Printer<'a> {
    prefix: &'a str,
    /// The first NUL byte of each binary file named, as the answer's
    /// skipped sample tells it (a file it does not list, past the
    /// sample's few, is judged by its lines alone).
    first_nul: std::collections::HashMap<&'a str, u64>,
    /// The file whose lines are being printed, and where the NUL byte is
    /// that holds the rest of its lines back, once one does.
    file: Option<(String, Option<u64>)>,
    /// The lines held back.
    held_back: u64,
}

/// How far into a file ripgrep looks for a NUL byte before it searches
/// the file with a memory map.
const RIPGREP_FIRST_LOOK: u64 = 64 * 1024;

impl<'a> Printer<'a> {
    fn new(prefix: &'a str, skipped: &'a Skipped) -> Printer<'a> {
        let first_nul = skipped
            .sample()
            .iter()
            .filter(|s| *s.reason() == candor_search::SkipReason::BinaryAsText)
            .filter_map(|s| Some((s.path(), nul_offset(s.detail()?)?)))
            .collect();
        Printer {
            prefix,
            first_nul,
            file: None,
            held_back: 0,
        }
    }

    fn print(&mut self, out: &mut impl Write, m: &Match) -> io::Result<()> {
        if self.file.as_ref().is_none_or(|(path, _)| *path != m.path) {
            self.finish(out)?;
            let early = self
                .first_nul
                .get(m.path.as_str())
                .copied()
                .filter(|&nul| nul < RIPGREP_FIRST_LOOK);
            self.file = Some((m.path.clone(), early));
        }
        let Some((_, held)) = &mut self.file else {
            return Ok(());
        };
        // Only a file named holds a line with a NUL byte: a walked one is
        // cut before its first.
        if held.is_none() {
            if let Some(at) = m.line.find('\0') {
                let from = m.line_cut.map_or(0, |c| c.kept_from);
                *held = Some(m.byte_offset + from + at as u64);
            }
        }
        if held.is_some() {
            self.held_back += 1;
            return Ok(());
        }
        write_match(out, self.prefix, m)
    }

    /// Ends the file being printed: says so if lines of it were held back.
    fn finish(&mut self, out: &mut impl Write) -> io::Result<()> {
        if let Some((path, Some(nul))) = self.file.take() {
            write_prefixed(out, self.prefix, &path)?;
            writeln!(
                out,
                ": binary file matches (found \"\\0\" byte around offset {nul})"
            )?;
        }
        Ok(())
    }
}

/// The offset in a `binary_as_text` skip's detail: "a NUL byte at byte N:
/// ...".
fn nul_offset(detail: &str) -> Option<u64> {
    let rest = detail.strip_prefix("a NUL byte at byte ")?;
    let digits = rest.split(|c: char| !c.is_ascii_digit()).next()?;
    digits.parse().ok()
}

/// Writes `path` after the display prefix.
fn write_prefixed(out: &mut impl Write, prefix: &str, path: &str) -> io::Result<()> {
    if !prefix.is_empty() {
        out.write_all(prefix.as_bytes())?;
        if !prefix.ends_with('/') {
            out.write_all(b"/")?;
        }
    }
    out.write_all(path.as_bytes())
}

/// Writes `n` in decimal.
fn write_number(out: &mut impl Write, mut n: u64) -> io::Result<()> {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.write_all(&digits[at..])
}

/// How a search went: whether anything matched, whether an input could
/// not be searched because of an error, and whether the answer is
/// complete (a cut answer without a match does not say "no match").
struct SearchOutcome {
    matched: bool,
    errors: bool,
    complete: bool,
}

/// Reports the inputs that could not be searched because of an error, as
/// ripgrep does (`grep: PATH: why`), from the skipped sample (which lists
/// them first; the status line gives their number); returns true when
/// there was any.
fn report_errors(skipped: &Skipped, prefix: &str) -> bool {
    for input in skipped.sample().iter().filter(|i| i.reason().is_error()) {
        let path = match prefix {
            "" => input.path().to_owned(),
            p if p.ends_with('/') => format!("{p}{}", input.path()),
            p => format!("{p}/{}", input.path()),
        };
        let why = input.detail().unwrap_or(input.reason().as_str());
        eprintln!("grep: {path}: {why} ({})", input.reason());
    }
    skipped.has_errors()
}

/// The last line on standard error: the library's disclosure, with the
/// wire's "next_cursor" turned into the flag that resumes this command.
fn status_line(disclosure: String, next: Option<&Cursor>) -> String {
    let mut line = disclosure;
    if let Some(next) = next {
        let flag = format!("Resume with --cursor {next} (same command and arguments).");
        if line.contains("Resume with next_cursor.") {
            line = line.replace("Resume with next_cursor.", &flag);
        } else {
            line.push(' ');
            line.push_str(&flag);
        }
    }
    line
}

fn run(args: &Args) -> Result<SearchOutcome, Failure> {
    let mut patterns = args.regexps.clone();
    let mut paths = args.paths.clone();
    if patterns.is_empty() {
        match &args.pattern {
            Some(p) => match p.to_str() {
                Some(p) => patterns.push(p.to_owned()),
                None => return Err(Failure("the PATTERN is not valid UTF-8".to_owned())),
            },
            None => {
                Args::command()
                    .error(
                        clap::error::ErrorKind::MissingRequiredArgument,
                        "a PATTERN is required (as the first argument, or with -e)",
                    )
                    .exit();
            }
        }
    } else if let Some(p) = &args.pattern {
        // With -e, the first positional argument is a path, as in ripgrep.
        paths.insert(0, PathBuf::from(p));
    }
    let cursor = args
        .cursor
        .as_deref()
        .map(Cursor::parse)
        .transpose()
        .map_err(|e| Failure(format!("--cursor: {}", chain(&e))))?;
    let target = target(&paths)?;
    let names_a_file = target.names_a_file;
    let tree = build_tree(args, &target.root)?;
    let corpus = corpus(args, tree)?;
    let tree = corpus.as_ref();
    let query = build_query(args, patterns, target.filters);
    let limits = build_limits(args);

    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(64 * 1024, stdout.lock());
    let prefix = target.display_prefix.as_str();
    let matched;
    let errors;
    let complete;
    let status;
    if args.json && args.max_bytes.is_some() {
        // The byte budget bounds a collected response (a stream has none),
        // and so the memory it takes. The JSON is written as it is
        // serialized, into the buffered output, never built whole.
        let result = tree.search(&query, &limits, cursor.as_ref())?;
        matched = !result.is_empty() || result.total().value() > 0;
        let written = result.write_json(&mut out);
        end_json(written, &mut out)?;
        errors = report_errors(result.skipped(), prefix);
        let complete = result.is_complete();
        leak_at_exit(result);
        return Ok(SearchOutcome {
            matched,
            errors,
            complete,
        });
    } else if args.json {
        // Streamed: the disclosure comes first on the wire and is known
        // only at the end, so the matches are serialized as they come into
        // a temporary file, and copied out after the disclosure. Memory
        // does not grow with the number of matches (but for one file's).
        let end = match tempfile::tempfile() {
            // Written by this thread, and copied out in the kernel at the
            // end (`JsonStream::write`). Handing the writes to a thread of
            // its own cost more in hand-offs than it saved: a dense listing
            // took 1.05-1.10x the time.
            Ok(file) => json_stream(tree, &query, &limits, cursor.as_ref(), file, &mut out)?,
            Err(e) => {
                eprintln!("grep: note: no temporary file ({e}); the JSON is held in memory");
                let memory = io::Cursor::new(Vec::new());
                json_stream(tree, &query, &limits, cursor.as_ref(), memory, &mut out)?
            }
        };
        return Ok(SearchOutcome {
            matched: end.count() > 0 || end.total().value() > 0,
            errors: report_errors(end.skipped(), prefix),
            complete: end.is_complete(),
        });
    } else if args.max_bytes.is_some() || names_a_file {
        // The byte budget bounds a collected response; a stream has none.
        // A file named is collected too: where its first NUL byte is (told
        // at the end) decides which of its lines are printed.
        let result = tree.search(&query, &limits, cursor.as_ref())?;
        let mut printer = Printer::new(prefix, result.skipped());
        let written = result
            .iter()
            .try_for_each(|m| printer.print(&mut out, m))
            .and_then(|()| printer.finish(&mut out));
        ignore_broken_pipe(written.and_then(|()| out.flush()))?;
        matched = !result.is_empty() || result.total().value() > 0;
        errors = report_errors(result.skipped(), prefix);
        complete = result.is_complete();
        status = status_line(result.summary("matches"), result.next_cursor());
        if printer.held_back > 0 {
            eprintln!(
                "grep: note: {} matching {} of binary files named not printed, as ripgrep \
                 prints them (--json shows them)",
                printer.held_back,
                if printer.held_back == 1 {
                    "line"
                } else {
                    "lines"
                }
            );
        }
        leak_at_exit(result);
    } else {
        // Print each match as soon as its place in the order is certain.
        let mut written = Ok(());
        let end = tree.search_each(&query, &limits, cursor.as_ref(), &mut |m| {
            if written.is_ok() {
                written = write_match(&mut out, prefix, m);
                if written
                    .as_ref()
                    .is_err_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
                {
                    // The reader went away (`grep ... | head`): nobody will
                    // read the rest, so stop searching now, quietly.
                    std::process::exit(0);
                }
            }
            ControlFlow::Continue(())
        })?;
        ignore_broken_pipe(written.and_then(|()| out.flush()))?;
        matched = end.count() > 0 || end.total().value() > 0;
        errors = report_errors(end.skipped(), prefix);
        complete = end.is_complete();
        status = status_line(end.summary("matches"), end.next_cursor());
    }
    eprintln!("{status}");
    Ok(SearchOutcome {
        matched,
        errors,
        complete,
    })
}

/// Streams the matches into a `JsonStream` that keeps them in `spill`,
/// then writes the wire shape and a newline to `out`.
fn json_stream<S: io::Read + Write + io::Seek>(
    tree: &dyn Corpus,
    query: &Query,
    limits: &Limits,
    cursor: Option<&Cursor>,
    spill: S,
    out: &mut impl Write,
) -> Result<candor_search::Streamed, Failure> {
    let mut json = JsonStream::with_spill(spill);
    let mut failed = None;
    let end = tree.search_each(query, limits, cursor, &mut |m| {
        if failed.is_none() {
            if let Err(e) = json.push(m) {
                failed = Some(e);
            }
        }
        ControlFlow::Continue(())
    })?;
    if let Some(e) = failed {
        return Err(e.into());
    }
    let written = json.write(&end, &mut *out);
    end_json(written, out)?;
    Ok(end)
}

/// Ends the JSON output with a newline, once it was written; a reader that
/// went away is no error.
fn end_json(
    written: Result<(), candor_search::Error>,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let written = match written {
        Err(e) => match io_error(&e) {
            Some(io) => Err(io),
            None => return Err(e.into()),
        },
        Ok(()) => out.write_all(b"\n").and_then(|()| out.flush()),
    };
    ignore_broken_pipe(written)
}

/// The write error inside a serialization error, when the writer failed
/// (a reader that went away is then no error).
fn io_error(e: &candor_search::Error) -> Option<io::Error> {
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        if let Some(json) = cause.downcast_ref::<serde_json::Error>() {
            return json.io_error_kind().map(io::Error::from);
        }
        if let Some(io) = cause.downcast_ref::<io::Error>() {
            return Some(io::Error::from(io.kind()));
        }
        source = cause.source();
    }
    None
}

/// Leaves a collected result to the end of the process rather than
/// freeing it. The process ends as soon as `main` returns, and the
/// system takes back its memory at once; freeing a large result item by
/// item first (three allocations per match, about a million for a
/// line-dense search) would cost a good part of the run's time, on one
/// thread, for nothing. Only called on the way out of `run`.
fn leak_at_exit<T>(result: T) {
    std::mem::forget(result);
}

/// A reader that went away (`grep ... | head`) is not an error.
fn ignore_broken_pipe(result: io::Result<()>) -> Result<(), Failure> {
    match result {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            Err(Failure(format!("cannot write the output: {e}")))
        }
        _ => Ok(()),
    }
}

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(args) => args,
        // --help and --version go to standard output, with status 0.
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => {
            // Every bad flag gets the usage, not only some kinds of error.
            let mut message = e.render().to_string();
            if !message.contains("Usage:") {
                let usage = format!("{}\n\n", Args::command().render_usage());
                let at = message
                    .find("For more information")
                    .unwrap_or(message.len());
                message.insert_str(at, &usage);
            }
            eprint!("{message}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(SearchOutcome { errors: true, .. }) => ExitCode::from(2),
        Ok(SearchOutcome { matched: true, .. }) => ExitCode::SUCCESS,
        // Cut short before any match: "no match" is not known.
        Ok(SearchOutcome {
            complete: false, ..
        }) => ExitCode::from(2),
        Ok(SearchOutcome { matched: false, .. }) => ExitCode::from(1),
        Err(Failure(message)) => {
            eprintln!("grep: {message}");
            ExitCode::from(2)
        }
    }
}
