/**
 * @module What lives between `/authorize` and `/token`, in memory only: the sign-in transaction
 * (bound to a cookie, at most 10 minutes) and the authorization code (single use, 60 s). A code
 * presented twice ends the session its first use started.
 */
import { randomBytes } from "node:crypto";
import type { Clock } from "@t3-connector/core";
import type { OAuthClient } from "../clients/client-record.js";
import { newSecret, SECRET_PREFIX, secretHash } from "../tokens/index.js";

export interface AuthorizationRequest {
  readonly client: OAuthClient;
  readonly redirectUri: string;
  readonly state: string | undefined;
  readonly codeChallenge: string;
  readonly scope: readonly string[];
  readonly resource: string;
}

export interface Transaction {
  readonly id: string;
  readonly cookieHash: string;
  readonly request: AuthorizationRequest;
  /** Wall ms: a `revoke-all` after it cancels it. */
  readonly createdAt: number;
  readonly deadline: number;
  /** Set by a verified passkey assertion for this transaction. */
  signedInWith?: string;
}

const MAX_TRANSACTIONS = 64;
const MAX_CODES = 256;

export class Transactions {
  readonly #entries = new Map<string, Transaction>();

  constructor(private readonly options: { clock: Clock; ttlMs: number }) {}

  /** A new transaction and the cookie secret that must come back with each of its calls. */
  open(request: AuthorizationRequest): { transaction: Transaction; cookie: string } | undefined {
    this.#prune();
    if (this.#entries.size >= MAX_TRANSACTIONS) return undefined;
    const cookie = newSecret(SECRET_PREFIX.transaction);
    const now = this.options.clock.now();
    const transaction: Transaction = {
      id: randomBytes(16).toString("base64url"),
      cookieHash: secretHash(cookie),
      request,
      createdAt: now,
      deadline: now + this.options.ttlMs,
    };
    this.#entries.set(transaction.id, transaction);
    return { transaction, cookie };
  }

  /** The live transaction whose cookie matches, or undefined (unknown, expired or foreign cookie). */
  get(id: string, cookie: string | undefined): Transaction | undefined {
    const transaction = this.#entries.get(id);
    if (transaction === undefined || cookie === undefined) return undefined;
    if (this.options.clock.now() >= transaction.deadline) {
      this.#entries.delete(id);
      return undefined;
    }
    return secretHash(cookie) === transaction.cookieHash ? transaction : undefined;
  }

  close(id: string): void {
    this.#entries.delete(id);
  }

  #prune(): void {
    const now = this.options.clock.now();
    for (const [id, entry] of this.#entries) if (now >= entry.deadline) this.#entries.delete(id);
  }
}

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
}

export type CodeRedemption =
  | { kind: "ok"; grant: CodeGrant; bind(sessionId: string): void }
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
    if (entry.used) return { kind: "reused", sessionId: entry.sessionId };
    entry.used = true;
    return {
      kind: "ok",
      grant: entry.grant,
      bind: (sessionId) => {
        entry.sessionId = sessionId;
      },
    };
  }

  #prune(): void {
    const now = this.options.clock.now();
    for (const [hash, entry] of this.#entries) if (now >= entry.deadline) this.#entries.delete(hash);
  }
}
