import { join } from "node:path";
import { ConnectorError, sha256Hex } from "@t3-connector/core";
import {
  type JournalFs,
  journalUnavailable,
  readPrivateText,
  syncDirectory,
  writeFileDurably,
} from "@t3-connector/core/durable";
import type { ManifestSegment } from "./manifest.js";
import { SEGMENT_FORMAT, type SegmentDocument } from "./records.js";
import type { JournalRecord } from "./types.js";

export const SEGMENT_PATTERN = /^segment-(\d{8})\.json$/;
/** Parsed segments kept in memory: a repeat of an old operation reads its segment at most once. */
const CACHED_SEGMENTS = 4;

export interface SegmentInfo {
  id: number;
  /** The newest `settledAt` in the segment: the whole file expires after it. */
  newestSettledAt: number;
  size: number;
}

export function segmentFileName(id: number): string {
  return `segment-${String(id).padStart(8, "0")}.json`;
}

/**
 * The sealed, read-only segments: each holds settled records only and is written once (durably,
 * like every journal file), read on demand, and deleted whole when retention expires it.
 */
export class SegmentStore {
  readonly #fs: JournalFs;
  readonly #directory: string;
  readonly #cache = new Map<number, Map<string, JournalRecord>>();

  constructor(fs: JournalFs, directory: string) {
    this.#fs = fs;
    this.#directory = directory;
  }

  /**
   * The manifest's SHA-256 of each segment, given only once its bytes passed the strict parse:
   * every later read is checked against it.
   */
  readonly #hashes = new Map<number, string>();

  expect(id: number, sha256: string): void {
    this.#hashes.set(id, sha256);
  }

  /** Write a new sealed segment durably; answers its manifest entry (bytes' SHA-256, keys). */
  async write(id: number, sealedAt: number, records: JournalRecord[]): Promise<ManifestSegment> {
    const document: SegmentDocument = { format: SEGMENT_FORMAT, version: 2, id, sealedAt, records };
    const text = JSON.stringify(document);
    await writeFileDurably(this.#fs, join(this.#directory, segmentFileName(id)), text);
    const entry = manifestEntry(document, sha256Hex(text));
    this.#hashes.set(id, entry.sha256);
    this.#remember(id, records);
    return entry;
  }

  /** One record of a sealed segment, or undefined. */
  async find(id: number, key: string): Promise<JournalRecord | undefined> {
    return (await this.#records(id)).get(key);
  }

  async all(id: number): Promise<JournalRecord[]> {
    return [...(await this.#records(id)).values()];
  }

  async remove(id: number): Promise<void> {
    this.#cache.delete(id);
    this.#hashes.delete(id);
    try {
      await this.#fs.unlink(join(this.#directory, segmentFileName(id)));
      await syncDirectory(this.#fs, this.#directory);
    } catch (error) {
      throw journalUnavailable(`delete expired segment ${segmentFileName(id)}`, error);
    }
  }

  async #records(id: number): Promise<Map<string, JournalRecord>> {
    const cached = this.#cache.get(id);
    if (cached !== undefined) {
      // Refresh its place in the least-recently-used order.
      this.#cache.delete(id);
      this.#cache.set(id, cached);
      return cached;
    }
    const document = await this.#readDocument(id);
    return this.#remember(id, document.records);
  }

  #remember(id: number, records: JournalRecord[]): Map<string, JournalRecord> {
    const byKey = new Map(records.map((record) => [record.key, record]));
    this.#cache.set(id, byKey);
    while (this.#cache.size > CACHED_SEGMENTS) {
      const oldest = this.#cache.keys().next().value;
      if (oldest === undefined) break;
      this.#cache.delete(oldest);
    }
    return byKey;
  }

  async #readDocument(id: number): Promise<SegmentDocument> {
    const name = segmentFileName(id);
    const text = await readPrivateText(this.#fs, join(this.#directory, name));
    if (text === null || sha256Hex(text) !== this.#hashes.get(id)) {
      // Intact at open, changed since: the gate stops (journal_unavailable) and names the file.
      throw new ConnectorError(
        "journal_damaged",
        `journal segment ${name} was ${text === null ? "deleted" : "changed"} while the journal was open; ` +
          "stop the gate and run t3-connector-write journal verify",
        { details: { files: [name] } },
      );
    }
    // Only bytes already checked are expected: the open parsed every listed segment strictly
    // before taking its hash, and `write` hashed what it made from sealed records. Bytes with the
    // same SHA-256 are those bytes, so parsing them strictly again would only repeat that check.
    const document = JSON.parse(text) as SegmentDocument;
    if (document.id !== id)
      throw journalUnavailable(`read ${name}`, new Error("the segment id does not match"));
    return document;
  }
}

export function describeSegment(entry: ManifestSegment): SegmentInfo {
  return { id: entry.id, newestSettledAt: entry.newestSettledAt, size: entry.records };
}

/** The manifest's line for a segment document whose bytes hash to `sha256`. */
export function manifestEntry(document: SegmentDocument, sha256: string): ManifestSegment {
  let newestSettledAt = 0;
  let oldestCreatedAt = Number.MAX_SAFE_INTEGER;
  for (const record of document.records) {
    newestSettledAt = Math.max(newestSettledAt, record.settledAt ?? 0);
    oldestCreatedAt = Math.min(oldestCreatedAt, record.createdAt);
  }
  const byCreation = [...document.records].sort((a, b) => a.createdAt - b.createdAt);
  return {
    id: document.id,
    file: segmentFileName(document.id),
    records: document.records.length,
    sha256,
    oldestCreatedAt: document.records.length === 0 ? 0 : oldestCreatedAt,
    newestSettledAt,
    firstOperationId: byCreation[0]?.operationId ?? null,
    lastOperationId: byCreation.at(-1)?.operationId ?? null,
    keys: document.records.map((record) => record.key),
  };
}

/** Segment ids present in the directory, ascending. */
export async function listSegmentIds(fs: JournalFs, directory: string): Promise<number[]> {
  return (await fs.readdir(directory))
    .map((name) => SEGMENT_PATTERN.exec(name)?.[1])
    .filter((id): id is string => id !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}
