import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { errorCode } from "./fs.js";

/**
 * Who holds a lock: enough to tell, later and from another process, whether that holder still
 * runs. A pid alone is not enough (pids are reused), so the kernel's start time of the process is
 * kept with it.
 */
export interface ProcessIdentity {
  pid: number;
  /** Field 22 of `/proc/<pid>/stat` (clock ticks after boot); null where /proc is unavailable. */
  startTicks: string | null;
  hostname: string;
}

export function currentProcessIdentity(): ProcessIdentity {
  return {
    pid: process.pid,
    startTicks: readProcStat(process.pid)?.startTicks ?? null,
    hostname: hostname(),
  };
}

/**
 * Decide whether the process that wrote `holder` may still be running. Only a provably gone
 * holder is "dead"; every doubt answers "alive", so a lock is never taken from a live process:
 * - another host: we cannot see its processes → alive;
 * - `kill(pid, 0)` says ESRCH → dead; EPERM means it exists under another user → go on;
 * - `/proc/<pid>/stat` says zombie → dead (it can hold nothing);
 * - both start times known and different → the pid was reused → dead;
 * - otherwise → alive.
 */
export function isHolderAlive(holder: ProcessIdentity): boolean {
  if (holder.hostname !== hostname()) return true;
  if (!Number.isSafeInteger(holder.pid) || holder.pid <= 0) return true;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if (errorCode(error) === "ESRCH") return false;
  }
  const stat = readProcStat(holder.pid);
  if (stat === null) return true;
  if (stat.state === "Z" || stat.state === "X") return false;
  if (holder.startTicks !== null && stat.startTicks !== holder.startTicks) return false;
  return true;
}

interface ProcStat {
  state: string;
  startTicks: string;
}

function readProcStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // The command name (field 2) may hold spaces and parentheses: fields are counted after the last ")".
  const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const state = rest[0];
  const startTicks = rest[19];
  if (state === undefined || startTicks === undefined) return null;
  return { state, startTicks };
}
