import { constants } from "node:fs";
import * as nodeFs from "node:fs/promises";
import type { JournalFs } from "../../../src/journal/index.js";

export type FaultStep = "writeFile" | "sync" | "rename";

/**
 * The real file system, except that the chosen step of writing a new file (optionally only files
 * whose path matches) fails like a failing disk would (ENOSPC on write, EIO on fsync or rename).
 * Only the journal's own fs calls go through it, which is the seam the journal exposes for this.
 */
export function faultyFs(): { fs: JournalFs; failAt(step: FaultStep | null, onlyPaths?: RegExp): void } {
  let failing: FaultStep | null = null;
  let paths = /./;
  const fault = (step: FaultStep) =>
    Object.assign(new Error(`injected ${step} failure`), { code: step === "writeFile" ? "ENOSPC" : "EIO" });
  const open = (async (path: string, flags: number, mode?: number) => {
    const handle = await nodeFs.open(path, flags, mode);
    if ((flags & constants.O_CREAT) === 0 || !paths.test(path)) return handle;
    return new Proxy(handle, {
      get(target, property) {
        if ((property === "writeFile" || property === "sync") && failing === property) {
          return async () => {
            throw fault(property);
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }) as JournalFs["open"];
  const rename: JournalFs["rename"] = async (from, to) => {
    if (failing === "rename" && paths.test(String(from))) throw fault("rename");
    return nodeFs.rename(from, to);
  };
  return {
    fs: { ...nodeFs, open, rename },
    failAt(step, onlyPaths = /./) {
      failing = step;
      paths = onlyPaths;
    },
  };
}
