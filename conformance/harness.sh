# Sourced by run.sh and run-server.sh: finds the shared conformance harness and sets
# RUNNER to a runnable copy of the script named by HARNESS_SCRIPT. The shared folder
# sits beside the checkout and is read-only (as root `[ -w ]` says otherwise), and its
# lib/*.mjs import `yaml` from beside themselves, so the harness runs from a copy in
# CONFORMANCE_HOME (default: .conformance/ here, git-ignored), where the suite and its
# dependencies are installed. Without the harness: exit 2, or 0 with CONFORMANCE_OPTIONAL=1.

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HARNESS_DIR="$REPO/../shared/conformance"
HARNESS="$HARNESS_DIR/$HARNESS_SCRIPT"

if [ ! -f "$HARNESS" ]; then
  echo "conformance harness not found at $HARNESS (expected ../shared/conformance beside the repository)" >&2
  if [ "${CONFORMANCE_OPTIONAL:-}" = "1" ]; then
    echo "CONFORMANCE_OPTIONAL=1: skipping the conformance run" >&2
    exit 0
  fi
  exit 2
fi
HARNESS_DIR="$(cd "$HARNESS_DIR" && pwd)"

copy_harness() { # target folder
  local target="$1" file path
  mkdir -p "$target/lib"
  # Globbed inside the harness folder: a bare lib/* would expand against the current folder.
  for path in "$HARNESS_DIR/$HARNESS_SCRIPT" "$HARNESS_DIR/package.json" "$HARNESS_DIR/package-lock.json" "$HARNESS_DIR"/lib/*; do
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
  RUNNER="$CONFORMANCE_HOME/$HARNESS_SCRIPT"
fi
