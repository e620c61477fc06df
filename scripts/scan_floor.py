#!/usr/bin/env python3
"""Measures how far below ripgrep a listing of every matching line can go.

A listing does all that the exact count does (walk the tree, read every
file, find the matching lines) and more: it numbers the lines it finds,
and keeps and prints them. This script times, against `rg -n` on the same
tree, in rotating order after one warm-up run each:

- candor's listing (`candor-grep PATTERN`, as `compare_rg.py` runs it);
- a floor build: this checkout with the listing in `FileScan::lines`
  replaced by numbering the matching lines only (each line that
  `Matcher::next_line` finds is counted up to, as the listing counts;
  nothing is kept, offered or printed);
- candor's exact count (`candor-grep --limit 0 --count-total PATTERN`),
  which numbers no line either.

No listing can take less than the floor build: whatever a listing does
with its lines is added to it. The floor build is made from this
checkout's tracked files (`git archive HEAD`) in a temporary folder,
with its own target folder, and is thrown away afterwards; the script
stops if the code it replaces has changed.

Usage: scripts/scan_floor.py CORPUS_DIR [--runs N] [--grep BIN]
Needs `rg` on PATH, GNU time as /usr/bin/time, git and cargo.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare_rg import GREP, ROOT, timed  # noqa: E402

SCAN = Path("crates/candor-search/src/engine/scan.rs")

# The start of `FileScan::lines`, and what the floor build puts there: the
# matching lines found and numbered, as the listing numbers them, and
# nothing else (the rest of the function is left in place, never run).
LISTING = """        let mut counted_to = from;
        let plan = &self.search.plan;
"""
FLOOR = """        let mut counted_to = from;
        let mut at = from;
        while let Some(hit) = self.matcher.next_line(haystack, at) {
            self.line_number += lines::count_ends(&haystack[counted_to..hit.start]);
            counted_to = hit.start;
            if hit.next >= haystack.len() {
                break;
            }
            at = hit.next;
        }
        if !last {
            self.line_number += lines::count_ends(&haystack[counted_to..]);
        }
        if true {
            return;
        }
        let plan = &self.search.plan;
"""

CASES = [
    ("rare literal 'Typography'", ["-F", "Typography"]),
    ("common literal 'self'", ["-F", "self"]),
    ("case-insensitive literal 'unsafe'", ["-i", "-F", "unsafe"]),
    ("leading repetition '\\w+Error\\w*'", ["\\w+Error\\w*"]),
    ("literal prefix 'fn\\s+\\w+'", ["fn\\s+\\w+"]),
    ("alternation 'unsafe|transmute|MaybeUninit'", ["unsafe|transmute|MaybeUninit"]),
]


def floor_build(work):
    """Builds the floor grep from this checkout's tracked files in `work`."""
    src = work / "src"
    src.mkdir()
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive.stdout, check=True)
    scan = src / SCAN
    text = scan.read_text()
    if text.count(LISTING) != 1:
        sys.exit(f"{SCAN} changed: the listing the floor build replaces is not found once")
    scan.write_text(text.replace(LISTING, FLOOR))
    subprocess.run(
        ["cargo", "build", "--release", "--quiet", "-p", "candor-grep"],
        cwd=src,
        env={**os.environ, "CARGO_TARGET_DIR": str(work / "target")},
        check=True,
    )
    return work / "target" / "release" / "candor-grep"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus")
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument(
        "--grep", default=str(GREP), help="the candor grep binary (default: this checkout's, built)"
    )
    args = parser.parse_args()
    if args.grep == str(GREP):
        subprocess.run(["cargo", "build", "--release", "-p", "candor-grep"], cwd=ROOT, check=True)
    corpus = args.corpus
    with tempfile.TemporaryDirectory() as tmp:
        floor = floor_build(Path(tmp))
        print(f"corpus: {corpus}; runs: {args.runs} rounds; ratios to rg -n, medians of the rounds")
        print(f"{'listing':<46} {'rg -n':>8} {'candor':>7} {'floor':>7} {'count':>7}")
        for name, pattern in CASES:
            commands = [
                ["rg", "-n", *pattern, corpus],
                [args.grep, *pattern, corpus],
                [str(floor), *pattern, corpus],
                [args.grep, "--limit", "0", "--count-total", *pattern, corpus],
            ]
            for c in commands:
                timed(c)
            ratios = [[] for _ in commands]
            walls = []
            for i in range(args.runs):
                # Rotate which goes first, so none always runs on a warmer machine.
                order = list(range(len(commands)))
                order = order[i % len(order) :] + order[: i % len(order)]
                wall = [0.0] * len(commands)
                for k in order:
                    wall[k] = timed(commands[k])[0]
                walls.append(wall[0])
                for k in range(len(commands)):
                    ratios[k].append(wall[k] / wall[0])
            print(
                f"{name:<46} {statistics.median(walls) * 1000:6.1f}ms"
                + "".join(f" {statistics.median(r):6.3f}x" for r in ratios[1:])
            )


if __name__ == "__main__":
    main()
