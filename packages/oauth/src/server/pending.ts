/**
 * @module Authorization codes between consent and `/token`, in memory only: single use, 60 s. A
 * code presented twice ends the session its first use started, also when the two arrive at once
 * (the second is seen before the first has a session: the first's session then ends at birth).
 * The sign-in before consent is in sign-in-transactions.ts.
 */
import type { Clock } from "@t3-connector/core";
import { newSecret, SECRET_PREFIX, secretHash } from "../tokens/secrets.js";

const MAX_CODES = 256;

export interface CodeGrant {
  readonly clientId: string;
  readonly clientName: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly scope: readonly string[];
  readonly resource: string;
  readonly credentialId: string;
  readonly issuedAt: number;
}

interface CodeEntry {
  readonly grant: CodeGrant;
  readonly deadline: number;
  used: boolean;
  sessionId?: string;
  /** Presented again before its first exchange had a session to end. */
  contested?: boolean;
}

export type CodeRedemption =
  /** `bind` answers false when the code was presented again meanwhile: end that session. */
  | { kind: "ok"; grant: CodeGrant; bind(sessionId: string): boolean }
  | { kind: "reused"; sessionId: string | undefined }
  | { kind: "unknown" };

export class AuthorizationCodes {
  readonly #entries = new Map<string, CodeEntry>();

  constructor(private readonly options: { clock: Clock; ttlMs: number }) {}

  issue(grant: CodeGrant): string {
    this.#prune();
    while (this.#entries.size >= MAX_CODES) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
    const code = newSecret(SECRET_PREFIX.code);
    this.#entries.set(secretHash(code), {
      grant,
      deadline: this.options.clock.now() + this.options.ttlMs,
      used: false,
    });
    return code;
  }

  /** Marks the code used before anything else happens, so it can serve once only. */
  redeem(code: string): CodeRedemption {
    const entry = this.#entries.get(secretHash(code));
    if (entry === undefined || this.options.clock.now() >= entry.deadline) return { kind: "unknown" };
    if (entry.used) {
      if (entry.sessionId === undefined) entry.contested = true;
      return { kind: "reused", sessionId: entry.sessionId };
    }
    entry.used = true;
    return {
      kind: "ok",
      grant: entry.grant,
      bind: (sessionId) => {
        entry.sessionId = sessionId;
        return entry.contested !== true;
      },
    };
  }

  #prune(): void {
    const now = this.options.clock.now();
    for (const [hash, entry] of this.#entries) if (now >= entry.deadline) this.#entries.delete(hash);
  }
}
