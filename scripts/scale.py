#!/usr/bin/env python3
"""Measures candor on a real tree and on that tree copied N times, beside
ripgrep and codesearch: the index's build, its size, queries in one process
each, and queries through the MCP server with a watched index.

What it reports, as Markdown tables (one per section, for the seed tree and
then for the tree N times the seed):

- the tree: files, MiB, folders (a watcher needs one watch per folder);
- the index's build: candor's (`grep --index DIR`, which builds the index
  in DIR when it is missing, then answers) and codesearch's (`cindex`),
  each from no index, against one ripgrep pass: wall time, peak RSS and
  the index's size on disk;
- queries, each a whole process: candor's scan (`grep`), candor's index
  checked against the tree (`grep --index DIR`: every query compares the
  tree's stamps with the index's), candor's index trusted as of its last
  update (`grep --index DIR --trust`, which stats nothing and says so:
  "As of ..."; for a build that has the flag), ripgrep, and codesearch
  (`csearch`, which trusts its index and checks nothing). Beside them, a
  stat floor: one process that only lstat's every file and folder the
  walk finds (`rg --files`' list and its folders, by path from the root,
  one thread, in Perl), what a checked answer must at least do without
  a watcher; the checked index is compared with that floor plus the
  trusted answer's time (reading the candidates). The queries: a literal
  found nowhere (also with a deadline, which every MCP call has: a
  search may then stop inside a file), a rare literal (every line), a
  common word's first 100 lines, the seed word's exact count, a regex
  with a leading repetition (every line), and the first 100 lines of a
  word first met deep in the tree. ripgrep and csearch have no "first N
  in path order": for those two rows they are timed until they exit
  after the pipe that received their first 100 lines is closed (their
  own order, not path order);
- queries through the MCP server (`candor-mcp-server --root TREE
  --index-dir DIR`), whose index, built on the first call, is watched: queries trust what the watcher did not report
  and stat nothing else. The script speaks JSON-RPC over the server's
  stdio (initialize, then tools/call again and again) and times each call
  from the client: a literal found nowhere, a rare literal's file listing,
  an exact total, a page of 100, each with the server's CPU time per
  call (read from /proc); also the time from spawning the server to its
  answer to `initialize`, and from the first call to the index written
  and the server's peak RSS.

Every command of a table runs in alternating order (A B C A B C ..., the
order rotated each run), after one warm-up run each, so all see the same
page cache and the same load; a table shows the median of each and the
median of the per-run ratios (on a shared machine, runs that are not paired
drift by 15-20%, the pair ratios much less). Peak RSS and CPU time (user
+ system, which a loaded machine moves less than wall time) are measured
by GNU time (`/usr/bin/time -f "%M %U %S"`) around each process. The warm-up run's output
is kept to show what each tool answered (lines, or the counts' sum), so a
table also shows whether the tools agree.

With `--grep-b` (and `--mcp-server-b`), a second build of candor runs
beside the first in the same alternation (its own index folder): the way to
compare an old and a new build side by side.

Needs: Python 3.11 (standard library only); `rg` on PATH; GNU time as
/usr/bin/time (Debian: `apt-get install time`); `perl` (the stat floor;
its row is left out without it); `git` (to mark the copied
tree as one repository, so that ignore files apply as in the seed);
codesearch (`cindex`, `csearch`; Debian: `apt-get install codesearch`) is
optional: its columns are left out when it is not installed. candor's
binaries, built in release (by default this checkout's):

    cargo build --release -p candor-grep --features index
    cargo build --release -p candor-mcp-server

(`target/release/candor-grep` and `target/release/candor-mcp-server`,
the defaults when they exist).

Usage:

    scripts/scale.py SEED [--copies N] [--copies-dir DIR] [--only seed|copies]
                     [--sections build,cli,mcp] [--runs N] [--build-runs N]
                     [--mcp-runs N] [--grep BIN] [--grep-b BIN]
                     [--mcp-server BIN] [--mcp-server-b BIN] [--work DIR]
                     [--output FILE] [--nowhere W] [--rare W] [--common W]
                     [--seed-word W] [--regex R] [--deep W]

SEED is a source tree (a `.git` at its root). The tree N times the seed is
made at `--copies-dir` (default: `xN` beside SEED): `c1` ... `cN`, each a
copy of SEED without its `.git`, and one `git init` at the root. A tree
made by an earlier run (for the same seed and N) is reused; a folder there
that this script did not make is an error, never overwritten. Indexes are
written under `--work` (default: a temporary folder, removed at the end);
the trees are only read.

Examples:

    scripts/scale.py /data/seed --copies 8 --runs 10
    scripts/scale.py /data/seed --only seed --runs 3 --output base.md \\
        --grep old/grep --mcp-server old/mcp_server
    scripts/scale.py /data/seed --copies 8 --only copies --sections build
    scripts/scale.py /data/seed --grep old/grep --grep-b target/release/candor-grep \\
        --mcp-server old/mcp_server --mcp-server-b target/release/candor-mcp-server
"""

import argparse
import hashlib
import json
import os
import re
import select
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RELEASE = ROOT / "target" / "release"
GREP = RELEASE / "candor-grep"
SERVER = RELEASE / "candor-mcp-server"
TIME = "/usr/bin/time"
# Marks a tree this script made, inside its `.git` (never searched).
MARK = "candor-scale-copies"


# ---------------------------------------------------------------- output


class Report:
    """Writes to standard output and, with --output, to a file too."""

    def __init__(self, path):
        self.file = open(path, "w", encoding="utf-8") if path else None

    def __call__(self, text=""):
        print(text, flush=True)
        if self.file:
            self.file.write(text + "\n")
            self.file.flush()

    def table(self, header, rows):
        self("| " + " | ".join(header) + " |")
        self("|" + "|".join(" --- " for _ in header) + "|")
        for row in rows:
            self("| " + " | ".join(str(c) for c in row) + " |")
        self()


def note(text):
    """Progress, on standard error: not part of the report."""
    print(f"scale: {text}", file=sys.stderr, flush=True)


def ms(seconds):
    return f"{seconds * 1000:.1f} ms" if seconds < 10 else f"{seconds:.2f} s"


def mib(n_bytes):
    return f"{n_bytes / 2**20:.1f} MiB"


def ratio_cell(values):
    if not values:
        return "-"
    return f"{statistics.median(values):.2f}x ({min(values):.2f}..{max(values):.2f})"


# ---------------------------------------------------------------- trees


@dataclass
class TreeStats:
    files: int = 0
    size: int = 0
    folders: int = 0
    links: int = 0


def tree_stats(root):
    """Regular files, their bytes, folders and links below root, the
    root's `.git` left out (neither tool searches it)."""
    stats = TreeStats()
    for top, dirs, files in os.walk(root):
        if top == str(root) and ".git" in dirs:
            dirs.remove(".git")
        for d in dirs:
            if os.path.islink(os.path.join(top, d)):
                stats.links += 1
            else:
                stats.folders += 1
        for f in files:
            path = os.path.join(top, f)
            st = os.lstat(path)
            if os.path.islink(path):
                stats.links += 1
            else:
                stats.files += 1
                stats.size += st.st_size
    return stats


def folder_bytes(path):
    """The bytes of the files below path (an index's folder), or of one
    file."""
    path = Path(path)
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def make_copies(seed, n, dest):
    """The tree n times seed at dest: c1..cN, each seed without its .git,
    and one `git init` at dest. Reused when an earlier run made it."""
    mark = dest / ".git" / MARK
    wanted = f"seed={seed.resolve()} copies={n}"
    if dest.exists():
        if not mark.exists():
            sys.exit(f"scale: {dest} exists and was not made by this script; remove it or give --copies-dir")
        text = mark.read_text()
        if text == wanted + " complete\n":
            note(f"reusing {dest}")
            return
        if not text.startswith(wanted):
            sys.exit(f"scale: {dest} was made from another seed or count ({text.strip()}); remove it")
        note(f"{dest} was left half made; making it again")
        for i in range(1, n + 1):
            shutil.rmtree(dest / f"c{i}", ignore_errors=True)
    else:
        dest.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(dest)], check=True)
    mark.write_text(wanted + " incomplete\n")
    for i in range(1, n + 1):
        note(f"copying the seed to {dest / f'c{i}'}")
        shutil.copytree(
            seed,
            dest / f"c{i}",
            symlinks=True,
            ignore=lambda folder, names: [".git"] if Path(folder) == seed else [],
        )
    mark.write_text(wanted + " complete\n")


# ---------------------------------------------------------------- running


@dataclass
class Cmd:
    """One command of a table: its label, its argv, extra environment,
    and `head`: read that many lines of its output, then close the pipe."""

    label: str
    argv: list
    env: dict = field(default_factory=dict)
    head: int = 0
    answer: str = "-"  # what the warm-up run answered
    said: str = ""  # candor's disclosure line (standard error)


def timed(cmd, keep_output=False):
    """Runs cmd once under GNU time; returns (seconds, peak RSS in bytes,
    CPU seconds (user + system), stdout bytes or None, last stderr line).

    The peak is GNU time's: a child forked from this Python process would
    count the interpreter's pages in its own peak (the kernel keeps the
    peak across exec)."""
    env = {**os.environ, **cmd.env}
    with tempfile.NamedTemporaryFile("r") as rss, tempfile.TemporaryFile() as err:
        argv = [TIME, "-f", "%M %U %S", "-o", rss.name, *map(str, cmd.argv)]
        out = None
        start = time.perf_counter()
        if cmd.head:
            p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err, env=env)
            lines = [p.stdout.readline() for _ in range(cmd.head)]
            p.stdout.close()
            code = p.wait()
            out = b"".join(lines)
            ok = True  # closed early: SIGPIPE or a write error is expected
        elif keep_output:
            done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=err, env=env)
            code, out = done.returncode, done.stdout
            ok = code in (0, 1)
        else:
            code = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=err, env=env).returncode
            ok = code in (0, 1)
        elapsed = time.perf_counter() - start
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace").strip().splitlines()
        if not ok:
            sys.exit(
                f"scale: command failed ({code}): {shlex.join(map(str, cmd.argv))}\n"
                + "\n".join(stderr[-5:])
            )
        # The last line: "%M %U %S" (a line before it may say how the
        # command exited).
        figures = (rss.read().strip().splitlines() or [""])[-1].split()
        peak = int(figures[0]) * 1024 if len(figures) == 3 else 0
        cpu = float(figures[1]) + float(figures[2]) if len(figures) == 3 else 0.0
        return elapsed, peak, cpu, out, (stderr[-1] if stderr else "")


def answer_of(out, counts):
    """What a run answered: its output lines, or with counts (`path:N`
    lines) their sum."""
    if out is None:
        return "-"
    lines = out.splitlines()
    if not counts:
        return f"{len(lines)} lines"
    total = 0
    for line in lines:
        tail = line.rsplit(b":", 1)[-1]
        if tail.strip().isdigit():
            total += int(tail)
    return f"{total} counted"


@dataclass
class Series:
    times: list = field(default_factory=list)
    peaks: list = field(default_factory=list)
    cpus: list = field(default_factory=list)

    def cell(self):
        if not self.times:
            return "-"
        return (
            f"{ms(statistics.median(self.times))} / {ms(statistics.median(self.cpus))} / "
            f"{mib(statistics.median(self.peaks))}"
        )


def alternate(cmds, runs, counts=False, before=None):
    """Runs cmds in rotated order, runs times, after one warm-up each.
    Returns {label: Series}; each Cmd's `answer` is set from its warm-up.
    before(cmd), when given, runs before each timed run (untimed)."""
    for cmd in cmds:
        if before:
            before(cmd)
        _, _, _, out, said = timed(cmd, keep_output=True)
        cmd.answer, cmd.said = answer_of(out, counts), said
        # "Counted 5054 matches (exact)" for a count, "... of at least
        # 101 (limit 100)" for a page (not the date of "As of ...").
        total = re.search(r"Counted (at least )?([0-9,]+)", said) or re.search(
            r" of (at least )?([0-9,]+) (?:matches|items|\()", said
        )
        if counts and cmd.label.startswith("candor") and total:
            # candor's count is its disclosure's total, not its output.
            cmd.answer = f"{'>= ' if total[1] else ''}{total[2].replace(',', '')} counted"
    series = {cmd.label: Series() for cmd in cmds}
    for i in range(runs):
        k = i % len(cmds)
        for cmd in cmds[k:] + cmds[:k]:
            if before:
                before(cmd)
            t, peak, cpu, _, _ = timed(cmd)
            series[cmd.label].times.append(t)
            series[cmd.label].peaks.append(peak)
            series[cmd.label].cpus.append(cpu)
    return series


def pair_ratios(series, num, den):
    """The per-run ratios of num's wall times to den's; den may be a tuple
    of labels, whose times are added run by run."""
    dens = den if isinstance(den, tuple) else (den,)
    a, bs = series.get(num), [series.get(d) for d in dens]
    if not a or not a.times or not all(b and b.times for b in bs):
        return []
    return [x / sum(ys) for x, *ys in zip(a.times, *(b.times for b in bs))]


def binary_id(path):
    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]
    stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(Path(path).stat().st_mtime))
    return f"`{path}` (sha256 {digest}, built {stamp})"


def help_text(binary):
    """A binary's --help, or "" when it has none."""
    try:
        return subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def stat_list(tree, work):
    """The files ripgrep's walk finds below tree and their folders (the
    root's included), one path a line relative to the root, written once
    to work/stat-list.txt: what a checked index stats."""
    path = work / "stat-list.txt"
    if not path.exists():
        files = subprocess.run(["rg", "--files"], cwd=tree, capture_output=True, text=True, check=True).stdout.splitlines()
        folders = {"."}
        for f in files:
            parent = os.path.dirname(f)
            while parent and parent not in folders:
                folders.add(parent)
                parent = os.path.dirname(parent)
        path.write_text("\n".join(sorted(folders) + files) + "\n")
    return path


# The stat floor: lstat each listed path, by path from the root, one thread.
STAT_FLOOR = 'open F, $ARGV[1] or die "list"; chdir $ARGV[0] or die "root"; while (<F>) { chomp; lstat $_ or die "$_" }'


# ---------------------------------------------------------------- MCP


class McpError(Exception):
    pass


class McpClient:
    """An MCP client over a server's stdio: newline-delimited JSON-RPC."""

    def __init__(self, argv, stderr_path, timeout):
        self.rss = tempfile.NamedTemporaryFile("r")
        self.stderr = open(stderr_path, "wb")
        self.timeout = timeout
        self.next_id = 0
        self.buffer = b""
        self.server_pid = None
        start = time.perf_counter()
        self.process = subprocess.Popen(
            [TIME, "-f", "%M", "-o", self.rss.name, *map(str, argv)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
        )
        try:
            self.request(
                "initialize",
                {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "scale.py", "version": "1"},
                },
            )
            self.ready = time.perf_counter() - start
            self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            # The server is GNU time's child.
            children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
            pids = children.read_text().split() if children.exists() else []
            self.server_pid = int(pids[0]) if pids else None
        except (McpError, OSError):
            self.close()
            raise

    def send(self, message):
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def line(self, deadline):
        fd = self.process.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise McpError(f"no answer within {self.timeout} s")
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                raise McpError("the server closed its output")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def request(self, method, params):
        """Sends one request; returns (result, seconds until its answer)."""
        self.next_id += 1
        rid = self.next_id
        start = time.perf_counter()
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        deadline = time.monotonic() + self.timeout
        while True:
            message = json.loads(self.line(deadline))
            if message.get("id") == rid and "method" not in message:
                elapsed = time.perf_counter() - start
                if "error" in message:
                    raise McpError(f"{method}: {message['error']}")
                return message["result"], elapsed

    def cpu(self):
        """The server's CPU time so far (user + system, all its threads),
        in seconds; None where /proc does not tell."""
        if self.server_pid is None:
            return None
        try:
            stat = Path(f"/proc/{self.server_pid}/stat").read_text()
        except OSError:
            return None
        fields = stat.rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def call(self, tool, arguments):
        result, elapsed = self.request("tools/call", {"name": tool, "arguments": arguments})
        if result.get("isError"):
            text = result.get("content", [{}])[0].get("text", "")
            raise McpError(f"{tool}: {text}")
        return result.get("structuredContent") or {}, elapsed

    def close(self):
        """Ends the session (end of input); returns the peak RSS in bytes."""
        try:
            self.process.stdin.close()
        except OSError:
            pass  # it had already gone
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.stderr.close()
        figures = self.rss.read().split()
        self.rss.close()
        return int(figures[-1]) * 1024 if figures else 0


def disclosure(wire):
    """A short form of a wire-shape answer: count, total, how it stopped."""
    total = wire.get("total") or {}
    relation = {"eq": "=", "gte": ">="}.get(total.get("relation"), "?")
    text = f"{wire.get('count', '?')} items, total {relation}{total.get('value', '?')}"
    if not wire.get("complete", False):
        cut = (wire.get("truncation") or {}).get("by", "error skip")
        text += f", cut by {cut}"
    return text


# ---------------------------------------------------------------- sections


class Scale:
    def __init__(self, args, report):
        self.args = args
        self.report = report
        self.grep = {"A": args.grep}
        if args.grep_b:
            self.grep["B"] = args.grep_b
        self.servers = {"A": args.mcp_server}
        if args.mcp_server_b:
            self.servers["B"] = args.mcp_server_b
        self.codesearch = bool(shutil.which("cindex") and shutil.which("csearch"))
        # The builds whose grep answers from an index without checking it.
        self.trusts = {side: "--trust" in help_text(grep) for side, grep in self.grep.items()}

    def candor_label(self, side, what):
        return f"candor {what}" if len(self.grep) == 1 else f"candor {what} {side}"

    def index_dir(self, work, side):
        return work / f"candor-index-{side}"

    def csearch_env(self, work):
        return {"CSEARCHINDEX": str(work / "csearchindex")}

    def run(self, name, tree, work):
        report, args = self.report, self.args
        work.mkdir(parents=True, exist_ok=True)
        stats = tree_stats(tree)
        report(f"## {name}: `{tree}`")
        report()
        watches = Path("/proc/sys/fs/inotify/max_user_watches")
        limit = watches.read_text().strip() if watches.exists() else "?"
        report.table(
            ["files", "size", "folders", "links", "inotify watches allowed per user"],
            [[f"{stats.files:,}", mib(stats.size), f"{stats.folders:,}", stats.links, limit]],
        )
        sections = args.sections
        if "build" in sections:
            self.build(tree, work, stats)
        if "cli" in sections:
            self.ensure_indexes(tree, work)
            self.queries(tree, work)
        if "mcp" in sections:
            self.mcp(tree, work)

    def build_cmds(self, tree, work):
        cmds = [
            Cmd(self.candor_label(side, "build"), [grep, "--index", self.index_dir(work, side), "-F", self.args.nowhere, tree])
            for side, grep in self.grep.items()
        ]
        if self.codesearch:
            cmds.append(Cmd("cindex", ["cindex", tree], env=self.csearch_env(work)))
        return cmds

    @staticmethod
    def remove_index(cmd):
        """Before a build: no index, so that it builds from nothing."""
        if cmd.label == "cindex":
            Path(cmd.env["CSEARCHINDEX"]).unlink(missing_ok=True)
        elif "--index" in cmd.argv:
            shutil.rmtree(cmd.argv[cmd.argv.index("--index") + 1], ignore_errors=True)

    def ensure_indexes(self, tree, work):
        """The indexes the queries need, built once (untimed) if missing."""
        for cmd in self.build_cmds(tree, work):
            target = cmd.env.get("CSEARCHINDEX") or cmd.argv[cmd.argv.index("--index") + 1]
            if not Path(target).exists():
                note(f"building the index for the queries: {cmd.label}")
                timed(cmd)

    def build(self, tree, work, stats):
        report, args = self.report, self.args
        note(f"index builds, {args.build_runs} runs each")
        cmds = self.build_cmds(tree, work)
        cmds.append(Cmd("ripgrep pass", ["rg", "-c", "-F", args.nowhere, tree]))
        series = alternate(cmds, args.build_runs, before=self.remove_index)
        report(f"### Index build ({args.build_runs} runs each, from no index)")
        report()
        report(
            "candor: `grep --index DIR -F NOWHERE TREE` with DIR missing (the build, then one query); "
            "codesearch: `cindex TREE` with no index file; ripgrep: one pass (`rg -c -F NOWHERE TREE`) "
            "for scale. Times and RSS are medians; the ratio is the median of the per-run ratios of wall times."
        )
        report()
        rows = []
        for cmd in cmds:
            s = series[cmd.label]
            if cmd.label == "cindex":
                size = folder_bytes(cmd.env["CSEARCHINDEX"])
            elif "--index" in cmd.argv:
                size = folder_bytes(cmd.argv[cmd.argv.index("--index") + 1])
            else:
                size = None
            rows.append(
                [
                    cmd.label,
                    ms(statistics.median(s.times)),
                    f"{ms(min(s.times))}..{ms(max(s.times))}",
                    ms(statistics.median(s.cpus)),
                    mib(statistics.median(s.peaks)),
                    mib(size) if size is not None else "-",
                    f"{100 * size / stats.size:.1f}%" if size is not None else "-",
                    ratio_cell(pair_ratios(series, cmd.label, "ripgrep pass")),
                ]
            )
        report.table(
            ["command", "wall (median)", "range", "CPU (user + system)", "peak RSS", "index on disk", "of the tree", "x one ripgrep pass"],
            rows,
        )
        extra = []
        if "B" in self.grep:
            extra.append(("candor build: B/A", pair_ratios(series, self.candor_label("B", "build"), self.candor_label("A", "build"))))
        if self.codesearch:
            for side in self.grep:
                extra.append((f"{self.candor_label(side, 'build')} / cindex", pair_ratios(series, self.candor_label(side, "build"), "cindex")))
        if extra:
            report.table(["pair", "median ratio (range)"], [[n, ratio_cell(r)] for n, r in extra])

    def query_list(self):
        a = self.args
        return [
            # (title, candor's arguments, ripgrep's, csearch's, head, counts)
            (f"literal found nowhere `{a.nowhere}`", ["-F", a.nowhere], ["-n", "-F", a.nowhere], ["-n", re.escape(a.nowhere)], 0, False),
            # A deadline lets a search stop inside a file, as every MCP call's
            # does: the index's answer for large files may then differ.
            (
                f"literal found nowhere `{a.nowhere}`, candor with `--deadline-ms 600000`",
                ["--deadline-ms", "600000", "-F", a.nowhere],
                ["-n", "-F", a.nowhere],
                ["-n", re.escape(a.nowhere)],
                0,
                False,
            ),
            (f"rare literal `{a.rare}`, every line", ["-F", a.rare], ["-n", "-F", a.rare], ["-n", re.escape(a.rare)], 0, False),
            (f"common word `{a.common}`, first 100", ["--limit", "100", "-F", a.common], ["-n", "-F", a.common], ["-n", re.escape(a.common)], 100, False),
            (
                f"seed word `{a.seed_word}`, exact count",
                ["--limit", "0", "--count-total", "-F", a.seed_word],
                ["-c", "-F", a.seed_word],
                ["-c", re.escape(a.seed_word)],
                0,
                True,
            ),
            (f"regex `{a.regex}`, every line", [a.regex], ["-n", a.regex], ["-n", a.regex], 0, False),
            (f"deep word `{a.deep}`, first 100", ["--limit", "100", "-F", a.deep], ["-n", "-F", a.deep], ["-n", re.escape(a.deep)], 100, False),
        ]

    def queries(self, tree, work):
        report, args = self.report, self.args
        note(f"queries, {args.runs} runs each")
        labels = []
        for side in self.grep:
            labels += [self.candor_label(side, "scan"), self.candor_label(side, "index")]
            if self.trusts[side]:
                labels.append(self.candor_label(side, "trusted"))
        labels.append("ripgrep")
        if self.codesearch:
            labels.append("csearch")
        ratios = []
        for side in self.grep:
            scan, index = self.candor_label(side, "scan"), self.candor_label(side, "index")
            ratios += [(f"{scan} / rg", scan, "ripgrep"), (f"{index} / rg", index, "ripgrep")]
            if self.codesearch:
                ratios.append((f"{index} / csearch", index, "csearch"))
            trusted = self.candor_label(side, "trusted")
            if self.trusts[side] and self.codesearch:
                ratios.append((f"{trusted} / csearch", trusted, "csearch"))
            if self.trusts[side]:
                ratios.append((f"{index} / (stat floor + {trusted})", index, ("stat floor", trusted)))
                ratios.append((f"{index} / scan", index, scan))
        if "B" in self.grep:
            for what in ("scan", "index"):
                b, a = self.candor_label("B", what), self.candor_label("A", what)
                ratios.append((f"{what} B/A", b, a))
        floor = None
        if shutil.which("perl") and any(self.trusts.values()):
            floor = Cmd("stat floor", ["perl", "-e", STAT_FLOOR, tree, stat_list(tree, work)])
            labels.append("stat floor")
        rows, ratio_rows, answers = [], [], []
        for title, candor, rg, cs, head, counts in self.query_list():
            note(f"query: {title}")
            cmds = []
            for side, grep in self.grep.items():
                cmds.append(Cmd(self.candor_label(side, "scan"), [grep, *candor, tree]))
                cmds.append(Cmd(self.candor_label(side, "index"), [grep, "--index", self.index_dir(work, side), *candor, tree]))
                if self.trusts[side]:
                    trusted = [grep, "--index", self.index_dir(work, side), "--trust", *candor, tree]
                    cmds.append(Cmd(self.candor_label(side, "trusted"), trusted))
            cmds.append(Cmd("ripgrep", ["rg", *rg, tree], head=head))
            if self.codesearch:
                cmds.append(Cmd("csearch", ["csearch", *cs], env=self.csearch_env(work), head=head))
            if floor:
                cmds.append(floor)
            series = alternate(cmds, args.runs, counts=counts)
            rows.append([title, *(series[label].cell() for label in labels)])
            ratio_rows.append([title, *(ratio_cell(pair_ratios(series, n, d)) for _, n, d in ratios)])
            # candor's disclosures, the cursors left out (the index's names
            # its generation): one cell, each distinct line once.
            said = []
            for c in cmds:
                line = re.sub(r"--cursor \S+", "--cursor ...", c.said)
                if c.label.startswith("candor") and line and line not in said:
                    said.append(line)
            answers.append([title, *(c.answer for c in cmds), " / ".join(said) or "-"])
        report(f"### Queries, whole process ({args.runs} runs each, medians: wall / CPU (user + system) / peak RSS)")
        report()
        report(
            "candor scan: `grep ARGS TREE`; candor index: `grep --index DIR ARGS TREE` (checked: stats the tree); "
            "candor trusted: `grep --index DIR --trust ARGS TREE` (no stat; the answer says as of when); "
            "ripgrep: `rg -n` (`-c` for the count); csearch: `csearch -n` (`-c`); stat floor: lstat of every "
            "file and folder of `rg --files` by path, one thread (Perl), the same on every row. In the two first-100 rows, "
            "ripgrep and csearch are timed until they exit after their first 100 lines (in their own order) "
            "were read and the pipe closed."
        )
        report()
        report.table(["query", *labels], rows)
        report("Median of the per-run ratios of wall times (range):")
        report()
        report.table(["query", *(name for name, _, _ in ratios)], ratio_rows)
        report("What each answered (its warm-up run; for candor, its last line on standard error):")
        report()
        report.table(["query", *(c.label for c in cmds), "candor's disclosure"], answers)

    def mcp_calls(self):
        a = self.args
        return [
            (f"literal found nowhere `{a.nowhere}`", "search_text", {"query": a.nowhere, "limit": 100}),
            (f"rare literal `{a.rare}`, files listed", "files_with_matches", {"query": a.rare, "limit": 1000, "max_bytes": 1 << 20}),
            (f"seed word `{a.seed_word}`, exact total", "search_text", {"query": a.seed_word, "limit": 0, "count_total": True}),
            (f"common word `{a.common}`, page of 100", "search_text", {"query": a.common, "limit": 100, "max_bytes": 1 << 20}),
        ]

    def mcp(self, tree, work):
        report, args = self.report, self.args
        note(f"MCP server, {args.mcp_runs} calls each")
        clients = {}
        built = {}
        try:
            for side, server in self.servers.items():
                index = work / f"mcp-index-{side}"
                shutil.rmtree(index, ignore_errors=True)
                # The server keeps one index per folder below --index-dir,
                # built on the first call while a scan answers, then
                # watched: enough watches for every folder of the tree.
                argv = [server, "--root", tree, "--index-dir", index, "--ceiling", "1000", "--max-watches", "1000000"]
                note(f"starting {shlex.join(map(str, argv))}")
                clients[side] = McpClient(argv, work / f"mcp-{side}.stderr", args.mcp_timeout)
                began = time.perf_counter()
                clients[side].call("search_text", {"query": args.nowhere, "limit": 1})
                while not (index.is_dir() and any((d / "CURRENT").exists() for d in index.iterdir())):
                    if time.perf_counter() - began > args.mcp_timeout:
                        raise McpError(f"no index written below {index} after {args.mcp_timeout:.0f} s")
                    time.sleep(0.1)
                built[side] = time.perf_counter() - began
                # The watcher starts once the index is written: let it
                # settle before the warm-up rounds.
                time.sleep(5)
            calls = self.mcp_calls()
            answers = {}
            for side, client in clients.items():
                for _ in range(2):  # warm-up: the watcher settles, caches fill
                    for title, tool, arguments in calls:
                        wire, _ = client.call(tool, arguments)
                        answers[(side, title)] = disclosure(wire)
            times = {(side, title): [] for side in clients for title, _, _ in calls}
            cpu = {(side, title): 0.0 for side in clients for title, _, _ in calls}
            for i in range(args.mcp_runs):
                order = list(clients) if i % 2 == 0 else list(reversed(clients))
                for title, tool, arguments in calls:
                    for side in order:
                        before = clients[side].cpu()
                        _, t = clients[side].call(tool, arguments)
                        after = clients[side].cpu()
                        times[(side, title)].append(t)
                        if before is None or after is None:
                            cpu[(side, title)] = None
                        elif cpu[(side, title)] is not None:
                            cpu[(side, title)] += after - before
        except McpError as e:
            for side in self.servers:
                log = work / f"mcp-{side}.stderr"
                if log.exists():
                    tail = log.read_text(errors="replace").strip().splitlines()[-5:]
                    note(f"server {side} said: " + " | ".join(tail))
            sys.exit(f"scale: MCP: {e}")
        finally:
            peaks = {side: client.close() for side, client in clients.items()}
        report(f"### Watched queries through the MCP server ({args.mcp_runs} calls each, timed by the client)")
        report()
        report(
            "`candor-mcp-server --root TREE --index-dir DIR --ceiling 1000 --max-watches 1000000`: the first call "
            "makes the server build the tree's index (a scan answers meanwhile), which it then watches; each call is "
            "`tools/call` timed from the request's write to its answer's last byte, after two warm-up rounds. "
            "CPU: the server's user + system time over the timed calls (all its threads, the watcher's "
            "and the updater's included; clock ticks of 10 ms, so only the mean over many calls means much)."
        )
        report()
        sides = list(clients)
        header = ["call"]
        for side in sides:
            name = "candor" if len(sides) == 1 else f"candor {side}"
            header += [f"{name} median", f"{name} range", f"{name} CPU per call (mean)"]
        if len(sides) == 2:
            header.append("B/A")
        header.append("answer")
        rows = []
        for title, _, _ in calls:
            row = [title]
            for side in sides:
                t = times[(side, title)]
                c = cpu[(side, title)]
                row += [ms(statistics.median(t)), f"{ms(min(t))}..{ms(max(t))}", ms(c / len(t)) if c is not None else "-"]
            if len(sides) == 2:
                row.append(ratio_cell([b / a for a, b in zip(times[("A", title)], times[("B", title)])]))
            row.append("; ".join(answers[(side, title)] for side in sides) if len(sides) == 1 or answers[("A", title)] != answers[("B", title)] else answers[("A", title)])
            rows.append(row)
        report.table(header, rows)
        report.table(
            ["server", "binary", "ready (spawn to initialize answered)", "index built (first call to written)", "peak RSS (the build included)"],
            [
                [
                    side,
                    f"`{self.servers[side]}`",
                    ms(clients[side].ready),
                    ms(built[side]),
                    mib(peaks[side]),
                ]
                for side in sides
            ],
        )


# ---------------------------------------------------------------- main


def main():
    parser = argparse.ArgumentParser(
        description="candor at scale: index build, CLI queries and watched MCP queries on a tree and on N copies of it.",
    )
    parser.add_argument("seed", type=Path, help="the seed tree (a .git at its root)")
    parser.add_argument("--copies", type=int, default=8, help="N: the second tree is N copies of the seed (default 8)")
    parser.add_argument("--copies-dir", type=Path, help="where the N-copy tree is (default: xN beside the seed)")
    parser.add_argument("--only", choices=["seed", "copies"], help="measure only the seed, or only the N-copy tree")
    parser.add_argument(
        "--sections",
        default="build,cli,mcp",
        help="comma-separated: build (index builds), cli (queries, one process each), mcp (watched queries); default all",
    )
    parser.add_argument("--runs", type=int, default=10, help="timed runs of each query command (default 10)")
    parser.add_argument("--build-runs", type=int, default=3, help="timed index builds of each kind (default 3)")
    parser.add_argument("--mcp-runs", type=int, default=20, help="timed calls of each MCP query (default 20)")
    parser.add_argument("--mcp-timeout", type=float, default=600, help="seconds to wait for one MCP answer (default 600)")
    parser.add_argument("--grep", default=str(GREP), help="candor's grep (default: this checkout's release build, target/release/candor-grep)")
    parser.add_argument("--grep-b", help="a second grep build, run beside --grep in the same alternation")
    parser.add_argument(
        "--mcp-server",
        default=str(SERVER),
        help="candor's MCP server (default: target/release/candor-mcp-server)",
    )
    parser.add_argument("--mcp-server-b", help="a second server build, called alternately with --mcp-server")
    parser.add_argument("--work", type=Path, help="where indexes are written (default: a temporary folder, removed at the end)")
    parser.add_argument("--output", help="also write the report to this file")
    parser.add_argument("--nowhere", default="zq7Xv9wQ2nowhere", help="a literal found nowhere")
    parser.add_argument("--rare", default="Typography", help="a rare literal")
    parser.add_argument("--common", default="self", help="a common word")
    parser.add_argument("--seed-word", default="HWND", help="the word whose exact count is asked")
    parser.add_argument("--regex", default=r"\w+Typography\w*", help="a regex with a leading repetition")
    parser.add_argument("--deep", default="WindowsAndMessaging", help="a word first met deep in the tree (in path order)")
    args = parser.parse_args()
    args.sections = {s.strip() for s in args.sections.split(",") if s.strip()}
    unknown = args.sections - {"build", "cli", "mcp"}
    if unknown:
        parser.error(f"unknown section(s): {', '.join(sorted(unknown))}")
    for n in ("runs", "build_runs", "mcp_runs"):
        if getattr(args, n) < 1:
            parser.error(f"--{n.replace('_', '-')} must be at least 1")
    if args.copies < 2 and args.only != "seed":
        parser.error("--copies must be at least 2 (or give --only seed)")
    seed = args.seed.resolve()
    if not seed.is_dir():
        parser.error(f"{args.seed} is not a folder")
    if not (seed / ".git").exists():
        note(f"{seed} has no .git at its root: ripgrep and candor then differ on ignore files")
    needed = {"rg": shutil.which("rg"), TIME: os.access(TIME, os.X_OK)}
    missing = [name for name, found in needed.items() if not found]
    if missing:
        parser.error(f"not found: {', '.join(missing)} (see the header of this script)")
    binaries = [args.grep, args.grep_b] if {"build", "cli"} & args.sections else []
    binaries += [args.mcp_server, args.mcp_server_b] if "mcp" in args.sections else []
    for binary in filter(None, binaries):
        if not os.access(binary, os.X_OK):
            parser.error(f"{binary} is not an executable (build it, or name one)")

    report = Report(args.output)
    scale = Scale(args, report)
    report(f"# candor at scale: {time.strftime('%Y-%m-%d %H:%M %Z')}")
    report()
    report(f"Command: `{shlex.join(sys.argv)}`")
    report()
    rg_version = subprocess.run(["rg", "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    report(f"- machine: {os.cpu_count()} CPUs, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at start")
    report(f"- ripgrep: {rg_version}; codesearch: {'cindex/csearch ' + shutil.which('csearch') if scale.codesearch else 'not installed'}")
    for side, grep in scale.grep.items():
        if {"build", "cli"} & args.sections:
            report(f"- grep {side}: {binary_id(grep)}")
    for side, server in scale.servers.items():
        if "mcp" in args.sections:
            report(f"- mcp_server {side}: {binary_id(server)}")
    report()

    scratch = None
    work = args.work
    if work is None:
        scratch = tempfile.TemporaryDirectory(prefix="candor-scale-")
        work = Path(scratch.name)
    work = work.resolve()
    try:
        if args.only != "copies":
            scale.run("Seed (1x)", seed, work / "seed")
        if args.only != "seed":
            dest = (args.copies_dir or seed.parent / f"x{args.copies}").resolve()
            make_copies(seed, args.copies, dest)
            scale.run(f"{args.copies} copies ({args.copies}x)", dest, work / f"x{args.copies}")
    finally:
        if scratch:
            scratch.cleanup()
    report(f"Finished {time.strftime('%Y-%m-%d %H:%M %Z')}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}.")


if __name__ == "__main__":
    main()
