#!/usr/bin/env bash
# Usage: scripts/ci-node-lines.sh MAJOR...
# The unit and e2e tiers again on each supported Node line (installed from the npm registry into
# a temporary directory), after `pnpm test` ran every tier on the machine's own Node. The checkout
# is built and installed once: dist/ is plain JavaScript and no dependency has a native addon for
# a particular Node (rolldown's and lightningcss's are N-API), so only the runtime changes.
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d "${TMPDIR:-/tmp}/t3-connector-node-lines.XXXXXX")"
trap 'rm -rf "$work"' EXIT
failed=()
for major in "$@"; do
  bin="$(scripts/ci-node-line.sh "$major" "$work/node$major")"
  echo "== unit and e2e tiers on Node $("$bin/node" --version)"
  if ! PATH="$bin:$PATH" TEST_TIERS=unit,e2e "$bin/node" scripts/test-tiers.mjs; then
    failed+=("$major")
  fi
done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "unit/e2e failed on Node ${failed[*]}" >&2
  exit 1
fi
