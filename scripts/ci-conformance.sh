#!/usr/bin/env bash
# The MCP conformance suite's applicable server scenarios against `serve --http` on the simulator
# (scripts/conformance.mjs). The suite needs Node >= 22: one is installed from the npm registry
# into a temporary directory, with the suite at the version named here. Needs a built checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
suite_version="0.1.16"
work="$(mktemp -d "${TMPDIR:-/tmp}/t3-connector-conformance.XXXXXX")"
trap 'rm -rf "$work"' EXIT
node_bin="$(scripts/ci-node-line.sh 22 "$work/node")"
npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$work/suite" \
  "@modelcontextprotocol/conformance@$suite_version" >&2
node scripts/conformance.mjs --node "$node_bin/node" \
  --conformance "$work/suite/node_modules/@modelcontextprotocol/conformance/dist/index.js"
