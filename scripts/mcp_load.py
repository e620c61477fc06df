#!/usr/bin/env python3
"""Load on candor's MCP server: N tool calls in flight at once in one
session, and the server's peak memory.

For each N given (`--calls 100 200 800`), the script starts the server on
TREE, opens a session over its stdio (JSON-RPC: initialize, initialized),
sends N `tools/call` requests without waiting (a mix of searches, counts,
file lists, excerpts, a bad cursor, a bad pattern and a misspelled
argument), reads the N answers, and reports how many were whole, cut by
the deadline (and saying so), busy ("call again"), or errors; the wall
time; and the server's peak RSS (VmHWM from /proc, read just before the
session ends). Every answer is checked: a result names its truncation
when it is cut, an error says why.

The server runs with its default settings (the index on, a 10 s deadline,
as many search threads as cores) unless `--server-args` says otherwise.

Usage:
    cargo build --release -p candor-mcp-server
    scripts/mcp_load.py TREE [--calls 100 200 800] [--server PATH]
        [--server-args "--deadline-ms 10000"] [--warm]

`--warm` makes one call first and waits for the index to be built, so
that the load meets the index rather than the scan that answers while it
builds. With `--index-dir DIR` the indexes are kept in DIR across the
sessions: the first builds them, the next open them from disk, so that
their peak memory is the calls' own (run a first N to build). Needs Linux (/proc) and Python 3.11, standard library only.
"""

import argparse
import asyncio
import itertools
import json
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SERVER = ROOT / "target" / "release" / "candor-mcp-server"


def calls():
    """The mix of calls, cycled."""
    mix = []
    for limit in (10, 100, 1000):
        mix.append(("search_text", {"query": "HashMap", "limit": limit}))
        mix.append(("search_text", {"query": "Typography", "limit": limit, "count_total": True}))
        mix.append(("count_matches", {"query": "fn", "limit": limit, "count_total": True}))
        mix.append(("files_with_matches", {"query": "import", "limit": limit}))
    mix.append(("search_text", {"query": r"fn\s+\w+", "mode": "regex", "limit": 100}))
    mix.append(("search_text", {"query": "nowhere-to-be-found-4f1c", "count_total": True}))
    mix.append(("search_text", {"query": "x", "cursor": "not-a-cursor"}))
    mix.append(("search_text", {"query": "(", "mode": "regex"}))
    mix.append(("count_matches", {"query": "fn", "limt": 5}))
    return itertools.cycle(mix)


def kind(response):
    """What one answer is: whole, cut (and by what), busy, or an error."""
    if "error" in response:
        return "protocol error"
    result = response["result"]
    text = result["content"][0]["text"] if result.get("content") else ""
    if result.get("isError"):
        if text.startswith("busy: "):
            return "busy"
        return "error"
    page = result["structuredContent"]
    if page["complete"]:
        return "whole"
    truncation = page.get("truncation")
    if truncation is None:
        # Incomplete without a truncation: an input could not be read.
        return "skips errors"
    by = truncation.get("budget") or truncation["by"]
    return f"cut: {by}"


async def session(server, tree, n, server_args, warm, index_dir):
    index_dir = index_dir or tempfile.mkdtemp(prefix="candor-load-")
    command = [str(server), "--root", str(tree), "--index-dir", index_dir, *server_args]
    proc = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        limit=64 << 20,
    )

    async def send(message):
        proc.stdin.write((json.dumps(message) + "\n").encode())
        await proc.stdin.drain()

    async def receive():
        line = await proc.stdout.readline()
        if not line:
            raise RuntimeError("the server closed its output")
        return json.loads(line)

    await send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "candor-load", "version": "0"}}})
    await receive()
    await send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    if warm:
        # The first call asks for the index; wait until it is written.
        await send({"jsonrpc": "2.0", "id": "warm", "method": "tools/call",
                    "params": {"name": "search_text", "arguments": {"query": "warm"}}})
        await receive()
        while not (Path(index_dir).is_dir() and any((p / "CURRENT").exists() for p in Path(index_dir).iterdir())):
            await asyncio.sleep(0.1)
        await asyncio.sleep(1.0)
    started = time.monotonic()
    mix = calls()
    for i in range(1, n + 1):
        name, arguments = next(mix)
        await send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                    "params": {"name": name, "arguments": arguments}})
    counts = {}
    for _ in range(n):
        response = await receive()
        k = kind(response)
        counts[k] = counts.get(k, 0) + 1
    elapsed = time.monotonic() - started
    with open(f"/proc/{proc.pid}/status") as status:
        hwm = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    proc.stdin.close()
    await proc.wait()
    return counts, elapsed, hwm / 1024


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree")
    parser.add_argument("--calls", type=int, nargs="+", default=[100, 200, 800])
    parser.add_argument("--server", default=str(DEFAULT_SERVER))
    parser.add_argument("--server-args", default="")
    parser.add_argument("--warm", action="store_true")
    parser.add_argument(
        "--index-dir",
        help="keep the indexes here across sessions (a session then opens the index from disk "
        "instead of building it, so its peak memory is the calls', not the build's)",
    )
    args = parser.parse_args()
    if not Path(args.server).exists():
        sys.exit(f"no server at {args.server}: cargo build --release -p candor-mcp-server")
    server_args = shlex.split(args.server_args)
    print(f"command: {' '.join(shlex.quote(a) for a in sys.argv)}")
    print(f"server: {args.server} {' '.join(server_args)}; tree: {args.tree}; cores: {os.cpu_count()}")
    print()
    print("| calls in flight | answers | wall s | peak RSS MiB |")
    print("| --- | --- | --- | --- |")
    for n in args.calls:
        counts, elapsed, rss = asyncio.run(session(args.server, args.tree, n, server_args, args.warm, args.index_dir))
        answers = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        print(f"| {n} | {answers} | {elapsed:.1f} | {rss:.1f} |", flush=True)


if __name__ == "__main__":
    main()
