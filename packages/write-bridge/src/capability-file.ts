/**
 * Reads the gate's per-boot relay capability (`<stateDir>/relay-capability`).
 * Checked on every relay call: a gate restart writes a new capability, and a file that someone else
 * could have read or swapped is worthless as a secret, so anything doubtful is `gate_unavailable`.
 * With a cache, a call whose `lstat` shows the very file read last time (same device, inode, size,
 * modification and change times, and still private) reuses what was read instead of opening it
 * again; any change to the file, its mode or its owner reads it again (ADR 0062).
 */
import { constants as fsConstants, lstatSync } from "node:fs";
import * as nodeFs from "node:fs/promises";
import { join } from "node:path";
import type { ConnectorError } from "@t3-connector/core";
import { gateUnavailable } from "./relay-errors.js";

export const CAPABILITY_FILE_NAME = "relay-capability";
/** 32 random bytes in base64url, as the gate writes them. */
const CAPABILITY_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface CapabilityFs {
  /**
   * The per-call check, synchronous: one `lstat` of a small local file costs microseconds, while
   * the promise form's trip through libuv's thread pool costs a thread wake-up on every write
   * (about 0.15 ms on a busy two-core machine, ADR 0072).
   */
  readonly lstatSync: typeof lstatSync;
  readonly open: typeof nodeFs.open;
}

const NODE_CAPABILITY_FS: CapabilityFs = { lstatSync, open: nodeFs.open };

export interface CapabilityReadOptions {
  readonly fs?: CapabilityFs;
  /** The uid that must own the file; default the current process's. */
  readonly uid?: number;
}

/** The last capability read, and the file it was read from; one per relay client. */
export interface CapabilityCache {
  file?: string;
  capability?: string;
}

/** The capability, or throws `gate_unavailable` (never with the file's content in the message). */
export async function readCapability(
  stateDir: string,
  options: CapabilityReadOptions = {},
  cache?: CapabilityCache,
): Promise<string> {
  const fs = options.fs ?? NODE_CAPABILITY_FS;
  const uid = options.uid ?? process.getuid?.();
  const path = join(stateDir, CAPABILITY_FILE_NAME);
  let stat: StatLike;
  try {
    stat = fs.lstatSync(path);
  } catch (error) {
    throw gateUnavailable("no gate is running (the relay capability file is missing)", error);
  }
  refuseUnsafe(stat, uid);
  if (cache?.capability !== undefined && cache.file === fileIdentity(stat)) return cache.capability;
  let handle: nodeFs.FileHandle | undefined;
  try {
    // O_NOFOLLOW: a symlink swapped in after the lstat fails here instead of being followed.
    handle = await fs.open(path, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
    const opened = await handle.stat();
    if (opened.ino !== stat.ino || opened.dev !== stat.dev) throw unsafe("it changed while being read");
    refuseUnsafe(opened, uid);
    const capability = (await handle.readFile("utf8")).trim();
    if (!CAPABILITY_PATTERN.test(capability)) throw unsafe("it does not hold a capability");
    if (cache !== undefined) {
      cache.file = fileIdentity(opened);
      cache.capability = capability;
    }
    return capability;
  } catch (error) {
    if (isGateUnavailable(error)) throw error;
    throw gateUnavailable("the relay capability file could not be read", error);
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

interface StatLike {
  isSymbolicLink(): boolean;
  isFile(): boolean;
  mode: number;
  uid: number;
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

/** What tells one version of the file from any other: a rewrite, a rename over it, a chmod. */
function fileIdentity(stat: StatLike): string {
  return [stat.dev, stat.ino, stat.size, stat.mtimeMs, stat.ctimeMs, stat.mode, stat.uid].join(":");
}

function refuseUnsafe(stat: StatLike, uid: number | undefined): void {
  if (stat.isSymbolicLink()) throw unsafe("it is a symlink");
  if (!stat.isFile()) throw unsafe("it is not a regular file");
  if (uid !== undefined && stat.uid !== uid) throw unsafe("it belongs to another user");
  if ((stat.mode & 0o777) !== 0o600) throw unsafe("its mode is not 600");
}

function unsafe(why: string): ConnectorError {
  return gateUnavailable(`the relay capability file is not trustworthy (${why})`);
}

function isGateUnavailable(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "gate_unavailable";
}
