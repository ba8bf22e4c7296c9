/**
 * One-time entries (a pending ceremony, a Deny/End ticket) kept per client (ADR 0073), so that no
 * client can fill the table for another: each client holds at most `perClient` live entries, a
 * new one past that replaces its own oldest, and when the whole table is full the entry given up
 * is the oldest of the client that holds the most — never the newcomer's. A stranger flooding
 * from a few addresses spends only its own slots; the owner's next entry always finds room.
 * `take` deletes before anyone can await, so an entry serves at most once. Ids are 32 random bytes.
 */
import { randomBytes } from "node:crypto";

export interface PerClientBookOptions {
  /** Monotonic milliseconds. */
  readonly monotonic: () => number;
  readonly ttlMs: number;
  /** Live entries one client may hold at once. */
  readonly perClient: number;
  /** Live entries the whole table holds at once (memory bound). */
  readonly max: number;
}

interface Entry<T> {
  readonly value: T;
  readonly client: string;
  readonly deadline: number;
}

export class PerClientBook<T> {
  readonly #entries = new Map<string, Entry<T>>();

  constructor(private readonly options: PerClientBookOptions) {}

  /** Adds an entry for `client` (its budget key) and answers its fresh opaque id; never refuses. */
  add(client: string, value: T): string {
    this.prune();
    const own = this.#idsOf(client);
    if (own.length >= this.options.perClient && own[0] !== undefined) this.#entries.delete(own[0]);
    else if (this.#entries.size >= this.options.max) this.#evictFromLargest();
    const id = randomBytes(32).toString("base64url");
    this.#entries.set(id, { value, client, deadline: this.options.monotonic() + this.options.ttlMs });
    return id;
  }

  /** The entry, once; undefined when unknown, expired, or added for another client. */
  take(id: string, client?: string): T | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    if (client !== undefined && entry.client !== client) return undefined;
    this.#entries.delete(id);
    if (this.options.monotonic() >= entry.deadline) return undefined;
    return entry.value;
  }

  /** Whether `id` is a live entry of `client`, leaving it in place (a session used many times). */
  has(id: string, client: string): boolean {
    const entry = this.#entries.get(id);
    if (entry === undefined || entry.client !== client) return false;
    if (this.options.monotonic() >= entry.deadline) {
      this.#entries.delete(id);
      return false;
    }
    return true;
  }

  get size(): number {
    this.prune();
    return this.#entries.size;
  }

  clear(): void {
    this.#entries.clear();
  }

  prune(): void {
    const now = this.options.monotonic();
    for (const [id, entry] of this.#entries) if (now >= entry.deadline) this.#entries.delete(id);
  }

  /** The client's ids, oldest first (a Map keeps insertion order). */
  #idsOf(client: string): string[] {
    const ids: string[] = [];
    for (const [id, entry] of this.#entries) if (entry.client === client) ids.push(id);
    return ids;
  }

  #evictFromLargest(): void {
    const counts = new Map<string, number>();
    for (const entry of this.#entries.values()) counts.set(entry.client, (counts.get(entry.client) ?? 0) + 1);
    let largest: string | undefined;
    let most = 0;
    for (const [client, count] of counts) {
      if (count > most) {
        largest = client;
        most = count;
      }
    }
    if (largest === undefined) return;
    const oldest = this.#idsOf(largest)[0];
    if (oldest !== undefined) this.#entries.delete(oldest);
  }
}
