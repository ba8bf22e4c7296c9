import { constants } from "node:fs";
import * as nodeFs from "node:fs/promises";
import { join } from "node:path";
import { type Clock, ConnectorError, systemClock } from "@t3-connector/core";
import type { AuditEvent } from "./events.js";

export const AUDIT_FILE = "audit.log";

/** Append only, never through a symlink, created private. */
const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

/** The calls the audit log makes, injected so a test can make the disk fail. */
export type AuditFs = Pick<typeof nodeFs, "open" | "lstat" | "chmod">;

export interface AuditLogOptions {
  readonly stateDir: string;
  readonly clock?: Clock;
  readonly fs?: AuditFs;
  /** Called once, on the first failed append: the gate closes every lease. */
  readonly onFailure?: (error: ConnectorError) => void;
}

/**
 * The gate's append-only audit trail: one JSON line per event, each fsynced before `append`
 * resolves. Appends are serialised so lines never interleave. After one failure the log stays
 * failed (every later append rejects): a gap in the audit trail must stop writes, not hide.
 */
export interface AuditLog {
  append(event: AuditEvent): Promise<void>;
  /** Resolves when every append queued so far has finished (written or failed). */
  settled(): Promise<void>;
  readonly failed: boolean;
  close(): Promise<void>;
}

export async function openAuditLog(options: AuditLogOptions): Promise<AuditLog> {
  const fs = options.fs ?? nodeFs;
  const clock = options.clock ?? systemClock;
  const path = join(options.stateDir, AUDIT_FILE);
  let handle: nodeFs.FileHandle;
  try {
    handle = await fs.open(path, APPEND_FLAGS, 0o600);
  } catch (error) {
    throw auditUnavailable("open", error, path);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile())
      throw new ConnectorError("state_dir_invalid", `the audit log ${path} is not a regular file`);
    const uid = process.getuid?.();
    if (uid !== undefined && stat.uid !== uid) {
      throw new ConnectorError("state_dir_invalid", `the audit log ${path} belongs to another user`);
    }
    if ((stat.mode & 0o077) !== 0) await handle.chmod(0o600);
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
  return new FileAuditLog(handle, clock, options.onFailure);
}

class FileAuditLog implements AuditLog {
  readonly #handle: nodeFs.FileHandle;
  readonly #clock: Clock;
  readonly #onFailure: ((error: ConnectorError) => void) | undefined;
  #chain: Promise<void> = Promise.resolve();
  #failure: ConnectorError | null = null;
  #closed = false;

  constructor(handle: nodeFs.FileHandle, clock: Clock, onFailure?: (error: ConnectorError) => void) {
    this.#handle = handle;
    this.#clock = clock;
    this.#onFailure = onFailure;
  }

  get failed(): boolean {
    return this.#failure !== null;
  }

  settled(): Promise<void> {
    return this.#chain;
  }

  append(event: AuditEvent): Promise<void> {
    const line = `${JSON.stringify({ at: new Date(this.#clock.now()).toISOString(), ...event })}\n`;
    const run = this.#chain.then(async () => {
      if (this.#failure !== null) throw this.#failure;
      if (this.#closed) throw new ConnectorError("journal_unavailable", "the audit log is closed");
      try {
        await this.#handle.write(line);
        await this.#handle.sync();
      } catch (error) {
        this.#failure = auditUnavailable("append to", error);
        try {
          this.#onFailure?.(this.#failure);
        } catch {
          // The failure itself is what matters; the listener's own error must not mask it.
        }
        throw this.#failure;
      }
    });
    this.#chain = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    await this.#chain;
    if (this.#closed) return;
    this.#closed = true;
    await this.#handle.close().catch(() => undefined);
  }
}

function auditUnavailable(what: string, cause: unknown, path?: string): ConnectorError {
  const code = (cause as { code?: unknown } | null)?.code;
  const reason = typeof code === "string" ? code : cause instanceof Error ? cause.message : "unknown error";
  return new ConnectorError(
    "journal_unavailable",
    `the audit log could not ${what} ${path ?? "the file"} (${reason})`,
    {
      cause,
      details: { reason: "audit_failed" },
    },
  );
}
