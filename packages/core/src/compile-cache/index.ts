/**
 * @module The compile cache of the bundled CLIs (ADR 0060). On Node ≥ 22.1 compiled code is kept
 * between runs under the user's cache folder (never in the package); Node checks each entry
 * against the source it was compiled from. Node 20 has no such cache and starts as before.
 * `NODE_COMPILE_CACHE=dir` names another folder (Node turns it on before a bin runs);
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off. This module imports only Node's own modules, so a
 * bin can load it before its bundle, which then compiles through the cache.
 */
import module from "node:module";
import os from "node:os";
import path from "node:path";

/** Turns the cache on where Node has one; a cache folder that cannot be used leaves it off. */
export function enableCompileCacheIfAvailable(env: NodeJS.ProcessEnv = process.env): void {
  const enable = (module as { enableCompileCache?: (directory: string) => unknown }).enableCompileCache;
  if (typeof enable !== "function") return;
  try {
    const cache = env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache");
    enable(path.join(cache, "t3-connector", "compile-cache"));
  } catch {
    // No usable cache folder: start without one.
  }
}
