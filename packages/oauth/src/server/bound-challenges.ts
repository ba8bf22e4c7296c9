/**
 * @module Sign-in challenges that cost the server nothing to hand out. A challenge is a random
 * nonce, its deadline and a MAC over both and the sign-in it belongs to, under a key that lives
 * as long as the process; checking it needs no table. Only a challenge that was answered by a
 * verified passkey is remembered (until its deadline), so that it serves once: a stranger can ask
 * for as many challenges as it likes and holds no slot the owner needs (ADR 0043).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Clock } from "@t3-connector/core";

const NONCE_BYTES = 16;
const MAC_BYTES = 16;

export class BoundChallenges {
  readonly #key = randomBytes(32);
  readonly #clock: Clock;
  readonly #ttlMs: number;
  /** Challenges already answered (base64url) → their deadline (monotonic ms). */
  readonly #spent = new Map<string, number>();

  constructor(options: { clock: Clock; ttlMs: number }) {
    this.#clock = options.clock;
    this.#ttlMs = options.ttlMs;
  }

  /** A fresh challenge for the sign-in `binding` (its raw bytes, as WebAuthn options take them). */
  mint(binding: string): Uint8Array {
    const head = Buffer.alloc(NONCE_BYTES + 8);
    randomBytes(NONCE_BYTES).copy(head);
    head.writeDoubleBE(this.#clock.monotonic() + this.#ttlMs, NONCE_BYTES);
    return Buffer.concat([head, this.#mac(head, binding)]);
  }

  /**
   * Whether `challenge` (base64url, as the client data carries it) was minted for `binding`, is
   * within its deadline and not yet answered. `spend` it once the passkey's signature verified,
   * in the same serial section (the passkey store verifies one assertion at a time).
   */
  check(challenge: string, binding: string): boolean {
    const bytes = Buffer.from(challenge, "base64url");
    if (bytes.length !== NONCE_BYTES + 8 + MAC_BYTES) return false;
    const head = bytes.subarray(0, NONCE_BYTES + 8);
    if (!timingSafeEqual(bytes.subarray(NONCE_BYTES + 8), this.#mac(head, binding))) return false;
    const now = this.#clock.monotonic();
    const deadline = head.readDoubleBE(NONCE_BYTES);
    return now < deadline && !this.#spent.has(challenge);
  }

  /** Marks a verified challenge answered until its deadline. */
  spend(challenge: string): void {
    const bytes = Buffer.from(challenge, "base64url");
    const now = this.#clock.monotonic();
    for (const [spent, until] of this.#spent) if (now >= until) this.#spent.delete(spent);
    this.#spent.set(challenge, bytes.length >= NONCE_BYTES + 8 ? bytes.readDoubleBE(NONCE_BYTES) : now);
  }

  #mac(head: Buffer, binding: string): Buffer {
    return createHmac("sha256", this.#key).update(head).update(binding).digest().subarray(0, MAC_BYTES);
  }
}
