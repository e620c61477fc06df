#!/usr/bin/env python3
"""Times candor's grep example against ripgrep on the same tree.

Each case runs its commands in alternating order (A B A B ...), output sent
to /dev/null, after one warm-up run each, so both see the same page cache
and the same machine load. It prints the median wall time of each command
and the median of the per-pair ratios: on a shared machine, runs that are
not paired drift by 15-20%, the pair ratios much less.

Usage: scripts/compare_rg.py CORPUS_DIR [--runs N] [--threads N]
Needs `rg` on PATH; builds the example with `cargo build --release`.
"""

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GREP = ROOT / "target" / "release" / "examples" / "grep"


def timed(cmd):
    start = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"command failed ({done.returncode}): {' '.join(map(str, cmd))}")
    return elapsed


def compare(name, a, b, runs):
    """Runs a and b alternately; reports medians and the median of b/a."""
    timed(a)
    timed(b)
    ta, tb, ratios = [], [], []
    for i in range(runs):
        # Alternate which goes first, so neither always runs on a warmer machine.
        if i % 2 == 0:
            x, y = timed(a), timed(b)
        else:
            y, x = timed(b), timed(a)
        ta.append(x)
        tb.append(y)
        ratios.append(y / x)
    print(
        f"{name:<44} A {statistics.median(ta) * 1000:7.1f} ms   "
        f"B {statistics.median(tb) * 1000:7.1f} ms   "
        f"B/A median {statistics.median(ratios):5.2f}  "
        f"(pairs {min(ratios):.2f}..{max(ratios):.2f})"
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--threads", type=int, default=0, help="candor threads (0: default)")
    args = parser.parse_args()
    subprocess.run(
        ["cargo", "build", "--release", "--example", "grep"], cwd=ROOT, check=True
    )
    corpus = args.corpus
    rg_version = subprocess.run(["rg", "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    print(f"ripgrep: {rg_version}; corpus: {corpus}; runs: {args.runs} pairs")
    threads = ["--threads", str(args.threads)] if args.threads else []
    grep = [str(GREP), *threads]

    print("\nA = ripgrep, B = candor (same matches, every line listed)")
    compare(
        "common literal 'result', every match",
        ["rg", "-n", "-F", "result", corpus],
        [*grep, "-F", "result", corpus],
        args.runs,
    )
    compare(
        "common literal, rg --sort path (deterministic)",
        ["rg", "-n", "--sort", "path", "-F", "result", corpus],
        [*grep, "-F", "result", corpus],
        args.runs,
    )
    compare(
        "rare literal 'Typography'",
        ["rg", "-n", "-F", "Typography", corpus],
        [*grep, "-F", "Typography", corpus],
        args.runs,
    )
    compare(
        r"regex 'fn\s+\w+'",
        ["rg", "-n", r"fn\s+\w+", corpus],
        [*grep, r"fn\s+\w+", corpus],
        args.runs,
    )
    compare(
        r"regex '\w+Error\w*' (leading repetition)",
        ["rg", "-n", r"\w+Error\w*", corpus],
        [*grep, r"\w+Error\w*", corpus],
        args.runs,
    )
    compare(
        "case-insensitive literal 'unsafe'",
        ["rg", "-n", "-i", "-F", "unsafe", corpus],
        [*grep, "-i", "-F", "unsafe", corpus],
        args.runs,
    )

    print("\nA = candor full listing, B = candor --limit 100 (same query)")
    compare(
        "common literal 'result', limit 100 vs all",
        [*grep, "-F", "result", corpus],
        [*grep, "--limit", "100", "-F", "result", corpus],
        args.runs,
    )


if __name__ == "__main__":
    main()
