//! Corpus-relative paths: normalization, confinement and their order.

use std::cmp::Ordering;

use crate::error::{Error, ErrorKind};

/// Compares two corpus-relative paths component by component, byte-wise:
/// the order of a depth-first walk with each folder's entries sorted by
/// name. This is the order of every search result.
pub(crate) fn cmp_paths(a: &str, b: &str) -> Ordering {
    a.split('/').cmp(b.split('/'))
}

/// Normalizes a caller's path to the corpus-relative form: `/` separators,
/// no `.`, no empty components, no trailing `/`. The root is `""`.
///
/// Refuses a path that leaves the root lexically (`..` above the root) or
/// that is absolute and not under `root_abs` (when given).
pub(crate) fn normalize(path: &str, root_abs: Option<&std::path::Path>) -> Result<String, Error> {
    let outside = || -> Error {
        ErrorKind::OutsideRoot {
            path: path.to_owned(),
        }
        .into()
    };
    if path.contains('\0') {
        return Err(Error::invalid_argument(
            "path",
            format!("{path:?} holds a NUL byte"),
        ));
    }
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
    Ok(parts.join("/"))
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
pub(crate) fn may_hold(dir: &str, filters: &[String]) -> bool {
    filters.is_empty()
        || filters
            .iter()
            .any(|f| is_within(dir, f) || is_within(f, dir))
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
    }

    #[test]
    fn within_respects_component_edges() {
        assert!(is_within("src/a.rs", "src"));
        assert!(!is_within("src2/a.rs", "src"));
        assert!(is_within("anything", ""));
        assert!(may_hold("src", &["src/deep/x.rs".to_owned()]));
        assert!(!may_hold("tests", &["src".to_owned()]));
    }
}
