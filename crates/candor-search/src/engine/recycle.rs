//! Memory handed back to the thread that allocated it.
//!
//! A buffer filled by one thread and emptied by another should not be
//! freed by the other: glibc's allocator then takes the first thread's
//! arena lock, and with two threads those waits were most of the times a
//! searching thread slept. `Returns` keeps emptied buffers for the thread
//! that filled them, which reuses them, and frees what it does not need
//! itself.

use std::sync::{Mutex, MutexGuard};
use std::thread::ThreadId;

/// Emptied items, kept for the threads that filled them.
pub(crate) struct Returns<T> {
    pools: Mutex<Vec<Pool<T>>>,
    /// How much one thread keeps, in the unit `size` measures; and the
    /// most one item may hold to be kept.
    keep: usize,
    keep_one: usize,
    size: fn(&T) -> usize,
}

/// One thread's items, and their size.
struct Pool<T> {
    owner: ThreadId,
    items: Vec<T>,
    held: usize,
}

impl<T> Returns<T> {
    /// Keeps up to `keep` for each thread (as `size` measures), and no
    /// item larger than `keep_one`.
    pub(crate) const fn new(keep: usize, keep_one: usize, size: fn(&T) -> usize) -> Returns<T> {
        Returns {
            pools: Mutex::new(Vec::new()),
            keep,
            keep_one,
            size,
        }
    }

    /// One of the items this thread filled, given back, if there is one.
    /// Those past what it keeps are freed here, by the thread that
    /// allocated them.
    pub(crate) fn take(&self) -> Option<T> {
        let owner = std::thread::current().id();
        let mut extra = Vec::new();
        let mut pools = self.lock();
        let pool = pools.iter_mut().find(|pool| pool.owner == owner)?;
        let found = loop {
            let item = pool.items.pop()?;
            let size = (self.size)(&item);
            pool.held -= size;
            if size <= self.keep_one {
                break item;
            }
            extra.push(item);
        };
        while pool.held > self.keep {
            let Some(item) = pool.items.pop() else { break };
            pool.held -= (self.size)(&item);
            extra.push(item);
        }
        drop(pools);
        drop(extra);
        Some(found)
    }

    /// Gives `item`, emptied, back to `owner`, the thread that filled it.
    pub(crate) fn give(&self, owner: ThreadId, item: T) {
        let size = (self.size)(&item);
        let mut pools = self.lock();
        let index = match pools.iter().position(|pool| pool.owner == owner) {
            Some(index) => index,
            None => {
                pools.push(Pool {
                    owner,
                    items: Vec::new(),
                    held: 0,
                });
                pools.len() - 1
            }
        };
        let pool = &mut pools[index];
        pool.held += size;
        pool.items.push(item);
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Pool<T>>> {
        self.pools.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::Returns;

    #[test]
    fn items_go_back_to_their_owner_and_each_thread_keeps_its_bound() {
        let returns: Returns<Vec<u8>> = Returns::new(100, 60, Vec::capacity);
        let me = std::thread::current().id();
        std::thread::scope(|scope| {
            scope.spawn(|| {
                // Another thread's items are not given to this one.
                let other = std::thread::current().id();
                returns.give(other, Vec::with_capacity(10));
                assert!(returns.take().is_some());
                assert!(returns.take().is_none());
                returns.give(me, Vec::with_capacity(10));
                assert!(returns.take().is_none());
            });
        });
        assert_eq!(returns.take().map(|v| v.capacity()), Some(10));
        // Past the bound, and too large to keep: freed by the owner's take.
        for capacity in [50, 50, 50, 70] {
            returns.give(me, Vec::with_capacity(capacity));
        }
        let first = returns.take().unwrap();
        assert_eq!(first.capacity(), 50, "the one too large is not handed out");
        let kept = returns
            .lock()
            .iter()
            .find(|pool| pool.owner == me)
            .map_or(0, |pool| pool.held);
        assert!(kept <= 100, "{kept} kept");
    }
}
