#!/usr/bin/env node
// Thin launcher of the bundled CLI (see scripts/bundle-cli.mjs). There is deliberately no
// fallback to dist/cli.js: a fallback could quietly run a stale bundle or hide a missing build.
import { enableCompileCacheIfAvailable } from "@t3-connector/core/compile-cache";

// A compile cache where Node has one (22.1 and later; docs/adr/0060), before the bundle loads.
enableCompileCacheIfAvailable();
// Loaded after the cache is on, so that the bundle is compiled through it.
const { runCli } = await import("../dist/t3-connector.bundle.js");

process.exitCode = await runCli(process.argv.slice(2));
