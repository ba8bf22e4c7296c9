import { constants } from "node:fs";
import * as nodeFs from "node:fs/promises";
import { join } from "node:path";
import { type Clock, ConnectorError, systemClock } from "@t3-connector/core";
import { type AuditAnchor, journalDamaged, UNKNOWN_LOST_RANGE } from "@t3-connector/write-engine/engine";
import { chainedLine, checkAuditText } from "./audit-chain.js";
import type { AuditEvent } from "./events.js";

export const AUDIT_FILE = "audit.log";

/** Append only (read once at open, to find the chain's head), never through a symlink, created private. */
const APPEND_FLAGS = constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

/** The calls the audit log makes, injected so a test can make the disk fail. */
export type AuditFs = Pick<typeof nodeFs, "open" | "lstat" | "chmod">;

export interface AuditLogOptions {
  readonly stateDir: string;
  readonly clock?: Clock;
  readonly fs?: AuditFs;
  /** Called once, on the first failed append: the gate closes every lease. */
  readonly onFailure?: (error: ConnectorError) => void;
  /** The journal's durable generation, recorded on every line (ADR 0006 §14). */
  readonly journalGeneration?: () => number;
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
  /** Where the chain stands after the appends that completed: for the journal's marker. */
  anchor(): AuditAnchor;
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
    const check = checkAuditText(await handle.readFile("utf8"));
    if (check.status === "damaged") {
      throw journalDamaged(options.stateDir, [
        {
          file: AUDIT_FILE,
          problem: "altered",
          detail: check.problems.join("; "),
          lost: UNKNOWN_LOST_RANGE,
        },
      ]);
    }
    // A torn last line is an append a crash cut short: it was never acknowledged, so it goes.
    if (check.torn) {
      await handle.truncate(check.completeBytes);
      await handle.sync();
    }
    const log = new FileAuditLog(handle, clock, options, check.lines, check.head);
    // Lines from before the chain: the first chained line covers their bytes (ADR 0006 §15).
    if (check.unchained > 0) {
      await log.appendFields({ event: "audit_chain_started", unchainedLines: check.unchained });
    }
    return log;
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

class FileAuditLog implements AuditLog {
  readonly #handle: nodeFs.FileHandle;
  readonly #clock: Clock;
  readonly #onFailure: ((error: ConnectorError) => void) | undefined;
  readonly #journalGeneration: (() => number) | undefined;
  #chain: Promise<void> = Promise.resolve();
  #failure: ConnectorError | null = null;
  #closed = false;
  #lines: number;
  #head: string;

  constructor(
    handle: nodeFs.FileHandle,
    clock: Clock,
    options: AuditLogOptions,
    lines: number,
    head: string,
  ) {
    this.#handle = handle;
    this.#clock = clock;
    this.#onFailure = options.onFailure;
    this.#journalGeneration = options.journalGeneration;
    this.#lines = lines;
    this.#head = head;
  }

  anchor(): AuditAnchor {
    return { lines: this.#lines, head: this.#head };
  }

  get failed(): boolean {
    return this.#failure !== null;
  }

  settled(): Promise<void> {
    return this.#chain;
  }

  append(event: AuditEvent): Promise<void> {
    return this.appendFields(event);
  }

  /** One chained line: the fields, when, the journal's generation, `prev` and `hash`. */
  appendFields(fields: Record<string, unknown>): Promise<void> {
    const at = new Date(this.#clock.now()).toISOString();
    const run = this.#chain.then(async () => {
      if (this.#failure !== null) throw this.#failure;
      if (this.#closed) throw new ConnectorError("journal_unavailable", "the audit log is closed");
      // Built in the queue: `prev` is the head after every earlier append, the generation is current.
      const generation = this.#journalGeneration?.();
      const line = chainedLine(
        { at, ...fields, ...(generation === undefined ? {} : { journal: generation }) },
        this.#head,
      );
      try {
        await this.#handle.write(`${line.text}\n`);
        await this.#handle.sync();
        this.#lines += 1;
        this.#head = line.hash;
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
