//! The sink: where a file's items go, one by one, as its hits are turned
//! into them (the result stage receives them).

use std::ops::ControlFlow;

use crate::position::Place;

/// Receives a file's items one at a time.
pub(crate) trait ItemSink<T> {
    /// Offers one item: `after` is where a page resumes after it in its
    /// file, and `build` builds it (from an old item, whose memory it may
    /// reuse, or anew) once the sink wants it. `Break` when no more items
    /// are wanted.
    fn offer(&mut self, after: Place, build: &dyn Fn(Option<T>) -> T) -> ControlFlow<()>;
}
