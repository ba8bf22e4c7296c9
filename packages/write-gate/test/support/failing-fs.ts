import * as nodeFs from "node:fs/promises";
import type { JournalFs } from "@t3-connector/write-engine/engine";
import type { AuditFs } from "../../src/audit/index.js";

function eio(): Error {
  return Object.assign(new Error("EIO: i/o error (injected)"), { code: "EIO" });
}

/** An audit fs whose appends start failing (EIO on fsync) once `failing` is set. */
export function failingAuditFs(): AuditFs & { failing: boolean } {
  const fs = {
    failing: false,
    lstat: nodeFs.lstat,
    chmod: nodeFs.chmod,
    async open(...args: Parameters<typeof nodeFs.open>) {
      const handle = await nodeFs.open(...args);
      return new Proxy(handle, {
        get(target, property) {
          if (property === "sync") return async () => (fs.failing ? Promise.reject(eio()) : target.sync());
          const value = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    },
  };
  return fs as AuditFs & { failing: boolean };
}

/** A journal fs whose writes (any open that creates a file) fail with EIO once `failing` is set. */
export function failingJournalFs(): JournalFs & { failing: boolean } {
  const fs = {
    ...nodeFs,
    failing: false,
    open(path: Parameters<typeof nodeFs.open>[0], flags?: string | number, mode?: number) {
      const creates = typeof flags === "number" && (flags & nodeFs.constants.O_CREAT) !== 0;
      if (fs.failing && creates) return Promise.reject(eio());
      return nodeFs.open(path, flags, mode);
    },
  };
  return fs as unknown as JournalFs & { failing: boolean };
}
