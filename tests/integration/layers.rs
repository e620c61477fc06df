//! The crate's layering, checked on its sources: a module imports only
//! from the layers below it (ARCHITECTURE.md lists them), and no source
//! file grows past the size at which it starts to hold two concepts.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use regex::Regex;

/// The core's layers, bottom to top.
const CORE: &[&[&str]] = &[
    &["error", "clock", "cancel"],
    &["completeness", "total", "skipped", "cursor"],
    &["limits"],
    &["note"],
    &["disclosure"],
    &["summary", "envelope"],
    &["bounded", "streamed"],
    &["strict", "collect", "wire", "json_stream"],
    &["count"],
    &["page", "merge", "schema"],
    &["search", "mcp"],
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

/// The most lines a source file may hold.
const MAX_LINES: usize = 500;

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

/// The top-level modules a file names through `crate::`, re-exports
/// resolved, comments and the unit tests at its end left out.
fn imports(text: &str, names: &BTreeMap<String, String>) -> Vec<String> {
    let tests = Regex::new(r"#\[cfg\((?:all\()?test[^\n]*\n\s*mod tests").unwrap();
    let text = tests.split(text).next().unwrap_or_default();
    let comment = Regex::new(r"//[^\n]*").unwrap();
    let path = Regex::new(r"crate::(\w+)").unwrap();
    let group = Regex::new(r"crate::\{([^}]*)\}").unwrap();
    let word = Regex::new(r"\w+").unwrap();
    let code = comment.replace_all(text, "");
    let mut found: Vec<String> = path
        .captures_iter(&code)
        .map(|c| c[1].to_string())
        .chain(group.captures_iter(&code).flat_map(|c| {
            word.find_iter(&c[1])
                .map(|w| w.as_str().to_string())
                .collect::<Vec<_>>()
        }))
        .map(|name| names.get(&name).cloned().unwrap_or(name))
        .collect();
    found.sort();
    found.dedup();
    found
}

#[test]
fn core_modules_import_only_from_layers_below() {
    let layer_of: BTreeMap<&str, usize> = CORE
        .iter()
        .enumerate()
        .flat_map(|(i, layer)| layer.iter().map(move |m| (*m, i)))
        .collect();
    let names = reexports();
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut upward = Vec::new();
    let mut seen = 0;
    for file in &files {
        let rel = file.strip_prefix(src()).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = top.trim_end_matches(".rs");
        let Some(&own) = layer_of.get(module) else {
            assert_eq!(module, "lib", "{} is in no layer", rel.display());
            continue;
        };
        seen += 1;
        let text = fs::read_to_string(file).unwrap();
        for used in imports(&text, &names) {
            match layer_of.get(used.as_str()) {
                Some(&layer) if used != module && layer >= own => {
                    upward.push(format!("{} imports {used}", rel.display()));
                }
                _ => {}
            }
        }
    }
    assert!(seen > 30, "the sources were found ({seen} files)");
    assert!(
        upward.is_empty(),
        "imports at or above their layer: {upward:#?}"
    );
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

#[test]
fn search_modules_import_only_from_modules_below() {
    let rank: BTreeMap<&str, usize> = SEARCH.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    let path = Regex::new(r"crate::search::(\w+)").unwrap();
    let group = Regex::new(r"crate::search::\{([^}]*)\}").unwrap();
    let first = Regex::new(r"^\s*(\w+)").unwrap();
    let sibling = Regex::new(r"super::(\w+)").unwrap();
    let root = src().join("search");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut upward = Vec::new();
    let mut seen = 0;
    for file in &files {
        let rel = file.strip_prefix(&root).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = top.trim_end_matches(".rs");
        if module == "mod" {
            continue;
        }
        let own = *rank
            .get(module)
            .unwrap_or_else(|| panic!("search/{} is in no layer", rel.display()));
        seen += 1;
        let code = code_of(&fs::read_to_string(file).unwrap());
        let mut used: Vec<String> = path
            .captures_iter(&code)
            .map(|c| c[1].to_string())
            .collect();
        for g in group.captures_iter(&code) {
            used.extend(
                g[1].split(',')
                    .filter_map(|p| first.captures(p))
                    .map(|c| c[1].to_string()),
            );
        }
        // In a file directly under `search/`, `super::` is the search module.
        if rel.components().count() == 1 {
            used.extend(sibling.captures_iter(&code).map(|c| c[1].to_string()));
        }
        for used in used {
            if let Some(&rank) = rank.get(used.as_str()) {
                if used != module && rank >= own {
                    upward.push(format!("search/{} imports {used}", rel.display()));
                }
            }
        }
    }
    assert!(seen > 20, "the search sources were found ({seen} files)");
    assert!(upward.is_empty(), "imports from above: {upward:#?}");
}

#[test]
fn no_source_file_is_longer_than_its_concept() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let long: Vec<String> = files
        .iter()
        .map(|f| (f, fs::read_to_string(f).unwrap().lines().count()))
        .filter(|(_, lines)| *lines > MAX_LINES)
        .map(|(f, lines)| {
            format!(
                "{}: {lines} lines",
                f.strip_prefix(src()).unwrap().display()
            )
        })
        .collect();
    assert!(long.is_empty(), "over {MAX_LINES} lines: {long:#?}");
}
