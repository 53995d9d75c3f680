#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios against
# conformance/client.ts (`npm run conformance`). Extra arguments go to the
# harness, e.g. `npm run conformance -- -s '^tools'`. See conformance/README.md.
set -euo pipefail

HARNESS_SCRIPT=run-client-suite.sh
# shellcheck source=harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

# The client command runs from the repository root, where `tsx` resolves.
cd "$REPO"
exec bash "$RUNNER" \
  -x conformance/expected-failures.txt \
  -g 2025-11-25,2026-07-28 \
  -j 2 \
  "$@" \
  -- "node --import tsx conformance/client.ts"
