import { dirname } from "node:path";
import type { Clock } from "@t3-connector/core";
import { ConnectorError, hashInput, isConnectorError } from "@t3-connector/core";
import type { DurableJsonFile, JournalLock } from "@t3-connector/core/durable";
import { type JournalFs, journalUnavailable } from "@t3-connector/core/durable";
import type { Low } from "lowdb";
import { sealRecord } from "./checksum.js";
import { DeferredWrite } from "./deferred-write.js";
import type { Generations } from "./generations.js";
import { journalKey } from "./key.js";
import type { LostRegister } from "./lost.js";
import {
  type AuditAnchor,
  type Manifest,
  type Marker,
  newMarker,
  type UnknownLoss,
  writeManifest,
  writeMarker,
} from "./manifest.js";
import {
  type ActiveDocument,
  copyRecord,
  newPreparingRecord,
  recordFilter,
  sanitiseCommand,
  sanitiseDerivedIds,
  sanitiseError,
  sanitiseReceipt,
} from "./records.js";
import { describeSegment, type SegmentInfo, type SegmentStore } from "./segments.js";
import { assertTransition, type JournalOperation } from "./transitions.js";
import {
  type DerivedIds,
  isSettled,
  type JournalCommand,
  type JournalError,
  type JournalFilter,
  type JournalReceipt,
  type JournalRecord,
  type JournalState,
  type JournalStats,
  type ReserveRequest,
  type ReserveResult,
  type SettleOutcome,
} from "./types.js";

/** Where a retained key lives: enough to recognise a repeat (and a conflict) without any read. */
export interface IndexEntry {
  inputHash: string;
  state: JournalState;
  /** null: the active segment; otherwise the id of the sealed segment holding it. */
  segment: number | null;
}

export interface JournalPolicy {
  /** `completed`/`refused` records are kept at least this long after they settle. */
  retentionMs: number;
  /** Settled records per sealed segment. */
  segmentRecords: number;
  /** Settled records that stay in the active segment after sealing (recent repeats stay cheap). */
  recentRecords: number;
  /** How long a `completed` may wait for the next write before it is written on its own (ADR 0066). */
  completedWriteDelayMs: number;
}

export interface JournalParts {
  db: Low<ActiveDocument>;
  /** The adapter behind `db`, closed with the journal. */
  activeFile: DurableJsonFile<ActiveDocument>;
  segments: SegmentStore;
  lock: JournalLock;
  clock: Clock;
  policy: JournalPolicy;
  index: Map<string, IndexEntry>;
  segmentInfo: Map<number, SegmentInfo>;
  onUnavailable: ((error: ConnectorError) => void) | undefined;
  fs: JournalFs;
  /** `<stateDir>/journal`, where the manifest lives. */
  directory: string;
  /** What the journal should contain; rewritten (durably) whenever the set of segments changes. */
  manifest: Manifest;
  /** The identity marker as read at open; restamped with the generations at each gate start and stop. */
  marker: Marker;
  generations: Generations;
  lost: LostRegister;
}

/**
 * The durable idempotency journal. Open it with `openJournal`; one per state directory.
 *
 * Every mutation changes the in-memory state synchronously (so `reserve` is an atomic
 * insert-if-absent: no two callers can both own a key) and then awaits the active segment's write:
 * when its promise resolves, that change is on disk (see `DurableJsonFile`). A caller that finds an
 * existing key waits until that key's last change is durable before it sees the record, so nobody
 * acts on a state that a crash could still take back.
 *
 * Any write failure makes the journal unavailable for good (`journal_unavailable` on every call,
 * `onUnavailable` once); reopening reloads exactly what was acknowledged.
 */
export class Journal {
  readonly #db: Low<ActiveDocument>;
  readonly #activeFile: DurableJsonFile<ActiveDocument>;
  readonly #segments: SegmentStore;
  readonly #lock: JournalLock;
  readonly #clock: Clock;
  readonly #policy: JournalPolicy;
  readonly #index: Map<string, IndexEntry>;
  readonly #segmentInfo: Map<number, SegmentInfo>;
  readonly #onUnavailable: ((error: ConnectorError) => void) | undefined;
  readonly #fs: JournalFs;
  readonly #directory: string;
  readonly #manifest: Manifest;
  readonly #lost: LostRegister;
  readonly #marker: Marker;
  readonly #generations: Generations;
  /** The last audit anchor handed to `stampMarker`, kept by the stamp at close. */
  #anchor: AuditAnchor | undefined;
  /** A reserve changed memory only: the next write (or close) carries it. */
  #dirty = false;
  /** The last write that carries each key's latest change, until it is durable. */
  readonly #pending = new Map<string, Promise<void>>();
  /** Changes that wait for the next write (a `completed` the caller did not wait for). */
  readonly #deferred: DeferredWrite;
  /** Sealing and pruning, one at a time, off the mutations' path. */
  #maintenance: Promise<void> = Promise.resolve();
  #sealScheduled = false;
  /**
   * Settled records in the active segment, kept as they come and go so that a settlement does not
   * count the whole segment again to learn whether a seal is due (the seal itself recounts).
   */
  #settledInActiveCount: number;
  #nextSegmentId: number;
  #failure: ConnectorError | null = null;
  #closing: Promise<void> | null = null;

  constructor(parts: JournalParts) {
    this.#db = parts.db;
    this.#activeFile = parts.activeFile;
    this.#segments = parts.segments;
    this.#lock = parts.lock;
    this.#clock = parts.clock;
    this.#policy = parts.policy;
    this.#deferred = new DeferredWrite(() => this.#write(), parts.policy.completedWriteDelayMs);
    this.#index = parts.index;
    this.#segmentInfo = parts.segmentInfo;
    this.#onUnavailable = parts.onUnavailable;
    this.#fs = parts.fs;
    this.#directory = parts.directory;
    this.#manifest = parts.manifest;
    this.#lost = parts.lost;
    this.#marker = parts.marker;
    this.#generations = parts.generations;
    this.#anchor = parts.marker.audit;
    this.#settledInActiveCount = Object.values(parts.db.data.records).filter((record) =>
      isSettled(record.state),
    ).length;
    this.#nextSegmentId = Math.max(
      parts.manifest.nextSegmentId,
      Math.max(0, ...parts.segmentInfo.keys()) + 1,
    );
  }

  /** Unknown losses an operator accepted that still refuse every operationId the journal does not hold. */
  unknownLossesInForce(): readonly UnknownLoss[] {
    return this.#lost.unknownInForce(this.#now());
  }

  /**
   * The active segment's generation known to be on disk: the audit log records it on every line,
   * so an older `active.json` put back later is behind it (ADR 0006 §14).
   */
  get durableGeneration(): number {
    return this.#generations.durable;
  }

  /**
   * Rewrite the identity marker with the generations on disk now and, when given, where the audit
   * log's chain stands (its line count and last line's hash). The gate calls it after its start
   * and stop lines; `close()` stamps again with the last anchor. An older `active.json`, manifest
   * or audit log found later is behind what the marker recorded.
   */
  async stampMarker(anchor?: AuditAnchor): Promise<void> {
    this.#assertUsable();
    if (anchor !== undefined) this.#anchor = anchor;
    await this.#enqueue(() => this.#stamp());
  }

  async #stamp(): Promise<void> {
    this.#deferred.flush();
    await Promise.all(this.#pending.values());
    const marker = newMarker(this.#marker.journalId, this.#marker.createdAt, "created", {
      activeGeneration: this.#generations.durable,
      manifestGeneration: this.#generations.manifest,
      audit: this.#anchor,
    });
    try {
      await writeMarker(this.#fs, dirname(this.#directory), marker);
    } catch (error) {
      throw journalUnavailable("write the identity marker", error);
    }
  }

  /** The published retention of settled records, in milliseconds. Open records are never pruned. */
  get retentionMs(): number {
    return this.#policy.retentionMs;
  }

  /**
   * Claim an operation before anything else happens. `reserved`: this caller alone may go on to
   * send. `existing` (same key, same input): replay `record`, never resend; a `preparing` record
   * is an operation still in flight. Same key with another input: `operation_conflict`. A key
   * the journal does not hold but may have lost (`journal recover --accept-loss`): `operation_lost`.
   *
   * A new reservation is NOT written to disk by itself: the next write (`markUncertain`, `refuse`,
   * or close) carries it. Nothing is ever sent before `markUncertain` is durable, so a `preparing`
   * record lost in a crash is an operation provably never sent, the same as one never reserved;
   * skipping its write saves two of a write's six fsyncs (ADR 0006, fsync budget).
   */
  async reserve(request: ReserveRequest): Promise<ReserveResult> {
    this.#assertUsable();
    const key = journalKey(request);
    if (typeof request.action !== "string" || request.action.length === 0) {
      throw new ConnectorError("invalid_input", "action must be a non-empty string");
    }
    const inputHash = hashInput(request.action, request.input);
    const entry = this.#index.get(key);
    if (entry !== undefined) {
      if (entry.inputHash !== inputHash) {
        throw new ConnectorError(
          "operation_conflict",
          `operationId ${request.operationId} was already used with a different action or input; ` +
            "give this write a new operationId.",
          { details: { operationId: request.operationId, state: entry.state } },
        );
      }
      const record = await this.#durableRecord(key);
      // Only a retention prune racing this call can remove it; then it is simply new again.
      return record === undefined ? this.reserve(request) : { kind: "existing", record };
    }
    const now = this.#now();
    const lost = this.#lost.refusal(key, request, now);
    if (lost !== null) throw lost;
    const record = sealRecord(newPreparingRecord(request, key, inputHash, now));
    this.#db.data.records[key] = record;
    this.#index.set(key, { inputHash, state: "preparing", segment: null });
    this.#dirty = true;
    return { kind: "reserved", record: copyRecord(record) };
  }

  /**
   * preparing → uncertain, recording every id that will be sent and the exact command (kept until
   * the record settles, so settlement can send the same command again). Await it before the send.
   */
  async markUncertain(key: string, derivedIds: DerivedIds, command?: JournalCommand): Promise<JournalRecord> {
    const ids = sanitiseDerivedIds(derivedIds);
    const sent = command === undefined ? undefined : sanitiseCommand(command);
    return this.#transition(key, "markUncertain", "uncertain", (record) => {
      record.derivedIds = ids;
      if (sent !== undefined) record.command = sent;
    });
  }

  /** uncertain → uncertain with an answer that did not decide the outcome (kept for settlement). */
  async recordError(key: string, error: JournalError): Promise<JournalRecord> {
    const clean = sanitiseError(error);
    return this.#transition(key, "recordError", "uncertain", (record) => {
      record.error = clean;
    });
  }

  /**
   * uncertain → completed with T3's receipt. With `withNextWrite` the record is `completed` in
   * memory at once and every reader of the key waits for it to be durable, as for any change, but
   * its rewrite waits for company: the journal's next write carries it, or it is written on its own
   * once `completedWriteDelayMs` passed with none; a reader of the key starts it at once. For a
   * caller that answers without awaiting it (ADR 0062): a burst of writes then pays one rewrite per
   * write instead of two (ADR 0066).
   */
  async complete(
    key: string,
    receipt: JournalReceipt,
    options: { readonly withNextWrite?: boolean } = {},
  ): Promise<JournalRecord> {
    const clean = sanitiseReceipt(receipt);
    return this.#transition(
      key,
      "complete",
      "completed",
      (record) => {
        record.receipt = clean;
      },
      options.withNextWrite === true,
    );
  }

  /** preparing|uncertain → refused: provably not applied. */
  async refuse(key: string, error: JournalError): Promise<JournalRecord> {
    const clean = sanitiseError(error);
    return this.#transition(key, "refuse", "refused", (record) => {
      record.error = clean;
    });
  }

  /** Reconciliation: uncertain → completed|refused, from what T3 says. */
  async settle(key: string, outcome: SettleOutcome): Promise<JournalRecord> {
    if (outcome.state === "completed") {
      const receipt = sanitiseReceipt(outcome.receipt);
      return this.#transition(key, "settle", "completed", (record, now) => {
        record.receipt = receipt;
        record.reconciledAt = now;
      });
    }
    if (outcome.state === "refused") {
      const error = sanitiseError(outcome.error);
      return this.#transition(key, "settle", "refused", (record, now) => {
        record.error = error;
        record.reconciledAt = now;
      });
    }
    throw new ConnectorError("invalid_input", "a settle outcome is completed or refused");
  }

  /** The durable record under `key`, or undefined. */
  async get(key: string): Promise<JournalRecord | undefined> {
    this.#assertUsable();
    return this.#durableRecord(key);
  }

  async listUncertain(): Promise<JournalRecord[]> {
    return this.list({ states: ["uncertain"] });
  }

  /** Durable records matching `filter`, oldest first (ties in insertion order). Reads sealed segments only if settled states may match. */
  async list(filter: JournalFilter = {}): Promise<JournalRecord[]> {
    this.#assertUsable();
    return this.#enqueue(async () => {
      this.#deferred.flush();
      await Promise.all(this.#pending.values());
      const matches = recordFilter(filter);
      const found = Object.values(this.#db.data.records).filter(matches).map(copyRecord);
      if (filter.states === undefined || filter.states.some(isSettled)) {
        for (const info of [...this.#segmentInfo.values()]) {
          if (filter.updatedSince !== undefined && info.newestSettledAt < filter.updatedSince) continue;
          for (const record of await this.#segments.all(info.id)) {
            if (this.#index.get(record.key)?.segment === info.id && matches(record))
              found.push(copyRecord(record));
          }
        }
      }
      found.sort((a, b) => a.createdAt - b.createdAt); // stable: ties keep their insertion order
      return filter.limit === undefined ? found : found.slice(0, filter.limit);
    });
  }

  stats(): JournalStats {
    let open = 0;
    for (const entry of this.#index.values()) if (!isSettled(entry.state)) open += 1;
    return {
      retained: this.#index.size,
      active: Object.keys(this.#db.data.records).length,
      open,
      segments: this.#segmentInfo.size,
    };
  }

  /**
   * Drop settled records older than the retention: whole sealed segments whose newest record
   * expired, and expired settled records of the active segment. `preparing`/`uncertain` records
   * are never touched. Runs on open and after each seal; callable on a schedule.
   */
  async prune(): Promise<{ records: number; segments: number }> {
    this.#assertUsable();
    return this.#enqueue(() => this.#prune());
  }

  /**
   * The last steps of an open, once the files checked out: list a segment a seal wrote but did not
   * list, drop active copies of sealed records, delete segments a prune unlisted but did not delete.
   */
  async finishOpen(steps: {
    rewriteManifest: boolean;
    rewriteActive: boolean;
    leftovers: number[];
  }): Promise<void> {
    if (steps.rewriteManifest) await this.#writeManifest();
    if (steps.rewriteActive) await this.#commit(null);
    for (const id of steps.leftovers) await this.#segments.remove(id);
  }

  /** Wait for pending writes and maintenance, then release the lock. Later calls fail. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#maintenance;
      this.#deferred.flush();
      await Promise.allSettled(this.#pending.values());
      // A clean stop keeps reservations no write carried yet (a crash may lose them: they were unsent).
      if (this.#dirty && this.#failure === null) await this.#commit(null).catch(() => undefined);
      // The marker records the generations a clean stop left: an older copy put back is behind them.
      if (this.#failure === null) await this.#stamp().catch(() => undefined);
      await this.#activeFile.close().catch(() => undefined);
      await this.#lock.release();
    })();
    return this.#closing;
  }

  async #transition(
    key: string,
    operation: JournalOperation,
    to: JournalState,
    apply: (record: JournalRecord, now: number) => void,
    withNextWrite = false,
  ): Promise<JournalRecord> {
    this.#assertUsable();
    const entry = this.#index.get(key);
    if (entry === undefined) {
      throw new ConnectorError("not_found", "no journal record has this key", { details: { key } });
    }
    assertTransition(operation, entry.state, to);
    // Every legal source state is open, and open records always live in the active segment.
    const record = this.#db.data.records[key];
    if (record === undefined)
      throw new ConnectorError("internal", "an open journal record is not in the active segment");
    const now = this.#now();
    apply(record, now);
    record.state = to;
    record.updatedAt = now;
    if (isSettled(to)) {
      // Every legal source state is open: this record joins the settled ones.
      this.#settledInActiveCount += 1;
      record.settledAt = now;
      // What was sent (message text included) leaves the journal as soon as the outcome is known.
      delete record.command;
    }
    sealRecord(record);
    entry.state = to;
    await this.#commit(key, withNextWrite);
    if (isSettled(to)) this.#scheduleSeal();
    return copyRecord(record);
  }

  /**
   * Writes the active segment; `key`'s change is durable when this resolves, and readers of `key`
   * wait for it meanwhile. `withNextWrite`: the change waits for the journal's next write (or its
   * own after a delay, `DeferredWrite`); any other write carries every change that waits.
   */
  async #commit(key: string | null, withNextWrite = false): Promise<void> {
    this.#dirty = false;
    const write = withNextWrite ? this.#deferred.join() : this.#write();
    if (!withNextWrite) this.#deferred.carriedBy(write);
    if (key !== null) this.#pending.set(key, write);
    try {
      await write;
    } finally {
      if (key !== null && this.#pending.get(key) === write) this.#pending.delete(key);
    }
  }

  /** One write of the active segment, marking the generation it carries durable when it lands. */
  #write(): Promise<void> {
    const generation = this.#generations.upcoming();
    return this.#db.write().then(
      () => this.#generations.markDurable(generation),
      (error: unknown) => {
        throw this.#fail(error);
      },
    );
  }

  async #durableRecord(key: string): Promise<JournalRecord | undefined> {
    // A change of this key that waits for company is needed now.
    if (this.#pending.has(key)) this.#deferred.flush();
    for (let pending = this.#pending.get(key); pending !== undefined; pending = this.#pending.get(key)) {
      await pending;
    }
    this.#assertUsable();
    const entry = this.#index.get(key);
    if (entry === undefined) return undefined;
    if (entry.segment === null) {
      const record = this.#db.data.records[key];
      return record === undefined ? undefined : copyRecord(record);
    }
    try {
      const record = await this.#segments.find(entry.segment, key);
      if (record !== undefined) return copyRecord(record);
    } catch (error) {
      if (!this.#index.has(key)) return undefined; // pruned while we read
      throw this.#fail(error);
    }
    if (!this.#index.has(key)) return undefined;
    throw this.#fail(
      journalUnavailable("find a record in its segment", new Error("the index is inconsistent")),
    );
  }

  #scheduleSeal(): void {
    if (this.#sealScheduled) return;
    const threshold = this.#policy.segmentRecords + this.#policy.recentRecords;
    if (this.#settledInActiveCount < threshold) return;
    this.#sealScheduled = true;
    // Failures are recorded by #enqueue (the journal becomes unavailable); nobody awaits this.
    this.#enqueue(() => this.#seal()).catch(() => undefined);
  }

  /**
   * Move the oldest settled records into a new sealed segment. The segment is durable before the
   * records leave the active segment, so a crash in between leaves them in both (the loader keeps
   * the sealed copy): a record is never in neither.
   */
  async #seal(): Promise<void> {
    this.#sealScheduled = false;
    const { segmentRecords, recentRecords } = this.#policy;
    let settled = this.#settledInActive();
    while (settled.length >= segmentRecords + recentRecords && this.#closing === null) {
      const batch = settled.slice(0, segmentRecords);
      const id = this.#nextSegmentId;
      this.#nextSegmentId += 1;
      const entry = await this.#segments.write(id, this.#now(), batch);
      // The manifest lists the segment before its records leave the active segment: a crash
      // between the two leaves them in both (the sealed copy wins), never in neither; a crash
      // before the manifest leaves an unlisted segment that the next open adopts.
      this.#manifest.segments.push(entry);
      this.#manifest.nextSegmentId = id + 1;
      await this.#writeManifest();
      this.#segmentInfo.set(id, describeSegment(entry));
      for (const record of batch) {
        delete this.#db.data.records[record.key];
        this.#settledInActiveCount -= 1;
        const entry = this.#index.get(record.key);
        if (entry !== undefined) entry.segment = id;
      }
      await this.#commit(null);
      await this.#prune();
      settled = this.#settledInActive();
    }
  }

  async #prune(): Promise<{ records: number; segments: number }> {
    const cutoff = this.#now() - this.#policy.retentionMs;
    let records = 0;
    const expired = [...this.#segmentInfo.values()].filter((info) => info.newestSettledAt < cutoff);
    const lostExpired = this.#lost.expire(this.#now());
    if (expired.length > 0 || lostExpired) {
      // Forget the keys first: a lookup never reaches for a file that is about to disappear.
      for (const info of expired) {
        for (const [key, entry] of this.#index) {
          if (entry.segment === info.id && isSettled(entry.state)) this.#index.delete(key);
        }
        this.#segmentInfo.delete(info.id);
      }
      // The manifest stops listing them before they are deleted: a crash in between leaves an
      // unlisted old segment, which the next open deletes, never a listed one that is missing.
      const gone = new Set(expired.map((info) => info.id));
      this.#manifest.segments = this.#manifest.segments.filter((entry) => !gone.has(entry.id));
      await this.#writeManifest();
      for (const info of expired) await this.#segments.remove(info.id);
    }
    const segments = expired.length;
    for (const record of Object.values(this.#db.data.records)) {
      if (!isSettled(record.state) || record.settledAt === null || record.settledAt >= cutoff) continue;
      delete this.#db.data.records[record.key];
      this.#settledInActiveCount -= 1;
      this.#index.delete(record.key);
      records += 1;
    }
    if (records > 0) await this.#commit(null);
    return { records, segments };
  }

  async #writeManifest(): Promise<void> {
    Object.assign(this.#manifest, this.#lost.toManifest(), {
      writtenAt: this.#now(),
      activeGeneration: this.#generations.durable,
    });
    try {
      this.#generations.manifest = await writeManifest(this.#fs, this.#directory, this.#manifest);
    } catch (error) {
      throw journalUnavailable("write the manifest", error);
    }
  }

  #settledInActive(): JournalRecord[] {
    return Object.values(this.#db.data.records)
      .filter((record) => isSettled(record.state))
      .sort((a, b) => (a.settledAt ?? 0) - (b.settledAt ?? 0) || (a.key < b.key ? -1 : 1));
  }

  /** Run `task` after the previous maintenance task; a failure makes the journal unavailable. */
  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#maintenance.then(() => {
      this.#assertUsable();
      return task();
    });
    this.#maintenance = run.then(
      () => undefined,
      (error: unknown) => {
        // After close, queued tasks refuse to run: that is not a disk failure.
        if (this.#closing !== null) return;
        if (!isConnectorError(error) || error.code === "journal_unavailable") this.#fail(error);
      },
    );
    return run;
  }

  #fail(error: unknown): ConnectorError {
    if (this.#failure === null) {
      this.#failure = isConnectorError(error, "journal_unavailable")
        ? error
        : journalUnavailable("write", error);
      this.#onUnavailable?.(this.#failure);
    }
    return this.#failure;
  }

  #assertUsable(): void {
    if (this.#failure !== null) throw this.#failure;
    if (this.#closing !== null) throw new ConnectorError("journal_unavailable", "the journal is closed");
  }

  #now(): number {
    return Math.floor(this.#clock.now());
  }
}
