//! The index's name list (every path of the tree, sorted in walk order)
//! kept as it is today, a sorted `Vec<String>`, against an `fst` map from
//! each path to its place in the list.
//!
//! For both it measures the bytes held (the array in memory, strings and
//! headers; the array in a file, length-prefixed as the manifest writes
//! it and front-coded; the map's bytes), the build from the sorted paths,
//! the load from bytes (the array parsed back into a `Vec<String>`, the
//! map opened over the bytes), a seek (the place of the first path at or
//! after each of 1,000 positions, half of them present, half absent) and
//! an iteration over every path in order. The map's keys are the paths'
//! names (escapes read back to bytes) joined by a 0x00 byte, so that byte
//! order is the walk's order, in which `/` sorts before any other byte.
//!
//! The paths are those of every folder and file below the folder named
//! by `CANDOR_INDEX_TREE` (links not followed, ignore files not read),
//! or else a generated tree of about 20,000 paths shaped like a cargo
//! registry (`crate-1.2.3/src/module/file.rs`, from a fixed seed). The
//! sizes are printed once, before the timings.
//!
//! Run: `CANDOR_INDEX_TREE=DIR cargo bench -p candor-bench --bench index_names` (add
//! `-- --quick` for a short run).

use std::cmp::Ordering;
use std::collections::HashSet;
use std::hint::black_box;
use std::path::Path;

use criterion::Criterion;
use fst::{IntoStreamer, Map, MapBuilder, Streamer};

/// Appends a name as a tree writes it in a path: unchanged when it is
/// valid UTF-8 without a `\`; otherwise `\` as `\\` and each byte that is
/// not part of valid UTF-8 as `\xhh`.
fn push_name(name: &[u8], out: &mut String) {
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

/// The names of a path as the file system spells them (`push_name` read
/// back).
fn names(path: &str) -> Vec<Vec<u8>> {
    path.split('/')
        .map(|part| {
            let bytes = part.as_bytes();
            let mut name = Vec::with_capacity(bytes.len());
            let mut i = 0;
            while i < bytes.len() {
                let hex = bytes
                    .get(i + 2..i + 4)
                    .and_then(|d| u8::from_str_radix(std::str::from_utf8(d).ok()?, 16).ok());
                let (byte, width) = match (bytes[i], bytes.get(i + 1), hex) {
                    (b'\\', Some(b'\\'), _) => (b'\\', 2),
                    (b'\\', Some(b'x'), Some(b)) => (b, 4),
                    (b, _, _) => (b, 1),
                };
                name.push(byte);
                i += width;
            }
            name
        })
        .collect()
}

/// The walk's order: name by name, each name's bytes as the file system
/// spells them (the crate's `walk_order`).
fn walk_order(a: &str, b: &str) -> Ordering {
    if a.contains('\\') || b.contains('\\') {
        return names(a).cmp(&names(b));
    }
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

/// A path's key in the map: its names joined by 0x00, which no name
/// holds and which sorts before every other byte, as `/` does in the
/// walk's order.
fn key(path: &str) -> Vec<u8> {
    if !path.contains('\\') {
        return path
            .bytes()
            .map(|b| if b == b'/' { 0 } else { b })
            .collect();
    }
    names(path).join(&0)
}

/// The path of a key (`key` read back).
fn path_of(key: &[u8]) -> String {
    if let Ok(text) = std::str::from_utf8(key) {
        if !text.contains('\\') {
            return text.replace('\0', "/");
        }
    }
    let mut path = String::with_capacity(key.len());
    for (i, name) in key.split(|&b| b == 0).enumerate() {
        if i > 0 {
            path.push('/');
        }
        push_name(name, &mut path);
    }
    path
}

/// Every folder and file below `dir`, in walk order (links not followed).
fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for e in entries {
        let Ok(kind) = e.file_type() else { continue };
        let mut path = prefix.to_owned();
        if !path.is_empty() {
            path.push('/');
        }
        push_name(e.file_name().as_encoded_bytes(), &mut path);
        if kind.is_dir() {
            out.push(path.clone());
            walk(&e.path(), &path, out);
        } else if kind.is_file() {
            out.push(path);
        }
    }
}

/// About 20,000 paths shaped like a cargo registry's, from a fixed seed:
/// each crate's manifest files, its `src` with modules, and some tests.
fn generated() -> Vec<String> {
    const WORDS: &[&str] = &[
        "parse", "value", "error", "buffer", "index", "render", "state", "config", "util", "io",
        "net", "sync", "time", "fmt", "iter", "map", "de", "ser", "codec", "span", "token",
        "lexer", "tree", "node", "graph", "cache", "pool", "task", "unix", "windows",
    ];
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let mut files = Vec::new();
    let mut krate = 0;
    while files.len() < 17_100 {
        let name = format!("{}-{}", WORDS[next(WORDS.len())], WORDS[next(WORDS.len())]);
        let root = format!("{name}{krate}-{}.{}.{}", next(3), next(40), next(20));
        krate += 1;
        for f in [
            "Cargo.toml",
            "Cargo.toml.orig",
            "README.md",
            "LICENSE-MIT",
            "src/lib.rs",
        ] {
            files.push(format!("{root}/{f}"));
        }
        for _ in 0..next(8) {
            let module = WORDS[next(WORDS.len())];
            files.push(format!("{root}/src/{module}/mod.rs"));
            for _ in 0..next(10) {
                files.push(format!(
                    "{root}/src/{module}/{}.rs",
                    WORDS[next(WORDS.len())]
                ));
            }
        }
        for _ in 0..next(4) {
            files.push(format!("{root}/tests/{}.rs", WORDS[next(WORDS.len())]));
        }
    }
    // Every folder above a file, once, and every path once.
    let mut all = HashSet::new();
    for f in files {
        let mut at = 0;
        while let Some(i) = f[at..].find('/') {
            all.insert(f[..at + i].to_owned());
            at += i + 1;
        }
        all.insert(f);
    }
    let mut paths: Vec<String> = all.into_iter().collect();
    paths.sort_by(|a, b| walk_order(a, b));
    paths
}

/// The paths as the manifest writes them: a count, then each path's
/// length (u32) and bytes.
fn write_prefixed(paths: &[String]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(paths.len() as u64).to_le_bytes());
    for p in paths {
        out.extend_from_slice(&(p.len() as u32).to_le_bytes());
        out.extend_from_slice(p.as_bytes());
    }
    out
}

fn put_varint(out: &mut Vec<u8>, mut n: usize) {
    while n >= 0x80 {
        out.push(n as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// The paths front-coded: a count, then for each path the length of the
/// prefix it shares with the one before (cut to a character boundary),
/// the length of the rest and the rest's bytes, the lengths as varints.
fn write_front_coded(paths: &[String]) -> Vec<u8> {
    let mut out = Vec::new();
    put_varint(&mut out, paths.len());
    let mut prev = "";
    for p in paths {
        let mut shared = prev
            .bytes()
            .zip(p.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        while !p.is_char_boundary(shared) {
            shared -= 1;
        }
        put_varint(&mut out, shared);
        put_varint(&mut out, p.len() - shared);
        out.extend_from_slice(&p.as_bytes()[shared..]);
        prev = p;
    }
    out
}

/// Reads fields from bytes, never past their end.
struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> Reader<'b> {
    fn take(&mut self, n: usize) -> Option<&'b [u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len())?;
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Some(taken)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn varint(&mut self) -> Option<usize> {
        let mut n = 0usize;
        for shift in (0..64).step_by(7) {
            let b = *self.take(1)?.first()?;
            n |= usize::from(b & 0x7f).checked_shl(shift)?;
            if b < 0x80 {
                return Some(n);
            }
        }
        None
    }
}

/// `write_prefixed` read back, each path checked to be UTF-8 (as the
/// manifest's reader does).
fn load_prefixed(bytes: &[u8]) -> Option<Vec<String>> {
    let mut r = Reader { bytes, at: 0 };
    let count = r.u64()?;
    if count > bytes.len() as u64 / 4 {
        return None;
    }
    let mut paths = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let len = r.u32()? as usize;
        paths.push(String::from_utf8(r.take(len)?.to_vec()).ok()?);
    }
    (r.at == bytes.len()).then_some(paths)
}

/// `write_front_coded` read back.
fn load_front_coded(bytes: &[u8]) -> Option<Vec<String>> {
    let mut r = Reader { bytes, at: 0 };
    let count = r.varint()?;
    if count > bytes.len() / 2 {
        return None;
    }
    let mut paths: Vec<String> = Vec::with_capacity(count);
    for _ in 0..count {
        let shared = r.varint()?;
        let rest = r.varint()?;
        let rest = std::str::from_utf8(r.take(rest)?).ok()?;
        let prev = paths.last().map_or("", String::as_str);
        let head = prev.get(..shared)?;
        let mut path = String::with_capacity(shared + rest.len());
        path.push_str(head);
        path.push_str(rest);
        paths.push(path);
    }
    (r.at == bytes.len()).then_some(paths)
}

/// The map from each path's key to its place in the list.
fn build_map(paths: &[String]) -> Vec<u8> {
    let mut builder = MapBuilder::memory();
    for (i, p) in paths.iter().enumerate() {
        builder
            .insert(key(p), i as u64)
            .expect("keys in walk order");
    }
    builder.into_inner().expect("builds in memory")
}

/// The place of the first path at or after `position`, in the array.
fn seek_array(paths: &[String], position: &str) -> usize {
    paths.partition_point(|p| walk_order(p, position) == Ordering::Less)
}

/// The same place, in the map.
fn seek_map(map: &Map<&[u8]>, position: &str) -> usize {
    let mut stream = map.range().ge(key(position)).into_stream();
    stream.next().map_or(map.len(), |(_, at)| at as usize)
}

/// 1,000 positions: half of them paths of the list, half not (a path
/// with `-` after its last name, which sorts after that path's folder).
fn positions(paths: &[String]) -> Vec<String> {
    let step = (paths.len() / 500).max(1);
    let mut out = Vec::new();
    for (n, p) in paths.iter().step_by(step).cycle().take(1000).enumerate() {
        if n % 2 == 0 {
            out.push(p.clone());
        } else {
            let mut absent = format!("{p}-");
            while paths.get(seek_array(paths, &absent)) == Some(&absent) {
                absent.push('-');
            }
            out.push(absent);
        }
    }
    out
}

fn main() {
    let (paths, source) = match std::env::var_os("CANDOR_INDEX_TREE") {
        Some(dir) => {
            let mut paths = Vec::new();
            walk(Path::new(&dir), "", &mut paths);
            (paths, "the folder of CANDOR_INDEX_TREE")
        }
        None => (generated(), "a generated tree"),
    };
    assert!(!paths.is_empty(), "no paths in {source}");
    assert!(
        paths.windows(2).all(|w| walk_order(&w[0], &w[1]).is_lt()),
        "paths in walk order"
    );

    let prefixed = write_prefixed(&paths);
    let front = write_front_coded(&paths);
    let map_bytes = build_map(&paths);
    let map = Map::new(map_bytes.as_slice()).expect("a map");
    let probes = positions(&paths);

    // Each structure gives the same answers before any is timed.
    assert_eq!(load_prefixed(&prefixed).as_ref(), Some(&paths));
    assert_eq!(load_front_coded(&front).as_ref(), Some(&paths));
    let mut stream = map.stream();
    let mut at = 0;
    while let Some((k, v)) = stream.next() {
        assert_eq!((path_of(k).as_str(), v), (paths[at].as_str(), at as u64));
        at += 1;
    }
    assert_eq!(at, paths.len());
    let present = probes
        .iter()
        .filter(|p| paths.get(seek_array(&paths, p)) == Some(*p))
        .count();
    for p in &probes {
        assert_eq!(seek_array(&paths, p), seek_map(&map, p), "{p}");
    }

    // The array as an index opened from its file holds it (the
    // allocator's own rounding not counted).
    let loaded = load_prefixed(&prefixed).expect("loads");
    let name_bytes: usize = loaded.iter().map(String::len).sum();
    let in_memory: usize = loaded.iter().map(String::capacity).sum::<usize>()
        + std::mem::size_of::<String>() * loaded.capacity();
    let row = |what: &str, n: usize| {
        eprintln!(
            "  {what:<34} {n:>10} bytes  {:>6.1} per path",
            n as f64 / paths.len() as f64
        );
    };
    eprintln!(
        "{source}: {} paths, {name_bytes} bytes of names; {} positions, {present} of them paths",
        paths.len(),
        probes.len(),
    );
    row("array in memory (Vec<String>)", in_memory);
    row("array, length-prefixed (manifest)", prefixed.len());
    row("array, front-coded", front.len());
    row("fst map", map_bytes.len());

    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("index_names");
    group.bench_function("build/array_prefixed", |b| {
        b.iter(|| black_box(write_prefixed(black_box(&paths))))
    });
    group.bench_function("build/array_front_coded", |b| {
        b.iter(|| black_box(write_front_coded(black_box(&paths))))
    });
    group.bench_function("build/fst", |b| {
        b.iter(|| black_box(build_map(black_box(&paths))))
    });
    group.bench_function("load/array_prefixed", |b| {
        b.iter(|| black_box(load_prefixed(black_box(&prefixed))))
    });
    group.bench_function("load/array_front_coded", |b| {
        b.iter(|| black_box(load_front_coded(black_box(&front))))
    });
    group.bench_function("load/fst", |b| {
        b.iter(|| black_box(Map::new(black_box(map_bytes.as_slice())).map(|m| m.len())))
    });
    group.bench_function("seek_1000/array", |b| {
        b.iter(|| {
            let places = probes.iter().map(|p| seek_array(&paths, black_box(p)));
            black_box(places.sum::<usize>())
        })
    });
    group.bench_function("seek_1000/fst", |b| {
        b.iter(|| {
            let places = probes.iter().map(|p| seek_map(&map, black_box(p)));
            black_box(places.sum::<usize>())
        })
    });
    group.bench_function("iterate/array", |b| {
        b.iter(|| black_box(paths.iter().map(String::len).sum::<usize>()))
    });
    group.bench_function("iterate/fst_keys", |b| {
        b.iter(|| {
            let (mut stream, mut sum) = (map.stream(), 0);
            while let Some((k, v)) = stream.next() {
                sum += k.len() + v as usize;
            }
            black_box(sum)
        })
    });
    group.bench_function("iterate/fst_paths", |b| {
        b.iter(|| {
            let (mut stream, mut sum) = (map.stream(), 0);
            while let Some((k, _)) = stream.next() {
                sum += path_of(k).len();
            }
            black_box(sum)
        })
    });
    group.finish();
    c.final_summary();
}
