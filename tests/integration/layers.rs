//! The crate's layering, checked on its sources: a module imports only
//! from the layers below it (ARCHITECTURE.md lists them).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use regex::Regex;

/// The core's layers, bottom to top.
const CORE: &[&[&str]] = &[
    &["error", "clock", "cancel"],
    &["completeness", "total", "skipped", "cursor"],
    &["limits"],
    &["disclosure"],
    &["note"],
    &["summary", "envelope"],
    &["bounded", "streamed"],
    &["collect", "wire", "json_stream", "stream_error"],
    &["count"],
    &["page", "schema", "cluster"],
    &["search", "mcp", "opensearch", "zoekt"],
    &["index"],
];

/// The search pipeline's modules, bottom to top: lines and paths, items
/// and queries, reading and matching, the per-file engine, the sources
/// (walk, documents, tree), then the runner and the public trait.
const SEARCH: &[&str] = &[
    "lines",
    "path",
    "item",
    "query",
    "confine",
    "reader",
    "matcher",
    "engine",
    "source",
    "walk",
    "document",
    "documents",
    "tree",
    "operation",
    "run",
    "excerpt",
    "corpus",
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The names `lib.rs` re-exports, by the module they come from.
fn reexports() -> BTreeMap<String, String> {
    let lib = fs::read_to_string(src().join("lib.rs")).unwrap();
    let line = Regex::new(r"pub use (\w+)::(?:\w+::)*(\{[^}]*\}|\w+);").unwrap();
    let word = Regex::new(r"\w+").unwrap();
    let mut names = BTreeMap::new();
    for cap in line.captures_iter(&lib) {
        for name in word.find_iter(&cap[2]) {
            names.insert(name.as_str().to_string(), cap[1].to_string());
        }
    }
    names
}

/// The code of a file: its unit tests at the end and its comments left
/// out.
fn code_of(text: &str) -> String {
    let tests = Regex::new(r"#\[cfg\((?:all\()?test[^\n]*\n\s*mod tests").unwrap();
    let code = tests.split(text).next().unwrap_or_default();
    Regex::new(r"//[^\n]*")
        .unwrap()
        .replace_all(code, "")
        .into_owned()
}

/// The names `code` reaches through `prefix::`: the first name of a path,
/// and every name of a `prefix::{...}` group.
fn named(code: &str, prefix: &str) -> Vec<String> {
    let path = Regex::new(&format!(r"{prefix}::(\w+)")).unwrap();
    let group = Regex::new(&format!(r"{prefix}::\{{([^}}]*)\}}")).unwrap();
    let word = Regex::new(r"\w+").unwrap();
    let mut found: Vec<String> = path.captures_iter(code).map(|c| c[1].to_string()).collect();
    for g in group.captures_iter(code) {
        found.extend(word.find_iter(&g[1]).map(|w| w.as_str().to_string()));
    }
    found
}

/// The imports from a module ranked at or above the importing file's own,
/// among the files below `root`. A file's module is the first component
/// of its path there; `skip` lists the files that are in no rank, and
/// `modules_used` what a file's code names.
fn upward_imports(
    root: &Path,
    rank: &BTreeMap<&str, usize>,
    skip: &[&str],
    modules_used: impl Fn(&Path, &str) -> Vec<String>,
) -> (usize, Vec<String>) {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let mut upward = Vec::new();
    let mut seen = 0;
    for file in &files {
        let rel = file.strip_prefix(root).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = top.trim_end_matches(".rs");
        if skip.contains(&module) {
            continue;
        }
        let own = *rank
            .get(module)
            .unwrap_or_else(|| panic!("{} is in no layer", rel.display()));
        seen += 1;
        let code = code_of(&fs::read_to_string(file).unwrap());
        for used in modules_used(rel, &code) {
            if rank
                .get(used.as_str())
                .is_some_and(|&r| used != module && r >= own)
            {
                upward.push(format!("{} imports {used}", rel.display()));
            }
        }
    }
    (seen, upward)
}

#[test]
fn core_modules_import_only_from_layers_below() {
    let layer_of: BTreeMap<&str, usize> = CORE
        .iter()
        .enumerate()
        .flat_map(|(i, layer)| layer.iter().map(move |m| (*m, i)))
        .collect();
    let names = reexports();
    // A name `lib.rs` re-exports stands for the module it comes from.
    let (seen, upward) = upward_imports(&src(), &layer_of, &["lib"], |_, code| {
        named(code, "crate")
            .into_iter()
            .map(|name| names.get(&name).cloned().unwrap_or(name))
            .collect()
    });
    assert!(seen > 30, "the sources were found ({seen} files)");
    assert!(
        upward.is_empty(),
        "imports at or above their layer: {upward:#?}"
    );
}

#[test]
fn search_modules_import_only_from_modules_below() {
    let rank: BTreeMap<&str, usize> = SEARCH.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    let (seen, upward) = upward_imports(&src().join("search"), &rank, &["mod"], |rel, code| {
        let mut used = named(code, "crate::search");
        // In a file directly under `search/`, `super::` is the search module.
        if rel.components().count() == 1 {
            used.extend(named(code, "super"));
        }
        used
    });
    assert!(seen > 20, "the search sources were found ({seen} files)");
    assert!(upward.is_empty(), "imports from above: {upward:#?}");
}
