//! Corpus-relative paths: normalization, confinement and their order.

use std::cmp::Ordering;

use crate::{Error, ErrorKind};

/// Compares two corpus-relative paths component by component, byte-wise:
/// the order of a depth-first walk with each folder's entries sorted by
/// name. This is the order of every search result.
pub(crate) fn cmp_paths(a: &str, b: &str) -> Ordering {
    // The same order as comparing `a.split('/')` with `b.split('/')`: at
    // the first byte that differs, a `/` ends a name that is a prefix of
    // the other's, which sorts first.
    let (x, y) = (a.as_bytes(), b.as_bytes());
    match x.iter().zip(y).position(|(p, q)| p != q) {
        None => x.len().cmp(&y.len()),
        Some(i) => match (x[i], y[i]) {
            (b'/', _) => Ordering::Less,
            (_, b'/') => Ordering::Greater,
            (p, q) => p.cmp(&q),
        },
    }
}

/// The error for a caller's path that leaves the root.
fn outside_root(path: &str) -> Error {
    ErrorKind::OutsideRoot {
        path: path.to_owned(),
    }
    .into()
}

/// Refuses a caller's path holding a NUL byte, which no file name holds.
fn refuse_nul(path: &str) -> Result<(), Error> {
    if path.contains('\0') {
        return Err(Error::invalid_argument(
            "path",
            format!("{path:?} holds a NUL byte"),
        ));
    }
    Ok(())
}

/// Normalizes a caller's path to the corpus-relative form: `/` separators,
/// no `.`, no empty components, no trailing `/`. The root is `""`.
///
/// Refuses a path that leaves the root lexically (`..` above the root) or
/// that is absolute and not under `root_abs` (when given).
pub(crate) fn normalize(path: &str, root_abs: Option<&std::path::Path>) -> Result<String, Error> {
    let outside = || outside_root(path);
    refuse_nul(path)?;
    let unified = path.replace('\\', "/");
    let relative: String = if unified.starts_with('/') || has_drive_prefix(&unified) {
        let Some(root) = root_abs else {
            return Err(outside());
        };
        let abs = std::path::Path::new(path);
        match abs.strip_prefix(root) {
            Ok(rest) => rest.to_string_lossy().replace('\\', "/"),
            Err(_) => return Err(outside()),
        }
    } else {
        unified
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in relative.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(outside());
                }
            }
            other => parts.push(other),
        }
    }
    // `./c:x` normalizes to `c:x`, which reads as a drive path: refused
    // here too, so that a normalized path normalizes to itself.
    if parts.first().is_some_and(|first| has_drive_prefix(first)) {
        return Err(outside());
    }
    Ok(parts.join("/"))
}

#[cfg(feature = "tree")]
/// Appends a file name as it is written in a tree's paths: unchanged when
/// it is valid UTF-8 without a `\`; otherwise each `\` is written `\\`
/// and each byte that is not part of valid UTF-8 is written `\xhh` (two
/// lowercase hex digits). The writing is injective: two different names
/// are never written the same, and [`parse_tree_path`] reads it back.
pub(crate) fn push_name(name: &[u8], out: &mut String) {
    if let Ok(text) = std::str::from_utf8(name) {
        if !text.contains('\\') {
            out.push_str(text);
            return;
        }
    }
    for chunk in name.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\\' {
                out.push_str("\\\\");
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
}

#[cfg(feature = "tree")]
/// Reads a caller's path to a tree: its file names as bytes, from the
/// root, without `.`, `..` or empty components, and its normalized form
/// (as `push_name` writes each name, joined by `/`).
///
/// `\\` is a `\` in a name and `\xhh` a byte (as `push_name` writes
/// them); any other `\` separates names, as `/` does. An absolute path is
/// taken relative to `root_abs` when under it.
///
/// # Errors
///
/// An invalid argument for a NUL byte; `OutsideRoot` when the path leaves
/// the root.
pub(crate) fn parse_tree_path(
    path: &str,
    root_abs: &std::path::Path,
) -> Result<(Vec<Vec<u8>>, String), Error> {
    let outside = || outside_root(path);
    refuse_nul(path)?;
    let relative = if path.starts_with('/') {
        let root = root_abs.to_string_lossy();
        let root = root.trim_end_matches('/');
        match path.strip_prefix(root) {
            Some("") => "",
            Some(rest) if rest.starts_with('/') => rest,
            _ => return Err(outside()),
        }
    } else {
        path
    };
    let mut names: Vec<Vec<u8>> = Vec::new();
    let mut current: Vec<u8> = Vec::new();
    let end = |current: &mut Vec<u8>, names: &mut Vec<Vec<u8>>| -> Result<(), Error> {
        match current.as_slice() {
            b"" | b"." => {}
            b".." => {
                if names.pop().is_none() {
                    return Err(outside());
                }
            }
            _ => names.push(current.clone()),
        }
        current.clear();
        Ok(())
    };
    let bytes = relative.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' => end(&mut current, &mut names)?,
            b'\\' => match bytes.get(i + 1) {
                Some(b'\\') => {
                    current.push(b'\\');
                    i += 1;
                }
                Some(b'x') if hex_byte(bytes.get(i + 2..i + 4)).is_some() => {
                    current.extend(hex_byte(bytes.get(i + 2..i + 4)));
                    i += 3;
                }
                _ => end(&mut current, &mut names)?,
            },
            b => current.push(b),
        }
        i += 1;
    }
    end(&mut current, &mut names)?;
    let mut written = String::new();
    for (k, name) in names.iter().enumerate() {
        if k > 0 {
            written.push('/');
        }
        push_name(name, &mut written);
    }
    Ok((names, written))
}

#[cfg(feature = "tree")]
fn hex_byte(digits: Option<&[u8]>) -> Option<u8> {
    let digits = std::str::from_utf8(digits?).ok()?;
    u8::from_str_radix(digits, 16).ok()
}

#[cfg(feature = "tree")]
/// Reads a tree position written by `push_name` (a cursor's path): its
/// names as bytes. `None` unless it is exactly such a writing of one or
/// more names, none of them empty, `.` or `..`.
pub(crate) fn parse_position(path: &str) -> Option<Vec<Vec<u8>>> {
    if !path.contains('\\') {
        // Without escapes, each name is written as it is.
        return is_plain_position(path)
            .then(|| path.split('/').map(|n| n.as_bytes().to_vec()).collect());
    }
    let mut names = Vec::new();
    for part in path.split('/') {
        let bytes = part.as_bytes();
        let mut name = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'\\' {
                match bytes.get(i + 1) {
                    Some(b'\\') => {
                        name.push(b'\\');
                        i += 2;
                    }
                    Some(b'x') => {
                        name.push(hex_byte(bytes.get(i + 2..i + 4))?);
                        i += 4;
                    }
                    _ => return None,
                }
            } else {
                name.push(bytes[i]);
                i += 1;
            }
        }
        if name.is_empty() || name == b"." || name == b".." || name.contains(&0) {
            return None;
        }
        // Exactly the writing `push_name` gives, so one position has one
        // cursor path.
        let mut written = String::new();
        push_name(&name, &mut written);
        if written != part {
            return None;
        }
        names.push(name);
    }
    Some(names)
}

#[cfg(feature = "index")]
/// Whether `path` is a tree position as `push_name` writes one (see
/// `parse_position`), without building its names.
pub(crate) fn is_position(path: &str) -> bool {
    if path.contains('\\') {
        parse_position(path).is_some()
    } else {
        is_plain_position(path)
    }
}

#[cfg(feature = "tree")]
/// Whether `path`, written without escapes, is a tree position.
pub(crate) fn is_plain_position(path: &str) -> bool {
    // On bytes: an index checks every path it reads with this.
    let bytes = path.as_bytes();
    !bytes.contains(&0)
        && bytes
            .split(|&b| b == b'/')
            .all(|n| !matches!(n, b"" | b"." | b".."))
}

fn has_drive_prefix(path: &str) -> bool {
    let b = path.as_bytes();
    b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':'
}

/// Returns true when `path` is `filter` or lies under it. The root filter
/// `""` holds everything.
pub(crate) fn is_within(path: &str, filter: &str) -> bool {
    filter.is_empty()
        || path == filter
        || (path.len() > filter.len()
            && path.starts_with(filter)
            && path.as_bytes()[filter.len()] == b'/')
}

/// Returns true when a folder at `dir` may hold paths within one of the
/// filters: it is within one, or one is within it.
#[cfg(feature = "tree")]
pub(crate) fn may_hold(dir: &str, filters: &[String]) -> bool {
    filters.is_empty()
        || filters
            .iter()
            .any(|f| is_within(dir, f) || is_within(f, dir))
}

/// A file name from its bytes.
#[cfg(all(unix, feature = "tree"))]
pub(crate) fn os_name(bytes: Vec<u8>) -> std::ffi::OsString {
    std::os::unix::ffi::OsStringExt::from_vec(bytes)
}

/// A file name from its bytes (valid UTF-8 elsewhere than on unix, where
/// names are not bytes).
#[cfg(all(not(unix), feature = "tree"))]
pub(crate) fn os_name(bytes: Vec<u8>) -> std::ffi::OsString {
    std::ffi::OsString::from(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_component_wise() {
        // '-' sorts before '/', but a walk visits folder "a" before "a-c".
        assert_eq!(cmp_paths("a/b", "a-c"), Ordering::Less);
        assert_eq!(cmp_paths("a", "a.txt"), Ordering::Less);
        assert_eq!(cmp_paths("a/x", "a.txt"), Ordering::Less);
        assert_eq!(cmp_paths("b", "a/z"), Ordering::Greater);
    }

    #[test]
    fn normalize_refuses_escapes() {
        assert_eq!(normalize("./src//lib.rs", None).unwrap(), "src/lib.rs");
        assert_eq!(normalize("src/../README.md", None).unwrap(), "README.md");
        assert_eq!(normalize("", None).unwrap(), "");
        assert!(normalize("../etc/passwd", None).is_err());
        assert!(normalize("src/../../x", None).is_err());
        assert!(normalize("/etc/passwd", None).is_err());
        assert!(normalize("/srv/repo/src", Some(std::path::Path::new("/srv/repo"))).is_ok());
        assert!(normalize("/srv/repo2/src", Some(std::path::Path::new("/srv/repo"))).is_err());
        for drive in ["c:x", "./c:x", "a/../c:", ".\\c:x"] {
            assert!(normalize(drive, None).is_err(), "{drive:?}");
        }
        assert_eq!(normalize("a/c:x", None).unwrap(), "a/c:x");
    }

    #[cfg(feature = "tree")]
    #[test]
    fn names_are_written_injectively_and_read_back() {
        let names: [&[u8]; 8] = [
            b"plain.txt",
            b"a\\b.txt",
            b"bad\xff.txt",
            b"bad\\xff.txt",
            b"c:notes.txt",
            b"\xc3(",
            b"\\\\",
            b"new\nline",
        ];
        let mut written = std::collections::BTreeSet::new();
        for name in names {
            let mut out = String::new();
            push_name(name, &mut out);
            assert!(written.insert(out.clone()), "{out:?} written twice");
            assert_eq!(parse_position(&out), Some(vec![name.to_vec()]), "{out:?}");
            let root = std::path::Path::new("/r");
            let (parsed, again) = parse_tree_path(&out, root).unwrap();
            assert_eq!((parsed, again), (vec![name.to_vec()], out));
        }
        let mut out = String::new();
        push_name(b"plain.txt", &mut out);
        assert_eq!(
            out, "plain.txt",
            "a valid name without a backslash is unchanged"
        );
        for bad in ["", "a//b", "a/./b", "..", "a\\q", "a\\x4", "a\\x41"] {
            assert_eq!(parse_position(bad), None, "{bad:?}");
        }
        let root = std::path::Path::new("/r");
        assert!(parse_tree_path("../x", root).is_err());
        assert!(parse_tree_path("/etc/x", root).is_err());
        assert!(parse_tree_path("/r2/x", root).is_err());
        assert_eq!(parse_tree_path("/r/a\\b", root).unwrap().1, "a/b");
    }

    #[test]
    fn within_respects_component_edges() {
        assert!(is_within("src/a.rs", "src"));
        assert!(!is_within("src2/a.rs", "src"));
        assert!(is_within("anything", ""));
    }

    #[cfg(feature = "tree")]
    #[test]
    fn a_folder_may_hold_what_is_within_it_or_leads_to_it() {
        assert!(may_hold("src", &["src/deep/x.rs".to_owned()]));
        assert!(!may_hold("tests", &["src".to_owned()]));
    }

    proptest::proptest! {
        /// The byte-wise order is the order of the paths' names, as
        /// `split('/')` compares them; a plain position is one that
        /// `parse_position` reads.
        #[test]
        fn order_and_positions_agree_with_their_definitions(
            a in "[a./\\\\\\x00é-]{0,8}",
            b in "[a./\\\\\\x00é-]{0,8}",
        ) {
            proptest::prop_assert_eq!(cmp_paths(&a, &b), a.split('/').cmp(b.split('/')));
            #[cfg(feature = "index")]
            {
                let names = a.split('/').map(|n| n.as_bytes().to_vec()).collect::<Vec<_>>();
                let valid = a.split('/').all(|n| !n.is_empty() && n != "." && n != ".." && !n.contains('\0'));
                if !a.contains('\\') {
                    proptest::prop_assert_eq!(parse_position(&a), valid.then_some(names));
                }
                proptest::prop_assert_eq!(is_position(&a), parse_position(&a).is_some());
            }
        }
    }
}
