//! The small tree the example tests search (the grep example's here, the
//! MCP server's in its own package).

/// A small tree: matches in several files and folders, a hidden file and a
/// binary file (both left out by default).
pub(crate) fn sample_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let files: &[(&str, &str)] = &[
        (
            "a/one.rs",
            "fn alpha() {}\nlet fish = 1;\nfn beta() { alpha() }\n// Fish and chips\n",
        ),
        (
            "a/two.rs",
            "struct Fish;\nfn gamma() -> Fish { Fish }\nfn delta() {}\n",
        ),
        (
            "b/three.txt",
            "one fish\ntwo fish\nred fish\nblue fish\nselfish\n",
        ),
        ("b/deep/four.txt", "fn in a text file\nfishing\n"),
        ("c.txt", "no match here\nFISH\nfn last\n"),
        (".hidden/secret.txt", "fish in hiding\nfn hidden\n"),
    ];
    for (path, text) in files {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().expect("a parent")).expect("mkdir");
        std::fs::write(full, text).expect("write");
    }
    std::fs::write(dir.path().join("b/blob.bin"), b"fish\0fish\n").expect("write");
    dir
}
