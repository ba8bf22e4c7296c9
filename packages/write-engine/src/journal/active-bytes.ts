import type { ActiveDocument } from "./records.js";
import type { JournalRecord } from "./types.js";

const encoder = new TextEncoder();
const COMMA = encoder.encode(",");
const END = encoder.encode("}}");

/**
 * The active segment's bytes, written again on every durable change. Between two writes only the
 * records that changed differ, yet the segment holds every open record and up to
 * `segmentRecords + recentRecords` settled ones: stringifying and encoding all of them on every
 * write was most of a busy journal's CPU (10,000 writes, 500 in flight: 72 MB of JSON). So each
 * record's encoded `"key":{...}` is kept beside it and reused while its checksum is the same:
 * `sealRecord` restamps the checksum on every change and is the only writer of the field, and only
 * `reserve` and a transition change a record. The bytes are exactly those of
 * `JSON.stringify(document)` with `records` last, as `emptyActive` orders it.
 */
export class ActiveSegmentBytes {
  readonly #records = new WeakMap<JournalRecord, { key: string; checksum: string; bytes: Uint8Array }>();

  of(document: ActiveDocument): Uint8Array {
    const { records, ...head } = document;
    const headText = JSON.stringify(head);
    const parts: Uint8Array[] = [encoder.encode(`${headText.slice(0, -1)},"records":{`)];
    let first = true;
    for (const key of Object.keys(records)) {
      const record = records[key];
      if (record === undefined) continue;
      if (!first) parts.push(COMMA);
      first = false;
      parts.push(this.#recordBytes(key, record));
    }
    parts.push(END);
    return Buffer.concat(parts);
  }

  #recordBytes(key: string, record: JournalRecord): Uint8Array {
    const kept = this.#records.get(record);
    if (kept !== undefined && kept.key === key && kept.checksum === record.checksum) return kept.bytes;
    const bytes = encoder.encode(`${JSON.stringify(key)}:${JSON.stringify(record)}`);
    // An unsealed record has no checksum to tell a change by: it is never reused.
    if (record.checksum !== undefined) this.#records.set(record, { key, checksum: record.checksum, bytes });
    return bytes;
  }
}
