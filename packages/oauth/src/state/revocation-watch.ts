/**
 * @module Makes a revocation from the terminal take effect at once (ADR 0049): `t3-connector oauth
 * revoke | revoke-all` only writes `revocations.json`, which the server otherwise reads before the
 * next token. A watch on the state directory re-reads it as soon as it changes, so the session
 * ends (and what serve holds for it: leases, pending approval requests) without waiting for any
 * request. `fs.watch` can miss events (network file systems, a full inotify table), so a periodic
 * re-check runs too; each check is one `stat` when nothing changed.
 */
import { type FSWatcher, watch } from "node:fs";
import { systemTimers, type TimerHandle, type Timers } from "@t3-connector/core/t3";
import { REVOCATIONS_FILE } from "./session-files.js";

const REVOCATIONS_STEM = REVOCATIONS_FILE.replace(/\.json$/, "");

/** How often the fallback re-check runs when no watch event came. */
export const REVOCATION_RECHECK_MS = 5_000;

export interface RevocationWatchOptions {
  readonly stateDir: string;
  /** Re-reads `revocations.json` and ends what it revokes (the session book's `syncRevocations`). */
  readonly sync: () => Promise<void>;
  readonly log: (line: string) => void;
  /** Default: the system's (unref'd). Tests fire the re-check by hand. */
  readonly timers?: Timers;
  readonly recheckMs?: number;
  /** Default `fs.watch`; tests inject one that fails, to prove the re-check alone suffices. */
  readonly watchDir?: (dir: string, onChange: (file: string | null) => void) => Pick<FSWatcher, "close">;
}

export interface RevocationWatch {
  close(): void;
}

export function watchRevocations(options: RevocationWatchOptions): RevocationWatch {
  const timers = options.timers ?? systemTimers;
  const recheckMs = options.recheckMs ?? REVOCATION_RECHECK_MS;
  let closed = false;
  let running: Promise<void> | undefined;
  let again = false;
  // One check at a time; a change seen during a check runs one more after it.
  const check = (): void => {
    if (closed) return;
    if (running !== undefined) {
      again = true;
      return;
    }
    running = options
      .sync()
      // A damaged file is logged by the book, which refuses every token until it is fixed.
      .catch(() => undefined)
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          check();
        }
      });
  };
  let timer: TimerHandle | undefined;
  const arm = (): void => {
    timer = timers.setTimeout(() => {
      check();
      if (!closed) arm();
    }, recheckMs);
  };
  const watcher = startWatch(options, check);
  arm();
  return {
    close() {
      closed = true;
      timer?.cancel();
      watcher?.close();
    },
  };
}

function startWatch(
  options: RevocationWatchOptions,
  check: () => void,
): Pick<FSWatcher, "close"> | undefined {
  const watchDir = options.watchDir ?? defaultWatch;
  try {
    // The file is replaced by a rename, so the directory is watched, not the file (the rename names
    // it); a platform that names no file (null) is checked too.
    return watchDir(options.stateDir, (file) => {
      if (file === null || file.includes(REVOCATIONS_STEM)) check();
    });
  } catch (error) {
    options.log(
      `oauth: watching ${options.stateDir} failed, re-checking revocations periodically: ${String(error)}`,
    );
    return undefined;
  }
}

function defaultWatch(dir: string, onChange: (file: string | null) => void): FSWatcher {
  const watcher = watch(dir, { persistent: false }, (_event, file) =>
    onChange(file === null ? null : String(file)),
  );
  // A watch that breaks later (the directory removed) leaves the periodic re-check in charge.
  watcher.on("error", () => watcher.close());
  return watcher;
}
