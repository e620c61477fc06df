//! A symbol index of a Rust source tree in SQLite, queried with candor:
//! `references`, `callers` and `outline` answer as `Bounded` pages, paged
//! by key, with exact totals from `COUNT(*)`.
//!
//! ```text
//! cargo run -p candor-examples --bin code_index -- --root src references Limits --limit 20
//! cargo run -p candor-examples --bin code_index -- --root src callers collect --cursor <next_cursor>
//! cargo run -p candor-examples --bin code_index -- --root src outline page.rs
//! ```
//!
//! Each query prints the wire JSON: the disclosure first, the items last.
//! The extraction is deliberately simple (regular expressions, no parser):
//! `fn` and `struct` definitions, every identifier as a reference, and an
//! identifier followed by `(` as a call from the `fn` defined last above it.
//!
//! The first page's key is the smallest possible (`''`, 0, 0): paths are
//! never empty and lines start at 1.
//!
//! The SQL is the obvious keyset query: `WHERE (key) > (?after) ORDER BY
//! key LIMIT ?fetch`, with `?fetch` from candor's [`KeyRequest`], which
//! asks for one row past the limit so that a truncated page says so.

use std::path::{Path, PathBuf};

use candor::{Bounded, Cursor, Fallible, Fingerprint, KeyRequest, Keyset, Limits, Scope, TryError};
use clap::{Parser, Subcommand};
use regex::Regex;
use rusqlite::{Connection, params};
use serde::{Deserialize, Serialize};

/// One occurrence of an identifier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reference {
    /// Relative to the root, with `/` separators.
    pub path: String,
    /// 1-based.
    pub line: i64,
    /// 1-based, in bytes.
    pub column: i64,
}

/// A call site, and the function it is in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    /// The `fn` defined last above the call, if any.
    pub caller: Option<String>,
    /// Relative to the root, with `/` separators.
    pub path: String,
    /// 1-based.
    pub line: i64,
    /// 1-based, in bytes.
    pub column: i64,
}

/// A definition in a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Definition {
    /// `fn` or `struct`.
    pub kind: String,
    /// The defined name.
    pub name: String,
    /// 1-based.
    pub line: i64,
    /// 1-based, in bytes.
    pub column: i64,
}

/// The outcome of a query: a page, or why there is none.
pub type Answer<T> = Result<Bounded<T>, TryError<T, rusqlite::Error>>;

/// What the extraction finds in one file.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Extracted {
    /// (kind, name, line, column).
    pub definitions: Vec<(String, String, i64, i64)>,
    /// (name, line, column, is_call, caller).
    pub occurrences: Vec<(String, i64, i64, bool, Option<String>)>,
}

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while",
];

/// Finds definitions, identifiers and calls in Rust source, line by line.
pub fn extract(source: &str) -> Extracted {
    let ident = Regex::new(r"[A-Za-z_][A-Za-z0-9_]*").expect("a valid regex");
    let mut out = Extracted::default();
    let mut current_fn: Option<String> = None;
    for (n, line) in source.lines().enumerate() {
        let line_number = n as i64 + 1;
        let mut previous: Option<&str> = None;
        for m in ident.find_iter(line) {
            let name = m.as_str();
            // Inside a longer word (`x1y` after a digit) is not a new token.
            if line[..m.start()]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_digit())
            {
                previous = Some(name);
                continue;
            }
            let column = m.start() as i64 + 1;
            match previous {
                Some(kind @ ("fn" | "struct")) => {
                    out.definitions
                        .push((kind.to_owned(), name.to_owned(), line_number, column));
                    if kind == "fn" {
                        current_fn = Some(name.to_owned());
                    }
                }
                _ if KEYWORDS.contains(&name) => {}
                _ => {
                    let is_call = line[m.end()..].trim_start().starts_with('(');
                    let caller = is_call.then(|| current_fn.clone()).flatten();
                    out.occurrences
                        .push((name.to_owned(), line_number, column, is_call, caller));
                }
            }
            previous = Some(name);
        }
    }
    out
}

/// The `.rs` files under `root`, relative with `/` separators, sorted.
fn rust_files(root: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
    let mut files = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let path = entry.path();
            if entry.file_type()?.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(root).unwrap_or(&path);
                let name: Vec<String> = relative
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                files.push((name.join("/"), path));
            }
        }
    }
    files.sort();
    Ok(files)
}

/// A symbol index in SQLite.
pub struct Index {
    db: Connection,
    /// Changes when any indexed file does: cursors of an older index are
    /// refused as stale.
    generation: u64,
}

impl Index {
    /// Indexes the `.rs` files under `root` into an in-memory database.
    pub fn build(root: &Path) -> Result<Index, Box<dyn std::error::Error>> {
        let db = Connection::open_in_memory()?;
        db.execute_batch(
            "CREATE TABLE defs (path TEXT, line INTEGER, col INTEGER, kind TEXT, name TEXT,
                                PRIMARY KEY (path, line, col));
             CREATE TABLE occ (name TEXT, path TEXT, line INTEGER, col INTEGER,
                               is_call INTEGER, caller TEXT,
                               PRIMARY KEY (name, path, line, col));
             CREATE INDEX occ_calls ON occ (name, is_call, path, line, col);",
        )?;
        let mut contents = Vec::new();
        {
            let tx = db.unchecked_transaction()?;
            let mut def = tx.prepare("INSERT INTO defs VALUES (?1, ?2, ?3, ?4, ?5)")?;
            let mut occ = tx.prepare("INSERT INTO occ VALUES (?1, ?2, ?3, ?4, ?5, ?6)")?;
            for (path, file) in rust_files(root)? {
                let source = std::fs::read_to_string(&file)?;
                let found = extract(&source);
                for (kind, name, line, col) in &found.definitions {
                    def.execute(params![path, line, col, kind, name])?;
                }
                for (name, line, col, is_call, caller) in &found.occurrences {
                    occ.execute(params![name, path, line, col, is_call, caller])?;
                }
                contents.push((path, source));
            }
            drop((def, occ));
            tx.commit()?;
        }
        let generation = Fingerprint::of(&contents).as_u64();
        Ok(Index { db, generation })
    }

    fn scope(&self, query: &str, subject: &str) -> Scope {
        Scope::new(Fingerprint::of(&(query, subject))).generation(self.generation)
    }

    /// Every occurrence of the identifier `name`, by path, line, column.
    pub fn references(
        &self,
        name: &str,
        limits: &Limits,
        cursor: Option<&Cursor>,
    ) -> Answer<Reference> {
        let scope = self.scope("references", name);
        let mut rows = self.db.prepare_cached(
            "SELECT path, line, col FROM occ WHERE name = ?1 AND (path, line, col) > (?2, ?3, ?4)
             ORDER BY path, line, col LIMIT ?5",
        ).map_err(TryError::from_source)?;
        let source = |request: KeyRequest<(String, i64, i64)>| {
            let (path, line, col) = request.after().cloned().unwrap_or_default();
            let read = |row: &rusqlite::Row<'_>| {
                Ok(Reference {
                    path: row.get(0)?,
                    line: row.get(1)?,
                    column: row.get(2)?,
                })
            };
            Fallible(collect_rows(rows.query_map(
                params![name, path, line, col, request.sql_limit()],
                read,
            )))
        };
        let count = |after: Option<&(String, i64, i64)>| {
            let (path, line, col) = after.cloned().unwrap_or_default();
            self.db.query_row(
                "SELECT COUNT(*) FROM occ WHERE name = ?1 AND (path, line, col) > (?2, ?3, ?4)",
                params![name, path, line, col],
                |row| row.get::<_, i64>(0).map(|n| n.max(0) as u64),
            )
        };
        let key = |r: &Reference| (r.path.clone(), r.line, r.column);
        // COUNT(*) is cheap here: every page has an exact total.
        let limits = limits.clone().count_total(true);
        Bounded::page(
            Keyset::new(source, key).count(count),
            &limits,
            &scope,
            cursor,
        )
    }

    /// The call sites of `name`, by path, line, column, each with the
    /// function it is in.
    pub fn callers(&self, name: &str, limits: &Limits, cursor: Option<&Cursor>) -> Answer<Call> {
        let scope = self.scope("callers", name);
        let mut rows = self
            .db
            .prepare_cached(
                "SELECT caller, path, line, col FROM occ
             WHERE name = ?1 AND is_call = 1 AND (path, line, col) > (?2, ?3, ?4)
             ORDER BY path, line, col LIMIT ?5",
            )
            .map_err(TryError::from_source)?;
        let source = |request: KeyRequest<(String, i64, i64)>| {
            let (path, line, col) = request.after().cloned().unwrap_or_default();
            let read = |row: &rusqlite::Row<'_>| {
                Ok(Call {
                    caller: row.get(0)?,
                    path: row.get(1)?,
                    line: row.get(2)?,
                    column: row.get(3)?,
                })
            };
            Fallible(collect_rows(rows.query_map(
                params![name, path, line, col, request.sql_limit()],
                read,
            )))
        };
        let count = |after: Option<&(String, i64, i64)>| {
            let (path, line, col) = after.cloned().unwrap_or_default();
            self.db.query_row(
                "SELECT COUNT(*) FROM occ WHERE name = ?1 AND is_call = 1 AND (path, line, col) > (?2, ?3, ?4)",
                params![name, path, line, col],
                |row| row.get::<_, i64>(0).map(|n| n.max(0) as u64),
            )
        };
        let key = |c: &Call| (c.path.clone(), c.line, c.column);
        // COUNT(*) is cheap here: every page has an exact total.
        let limits = limits.clone().count_total(true);
        Bounded::page(
            Keyset::new(source, key).count(count),
            &limits,
            &scope,
            cursor,
        )
    }

    /// The definitions in the file `path`, by line and column.
    pub fn outline(
        &self,
        path: &str,
        limits: &Limits,
        cursor: Option<&Cursor>,
    ) -> Answer<Definition> {
        let scope = self.scope("outline", path);
        let mut rows = self
            .db
            .prepare_cached(
                "SELECT kind, name, line, col FROM defs WHERE path = ?1 AND (line, col) > (?2, ?3)
             ORDER BY line, col LIMIT ?4",
            )
            .map_err(TryError::from_source)?;
        let source = |request: KeyRequest<(i64, i64)>| {
            let (line, col) = request.after().copied().unwrap_or_default();
            let read = |row: &rusqlite::Row<'_>| {
                Ok(Definition {
                    kind: row.get(0)?,
                    name: row.get(1)?,
                    line: row.get(2)?,
                    column: row.get(3)?,
                })
            };
            Fallible(collect_rows(
                rows.query_map(params![path, line, col, request.sql_limit()], read),
            ))
        };
        let count = |after: Option<&(i64, i64)>| {
            let (line, col) = after.copied().unwrap_or_default();
            self.db.query_row(
                "SELECT COUNT(*) FROM defs WHERE path = ?1 AND (line, col) > (?2, ?3)",
                params![path, line, col],
                |row| row.get::<_, i64>(0).map(|n| n.max(0) as u64),
            )
        };
        let key = |d: &Definition| (d.line, d.column);
        // COUNT(*) is cheap here: every page has an exact total.
        let limits = limits.clone().count_total(true);
        Bounded::page(
            Keyset::new(source, key).count(count),
            &limits,
            &scope,
            cursor,
        )
    }
}

/// The rows of a statement, each a `Result`; a failed statement is one
/// `Err`, so that candor ends the query with it.
fn collect_rows<T>(
    rows: rusqlite::Result<impl Iterator<Item = rusqlite::Result<T>>>,
) -> Vec<rusqlite::Result<T>> {
    match rows {
        Ok(rows) => rows.collect(),
        Err(e) => vec![Err(e)],
    }
}

/// Query a Rust source tree's symbol index.
#[derive(Debug, Parser)]
#[command(name = "code_index")]
struct Args {
    /// The folder to index (its `.rs` files).
    #[arg(long, value_name = "DIR")]
    root: PathBuf,
    /// The most items per page (before or after the query).
    #[arg(long, default_value_t = 50, global = true)]
    limit: usize,
    /// A next_cursor from an earlier page of the same query (before or
    /// after the query).
    #[arg(long, global = true)]
    cursor: Option<String>,
    #[command(subcommand)]
    query: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Every occurrence of an identifier.
    References { name: String },
    /// The call sites of a function, with the function each is in.
    Callers { name: String },
    /// The definitions in one file (relative to the root).
    Outline { path: String },
}

fn print<T: Serialize>(answer: Answer<T>) -> Result<(), String> {
    let page = answer.map_err(|e| e.to_string())?;
    println!("{}", page.to_json().map_err(|e| e.to_string())?);
    Ok(())
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let run = || -> Result<(), String> {
        let index = Index::build(&args.root).map_err(|e| format!("cannot index: {e}"))?;
        let cursor = args
            .cursor
            .as_deref()
            .map(Cursor::parse)
            .transpose()
            .map_err(|e| e.to_string())?;
        let limits = Limits::new().limit(args.limit);
        match &args.query {
            Command::References { name } => print(index.references(name, &limits, cursor.as_ref())),
            Command::Callers { name } => print(index.callers(name, &limits, cursor.as_ref())),
            Command::Outline { path } => print(index.outline(path, &limits, cursor.as_ref())),
        }
    };
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("code_index: {e}");
            std::process::ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod cli_tests {
    use super::*;

    /// `--limit` and `--cursor` go before or after the query, as README
    /// shows them after it.
    #[test]
    fn paging_flags_go_before_or_after_the_query() {
        for argv in [
            &[
                "code_index",
                "--root",
                "src",
                "references",
                "Limits",
                "--limit",
                "20",
            ][..],
            &[
                "code_index",
                "--root",
                "src",
                "--limit",
                "20",
                "references",
                "Limits",
            ],
        ] {
            let args = Args::try_parse_from(argv).expect("the arguments parse");
            assert_eq!(args.limit, 20, "{argv:?}");
            assert!(matches!(&args.query, Command::References { name } if name == "Limits"));
        }
        let args = Args::try_parse_from([
            "code_index",
            "--root",
            "src",
            "callers",
            "collect",
            "--cursor",
            "AQ",
        ])
        .expect("the arguments parse");
        assert_eq!(args.cursor.as_deref(), Some("AQ"));
        assert_eq!(args.limit, 50, "the default");
    }
}
