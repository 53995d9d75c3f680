#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios against
# conformance/client.ts (`npm run conformance`). Extra arguments go to the
# harness, e.g. `npm run conformance -- -s '^tools'`. See conformance/README.md.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The shared harness sits beside the checkout, not inside it.
HARNESS_DIR="$REPO/../shared/conformance"
HARNESS="$HARNESS_DIR/run-client-suite.sh"

if [ ! -f "$HARNESS" ]; then
  echo "conformance harness not found at $HARNESS (expected ../shared/conformance beside the repository)" >&2
  if [ "${CONFORMANCE_OPTIONAL:-}" = "1" ]; then
    echo "CONFORMANCE_OPTIONAL=1: skipping the conformance run" >&2
    exit 0
  fi
  exit 2
fi
HARNESS_DIR="$(cd "$HARNESS_DIR" && pwd)"

# The harness installs the suite and writes its results beside itself when it
# thinks it can write there; as root `[ -w ]` is true even for the read-only
# shared folder, so we never let it: it installs into CONFORMANCE_HOME instead
# (default: .conformance/ here, git-ignored). Its lib/plan.mjs still imports
# `yaml` from beside itself, where nothing is installed then, so we run a copy of
# the harness from CONFORMANCE_HOME, where its dependencies are.
copy_harness() { # target folder
  local target="$1" file path
  mkdir -p "$target/lib"
  # Globbed inside the harness folder: a bare lib/* would expand against the current folder.
  for path in "$HARNESS_DIR/run-client-suite.sh" "$HARNESS_DIR/package.json" "$HARNESS_DIR/package-lock.json" "$HARNESS_DIR"/lib/*; do
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
  RUNNER="$CONFORMANCE_HOME/run-client-suite.sh"
fi

# The client command runs from the repository root, where `tsx` resolves.
cd "$REPO"
exec bash "$RUNNER" \
  -x conformance/expected-failures.txt \
  -g 2025-11-25,2026-07-28 \
  -j 2 \
  "$@" \
  -- "node --import tsx conformance/client.ts"
