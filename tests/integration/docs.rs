//! Every document a file of the repository names is in the repository: a
//! reader who follows a citation ("docs/CONTRACT.md, rule 6") finds it.
//!
//! The test reads the repository's tracked text files (`.rs`, `.md`,
//! `.toml`, `.py`, `.sh`; from `git ls-files`, or a walk of the checkout
//! that leaves out `target` folders and hidden ones when git cannot list
//! them) and takes every name of a Markdown file they hold: a bare name in
//! capitals such as `ARCHITECTURE.md`, or a path such as
//! `docs/CONTRACT.md` or `../docs/CONTRACT.md`. Lower-case names outside
//! `docs/` are test data (a file `notes.md` in a generated tree), and
//! names inside a URL are another site's; both are left out. A
//! name is found when it is a file of the repository relative to the
//! folder of the file that names it, or to any folder above that one up to
//! the repository's root. The test fails naming each one that is not, and
//! where.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::process::Command;

use regex::Regex;

/// The repository's root: the contract's package is at the root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The extensions of the files scanned.
const SCANNED: [&str; 5] = ["rs", "md", "toml", "py", "sh"];

/// The repository's files, relative to the root, with `/` separators:
/// those git tracks, or those a walk finds when git cannot list them.
fn repository_files(root: &Path) -> Vec<String> {
    let listed = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root)
        .output()
        .ok()
        .filter(|out| out.status.success() && !out.stdout.is_empty());
    match listed {
        Some(out) => String::from_utf8_lossy(&out.stdout)
            .split('\0')
            .filter(|name| !name.is_empty())
            .map(str::to_owned)
            .collect(),
        None => {
            let mut files = Vec::new();
            walk(root, root, &mut files);
            files
        }
    }
}

/// The files below `dir`, leaving out `target` folders and hidden ones.
fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if name != "target" && !name.starts_with('.') {
                walk(root, &path, out);
            }
        } else if let Ok(rel) = path.strip_prefix(root) {
            let parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.push(parts.join("/"));
        }
    }
}

/// The names of Markdown files that `text` refers to (see the module's
/// docs), each with its line number.
fn references(text: &str) -> Vec<(usize, String)> {
    let name = Regex::new(r"(?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_.-]+\.md\b").unwrap();
    let capitals = Regex::new(r"^[A-Z][A-Z0-9_-]*\.md$").unwrap();
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for m in name.find_iter(line) {
            let reference = m.as_str().trim_start_matches("./");
            let file = reference.rsplit('/').next().unwrap_or(reference);
            let in_docs = reference.split('/').any(|part| part == "docs");
            if !capitals.is_match(file) && !in_docs {
                continue;
            }
            // The whitespace-delimited word around it: a URL names
            // another site's file.
            let start = line[..m.start()]
                .rfind(char::is_whitespace)
                .map_or(0, |i| i + 1);
            let end = line[m.end()..]
                .find(char::is_whitespace)
                .map_or(line.len(), |i| m.end() + i);
            if line[start..end].contains("://") {
                continue;
            }
            found.push((n + 1, reference.to_owned()));
        }
    }
    found
}

/// `path` with `.` and `..` resolved, or `None` when it climbs above
/// the root.
fn normalized(path: &Path) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.join("/"))
}

/// Whether `reference`, named in the file `from`, is one of `files`:
/// relative to `from`'s folder or to a folder above it.
fn resolves(reference: &str, from: &str, files: &BTreeSet<String>) -> bool {
    let mut folder = Path::new(from).parent();
    while let Some(dir) = folder {
        if normalized(&dir.join(reference)).is_some_and(|path| files.contains(&path)) {
            return true;
        }
        folder = dir.parent();
    }
    false
}

/// Every reference in the scanned files that names no file of
/// `files`, as `path:line: reference`.
fn missing(root: &Path, files: &BTreeSet<String>) -> (usize, Vec<String>) {
    let mut seen = 0;
    let mut missing = Vec::new();
    for file in files {
        let scanned = Path::new(file)
            .extension()
            .is_some_and(|e| SCANNED.iter().any(|s| e == *s));
        if !scanned {
            continue;
        }
        let Ok(text) = fs::read_to_string(root.join(file)) else {
            continue;
        };
        for (line, reference) in references(&text) {
            seen += 1;
            if !resolves(&reference, file, files) {
                missing.push(format!("{file}:{line}: {reference}"));
            }
        }
    }
    (seen, missing)
}

#[test]
fn every_document_a_file_names_is_in_the_repository() {
    let root = root();
    let files: BTreeSet<String> = repository_files(&root).into_iter().collect();
    assert!(
        files.contains("docs/CONTRACT.md") && files.contains("src/lib.rs"),
        "the repository's files were listed ({} of them)",
        files.len()
    );
    let (seen, missing) = missing(&root, &files);
    // README, CHANGELOG, ARCHITECTURE and the contract are cited all over.
    assert!(seen > 20, "references were found ({seen})");
    assert!(
        missing.is_empty(),
        "documents named but not in the repository:\n{}",
        missing.join("\n")
    );
}

#[test]
fn a_document_that_is_not_there_is_named_with_where() {
    // The names are built here, so that this file cites none of them.
    let gone = format!("{}.md", "NOT_IN_THE_REPOSITORY");
    let contract = format!("{}.md", "CONTRACT");
    let notes = format!("notes/{}.md", "today");
    let text = format!(
        "first line\nsee {gone} and docs/{gone}, rule 3\n\
         also [the contract](../docs/{contract}) and https://example.org/{gone}\n\
         and a test tree's {notes}\n"
    );
    let files: BTreeSet<String> = [format!("docs/{contract}"), "src/page/merge.rs".to_owned()]
        .into_iter()
        .collect();
    let found = references(&text);
    // The URL's name and the lower-case test data are left out.
    assert_eq!(
        found,
        [
            (2, gone.clone()),
            (2, format!("docs/{gone}")),
            (3, format!("../docs/{contract}")),
        ]
    );
    let unresolved: Vec<&str> = found
        .iter()
        .map(|(_, r)| r.as_str())
        .filter(|r| !resolves(r, "src/page/merge.rs", &files))
        .collect();
    assert_eq!(unresolved, [gone.as_str(), format!("docs/{gone}").as_str()]);
    // Relative to the naming file's folder, or to one above it; never
    // above the root.
    assert!(resolves(&contract, "docs/CONTRACT.md", &files));
    assert!(resolves(
        &format!("docs/{contract}"),
        "src/page/merge.rs",
        &files
    ));
    assert!(!resolves(
        &format!("../../docs/{contract}"),
        "src/lib.rs",
        &files
    ));
}
