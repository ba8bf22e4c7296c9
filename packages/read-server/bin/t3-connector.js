#!/usr/bin/env node
// Thin launcher of the bundled CLI (see scripts/bundle-cli.mjs). There is deliberately no
// fallback to dist/cli.js: a fallback could quietly run a stale bundle or hide a missing build.
import module from "node:module";
import os from "node:os";
import path from "node:path";

// On Node ≥ 22.1 compiled code is kept between runs under the user's cache folder (never in the
// package); Node checks each entry against the source it was compiled from. Node 20 has no such
// cache and starts as before (docs/adr/0060). NODE_COMPILE_CACHE=dir names another folder (Node
// turns it on before this runs); NODE_DISABLE_COMPILE_CACHE=1 turns it off.
if (typeof module.enableCompileCache === "function") {
  try {
    const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache");
    module.enableCompileCache(path.join(cache, "t3-connector", "compile-cache"));
  } catch {
    // No usable cache folder: start without one.
  }
}
// Loaded after the cache is on, so that the bundle is compiled through it.
const { runCli } = await import("../dist/t3-connector.bundle.js");

process.exitCode = await runCli(process.argv.slice(2));
