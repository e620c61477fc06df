//! candor for a tool's own queries: "who calls `flush`?" over a call graph
//! held in several shards, answered page by page under one global limit.
//!
//! ```text
//! cargo run -p candor --example references
//! ```
//!
//! Each shard answers with its own sorted, bounded slice
//! ([`Bounded::collect`]). The slices are paged as one ([`Bounded::page`]
//! over [`Shards`]): merged under the global limit, keeping only the prefix
//! that is certain, with a cursor holding the key of the last caller
//! returned. To resume, the cursor is handed back: it is decoded, every
//! shard is asked for its callers after its key, and the answers are
//! merged again, the page saying where it starts in the whole answer. Every page prints its disclosure, so a
//! reader never mistakes a page for the whole answer.

use candor::{Bounded, Cursor, ErrorKind, Fingerprint, KeyRequest, Limits, Scope, Shards};
use serde::Serialize;

/// One call site.
#[derive(Debug, Clone, Serialize)]
struct Call {
    caller: String,
    file: String,
    line: u64,
}

/// The order of the answer, and a unique key per call site: the cursor
/// holds the last key returned.
fn key(call: &Call) -> (String, u64) {
    (call.file.clone(), call.line)
}

/// One part of the call graph: (callee, call site), sorted by call site.
struct Shard {
    name: &'static str,
    calls: Vec<(&'static str, Call)>,
}

impl Shard {
    fn new(name: &'static str, calls: &[(&'static str, &'static str, &'static str, u64)]) -> Shard {
        let mut calls: Vec<_> = calls
            .iter()
            .map(|&(callee, caller, file, line)| {
                let call = Call {
                    caller: caller.into(),
                    file: file.into(),
                    line,
                };
                (callee, call)
            })
            .collect();
        calls.sort_by_key(|(_, call)| key(call));
        Shard { name, calls }
    }

    /// The callers of `callee` after `after`, in key order, under `limits`:
    /// a shard says itself whether it returned all it holds.
    fn callers_of(
        &self,
        callee: &str,
        after: Option<&(String, u64)>,
        limits: &Limits,
    ) -> Result<Bounded<Call>, candor::Error> {
        let calls = self
            .calls
            .iter()
            .filter(|(name, _)| *name == callee)
            .map(|(_, call)| call)
            .filter(|call| after.is_none_or(|after| key(call) > *after))
            .cloned();
        Bounded::collect(calls, limits)
    }
}

/// One page of the answer: every shard's first `page_size + 1` callers
/// after the cursor's key, merged under the same global limit.
fn callers_page(
    shards: &[Shard],
    callee: &str,
    scope: &Scope,
    cursor: Option<&Cursor>,
    page_size: usize,
) -> Result<Bounded<Call>, candor::Error> {
    let limits = Limits::new().limit(page_size);
    let parts_for = |request: KeyRequest<(String, u64)>| {
        let shard_limits = Limits::new().limit(request.fetch().unwrap_or(usize::MAX));
        shards
            .iter()
            .map(|shard| shard.callers_of(callee, request.after(), &shard_limits))
            .collect()
    };
    // A cursor of another query or of an older index is refused before any
    // shard is asked.
    Bounded::page(Shards::new(parts_for, key), &limits, scope, cursor)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let shards = [
        Shard::new(
            "core",
            &[
                ("flush", "Writer::drop", "core/writer.rs", 88),
                ("flush", "Writer::finish", "core/writer.rs", 61),
                ("flush", "Buffer::spill", "core/buffer.rs", 140),
                ("write", "Buffer::push", "core/buffer.rs", 97),
                ("flush", "Journal::commit", "core/journal.rs", 33),
            ],
        ),
        Shard::new(
            "io",
            &[
                ("flush", "Sink::close", "io/sink.rs", 12),
                ("flush", "Sink::sync", "io/sink.rs", 40),
                ("flush", "Pipe::drain", "io/pipe.rs", 71),
                ("read", "Pipe::fill", "io/pipe.rs", 20),
            ],
        ),
        Shard::new(
            "cli",
            &[
                ("flush", "main", "cli/main.rs", 210),
                ("flush", "Progress::tick", "cli/progress.rs", 18),
                ("flush", "Progress::done", "cli/progress.rs", 45),
            ],
        ),
    ];
    let sizes: Vec<String> = shards
        .iter()
        .map(|s| format!("{} ({} edges)", s.name, s.calls.len()))
        .collect();
    println!("shards: {}", sizes.join(", "));

    // The cursor is bound to the query and to the generation of the index.
    let generation = 1;
    let scope = Scope::new(Fingerprint::of(&("callers", "flush"))).generation(generation);

    let mut cursor: Option<Cursor> = None;
    let mut first_cursor = None;
    let mut page_number = 0;
    loop {
        page_number += 1;
        let page = callers_page(&shards, "flush", &scope, cursor.as_ref(), 4)?;
        // Every page says which callers of how many it holds.
        println!("\npage {page_number}: {}", page.summary("callers"));
        for call in page.iter() {
            println!("  {}:{}  {}", call.file, call.line, call.caller);
        }
        if page_number == 1 {
            println!("  wire: {}", page.to_json()?);
        }
        match page.next_cursor() {
            Some(next) => {
                first_cursor.get_or_insert_with(|| next.clone());
                cursor = Some(next.clone());
            }
            None => break,
        }
    }

    // After the index is rebuilt, an old cursor is refused instead of
    // silently resuming at the wrong place.
    let rebuilt = Scope::new(Fingerprint::of(&("callers", "flush"))).generation(generation + 1);
    if let Some(old) = &first_cursor {
        match callers_page(&shards, "flush", &rebuilt, Some(old), 4) {
            Err(e) if matches!(e.kind(), ErrorKind::StaleCursor { .. }) => {
                println!("\nafter a rebuild, the old cursor is refused: {e}");
            }
            other => return Err(format!("expected a stale cursor error, got {other:?}").into()),
        }
        // And a cursor of another query is refused too.
        let writes = Scope::new(Fingerprint::of(&("callers", "write"))).generation(generation);
        if let Err(e) = callers_page(&shards, "write", &writes, Some(old), 4) {
            println!("a cursor of another query is refused: {e}");
        }
    }
    Ok(())
}
