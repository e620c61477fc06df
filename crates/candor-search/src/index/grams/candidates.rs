//! Candidates: the ids a plan lets through, produced lazily in ascending
//! order by cursors over the posting lists (an intersection leapfrogs
//! its lists, rarest first; a union takes the least of its branches), so
//! a capped page decodes only the lists' prefixes up to its cut.

use super::postings::ListCursor;

/// A plan bound to posting lists.
#[derive(Debug, Clone)]
pub(crate) enum Node<'a> {
    /// No id.
    Empty,
    /// The ids of one list.
    List(ListCursor<'a>),
    /// The ids in every child.
    And(Vec<Node<'a>>),
    /// The ids in any child.
    Or(Vec<Node<'a>>),
}

impl Node<'_> {
    /// The least id at or after `target`; targets never decrease.
    fn advance(&mut self, target: u32) -> Option<u32> {
        match self {
            Node::Empty => None,
            Node::List(cursor) => cursor.advance(target),
            Node::And(children) => {
                let mut t = target;
                'again: loop {
                    for child in children.iter_mut() {
                        let x = child.advance(t)?;
                        if x > t {
                            t = x;
                            continue 'again;
                        }
                    }
                    return Some(t);
                }
            }
            Node::Or(children) => children.iter_mut().filter_map(|c| c.advance(target)).min(),
        }
    }
}

/// The ids of the files that may match, ascending, produced lazily.
#[derive(Debug, Clone)]
pub(crate) struct Candidates<'a> {
    /// The plan's cursors, before the first id (for a seek backwards).
    fresh: Node<'a>,
    /// The cursors in use.
    node: Node<'a>,
    /// The least id the next one may be (past `u32::MAX`: done).
    next: u64,
}

impl<'a> Candidates<'a> {
    /// The candidates of `node`.
    pub(crate) fn new(node: Node<'a>) -> Candidates<'a> {
        Candidates {
            fresh: node.clone(),
            node,
            next: 0,
        }
    }

    /// Skips to the first candidate at or after `id`: forward by seeking
    /// in the lists, backward by starting over.
    pub(crate) fn seek(&mut self, id: u32) {
        if u64::from(id) < self.next {
            self.node = self.fresh.clone();
        }
        self.next = u64::from(id);
    }
}

impl Iterator for Candidates<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        let target = u32::try_from(self.next).ok()?;
        match self.node.advance(target) {
            Some(id) => {
                self.next = u64::from(id) + 1;
                Some(id)
            }
            None => {
                self.next = u64::from(u32::MAX) + 1;
                None
            }
        }
    }
}
