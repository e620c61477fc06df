//! `JsonStream` over a search's stream: the JSON it writes, through a spill
//! in memory or in a file, is byte for byte the collected result's.

/// The bytes a `JsonStream` keeps pending before it spills (its
/// `PENDING_BYTES`): the answers here are several times larger, so that
/// most of their JSON goes through the spill.
const PENDING_BYTES: usize = 64 * 1024;

use std::io::{self, Read, Seek, SeekFrom, Write};

use candor_search::JsonStream;
use candor_search::{Corpus, Documents, Limits, Query};

/// Enough matching lines that their JSON is several times the bytes
/// kept pending, so that most of it goes through the spill.
fn docs() -> Documents<'static> {
    let mut docs = Documents::new();
    for file in 0..4 {
        let text: String = (0..1500)
            .map(|n| format!("line {n} of file {file}: a \"fish\" \\ here\n"))
            .collect();
        docs.insert(format!("f{file}.txt"), text).unwrap();
    }
    docs
}

fn streamed<S: Read + Write + Seek>(
    docs: &Documents<'_>,
    query: &Query,
    limits: &Limits,
    cursor: Option<&candor_search::Cursor>,
    spill: S,
) -> String {
    let mut json = JsonStream::with_spill(spill);
    let end = docs
        .try_search_each(query, limits, cursor, |m| json.push(m))
        .unwrap();
    let mut out = Vec::new();
    json.write(&end, &mut out).unwrap();
    // Written again, the same bytes: the spill is back where it was.
    let mut again = Vec::new();
    json.write(&end, &mut again).unwrap();
    assert_eq!(out, again);
    String::from_utf8(out).unwrap()
}

#[test]
fn a_spilled_stream_writes_the_collected_json() {
    let docs = docs();
    let query = Query::literal("fish");
    let first = docs
        .search(&query, &Limits::new().limit(700), None)
        .unwrap();
    let resumed = first.next_cursor().cloned();
    let cases = [
        ("all", Limits::new(), None),
        ("limit", Limits::new().limit(2500), None),
        (
            "exact total",
            Limits::new().limit(10).count_total(true),
            None,
        ),
        ("zero limit", Limits::new().limit(0), None),
        ("resumed", Limits::new().limit(3000), resumed.as_ref()),
    ];
    for (name, limits, cursor) in cases {
        let collected = docs
            .search(&query, &limits, cursor)
            .unwrap()
            .to_json()
            .unwrap();
        let file = tempfile::tempfile().unwrap();
        assert_eq!(
            streamed(&docs, &query, &limits, cursor, file),
            collected,
            "{name}, file"
        );
        let memory = io::Cursor::new(Vec::new());
        assert_eq!(
            streamed(&docs, &query, &limits, cursor, memory),
            collected,
            "{name}, memory"
        );
        // A file spill copied to a file: moved in the kernel on Linux
        // (`copy_file_range`), from where the items start, twice.
        let mut spill = tempfile::tempfile().unwrap();
        spill.write_all(b"earlier bytes").unwrap();
        let mut json = JsonStream::with_spill(spill);
        let end = docs
            .try_search_each(&query, &limits, cursor, |m| json.push(m))
            .unwrap();
        for round in 0..2 {
            let mut out = tempfile::tempfile().unwrap();
            json.write(&end, &mut out).unwrap();
            out.seek(SeekFrom::Start(0)).unwrap();
            let mut written = String::new();
            out.read_to_string(&mut written).unwrap();
            assert_eq!(written, collected, "{name}, file to file, round {round}");
        }
        // A spill that already holds bytes: the items start after them.
        let mut used = io::Cursor::new(b"earlier bytes".to_vec());
        used.seek(SeekFrom::End(0)).unwrap();
        assert_eq!(
            streamed(&docs, &query, &limits, cursor, used),
            collected,
            "{name}, used spill"
        );
    }
    assert!(
        docs.search(&query, &Limits::new(), None)
            .unwrap()
            .to_json()
            .unwrap()
            .len()
            > 4 * PENDING_BYTES
    );
}
