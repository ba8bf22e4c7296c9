import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { Clock } from "../clock.js";
import { ConnectorError, isConnectorError } from "../errors.js";
import { readPrivateJson, writeSyncedTemp } from "./durable-file.js";
import { errorCode, type JournalFs, syncDirectory } from "./fs.js";
import { currentProcessIdentity, isHolderAlive, type ProcessIdentity } from "./process-identity.js";

export const LOCK_FILE = "journal.lock";
const TAKEOVER_SUFFIX = ".takeover";
const LOCK_TEMP_PATTERN = /^\.journal\.lock(\.takeover)?\.\d+\.\d+\.tmp$/;

interface LockContent extends ProcessIdentity {
  format: "t3-connector/journal-lock";
  acquiredAt: string;
  /** Tells our own lock apart from a successor's when releasing. */
  nonce: string;
}

/**
 * One journal (one gate, or the reconciliation CLI when no gate runs) per state directory.
 *
 * Acquire: the lock file is published create-exclusively, with our pid, kernel start time, host and
 * a nonce. It is first written and fsynced under a temp name, then `link()`ed to `journal.lock`:
 * `link` fails with EEXIST exactly like `O_EXCL`, and a crash can never leave an empty lock behind.
 *
 * Stale takeover: a lock whose holder is provably gone (`isHolderAlive`: dead pid, zombie, or a
 * reused pid with another start time) may be taken. Checking and then deleting is a race between
 * two takers (the second could delete the first's fresh lock), so the check and the delete happen
 * only while holding a second create-exclusive file, `journal.lock.takeover`. Only its holder ever
 * deletes a lock, and only one whose holder is dead (a dead process cannot replace its own lock),
 * so a live lock is never removed. A taker killed inside that window leaves the takeover file; it is
 * never removed automatically (that would reopen the race), and the error names it for the operator.
 */
export class JournalLock {
  readonly #fs: JournalFs;
  readonly #path: string;
  readonly #nonce: string;
  #released = false;

  constructor(fs: JournalFs, path: string, nonce: string) {
    this.#fs = fs;
    this.#path = path;
    this.#nonce = nonce;
  }

  /** Remove the lock file if it is still ours. */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    const content = await readLock(this.#fs, this.#path).catch(() => null);
    if (content?.nonce !== this.#nonce) return;
    await this.#fs.unlink(this.#path);
    await syncDirectory(this.#fs, join(this.#path, ".."));
  }
}

export async function acquireJournalLock(
  fs: JournalFs,
  stateDir: string,
  clock: Clock,
): Promise<JournalLock> {
  const path = join(stateDir, LOCK_FILE);
  const content: LockContent = {
    format: "t3-connector/journal-lock",
    ...currentProcessIdentity(),
    acquiredAt: new Date(clock.now()).toISOString(),
    nonce: randomBytes(16).toString("hex"),
  };
  // A holder may release between our failed publish and our read: then simply try again.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    if (await publish(fs, path, content)) break;
    const holder = await readLock(fs, path);
    if (holder === null) continue;
    if (isHolderAlive(holder)) throw lockedBy(holder);
    await takeOverStaleLock(fs, path, content);
    break;
  }
  await removeLeftoverLockTemps(fs, stateDir);
  const lock = new JournalLock(fs, path, content.nonce);
  const check = await readLock(fs, path);
  if (check?.nonce !== content.nonce)
    throw new ConnectorError("journal_unavailable", "the journal lock is busy");
  return lock;
}

async function takeOverStaleLock(fs: JournalFs, path: string, content: LockContent): Promise<void> {
  const guardPath = path + TAKEOVER_SUFFIX;
  if (!(await publish(fs, guardPath, content))) {
    const guard = await readLock(fs, guardPath);
    if (guard !== null && isHolderAlive(guard)) {
      throw new ConnectorError("journal_unavailable", `pid ${guard.pid} is taking over a stale journal lock`);
    }
    throw new ConnectorError(
      "journal_unavailable",
      `a takeover of a stale journal lock did not finish; if no gate or journal runs, remove ${LOCK_FILE}${TAKEOVER_SUFFIX} from the state directory`,
    );
  }
  try {
    const holder = await readLock(fs, path);
    if (holder !== null) {
      if (isHolderAlive(holder)) throw lockedBy(holder);
      await fs.unlink(path);
    }
    if (!(await publish(fs, path, content))) {
      const winner = await readLock(fs, path);
      throw winner === null
        ? new ConnectorError("journal_unavailable", "the journal lock is busy")
        : lockedBy(winner);
    }
  } finally {
    await fs.unlink(guardPath).catch(() => undefined);
    await syncDirectory(fs, join(path, "..")).catch(() => undefined);
  }
}

/** Create `path` with `content` only if it does not exist. */
async function publish(fs: JournalFs, path: string, content: LockContent): Promise<boolean> {
  const temp = await writeSyncedTemp(fs, path, JSON.stringify(content));
  try {
    await fs.link(temp, path);
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false;
    throw new ConnectorError(
      "journal_unavailable",
      `the journal lock cannot be created (${errorCode(error)})`,
      {
        cause: error,
      },
    );
  } finally {
    await fs.unlink(temp).catch(() => undefined);
  }
  await syncDirectory(fs, join(path, ".."));
  return true;
}

async function readLock(fs: JournalFs, path: string): Promise<LockContent | null> {
  const value = (await readPrivateJson(fs, path)) as Partial<LockContent> | null;
  if (value === null) return null;
  if (
    value.format !== "t3-connector/journal-lock" ||
    typeof value.pid !== "number" ||
    typeof value.hostname !== "string" ||
    typeof value.nonce !== "string" ||
    (value.startTicks !== null && typeof value.startTicks !== "string")
  ) {
    throw new ConnectorError(
      "journal_unavailable",
      `${LOCK_FILE} is not a journal lock; if no gate or journal runs, remove it from the state directory`,
    );
  }
  return value as LockContent;
}

function lockedBy(holder: LockContent): ConnectorError {
  return new ConnectorError(
    "journal_unavailable",
    `the journal is already open in pid ${holder.pid} on ${holder.hostname} (since ${holder.acquiredAt})`,
    { details: { reason: "locked", pid: holder.pid } },
  );
}

/** Temp files of a publish that was killed before it could unlink them. Ours is already gone. */
async function removeLeftoverLockTemps(fs: JournalFs, stateDir: string): Promise<void> {
  for (const name of await fs.readdir(stateDir)) {
    if (LOCK_TEMP_PATTERN.test(name)) await fs.unlink(join(stateDir, name)).catch(() => undefined);
  }
}

/**
 * `acquireJournalLock`, with the refusal a live holder earns worded by the caller: each server
 * that keeps its own state directory (the events follower, the OAuth profile) names itself and
 * the way out. Any other failure passes through unchanged.
 */
export async function acquireLockOrRefuse(
  fs: JournalFs,
  stateDir: string,
  clock: Clock,
  refusal: (holderPid: unknown, cause: ConnectorError) => ConnectorError,
): Promise<JournalLock> {
  try {
    return await acquireJournalLock(fs, stateDir, clock);
  } catch (error) {
    const details = isConnectorError(error)
      ? (error.details as { reason?: unknown; pid?: unknown } | undefined)
      : undefined;
    if (isConnectorError(error) && details?.reason === "locked") throw refusal(details.pid, error);
    throw error;
  }
}
