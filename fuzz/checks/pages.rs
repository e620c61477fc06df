//! Following `next_cursor` from the first page to the end: the walk of
//! every check and property that rebuilds an answer from its pages.

use candor::{Bounded, Cursor};

/// Asks for the first page, then for the page after each cursor, until a
/// page comes without one, which must be exact; returns every page, in
/// order. Panics, naming `what`, when a page fails or when there are more
/// than `most` pages.
pub fn pages<T>(
    what: &str,
    most: usize,
    page: impl FnMut(Option<&Cursor>) -> Result<Bounded<T>, candor::Error>,
) -> Vec<Bounded<T>> {
    let walked = walk(what, most, page);
    if let Some(e) = walked.refused {
        panic!("{what}: page {}: {e}", walked.pages.len());
    }
    let last = walked.pages.last().expect("a walk has a page");
    assert!(
        last.completeness().is_exact(),
        "{what}: the last page is {:?}",
        last.completeness()
    );
    walked.pages
}

/// The items of [`pages`] under an item limit, seen through `view`;
/// panics when a page holds more than `limit` items.
pub fn items<T, V>(
    what: &str,
    most: usize,
    limit: usize,
    page: impl FnMut(Option<&Cursor>) -> Result<Bounded<T>, candor::Error>,
    view: impl Fn(&T) -> V,
) -> Vec<V> {
    let mut out = Vec::new();
    for b in pages(what, most, page) {
        assert!(b.len() <= limit, "{what}: {} items", b.len());
        out.extend(b.iter().map(&view));
    }
    out
}

/// The pages of a walk, and the error of the request that ended it early,
/// if one did.
pub struct Walk<T> {
    pub pages: Vec<Bounded<T>>,
    pub refused: Option<candor::Error>,
}

/// Asks for the first page, then for the page after each cursor, until a
/// page comes without one or a request fails. Panics, naming `what`, when
/// there are more than `most` pages.
pub fn walk<T>(
    what: &str,
    most: usize,
    mut page: impl FnMut(Option<&Cursor>) -> Result<Bounded<T>, candor::Error>,
) -> Walk<T> {
    let mut pages: Vec<Bounded<T>> = Vec::new();
    loop {
        assert!(pages.len() < most, "{what}: more than {most} pages");
        let cursor = pages.last().and_then(Bounded::next_cursor);
        match page(cursor) {
            Ok(b) => {
                let last = b.next_cursor().is_none();
                pages.push(b);
                if last {
                    return Walk {
                        pages,
                        refused: None,
                    };
                }
            }
            Err(e) => {
                return Walk {
                    pages,
                    refused: Some(e),
                };
            }
        }
    }
}
