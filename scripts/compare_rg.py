#!/usr/bin/env python3
"""Times candor's grep example against ripgrep on the same tree.

Each case runs its commands in alternating order (A B A B ...), output sent
to /dev/null, after one warm-up run each, so both see the same page cache
and the same machine load. It prints the median wall time of each command
and the median of the per-pair ratios: on a shared machine, runs that are
not paired drift by 15-20%, the pair ratios much less. It also prints the
median peak resident set size (RSS) of each command, which the machine's
load hardly moves, and the median CPU time (user and system) of each: on a
machine whose cores both tools keep busy, wall time follows it.

Before a text case is timed, both outputs are compared as sorted lines:
candor's listing prints `path:line:text`, as `rg -n` does, so the two must
hold the same lines, or the comparison would time different work. A case
whose outputs differ stops the script.

Cases: six patterns (rare and common literal, case-insensitive literal,
a leading repetition, a regex with a literal prefix, an alternation), each
as text and as `--json` (ripgrep's own JSON lines, which are larger), and a
capped search (`--limit 100`) against ripgrep's full listing. With
`--baseline BIN`, A is another build of the example instead of ripgrep.

Usage: scripts/compare_rg.py CORPUS_DIR [--runs N] [--threads N]
                             [--grep BIN] [--baseline BIN] [--json-only]
Needs `rg` on PATH and GNU time as /usr/bin/time; builds the example with
`cargo build --release -p candor-grep` unless `--grep`
names a binary.
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GREP = ROOT / "target" / "release" / "candor-grep"
TIME = "/usr/bin/time"


def timed(cmd):
    """Runs cmd; returns its wall time in seconds, its peak RSS in MiB and
    its CPU time (user and system) in seconds.

    The peak is measured by GNU time (`/usr/bin/time -f %M`), a small
    process: a child forked from this Python process would count the
    interpreter's pages (about 15 MiB) in its own peak, as the kernel
    keeps the peak across exec."""
    with tempfile.NamedTemporaryFile("r") as rss:
        start = time.perf_counter()
        done = subprocess.run(
            [TIME, "-f", "%M %U %S", "-o", rss.name, *cmd],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        elapsed = time.perf_counter() - start
        if done.returncode not in (0, 1):
            sys.exit(f"command failed ({done.returncode}): {' '.join(map(str, cmd))}")
        peak, user, system = rss.read().split()[-3:]
        return elapsed, int(peak) / 1024, float(user) + float(system)


def same_lines(a, b):
    """Runs a and b once each; stops the script unless their outputs hold
    the same lines (in any order: ripgrep's order depends on its threads)."""
    outputs = [
        sorted(subprocess.run(cmd, capture_output=True).stdout.splitlines()) for cmd in (a, b)
    ]
    if outputs[0] != outputs[1]:
        differ = len(set(outputs[0]) ^ set(outputs[1]))
        sys.exit(
            f"outputs differ ({len(outputs[0])} and {len(outputs[1])} lines, "
            f"{differ} distinct lines in one only): {' '.join(map(str, a))} | {' '.join(map(str, b))}"
        )


def compare(name, a, b, runs):
    """Runs a and b alternately; reports medians and the median of b/a."""
    timed(a)
    timed(b)
    ta, tb, ratios, rss_a, rss_b, cpu_a, cpu_b = [], [], [], [], [], [], []
    for i in range(runs):
        # Alternate which goes first, so neither always runs on a warmer machine.
        if i % 2 == 0:
            (x, mx, cx), (y, my, cy) = timed(a), timed(b)
        else:
            (y, my, cy), (x, mx, cx) = timed(b), timed(a)
        ta.append(x)
        tb.append(y)
        ratios.append(y / x)
        rss_a.append(mx)
        rss_b.append(my)
        cpu_a.append(cx)
        cpu_b.append(cy)
    print(
        f"{name:<44} A {statistics.median(ta) * 1000:7.1f} ms   "
        f"B {statistics.median(tb) * 1000:7.1f} ms   "
        f"B/A median {statistics.median(ratios):5.2f}  "
        f"(pairs {min(ratios):.2f}..{max(ratios):.2f})   "
        f"CPU A {statistics.median(cpu_a) * 1000:4.0f} ms  B {statistics.median(cpu_b) * 1000:4.0f} ms   "
        f"RSS A {statistics.median(rss_a):6.1f} MiB  B {statistics.median(rss_b):6.1f} MiB"
    )


CASES = [
    # (name, ripgrep's pattern arguments, candor's)
    ("rare literal 'Typography'", ["-F", "Typography"], ["-F", "Typography"]),
    ("common literal 'self'", ["-F", "self"], ["-F", "self"]),
    ("case-insensitive literal 'unsafe'", ["-i", "-F", "unsafe"], ["-i", "-F", "unsafe"]),
    (r"regex '\w+Error\w*' (leading repetition)", [r"\w+Error\w*"], [r"\w+Error\w*"]),
    (r"regex 'fn\s+\w+'", [r"fn\s+\w+"], [r"fn\s+\w+"]),
    (
        "alternation 'unsafe|transmute|MaybeUninit'",
        ["unsafe|transmute|MaybeUninit"],
        ["unsafe|transmute|MaybeUninit"],
    ),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--threads", type=int, default=0, help="candor threads (0: default)")
    parser.add_argument(
        "--grep", default=str(GREP), help="the candor grep binary (default: this checkout's, built)"
    )
    parser.add_argument(
        "--baseline",
        help="another candor grep binary: compare against it instead of ripgrep",
    )
    parser.add_argument("--json-only", action="store_true", help="only the --json cases")
    args = parser.parse_args()
    if args.grep == str(GREP):
        subprocess.run(
            ["cargo", "build", "--release", "-p", "candor-grep"], cwd=ROOT, check=True
        )
    corpus = args.corpus
    rg_version = subprocess.run(["rg", "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    print(f"ripgrep: {rg_version}; corpus: {corpus}; runs: {args.runs} pairs")
    threads = ["--threads", str(args.threads)] if args.threads else []
    grep = [args.grep, *threads]

    def other(pattern_args, candor_args, json):
        """The command B is compared with: ripgrep, or the baseline."""
        if args.baseline:
            return [args.baseline, *threads, *(["--json"] if json else []), *candor_args, corpus]
        return ["rg", *(["--json"] if json else ["-n"]), *pattern_args, corpus]

    a_name = "candor baseline" if args.baseline else "ripgrep"
    outputs = [True] if args.json_only else [False, True]
    for json in outputs:
        flag = ["--json"] if json else []
        print(f"\nA = {a_name}, B = candor, every matching line listed, {'--json' if json else 'text'}")
        for name, pattern_args, candor_args in CASES:
            a = other(pattern_args, candor_args, json)
            b = [*grep, *flag, *candor_args, corpus]
            if not json:
                same_lines(a, b)
            compare(name, a, b, args.runs)

    print(f"\nA = {a_name} (every line), B = candor --limit 100 (the first 100, and the disclosure)")
    compare(
        "common literal 'self', limit 100",
        other(["-F", "self"], ["-F", "self"], False),
        [*grep, "--limit", "100", "-F", "self", corpus],
        args.runs,
    )


if __name__ == "__main__":
    main()
