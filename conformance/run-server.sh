#!/usr/bin/env bash
# Runs the official MCP conformance suite's server scenarios against the
# project's servers (`npm run conformance:server`). Each run_suite call is one
# full pass of the shared harness; the script fails when any pass fails. Extra
# arguments go to every pass, e.g. `npm run conformance:server -- -s '^tools'`.
# See ../shared/conformance/README.md, "Server scenarios".
set -uo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The shared harness sits beside the checkout, not inside it.
HARNESS_DIR="$REPO/../shared/conformance"
HARNESS="$HARNESS_DIR/run-server-suite.sh"

if [ ! -f "$HARNESS" ]; then
  echo "conformance harness not found at $HARNESS (expected ../shared/conformance beside the repository)" >&2
  if [ "${CONFORMANCE_OPTIONAL:-}" = "1" ]; then
    echo "CONFORMANCE_OPTIONAL=1: skipping the conformance run" >&2
    exit 0
  fi
  exit 2
fi
HARNESS_DIR="$(cd "$HARNESS_DIR" && pwd)"

# Same reason as in run.sh: the shared folder is read-only (even when `[ -w ]`
# says otherwise, as root) and its lib/*.mjs import `yaml` from beside
# themselves, so the harness runs from a copy in CONFORMANCE_HOME, where the
# suite and its dependencies are installed.
copy_harness() { # target folder
  local target="$1" file path
  mkdir -p "$target/lib"
  # Globbed inside the harness folder: a bare lib/* would expand against the current folder.
  for path in "$HARNESS_DIR/run-server-suite.sh" "$HARNESS_DIR/package.json" "$HARNESS_DIR/package-lock.json" "$HARNESS_DIR"/lib/*; do
    [ -f "$path" ] || continue
    file="${path#"$HARNESS_DIR"/}"
    if ! cmp -s "$HARNESS_DIR/$file" "$target/$file"; then
      rm -f "$target/$file"
      cp "$HARNESS_DIR/$file" "$target/$file"
      chmod u+w "$target/$file"
    fi
  done
}

export CONFORMANCE_HOME="${CONFORMANCE_HOME:-$REPO/.conformance}"
mkdir -p "$CONFORMANCE_HOME"
CONFORMANCE_HOME="$(cd "$CONFORMANCE_HOME" && pwd)"
if [ "$CONFORMANCE_HOME" = "$HARNESS_DIR" ]; then
  RUNNER="$HARNESS"
else
  copy_harness "$CONFORMANCE_HOME"
  RUNNER="$CONFORMANCE_HOME/run-server-suite.sh"
fi

FIXTURE='node --import tsx test/fixtures/conformance-server.ts'
EXTRA=("$@")
FAILED=()

run_suite() { # label, then the harness arguments of this pass
  local label="$1" status
  shift
  echo "== conformance (server): $label" >&2
  bash "$RUNNER" -g 2025-11-25,2026-07-28 "${EXTRA[@]}" "$@"
  status=$?
  if [ "$status" -ne 0 ]; then
    echo "== conformance (server): $label failed (exit $status)" >&2
    FAILED+=("$label")
  fi
}

# Commands run from the repository root, where `tsx` resolves.
cd "$REPO"
run_suite "fixture server" --no-upstream -- "$FIXTURE"

if [ "${#FAILED[@]}" -gt 0 ]; then
  echo "conformance (server): failed: ${FAILED[*]}" >&2
  exit 1
fi
