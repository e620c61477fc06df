#!/usr/bin/env bash
# Runs every `cargo run` command README.md shows, as written, so that none
# of them stops working unnoticed: each line of a ```sh block that starts
# with `cargo run`, and each inline `cargo run ...` span of the prose.
# Run from anywhere; CI runs it (.ci/run). A new command in README.md is
# run without any change here.
#
# A command passes when it exits with status 0 within the time limit.
#
# Arguments the reader fills in. A command may name a placeholder where
# the reader gives their own value, written as a word of its own in
# capitals; the check gives it a real one:
#
#   DIR   a folder to search or index: src
#   FILE  a file to read: README.md
#
# To add one, add a line to PLACEHOLDERS below and to this list. A
# placeholder the check does not know fails the check (it is any word of
# two or more capitals that is not quoted), so that no command runs with
# a word meant to be replaced.
#
# Standard input. Each command reads, on its standard input, the opening
# of an MCP session (an `initialize` request and the `initialized`
# notification) and then the end of input: an MCP stdio server answers
# and exits, and a command that does not read its input ignores it.
#
# Usage: scripts/readme_commands.sh [--list]
#   --list   print the commands (placeholders filled in) and run none.
# Environment: README_COMMAND_TIMEOUT, the seconds one command may take,
# its build included (default 900).
set -euo pipefail
cd "$(dirname "$0")/.."

PLACEHOLDERS=(
    "DIR=src"
    "FILE=README.md"
)
TIMEOUT="${README_COMMAND_TIMEOUT:-900}"

# The commands, each once: those of the sh blocks, then those of the prose,
# each in the order README.md shows them.
extract() {
    awk '
        /^[[:space:]]*```/ {
            if (fence) {
                fence = 0
            } else {
                fence = 1
                lang = $0
                sub(/^[[:space:]]*```/, "", lang)
                shell = (lang ~ /^(sh|bash|shell)[[:space:]]*$/)
            }
            next
        }
        fence && shell {
            line = pending $0
            pending = ""
            # A line that ends with a backslash goes on on the next one.
            if (line ~ /\\$/) {
                sub(/\\$/, "", line)
                pending = line
                next
            }
            sub(/^[[:space:]]+/, "", line)
            if (line ~ /^cargo run /) print line
            next
        }
        fence { next }
        # Prose: an inline span may wrap onto the next line, where it reads
        # as a space.
        { prose = prose " " $0 }
        END {
            while (match(prose, /`cargo run [^`]*`/)) {
                print substr(prose, RSTART + 1, RLENGTH - 2)
                prose = substr(prose, RSTART + RLENGTH)
            }
        }
    ' README.md | awk '!seen[$0]++'
}

# The command with its placeholders filled in.
fill() {
    local command="$1" entry name value
    for entry in "${PLACEHOLDERS[@]}"; do
        name="${entry%%=*}"
        value="${entry#*=}"
        # Twice: one pass misses the second of two placeholders in a row,
        # whose space the first match took.
        command="$(printf '%s\n' "$command" |
            sed -E "s/(^|[[:space:]])${name}([[:space:]]|$)/\\1${value}\\2/g; s/(^|[[:space:]])${name}([[:space:]]|$)/\\1${value}\\2/g")"
    done
    printf '%s\n' "$command"
}

# A word of capitals left unquoted after the placeholders are filled in.
unknown_placeholder() {
    printf '%s\n' "$1" | sed -E "s/'[^']*'//g; s/\"[^\"]*\"//g" |
        grep -oE '(^|[[:space:]])[A-Z][A-Z_]+([[:space:]]|$)' | head -n 1 || true
}

mcp_opening() {
    printf '%s\n' \
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"readme-commands","version":"0"}}}' \
        '{"jsonrpc":"2.0","method":"notifications/initialized"}'
}

commands=()
while IFS= read -r line; do
    commands+=("$line")
done < <(extract)
if [ "${#commands[@]}" -eq 0 ]; then
    echo "readme_commands: README.md shows no cargo run command; is the extraction broken?" >&2
    exit 1
fi

if [ "${1:-}" = "--list" ]; then
    for command in "${commands[@]}"; do
        fill "$command"
    done
    exit 0
fi

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mcp_opening >"$scratch/stdin"

failed=0
for shown in "${commands[@]}"; do
    command="$(fill "$shown")"
    echo "== README: $shown"
    unknown="$(unknown_placeholder "$command")"
    if [ -n "$unknown" ]; then
        echo "readme_commands: unknown placeholder${unknown% } in: $shown" >&2
        echo "  (add it to PLACEHOLDERS in scripts/readme_commands.sh)" >&2
        failed=1
        continue
    fi
    status=0
    timeout --kill-after=10 "$TIMEOUT" bash -c "$command" \
        <"$scratch/stdin" >"$scratch/out" 2>&1 || status=$?
    if [ "$status" -eq 0 ]; then
        echo "   ok"
        continue
    fi
    failed=1
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
        echo "readme_commands: timed out after ${TIMEOUT}s: $command" >&2
    else
        echo "readme_commands: exit status $status: $command" >&2
    fi
    tail -n 40 "$scratch/out" >&2
done
exit "$failed"
