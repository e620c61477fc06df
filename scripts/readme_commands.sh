#!/usr/bin/env bash
# Runs every `cargo run` and `cargo install` command the READMEs show
# (README.md, then crates/*/README.md), as written, so that none of them
# stops working unnoticed: each line of a ```sh block that starts with
# `cargo run` or `cargo install`, and each inline `cargo run ...` or
# `cargo install ...` span of the prose. Every command is written to run
# from the repository's root, and runs there. Run from anywhere; CI runs
# it (.ci/run). A new command in a README is run without any change here.
#
# A command passes when it exits with status 0 within the time limit.
#
# `cargo install` installs nothing for good: the check adds
# `--root SCRATCH/install` (a temporary folder, removed at the end), so
# the binaries land there, and then runs each installed binary with
# `--help`. With `--path`, cargo builds in the workspace's own target
# folder.
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
#   --list   print the commands (placeholders filled in, before the
#            install root is added) and run none.
# Environment: README_COMMAND_TIMEOUT, the seconds one command may take,
# its build included (default 900).
set -euo pipefail
cd "$(dirname "$0")/.."

PLACEHOLDERS=(
    "DIR=src"
    "FILE=README.md"
)
TIMEOUT="${README_COMMAND_TIMEOUT:-900}"

# The READMEs, in the order their commands run.
READMES=(README.md crates/*/README.md)

# The commands of one README, each once: those of the sh blocks, then
# those of the prose, each in the order the README shows them.
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
            if (line ~ /^cargo (run|install) /) print line
            next
        }
        fence { next }
        # Prose: an inline span may wrap onto the next line, where it reads
        # as a space.
        { prose = prose " " $0 }
        END {
            while (match(prose, /`cargo (run|install) [^`]*`/)) {
                print substr(prose, RSTART + 1, RLENGTH - 2)
                prose = substr(prose, RSTART + RLENGTH)
            }
        }
    ' "$1"
}

# Every README's commands, each once, labelled with the README.
all_commands() {
    local readme
    for readme in "${READMES[@]}"; do
        extract "$readme" | sed "s|^|$readme\t|"
    done | awk -F '\t' '!seen[$2]++'
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
sources=()
while IFS=$'\t' read -r readme line; do
    sources+=("$readme")
    commands+=("$line")
done < <(all_commands)
if [ "${#commands[@]}" -eq 0 ]; then
    echo "readme_commands: the READMEs show no cargo run command; is the extraction broken?" >&2
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
for i in "${!commands[@]}"; do
    shown="${commands[$i]}"
    command="$(fill "$shown")"
    echo "== ${sources[$i]}: $shown"
    unknown="$(unknown_placeholder "$command")"
    if [ -n "$unknown" ]; then
        echo "readme_commands: unknown placeholder${unknown% } in: $shown" >&2
        echo "  (add it to PLACEHOLDERS in scripts/readme_commands.sh)" >&2
        failed=1
        continue
    fi
    install=""
    case "$command" in
    "cargo install "*)
        install="$scratch/install"
        rm -rf "$install"
        command="$command --root $install"
        ;;
    esac
    status=0
    timeout --kill-after=10 "$TIMEOUT" bash -c "$command" \
        <"$scratch/stdin" >"$scratch/out" 2>&1 || status=$?
    if [ "$status" -eq 0 ] && [ -n "$install" ]; then
        # What was installed runs.
        installed=0
        for binary in "$install"/bin/*; do
            [ -x "$binary" ] || continue
            installed=1
            if ! "$binary" --help >>"$scratch/out" 2>&1; then
                echo "readme_commands: the installed $(basename "$binary") fails to run: $shown" >&2
                status=1
            fi
        done
        if [ "$installed" -eq 0 ]; then
            echo "readme_commands: nothing was installed: $shown" >&2
            status=1
        fi
    fi
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
