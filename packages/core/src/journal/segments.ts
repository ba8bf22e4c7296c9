import { join } from "node:path";
import { readPrivateJson, writeFileDurably } from "./durable-file.js";
import { type JournalFs, journalUnavailable, syncDirectory } from "./fs.js";
import { parseSegmentDocument, SEGMENT_FORMAT, type SegmentDocument } from "./records.js";
import type { JournalRecord } from "./types.js";

const SEGMENT_PATTERN = /^segment-(\d{8})\.json$/;
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

  /** Every segment on disk, oldest first. */
  async loadAll(): Promise<SegmentDocument[]> {
    const ids = (await this.#fs.readdir(this.#directory))
      .map((name) => SEGMENT_PATTERN.exec(name)?.[1])
      .filter((id): id is string => id !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
    const documents: SegmentDocument[] = [];
    for (const id of ids) documents.push(await this.#readDocument(id));
    return documents;
  }

  async write(id: number, sealedAt: number, records: JournalRecord[]): Promise<SegmentInfo> {
    const document: SegmentDocument = { format: SEGMENT_FORMAT, version: 1, id, sealedAt, records };
    await writeFileDurably(this.#fs, join(this.#directory, segmentFileName(id)), JSON.stringify(document));
    this.#remember(id, records);
    return describeSegment(document);
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
    const value = await readPrivateJson(this.#fs, join(this.#directory, name));
    if (value === null) throw journalUnavailable(`read ${name}`, new Error("the segment is missing"));
    const document = parseSegmentDocument(value, name);
    if (document.id !== id)
      throw journalUnavailable(`read ${name}`, new Error("the segment id does not match"));
    return document;
  }
}

export function describeSegment(document: SegmentDocument): SegmentInfo {
  let newestSettledAt = 0;
  for (const record of document.records) newestSettledAt = Math.max(newestSettledAt, record.settledAt ?? 0);
  return { id: document.id, newestSettledAt, size: document.records.length };
}
