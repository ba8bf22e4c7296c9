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
  /**
   * The records part (`"k":{...},"k":{...}`) of the last bytes answered, as a view into them, with
   * the records it was made of, in order, their checksums and where each one's bytes end in it.
   * The next write copies the longest run of leading records that are the same objects with the
   * same checksums as one block: a reservation arrives at the end and a write changes the newest
   * records, so only those few are gathered again.
   */
  #body: Uint8Array = new Uint8Array(0);
  #keys: string[] = [];
  #held: JournalRecord[] = [];
  #checksums: string[] = [];
  #ends: number[] = [];

  of(document: ActiveDocument): Uint8Array {
    const { records, ...head } = document;
    const headBytes = encoder.encode(`${JSON.stringify(head).slice(0, -1)},"records":{`);
    const keys = Object.keys(records);
    const kept = this.#keptPrefix(keys, records);
    const held = this.#held.slice(0, kept);
    const checksums = this.#checksums.slice(0, kept);
    const ends = this.#ends.slice(0, kept);
    const present = keys.slice(0, kept);
    let length = kept === 0 ? 0 : (ends[kept - 1] as number);
    const parts: Uint8Array[] = [headBytes, this.#body.subarray(0, length)];
    for (let index = kept; index < keys.length; index++) {
      const key = keys[index] as string;
      const record = records[key];
      if (record === undefined) continue;
      if (present.length > 0) {
        parts.push(COMMA);
        length += COMMA.length;
      }
      const bytes = this.#recordBytes(key, record);
      parts.push(bytes);
      length += bytes.length;
      // An unsealed record has no checksum to tell a change by: it ends what the next write keeps.
      if (record.checksum !== undefined && held.length === present.length) {
        held.push(record);
        checksums.push(record.checksum);
        ends.push(length);
      }
      present.push(key);
    }
    parts.push(END);
    const output = Buffer.concat(parts, headBytes.length + length + END.length);
    // A view, not a copy: nothing writes into bytes once answered, and the next write only reads it.
    this.#body = output.subarray(headBytes.length, headBytes.length + length);
    this.#keys = present.slice(0, held.length);
    this.#held = held;
    this.#checksums = checksums;
    this.#ends = ends;
    return output;
  }

  /** How many leading records are the same objects, with the same checksums, as in the last write. */
  #keptPrefix(keys: readonly string[], records: Record<string, JournalRecord>): number {
    const limit = Math.min(keys.length, this.#keys.length);
    let index = 0;
    while (index < limit) {
      const key = keys[index] as string;
      const record = records[key];
      if (
        key !== this.#keys[index] ||
        record === undefined ||
        record !== this.#held[index] ||
        record.checksum !== this.#checksums[index]
      ) {
        break;
      }
      index += 1;
    }
    return index;
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
