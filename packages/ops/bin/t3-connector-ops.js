#!/usr/bin/env node
// Thin launcher of the bundled CLI (see scripts/bundle-cli.mjs). There is deliberately no
// fallback to dist/cli.js: a fallback could quietly run a stale bundle or hide a missing build.
import { runCli } from "../dist/t3-connector-ops.bundle.js";

process.exitCode = await runCli(process.argv.slice(2));
