//! The grep example with `--index`, paged with `--cursor` while files
//! elsewhere in the tree are edited: each run may update the index after
//! its answer, and the next run's cursor still resumes. Checked against
//! a naive scan of the files as each run found them.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::examples_cli::example;

fn grep(dir: &Path, args: &[&str]) -> Output {
    Command::new(example("grep"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the grep example runs")
}

/// One matching line as the oracle and the example's JSON give it:
/// path, line number, byte offset, line.
type Hit = (String, u64, u64, String);

/// Every line holding `needle` in the files below `dir` (none hidden,
/// none binary), in path order: component by component.
fn scan(dir: &Path, needle: &str) -> Vec<Hit> {
    let mut files = Vec::new();
    let mut stack = vec![String::new()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(dir.join(&folder))
            .expect("a folder")
            .flatten()
        {
            let name = entry.file_name().into_string().expect("a UTF-8 name");
            let rel = if folder.is_empty() {
                name
            } else {
                format!("{folder}/{name}")
            };
            if entry.file_type().expect("a type").is_dir() {
                stack.push(rel);
            } else {
                files.push(rel);
            }
        }
    }
    files.sort_by(|a, b| a.split('/').cmp(b.split('/')));
    let mut hits = Vec::new();
    for rel in files {
        let text = std::fs::read_to_string(dir.join(&rel)).expect("a text file");
        let mut offset = 0u64;
        for (i, line) in text.split_inclusive('\n').enumerate() {
            let shown = line.strip_suffix('\n').unwrap_or(line);
            if shown.contains(needle) {
                hits.push((rel.clone(), i as u64 + 1, offset, shown.to_owned()));
            }
            offset += line.len() as u64;
        }
    }
    hits
}

fn hits_of(page: &Value) -> Vec<Hit> {
    page["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|m| {
            (
                m["path"].as_str().expect("a path").to_owned(),
                m["line_number"].as_u64().expect("a line number"),
                m["byte_offset"].as_u64().expect("an offset"),
                m["line"].as_str().expect("a line").to_owned(),
            )
        })
        .collect()
}

fn json(output: &Output) -> Value {
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "grep failed: {err}");
    serde_json::from_slice(&output.stdout).expect("one JSON object")
}

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("a folder");
    std::fs::write(path, text).expect("a write");
}

fn fish(n: usize, tag: &str) -> String {
    (0..n)
        .map(|i| format!("fish {tag} {i}\nno match {i}\n"))
        .collect()
}

/// Edits made before the page after `page`: files rewritten before the
/// cursor's, and added, rewritten and removed after it, never the
/// cursor's own (a file added or removed before it makes it stale: see
/// the end of the test below).
fn edit(dir: &Path, page: usize, cursor_file: &str) {
    let edits: [&[(&str, Option<&str>)]; 4] = [
        &[
            ("b/0-new.txt", Some("fish added after\n")),
            ("d.txt", Some("fish rewritten after\n")),
        ],
        &[
            ("c/three.txt", None),
            ("c/four.txt", Some("fish added after\n")),
        ],
        &[
            ("a/one.txt", Some("fish rewritten before\nfish\n")),
            ("e/five.txt", Some("fish new folder\n")),
        ],
        &[("b/two.txt", Some("no fish left? fish\n"))],
    ];
    let Some(edits) = edits.get(page) else {
        return;
    };
    for (rel, text) in *edits {
        if *rel == cursor_file {
            continue;
        }
        match text {
            Some(text) => write(dir, rel, text),
            None => {
                let _ = std::fs::remove_file(dir.join(rel));
            }
        }
    }
}

#[test]
fn grep_with_an_index_pages_on_after_edits_elsewhere() {
    let tmp = tempfile::tempdir().expect("a folder");
    let dir = tmp.path();
    write(dir, "a/one.txt", &fish(3, "one"));
    write(dir, "b/two.txt", &fish(4, "two"));
    write(dir, "c/three.txt", &fish(2, "three"));
    write(dir, "d.txt", &fish(3, "d"));
    let store = tempfile::tempdir().expect("a folder");
    let index = store.path().join("idx");
    let index = index.to_str().expect("a UTF-8 path");

    let mut cursor: Option<String> = None;
    let mut last: Option<Hit> = None;
    let mut start = 0u64;
    let mut pages = 0;
    loop {
        let want: Vec<Hit> = scan(dir, "fish")
            .into_iter()
            .filter(|h| {
                last.as_ref().is_none_or(|l| {
                    let key =
                        |h: &Hit| (h.0.split('/').map(str::to_owned).collect::<Vec<_>>(), h.2);
                    key(h) > key(l)
                })
            })
            .take(2)
            .collect();
        let mut args = vec!["--index", index, "--json", "--limit", "2", "-F", "fish"];
        if let Some(c) = &cursor {
            args.extend(["--cursor", c.as_str()]);
        }
        let page = json(&grep(dir, &args));
        assert_eq!(hits_of(&page), want, "page {pages}");
        assert_eq!(page["start"].as_u64().unwrap_or(0), start, "page {pages}");
        start += want.len() as u64;
        last = want.last().cloned();
        pages += 1;
        match page.get("next_cursor").and_then(Value::as_str) {
            Some(next) => cursor = Some(next.to_owned()),
            None => {
                assert_eq!(page["complete"], Value::Bool(true), "page {pages}");
                break;
            }
        }
        assert!(pages < 50, "more than 50 pages");
        edit(
            dir,
            pages - 1,
            &last.as_ref().expect("a page with a cursor has items").0,
        );
    }
    assert!(pages > 4, "the edits came between pages ({pages} pages)");

    // The cursor's own file rewritten: the next run refuses the cursor as
    // stale, and says to start again.
    let first = json(&grep(
        dir,
        &["--index", index, "--json", "--limit", "1", "-F", "fish"],
    ));
    let token = first["next_cursor"].as_str().expect("more pages");
    let file = hits_of(&first)[0].0.clone();
    write(dir, &file, "fish, and a rewrite\n");
    let refused = grep(
        dir,
        &[
            "--index", index, "--json", "--limit", "1", "--cursor", token, "-F", "fish",
        ],
    );
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("stale cursor"), "{err}");

    // A file added before the cursor's since: its matches would be
    // missed, and the walk's total would be wrong. Refused as stale; once
    // it is gone again, the cursor resumes.
    let first = json(&grep(
        dir,
        &["--index", index, "--json", "--limit", "1", "-F", "fish"],
    ));
    let token = first["next_cursor"].as_str().expect("more pages");
    let resume = [
        "--index", index, "--json", "--limit", "1", "--cursor", token, "-F", "fish",
    ];
    write(dir, "0-first.txt", "fish before them all\n");
    let refused = grep(dir, &resume);
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("stale cursor"), "{err}");
    std::fs::remove_file(dir.join("0-first.txt")).expect("a removal");
    json(&grep(dir, &resume));
}
