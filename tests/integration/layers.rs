//! The workspace's layering, checked on its sources: in each crate a
//! module imports only from the layers below it, and no two files import
//! each other in a loop (ARCHITECTURE.md lists the layers).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use regex::Regex;

/// The core's layers, bottom to top.
const CORE: &[&[&str]] = &[
    &["error", "clock", "cancel"],
    &["completeness", "total", "as_of", "skipped"],
    &["cursor"],
    &["limits"],
    &["disclosure"],
    &["note"],
    &["summary", "envelope"],
    &["bounded", "streamed"],
    &["collector", "wire", "json_stream", "stream_error"],
    &["page", "schema", "cluster"],
    &["opensearch", "zoekt"],
];

/// The search pipeline's modules, bottom to top: lines and paths, items
/// and queries, reading and matching, the per-file engine, the sources
/// (walk, documents, tree), then the runner and the public trait.
const SEARCH: &[&str] = &[
    "lines",
    "path",
    "position",
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
    "seam",
    "index",
];

/// The workspace's library crates, by the folder of their sources.
const CRATES: &[&str] = &["src", "crates/candor-search/src", "crates/candor-mcp/src"];

/// The contract's sources.
fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The search crate's sources.
fn search_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/candor-search/src")
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

/// `code` with the `super::` inside its inline modules (`mod name { .. }`)
/// written `self::`: the file's module, as seen from them.
fn inline_modules_flattened(code: &str) -> String {
    let open = Regex::new(r"\bmod\s+\w+\s*\{").unwrap();
    let mut out = String::new();
    let mut rest = code;
    while let Some(m) = open.find(rest) {
        out.push_str(&rest[..m.end()]);
        let body = &rest[m.end()..];
        let mut depth = 1;
        let end = body
            .char_indices()
            .find(|&(_, c)| {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
                depth == 0
            })
            .map_or(body.len(), |(i, _)| i);
        out.push_str(&body[..end].replace("super::", "self::"));
        rest = &body[end..];
    }
    out.push_str(rest);
    out
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
    let (seen, upward) = upward_imports(&search_src(), &rank, &["lib"], |_, code| {
        named(code, "crate")
    });
    assert!(seen > 20, "the search sources were found ({seen} files)");
    assert!(upward.is_empty(), "imports from above: {upward:#?}");
}

/// A file's module path below the crate root, from its path below `src/`
/// (`search/engine/file.rs`: `["search", "engine", "file"]`; a `mod.rs` or
/// `lib.rs` is its folder's module).
fn module_of(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_owned)
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// One leaf of a `use` tree: its path, the name it brings in, and
/// whether the item is public (a re-export, at least within the crate).
struct UseLeaf {
    path: Vec<String>,
    name: String,
    public: bool,
}

/// The leaves of every `use` item in `code` (groups, `self` and `as`
/// spelled out; a glob brings no name and is left out).
fn use_leaves(code: &str) -> Vec<UseLeaf> {
    let item = Regex::new(r"(?s)(\bpub(?:\([^)]*\))?\s+)?\buse\s+([^;]*);").unwrap();
    let token = Regex::new(r"::|[{},*]|\w+").unwrap();
    let mut leaves = Vec::new();
    for cap in item.captures_iter(code) {
        let tokens: Vec<String> = token
            .find_iter(&cap[2])
            .map(|t| t.as_str().to_owned())
            .collect();
        let mut at = 0;
        let from = leaves.len();
        use_tree(&tokens, &mut at, Vec::new(), &mut leaves);
        for leaf in &mut leaves[from..] {
            leaf.public = cap.get(1).is_some();
        }
    }
    leaves
}

/// Parses one use tree from `tokens[*at..]`, below `prefix`.
fn use_tree(tokens: &[String], at: &mut usize, mut prefix: Vec<String>, out: &mut Vec<UseLeaf>) {
    while *at < tokens.len() {
        let token = tokens[*at].as_str();
        *at += 1;
        match token {
            "::" => {}
            "{" => {
                loop {
                    use_tree(tokens, at, prefix.clone(), out);
                    match tokens.get(*at).map(String::as_str) {
                        Some(",") => *at += 1,
                        Some("}") => {
                            *at += 1;
                            break;
                        }
                        _ => break,
                    }
                    if tokens.get(*at).map(String::as_str) == Some("}") {
                        *at += 1;
                        break;
                    }
                }
                return;
            }
            "*" => return,
            "," | "}" => {
                *at -= 1;
                break;
            }
            "as" => {
                let alias = tokens.get(*at).cloned().unwrap_or_default();
                *at += 1;
                if let Some(leaf) = out.last_mut() {
                    leaf.name = alias;
                }
                return;
            }
            word => {
                if word == "self" && !prefix.is_empty() {
                    continue;
                }
                prefix.push(word.to_owned());
                let next = tokens.get(*at).map(String::as_str);
                if next != Some("::") {
                    out.push(UseLeaf {
                        name: prefix.last().cloned().unwrap_or_default(),
                        path: prefix.clone(),
                        public: false,
                    });
                    if next == Some("as") {
                        continue;
                    }
                    return;
                }
            }
        }
    }
    if let Some(last) = prefix.last() {
        if last != "self" {
            out.push(UseLeaf {
                name: last.clone(),
                path: prefix,
                public: false,
            });
        }
    }
}

/// The crate's files as a module tree: each module's path, its file, and
/// what its code imports.
struct Crate {
    /// Module path to file (path below `src/`).
    files: BTreeMap<Vec<String>, String>,
    /// File to its code (unit tests and comments left out).
    code: BTreeMap<String, String>,
    /// File to the leaves of its `use` items.
    leaves: BTreeMap<String, Vec<UseLeaf>>,
}

impl Crate {
    fn new(sources: &[(String, String)]) -> Crate {
        let mut files = BTreeMap::new();
        let mut code = BTreeMap::new();
        for (rel, text) in sources {
            files.insert(module_of(rel), rel.clone());
            code.insert(rel.clone(), inline_modules_flattened(&code_of(text)));
        }
        let leaves = code
            .iter()
            .map(|(file, code)| (file.clone(), use_leaves(code)))
            .collect();
        Crate {
            files,
            code,
            leaves,
        }
    }

    /// A path as written in the module `at`, made absolute: `crate::`,
    /// `super::` and `self::` resolved, and a path that starts with a child
    /// module's name read below `at`. `None` for another crate's path.
    fn absolute(&self, at: &[String], path: &[String]) -> Option<Vec<String>> {
        let mut base: Vec<String> = at.to_vec();
        let mut rest = path;
        match rest.first().map(String::as_str) {
            Some("crate") => {
                base.clear();
                rest = &rest[1..];
            }
            Some("self") => rest = &rest[1..],
            Some("super") => {
                while rest.first().is_some_and(|s| s == "super") {
                    base.pop()?;
                    rest = &rest[1..];
                }
            }
            Some(first) => {
                let mut child = at.to_vec();
                child.push(first.to_owned());
                if !self.files.contains_key(&child) {
                    return None;
                }
            }
            None => return None,
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// The file an absolute path reaches: the deepest module on it that
    /// has a file, followed through that file's `use` of the name (a
    /// re-export) to where the name comes from.
    fn file_of(&self, path: &[String], depth: usize) -> Option<String> {
        let len = (0..=path.len())
            .rev()
            .find(|&n| self.files.contains_key(&path[..n]))?;
        let module = &path[..len];
        let file = self.files[module].clone();
        if depth < 8 {
            if let Some(name) = path.get(len) {
                for leaf in &self.leaves[&file] {
                    if &leaf.name == name {
                        let mut through = self.absolute(module, &leaf.path)?;
                        through.extend(path[len + 1..].iter().cloned());
                        return self.file_of(&through, depth + 1).or(Some(file));
                    }
                }
            }
        }
        Some(file)
    }

    /// The file-level import graph: each file and the files it imports
    /// from (through `use`, and paths through `crate::`, `super::`,
    /// `self::` or a child module in its code).
    fn imports(&self) -> BTreeMap<String, std::collections::BTreeSet<String>> {
        let inline = Regex::new(r"\b(?:crate|super|self|\w+)(?:::(?:\w+))+").unwrap();
        let use_item = Regex::new(r"(?s)\buse\s+[^;]*;").unwrap();
        let mut graph = BTreeMap::new();
        for (module, file) in &self.files {
            let code = &self.code[file];
            // Outside `use` items: a path's every prefix may be a module.
            let no_use = use_item.replace_all(code, "");
            // A re-export is followed by whoever imports through it; it
            // is the file's own import only where its code names it.
            let mut paths: Vec<Vec<String>> = self.leaves[file]
                .iter()
                .filter(|l| {
                    !l.public
                        || Regex::new(&format!(r"\b{}\b", l.name))
                            .unwrap()
                            .is_match(&no_use)
                })
                .map(|l| l.path.clone())
                .collect();
            for m in inline.find_iter(&no_use) {
                paths.push(m.as_str().split("::").map(str::to_owned).collect());
            }
            let mut to = std::collections::BTreeSet::new();
            for path in paths {
                let Some(absolute) = self.absolute(module, &path) else {
                    continue;
                };
                if let Some(target) = self.file_of(&absolute, 0) {
                    if &target != file {
                        to.insert(target);
                    }
                }
            }
            graph.insert(file.clone(), to);
        }
        graph
    }
}

/// The import loops among `sources` (each a path below `src/` and its
/// text): each as the files around it, the first repeated at the end.
fn import_loops(sources: &[(String, String)]) -> Vec<Vec<String>> {
    let graph = Crate::new(sources).imports();
    let mut loops = Vec::new();
    // Each file's loop back to itself through files after it in order,
    // so a loop is reported once, from its first file.
    for start in graph.keys() {
        let mut parent: BTreeMap<&String, &String> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        let mut found = None;
        'search: while let Some(file) = queue.pop_front() {
            for next in &graph[file] {
                if next == start {
                    found = Some(file);
                    break 'search;
                }
                if next > start && !parent.contains_key(next) && graph.contains_key(next) {
                    parent.insert(next, file);
                    queue.push_back(next);
                }
            }
        }
        if let Some(last) = found {
            let mut cycle = vec![start.clone()];
            let mut file = last;
            while file != start {
                cycle.push(file.clone());
                file = parent[file];
            }
            cycle[1..].reverse();
            cycle.push(start.clone());
            loops.push(cycle);
        }
    }
    loops
}

/// Every file of a crate's sources (`root`), as a path below it and its
/// text.
fn sources(root: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    files
        .iter()
        .map(|f| {
            let rel = f.strip_prefix(root).unwrap();
            let rel = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            (rel, fs::read_to_string(f).unwrap())
        })
        .collect()
}

#[test]
fn no_two_files_import_each_other_in_a_loop() {
    for folder in CRATES {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
        let sources = sources(&root);
        assert!(sources.len() > 8, "the sources of {folder} were found");
        let graph = Crate::new(&sources).imports();
        // The checker sees the imports.
        assert!(
            graph.values().map(|to| to.len()).sum::<usize>() >= sources.len() / 2,
            "the imports of {folder} were found"
        );
        let loops: Vec<String> = import_loops(&sources)
            .iter()
            .map(|cycle| cycle.join(" -> "))
            .collect();
        assert!(
            loops.is_empty(),
            "files of {folder} that import each other in a loop: {loops:#?}"
        );
    }
}

#[test]
fn a_planted_import_loop_is_found_and_named() {
    let files = |texts: &[(&str, &str)]| -> Vec<(String, String)> {
        texts
            .iter()
            .map(|(p, t)| ((*p).to_owned(), (*t).to_owned()))
            .collect()
    };
    let clean = files(&[
        ("lib.rs", "mod a;\nmod b;\npub use a::A;\n"),
        ("a/mod.rs", "mod inner;\npub use inner::A;\n"),
        ("a/inner.rs", "use crate::b::B;\npub struct A(B);\n"),
        (
            "b.rs",
            "pub struct B;\n#[cfg(test)]\nmod tests {\n    use crate::A;\n}\n",
        ),
    ]);
    assert_eq!(import_loops(&clean), Vec::<Vec<String>>::new());
    // `b.rs` now names `A`, which `lib.rs` re-exports from `a/inner.rs`,
    // which imports `b.rs`: a loop through a re-export.
    let mut planted = clean.clone();
    planted[3].1 = "pub struct B(Box<crate::A>);\n".to_owned();
    assert_eq!(
        import_loops(&planted),
        vec![vec![
            "a/inner.rs".to_owned(),
            "b.rs".to_owned(),
            "a/inner.rs".to_owned()
        ]]
    );
    // Within a folder, through `super::` and a group.
    let mut planted = clean;
    planted.push((
        "a/other.rs".to_owned(),
        "use super::{inner::A};\n".to_owned(),
    ));
    planted[2].1 = "use super::other;\npub struct A;\n".to_owned();
    assert_eq!(
        import_loops(&planted),
        vec![vec![
            "a/inner.rs".to_owned(),
            "a/other.rs".to_owned(),
            "a/inner.rs".to_owned()
        ]]
    );
}
