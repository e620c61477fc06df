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
