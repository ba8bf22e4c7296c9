import { createHash } from "node:crypto";
import { type ActiveGenerations, activeChecksum } from "./checksum.js";
import type { JournalRecord } from "./types.js";

const HEX64 = /^[0-9a-f]{64}$/;
/** `<key>:<checksum>\n`: both are 64 hex digits, so every line has the same length. */
const LINE = 64 + 1 + 64 + 1;

/**
 * `activeChecksum` of the active segment, computed on every write without building its text again:
 * the `key:checksum` lines are kept in sorted order in one buffer, a record whose checksum changed
 * has its line overwritten in place, a key that arrived is inserted at its place, and the buffer is
 * hashed as it stands. The bytes hashed are exactly the text `activeChecksum` joins, so the value is
 * the same (test/journal/active-checksum.test.ts). A departure (a seal, a prune) sorts the lines
 * again; anything but 64-hex keys and checksums (an unsealed record) takes `activeChecksum` itself.
 */
export class ActiveChecksum {
  #keys: string[] = [];
  #checksums: string[] = [];
  readonly #present = new Set<string>();
  #lines: Buffer = Buffer.alloc(0);

  of(records: Record<string, JournalRecord>, generations: ActiveGenerations): string {
    if (!this.#follow(records)) {
      this.#forget();
      return activeChecksum(records, generations);
    }
    const hash = createHash("sha256");
    const length = this.#keys.length * LINE;
    if (generations.generation === undefined) {
      // The lines are joined by newlines: the last one has none.
      hash.update(this.#lines.subarray(0, Math.max(0, length - 1)));
    } else {
      hash.update(this.#lines.subarray(0, length));
      hash.update(`generation:${generations.generation}\nmanifest:${generations.manifestGeneration ?? 0}`);
    }
    return hash.digest("hex");
  }

  /** Brings the lines up to `records`; false when a key or a checksum is not 64 hex digits. */
  #follow(records: Record<string, JournalRecord>): boolean {
    const keys = Object.keys(records);
    const arrived: string[] = [];
    for (const key of keys) if (!this.#present.has(key)) arrived.push(key);
    if (keys.length - arrived.length !== this.#present.size) {
      // A key left: sort every line again.
      this.#forget();
      arrived.length = 0;
      arrived.push(...keys);
    }
    for (const key of arrived) {
      if (!HEX64.test(key)) return false;
      this.#insert(key);
    }
    const lines = this.#lines;
    for (let index = 0; index < this.#keys.length; index++) {
      const checksum = records[this.#keys[index] as string]?.checksum;
      if (checksum === this.#checksums[index]) continue;
      if (checksum === undefined || !HEX64.test(checksum)) return false;
      lines.write(checksum, index * LINE + 65, "latin1");
      this.#checksums[index] = checksum;
    }
    return true;
  }

  #insert(key: string): void {
    const keys = this.#keys;
    let low = 0;
    let high = keys.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((keys[middle] as string) < key) low = middle + 1;
      else high = middle;
    }
    const used = keys.length * LINE;
    if (used + LINE > this.#lines.length) {
      const grown = Buffer.alloc(Math.max(LINE * 64, this.#lines.length * 2));
      this.#lines.copy(grown, 0, 0, used);
      this.#lines = grown;
    }
    const at = low * LINE;
    this.#lines.copyWithin(at + LINE, at, used);
    // The checksum is written by the pass that follows: an empty one never matches a record's.
    this.#lines.write(`${key}:${"0".repeat(64)}\n`, at, "latin1");
    keys.splice(low, 0, key);
    this.#checksums.splice(low, 0, "");
    this.#present.add(key);
  }

  #forget(): void {
    this.#keys = [];
    this.#checksums = [];
    this.#present.clear();
  }
}
