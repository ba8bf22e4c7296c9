import { join } from "node:path";
import { ConnectorError } from "@t3-connector/core";
import {
  ensurePrivateDirectory,
  errorCode,
  type JournalFs,
  nodeJournalFs,
  syncDirectory,
  writeFileDurably,
} from "@t3-connector/core/durable";
import { listDirectory, readJsonFile } from "./durable-dir.js";
import { EVENT_ID_PATTERN } from "./event-id.js";
import type { AnyWebhookEvent, EventType } from "./event-types.js";
import { graceRoleOf } from "./grace.js";

/** An event not delivered yet. `body` is the exact JSON every attempt sends (and signs). */
export interface PendingEvent {
  id: string;
  type: EventType;
  body: string;
  createdAt: string;
  /** Where the age bound counts from: creation, or the last `events retry`. */
  ageFrom: string;
  attempts: number;
  nextAttemptAt: string;
  lastAttemptAt: string | null;
  lastError: string | null;
  /**
   * A waiting event held for the grace period (grace.ts): the item it announces. Its first attempt
   * is due at the period's end; the event that ends the item before then drops both.
   */
  holds?: string;
}

export interface DeliveredEvent {
  id: string;
  type: EventType;
  createdAt: string;
  deliveredAt: string;
  attempts: number;
  /**
   * Never sent: what it announced ended within the grace period, so neither it nor the event that
   * ended it went out. Kept like a delivered record, so the outbox never takes either id again.
   */
  unsent?: "ended_within_grace";
}

export interface DeadEvent extends PendingEvent {
  deadAt: string;
  reason: string;
}

export interface OutboxStatus {
  pending: number;
  oldestPendingAt: string | null;
  delivered: number;
  /** Pairs of events never sent: what one announced ended within the grace period (both counted). */
  endedWithinGrace: number;
  lastSuccessAt: string | null;
  deadLetters: Array<
    Pick<DeadEvent, "id" | "type" | "createdAt" | "deadAt" | "attempts" | "reason" | "lastError">
  >;
}

export const OUTBOX_DIRECTORY = "outbox";
const PENDING = "pending";
const DELIVERED = "delivered";
const DEAD = "dead";

const fileOf = (id: string) => `${id}.json`;
const idOf = (name: string) => (name.endsWith(".json") ? name.slice(0, -5) : undefined);

function isEventFile(name: string): boolean {
  const id = idOf(name);
  return id !== undefined && EVENT_ID_PATTERN.test(id);
}

/**
 * The durable outbox: one file per event in `pending/`, `delivered/` or `dead/`. A state change
 * is acknowledged only once on disk (core's `writeFileDurably`: temp, fsync, rename, fsync the
 * directory; an unlink is followed by a directory fsync). An event is in one directory at a time
 * except across a crash between two steps, which `open` repairs (delivered beats pending beats
 * dead: a delivered event is never sent again, a retried one never dead again).
 *
 * `delivered/` is kept for the retention period: it is what makes an event derived a second time
 * (after a restart) recognisable, so the outbox never enqueues one id twice.
 */
export interface OutboxOptions {
  /** How long a waiting event is held before its first attempt (0: not held). */
  graceMs?: number;
}

export class Outbox {
  readonly #fs: JournalFs;
  readonly #dir: string;
  readonly #graceMs: number;
  readonly #pending = new Map<string, PendingEvent>();
  /** Every id the outbox holds in any directory. */
  readonly #known = new Set<string>();
  /** Dead letters: the only held ids a file reappearing in `pending/` (`events retry`) may revive. */
  readonly #dead = new Set<string>();
  /** Pending writes of events just added, by id. */
  readonly #writes = new Map<string, Promise<void>>();
  #lastSuccessAt: string | null = null;

  private constructor(fs: JournalFs, dir: string, graceMs: number) {
    this.#fs = fs;
    this.#dir = dir;
    this.#graceMs = graceMs;
  }

  /** Opens (creating) `<eventsDir>/outbox`, repairing what a crash between two steps left. */
  static async open(
    eventsDir: string,
    fs: JournalFs = nodeJournalFs,
    options: OutboxOptions = {},
  ): Promise<Outbox> {
    const dir = join(eventsDir, OUTBOX_DIRECTORY);
    for (const sub of [dir, join(dir, PENDING), join(dir, DELIVERED), join(dir, DEAD)]) {
      await ensurePrivateDirectory(fs, sub, "events outbox folder");
    }
    const outbox = new Outbox(fs, dir, options.graceMs ?? 0);
    await outbox.#load();
    return outbox;
  }

  get pendingCount(): number {
    return this.#pending.size;
  }

  get lastSuccessAt(): string | null {
    return this.#lastSuccessAt;
  }

  has(id: string): boolean {
    return this.#known.has(id);
  }

  /** Pending events, the earliest due first. */
  pending(): PendingEvent[] {
    return [...this.#pending.values()].sort((a, b) => a.nextAttemptAt.localeCompare(b.nextAttemptAt));
  }

  /**
   * Adds `event` unless its id is already held (pending, delivered within retention, or dead).
   * Resolves once the event is on disk; returns whether it was added.
   */
  async enqueue(event: AnyWebhookEvent, now: string): Promise<boolean> {
    const durable = this.add(event, now);
    if (durable === undefined) return false;
    await durable;
    return true;
  }

  /**
   * Adds `event` at once (it is pending, and deliverable, from this call on) and writes it; the
   * promise resolves once it is on disk, and is undefined when the id is already held. Sending
   * may start before the write ends: what must wait for it is the caller's record that the
   * transition was consumed (the last-seen state), never the send. A crash before the write ends
   * leaves that record behind too, so the transition is derived and sent again, under its id.
   * A failed write takes the event out again.
   */
  add(event: AnyWebhookEvent, now: string): Promise<void> | undefined {
    if (this.#known.has(event.id)) return undefined;
    const grace = this.#graceMs > 0 ? graceRoleOf(event) : undefined;
    if (grace?.role === "ends") {
      const held = this.#heldUnsent(grace.item, Date.parse(now));
      if (held !== undefined) return this.#dropWithinGrace(held, event, now);
    }
    const holds = grace?.role === "waits" ? grace.item : undefined;
    const entry: PendingEvent = {
      id: event.id,
      type: event.type,
      body: JSON.stringify(event),
      createdAt: now,
      ageFrom: now,
      attempts: 0,
      nextAttemptAt: holds === undefined ? now : new Date(Date.parse(now) + this.#graceMs).toISOString(),
      lastAttemptAt: null,
      lastError: null,
      ...(holds === undefined ? {} : { holds }),
    };
    this.#known.add(entry.id);
    this.#pending.set(entry.id, entry);
    const written = this.#write(PENDING, entry).catch((error: unknown) => {
      this.#known.delete(entry.id);
      this.#pending.delete(entry.id);
      throw outboxUnavailable("enqueue an event", error);
    });
    this.#writes.set(entry.id, written);
    void written.then(
      () => this.#writes.delete(entry.id),
      () => this.#writes.delete(entry.id),
    );
    return written;
  }

  /**
   * The held event announcing `item` whose first attempt is still to come. Its due time being later
   * than now means the deliverer has not taken it (it takes an event only once due), and the caller
   * drops it in this same turn, before any other code runs.
   */
  #heldUnsent(item: string, nowMs: number): PendingEvent | undefined {
    for (const entry of this.#pending.values()) {
      if (entry.holds === item && entry.attempts === 0 && Date.parse(entry.nextAttemptAt) > nowMs) {
        return entry;
      }
    }
    return undefined;
  }

  /**
   * What `held` announced ended within the grace period: neither it nor `ending` is sent. Both are
   * recorded as never sent (so neither id is taken again), then the held pending file goes. A crash
   * before the records land leaves the held event pending, to be sent when due: a push too many,
   * never one lost. A failed write puts everything back as it was.
   */
  #dropWithinGrace(held: PendingEvent, ending: AnyWebhookEvent, now: string): Promise<void> {
    this.#pending.delete(held.id);
    this.#known.add(ending.id);
    const unsent = (event: { id: string; type: EventType }, createdAt: string): DeliveredEvent => ({
      id: event.id,
      type: event.type,
      createdAt,
      deliveredAt: now,
      attempts: 0,
      unsent: "ended_within_grace",
    });
    const heldWrite = this.#writes.get(held.id);
    return (async () => {
      let heldOnDisk = false;
      try {
        await heldWrite; // its pending file must exist before it can be removed
        heldOnDisk = true;
        await this.#write(DELIVERED, unsent(held, held.createdAt));
        await this.#write(DELIVERED, unsent(ending, now));
        await this.#remove(PENDING, held.id);
      } catch (error) {
        // Neither is consumed: the ending event is derived again. The held one goes back only if
        // it was ever on disk (a failed first write already took it out, to be derived again too).
        this.#known.delete(ending.id);
        if (heldOnDisk) this.#pending.set(held.id, held);
        throw outboxUnavailable("record an event that ended within the grace period", error);
      }
    })();
  }

  /** Waits for the event's own pending write, so a later state of it never lands before it. */
  async #settled(id: string): Promise<boolean> {
    const written = this.#writes.get(id);
    if (written === undefined) return this.#pending.has(id);
    try {
      await written;
      return true;
    } catch {
      return false; // its write failed: it is no longer in the outbox
    }
  }

  /**
   * The receiver accepted it: recorded as delivered, then removed from pending. False when the
   * event is no longer in the outbox (its first write failed: it will be derived and sent again).
   */
  async markDelivered(id: string, at: string): Promise<boolean> {
    if (!(await this.#settled(id))) return false;
    const entry = this.#pending.get(id);
    if (entry === undefined) return false;
    const record: DeliveredEvent = {
      id,
      type: entry.type,
      createdAt: entry.createdAt,
      deliveredAt: at,
      attempts: entry.attempts + 1,
    };
    await this.#write(DELIVERED, record);
    this.#pending.delete(id);
    await this.#remove(PENDING, id);
    if (this.#lastSuccessAt === null || at > this.#lastSuccessAt) this.#lastSuccessAt = at;
    return true;
  }

  /** An attempt failed; the next one is due at `nextAttemptAt`. */
  async markFailed(id: string, error: string, at: string, nextAttemptAt: string): Promise<void> {
    if (!(await this.#settled(id))) return;
    const entry = this.#pending.get(id);
    if (entry === undefined) return;
    const next: PendingEvent = {
      ...entry,
      attempts: entry.attempts + 1,
      lastAttemptAt: at,
      lastError: error,
      nextAttemptAt,
    };
    await this.#write(PENDING, next);
    this.#pending.set(id, next);
  }

  /** Attempts or age exhausted: moved to the dead letters, where only `retry` takes it out. */
  async markDead(id: string, error: string, at: string, reason: string): Promise<void> {
    if (!(await this.#settled(id))) return;
    const entry = this.#pending.get(id);
    if (entry === undefined) return;
    const dead: DeadEvent = {
      ...entry,
      attempts: entry.attempts + 1,
      lastAttemptAt: at,
      lastError: error,
      deadAt: at,
      reason,
    };
    await this.#write(DEAD, dead);
    this.#pending.delete(id);
    await this.#remove(PENDING, id);
    this.#dead.add(id); // only now: a rescan before the unlink must not take the old file back
  }

  /**
   * Picks up pending files this process did not write (`events retry` from another process moved
   * a dead letter back). Returns how many were new.
   */
  async rescan(): Promise<number> {
    let added = 0;
    for (const name of await listDirectory(this.#fs, join(this.#dir, PENDING))) {
      const id = idOf(name);
      if (id === undefined || !isEventFile(name) || this.#pending.has(id)) continue;
      // A held id that is not a dead letter is one this process is finishing (delivered or
      // dead-lettered, its pending file about to go): never taken back.
      if (this.#known.has(id) && !this.#dead.has(id)) continue;
      const entry = (await readJsonFile(this.#fs, join(this.#dir, PENDING, name))) as PendingEvent | null;
      if (entry === null) continue;
      this.#pending.set(id, entry);
      this.#known.add(id);
      this.#dead.delete(id);
      added += 1;
    }
    return added;
  }

  /** Forgets delivered records older than `retentionMs`. Dead letters are kept until retried. */
  async prune(nowMs: number, retentionMs: number): Promise<number> {
    let removed = 0;
    for (const name of await listDirectory(this.#fs, join(this.#dir, DELIVERED))) {
      const id = idOf(name);
      if (id === undefined || !isEventFile(name)) continue;
      const record = (await readJsonFile(
        this.#fs,
        join(this.#dir, DELIVERED, name),
      )) as DeliveredEvent | null;
      const at = record === null ? Number.NaN : Date.parse(record.deliveredAt);
      if (Number.isFinite(at) && nowMs - at <= retentionMs) continue;
      await this.#fs.unlink(join(this.#dir, DELIVERED, name)).catch(() => undefined);
      this.#known.delete(id);
      removed += 1;
    }
    if (removed > 0) await syncDirectory(this.#fs, join(this.#dir, DELIVERED));
    return removed;
  }

  async #load(): Promise<void> {
    const delivered = new Set<string>();
    for (const name of await listDirectory(this.#fs, join(this.#dir, DELIVERED))) {
      const id = idOf(name);
      if (id === undefined || !isEventFile(name)) continue;
      delivered.add(id);
      this.#known.add(id);
      const record = (await readJsonFile(
        this.#fs,
        join(this.#dir, DELIVERED, name),
      )) as DeliveredEvent | null;
      if (record?.unsent !== undefined) continue; // never sent: no success to count
      if (record !== null && (this.#lastSuccessAt === null || record.deliveredAt > this.#lastSuccessAt)) {
        this.#lastSuccessAt = record.deliveredAt;
      }
    }
    for (const name of await listDirectory(this.#fs, join(this.#dir, PENDING))) {
      const id = idOf(name);
      if (id === undefined || !isEventFile(name)) continue;
      if (delivered.has(id)) {
        await this.#remove(PENDING, id); // delivered, killed before the pending file went
        continue;
      }
      const entry = (await readJsonFile(this.#fs, join(this.#dir, PENDING, name))) as PendingEvent | null;
      if (entry === null) continue;
      this.#pending.set(id, entry);
      this.#known.add(id);
    }
    for (const name of await listDirectory(this.#fs, join(this.#dir, DEAD))) {
      const id = idOf(name);
      if (id === undefined || !isEventFile(name)) continue;
      // Retried (or delivered), killed before the dead file went.
      if (this.#pending.has(id) || delivered.has(id)) await this.#remove(DEAD, id);
      else this.#dead.add(id);
      this.#known.add(id);
    }
  }

  async #write(sub: string, record: { id: string }): Promise<void> {
    await writeFileDurably(this.#fs, join(this.#dir, sub, fileOf(record.id)), JSON.stringify(record));
  }

  async #remove(sub: string, id: string): Promise<void> {
    try {
      await this.#fs.unlink(join(this.#dir, sub, fileOf(id)));
    } catch (error) {
      if (errorCode(error) !== "ENOENT") throw error;
    }
    await syncDirectory(this.#fs, join(this.#dir, sub));
  }
}

function outboxUnavailable(what: string, cause: unknown): ConnectorError {
  const reason = errorCode(cause) ?? (cause instanceof Error ? cause.message : "unknown error");
  return new ConnectorError("journal_unavailable", `the events outbox could not ${what} (${reason})`, {
    cause,
  });
}

/** `events status`: read from the files, so it works beside a running `events` process. */
export async function readOutboxStatus(
  eventsDir: string,
  fs: JournalFs = nodeJournalFs,
): Promise<OutboxStatus> {
  const dir = join(eventsDir, OUTBOX_DIRECTORY);
  const read = async <T>(sub: string): Promise<T[]> => {
    const out: T[] = [];
    for (const name of await listDirectory(fs, join(dir, sub))) {
      if (!isEventFile(name)) continue;
      const value = (await readJsonFile(fs, join(dir, sub, name))) as T | null;
      if (value !== null) out.push(value);
    }
    return out;
  };
  const held = await read<DeliveredEvent>(DELIVERED);
  const deliveredIds = new Set(held.map((event) => event.id));
  const delivered = held.filter((event) => event.unsent === undefined);
  const pending = (await read<PendingEvent>(PENDING)).filter((event) => !deliveredIds.has(event.id));
  const pendingIds = new Set(pending.map((event) => event.id));
  const dead = (await read<DeadEvent>(DEAD)).filter(
    (event) => !pendingIds.has(event.id) && !deliveredIds.has(event.id),
  );
  const max = (values: string[]) =>
    values.reduce<string | null>((a, b) => (a === null || b > a ? b : a), null);
  const min = (values: string[]) =>
    values.reduce<string | null>((a, b) => (a === null || b < a ? b : a), null);
  return {
    pending: pending.length,
    oldestPendingAt: min(pending.map((event) => event.createdAt)),
    delivered: delivered.length,
    endedWithinGrace: held.length - delivered.length,
    lastSuccessAt: max(delivered.map((event) => event.deliveredAt)),
    deadLetters: dead
      .sort((a, b) => a.deadAt.localeCompare(b.deadAt))
      .map(({ id, type, createdAt, deadAt, attempts, reason, lastError }) => ({
        id,
        type,
        createdAt,
        deadAt,
        attempts,
        reason,
        lastError,
      })),
  };
}

/**
 * `events retry <id>`: moves a dead letter back to pending with its attempts reset (new pending
 * file first, then the dead one goes, so a crash in between leaves it pending, never lost). A
 * running `events` process picks it up by watching `pending/`.
 */
export async function retryDeadLetter(
  eventsDir: string,
  id: string,
  now: string,
  fs: JournalFs = nodeJournalFs,
): Promise<PendingEvent> {
  if (!EVENT_ID_PATTERN.test(id)) {
    throw new ConnectorError("invalid_input", `"${id}" is not an event id (msg_ and 32 hex digits)`);
  }
  const dir = join(eventsDir, OUTBOX_DIRECTORY);
  const dead = (await readJsonFile(fs, join(dir, DEAD, fileOf(id)))) as DeadEvent | null;
  if (dead === null) {
    throw new ConnectorError("not_found", `no dead letter ${id} (see \`events status\`)`, {
      details: { id },
    });
  }
  const pending: PendingEvent = {
    id: dead.id,
    type: dead.type,
    body: dead.body,
    createdAt: dead.createdAt,
    ageFrom: now,
    attempts: 0,
    nextAttemptAt: now,
    lastAttemptAt: dead.lastAttemptAt,
    lastError: dead.lastError,
  };
  await writeFileDurably(fs, join(dir, PENDING, fileOf(id)), JSON.stringify(pending));
  await fs.unlink(join(dir, DEAD, fileOf(id)));
  await syncDirectory(fs, join(dir, DEAD));
  return pending;
}
