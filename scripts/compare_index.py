#!/usr/bin/env python3
"""Times candor's grep example with `--index` (checked mode: one process
per query, the index already built) against the same query scanning the
tree and against ripgrep, and reports the index's size and build time.

Each case runs its commands in alternating order (A B A B ...), output sent
to /dev/null, after one warm-up run each; it prints the median wall time of
each command, the median of the per-pair ratios B/A, and the median peak
RSS (see compare_rg.py, whose timing it shares).

Figures:
- index size against the bytes of the files the tree's walk reaches;
- a full build (`grep --index NEW ...` on a missing index) against one
  ripgrep pass (`rg -c` of a literal that matches nowhere);
- checking an unchanged tree (a literal that matches nowhere);
- a rare literal's full listing, against ripgrep's whole process;
- a capped page (`--limit 100`) of a word whose first match lies past
  100 MiB of the tree, against the same page scanning the tree;
- the exact total of a literal with thousands of matches
  (`--limit 0 --count-total`), against the same total scanning the tree;
- a capped page of a common word.

Usage: scripts/compare_index.py CORPUS_DIR [--runs N] [--grep BIN]
                                [--index DIR] [--rare WORD] [--deep WORD]
                                [--many WORD]
Needs `rg` on PATH and GNU time as /usr/bin/time; builds the example with
`cargo build --release -p candor-grep --features index` unless `--grep` names a binary.
The corpus is only read; the index is written to DIR (default: a
temporary folder).
"""

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare_rg import ROOT, GREP, compare, timed  # noqa: E402


def tree_bytes(corpus):
    """The bytes of the regular files below corpus (hidden ones too)."""
    done = subprocess.run(["du", "-sb", "--apparent-size", corpus], capture_output=True, text=True)
    return int(done.stdout.split()[0])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--grep", default=str(GREP))
    parser.add_argument("--index", help="the index's folder (default: a temporary one)")
    parser.add_argument("--rare", default="Typography", help="a rare literal")
    parser.add_argument(
        "--deep", default="WindowsAndMessaging", help="a word first met past 100 MiB"
    )
    parser.add_argument("--many", default="HWND", help="a literal with thousands of matches")
    parser.add_argument("--common", default="self", help="a common word")
    args = parser.parse_args()
    if args.grep == str(GREP):
        subprocess.run(
            ["cargo", "build", "--release", "-p", "candor-grep", "--features", "index"],
            cwd=ROOT,
            check=True,
        )
    corpus = args.corpus
    grep = args.grep
    scratch = tempfile.TemporaryDirectory()
    index = args.index or str(Path(scratch.name) / "index")
    nowhere = "zq7Xv9wQ2nowhere"

    # The build: each run starts from no index.
    builds, rgs, ratios = [], [], []
    for i in range(max(3, args.runs // 3)):
        shutil.rmtree(index, ignore_errors=True)
        b, _ = timed([grep, "--index", index, "-F", nowhere, corpus])
        r, _ = timed(["rg", "-c", "-F", nowhere, corpus])
        builds.append(b)
        rgs.append(r)
        ratios.append(b / r)
    size = sum(f.stat().st_size for f in Path(index).iterdir())
    total = tree_bytes(corpus)
    print(f"corpus: {corpus}, {total / 2**20:.0f} MiB; runs: {args.runs} pairs")
    print(
        f"index size {size / 2**20:.1f} MiB = {100 * size / total:.1f}% of the tree; "
        f"build {statistics.median(builds) * 1000:.0f} ms, one rg pass "
        f"{statistics.median(rgs) * 1000:.0f} ms, build/rg median {statistics.median(ratios):.1f}x"
    )

    def with_index(*rest):
        return [grep, "--index", index, *rest, corpus]

    def scan(*rest):
        return [grep, *rest, corpus]

    print("\nA = the tree scanned, B = the index (checked), same grep, same output")
    compare("unchanged tree, a literal matching nowhere", scan("-F", nowhere), with_index("-F", nowhere), args.runs)
    compare(f"rare literal '{args.rare}', every line", scan("-F", args.rare), with_index("-F", args.rare), args.runs)
    compare(
        f"'{args.deep}' --limit 100 (first match past 100 MiB)",
        scan("--limit", "100", "-F", args.deep),
        with_index("--limit", "100", "-F", args.deep),
        args.runs,
    )
    compare(
        f"exact total of '{args.many}' (--limit 0 --count-total)",
        scan("--limit", "0", "--count-total", "-F", args.many),
        with_index("--limit", "0", "--count-total", "-F", args.many),
        args.runs,
    )
    compare(
        f"common word '{args.common}' --limit 100",
        scan("--limit", "100", "-F", args.common),
        with_index("--limit", "100", "-F", args.common),
        args.runs,
    )
    print("\nA = ripgrep (whole process), B = the index (checked)")
    compare(f"rare literal '{args.rare}', every line", ["rg", "-n", "-F", args.rare, corpus], with_index("-F", args.rare), args.runs)
    compare(f"exact total of '{args.many}' (rg -c)", ["rg", "-c", "-F", args.many, corpus], with_index("--limit", "0", "--count-total", "-F", args.many), args.runs)
    compare("unchanged tree, nowhere (rg -c)", ["rg", "-c", "-F", nowhere, corpus], with_index("-F", nowhere), args.runs)


if __name__ == "__main__":
    main()
