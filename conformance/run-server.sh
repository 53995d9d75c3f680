#!/usr/bin/env bash
# Runs the official MCP conformance suite's server scenarios against the
# project's servers (`npm run conformance:server`). Each run_suite call is one
# full pass of the shared harness; the script fails when any pass fails. Extra
# arguments go to every pass, e.g. `npm run conformance:server -- -s '^tools'`.
# See ../shared/conformance/README.md, "Server scenarios".
set -uo pipefail

HARNESS_SCRIPT=run-server-suite.sh
# shellcheck source=harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

FIXTURE='node --import tsx test/fixtures/conformance-server.ts'
# The gateway fronting the fixture: gateway.mcp.json names one HTTP server at
# ${MCP_UPSTREAM_URL}, the URL the harness gives it.
GATEWAY='node --import tsx src/cli/main.ts serve --http --port "$PORT" --no-watch --config conformance/gateway.mcp.json'
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
run_suite "gateway" --upstream-cmd "$FIXTURE" -- "$GATEWAY"

if [ "${#FAILED[@]}" -gt 0 ]; then
  echo "conformance (server): failed: ${FAILED[*]}" >&2
  exit 1
fi
